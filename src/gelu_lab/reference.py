"""Correctly rounded reference values of GELU and its approximations.

For a target format (float16, bfloat16, float32) the value is computed in
float64 by :mod:`gelu_lab.numerics` (relative error below a stated bound E),
rounded once to the target, and every input whose float64 value lies within
E of a rounding midpoint is settled with mpmath at 40 digits. The result is
the correctly rounded (nearest-even) value for every input: over all 2^32
float32 inputs only a few thousand need mpmath.

For float32 GELU and GELU' the float64 value comes from libm's erfc and exp
in a compiled, parallel loop (``_libm_f32``): each element carries its own
error bound, so an exhaustive sweep of all 2^32 inputs is practical. Elsewhere it comes from
:mod:`gelu_lab.numerics` (SciPy's erfcx). Both are independent of the
polynomial float32 kernel in :mod:`gelu_lab.kernels`; the exhaustive checks
compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import math
import types

import numba
import numpy as np

from . import numerics as nm
from .rounding import round_flag
from .numerics import TINY
from .floats import FORMATS, Format, format_of, mp_context, round_known, round_mpf



@dataclass(frozen=True)
class Reference:
    name: str
    f64: Callable  # float64 evaluation
    mp: Callable  # (mpmath context, t) -> the mathematical function at t, in that context
    rel_err: Callable  # x -> bound on the relative error of f64
    ties_up_near_zero: bool


def _mp_tanh_arg(c, t):
    return c.sqrt(2 / c.pi) * (t + c.mpf("0.044715") * t**3)


def _mp_sig(c, w):
    return 1 / (1 + c.exp(-w))


# (1 + tanh z)/2 = sigmoid(2z): the same function, without 1 + tanh cancelling
# at any working precision for z << 0
def _mp_tanh_form(c, t):
    return t * _mp_sig(c, 2 * _mp_tanh_arg(c, t))


def _mp_tanh_form_grad(c, t):
    z = _mp_tanh_arg(c, t)
    dz = c.sqrt(2 / c.pi) * (1 + 3 * c.mpf("0.044715") * t**2)
    s, s_neg = _mp_sig(c, 2 * z), _mp_sig(c, -2 * z)
    return s + 2 * t * dz * s * s_neg


_BETA = "1.702"  # read at the working precision of each evaluation (an mpf made at import would keep the import's)


def _mp_sigmoid_form(c, t):
    return t / (1 + c.exp(-c.mpf(_BETA) * t))


def _mp_sigmoid_form_grad(c, t):
    beta = c.mpf(_BETA)
    s = 1 / (1 + c.exp(-beta * t))
    return s + beta * t * s * (1 - s)


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
        Reference("gelu", nm.gelu_exact, lambda c, t: t * c.ncdf(t), _const(1e-14), True),
        Reference(
            "gelu_grad",
            nm.gelu_exact_grad,
            lambda c, t: c.ncdf(t) + t * c.npdf(t),
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
    with mp_context(40) as c:  # this thread's own: mpmath.workdps would set every thread's precision
        for i, xi in enumerate(np.asarray(x, dtype=np.float64)):
            t = ref.mp(c, c.mpf(float(xi)))
            tie_up = ref.ties_up_near_zero and abs(xi) < TINY
            out[i] = round_mpf(t, fmt, tie_up=tie_up)
    return out


_ULP = 2.0**-52  # float64 relative spacing


@numba.njit(parallel=True, cache=True)
def _libm_f32(x, grad, root, rc, out, flags):
    """float64 GELU (grad=False) or GELU' (grad=True) by libm, rounded to float32.

    Q = erfc(u)/2, u = |x|/sqrt2 (rounded: relative sensitivity 2u^2 ulp),
    phi = exp(-x^2/2)/sqrt(2 pi) with x^2 exact for float32 x. Each element's
    relative error bound (errors of erfc <= 8 ulp, exp <= 2 ulp, plus the
    argument's, over the size of the result) decides the flag.
    """
    for i in numba.prange(x.size):
        xi = np.float64(x[i])
        a = abs(xi)
        u = a * 0.7071067811865476
        q = 0.5 * math.erfc(u)
        eq = (8.0 + 2.0 * u * u + 2.0) * _ULP * q  # absolute error of q
        if not grad:
            y = xi * q if xi < 0 else xi * (1.0 - q)
            err = abs(xi) * eq + 2.0 * _ULP * abs(y)
        else:
            xphi = xi * math.exp(-0.5 * (xi * xi)) * 0.3989422804014327
            y = (q if xi < 0 else 1.0 - q) + xphi
            err = eq + 4.0 * _ULP * abs(xphi) + 2.0 * _ULP * abs(y)
            d = (xi - root[0]) - root[1]
            if abs(d) < 0.25:  # Phi + x phi cancels near its zero: the Taylor series
                p = 0.0
                for k in range(rc.size - 1, -1, -1):
                    p = p * d + rc[k]
                y = p
                err = 8.0 * _ULP * abs(y)
        if y == 0.0 and xi < 0:  # both terms underflowed: the truth is negative
            y = -0.0
        if xi != xi:
            y = xi
            err = 0.0
        elif a == np.inf:
            y = (xi if not grad else 1.0) if xi > 0 else -0.0
            err = 0.0
        round_flag(xi, y, y - err, y + err, out, flags, i)


def _serial_copy(f, name: str):
    """f's Python function under another name: numba's cache files are named by the function's
    qualified name, not by its flags, so a serial build of the very same function would load the
    parallel build's cached machine code (and so start numba's threads after all)."""
    g = types.FunctionType(f.__code__, f.__globals__, name, f.__defaults__, f.__closure__)
    g.__qualname__ = name
    return g


# the same loop in one thread, for the few inputs a kernel leaves undecided: starting
# numba's parallel region costs more than they do, and its OpenMP workers then spin
# on the cores the next kernel call wants (2 threads ran at half the speed of 1)
_libm_f32_serial = numba.njit(cache=True)(_serial_copy(_libm_f32.py_func, "_libm_f32_serial"))
SERIAL_BELOW = 1 << 16


def _correct_f32_libm(name: str, x: np.ndarray) -> np.ndarray:
    xs = np.ascontiguousarray(x, dtype=np.float32).ravel()
    out = np.empty_like(xs)
    flags = np.empty(xs.size, dtype=np.bool_)
    hi, lo, c = nm.grad_root_series()
    loop = _libm_f32_serial if xs.size < SERIAL_BELOW else _libm_f32
    loop(xs, name == "gelu_grad", np.array([hi, lo]), c, out, flags)
    idx = np.flatnonzero(flags)
    if idx.size:
        out[idx] = settle(name, xs[idx], FORMATS["float32"])
    return out.reshape(x.shape)


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
    if fmt.name == "float32" and name in ("gelu", "gelu_grad"):
        return _correct_f32_libm(name, x)
    ref = REFERENCES[name]
    with np.errstate(all="ignore"):
        xf = x.astype(np.float64).ravel()
        y = ref.f64(xf)
        tie_up = (np.abs(xf) < TINY) if ref.ties_up_near_zero else None
        out, undecided = round_known(y, ref.rel_err(xf), fmt, up_where=tie_up)
        out = out.astype(np.float64)
        idx = np.flatnonzero(undecided)
    if idx.size:
        out[idx] = settle(name, xf[idx], fmt)
    return out.astype(fmt.dtype).reshape(x.shape)
