"""A public server in Chromium: the job boxes are off and say why, a refused request shows
its notice, and a fuzzed visit (every control, the job buttons too) leaves the runs store's
bytes as they were.

The server is a `gelu-lab serve --public` subprocess (public mode is a setting of the server's
process), so its errors are read from its log: any line that is not an access-log line, or a
request answered 5xx, fails the test.
"""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request

import pytest

import app_fuzz
from app_browser import _new_tab, browser, context, page, set_slider  # noqa: F401
from app_fuzz import Tally, every_param_url, fuzz_session, http_junk
from gelu_lab.app import content, job_box
from gelu_lab.app.pages.implementation import page as implementation  # noqa: F401  (registers its job boxes)
from gelu_lab.results.store import Store
from servers import Served
from test_public import snapshot

pytestmark = pytest.mark.xdist_group("fuzz")  # the fuzzers' worker: one Chromium for both


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("public-browser")
    with Store(d / "runs.sqlite") as s:
        run = s.start_run("accuracy", "planted", {"impl": "gelu"})
        s.put_result(run, "summary", {"n": 1})
        s.set_status(run, "done")
    return d


@pytest.fixture(scope="module")
def server(data):
    with Served("--public", data=data) as s:
        yield s


def server_trouble(server) -> list[str]:
    """What went wrong on the server: a 5xx, or any line that is not an access-log line (but
    waitress's "Task queue depth is N": requests waiting for a thread on a loaded machine)."""
    bad = [ln for ln in server.stderr().splitlines() if ln.strip() and not ln.startswith(("{", "Task queue depth is "))]
    return bad + [json.dumps(ln) for ln in server.log_lines() if ln["status"] >= 500]


@pytest.mark.parametrize("lang", content.LANGS)
def test_the_job_buttons_are_off_and_the_box_says_why(page, server, lang):  # noqa: F811
    t = content.text(lang, "public")
    page.goto(f"{server.base}/implementation?lang={lang}")
    page.wait_for_selector("main.page")
    for name in ("implementation-acc", "implementation-bench"):
        box = page.locator(f"#{name}")
        assert box.locator(".run-button").is_disabled()
        status = box.locator(".job-status").text_content()  # in a closed fold: its text, drawn or not
        assert t["jobs.off"] in status and job_box.JOBS[name].yourself({"impl": "gelu"}) in status
    page.log.check()


def test_a_client_over_its_rate_sees_the_notice(browser, server):  # noqa: F811
    """This reader (its own X-Real-IP) loads a page, then its bucket is emptied from here; the
    next slider move is refused: the notice says so, the figure stays, no HTTP or console error."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, extra_http_headers={"X-Real-IP": "10.5.5.5"})
    tab = _new_tab(ctx)
    try:
        tab.goto(f"{server.base}/definition?lang=en")
        tab.wait_for_selector("main.page")
        tab.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0")
        words = content.text("en", "public")["rate"].split("{rate}")[0]
        # the bucket refills as time passes: on a loaded machine a token may be back before the
        # move's request arrives, so empty it again right before each of a few moves
        for attempt, n in enumerate((400, 300, 200, 400, 300)):
            statuses = []
            while 429 not in statuses and len(statuses) < 300:  # far more than the bucket holds
                statuses.append(_get_quietly(f"{server.base}/glossary", "10.5.5.5"))
            assert 429 in statuses
            set_slider(tab, "definition-n", n)
            try:
                tab.wait_for_function("w => (document.getElementById('live-notice') || {}).innerText.includes(w)", arg=words, timeout=10_000)
                break
            except Exception:
                if attempt == 4:
                    raise
        assert tab.locator("#live-notice").is_visible()
        tab.log.check()
    finally:
        ctx.close()


def _get_quietly(url: str, client: str) -> int:
    """GET url as `client`: the status, 429 included (urllib raises on it)."""
    try:
        return urllib.request.urlopen(urllib.request.Request(url, headers={"X-Real-IP": client}), timeout=60).status
    except urllib.error.HTTPError as e:
        return e.code


def test_a_fuzzed_visit_writes_nothing(page, server, data, monkeypatch):  # noqa: F811
    """Junk URLs of every page (over HTTP and in the browser), then random sessions that also
    press the job buttons (the fuzzer leaves them alone on a private server): no error, the
    store's bytes and the data folder as they were."""
    before = snapshot(data)
    monkeypatch.setattr(app_fuzz, "SKIP", ".modebar")  # the job buttons too (disabled: the browser refuses the click)
    tally = Tally()
    http_junk(server.base, random.Random(3), 1, tally)
    jobs_pages = [u for u in every_param_url(random.Random(4)) if u.startswith(("/implementation", "/ffn", "/misconceptions"))]
    for i, url in enumerate(jobs_pages):
        fuzz_session(page, server.base, 40 + i, 8, tally, start=url, full=True)
    fuzz_session(page, server.base, 50, 20, tally, full=True)
    print(tally.line(), dict(tally.why_skipped))
    assert tally.errors == [] and server_trouble(server) == [], tally.errors + server_trouble(server)
    assert snapshot(data) == before and not (data / "jobs").exists()
