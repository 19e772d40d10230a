"""Every name of Hugging Face transformers' ACT2FN is a registry entry with transformers' values.

The installed transformers is the reference: its own module for each name, on a dense grid,
in float32 and float64. A name it has that gelu_lab does not know fails the test; a name with
learned parameters must be refused by `canonical`, naming them.

Tolerance, |ours - theirs| <= 8 eps (|ours| + max(1, |x|)), eps of the format: our value is
the float64 formula rounded once (within 1 ulp); torch evaluates the textbook formula in the
format itself, whose error is a few ulp of the result plus, where 1 + erf(.) or 1 + tanh(.)
cancels (the GELU forms for x < 0, laplace), a few eps absolutely, times |x| for x (1 + ...).
Two documented differences are added where they apply: gelu_fast's constant 0.7978845608 is
sqrt(2/pi) to 10 digits (bounded by its derivative in the constant), and torch's softplus is
x itself above x = 20 (bounded by log1p(e^-x) <= e^-x), seen by sqrtsoftplus in float64.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gelu_lab import activations

import torch  # noqa: E402  (make test installs torch and transformers: the bert extra)
import transformers.activations as transformers_activations  # noqa: E402

GRID = np.concatenate([np.arange(-30.0, 30.0, 1.0 / 512), [-1e3, -100.0, 100.0, 1e3]])  # kinks 0, +-3, 6 on it
FAST_K = 0.7978845608  # FastGELUActivation's constant, as transformers writes it


def hf_names():
    return sorted(transformers_activations.ACT2CLS)


def is_learned(name: str) -> bool:
    return any(True for _ in transformers_activations.ACT2FN[name].parameters())


def extra_tolerance(name, x):
    if name == "gelu_fast":
        u = x * (1 + 0.044715 * x * x)
        return 0.5 * np.abs(x * u) * abs(FAST_K - math.sqrt(2 / math.pi))
    if name == "sqrtsoftplus":
        return np.where(x > 20, np.exp(-np.clip(x, 20.0, 700.0)), 0.0)
    return 0.0


def test_every_act2fn_name_is_known():
    """Each name maps through canonical or is one of LEARNED (which must have learned parameters)."""
    unknown = []
    for name in hf_names():
        if name in activations.LEARNED:
            assert is_learned(name), f"{name} is listed as learned but transformers' module has no parameters"
            continue
        try:
            activations.canonical(name)
        except ValueError:
            unknown.append(name)
    assert not unknown, f"transformers {transformers_activations.__name__} has ACT2FN names gelu_lab does not know: {unknown}"
    assert set(activations.LEARNED) <= set(hf_names()) | {"prelu", "xielu"}


@pytest.mark.parametrize("name", sorted(activations.LEARNED))
def test_learned_names_are_refused_with_a_clear_message(name):
    with pytest.raises(ValueError, match=f"'{name}' has learned parameters") as e:
        activations.canonical(name)
    assert all(n in str(e.value) for n in activations.LEARNED)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", [n for n in hf_names() if n not in activations.LEARNED])
def test_values_equal_transformers(name, dtype):
    module = transformers_activations.ACT2FN[name]
    assert not is_learned(name)
    x = GRID.astype(dtype)
    with torch.no_grad():
        theirs = module(torch.from_numpy(x.copy())).numpy()
    ours = activations.get(name).fn(x)
    assert ours.dtype == x.dtype
    eps = float(np.finfo(dtype).eps)
    x64, o64, t64 = x.astype(np.float64), ours.astype(np.float64), theirs.astype(np.float64)
    tol = 8 * eps * (np.abs(o64) + np.maximum(1.0, np.abs(x64))) + extra_tolerance(name, x64)
    err = np.abs(o64 - t64)
    bad = err > tol
    assert not bad.any(), (f"{name} ({activations.canonical(name)}) {dtype}: {bad.sum()} of {x.size} differ, "
                           f"first at x = {x64[bad][0]!r}: ours {o64[bad][0]!r}, transformers {t64[bad][0]!r}")


@pytest.mark.parametrize("name", [n for n in hf_names() if n not in activations.LEARNED])
def test_derivatives_equal_autograd(name):
    """grad and grad2 against torch's autograd (double backward) of transformers' module, float64.

    Absolute tolerance 1e-10 max(1, |x|)^2: autograd differentiates the textbook formula, whose
    1 - tanh^2 and 1 + erf cancel near saturation (relative errors of percents on values of 1e-12);
    a wrong derivative formula is off by far more on the grid's moderate x."""
    module = transformers_activations.ACT2FN[name]
    x = GRID[np.abs(GRID) <= 20]
    t = torch.from_numpy(x.copy()).requires_grad_(True)
    (d1,) = torch.autograd.grad(module(t).sum(), t, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), t, allow_unused=True) if d1.requires_grad else (None,)
    a = activations.get(name)
    tol = 1e-10 * np.maximum(1.0, np.abs(x)) ** 2 + 100 * extra_tolerance(name, x)
    np.testing.assert_array_less(np.abs(a.grad(x) - d1.detach().numpy()), tol + 1e-300)
    want2 = np.zeros_like(x) if d2 is None else d2.numpy()
    np.testing.assert_array_less(np.abs(a.grad2(x) - want2), tol + 1e-300)


def test_shown_names_are_unchanged_and_every_name_has_a_display_label():
    from gelu_lab.app import content

    assert activations.names() == ["gelu", "gelu_tanh", "gelu_sigmoid", "relu", "sigmoid", "silu", "elu", "softplus", "mish", "leaky_relu"]
    assert set(activations.names()) < set(activations.names(every=True))
    for lang in ("zh", "en"):
        for n in activations.names(every=True):
            assert n in content.text(lang, "activations"), (lang, n)


@pytest.mark.parametrize("name", [n for n in activations.names(every=True) if n not in activations.names()])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_new_entries_are_ufunc_like(name, dtype):
    """The entries ACT2FN brought: the format kept, out= filled, no nan for a non-nan input (inf included)."""
    from gelu_lab.floats import FORMATS

    fmt = FORMATS[dtype]
    with np.errstate(over="ignore"):  # 1e30 is inf in the 16-bit formats
        x = np.array([-np.inf, -1e30, -40.0, -3.0, -1.0, -0.0, 0.0, 1e-30, 0.5, 3.0, 6.0, 40.0, 1e30, np.inf, np.nan]).astype(fmt.dtype)
    a = activations.get(name)
    for f in (a.fn, a.grad, a.grad2):
        y = f(x)
        assert y.dtype == x.dtype and y.shape == x.shape
        assert not np.isnan(y[:-1].astype(np.float64)).any(), (f.__name__, y)
        assert np.isnan(float(y[-1]))
        out = np.empty_like(x)
        assert f(x, out=out) is out
        np.testing.assert_array_equal(out.astype(np.float64), y.astype(np.float64))
