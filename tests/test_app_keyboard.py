"""The keyboard alone: the skip link comes first and Enter on it moves the focus to main;
Tab then reaches every control of the page in document order (a theory page with sliders,
the Overview with its checklist, Implementation's controls); arrow keys, Home and End move
a slider and its readout follows; space ticks a checklist curve."""

from __future__ import annotations

import pytest

from app_browser import app_url, browser, context, open_page, page  # noqa: F401
from gelu_lab.app import content

pytestmark = pytest.mark.xdist_group("app")

# Number the page's controls in document order (data-kbd): what Tab should reach, each once.
# A radio group is one stop (its checked box); what is folded or hidden is no stop.
MARK = """() => {
  const all = [...document.querySelectorAll('main a[href], main button, main input, main select, main textarea, main summary, main [tabindex]')];
  const stops = all.filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility({visibilityProperty: true})
    && !(e.type === 'radio' && !e.checked && document.querySelector(`input[type=radio][name="${e.name}"]:checked`)));
  stops.forEach((e, i) => e.setAttribute('data-kbd', i));
  return stops.length;
}"""
FOCUSED = "() => { const e = document.activeElement; return e && e.closest('main') ? (e.getAttribute('data-kbd') ?? 'other') : null; }"


def skip_to_main(page):
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.tagName") == "MAIN"


def tab_through_main(page) -> list[str]:
    """The data-kbd of each control Tab reaches, from main's start until the focus leaves main."""
    seen = []
    for _ in range(500):
        page.keyboard.press("Tab")
        k = page.evaluate(FOCUSED)
        if k is None:
            return seen
        if k != "other":  # e.g. a box that scrolls by itself (Chromium makes it a stop)
            seen.append(k)
    raise AssertionError(f"Tab never left main: {seen[-20:]}")


@pytest.mark.parametrize("route", ["/definition", "/", "/implementation"])
def test_tab_reaches_every_control_in_order(page, app_url, route):
    open_page(page, f"{app_url}{route}?lang=en", full=True)
    n = page.evaluate(MARK)
    assert n >= 3
    skip_to_main(page)
    assert tab_through_main(page) == [str(i) for i in range(n)]
    page.log.check()


def test_slider_keys_move_it_and_its_readout(page, app_url):
    t = content.text("en", "definition")
    open_page(page, f"{app_url}/definition?lang=en", full=True)
    thumb = page.get_by_role("slider", name=t["label.x"])  # named by its visible label
    thumb.focus()
    for key, value in (("ArrowRight", 1.01), ("ArrowLeft", 1), ("Home", -4), ("End", 4)):
        page.keyboard.press(key)
        page.wait_for_function("v => Number(document.getElementById('definition-rx').innerText) === v", arg=value)
        assert float(thumb.get_attribute("aria-valuenow")) == value, key
    page.wait_for_function("() => location.search.includes('x=4')")
    page.log.check()


def test_space_ticks_a_checklist_curve(page, app_url):
    t = content.text("en", "overview")
    open_page(page, f"{app_url}/?lang=en", full=True)
    group = page.get_by_role("group", name=t["chart.h"])  # a group of native boxes, named by its section's heading
    silu = group.get_by_role("checkbox", name=content.label("silu", "en"))
    assert not silu.is_checked()
    silu.focus()
    page.keyboard.press("Space")
    page.wait_for_function("() => new URLSearchParams(location.search).get('show')?.split(',').includes('silu')")
    assert silu.is_checked()
    page.keyboard.press("Space")
    page.wait_for_function("() => !(new URLSearchParams(location.search).get('show') ?? '').split(',').includes('silu')")
    # Dash's listbox roles stay off after React re-rendered the ticks
    assert page.locator("#overview-show [role=option], #overview-show [aria-selected]").count() == 0
    page.log.check()
