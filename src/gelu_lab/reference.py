"""Correctly rounded reference values of GELU and its approximations.

For a target format (float16, bfloat16, float32) the value is computed in
float64 by :mod:`gelu_lab.numerics` (relative error below a stated bound E),
rounded once to the target, and every input whose float64 value lies within
E of a rounding midpoint is settled with mpmath at 40 digits. The result is
the correctly rounded (nearest-even) value for every input: over all 2^32
float32 inputs only a few thousand need mpmath.

This path (SciPy's erfcx + mpmath) is independent of the compiled float32
kernel in :mod:`gelu_lab.kernels`; the exhaustive checks compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import mpmath
import numpy as np

from . import numerics as nm
from .formats import Format, format_of, round_mpf, round_to_format, uncertain

# Below this |x| the true GELU (and both approximations) lies strictly above
# x/2 by less than a quarter ulp, so an exact tie at x/2 must round up.
TINY = 2.0**-30


@dataclass(frozen=True)
class Reference:
    name: str
    f64: Callable  # float64 evaluation
    mp: Callable  # mpmath evaluation of the mathematical function
    rel_err: Callable  # x -> bound on the relative error of f64
    ties_up_near_zero: bool


def _mp_tanh_arg(t):
    return mpmath.sqrt(2 / mpmath.pi) * (t + mpmath.mpf("0.044715") * t**3)


def _mp_tanh_form(t):
    return t / 2 * (1 + mpmath.tanh(_mp_tanh_arg(t)))


def _mp_tanh_form_grad(t):
    z = _mp_tanh_arg(t)
    dz = mpmath.sqrt(2 / mpmath.pi) * (1 + 3 * mpmath.mpf("0.044715") * t**2)
    return (1 + mpmath.tanh(z)) / 2 + t / 2 * dz * mpmath.sech(z) ** 2


_BETA = mpmath.mpf("1.702")


def _mp_sigmoid_form(t):
    return t / (1 + mpmath.exp(-_BETA * t))


def _mp_sigmoid_form_grad(t):
    s = 1 / (1 + mpmath.exp(-_BETA * t))
    return s + _BETA * t * s * (1 - s)


def _const(e):
    return lambda x: np.full(np.shape(x), e)


def _sigmoid_arg_bound(w):
    """Bound for x*sigmoid(w): the float64 constants differ from the decimal
    ones by ~1e-16 relative, and sigmoid(w) passes that on times |w|(1-sigmoid(w))."""
    with np.errstate(over="ignore", invalid="ignore"):
        b = 1e-14 + 1e-15 * np.abs(w) * nm.sigmoid(-w)
    return np.where(np.isfinite(b), b, 1e-14)


def _tanh_bound(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return _sigmoid_arg_bound(2 * nm.SQRT_2_OVER_PI * (x + nm.TANH_CUBIC * x**3))


def _sigmoid_bound(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return _sigmoid_arg_bound(nm.SIGMOID_BETA * x)


REFERENCES = {
    r.name: r
    for r in [
        Reference("gelu", nm.gelu_exact, lambda t: t * mpmath.ncdf(t), _const(1e-14), True),
        Reference(
            "gelu_grad",
            nm.gelu_exact_grad,
            lambda t: mpmath.ncdf(t) + t * mpmath.npdf(t),
            _const(1e-14),
            False,
        ),
        Reference("gelu_tanh", nm.gelu_tanh, _mp_tanh_form, _tanh_bound, True),
        Reference("gelu_tanh_grad", nm.gelu_tanh_grad, _mp_tanh_form_grad, _tanh_bound, False),
        Reference("gelu_sigmoid", nm.gelu_sigmoid, _mp_sigmoid_form, _sigmoid_bound, True),
        Reference(
            "gelu_sigmoid_grad", nm.gelu_sigmoid_grad, _mp_sigmoid_form_grad, _sigmoid_bound, False
        ),
    ]
}


def settle(name: str, x, fmt: Format) -> np.ndarray:
    """Correctly rounded values at the (few) inputs x by mpmath, as float64."""
    ref = REFERENCES[name]
    out = np.empty(len(x), dtype=np.float64)
    with mpmath.workdps(40):
        for i, xi in enumerate(np.asarray(x, dtype=np.float64)):
            t = ref.mp(mpmath.mpf(float(xi)))
            tie_up = ref.ties_up_near_zero and abs(xi) < TINY
            out[i] = round_mpf(t, fmt, tie_up=tie_up)
    return out


def correctly_rounded(name: str, x, dtype=None) -> np.ndarray:
    """The correctly rounded value of function `name` at x, in x's dtype.

    name: one of REFERENCES (gelu, gelu_grad, gelu_tanh, gelu_tanh_grad,
    gelu_sigmoid, gelu_sigmoid_grad). dtype: float16, bfloat16 or float32
    (default: x's own). Returns an array of that dtype; `x` must be exactly
    representable in it.
    """
    if name not in REFERENCES:
        raise ValueError(f"no reference for {name!r}; choose from {', '.join(REFERENCES)}")
    x = np.asarray(x)
    fmt = format_of(dtype if dtype is not None else x.dtype)
    if fmt.p == 53:
        raise ValueError("float64 has no correctly rounded reference here (use mpmath)")
    ref = REFERENCES[name]
    with np.errstate(all="ignore"):
        xf = x.astype(np.float64).ravel()
        y = ref.f64(xf)
        out = round_to_format(y, fmt).astype(np.float64)
        idx = np.flatnonzero(uncertain(y, ref.rel_err(xf), fmt))
    if idx.size:
        out[idx] = settle(name, xf[idx], fmt)
    return out.astype(fmt.dtype).reshape(x.shape)
