"""TEMPORARY: numerics gives bit for bit what it gave before its regions were made disjoint.

Compares every float64 function of gelu_lab.numerics with the copy of the old
module in legacy_numerics.py on a dense grid, every float16 and bfloat16 value,
random float32 and float64 bit patterns, the edges of every region (a few ulp
either side) and the special values. Removed once the new module has passed.
"""

import numpy as np
import pytest

import legacy_numerics as old
from gelu_lab import numerics as new

FUNCTIONS = ["Phi", "phi", "sigmoid", "upper_tail", "gelu_exact", "gelu_exact_grad", "gelu_exact_grad2",
             "gelu_tanh", "gelu_tanh_grad", "gelu_tanh_grad2", "gelu_sigmoid", "gelu_sigmoid_grad"]
EDGES = [-1e3, 1e3, -40.0, 40.0, -37.6, 8.5, -1 / 128, 1 / 128, -0.5, 3.0, 0.0, -0.7517915 - 1 / 16, -0.7517915 + 1 / 16,
         -0.7517915, 2.0**-30, -(2.0**-30), 15.0, -15.0, 38.5, -38.5]


def grid() -> np.ndarray:
    rng = np.random.default_rng(17)
    parts = [
        np.linspace(-45.0, 12.0, 2_000_001),
        np.linspace(-1.0, 1.0, 400_001),
        np.concatenate([np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float64),
                        (np.arange(65536, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)]),
        rng.integers(0, 2**32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np.float64),
        rng.integers(0, 2**64 - 1, 1_000_000, dtype=np.uint64).view(np.float64),
        rng.standard_normal(1_000_000) * 3,
        np.array([np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 5e-324, -5e-324, 2.2e-308, -2.2e-308, 1.8e308, -1.8e308]),
    ]
    for e in EDGES:
        parts.append(e + np.arange(-8, 9) * np.spacing(abs(e)))
    return np.concatenate(parts)


@pytest.fixture(scope="module")
def xs():
    return grid()


def bits(y):
    y = np.asarray(y, dtype=np.float64)
    return np.where(np.isnan(y), np.uint64(0x7FF8000000000000), y.view(np.uint64))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_bit_identical(name, xs):
    x = np.abs(xs) if name == "upper_tail" else xs
    with np.errstate(all="ignore"):
        want = getattr(old, name)(x)
    got = getattr(new, name)(x)
    differ = bits(got) != bits(want)
    assert not differ.any(), (int(differ.sum()), x[differ][:5], np.asarray(got)[differ][:5], np.asarray(want)[differ][:5])


@pytest.mark.parametrize("name", FUNCTIONS)
def test_bit_identical_scalars(name):
    for v in EDGES + [np.inf, -np.inf, np.nan]:
        v = abs(v) if name == "upper_tail" else v
        with np.errstate(all="ignore"):
            want = getattr(old, name)(np.float64(v))
        got = getattr(new, name)(np.float64(v))
        assert np.shape(got) == np.shape(want)
        assert bits(got) == bits(want), (v, got, want)


def test_sigmoid_grad2_now_the_x_sigmoid_formula(xs):
    """gelu_sigmoid_grad2 is the x sigmoid(z) formula of the tanh form with z = beta x: within a few eps of the old one."""
    with np.errstate(all="ignore"):
        want = old.gelu_sigmoid_grad2(xs)
    got = new.gelu_sigmoid_grad2(xs)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.abs(got[ok] - want[ok]).max() <= 4 * np.finfo(np.float64).eps
    zeros = ok & (want == 0)
    assert np.array_equal(got[zeros], want[zeros]) and np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))
