"""Compiled float32 kernels of the exact GELU and its derivative, correctly rounded.

Each float32 input is widened to float64 and evaluated with no libm call, so
the loop vectorises (numba, parallel over threads):

    Q(a)  = 0.5 * erfcx(a/sqrt2) * e * e,   e = exp(-a^2/4),   a = |x|
    GELU  = x (1 - Q)       (x >= 0)        x Q            (x < 0)
    GELU' = (1 - Q) + x phi (x >= 0)        Q + x phi      (x < 0)

* a^2 is exact in float64 for float32 a, so exp(-a^2/4) has an exact argument;
  exp is Cody-Waite reduction plus a degree-13 Taylor polynomial, 2^k built
  from its bits.
* erfcx on [0, 10.75] is a table of 43 degree-12 polynomials, interpolated at
  Chebyshev points from SciPy's erfcx when the module is first used.
* GELU' near its root x0 = -0.75179... is the Taylor series of
  :func:`gelu_lab.numerics.grad_root_series` in (x - x0).

The float64 value is within REL_ERR of the truth; it is rounded once to
float32, and an input is flagged when the rounding of y(1 - REL_ERR) and
y(1 + REL_ERR) differ: it lies so near a rounding midpoint that float64 cannot
decide. Flagged inputs (a few per million) are settled by mpmath in
:func:`gelu_lab.reference.settle`. Beyond |x| = 15 both functions are their
limits in float32 (x or -0; 1 or -0).
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic
from scipy import special

from . import numerics as nm

REL_ERR = 2e-14  # bound on the relative error of the float64 value (measured ~2e-15)
A_CUT = 15.0  # beyond |x| = 15 the float32 results are the limits
_H = 0.25  # width of an erfcx interval in u = a/sqrt2
_NSEG = 43  # covers u in [0, 10.75]
_DEG = 12
_ROOT_DEG = 14
_ROOT_RADIUS = 1.0 / 16

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of ln 2: k*_LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_EXP_TAYLOR = np.array([1.0 / math.factorial(k) for k in range(14)])


@intrinsic
def _bits_to_f64(typingctx, v):
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return sig, codegen


@functools.cache
def erfcx_table() -> np.ndarray:
    """Monomial coefficients in t in [-1, 1] of erfcx on each u-interval."""
    table = np.empty((_NSEG, _DEG + 1))
    for j in range(_NSEG):
        c = (j + 0.5) * _H
        cheb = np.polynomial.chebyshev.chebinterpolate(
            lambda t: special.erfcx(c + t * _H / 2), _DEG
        )
        table[j] = np.polynomial.chebyshev.cheb2poly(cheb)
    return table


@numba.njit(inline="always", fastmath=False)
def _exp_nonpos(z):
    """exp(z) for z in [-708, 0], about 1 ulp."""
    k = math.floor(z * _LOG2E + 0.5)
    r = (z - k * _LN2_HI) - k * _LN2_LO
    p = _EXP_TAYLOR[13]
    for i in range(12, -1, -1):
        p = p * r + _EXP_TAYLOR[i]
    return p * _bits_to_f64(np.int64(k + 1023) << 52)


@numba.njit(inline="always")
def _q_and_e(a, table):
    """(0.5*erfcx(a/sqrt2), exp(-a^2/4)) for 0 <= a <= A_CUT (a float32 value)."""
    u = a * nm.INV_SQRT2
    j = min(int(u * (1.0 / _H)), _NSEG - 1)
    t = (u - (j + 0.5) * _H) * (2.0 / _H)
    p = table[j, _DEG]
    for i in range(_DEG - 1, -1, -1):
        p = p * t + table[j, i]
    return 0.5 * p, _exp_nonpos(-0.25 * (a * a))


@numba.njit(inline="always")
def _round_flag(y, out, flags, i):
    out[i] = np.float32(y)
    lo = np.float32(y * (1.0 - REL_ERR))
    hi = np.float32(y * (1.0 + REL_ERR))
    flags[i] = lo != hi


@numba.njit(parallel=True, fastmath=False, cache=True)
def _gelu_f32(x, out, flags, table):
    for i in numba.prange(x.size):
        xi = np.float64(x[i])
        a = min(abs(xi), A_CUT)  # nan -> A_CUT (comparisons with nan are false)
        h, e = _q_and_e(a, table)
        q = (h * e) * e
        y = xi * q if xi < 0 else xi * (1.0 - q)
        if not abs(xi) < A_CUT:  # the limits, inf and nan
            y = xi if xi > 0 or xi != xi else -0.0
        _round_flag(y, out, flags, i)


@numba.njit(parallel=True, fastmath=False, cache=True)
def _gelu_grad_f32(x, out, flags, table, root, rc):
    for i in numba.prange(x.size):
        xi = np.float64(x[i])
        a = min(abs(xi), A_CUT)
        h, e = _q_and_e(a, table)
        q = (h * e) * e
        xphi = ((xi * nm.INV_SQRT_2PI) * e) * e
        y = (q if xi < 0 else 1.0 - q) + xphi
        d = (xi - root[0]) - root[1]
        p = rc[_ROOT_DEG]
        for k in range(_ROOT_DEG - 1, -1, -1):
            p = p * d + rc[k]
        if abs(d) < _ROOT_RADIUS:
            y = p
        if not abs(xi) < A_CUT:
            y = 1.0 if xi > 0 else (-0.0 if xi < 0 else xi)
        _round_flag(y, out, flags, i)


def _root():
    hi, lo, c = nm.grad_root_series()
    return np.array([hi, lo]), np.ascontiguousarray(c[: _ROOT_DEG + 1])


def raw_f32(name: str, x: np.ndarray):
    """(float32 values, flags) from the kernel alone, before any settling."""
    x = np.ascontiguousarray(x, dtype=np.float32).ravel()
    out = np.empty_like(x)
    flags = np.empty(x.size, dtype=np.bool_)
    if name == "gelu":
        _gelu_f32(x, out, flags, erfcx_table())
    elif name == "gelu_grad":
        _gelu_grad_f32(x, out, flags, erfcx_table(), *_root())
    else:
        raise ValueError(f"no float32 kernel for {name!r}")
    return out, flags


def correctly_rounded_f32(name: str, x: np.ndarray) -> np.ndarray:
    """Correctly rounded float32 `name`(x) ("gelu" or "gelu_grad"), shape kept."""
    from .formats import FORMATS
    from .reference import settle

    out, flags = raw_f32(name, x)
    if flags.any():
        idx = np.flatnonzero(flags)
        xs = np.ascontiguousarray(x, dtype=np.float32).ravel()[idx]
        out[idx] = settle(name, xs, FORMATS["float32"])
    return out.reshape(np.shape(x))
