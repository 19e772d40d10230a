"""The activation registry: GELU, its approximations and its neighbours.

    names()            -> the canonical names, in display order
    get(name)          -> Activation (canonical names and Hugging Face ACT2FN aliases)
    Activation.fn(x), .grad(x), .grad2(x)   value, first and second derivative

Every function is NumPy-ufunc-like (see :mod:`gelu_lab.core`): float dtypes
kept, everything else computed in float64, evaluated in float64 and rounded
once to the input's format. The three GELU forms are the ones of
:mod:`gelu_lab.core` (the exact one correctly rounded).

Conventions at kinks follow PyTorch: relu'(0) = 0, leaky_relu'(0) = slope,
elu'(0) = 1; second derivatives are 0 away from the kink and 0 at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import special

from . import core as g
from . import numerics as nm
from .floats import format_of, round_to_format

LEAKY_SLOPE = 0.01
ELU_ALPHA = 1.0


@dataclass(frozen=True)
class Activation:
    name: str
    fn: Callable
    grad: Callable
    grad2: Callable
    latex: str
    family: str = "other"  # "gelu" for the three GELU forms

    def __call__(self, x):
        return self.fn(x)


def _ufunc(f64):
    """A float64 formula as a dtype-keeping, out=-accepting function."""

    def fn(x, *, out=None):
        if g.is_tensor(x):
            raise TypeError("use gelu_lab.torch for tensors")
        a = g.as_float_array(x)
        if out is not None:
            a = np.broadcast_to(a, np.shape(out)).astype(out.dtype, copy=False)
        with np.errstate(all="ignore"):
            y = round_to_format(f64(a.astype(np.float64)), format_of(a.dtype))
        if out is not None:
            out[...] = y
            return out
        return y if y.ndim else y[()]

    fn.__doc__ = f64.__doc__
    fn.__name__ = f64.__name__
    return fn


# the registry's GELU forms -> core's `approximate`
APPROXIMATE = {"gelu": "none", "gelu_tanh": "tanh", "gelu_sigmoid": "sigmoid"}


def _gelu_form(name):
    approximate = APPROXIMATE[name]
    return (
        lambda x, *, out=None: g.gelu(x, approximate, out=out),
        lambda x, *, out=None: g.gelu_grad(x, approximate, out=out),
        lambda x, *, out=None: g.gelu_grad2(x, approximate, out=out),
    )


# --- float64 formulas of the neighbours (x is a float64 array) -------------


def _relu(x):
    return np.where(x > 0, x, np.where(np.isnan(x), x, 0.0))


def _relu_grad(x):
    return np.where(x > 0, 1.0, np.where(np.isnan(x), x, 0.0))


def _zero_grad2(x):
    return np.where(np.isnan(x), x, 0.0)


def _sigmoid_grad(x):
    return special.expit(x) * special.expit(-x)


def _sigmoid_grad2(x):
    s = special.expit(x)
    return s * special.expit(-x) * (1.0 - 2.0 * s)


def _silu(x):
    return np.where(x == -np.inf, -0.0, x * special.expit(x))


def _silu_grad(x):
    s = special.expit(x)
    term = np.where(np.abs(x) > 800, 0.0, x * s * special.expit(-x))
    return s + term


def _silu_grad2(x):
    s = special.expit(x)
    return np.where(np.abs(x) > 800, 0.0, s * special.expit(-x) * (2.0 + x * (1.0 - 2.0 * s)))


def _elu(x):
    # expm1 of x itself (not of min(x, 0), which turns -0 into +0): elu(-0) = -0, elu(-inf) = -alpha
    return np.where(x > 0, x, ELU_ALPHA * np.expm1(np.where(x > 0, 0.0, x)))


def _elu_grad(x):
    return np.where(x > 0, 1.0, np.where(x == 0, 1.0, ELU_ALPHA * np.exp(np.minimum(x, 0.0))))


def _elu_grad2(x):
    return np.where(x > 0, 0.0, np.where(x == 0, 0.0, ELU_ALPHA * np.exp(np.minimum(x, 0.0))))


def _softplus(x):
    return np.logaddexp(0.0, x)


def _mish(x):
    return np.where(x == -np.inf, -0.0, x * np.tanh(np.logaddexp(0.0, x)))


def _mish_grad(x):
    # d/dx x tanh(sp(x)) = tanh(sp) + x sech^2(sp) sigmoid(x)
    t = np.tanh(np.logaddexp(0.0, x))
    term = np.where(np.abs(x) > 800, 0.0, x * (1.0 - t * t) * special.expit(x))
    return t + term


def _mish_grad2(x):
    t = np.tanh(np.logaddexp(0.0, x))
    s = special.expit(x)
    sech2 = 1.0 - t * t
    y = 2.0 * sech2 * s + x * sech2 * s * (1.0 - s) - 2.0 * x * t * sech2 * s * s
    return np.where(np.abs(x) > 800, 0.0, y)


def _leaky(x):
    return np.where(x > 0, x, LEAKY_SLOPE * x)


def _leaky_grad(x):
    return np.where(x > 0, 1.0, np.where(np.isnan(x), x, LEAKY_SLOPE))


def _registry():
    acts = [
        Activation("gelu", *_gelu_form("gelu"), r"x\,\Phi(x)", "gelu"),
        Activation(
            "gelu_tanh",
            *_gelu_form("gelu_tanh"),
            r"\tfrac12 x\left(1+\tanh\!\left(\sqrt{2/\pi}\,(x+0.044715x^3)\right)\right)",
            "gelu",
        ),
        Activation(
            "gelu_sigmoid",
            *_gelu_form("gelu_sigmoid"),
            r"x\,\sigma(1.702x)",
            "gelu",
        ),
        Activation("relu", _ufunc(_relu), _ufunc(_relu_grad), _ufunc(_zero_grad2), r"\max(0,x)"),
        Activation(
            "sigmoid",
            _ufunc(nm.sigmoid),
            _ufunc(_sigmoid_grad),
            _ufunc(_sigmoid_grad2),
            r"\sigma(x)=\frac{1}{1+e^{-x}}",
        ),
        Activation("silu", _ufunc(_silu), _ufunc(_silu_grad), _ufunc(_silu_grad2), r"x\,\sigma(x)"),
        Activation(
            "elu",
            _ufunc(_elu),
            _ufunc(_elu_grad),
            _ufunc(_elu_grad2),
            r"x\ (x>0);\ e^{x}-1\ (x\le 0)",
        ),
        Activation(
            "softplus",
            _ufunc(_softplus),
            _ufunc(nm.sigmoid),
            _ufunc(_sigmoid_grad),
            r"\log(1+e^{x})",
        ),
        Activation(
            "mish",
            _ufunc(_mish),
            _ufunc(_mish_grad),
            _ufunc(_mish_grad2),
            r"x\tanh(\mathrm{softplus}(x))",
        ),
        Activation(
            "leaky_relu",
            _ufunc(_leaky),
            _ufunc(_leaky_grad),
            _ufunc(_zero_grad2),
            r"\max(0.01x,\,x)",
        ),
    ]
    return {a.name: a for a in acts}


_REGISTRY = _registry()

# Hugging Face transformers ACT2FN names -> ours (same mathematics)
ALIASES = {
    "gelu_new": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_accurate": "gelu_tanh",  # HF AccurateGELUActivation: the same tanh form
    "quick_gelu": "gelu_sigmoid",
    "gelu_python": "gelu",
    "gelu_erf": "gelu",
    "swish": "silu",
    "tanh_gelu": "gelu_tanh",
    "leakyrelu": "leaky_relu",
}


def names() -> list[str]:
    """Canonical activation names, GELU forms first."""
    return list(_REGISTRY)


def canonical(name: str) -> str:
    """The registry name for `name` or one of its aliases; ValueError if unknown."""
    key = str(name).strip().lower().replace("-", "_")
    key = ALIASES.get(key, key)
    if key not in _REGISTRY:
        valid = ", ".join(names() + sorted(ALIASES))
        raise ValueError(f"unknown activation {name!r}; valid names: {valid}")
    return key


def get(name: str) -> Activation:
    """The Activation called `name` (canonical or Hugging Face alias)."""
    return _REGISTRY[canonical(name)]
