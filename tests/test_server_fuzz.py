"""The app under junk: hand-edited URLs of every page and random sessions in Chromium.

Bounded here (a few sessions, seeded, so a failure reproduces); the long run is
``.venv/bin/python tests/app_fuzz.py --sessions 30`` (the same code, see app_fuzz.py).
Errors: any HTTP status >= 400, an uncaught page exception, a console error, a
request off 127.0.0.1, or a callback that raised on the server (logged, answered 204).
"""

from __future__ import annotations

import random

import pytest

from app_browser import app_url, browser, context, tab  # noqa: F401
from app_fuzz import ServerLog, Tally, built_pages, every_param_url, fuzz_session, http_junk, junk_query

pytestmark = pytest.mark.xdist_group("app")  # the app's server and Chromium, shared with the other page tests


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
    """Each built page opened with all its params junked (plus a few random actions),
    then random sessions: clicks, typing, slider keys, junk URLs, back/forward."""
    tally = Tally()
    with ServerLog() as log:
        for i, url in enumerate(every_param_url(random.Random(2))):
            fuzz_session(tab, app_url, 10 + i, 1, tally, start=url, full=False)
            assert tab.locator("main h1").count() == 1, url  # the page rendered, repaired
        fuzz_session(tab, app_url, 1, 20, tally, full=False)
    print(tally.line())
    assert tally.sessions == len(built_pages()) + 1 and tally.actions == len(built_pages()) + 20
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
