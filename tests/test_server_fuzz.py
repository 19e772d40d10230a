"""The app under junk: hand-edited URLs of every page and random sessions in Chromium.

Bounded here (a few sessions, seeded, so a failure reproduces); the long run is
``.venv/bin/python tests/app_fuzz.py --sessions 30`` (the same code, see app_fuzz.py).
Errors: any HTTP status >= 400, an uncaught page exception, a console error, a
request off 127.0.0.1, or a callback that raised on the server (logged, answered 204).
"""

from __future__ import annotations

import json
import random

import pytest

from app_browser import ServerLog, app_url, browser, context, tab  # noqa: F401
from app_fuzz import Tally, built_pages, every_param_url, fuzz_session, http_junk, junk_query

pytestmark = pytest.mark.xdist_group("fuzz")  # its own worker: off the long chain of page tests in group "app"


def test_junk_query_covers_every_param_and_the_nasty_cases():
    rng = random.Random(0)
    for page, mod in built_pages():
        queries = [junk_query(rng, mod.PARAMS) for _ in range(200)]
        for p in mod.PARAMS:
            assert any(f"?{p.name}=" in q or f"&{p.name}=" in q for q in queries), (page.slug, p.name)
        assert any("lang=" in q and "lang=en" not in q and "lang=zh" not in q for q in queries)
        assert any(len(q) > 10_000 for q in queries)
    urls = every_param_url(rng)
    assert len(urls) == len(built_pages())
    for url, (page, mod) in zip(urls, built_pages()):
        assert url.startswith(page.route + "?") and all(f"{p.name}=" in url for p in mod.PARAMS) and "lang=xx" in url


def test_junk_urls_over_http(app_url):
    tally = Tally()
    with ServerLog() as log:
        http_junk(app_url, random.Random(1), 2, tally)
    assert tally.urls == 2 * len(built_pages())
    assert tally.errors == [] and log.records == [], tally.errors + log.records


def test_every_param_of_every_page_then_random_sessions(tab, app_url):
    """Each built page opened with all its params junked (it renders, repaired), then a
    random session: clicks, typing, slider keys, junk URLs, back/forward."""
    tally = Tally()
    with ServerLog() as log:
        for i, url in enumerate(every_param_url(random.Random(2))):
            fuzz_session(tab, app_url, 10 + i, 0, tally, start=url, full=False)
            assert tab.locator("main h1").count() == 1, url  # the page rendered, repaired
        fuzz_session(tab, app_url, 1, 25, tally, full=False)
    print(tally.line(), dict(tally.why_skipped))
    assert tally.sessions == len(built_pages()) + 1 and tally.actions == 25
    assert tally.errors == [] and log.records == [], tally.errors + log.records


def test_the_server_log_catches_a_callback_that_failed_quietly(app_url):
    """A callback that raises is answered 204 (the page keeps its state): only the
    server's log tells, and ServerLog, the fuzzer's witness, sees it."""
    import urllib.request

    req = urllib.request.Request(f"{app_url}/_dash-update-component", data=b"{}", headers={"Content-Type": "application/json"})
    with ServerLog() as log:
        status = urllib.request.urlopen(req, timeout=30).status
    assert status == 204
    assert len(log.records) == 1 and "_dash-update-component" in log.records[0], log.records


def test_a_planted_raising_callback_fails_the_harness(tab, app_url, monkeypatch):
    """The same failure in the browser: /definition's Bernoulli callback made to raise. The page
    shows nothing wrong (204, no console error, no HTTP error), and still the harness's
    check fails, and so does the check conftest makes after every browser test."""
    from app_browser import SERVER_LOG, check_server_log, open_page, set_slider
    from gelu_lab.app.pages.definition import callbacks as definition

    def planted(*args):
        raise RuntimeError("planted failure")

    open_page(tab, f"{app_url}/definition?n=200&lang=en")
    tab.log.check()
    monkeypatch.setattr(definition, "bernoulli", planted)  # what the registered callback calls
    set_slider(tab, "definition-n", 300)
    for _ in range(600):  # a bound (60 s), not a timing: the request is answered when the server gets to it
        if tab.log.server():
            break
        tab.wait_for_timeout(100)
    assert tab.log.errors == [] and tab.log.bad_status == [], (tab.log.errors, tab.log.bad_status)
    with pytest.raises(AssertionError, match="RuntimeError: planted failure"):
        tab.log.check()
    with pytest.raises(AssertionError, match="RuntimeError: planted failure"):
        check_server_log()
    SERVER_LOG.acknowledge()  # provoked and seen: off this test's record


def test_conftest_fails_a_browser_test_on_a_server_error_it_never_checked(tmp_path):
    """conftest's check after each test, seen from outside: pytest on two tests with this
    conftest and this harness, each logging a server error and checking nothing. The one
    that uses the browser fixture errors at its teardown, naming the error; the one that
    does not (a junk request answers for its own log) passes."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).parent
    shutil.copy(here / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_quiet_failure.py").write_text(
        "import logging\n\nimport pytest\n\nimport app_browser  # noqa: F401  (the harness, as browser tests import it)\n\n\n"
        "@pytest.fixture\ndef browser():\n    return None\n\n\n"
        "def test_with_the_browser(browser):\n    logging.getLogger('gelu_lab.app').error('POST /_dash-update-component: RuntimeError: planted failure')\n\n\n"
        "def test_without_it():\n    logging.getLogger('gelu_lab.app').error('GET /junk: ValueError: a junk request')\n"
    )
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", str(tmp_path)],
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(here)}, capture_output=True, text=True, timeout=120)
    assert "2 passed, 1 error" in r.stdout, r.stdout[-3000:]
    assert "ERROR test_quiet_failure.py::test_with_the_browser" in r.stdout and "planted failure" in r.stdout, r.stdout[-3000:]

ODD = [  # (method, path, body, headers): what no browser sends, and a hand-crafted client might
    ("GET", "/_dash-component-suites/../../etc/passwd", None, {}),
    ("GET", "/_dash-component-suites/dash/../../../../etc/passwd", None, {}),
    ("GET", "/_dash-component-suites/dash/nope.v1m1.js", None, {}),
    ("GET", "/assets/../../../pyproject.toml", None, {}),
    ("GET", "/assets/%2e%2e/%2e%2e/%2e%2e/pyproject.toml", None, {}),
    ("GET", "/" + "a/" * 2000, None, {}),
    ("GET", "/definition?" + "x=1&" * 5000, None, {}),
    ("GET", "/_dash-layout", None, {"Referer": "not a url \x7f"}),
    ("GET", "/_dash-layout", None, {"Referer": "http://127.0.0.1/definition?x=%FF%FE%00" + "9" * 20_000}),
    ("HEAD", "/", None, {}),
    ("DELETE", "/", None, {}),
    ("PUT", "/_dash-update-component", b"{}", {}),
    ("POST", "/_dash-update-component", b"[]", {"Content-Type": "application/json"}),
    ("POST", "/_dash-update-component", b"null", {"Content-Type": "application/json"}),
    ("POST", "/_dash-update-component", b"[" * 100_000 + b"]" * 100_000, {"Content-Type": "application/json"}),
    ("POST", "/_dash-update-component", b"x" * 2_000_000, {"Content-Type": "application/json"}),
    ("POST", "/_dash-update-component", json.dumps({
        "output": "..shell.children...rendered.data..", "outputs": [{"id": "shell", "property": "children"}, {"id": "rendered", "property": "data"}],
        "inputs": [{"id": "url", "property": "pathname", "value": 5}, {"id": "url", "property": "search", "value": ["a"]}],
        "state": [{"id": "rendered", "property": "data", "value": None}], "changedPropIds": ["url.pathname"]}).encode(), {"Content-Type": "application/json"}),
]


@pytest.mark.parametrize("method, path, body, headers", ODD, ids=[f"{m} {p[:40]}" for m, p, _, _ in ODD])
def test_odd_requests_never_500_and_serve_no_file_outside(app_url, method, path, body, headers):
    import http.client
    from urllib.parse import urlsplit

    conn = http.client.HTTPConnection(urlsplit(app_url).netloc, timeout=60)
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    assert r.status < 500, (r.status, data[:200])
    assert b"root:" not in data and b"[project]" not in data  # /etc/passwd, pyproject.toml
