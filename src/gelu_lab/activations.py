"""The activation registry: GELU, its approximations and its neighbours.

    names()            -> the canonical names the pages show, in display order
    names(every=True)  -> every canonical name: also the other parameter-free
                          activations of Hugging Face transformers' ACT2FN (tanh,
                          relu6, hardswish, ...), which no page draws
    get(name)          -> Activation (canonical names and Hugging Face ACT2FN aliases)
    canonical(name)    -> the registry name; ValueError for an unknown name, and for
                          ACT2FN's activations with learned parameters (LEARNED)
    Activation.fn(x), .grad(x), .grad2(x)   value, first and second derivative

Every function is NumPy-ufunc-like (see :mod:`gelu_lab.core`): float dtypes
kept, everything else computed in float64, evaluated in float64 and rounded
once to the input's format. The three GELU forms are the ones of
:mod:`gelu_lab.core` (the exact one correctly rounded).

Conventions at kinks follow PyTorch: relu'(0) = 0, leaky_relu'(0) = slope,
elu'(0) = 1, relu6'(0) = relu6'(6) = 0, hardswish'(-3) = 0 and hardswish'(3) = 1;
second derivatives are 0 away from the kink and 0 at it.
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
GELU_CLIP = 10.0  # transformers' gelu_10: GELU clipped to [-10, 10] (only the top bites)
LAPLACE_MU, LAPLACE_SIGMA = 0.707107, 0.282095  # transformers' LaplaceActivation (MEGA): Phi((x - mu) / sigma)


@dataclass(frozen=True)
class Activation:
    name: str
    fn: Callable
    grad: Callable
    grad2: Callable
    latex: str
    family: str = "other"  # "gelu" for the three GELU forms
    shown: bool = True  # drawn by the pages (names()); False: only for ACT2FN's names (names(every=True))

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


# --- the other parameter-free activations of transformers' ACT2FN ----------


def _gelu_clipped():
    def fn(x, *, out=None):
        y = g.gelu(x, out=out)
        return np.clip(y, -GELU_CLIP, GELU_CLIP, out=y) if isinstance(y, np.ndarray) else np.clip(y, -GELU_CLIP, GELU_CLIP)

    def inside(x, d):  # the derivative where the value is not clipped (the clip's ends pass it, as torch.clip's backward)
        y = g.gelu(x)
        return np.where(np.abs(y) <= GELU_CLIP, d, np.where(np.isnan(d), d, 0.0)).astype(d.dtype)

    def grad(x, *, out=None):
        r = inside(x, np.asarray(g.gelu_grad(x)))
        return _put(r, out)

    def grad2(x, *, out=None):
        r = inside(x, np.asarray(g.gelu_grad2(x)))
        return _put(r, out)

    return fn, grad, grad2


def _put(r, out):
    if out is not None:
        out[...] = r
        return out
    return r if r.ndim else r[()]


def _identity(x):
    return np.array(x, copy=True)


def _one(x):
    return np.where(np.isnan(x), x, 1.0)


def _tanh_grad(x):
    t = np.tanh(x)
    return 1.0 - t * t


def _tanh_grad2(x):
    t = np.tanh(x)
    return -2.0 * t * (1.0 - t * t)


def _relu6(x):
    return np.where(np.isnan(x), x, np.clip(x, 0.0, 6.0)) + 0.0  # relu6(-0) = +0, as torch


def _relu6_grad(x):
    return np.where((x > 0) & (x < 6), 1.0, np.where(np.isnan(x), x, 0.0))


def _hardswish(x):
    # x relu6(x + 3) / 6: 0 below -3, x above 3
    return np.where(x <= -3, np.copysign(0.0, x), np.where(x >= 3, x, x * (x + 3.0) / 6.0))


def _hardswish_grad(x):
    return np.where(x <= -3, 0.0, np.where(x < 3, x / 3.0 + 0.5, np.where(np.isnan(x), x, 1.0)))


def _hardswish_grad2(x):
    return np.where((x > -3) & (x < 3), 1.0 / 3.0, np.where(np.isnan(x), x, 0.0))


def _relu2(x):
    r = _relu(x)
    return r * r


def _relu2_grad(x):
    return 2.0 * _relu(x)


def _relu2_grad2(x):
    return np.where(x > 0, 2.0, np.where(np.isnan(x), x, 0.0))


def _laplace_z(x):
    return (x - LAPLACE_MU) / LAPLACE_SIGMA


def _laplace(x):
    return special.ndtr(_laplace_z(x))


def _laplace_grad(x):
    return nm.phi(_laplace_z(x)) / LAPLACE_SIGMA


def _laplace_grad2(x):
    z = _laplace_z(x)
    return np.where(np.isinf(z), 0.0, -z * nm.phi(z) / LAPLACE_SIGMA**2)


def _sqrtsoftplus(x):
    return np.sqrt(np.logaddexp(0.0, x))


def _sqrtsoftplus_grad(x):
    # sigmoid(x) / (2 sqrt(softplus(x))); far left both are e^x: the ratio is e^(x/2)
    sp = np.logaddexp(0.0, x)
    with np.errstate(all="ignore"):
        y = special.expit(x) / (2.0 * np.sqrt(sp))
    return np.where(x < -30, 0.5 * np.exp(0.5 * x), y)


def _sqrtsoftplus_grad2(x):
    # d/dx s / (2 sqrt(sp)) = s (1 - s) / (2 sqrt(sp)) - s^2 / (4 sp^1.5); far left e^(x/2) / 4
    sp, s = np.logaddexp(0.0, x), special.expit(x)
    with np.errstate(all="ignore"):
        r = np.sqrt(sp)
        y = s * special.expit(-x) / (2.0 * r) - s * s / (4.0 * sp * r)
    return np.where(x < -30, 0.25 * np.exp(0.5 * x), np.where(x > 800, 0.0, y))


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
        # transformers' ACT2FN names that no page draws (shown=False)
        Activation("gelu_10", *_gelu_clipped(), r"\min(\max(x\,\Phi(x),\,-10),\,10)", "gelu", shown=False),
        Activation("tanh", _ufunc(np.tanh), _ufunc(_tanh_grad), _ufunc(_tanh_grad2), r"\tanh(x)", shown=False),
        Activation("linear", _ufunc(_identity), _ufunc(_one), _ufunc(_zero_grad2), r"x", shown=False),
        Activation("relu6", _ufunc(_relu6), _ufunc(_relu6_grad), _ufunc(_zero_grad2), r"\min(\max(0,x),\,6)", shown=False),
        Activation("relu2", _ufunc(_relu2), _ufunc(_relu2_grad), _ufunc(_relu2_grad2), r"\max(0,x)^2", shown=False),
        Activation("hardswish", _ufunc(_hardswish), _ufunc(_hardswish_grad), _ufunc(_hardswish_grad2),
                   r"x\,\frac{\min(\max(0,\,x+3),\,6)}{6}", shown=False),
        Activation("laplace", _ufunc(_laplace), _ufunc(_laplace_grad), _ufunc(_laplace_grad2),
                   r"\Phi\!\left(\frac{x-\mu}{\sigma}\right),\ \mu=0.707107,\ \sigma=0.282095", shown=False),
        Activation("sqrtsoftplus", _ufunc(_sqrtsoftplus), _ufunc(_sqrtsoftplus_grad), _ufunc(_sqrtsoftplus_grad2),
                   r"\sqrt{\log(1+e^{x})}", shown=False),
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
    "gelu_python_tanh": "gelu_tanh",  # transformers' GELUTanh(use_gelu_tanh_python=True)
    "leakyrelu": "leaky_relu",
}

# transformers' ACT2FN names whose activation has learned parameters: no fixed function to register
LEARNED = {
    "prelu": "torch.nn.PReLU: a learned negative slope",
    "xielu": "transformers' XIELUActivation: learned alpha_p and alpha_n",
}


def names(every: bool = False) -> list[str]:
    """Canonical activation names, GELU forms first: the ones the pages show, or (every) all."""
    return [n for n, a in _REGISTRY.items() if every or a.shown]


def canonical(name: str) -> str:
    """The registry name for `name` or one of its aliases; ValueError if unknown or learned."""
    key = str(name).strip().lower().replace("-", "_")
    if key in LEARNED:
        raise ValueError(f"activation {name!r} has learned parameters ({LEARNED[key]}), so it is no fixed function; "
                         f"gelu_lab's registry holds the parameter-free ones (learned: {', '.join(LEARNED)})")
    key = ALIASES.get(key, key)
    if key not in _REGISTRY:
        valid = ", ".join(names(every=True) + sorted(ALIASES))
        raise ValueError(f"unknown activation {name!r}; valid names: {valid}")
    return key


def get(name: str) -> Activation:
    """The Activation called `name` (canonical or Hugging Face alias)."""
    return _REGISTRY[canonical(name)]
