"""Shared fixtures for the browser tests: the app on a free port, Debian's Chromium.

Import the fixtures into a test module with
``from app_browser import app_url, browser, context, page, tab  # noqa: F401``.
``page`` (a fresh tab) and ``tab`` (a shared one) record every request, every
HTTP status >= 400 and every console error; ``page.log.check()`` asserts that
none went wrong, nothing left 127.0.0.1, and the server logged no error while
the test ran. The server's log matters because a callback that raises is answered
HTTP 204 (the page keeps its state) and logged, not shown: without it a broken
callback passes every check made in the browser. tests/conftest.py fails every
test that uses the browser on a server error at its teardown too, whether or not
it called check().
"""

from __future__ import annotations

import logging
import threading
from urllib.parse import urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
# how long a route may take to be drawn: a bound, not a timing. It is CI's worst case, not
# the usual one: the other pytest worker and Chromium share the two cores with the server
ROUTE_TIMEOUT_MS = 60_000


def serve_in_thread(wsgi=None):
    """(base URL, server) for the app (or another WSGI app) on waitress, port chosen by the OS."""
    from waitress import create_server

    from gelu_lab.app import get_app

    server = create_server(wsgi or get_app().server, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    return f"http://127.0.0.1:{server.effective_port}", server


# One server, one browser and one context per process, shared by every test module
# that imports these fixtures (a fixture imported into two modules is set up twice,
# and a second sync Playwright in one process fails).
_SHARED: dict = {}


def _shared(key, make):
    if key not in _SHARED:
        _SHARED[key] = make()
    return _SHARED[key]


def _close_all():
    if "context" in _SHARED:
        _SHARED["context"].close()
    if "browser" in _SHARED:
        _SHARED["browser"].close()
        _SHARED["playwright"].stop()
    if "server" in _SHARED:
        _SHARED["server"][1].close()
    _SHARED.clear()


def _browser():
    from playwright.sync_api import sync_playwright

    pw = _shared("playwright", lambda: sync_playwright().start())
    return pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)


@pytest.fixture(scope="session")
def app_url():
    return _shared("server", serve_in_thread)[0]


@pytest.fixture(scope="session")
def browser():
    yield _shared("browser", _browser)
    _close_all()  # session end: every module using it is done


@pytest.fixture(scope="session")
def context(browser):
    """One context for the session, so the 5 MB of Plotly and Dash JS are fetched once."""
    return _shared("context", lambda: browser.new_context(viewport={"width": 1280, "height": 900}))


@pytest.fixture(scope="session")
def fresh_reports(tmp_path_factory):
    """{lang: report.build's info} for the offline report as a fresh install writes it (the
    shipped results, no runs store), built once per process for the tests that only read it."""

    def build():
        from gelu_lab.app import content, report

        d = tmp_path_factory.mktemp("fresh-report")
        return {lang: report.build(d / f"report-{lang}.html", lang, store=False, progress=False) for lang in content.LANGS}

    return _shared("fresh_reports", build)


@pytest.fixture
def own_store(tmp_path, monkeypatch):
    """This test's own (empty) runs store: the app reads $GELU_LAB_STORE on every request (same process)."""
    monkeypatch.setenv("GELU_LAB_STORE", str(tmp_path / "runs.sqlite"))
    return tmp_path / "runs.sqlite"


class ServerLog(logging.Handler):
    """Collects ERROR records of the app and of waitress (a callback that raised, a failed request).

    As a context manager it witnesses one stretch of a test (the fuzzers); SERVER_LOG below
    is attached for the whole process and watched test by test."""

    LOGGERS = ("gelu_lab.app", "waitress")

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records = []
        self.test_start = 0  # index of the first record of the running test (conftest sets it)

    def emit(self, record):
        self.records.append(f"server: {record.name}: {record.getMessage()}")

    def attach(self):
        for name in self.LOGGERS:
            logging.getLogger(name).addHandler(self)
        return self

    def detach(self):
        for name in self.LOGGERS:
            logging.getLogger(name).removeHandler(self)

    __enter__ = attach

    def __exit__(self, *exc):
        self.detach()

    def since(self, start: int) -> list[str]:
        """The records logged since the test began, and since index `start`."""
        return self.records[max(start, self.test_start):]

    def acknowledge(self) -> None:
        """A test that provoked server errors on purpose, and checked them, takes them off its record."""
        self.test_start = len(self.records)


# every server error of this process (the app's server runs in a thread of it)
SERVER_LOG = ServerLog().attach()


def check_server_log() -> None:
    """No server error since the running test began (conftest calls it after every browser test)."""
    assert SERVER_LOG.since(0) == [], f"server errors (a failing callback is answered 204): {SERVER_LOG.since(0)}"


class Log:
    def __init__(self):
        self.requests, self.errors, self.bad_status = [], [], []
        self.server_from = len(SERVER_LOG.records)

    def external(self):
        return [u for u in self.requests if urlparse(u).scheme not in ("data", "blob") and urlparse(u).hostname not in LOCAL_HOSTS]

    def server(self) -> list[str]:
        """What the server logged at ERROR since this log began (and since the test began)."""
        return SERVER_LOG.since(self.server_from)

    def check(self):
        assert self.external() == [], f"requests outside 127.0.0.1: {self.external()}"
        assert self.errors == [], f"console errors: {self.errors}"
        assert self.bad_status == [], f"HTTP errors: {self.bad_status}"
        assert self.server() == [], f"server errors (a failing callback is answered 204): {self.server()}"


def _new_tab(context):
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    pg.log = Log()
    pg.on("request", lambda r: pg.log.requests.append(r.url))
    pg.on("console", lambda m: m.type == "error" and pg.log.errors.append(m.text))
    pg.on("pageerror", lambda e: pg.log.errors.append(str(e)))
    pg.on("response", lambda r: r.status >= 400 and pg.log.bad_status.append((r.status, r.url)))
    return pg


@pytest.fixture
def page(context):
    """A fresh tab: every open_page is a full load."""
    pg = _new_tab(context)
    yield pg
    pg.close()


def shared_tab(context, key: str):
    """The tab `key`, made once per process, brought to the front. A tab behind another
    gets about one animation frame a second from Chromium, and Playwright's clicks (their
    stability check) and the pages' scripts wait on frames: a test in such a tab took
    37 s instead of 2."""
    pg = _shared(key, lambda: _new_tab(context))
    pg.bring_to_front()
    return pg


@pytest.fixture
def tab(context):
    """One tab shared by the tests that use it, its log reset for each test: open_page
    then navigates inside the app (history + popstate, as the back button does), which
    runs the same routing from the URL without parsing 7 MB of JavaScript again."""
    pg = shared_tab(context, "tab")
    pg.log = Log()
    return pg


def open_page(page, url: str, ready: str = "main.page", full: bool = False):
    """Go to url and wait until the routed page and its figures are drawn.

    In a tab where the app is already running, the URL is pushed to the history and
    a popstate event makes dcc.Location route it; otherwise (or with full=True, or when
    url has the path already open: dcc.Location routes nothing for an unchanged URL, the
    previous test's state would remain, and a page in another language may keep its <main>
    node) a full page load.
    """
    # the same path (another language or query): React may keep the <main> node it had (same id),
    # and with it the data-stale mark this waits to see go: a full load then
    same_path = page.url.partition("?")[0] == url.partition("?")[0]
    if not full and not same_path and page.url.split("/")[:3] == url.split("/")[:3] and page.evaluate("() => !!window.dash_clientside && !!document.querySelector('main.page')"):
        page.evaluate(
            # blur first, as the click on a link would: a focused box unmounted by the
            # route change would otherwise fire its blur handler on a removed element
            """u => { if (document.activeElement) document.activeElement.blur();
                     document.querySelector('main.page').setAttribute('data-stale', '1');
                     history.pushState(null, '', u); window.dispatchEvent(new PopStateEvent('popstate')); }""",
            url,
        )
        try:
            page.wait_for_selector("main.page:not([data-stale])", timeout=ROUTE_TIMEOUT_MS)
        except PlaywrightTimeout as e:
            raise AssertionError(f"{url} was not routed: {shown(page)}") from e
    else:
        page.goto(url)
    page.wait_for_selector(ready, timeout=ROUTE_TIMEOUT_MS)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === document.querySelectorAll('.figure').length", timeout=ROUTE_TIMEOUT_MS)


def shown(page) -> str:
    """What a tab shows and what went wrong in it, for a failure message."""
    seen = page.evaluate("""() => ({url: location.href, main: [...document.querySelectorAll('main')].map(m => m.id + (m.hasAttribute('data-stale') ? ' (stale)' : '')),
                                    loading: document.querySelectorAll('[data-dash-is-loading]').length})""")
    log = getattr(page, "log", None)
    return f"{seen}; HTTP errors {log.bad_status if log else '?'}; console errors {log.errors if log else '?'}"


# Texts of the drawn figures that are cut off (outside their figure's SVG, which clips
# them) or that overlap a tick label (an axis title squeezed into a narrow margin):
# [figure id, text, what is wrong]. The figures keep fixed margins unless an axis asks
# for automargin (gelu_lab.figures), so a long label shows up here.
BADLY_PLACED = """() => {
  const out = [], inside = (r, b) => r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    const svg = gd.querySelector('.main-svg'), id = gd.id || gd.parentElement.id;
    if (!svg) return;
    const box = svg.getBoundingClientRect(), drawn = t => t.textContent.trim() && t.getBoundingClientRect().width && !t.closest('.hoverlayer');
    const texts = [...gd.querySelectorAll('.main-svg text')].filter(drawn);
    const ticks = texts.filter(t => t.closest('[class$=tick], [class*="tick "]')).map(t => t.getBoundingClientRect());
    for (const t of texts) {
      const r = t.getBoundingClientRect(), what = t.textContent.slice(0, 40);
      if (!inside(r, box)) out.push([id, what, 'cut off']);
      else if ((t.closest('[class*=title]') || t.closest('.annotation')) && ticks.some(q => meets(r, q))) out.push([id, what, 'over the tick labels']);
    }
  });
  return out;
}"""


TEXT_ONLY = {"glossary"}  # the pages that are text alone: every other one answers its question with figures


def check_basics(page, slug: str, lang: str) -> None:
    """The routed page is `slug` in `lang`: title, active nav entry, formulas drawn as
    MathML (no raw `$$` TeX left in the text), every figure with the PNG download
    button (and no Plotly Cloud one), and no figure text cut off or over the tick labels."""
    from gelu_lab.app import content

    t = content.text(lang, slug)
    assert page.inner_text("main h1").strip() == t["title"].strip()
    assert page.locator("header .nav-link.active").inner_text().strip() == content.text(lang, "shell")[f"nav.{slug}"]
    if "$$" in "".join(t.values()):
        page.wait_for_function("() => { const f = document.querySelectorAll('main .math-display'); return f.length > 0 && [...f].every(e => e.querySelector('math')); }")
        assert page.evaluate("() => document.querySelector('main math').namespaceURI") == "http://www.w3.org/1998/Math/MathML"
        assert page.evaluate("() => document.querySelector('main math').getBoundingClientRect().height") > 10  # drawn, not an empty box
    assert "$$" not in page.inner_text("main")
    n_fig = page.locator(".figure").count()
    assert n_fig >= 1 or slug in TEXT_ONLY
    assert page.locator(".modebar-btn[data-title='Download plot as a PNG']").count() == n_fig
    assert page.locator(".modebar-btn[data-title='Share chart...']").count() == 0  # would upload to Plotly Cloud
    check_placed(page)


def check_placed(page) -> None:
    """No figure text cut off or over the tick labels, in the figures drawn so far."""
    try:  # figures may still be drawing (a second pass for an automargin axis)
        page.wait_for_function(f"() => ({BADLY_PLACED})().length === 0", timeout=5_000)
    except PlaywrightTimeout:
        bad = page.evaluate(BADLY_PLACED)
        assert not bad, bad


def set_slider(page, id: str, value) -> None:
    """Type a value into the number box of Dash's slider and commit it."""
    box = page.locator(f"#{id} input[type=number]")
    box.fill(str(value))
    box.press("Tab")  # Dash 4 commits (and clamps) a typed slider value on blur


def text_of(page, id: str) -> str:
    return page.inner_text(f"#{id}").strip()


def wait_text(page, id: str, expected: str) -> str:
    """Wait until element `id` shows `expected`; return what it shows (for the assert message)."""
    try:
        page.wait_for_function("([id, t]) => { const e = document.getElementById(id); return e && e.innerText.trim() === t; }", arg=[id, expected], timeout=10_000)
    except Exception:
        pass
    return text_of(page, id)
