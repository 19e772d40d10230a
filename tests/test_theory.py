"""The numbers behind the theory pages, against mpmath and brute force."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gelu_lab.analysis import theory

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)


def test_key_points_match_mpmath():
    kp = theory.key_points()
    root = mpmath.findroot(lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x), -0.75)
    assert kp["grad_root"] == pytest.approx(float(root), abs=1e-12)
    assert kp["gelu_min"] == pytest.approx(float(root * mpmath.ncdf(root)), rel=1e-12)
    assert kp["grad_max_x"] == pytest.approx(2**0.5, abs=1e-12)
    assert kp["grad_min_x"] == pytest.approx(-(2**0.5), abs=1e-12)
    s2 = mpmath.sqrt(2)
    assert kp["grad_max"] == pytest.approx(float(mpmath.ncdf(s2) + s2 * mpmath.npdf(s2)), rel=1e-12)
    assert kp["grad_min"] == pytest.approx(float(mpmath.ncdf(-s2) - s2 * mpmath.npdf(s2)), rel=1e-10)
    assert kp["grad_at_0"] == 0.5
    assert kp["sigmoid_grad_max"] == pytest.approx(0.25, abs=1e-12)
    assert (kp["relu_grad_left"], kp["relu_grad_right"]) == (0.0, 1.0)


def test_gate_table_against_mpmath():
    x = [-3.0, -0.5, 0.0, 1.25, 4.0]
    g = theory.gate_table(x)
    for i, v in enumerate(x):
        assert g["Phi"][i] == pytest.approx(float(mpmath.ncdf(v)), rel=1e-14)
        assert g["phi"][i] == pytest.approx(float(mpmath.npdf(v)), rel=1e-14)
        assert g["gelu"][i] == pytest.approx(float(v * mpmath.ncdf(v)), rel=1e-14, abs=1e-300)
        assert g["relu"][i] == max(v, 0.0)


@given(st.floats(-4, 4), st.integers(1, 300), st.integers(0, 2**31))
def test_bernoulli_running_means_are_the_brute_force_means(x, n, seed):
    b = theory.bernoulli_masks(x, n, seed)
    u = np.random.default_rng(seed).random(n)
    p = float(mpmath.ncdf(x))
    for k in (0, n // 2, n - 1):
        assert b["gelu_running"][k] == pytest.approx(np.mean([x * (ui < p) for ui in u[: k + 1]]), abs=1e-12)
        assert b["dropout_running"][k] == pytest.approx(np.mean([x * (ui < 0.9) for ui in u[: k + 1]]), abs=1e-12)
    np.testing.assert_allclose(b["relu_running"], max(x, 0.0), rtol=1e-12)
    assert b["gelu"] == pytest.approx(float(x * mpmath.ncdf(x)), abs=1e-15)


def test_bernoulli_mean_converges_to_gelu():
    b = theory.bernoulli_masks(1.3, 200_000, 3)
    # 5 standard errors of a Bernoulli(Phi) mean times x
    p = float(mpmath.ncdf(1.3))
    assert abs(b["gelu_running"][-1] - b["gelu"]) < 5 * 1.3 * (p * (1 - p) / 200_000) ** 0.5


@given(st.floats(-3, 3), st.floats(0.1, 3), st.integers(0, 1000))
def test_dead_units_shares(mu, sigma, seed):
    d = theory.dead_units(mu, sigma, n=500, seed=seed)
    z = np.random.default_rng(seed).normal(mu, sigma, 500)
    assert d["relu_zero"] == np.mean(z <= 0)
    assert d["gelu_zero"] == 0.0  # GELU' = 0 only at one point and below the underflow at ~ -38


def test_scale_family_gap_is_max_gap_over_s():
    t0 = mpmath.findroot(lambda t: mpmath.ncdf(-t) - t * mpmath.npdf(t), 0.75)
    gap = float(t0 * mpmath.ncdf(-t0))
    f = theory.scale_family([1.0, 2.0, 8.0], [-1.0, 0.0, 1.0])
    assert f["gap1"] == pytest.approx(gap, rel=1e-6)
    assert f["gap"] == pytest.approx([gap, gap / 2, gap / 8], rel=1e-6)
    assert f["y"][1, 2] == pytest.approx(float(2 * mpmath.ncdf(2)) / 2, rel=1e-14)


def test_beta_family_and_best_beta():
    t = np.linspace(-8, 8, 16001)
    exact = np.array([float(v * mpmath.ncdf(v)) for v in t[::4]])
    f = theory.beta_family([1.0, 1.702], t[::4])
    assert f["y"][0] == pytest.approx(t[::4] / (1 + np.exp(-t[::4])), rel=1e-14, abs=1e-300)
    for row, b in zip(f["distance"], (1.0, 1.702)):
        assert row == pytest.approx(np.max(np.abs(t[::4] / (1 + np.exp(-b * t[::4])) - exact)), rel=1e-3)
    beta, d = theory.best_beta()
    # the minimax beta: nudging it either way makes the worst case worse
    for b in (beta - 0.01, beta + 0.01):
        assert theory.beta_family([b], [0.0])["distance"][0] > d
    assert 1.6 < beta < 1.9


def test_gates_max_gap():
    g = theory.gates(np.linspace(-5, 5, 11))
    t = np.linspace(-8, 8, 4001)
    brute = max(abs(float(mpmath.ncdf(v)) - 1 / (1 + np.exp(-1.702 * v))) for v in t)
    assert g["max_gap"] == pytest.approx(brute, rel=1e-3)
