"""Accessibility: axe-core (installed by `make test`, tests/../.venv/node) finds no critical
and no serious violation on any page, in both languages, on a desktop (1366 px) and a
phone (390 px) screen, nor in the offline report; <html lang> and the title follow the page.

One page load per (width, page, language), in a tab of its own (the app's routing moves it
from page to page, as a reader's clicks do: that is also where lang and title must follow)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app_browser import app_url, browser, context, fresh_reports, open_page, shared_tab  # noqa: F401
from gelu_lab.app import content, registry, shell

pytestmark = pytest.mark.xdist_group("app")
AXE = Path(__file__).resolve().parents[1] / ".venv" / "node" / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (1366, 390)
# language outside page: from page to page the app routes in the tab; the same page in the
# other language is a full load (open_page), which would come every second case
CASES = [(w, p, lang) for w in WIDTHS for lang in content.LANGS for p in registry.PAGES]
# the violations that count, as [id, impact, help, [target, ...]]
RUN = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
  .filter(v => v.impact === 'critical' || v.impact === 'serious')
  .map(v => [v.id, v.impact, v.help, v.nodes.map(n => n.target.join(' '))])"""


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.is_file():
        pytest.fail(f"axe-core is missing at {AXE}: `make axe` (or `make test`) installs it")
    return AXE.read_text(encoding="utf-8")


def violations(page, axe_source) -> list:
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(axe_source)  # evaluated, not a <script>: the report's CSP allows no other script
    return page.evaluate(RUN)


def said(found) -> str:
    return "\n".join(f"{vid} ({impact}): {help_}\n    " + "\n    ".join(targets) for vid, impact, help_, targets in found)


@pytest.fixture
def a11y_tab(context):
    """A tab of this module's own: it changes the viewport, the shared tab must not."""
    return shared_tab(context, "a11y-tab")


@pytest.mark.parametrize("width,p,lang", CASES, ids=[f"{w}-{p.slug}-{lang}" for w, p, lang in CASES])
def test_no_serious_violation(a11y_tab, app_url, axe_source, width, p, lang):
    tab = a11y_tab
    if tab.viewport_size["width"] != width:
        tab.set_viewport_size({"width": width, "height": 844})
    open_page(tab, f"{app_url}{p.route}?lang={lang}")
    tab.wait_for_function("h => document.documentElement.lang === h[0] && document.title === h[1]", arg=shell.head(p.route, f"?lang={lang}"))
    found = violations(tab, axe_source)
    assert not found, f"{p.route}?lang={lang} at {width} px:\n{said(found)}"
    tab.log.check()


def test_the_index_page_has_the_language_and_the_title(app_url):
    """Before any script runs (a screen reader picks its voice from <html lang>)."""
    from gelu_lab.app import get_app

    client, zh, en = get_app().server.test_client(), content.text("zh", "shell"), content.text("en", "shell")
    for url, lang, title in (("/relu", "zh-Hans", zh["nav.relu"]), ("/relu?lang=en", "en", en["nav.relu"]), ("/no/such?lang=en", "en", en["notfound.title"])):
        body = client.get(url).get_data(as_text=True)
        assert f'<html lang="{lang}">' in body, url
        assert f"<title>{title} · GELU Lab</title>" in body, url


def test_the_skip_link_is_first_and_the_landmarks_are_there_once(a11y_tab, app_url):
    tab = a11y_tab
    open_page(tab, f"{app_url}/definition?lang=en")
    first = tab.evaluate("""() => [...document.querySelectorAll('a[href], button, input, [tabindex]')]
        .find(e => e.tabIndex >= 0 && !e.disabled).id""")
    assert first == "skip-link"
    for sel in ("header", "main", "footer", "nav[aria-label]:not(.pager)", "nav.pager[aria-label]"):
        assert tab.locator(sel).count() == 1, sel
    assert tab.get_attribute("nav.nav", "aria-label") != tab.get_attribute("nav.pager", "aria-label")


@pytest.mark.parametrize("lang", content.LANGS)
def test_the_offline_report(browser, axe_source, fresh_reports, lang):  # noqa: F811
    info = fresh_reports[lang]  # a fresh install's report: the shipped results
    page = browser.new_page(viewport={"width": WIDTHS[0], "height": 844})
    try:
        page.goto(f"file://{info['path']}")
        page.wait_for_function("document.body.getAttribute('data-figures') !== null", timeout=60_000)
        assert page.evaluate("document.documentElement.lang") == shell.HTML_LANG[lang]
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 844})
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # a11y.js re-measures on resize
            found = violations(page, axe_source)
            assert not found, f"report ({lang}) at {width} px:\n{said(found)}"
            try:  # plotly.js resizes the figures to the new width a moment later (a debounced resize)
                page.wait_for_function("document.documentElement.scrollWidth <= innerWidth", timeout=10_000)
            except PlaywrightTimeout:
                raise AssertionError(f"report ({lang}) scrolls sideways at {width} px") from None
    finally:
        page.close()
