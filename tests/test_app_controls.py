"""The app's controls in Chromium: each moves its readout to the value computed
independently here (mpmath / SciPy / brute force), the language switch, URL state,
and bad input (junk URL, out-of-range and empty boxes) that never yields HTTP 500."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import mpmath
import numpy as np
import pytest
from scipy import special

from app_browser import app_url, browser, check_basics, context, open_page, set_slider, tab, text_of, wait_text  # noqa: F401
from gelu_lab import activations
from gelu_lab.app import content, state

pytestmark = [pytest.mark.xdist_group("app"), pytest.mark.mpmath_dps(40)]  # mpmath: the precision of its oracles, test by test (tests/conftest.py)


def f4(v) -> str:
    s = f"{float(v):.4f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def sig4(v) -> str:
    """Four significant figures, trailing zeros kept: how the readouts print (components.sig)."""
    return f"{float(v):#.4g}"


def mp_gelu(x) -> float:
    return float(mpmath.mpf(x) * mpmath.ncdf(mpmath.mpf(x)))


def test_definition_presets_keyboard_and_box(tab, app_url):
    open_page(tab, f"{app_url}/definition?lang=en")
    check_basics(tab, "definition", "en")
    tab.click("button:text-is('x = 2')")
    assert wait_text(tab, "definition-rout", "1.9545") == "1.9545" == f4(mp_gelu(2))
    assert text_of(tab, "definition-rphi") == f4(mpmath.ncdf(2)) == "0.9772"
    tab.click("button:text-is('x = -2')")
    assert wait_text(tab, "definition-rout", f4(mp_gelu(-2))) == "-0.0455"
    assert text_of(tab, "definition-rphi") == "0.0228"
    tab.click("button:text-is('x = 0')")
    assert wait_text(tab, "definition-rout", "0.0000") == "0.0000"
    assert text_of(tab, "definition-rphi") == "0.5000"
    # keyboard: one step of 0.01 to the right
    thumb = tab.locator("#definition-x [role=slider]")
    thumb.focus()
    thumb.press("ArrowRight")
    assert wait_text(tab, "definition-rx", "0.01") == "0.01"
    assert text_of(tab, "definition-rout") == f4(mp_gelu("0.01"))
    # the slider's number box, and the server-side Bernoulli readouts follow x
    set_slider(tab, "definition-x", 1.5)
    assert wait_text(tab, "definition-rout", f4(mp_gelu(1.5))) == f4(mp_gelu(1.5))
    assert wait_text(tab, "definition-bgelu", f4(mp_gelu(1.5))) == f4(mp_gelu(1.5))
    assert "x=1.5" in tab.url
    tab.log.check()


def test_definition_bernoulli_mean_is_the_seeded_brute_force(tab, app_url):
    open_page(tab, f"{app_url}/definition?x=-1&n=200&seed=7&lang=en")
    u = np.random.default_rng(7).random(200)
    p = float(mpmath.ncdf(-1))
    assert text_of(tab, "definition-bmean") == f4(np.mean(-1.0 * (u < p)))
    set_slider(tab, "definition-n", 5000)
    u = np.random.default_rng(7).random(5000)
    expected = f4(np.mean(-1.0 * (u < p)))
    assert wait_text(tab, "definition-bmean", expected) == expected
    tab.log.check()


def test_relu_scale_and_dead_units(tab, app_url):
    open_page(tab, f"{app_url}/relu?lang=en")
    check_basics(tab, "relu", "en")
    # largest gap |GELU(t) - ReLU(t)| is at the root of Phi(-t) = t phi(t)
    t0 = mpmath.findroot(lambda t: mpmath.ncdf(-t) - t * mpmath.npdf(t), 0.75)
    gap1 = t0 * mpmath.ncdf(-t0)
    set_slider(tab, "relu-s", 4)
    assert wait_text(tab, "relu-rgap", f4(gap1 / 4)) == f4(gap1 / 4)
    thumb = tab.locator("#relu-s [role=slider]")
    thumb.focus()
    thumb.press("ArrowRight")
    assert wait_text(tab, "relu-rgap", f4(gap1 / 4.5)) == f4(gap1 / 4.5)
    set_slider(tab, "relu-mu", -1)
    z = np.random.default_rng(0).normal(-1.0, 1.0, 1000)
    expected = f"{100 * np.mean(z <= 0):.1f}%"
    assert wait_text(tab, "relu-rdead", expected) == expected
    assert text_of(tab, "relu-gdead") == "0.0%"
    tab.log.check()


def test_sigmoid_beta_distance(tab, app_url):
    open_page(tab, f"{app_url}/sigmoid?lang=en")
    check_basics(tab, "sigmoid", "en")
    t = np.linspace(-8, 8, 8001)
    gelu = t * special.ndtr(t)

    def dist(b):
        return f4(np.max(np.abs(t * special.expit(b * t) - gelu)))

    tab.click("button:text-is('β = 1')")
    assert wait_text(tab, "sigmoid-rdist", dist(1.0)) == dist(1.0)
    assert text_of(tab, "sigmoid-silu") == dist(1.0)
    set_slider(tab, "sigmoid-beta", 3)
    assert wait_text(tab, "sigmoid-rdist", dist(3.0)) == dist(3.0)
    assert text_of(tab, "sigmoid-gap") == f4(np.max(np.abs(special.ndtr(t) - special.expit(1.702 * t))))
    tab.log.check()


def test_gradients_key_points_and_depth(tab, app_url):
    from gelu_lab.analysis import gradflow

    open_page(tab, f"{app_url}/gradients?lang=en")
    check_basics(tab, "gradients", "en")
    root = mpmath.findroot(lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x), -0.75)
    assert text_of(tab, "gradients-kroot") == sig4(root)
    assert text_of(tab, "gradients-kmin") == sig4(root * mpmath.ncdf(root))
    s2 = mpmath.sqrt(2)
    assert text_of(tab, "gradients-kmax") == sig4(mpmath.ncdf(s2) + s2 * mpmath.npdf(s2))
    assert text_of(tab, "gradients-k0") == "0.5000"
    assert text_of(tab, "gradients-ksig") == "0.2500"
    set_slider(tab, "gradients-depth", 24)
    expected = sig4(gradflow.gradient_flow('sigmoid', 24, 'mlp')[0])
    assert wait_text(tab, "gradients-f-mlp-sigmoid", expected) == expected
    assert float(expected) < 1e-6  # sigma' <= 1/4: the plain sigmoid stack loses its gradient
    tab.log.check()


def test_overview_values_and_toggles(tab, app_url):
    open_page(tab, f"{app_url}/?lang=en")
    check_basics(tab, "overview", "en")
    box = tab.locator("#overview-x")
    box.fill("2")
    box.press("Enter")
    expected = f"{mp_gelu(2):.6f}"
    tab.wait_for_function("t => document.querySelector('#overview-table td:nth-child(2)').innerText === t", arg=expected)
    tab.click("label:has-text('SiLU / Swish')")
    tab.wait_for_function("() => document.querySelectorAll('#overview-table tbody tr:not([hidden])').length === 4")
    rows = tab.inner_text("#overview-table tbody")
    assert f"{2 / (1 + np.exp(-2)):.6f}" in rows  # SiLU(2)
    assert "show=gelu,relu,sigmoid,silu" in tab.url
    # the trace is visible on the chart too
    shown = "() => document.querySelector('#overview-curves .js-plotly-plot').data.filter(t => t.opacity !== 0).map(t => t.meta).sort().join()"
    assert tab.evaluate(shown) == "gelu,relu,sigmoid,silu"
    tab.click("label:has-text('ReLU')")  # and off again, on the chart and in the table
    tab.wait_for_function(f"() => ({shown})() === 'gelu,sigmoid,silu'")
    tab.wait_for_function("() => document.querySelectorAll('#overview-table tbody tr:not([hidden])').length === 3")
    legend = tab.evaluate("() => [...document.querySelectorAll('#overview-curves .legendtext')].map(t => t.textContent)")
    assert legend == [content.label(n, "en") for n in ("gelu", "sigmoid", "silu")]  # the legend keys the curves shown
    tab.log.check()


def test_language_switch_keeps_state(tab, app_url):
    open_page(tab, f"{app_url}/definition?x=2")
    zh, en = content.text("zh", "definition"), content.text("en", "definition")
    assert tab.inner_text("main h1") == zh["title"]
    tab.click("#lang-en")
    tab.wait_for_function("t => (document.querySelector('main h1') || {}).innerText === t", arg=en["title"])
    assert "lang=en" in tab.url and "x=2" in tab.url
    assert text_of(tab, "definition-rout") == "1.9545"
    assert content.text("en", "shell")["nav.gradients"] in tab.inner_text("header nav")
    tab.click("#lang-zh")
    tab.wait_for_function("t => (document.querySelector('main h1') || {}).innerText === t", arg=zh["title"])
    tab.log.check()


def test_url_state_restores_controls(tab, app_url):
    open_page(tab, f"{app_url}/relu?s=4&mu=-1&sigma=0.5&lang=en")
    assert tab.input_value("#relu-s input") == "4"
    assert tab.input_value("#relu-mu input") == "-1"
    assert tab.input_value("#relu-sigma input") == "0.5"
    assert text_of(tab, "relu-rs") == "4"
    # a moved control lands in the URL, and the URL reopens it
    set_slider(tab, "relu-sigma", 2)
    tab.wait_for_function("() => location.search.includes('sigma=2')")
    open_page(tab, tab.url, full=True)
    assert tab.input_value("#relu-sigma input") == "2"
    tab.log.check()


def test_the_page_writes_the_url_as_the_server_does(tab, app_url):
    """One URL codec: assets/gelu_lab.js's query() and app/state.py's encode() write the
    same query string, and state.read() reads back what the page wrote."""
    open_page(tab, f"{app_url}/?lang=en")
    values = {"x": 2.5, "n": 70, "whole": 3.0, "show": ["gelu", "silu"], "formula": "x*sigmoid(1.702*x) + a/b & c=d", "empty": ""}
    written = tab.evaluate("v => window.gelu_lab.query(Object.entries(v), 'en')", values)
    assert written == state.encode(values, "en")
    assert state.query_dict(written) == {"x": "2.5", "n": "70", "whole": "3", "show": "gelu,silu", "formula": values["formula"], "lang": "en"}
    tab.log.check()


def test_bad_url_values_are_repaired_with_a_note(tab, app_url):
    open_page(tab, f"{app_url}/definition?x=abc&n=99999&seed=-5&lang=en&junk=%00")
    notes = text_of(tab, "url-notes")
    assert "x=abc" in notes and "n=99999" in notes and "seed=-5" in notes
    assert text_of(tab, "definition-rx") == "1.00"  # the default
    assert tab.input_value("#definition-n input") == "5000"
    open_page(tab, f"{app_url}/sigmoid?beta=nan&lang=xx")
    assert "beta=nan" in text_of(tab, "url-notes") and "lang=xx" in text_of(tab, "url-notes")
    tab.log.check()


def test_bad_boxes_clamp_or_say_so(tab, app_url):
    open_page(tab, f"{app_url}/definition?lang=en")
    set_slider(tab, "definition-x", 99)  # the slider clamps to its range
    assert wait_text(tab, "definition-rx", "4.00") == "4.00"
    seed = tab.locator("#definition-seed")
    seed.fill("123456")
    seed.press("Enter")
    tab.wait_for_function("() => document.getElementById('definition-msg').innerText.includes('123456')")
    seed.press_sequentially("abc")  # a number box takes no letters
    assert seed.input_value() == "123456"
    seed.fill("")
    seed.press("Enter")
    tab.wait_for_function("() => document.getElementById('definition-msg').innerText.includes('seed')")
    open_page(tab, f"{app_url}/?lang=en")
    tab.locator("#overview-x").fill("1e300")
    tab.locator("#overview-x").press("Enter")
    tab.wait_for_function("() => document.getElementById('overview-msg').innerText.includes('1e+300') || document.getElementById('overview-msg').innerText.includes('1e300')")
    tab.log.check()


def test_junk_callback_requests_never_500(app_url):
    bodies = [b"not json", b"{}", json.dumps({"output": "definition-rout.children", "inputs": [{"id": "x", "property": "value", "value": "abc"}]}).encode()]
    for body in bodies:
        req = urllib.request.Request(f"{app_url}/_dash-update-component", data=body, headers={"Content-Type": "application/json"})
        try:
            status = urllib.request.urlopen(req, timeout=10).status
        except urllib.error.HTTPError as e:
            status = e.code
        assert status < 500, body
