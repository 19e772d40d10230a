"""The "your own activation" box on the Implementation page (in its "more detail" fold), in Chromium:
typing a formula shows its curve and numbers, hostile input shows one line (never an HTTP error), the
URL reopens it, with its fold open."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from app_browser import app_url, browser, context, open_page, page, text_of  # noqa: F401
from app_folds import full_of, unfold
from gelu_lab.analysis import custom
from gelu_lab.app import content

pytestmark = pytest.mark.xdist_group("app")


def _type(page, text):
    box = page.locator("#implementation-f")
    box.fill(text)
    box.press("Enter")  # debounce=True: Dash commits the text on Enter or blur


def _wait_for(page, id, expected):
    page.wait_for_function("([id, t]) => (document.getElementById(id) || {}).innerText === t", arg=[id, expected], timeout=90_000)


def test_typing_a_formula_shows_its_curve_numbers_and_link(page, app_url):
    open_page(page, f"{app_url}/implementation?lang=en")
    unfold(page, "implementation-more-custom")
    assert page.locator("#implementation-custom .js-plotly-plot .main-svg").count() > 0
    formula = "0.5*x*(1+tanh(0.8*(x+0.03*x**3)))"
    ref = custom.compare_with_gelu(formula, (-4, 4))
    _type(page, formula)
    _wait_for(page, "implementation-custom-err", f"{ref.max_abs_error:#.4g}")
    assert text_of(page, "implementation-custom-a") == "—"  # no free constant
    assert "tanh" in text_of(page, "implementation-custom-deriv")
    # both traces of the formula drawn: 4 lines in the two panels
    assert page.locator("#implementation-custom-graph .scatterlayer .trace").count() == 4
    # the address bar holds the formula; opening it in a fresh tab shows the same numbers
    page.wait_for_function("() => new URLSearchParams(location.search).get('f') !== null", timeout=90_000)
    url = page.url
    assert page.evaluate("() => new URLSearchParams(location.search).get('f')") == formula
    again = page.context.new_page()
    open_page(again, url)
    assert again.evaluate("document.getElementById('implementation-more-custom').open")  # a link to a formula opens its fold
    assert again.input_value("#implementation-f") == formula
    assert text_of(again, "implementation-custom-err") == f"{ref.max_abs_error:#.4g}"
    again.close()
    page.log.check()


def test_free_constant_is_fitted_and_example_buttons_work(page, app_url):
    open_page(page, f"{app_url}/implementation?lang=en&f={quote('x*Phi(a*x)')}&f_lo=-3&f_hi=3")
    a = float(full_of(page, "implementation-custom-a"))
    assert abs(a - 1) < 1e-5  # x Phi(a x) is GELU exactly at a = 1
    assert text_of(page, "implementation-custom-alabel") == content.text("en", "custom")["read.a"]
    page.click("button.example:has-text('x*Phi(x)')")
    _wait_for(page, "implementation-custom-a", "—")
    assert float(text_of(page, "implementation-custom-err")) < 1e-15
    page.log.check()


HOSTILE = ["__import__('os').system('id')", "9**9**9", "x.__class__", "х*Phi(х)", "(" * 300 + "x" + ")" * 300]


def test_hostile_input_shows_one_line_and_no_http_error(page, app_url):
    open_page(page, f"{app_url}/implementation?lang=en")
    unfold(page, "implementation-more-custom")
    before = text_of(page, "implementation-custom-err")
    for hostile in HOSTILE:
        page.evaluate("() => { document.getElementById('implementation-custom-msg').innerText = ''; }")
        _type(page, hostile)
        page.wait_for_function("() => document.getElementById('implementation-custom-msg').innerText.length > 0", timeout=90_000)
        msg = text_of(page, "implementation-custom-msg")
        assert msg.startswith("Formula not accepted:") and "\n" not in msg, (hostile, msg)
        assert text_of(page, "implementation-custom-err") == before  # nothing computed, the figure stays
    page.screenshot(path="/tmp/x/hostile.png", full_page=True) if __import__("os").environ.get("GELU_LAB_SHOTS") else None
    page.log.check()  # no HTTP error (no 500, no 204 either: the callback answered normally)


def test_hostile_link_opens_with_a_message_in_chinese(page, app_url):
    open_page(page, f"{app_url}/implementation?f={quote('lambda: 1')}&f_lo=-2&f_hi=2")
    msg = text_of(page, "implementation-custom-msg")
    assert msg.startswith(content.text("zh", "custom")["msg.error"].split("{")[0]) and "lambda" in msg  # the zh message, from its content block
    assert text_of(page, "implementation-custom-err") == "—"
    page.log.check()
