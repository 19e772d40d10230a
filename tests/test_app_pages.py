"""Every page of the app in Chromium, both languages: it loads, draws its figures,
logs no console error, answers no HTTP error and requests nothing outside 127.0.0.1."""

from __future__ import annotations

import pytest

from app_browser import app_url, browser, context, open_page, page  # noqa: F401
from gelu_lab.app import content, registry

pytestmark = pytest.mark.xdist_group("app")
BUILT = [p for p in registry.PAGES if p.built]


@pytest.mark.parametrize("lang", content.LANGS)
@pytest.mark.parametrize("p", BUILT, ids=[p.slug for p in BUILT])
def test_page_loads_offline_without_errors(page, app_url, p, lang):
    open_page(page, f"{app_url}{p.route}?lang={lang}")
    t = content.text(lang, p.slug)
    assert page.inner_text("main h1").strip() == t["title"].strip()
    assert page.locator("header .nav-link.active").inner_text().strip() == content.text(lang, "shell")[f"nav.{p.slug}"]
    # formulas typeset by the bundled MathJax, every figure has the PNG download button
    if "$$" in "".join(t.values()):
        page.wait_for_selector("main mjx-container")
    n_fig = page.locator(".figure").count()
    assert n_fig >= 1
    assert page.locator(".modebar-btn[data-title='Download plot as a PNG']").count() == n_fig
    assert page.locator(".modebar-btn[data-title='Share chart...']").count() == 0  # would upload to Plotly Cloud
    assert any("/_dash-update-component" in u for u in page.log.requests)  # the page really went through the server
    page.log.check()


def test_coming_pages_are_listed_and_say_so(page, app_url):
    coming = [p for p in registry.PAGES if not p.built]
    open_page(page, f"{app_url}/?lang=en")
    nav = page.inner_text("header nav")
    for p in registry.PAGES:
        assert content.text("en", "shell")[f"nav.{p.slug}"] in nav
    assert page.locator("header .nav-link.coming").count() == len(coming)
    if coming:
        page.goto(f"{app_url}{coming[0].route}?lang=en")
        page.wait_for_selector("main.page")
        assert content.text("en", "shell")["coming.body"] in page.inner_text("main")
    page.log.check()


def test_unknown_path_is_a_page_not_a_500(page, app_url):
    resp = page.goto(f"{app_url}/no/such/page?x=%3Cscript%3E")
    assert resp.status == 200
    page.wait_for_selector("#page-notfound")
    assert content.text("zh", "shell")["notfound.title"] in page.inner_text("main")
    page.log.check()
