"""Compiled float32 kernels of the exact GELU and its derivative, correctly rounded.

Each float32 input is widened to float64 and evaluated with no libm call and
no table lookup, so the loop vectorises (numba, AVX2, parallel over threads):

    Q(a)  = 0.5 * erfcx(a/sqrt2) * e * e,   e = exp(-a^2/4),   a = |x|
    GELU  = x (1 - Q)       (x >= 0)        x Q            (x < 0)
    GELU' = (1 - Q) + x phi (x >= 0)        Q + x phi      (x < 0)

* a^2 is exact in float64 for float32 a, so exp(-a^2/4) has an exact argument;
  exp is Cody-Waite reduction, a degree-13 Taylor polynomial, and 2^k built
  from its bits.
* erfcx(u) on [0, 10.75] is one degree-12 polynomial in t, where
  y = (u - 2)/(u + 2) maps [0, 10.75] onto [-1, 0.69] and t rescales y to
  [-1, 1]: the map turns erfcx's 1/u tail into something a polynomial fits
  (max relative error 1.3e-10). Coefficients: Chebyshev interpolation of
  SciPy's erfcx, converted to monomials (all below 0.43, so Horner is stable).
* GELU' near its root x0 = -0.75179... is the Taylor series of
  :func:`gelu_lab.numerics.grad_root_series` in (x - x0).

The float64 value is within REL_ERR = 5e-10 of the truth (erfcx fit 1.3e-10,
exp 1e-11): a cheap first tier. It is rounded once to float32; an input is
flagged when the ends of its error interval round differently, i.e. this tier
cannot decide. Flagged inputs (about 1 % of N(0, 9) data) go to
:func:`gelu_lab.reference.correctly_rounded` (libm with a tight bound, then
mpmath): cheaper in all than a first tier accurate enough to flag none. Beyond |x| = 15 both functions are
their float32 limits (x or -0; 1 or -0).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic
from scipy import special

from . import numerics as nm

REL_ERR = 5e-10  # bound on the relative error of the float64 value
A_CUT = 15.0  # beyond |x| = 15 the float32 results are the limits
TINY = nm.TINY

_U_MAX = 10.75  # A_CUT / sqrt2 < 10.75
_MAP_K = 2.0
_Y_HI = (_U_MAX - _MAP_K) / (_U_MAX + _MAP_K)
_Y_MID, _Y_HALF = (_Y_HI - 1.0) / 2, (_Y_HI + 1.0) / 2
_ERFCX_DEG = 12
_ROOT_DEG = 14
_ROOT_RADIUS = 1.0 / 16

# kernels are compiled with FMA contraction only: no reassociation, IEEE otherwise
_FLAGS = dict(error_model="numpy", fastmath={"contract"}, cache=True)


def _erfcx_coefficients() -> np.ndarray:
    def f(t):
        y = t * _Y_HALF + _Y_MID
        return special.erfcx(_MAP_K * (1 + y) / (1 - y))

    cheb = np.polynomial.chebyshev.chebinterpolate(f, _ERFCX_DEG)
    return np.polynomial.chebyshev.cheb2poly(cheb)


def _four_chains(c: np.ndarray) -> np.ndarray:
    """Coefficients c_0..c_n as a (4, m) array: row r holds c_r, c_{r+4}, c_{r+8}, ..."""
    m = -(-len(c) // 4)
    padded = np.zeros(4 * m)
    padded[: len(c)] = c
    return np.ascontiguousarray(padded.reshape(m, 4).T)


_ERFCX = _four_chains(_erfcx_coefficients())  # frozen into the compiled code as constants
_EXP_TAYLOR = _four_chains(np.array([1.0 / math.factorial(k) for k in range(11)]))
_ROOT_HI, _ROOT_LO, _ROOT_SERIES = nm.grad_root_series()
_ROOT_C = _four_chains(_ROOT_SERIES[: _ROOT_DEG + 1])


def _bitcast(to, frm):
    """A numba intrinsic reinterpreting the 64 bits of a `frm` value as `to` (no conversion)."""

    @intrinsic
    def cast(typingctx, v):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], context.get_value_type(to))

        return to(frm), codegen

    return cast


_bits_to_f64 = _bitcast(types.float64, types.int64)
_f64_to_bits = _bitcast(types.int64, types.float64)


@numba.njit(inline="always", **_FLAGS)
def _poly(c4, t):
    """sum_k c_k t^k from _four_chains(c): four independent Horner chains in t^4.

    One chain of 20 fused multiply-adds waits ~100 cycles on itself; four
    chains of 5 overlap, and the vector units stay busy.
    """
    t2 = t * t
    t4 = t2 * t2
    m = c4.shape[1]
    p0, p1, p2, p3 = c4[0, m - 1], c4[1, m - 1], c4[2, m - 1], c4[3, m - 1]
    for j in range(m - 2, -1, -1):
        p0 = p0 * t4 + c4[0, j]
        p1 = p1 * t4 + c4[1, j]
        p2 = p2 * t4 + c4[2, j]
        p3 = p3 * t4 + c4[3, j]
    return (p0 + t * p1) + t2 * (p2 + t * p3)


_ROUND_MAGIC = 6755399441055744.0  # 1.5 * 2^52: z + magic rounds z to an integer k
_MAGIC_BITS = 0x4338000000000000  # the bits of magic; bits(z + magic) = _MAGIC_BITS + k


@numba.njit(inline="always", **_FLAGS)
def _exp_nonpos(z):
    """exp(z) for z in [-708, 0], about 1 ulp.

    k = round(z / ln2) and 2^k are read off the bits of z/ln2 + 1.5*2^52
    (AVX2 has no packed float64 -> int64 conversion; integer adds and shifts it has).
    """
    t = z * 1.4426950408889634 + _ROUND_MAGIC
    k = t - _ROUND_MAGIC
    r = (z - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10  # fdlibm's ln2 split
    return _poly(_EXP_TAYLOR, r) * _bits_to_f64((_f64_to_bits(t) - _MAGIC_BITS + 1023) << 52)


@numba.njit(inline="always", **_FLAGS)
def _half_erfcx_and_e(a):
    """(0.5 erfcx(a/sqrt2), exp(-a^2/4)) for float32 values 0 <= a <= A_CUT."""
    u = a * nm.INV_SQRT2
    t = ((u - _MAP_K) / (u + _MAP_K) - _Y_MID) * (1.0 / _Y_HALF)
    return 0.5 * _poly(_ERFCX, t), _exp_nonpos(-0.25 * (a * a))


@numba.njit(inline="always", **_FLAGS)
def round_flag(x, y, err, out, flags, i):
    """Round y (known to within err) to float32 into out[i]; flag if undecided.

    Rounding is monotone, so if y - err and y + err round alike, so does the
    truth. For |x| < TINY an undecided value is an exact tie at x/2 with the
    truth just above it: it rounds up. Shared by every float32 kernel.
    """
    lo = np.float32(y - err)
    hi = np.float32(y + err)
    undecided = lo != hi and y == y  # nan is decided: it stays nan
    tiny = abs(x) < TINY
    out[i] = hi if undecided and tiny else np.float32(y)
    flags[i] = undecided and not tiny


@numba.njit(parallel=True, **_FLAGS)
def _gelu_f32(x, out, flags):
    for i in numba.prange(x.size):
        xi = np.float64(x[i])
        a = min(abs(xi), A_CUT)  # nan -> A_CUT (comparisons with nan are false)
        h, e = _half_erfcx_and_e(a)
        q = (h * e) * e
        y = xi * q if xi < 0 else xi * (1.0 - q)
        if not abs(xi) < A_CUT:  # the limits, inf and nan
            y = xi if xi > 0 or xi != xi else -0.0
        round_flag(xi, y, abs(y) * REL_ERR, out, flags, i)


@numba.njit(parallel=True, **_FLAGS)
def _gelu_grad_f32(x, out, flags):
    for i in numba.prange(x.size):
        xi = np.float64(x[i])
        a = min(abs(xi), A_CUT)
        h, e = _half_erfcx_and_e(a)
        q = (h * e) * e
        xphi = ((xi * nm.INV_SQRT_2PI) * e) * e
        y = (q if xi < 0 else 1.0 - q) + xphi
        err = (q + abs(xphi)) * REL_ERR  # absolute: the two terms may cancel
        d = (xi - _ROOT_HI) - _ROOT_LO
        if abs(d) < _ROOT_RADIUS:
            y = _poly(_ROOT_C, d)
            err = abs(y) * 1e-14
        if not abs(xi) < A_CUT:
            y = 1.0 if xi > 0 else (-0.0 if xi < 0 else xi)
        round_flag(xi, y, err, out, flags, i)


@numba.njit(parallel=True, cache=True)
def _gather16(table, bits, out):
    for i in numba.prange(bits.size):
        out[i] = table[bits[i]]


def lookup16(table: np.ndarray, x: np.ndarray) -> np.ndarray:
    """table[bit pattern of x] for a 16-bit x: a parallel gather (the table is L2-resident)."""
    bits = np.ascontiguousarray(x).view(np.uint16).ravel()
    out = np.empty(bits.size, dtype=np.uint16)
    _gather16(table.view(np.uint16), bits, out)
    return out.view(table.dtype).reshape(np.shape(x))


def raw_f32(name: str, x: np.ndarray):
    """(float32 values, flags) from the kernel alone, before any settling."""
    x = np.ascontiguousarray(x, dtype=np.float32).ravel()
    out = np.empty_like(x)
    flags = np.empty(x.size, dtype=np.bool_)
    if name == "gelu":
        _gelu_f32(x, out, flags)
    elif name == "gelu_grad":
        _gelu_grad_f32(x, out, flags)
    else:
        raise ValueError(f"no float32 kernel for {name!r}")
    return out, flags


def correctly_rounded_f32(name: str, x: np.ndarray) -> np.ndarray:
    """Correctly rounded float32 `name`(x) ("gelu" or "gelu_grad"), shape kept."""
    from .reference import correctly_rounded

    out, flags = raw_f32(name, x)
    if flags.any():
        idx = np.flatnonzero(flags)
        out[idx] = correctly_rounded(name, np.ascontiguousarray(x, dtype=np.float32).ravel()[idx])
    return out.reshape(np.shape(x))
