"""Every page of the app in Chromium: it loads, draws its figures, logs no console
error, answers no HTTP error and requests nothing outside 127.0.0.1.

Here in Chinese (the default, no lang in the URL); test_app_controls.py opens
every page in English and runs the same checks (check_basics, page.log.check)."""

from __future__ import annotations

import pytest

from app_browser import app_url, browser, check_basics, context, open_page, page  # noqa: F401
from gelu_lab.app import content, registry

pytestmark = pytest.mark.xdist_group("app")


@pytest.mark.parametrize("p", registry.PAGES, ids=[p.slug for p in registry.PAGES])
def test_page_loads_offline_without_errors(page, app_url, p):
    open_page(page, f"{app_url}{p.route}")
    check_basics(page, p.slug, "zh")
    assert any("/_dash-layout" in u for u in page.log.requests)  # the page really went through the server (it renders the routed page)
    page.log.check()


def test_every_page_is_in_the_navigation(page, app_url):
    open_page(page, f"{app_url}/?lang=en")
    nav = page.inner_text("header nav")
    for p in registry.PAGES:
        assert content.text("en", "shell")[f"nav.{p.slug}"] in nav
    assert page.locator("header nav a.nav-link").count() == len(registry.PAGES)
    page.log.check()


def test_unknown_path_is_a_page_not_a_500(page, app_url):
    resp = page.goto(f"{app_url}/no/such/page?x=%3Cscript%3E")
    assert resp.status == 200
    page.wait_for_selector("#page-notfound")
    assert content.text("zh", "shell")["notfound.title"] in page.inner_text("main")
    page.log.check()
