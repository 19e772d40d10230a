"""Error curves and located maxima, checked against mpmath and a brute-force grid."""

import json
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from gelu_lab.analysis.errors import error_curves
from gelu_lab.cli import main

def _mp_err(form):
    """e(t) and e'(t) in mpmath: approximation minus x Phi(x), derivatives by hand; the
    constants at the precision of the caller's mpmath.workdps."""
    K = 2 / mpmath.pi
    if form == "tanh":
        c = mpmath.mpf("0.044715")

        def f(t):
            return t / 2 * (1 + mpmath.tanh(mpmath.sqrt(K) * (t + c * t**3)))

        def df(t):
            z = mpmath.sqrt(K) * (t + c * t**3)
            return (1 + mpmath.tanh(z)) / 2 + t / 2 * mpmath.sqrt(K) * (1 + 3 * c * t**2) * mpmath.sech(z) ** 2
    else:
        b = mpmath.mpf("1.702")

        def f(t):
            return t / (1 + mpmath.exp(-b * t))

        def df(t):
            s = 1 / (1 + mpmath.exp(-b * t))
            return s + b * t * s * (1 - s)

    return (lambda t: f(t) - t * mpmath.ncdf(t)), (lambda t: df(t) - mpmath.ncdf(t) - t * mpmath.npdf(t))


@pytest.mark.parametrize("form", ["tanh", "sigmoid"])
def test_max_error_on_minus4_4_matches_mpmath(form):
    with mpmath.workdps(30):
        e, de = _mp_err(form)
        # brute force on a coarse mpmath grid over x > 0, then the root of e' there
        grid = [mpmath.mpf(i) / 100 for i in range(1, 401)]
        x0 = max(grid, key=lambda t: abs(e(t)))
        xs = mpmath.findroot(de, x0)
        want_x, want = float(xs), float(abs(e(xs)))
    c = error_curves(form, interval=(-4, 4))
    assert c.max_abs_error == pytest.approx(want, rel=1e-12)
    assert abs(abs(c.argmax) - want_x) < 1e-10
    # the error is even: both maxima found, each on its own side
    (xn, vn), (xp, vp) = c.argmax_pair
    assert abs(xn + want_x) < 1e-10 and abs(xp - want_x) < 1e-10
    assert vn == pytest.approx(want, rel=1e-12) and vp == pytest.approx(want, rel=1e-12)


def test_known_figures():
    # the two classic claims: tanh within 0.003 on [-4, 4], sigmoid not
    assert error_curves("tanh").max_abs_error < 0.003 < error_curves("sigmoid").max_abs_error


def _brute(form, a, b, n=200_001):
    x = np.linspace(a, b, n)
    exact = 0.5 * x * special.erfc(-x / math.sqrt(2))
    if form == "tanh":
        approx = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    else:
        approx = x * special.expit(1.702 * x)
    return np.max(np.abs(approx - exact))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["tanh", "sigmoid"]), st.floats(-6, 5.5), st.floats(0.05, 6))
def test_located_max_is_the_grid_max_or_above(form, a, w):
    b = min(a + w, 6.0)
    got = error_curves(form, interval=(a, b), n=11).max_abs_error
    brute = _brute(form, a, b)
    # the located maximum is the sup: never below a dense grid's, and the grid
    # (spacing <= 3e-5, |e''| < 0.1) misses it by far less than 1e-9. The grid's
    # errors are differences of two values of size |x|: each carries up to an ulp
    # of |x| (found by hypothesis: 1.8e-15 above the sup at x = 6)
    assert got >= brute - 4 * np.spacing(max(abs(a), abs(b), 1.0))
    assert got <= brute + 1e-9


def test_curves_and_relative_error():
    c = error_curves("tanh", interval=(-2, 2), n=401)
    assert c.x.shape == c.abs_error.shape == c.rel_error.shape == (401,)
    exact = 0.5 * c.x * special.erfc(-c.x / math.sqrt(2))
    approx = 0.5 * c.x * (1 + np.tanh(math.sqrt(2 / math.pi) * (c.x + 0.044715 * c.x**3)))
    np.testing.assert_allclose(c.abs_error, np.abs(approx - exact), atol=1e-15)
    nz = exact != 0
    np.testing.assert_allclose(c.rel_error[nz], np.abs(approx - exact)[nz] / np.abs(exact[nz]), rtol=1e-6, atol=1e-15)
    assert c.rel_error[200] == 0.0  # x = 0: both are 0


def test_any_registered_activation():
    c = error_curves("silu", "gelu", (0, 4))
    x = np.linspace(0, 4, 400_001)
    brute = np.max(np.abs(x * special.expit(x) - 0.5 * x * special.erfc(-x / math.sqrt(2))))
    assert c.max_abs_error == pytest.approx(brute, rel=1e-9)


def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_json(capsys):
    rc, out, _ = _run(capsys, "errors", "--approx", "tanh", "--interval", "-3", "3", "--curves", "--points", "61", "--format", "json")
    assert rc == 0
    d = json.loads(out)
    r = d["results"][0]
    assert r["approx"] == "gelu_tanh" and len(r["x"]) == 61 and len(r["maxima"]) == 2
    assert r["max_abs_error"] == pytest.approx(_brute("tanh", -3, 3), rel=1e-6)


@pytest.mark.parametrize(
    "argv",
    [
        ["errors", "--interval", "4", "-4"],
        ["errors", "--interval", "a", "b"],
        ["errors", "--interval", "nan", "1"],
        ["errors", "--approx", "nosuch"],
        ["errors", "--points", "1"],
    ],
)
def test_cli_bad_args(capsys, argv):
    rc, out, err = _run(capsys, *argv)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("gelu-lab")
