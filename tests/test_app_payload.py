"""What server callbacks send stays small and right: the Bernoulli curves are drawn
through at most PLOTTED log-spaced running means (checked against the seeded brute
force), and the gradient-flow figure is built once per depth."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from gelu_lab.app import get_app
from gelu_lab.app.pages.definition import view as definition
from gelu_lab.app.pages.gradients import page as gradients

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)


@pytest.fixture(scope="module", autouse=True)
def app():
    return get_app()


@pytest.mark.parametrize("x,n,seed", [(1.0, 5000, 7), (-0.7, 10, 0), (2.5, 1234, 42)])
def test_bernoulli_curve_is_the_running_mean_at_log_spaced_n(x, n, seed):
    fig, vals = definition.bernoulli(x, n, seed, definition._t("en"))
    run = fig.data[0]  # GELU's mask: x where u < Phi(x)
    ns = np.asarray(run.x)
    assert len(ns) <= definition.PLOTTED and ns[0] == 1 and ns[-1] == n
    assert np.all(np.diff(ns) > 0)
    if n > definition.PLOTTED:  # log-spaced: dense where the running mean still moves
        assert ns[1] == 2 and np.diff(ns)[-1] > np.diff(ns)[0]
    else:
        assert list(ns) == list(range(1, n + 1))
    u = np.random.default_rng(seed).random(n)
    means = np.cumsum(x * (u < float(mpmath.ncdf(x)))) / np.arange(1, n + 1)
    np.testing.assert_allclose(np.asarray(run.y), means[ns - 1], atol=1e-12)
    assert vals[0] == f"{means[-1]:.4f}".replace("-0.0000", "0.0000")  # the readout uses all n masks


def test_flow_is_built_once_per_depth():
    a = gradients.flow(5, "en")
    assert gradients.flow(5, "en") is a
    fresh = gradients.flow.__wrapped__(5, "en")
    assert fresh[1] == a[1] and fresh[0].to_plotly_json() == a[0].to_plotly_json()
    assert gradients.flow(6, "en")[1] != a[1]
