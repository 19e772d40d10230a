"""Facts the pages state, against independent ground truth (mpmath, scipy), and slips they must not repeat.

Issue 19: 1.702 is not the slope-matching constant of the sigmoid gate (that is
4/sqrt(2 pi) ~ 1.596) but, to three decimals, the beta that makes sigmoid(beta x)
the minimax approximation of Phi(x); the sigmoid page states the slopes and gaps
as computed numbers. |GELU(x) - ReLU(x)| = |x| Phi(-|x|) is even in x.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import optimize, special

from gelu_lab.analysis import theory
from gelu_lab.app import content

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)

BETA = 1.702


def _mp_gate_gap(beta) -> float:
    """max over x of |sigmoid(beta x) - Phi(x)| by mpmath: a coarse grid, then the
    zeros of the derivative beta sigma'(beta x) - phi(x) next to each local peak."""
    beta = mpmath.mpf(beta)
    sig = lambda t: 1 / (1 + mpmath.exp(-beta * t))  # noqa: E731
    err = lambda t: sig(t) - mpmath.ncdf(t)  # noqa: E731
    d_err = lambda t: beta * sig(t) * (1 - sig(t)) - mpmath.npdf(t)  # noqa: E731
    xs = np.linspace(0.0, 8.0, 801)  # the error is odd in x: x >= 0 is enough
    e = np.abs([float(err(v)) for v in xs])
    peaks = [i for i in range(1, len(xs) - 1) if e[i] >= e[i - 1] and e[i] >= e[i + 1]]
    assert peaks
    return max(abs(float(err(mpmath.findroot(d_err, xs[i])))) for i in peaks)


def _scipy_gate_minimax() -> float:
    x = np.linspace(0.0, 8.0, 80001)
    Phi = special.ndtr(x)
    return optimize.minimize_scalar(lambda b: np.max(np.abs(special.expit(b * x) - Phi)), bounds=(1.0, 2.5),
                                    method="bounded", options={"xatol": 1e-11}).x


def test_where_1702_comes_from():
    g = theory.sigmoid_gate()
    phi0 = mpmath.npdf(0)
    assert g["phi_slope"] == pytest.approx(float(1 / mpmath.sqrt(2 * mpmath.pi)), rel=1e-15)
    assert g["sig_slope"] == pytest.approx(BETA / 4, rel=1e-15)  # sigma'(0) = 1/4
    assert g["slope_beta"] == pytest.approx(float(4 * phi0), rel=1e-15)  # beta/4 = phi(0)
    # slope matching does not give 1.702; the minimax gate does, to three decimals
    assert round(g["slope_beta"], 3) == 1.596
    assert g["gate_beta"] == pytest.approx(_scipy_gate_minimax(), abs=2e-6)
    assert round(g["gate_beta"], 3) == BETA
    assert g["gap"] == pytest.approx(_mp_gate_gap(BETA), rel=1e-6)
    assert g["gate_gap"] == pytest.approx(_mp_gate_gap(g["gate_beta"]), rel=1e-6)
    assert g["slope_gap"] == pytest.approx(_mp_gate_gap(4 * phi0), rel=1e-6)
    assert g["gate_gap"] < g["gap"] < 0.01 < g["slope_gap"]


@pytest.mark.parametrize("lang", content.LANGS)
def test_sigmoid_page_states_the_computed_constants(lang):
    from gelu_lab.app.pages import sigmoid

    t = sigmoid._t(lang)
    gates, after = t["gates.text"], t["fam.after"]
    phi0 = 1 / math.sqrt(2 * math.pi)
    # about four significant figures (the minimax beta five: 1.7017, which rounds to 1.702)
    for want in (f"{phi0:.4f}", f"{BETA / 4:.4f}", f"{4 * phi0:.4g}", f"{_scipy_gate_minimax():.4f}",
                 f"{_mp_gate_gap(BETA):.4g}", f"{_mp_gate_gap(_scipy_gate_minimax()):.4g}", f"{_mp_gate_gap(4 * phi0):.4g}",
                 f"{100 * (BETA / 4 / phi0 - 1):.4g} %"):
        assert want in gates, want
    x = np.linspace(-8.0, 8.0, 160001)
    gelu = x * special.ndtr(x)
    dist = lambda b: np.max(np.abs(x * special.expit(b * x) - gelu))  # noqa: E731
    best = optimize.minimize_scalar(dist, bounds=(1.0, 3.0), method="bounded", options={"xatol": 1e-9}).x
    assert f"{dist(BETA):.4g}" in after and f"{best:.4g}" in after
    for slip in ("slope-matching", "slope matching constant", "斜率匹配给出", "百分之一", "about a hundredth"):
        assert slip not in gates + after


def test_gelu_relu_gap_is_even():
    """|GELU(x) - ReLU(x)| = |x| Phi(-|x|): the negative side is not where they differ more."""
    gap = lambda v: abs(v * mpmath.ncdf(v) - max(v, 0))  # noqa: E731
    for v in (0.1, 0.5, 0.7518, 1.0, 2.0, 2.9):
        v = mpmath.mpf(v)
        assert gap(-v) == pytest.approx(gap(v), rel=1e-25)
        assert gap(v) == pytest.approx(v * mpmath.ncdf(-v), rel=1e-25)
    for lang, slip in (("en", "differ most"), ("zh", "差别最大")):
        assert slip not in content.text(lang, "bert")["dist.text"]


SLIPS = {  # (lang, page, block): wrong statements issue 19 found
    ("en", "gradients", "flow.text"): "as in BERT-style",
    ("zh", "gradients", "flow.text"): "BERT 类 Transformer 中的 pre-LayerNorm",
    ("en", "gradients", "flow.after"): "the setting in which BERT uses GELU",
    ("zh", "gradients", "flow.after"): "BERT 正是在这种结构中",
    ("en", "overview", "intro"): "most Transformers that followed",
    ("zh", "overview", "intro"): "之后大多数 Transformer",
    ("en", "definition", "bern.text"): "so its average is p·x",
    ("zh", "definition", "bern.text"): "与 x 无关，平均值是 p·x",
    ("en", "shell", "footer"): "every number on these pages",
    ("zh", "shell", "footer"): "每一个数字",
    ("en", "interview", "a.dropout"): "does not depend on x (E[x·m] = p·x)",
    ("zh", "interview", "a.dropout"): "与 x 无关（E[x·m] = p·x）",
}


@pytest.mark.parametrize("where", sorted(SLIPS))
def test_slip_is_gone(where):
    lang, page, block = where
    assert SLIPS[where] not in content.text(lang, page)[block]
