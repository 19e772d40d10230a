"""The phone layout (issue 20): every page in both languages at 390 px (a phone) and 1366 px
(a laptop) fits the screen, with no sideways scroll of the page, also after its controls have
been moved (a slider to its end by the keyboard, a box ticked); at 390 px every target is at
least 24 x 24 px (WCAG 2.5.8: a link inside running text is exempt), each figure's legend lies
below its plot and no figure text is cut off, over the tick labels or over another text
(assets/compat/figure_fit.js); the pages' navigation is a menu behind a button (assets/menu.js),
opened and closed by click and keyboard, closed by Escape and by following a link; a slider
moves by touch.

One page load per (width, page, language), in a tab of this module's own (it changes the
viewport, the shared tab must not); the app's routing moves it from page to page."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app_browser import BADLY_PLACED, app_url, browser, context, open_page, shared_tab  # noqa: F401
from gelu_lab.app import content, registry

pytestmark = pytest.mark.xdist_group("app")
PHONE, LAPTOP = 390, 1366
# language outside page: from page to page the app routes in the tab; the same page in the
# other language is a full load (open_page), which would come every second case
CASES = [(w, p, lang) for w in (PHONE, LAPTOP) for lang in content.LANGS for p in registry.PAGES]

OVERFLOW = "() => [document.documentElement.scrollWidth, innerWidth]"

# Targets smaller than 24 x 24 px: [tag, id or class, text, width, height]. A box's target is its
# label (a click on it ticks the box); a link inside a line of text is exempt (WCAG 2.5.8).
SMALL_TARGETS = """() => {
  const out = [], sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=slider], [role=button], [tabindex]';
  const inText = e => getComputedStyle(e).display === 'inline' && e.parentElement.textContent.trim() !== e.textContent.trim();
  for (const e of document.querySelectorAll(sel)) {
    if (e.disabled || e.tabIndex < 0 || e.matches('main, [role=region]') || !e.checkVisibility({visibilityProperty: true})) continue;
    if (e.matches('a') && inText(e)) continue;
    const box = e.matches('input[type=checkbox], input[type=radio]') && e.closest('label') || e, r = box.getBoundingClientRect();
    if (r.width < 23.5 || r.height < 23.5) out.push([e.tagName, e.id || String(e.className), e.textContent.trim().slice(0, 30), Math.round(r.width), Math.round(r.height)]);
  }
  return out;
}"""

# Figures whose legend is not below the plot area, or meets an axis title or tick label, and
# titles, legend entries and annotations that meet one another: [figure id, what is wrong]
CROWDED = """() => {
  const out = [], meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const near = (a, b) => a.left < b.right + 3 && b.left < a.right + 3 && a.top < b.bottom - 1 && b.top < a.bottom - 1;  // two read as one
  document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    const id = gd.id || gd.parentElement.id, L = gd._fullLayout, svg = gd.querySelector('.main-svg');
    if (!L || !svg || !gd.checkVisibility()) return;
    const rect = e => e.getBoundingClientRect(), drawn = e => e.textContent.trim() && rect(e).width;
    const legend = gd.querySelector('.legend');
    if (legend && rect(legend).height) {
      const bottom = rect(svg).top + L._size.t + L._size.h;
      if (rect(legend).top < bottom - 1) out.push([id, 'legend beside or over the plot']);
      for (const t of gd.querySelectorAll('[class*=title] text, [class$=tick] text, [class*="tick "] text'))
        if (drawn(t) && !t.closest('.legend') && meets(rect(legend), rect(t))) out.push([id, 'legend over ' + t.textContent.slice(0, 30)]);
    }
    const labels = [...gd.querySelectorAll('.gtitle, .annotation-text-g text, .legendtext, [class$=title]:not(.gtitle)')].filter(drawn);
    labels.forEach((a, i) => labels.slice(i + 1).forEach(b => {
      if (!a.contains(b) && !b.contains(a) && near(rect(a), rect(b))) out.push([id, a.textContent.slice(0, 30) + ' over ' + b.textContent.slice(0, 30)]);
    }));
  });
  return out;
}"""

# Move the page's controls: each slider's handle to its end by the keyboard, the first unticked
# box ticked (as a reader's thumb would); returns how many were moved
MOVE = """() => {
  let n = 0;
  for (const h of document.querySelectorAll('main [role=slider]')) {
    if (!h.checkVisibility()) continue;
    h.focus();
    h.dispatchEvent(new KeyboardEvent('keydown', {key: 'End', bubbles: true}));
    n++;
  }
  const box = [...document.querySelectorAll('main input[type=checkbox]')].find(b => !b.checked && !b.disabled && b.checkVisibility());
  if (box) { box.click(); n++; }
  if (document.activeElement) document.activeElement.blur();
  return n;
}"""
SETTLED = "() => !document.querySelector('[data-dash-is-loading]') && ![...document.querySelectorAll('.js-plotly-plot')].some(g => g.__fitting)"


@pytest.fixture
def phone_tab(context):
    return shared_tab(context, "phone-tab")


def show(tab, app_url, width: int, route: str) -> None:
    if tab.viewport_size["width"] != width:
        tab.set_viewport_size({"width": width, "height": 844})
    open_page(tab, f"{app_url}{route}")


def settle(tab) -> None:
    """Wait for Dash's callbacks and the figures' re-layout to end: nothing loading, no figure
    being laid out, and the page as tall as 200 ms before."""
    tab.wait_for_function(SETTLED, timeout=30_000)
    tab.evaluate("() => { window.__phoneHeight = -1; }")
    tab.wait_for_function("""() => { const h = document.documentElement.scrollHeight, was = window.__phoneHeight;
        window.__phoneHeight = h; return h === was; }""", polling=200, timeout=30_000)


def wait_for_none(tab, check: str):
    """What `check` finds once the figures have had time to settle (an empty list if nothing)."""
    try:
        tab.wait_for_function(f"() => ({check})().length === 0", timeout=5_000)
    except PlaywrightTimeout:
        pass
    return tab.evaluate(check)


@pytest.mark.parametrize("width,p,lang", CASES, ids=[f"{w}-{p.slug}-{lang}" for w, p, lang in CASES])
def test_the_page_fits_the_screen(phone_tab, app_url, width, p, lang):
    tab = phone_tab
    show(tab, app_url, width, f"{p.route}?lang={lang}")
    settle(tab)
    where = f"{p.route}?lang={lang} at {width} px"
    scroll, inner = tab.evaluate(OVERFLOW)
    assert scroll <= inner, f"{where}: the page scrolls sideways ({scroll} > {inner} px)"
    if width == PHONE:
        assert not tab.locator("[data-fit-unsettled]").count(), f"{where}: a figure's layout never settled"
        assert not (bad := tab.evaluate(SMALL_TARGETS)), f"{where}: targets under 24 x 24 px: {bad}"
        assert not (bad := wait_for_none(tab, CROWDED)), f"{where}: {bad}"
        assert not (bad := wait_for_none(tab, BADLY_PLACED)), f"{where}: {bad}"
    if tab.evaluate(MOVE):
        settle(tab)
        scroll, inner = tab.evaluate(OVERFLOW)
        assert scroll <= inner, f"{where}, controls moved: the page scrolls sideways ({scroll} > {inner} px)"
        if width == PHONE:
            assert not (bad := wait_for_none(tab, BADLY_PLACED)), f"{where}, controls moved: {bad}"
    tab.log.check()


def nav_shown(tab) -> int:
    return tab.evaluate("() => [...document.querySelectorAll('#nav-pages a')].filter(a => a.checkVisibility()).length")


def test_the_pages_are_a_menu_on_a_phone(phone_tab, app_url):
    tab = phone_tab
    show(tab, app_url, PHONE, "/definition?lang=en")
    button = tab.locator("header #nav-toggle")
    assert button.is_visible() and button.inner_text().strip().endswith(content.text("en", "shell")["nav.menu"])
    assert button.get_attribute("aria-controls") == tab.get_attribute("nav[aria-label]:not(.pager)", "id") == "nav-pages"
    assert button.get_attribute("aria-expanded") == "false" and nav_shown(tab) == 0
    button.click()  # a tap
    assert button.get_attribute("aria-expanded") == "true" and nav_shown(tab) == len(registry.PAGES)
    button.click()
    assert button.get_attribute("aria-expanded") == "false" and nav_shown(tab) == 0
    # the keyboard: Enter and Space open and close it, Tab goes into it, Escape closes it and
    # puts the focus back on the button
    button.focus()
    tab.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true"
    tab.keyboard.press("Space")
    assert button.get_attribute("aria-expanded") == "false"
    tab.keyboard.press("Space")
    for _ in range(3):  # past the two language buttons, into the list
        tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.id") == f"nav-{registry.PAGES[0].slug}"
    tab.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false" and nav_shown(tab) == 0
    assert tab.evaluate("document.activeElement.id") == "nav-toggle"
    # a link followed: the app routes to it and the menu is closed
    button.click()
    tab.click("#nav-relu")
    tab.wait_for_selector("main#page-relu")
    tab.wait_for_function("() => document.querySelector('#nav-relu').classList.contains('active')")
    assert "/relu" in tab.url
    assert tab.get_attribute("#nav-toggle", "aria-expanded") == "false" and nav_shown(tab) == 0
    # one banner, one pages navigation, one pager, as on a wide screen
    for sel in ("header", "main", "footer", "nav[aria-label]:not(.pager)", "nav.pager[aria-label]"):
        assert tab.locator(sel).count() == 1, sel
    tab.log.check()


def test_a_wide_screen_shows_the_pages_and_no_menu_button(phone_tab, app_url):
    tab = phone_tab
    show(tab, app_url, LAPTOP, "/sigmoid?lang=zh")
    assert not tab.locator("#nav-toggle").is_visible()
    assert nav_shown(tab) == len(registry.PAGES)
    tab.set_viewport_size({"width": PHONE, "height": 844})  # turned to a phone's width: the list folds away
    tab.wait_for_function("() => !document.querySelector('#nav-relu').checkVisibility()")
    assert tab.locator("#nav-toggle").is_visible()
    tab.log.check()


LEGEND_BESIDE = """id => { const gd = document.querySelector('#' + id + ' .js-plotly-plot'), L = gd._fullLayout;
  return gd.querySelector('.legend').getBoundingClientRect().left >= gd.querySelector('.main-svg').getBoundingClientRect().left + L._size.l + L._size.w - 1; }"""


def test_the_figures_are_laid_out_again_when_the_screen_turns(phone_tab, app_url):
    """At 390 px Gradients' derivative figure has its legend below; turned to 1366 px it is
    the figure the server sent again (legend on the right, its own height); and back."""
    tab = phone_tab
    show(tab, app_url, PHONE, "/gradients?lang=en")
    settle(tab)
    assert not tab.evaluate(LEGEND_BESIDE, "gradients-derivs")
    sent = tab.evaluate("() => document.querySelector('#gradients-derivs .js-plotly-plot')._fullLayout.legend.x")
    tab.set_viewport_size({"width": LAPTOP, "height": 844})
    tab.wait_for_function(LEGEND_BESIDE, arg="gradients-derivs", timeout=10_000)
    settle(tab)
    height = tab.evaluate("() => document.querySelector('#gradients-derivs .js-plotly-plot')._fullLayout.height")
    from gelu_lab.figures import LEGEND
    assert sent == 0 and tab.evaluate("() => document.querySelector('#gradients-derivs .js-plotly-plot')._fullLayout.legend.x") == LEGEND["x"]
    tab.set_viewport_size({"width": PHONE, "height": 844})
    tab.wait_for_function(f"() => !({LEGEND_BESIDE})('gradients-derivs')", timeout=10_000)
    settle(tab)
    assert tab.evaluate("() => document.querySelector('#gradients-derivs .js-plotly-plot')._fullLayout.height") > height  # room for the legend below
    assert not tab.locator("[data-fit-unsettled]").count()
    tab.log.check()


def test_a_slider_moves_by_touch(phone_tab, app_url):
    """A finger drags the handle of Definition's x slider to the right: x and its readout follow."""
    tab = phone_tab
    show(tab, app_url, PHONE, "/definition?x=0&lang=en")
    settle(tab)
    thumb = tab.locator("#definition-x [role=slider]")
    thumb.scroll_into_view_if_needed()
    box, track = thumb.bounding_box(), tab.locator("#definition-x .dash-slider-root").bounding_box()
    assert box["width"] >= 24 and box["height"] >= 24  # a finger's target
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = tab.context.new_cdp_session(tab)
    try:
        def touch(kind, px):
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": px, "y": y}] if kind != "touchEnd" else []})

        touch("touchStart", x)
        for step in range(1, 11):
            touch("touchMove", x + step * (track["x"] + track["width"] - x) * 0.05)  # half-way to the end
            tab.wait_for_timeout(16)  # a finger moves over frames
        tab.wait_for_timeout(100)  # and rests before it lifts (lifted in the frame of its last move, Dash 4's slider commits the move before)
        touch("touchEnd", x)
    finally:
        cdp.detach()
    tab.wait_for_function("() => Number(document.querySelector('#definition-x [role=slider]').getAttribute('aria-valuenow')) > 1")
    value = float(thumb.get_attribute("aria-valuenow"))
    assert 1 < value < 3.5
    try:  # the readout and the URL (the committed value) follow
        tab.wait_for_function("v => Number(document.getElementById('definition-rx').innerText) === v"
                              " && Number(new URLSearchParams(location.search).get('x')) === v", arg=value, timeout=10_000)
    except PlaywrightTimeout:
        pass
    assert (float(tab.inner_text("#definition-rx")), tab.evaluate("() => Number(new URLSearchParams(location.search).get('x'))")) == (value, value)
    tab.log.check()
