"""One mechanism per behaviour: a readout of a slider, and a row of the Overview table, is
written by one writer. With the speed tricks on (compat entries "readouts", "ticks") the
trick writes it as the control moves and the clientside callback leaves it alone; with
GELU_LAB_FAST=0 the callback writes it. The texts themselves come from one place, the
table the server made (gelu_lab.reads)."""

from __future__ import annotations

import pytest

from app_browser import app_url, browser, context, open_page, page  # noqa: F401
from servers import Served

# every change of the readout's text after one key press, once the figure has moved
WATCH = """id => { window.__writes = 0;
  new MutationObserver(rs => { window.__writes += rs.filter(r => r.type === 'characterData' || r.type === 'childList').length; })
    .observe(document.getElementById(id), {subtree: true, childList: true, characterData: true}); }"""
HIDDEN = """id => { window.__writes = 0;
  new MutationObserver(rs => { window.__writes += rs.length; }).observe(document.getElementById(id), {attributes: true, attributeFilter: ['hidden']}); }"""
SETTLE = "() => new Promise(r => setTimeout(r, 600))"


def _press(page, url, slider, readout):  # noqa: F811
    open_page(page, url, full=True)
    before = page.inner_text(f"#{readout}")
    page.evaluate(WATCH, readout)
    thumb = page.locator(f"#{slider} [role=slider]")
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function(f"() => document.getElementById('{readout}').textContent !== {before!r}", timeout=10_000)
    page.evaluate(SETTLE)
    return page.evaluate("window.__writes"), page.inner_text(f"#{readout}")


@pytest.mark.parametrize("path, slider, readout", [("/definition?x=1&lang=en", "definition-x", "definition-rx"),
                                                   ("/definition?x=1&lang=en", "definition-x", "definition-rout"),
                                                   ("/relu?s=4&lang=en", "relu-s", "relu-rs")])
def test_a_readout_has_one_writer(page, app_url, path, slider, readout):  # noqa: F811
    writes, text = _press(page, app_url + path, slider, readout)
    assert writes == 1, f"#{readout} was written {writes} times for one key press"
    page.log.check()


def test_a_row_has_one_writer(page, app_url):  # noqa: F811
    open_page(page, f"{app_url}/?lang=en", full=True)
    page.evaluate(HIDDEN, "overview-row-silu")
    page.click("#overview-show label:has-text('SiLU')")
    page.wait_for_function("() => !document.getElementById('overview-row-silu').hidden", timeout=10_000)
    page.evaluate(SETTLE)
    assert page.evaluate("window.__writes") == 1
    page.log.check()


@pytest.fixture(scope="module")
def stock():
    with Served(env={"GELU_LAB_FAST": "0"}) as s:
        yield f"http://127.0.0.1:{s.port}"


def test_with_the_tricks_off_the_callback_writes_them(context, stock):  # noqa: F811
    from app_browser import _new_tab

    page = _new_tab(context)  # noqa: F811
    try:
        writes, text = _press(page, f"{stock}/definition?x=1&lang=en", "definition-x", "definition-rx")
        assert writes == 1 and text == page.locator("#definition-x [role=slider]").get_attribute("aria-valuenow")
        open_page(page, f"{stock}/?lang=en", full=True)
        page.click("#overview-show label:has-text('SiLU')")
        page.wait_for_function("() => !document.getElementById('overview-row-silu').hidden", timeout=10_000)
    finally:
        page.close()
