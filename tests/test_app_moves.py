"""Curves that the page moves in place (gelu_lab.move in assets/gelu_lab.js: Plotly.animate
without a new figure through Dash) really follow their control: the drawn data, the
SVG path, the legend name and the label, checked against SciPy here."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from app_browser import app_url, browser, context, open_page, set_slider, tab, wait_text  # noqa: F401

pytestmark = pytest.mark.xdist_group("app")

# _fullData: what plotly.js draws (arrays decoded); the SVG path of the trace, if it has one
DRAWN = """([id, i]) => { const gd = document.querySelector('#' + id + ' .js-plotly-plot'), t = gd._fullData[i];
  const p = gd.querySelectorAll('.scatterlayer .trace')[i].querySelector('path.js-line, path.js-fill');
  return {x: Array.from(t.x), y: Array.from(t.y), name: t.name, text: t.text, side: t.textposition, path: p && p.getAttribute('d')}; }"""


def drawn(tab, id, i):
    return tab.evaluate(DRAWN, [id, i])


def settle(tab, id, i, name):
    tab.wait_for_function("([id, i, n]) => { const gd = document.querySelector('#' + id + ' .js-plotly-plot');"
                          " return [...gd.querySelectorAll('.legendtext')].some(e => e.textContent === n); }", arg=[id, i, name])


def test_relu_scaled_curve_follows_s(tab, app_url):
    from gelu_lab.figures.relu import SCALED

    open_page(tab, f"{app_url}/relu?s=2&lang=en")
    before = drawn(tab, "relu-scale", SCALED)
    set_slider(tab, "relu-s", 7.5)
    wait_text(tab, "relu-rs", "7.5")
    settle(tab, "relu-scale", SCALED, "GELU(s·x)/s, s = 7.5")  # the legend follows once the slider rests
    after = drawn(tab, "relu-scale", SCALED)
    x = np.array(after["x"])
    assert np.allclose(after["y"], x * special.ndtr(7.5 * x), atol=2e-6)
    assert after["path"] != before["path"]
    assert after["name"] == "GELU(s·x)/s, s = 7.5"
    tab.log.check()


def test_sigmoid_family_curve_follows_beta(tab, app_url):
    from gelu_lab.figures.sigmoid import FAMILY

    open_page(tab, f"{app_url}/sigmoid?lang=en")
    before = drawn(tab, "sigmoid-family", FAMILY)
    set_slider(tab, "sigmoid-beta", 4)
    settle(tab, "sigmoid-family", FAMILY, "x·σ(βx), β = 4")
    after = drawn(tab, "sigmoid-family", FAMILY)
    x = np.array(after["x"])
    assert np.allclose(after["y"], x * special.expit(4 * x), atol=2e-6)
    assert after["path"] != before["path"]
    tab.log.check()


def test_definition_area_markers_and_label_follow_x(tab, app_url):
    from gelu_lab.figures import definition as figs

    open_page(tab, f"{app_url}/definition?x=1&lang=en")
    before = drawn(tab, "definition-gate", figs.SHADE)
    set_slider(tab, "definition-x", -0.5)
    wait_text(tab, "definition-rx", "-0.50")
    tab.wait_for_function("() => document.querySelector('#definition-gate .js-plotly-plot')._fullData[%d].x[0] === -0.5" % figs.MARK_IN)
    shade = drawn(tab, "definition-gate", figs.SHADE)
    assert max(shade["x"]) == pytest.approx(-0.5) and min(shade["x"]) == pytest.approx(-4.0)
    assert np.allclose(shade["y"], np.exp(-np.square(shade["x"]) / 2) / np.sqrt(2 * np.pi), atol=1e-12)
    assert shade["path"] != before["path"]
    out = drawn(tab, "definition-gate", figs.MARK_OUT)
    assert out["y"][0] == pytest.approx(-0.5 * special.ndtr(-0.5), abs=1e-12)
    label = drawn(tab, "definition-gate", figs.LABEL)
    assert label["x"] == [-0.5] and label["text"] == [f"Φ(-0.50)<br>= {special.ndtr(-0.5):.4f}"]
    assert label["side"] in ("middle right", ["middle right"])  # towards the middle: left of x = -0.5 it would leave a phone's plot
    tab.log.check()
