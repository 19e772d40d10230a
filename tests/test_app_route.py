"""The guided route in Chromium: Overview opens with the page map and a pointer to the story;
each page's foot links the previous and next page in navigation order, and the links work
with the mouse and with the keyboard, keeping the language."""

from __future__ import annotations

import pytest

from app_browser import app_url, browser, check_basics, context, open_page, page  # noqa: F401
from gelu_lab.app import content, registry

pytestmark = pytest.mark.xdist_group("app")


def test_overview_opens_with_the_page_map(page, app_url):
    open_page(page, f"{app_url}/?lang=en")
    cards = page.locator("main .card")
    assert cards.first.locator(".pagemap").count() == 1  # the first card is the map
    assert cards.first.locator("a", has_text=content.text("en", "shell")["nav.story"]).count() == 1
    page.log.check()


def test_next_and_previous_walk_the_pages_in_order(page, app_url):
    shell = content.text("en", "shell")
    open_page(page, f"{app_url}/?lang=en")
    assert page.locator("nav.pager #pager-prev").count() == 0  # the first page has no previous
    for p in registry.PAGES[1:4]:
        page.click("nav.pager #pager-next")
        page.wait_for_function("s => location.pathname === s", arg=p.route)
        page.wait_for_selector(f"#page-{p.slug}")
        assert "lang=en" in page.url
        assert shell[f"nav.{p.slug}"] == page.locator("header .nav-link.active").inner_text().strip()
    page.click("nav.pager #pager-prev")
    page.wait_for_selector(f"#page-{registry.PAGES[2].slug}")
    open_page(page, f"{app_url}{registry.PAGES[-1].route}?lang=en")
    assert page.locator("nav.pager #pager-next").count() == 0 and page.locator("nav.pager #pager-prev").count() == 1
    page.log.check()


def test_the_pager_works_from_the_keyboard(page, app_url):
    open_page(page, f"{app_url}/definition")
    page.focus("nav.pager #pager-next")
    page.keyboard.press("Enter")
    page.wait_for_selector("#page-relu")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.log.check()


@pytest.mark.parametrize("lang", content.LANGS)
def test_the_story_page(page, app_url, lang):
    open_page(page, f"{app_url}/story?lang={lang}")
    check_basics(page, "story", lang)
    t = content.text(lang, "story")
    assert page.locator("main .story-check").count() == 8
    assert page.locator("main .story-folklore li").count() >= 3  # the claims Misconceptions finds false or unsettled
    page.click(f"main #story-bert ~ .story-check a")
    page.wait_for_selector("#page-bert")
    assert t["title"] not in page.inner_text("main h1")
    page.log.check()
