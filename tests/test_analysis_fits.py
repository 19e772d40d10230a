"""Constant fits checked by brute force: scan the constant, evaluate the error on a dense grid."""

import json
import math

import numpy as np
import pytest
from scipy import special

from gelu_lab.analysis.errors import located_maxima
from gelu_lab.analysis.fits import error_of, fit
from gelu_lab.cli import main

X = np.linspace(-4, 4, 8001)
EXACT = 0.5 * X * special.erfc(-X / math.sqrt(2))
K = math.sqrt(2 / math.pi)


def _tanh_err(c, k=K):
    return 0.5 * X[:, None] * (1 + np.tanh(k * (X[:, None] + c * X[:, None] ** 3))) - EXACT[:, None]


def _sig_err(beta):
    return X[:, None] * special.expit(beta * X[:, None]) - EXACT[:, None]


def _scan(err, lo, hi, norm, rounds=3, n=201):
    """Brute-force argmin of the grid max (or RMS) error over the constant, zooming in."""
    for _ in range(rounds):
        cs = np.linspace(lo, hi, n)
        e = err(cs)
        score = np.max(np.abs(e), axis=0) if norm == "max" else np.sqrt(np.mean(e * e, axis=0))
        i = int(np.argmin(score))
        step = cs[1] - cs[0]
        lo, hi = cs[max(i - 1, 0)], cs[min(i + 1, n - 1)]
    return float(cs[i]), float(score[i]), float(step)


@pytest.mark.parametrize("form,norm", [("tanh", "max"), ("tanh", "l2"), ("sigmoid", "max"), ("sigmoid", "l2")])
def test_fit_matches_brute_force_scan(form, norm):
    f = fit(form, (-4, 4), norm)
    err, (lo, hi) = (_tanh_err, (0.03, 0.06)) if form == "tanh" else (_sig_err, (1.5, 2.0))
    c, score, step = _scan(err, lo, hi, norm)
    got = f.params["c" if form == "tanh" else "beta"]
    # the grid scan pins the constant to a few of its final steps (RMS by a flat minimum: looser)
    assert abs(got - c) < (3 * step if norm == "max" else 2e-4 * abs(c)), (got, c)
    if norm == "max":
        assert f.max_error <= score * (1 + 1e-6)  # nothing on the scan does better
        assert f.max_error >= score * (1 - 1e-3)
    else:
        assert f.rms_error == pytest.approx(score, rel=1e-4)
    # the fit beats the classic constant under its own norm
    key = "max_error" if norm == "max" else "rms_error"
    assert getattr(f, key) <= f.classic[key]


def test_classic_errors_by_brute_force():
    f = fit("tanh", (-4, 4), "l2")
    e = _tanh_err(np.array([0.044715]))[:, 0]
    assert f.classic["max_error"] == pytest.approx(np.max(np.abs(e)), rel=1e-6)
    assert f.classic["rms_error"] == pytest.approx(np.sqrt(np.mean(e * e)), rel=1e-3)


def test_minimax_equioscillates():
    # one free constant: at the optimum two different peaks of |e| (x > 0) are equal
    f = fit("tanh", (-4, 4), "max")
    peaks = located_maxima(*error_of("tanh", {"c": f.params["c"]}), 0.0, 4.0)
    assert len(peaks) >= 2
    assert peaks[1][1] == pytest.approx(peaks[0][1], rel=1e-6)
    assert abs(peaks[0][0] - peaks[1][0]) > 0.1


def test_fitting_the_scale_too_helps_in_l2():
    one, two = fit("tanh", (-4, 4), "l2"), fit("tanh", (-4, 4), "l2", fit_scale=True)
    assert set(two.params) == {"c", "k"}
    assert two.rms_error < one.rms_error
    # brute force RMS of the two-constant fit
    e = _tanh_err(np.array([two.params["c"]]), two.params["k"])[:, 0]
    assert two.rms_error == pytest.approx(np.sqrt(np.mean(e * e)), rel=1e-3)


def test_cli_json(capsys):
    assert main(["fit", "--form", "sigmoid", "--interval", "-3", "3", "--norm", "l2", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["form"] == "sigmoid" and d["norm"] == "l2" and 1.5 < d["params"]["beta"] < 2.0
    assert d["classic"]["params"]["beta"] == 1.702


@pytest.mark.parametrize(
    "argv",
    [
        ["fit", "--form", "cubic"],
        ["fit", "--norm", "l1"],
        ["fit", "--interval", "1", "1"],
        ["fit", "--interval", "-inf", "1"],
        ["fit", "--form", "sigmoid", "--fit-scale"],
    ],
)
def test_cli_bad_args(capsys, argv):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
