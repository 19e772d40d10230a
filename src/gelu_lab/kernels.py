"""Compiled float32 kernels of the exact GELU and its derivative, correctly rounded.

Each float32 input is widened to float64 and evaluated with no libm call and
no table lookup, so the loop vectorises (numba, AVX2, parallel over threads):

    Q(a)  = h(a) E(a),  h = 0.5 erfcx(a/sqrt2),  E = exp(-a^2/2),  a = |x|
    GELU  = x - x Q       (x > 0)        x Q            (x <= 0)
    GELU' = (1 - Q) + x phi (x >= 0)     Q + x phi      (x < 0),   x phi = x E / sqrt(2 pi)

* a^2 is exact in float64 for float32 a, so E has an exact argument. exp is
  k = round(z / ln2) read off the bits of z/ln2 + 1.5*2^52, r = z - k ln2 in
  one fused multiply-add (|k| <= 163, so the error of ln2's double is below
  4e-15), a degree-9 Chebyshev interpolant of e^r on [-ln2/2, ln2/2]
  (max relative error 2e-14), and 2^k built from its bits.
* h on [0, A_CUT] is one degree-13 polynomial in y = (a - C)/(a + C),
  C = 2.8 sqrt2: the map turns erfcx's 1/u tail into something a polynomial
  fits (max relative error 4.9e-12; C was chosen by scanning). Coefficients:
  Chebyshev interpolation of SciPy's erfcx, converted to monomials in y (all
  below 0.35, so Horner is stable).
* Polynomials run as two Horner chains in t^2: this CPU (Zen 1) splits each
  256-bit operation in two and has 16 vector registers; two chains keep the
  multiply-add units busy without spilling (four chains measured 7 % slower,
  one chain 10 %).
* GELU' near its root x0 = -0.75179... is the Taylor series of
  :func:`gelu_lab.numerics.grad_root_series` in (x - x0).

The float64 value is within REL_ERR = 6e-12 of the truth (h 4.9e-12 +
exp 2e-14 + roundings ~1e-15; `tests/test_core_accuracy.py` checks both fits
against mpmath). It is rounded once to float32; an input is flagged when the
ends of its error interval round differently, i.e. the kernel cannot decide.
Flagged inputs (0.014 % of N(0, 4) data) go to
:func:`gelu_lab.reference.correctly_rounded` (libm with a tight bound, then
mpmath). Measured trade-off: a looser kernel (degrees 11 and 7, 3.5e-10) is
~0.7 ns per element cheaper to evaluate but flags 60 times as many inputs,
and finding and settling them costs more than that.
Beyond |x| = 15 both functions are their float32 limits (x or -0; 1 or -0).
The whole float32 range is verified exhaustively by `bench/exhaustive_float32.sh`.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic
from scipy import special

from . import numerics as nm

REL_ERR = 6e-12  # bound on the relative error of the float64 value
A_CUT = 15.0  # beyond |x| = 15 the float32 results are the limits
TINY = nm.TINY

_U_MAX = 10.75  # A_CUT / sqrt2 < 10.75
_MAP_K = 2.8
_MAP_C = _MAP_K * nm.SQRT2  # y = (a - C)/(a + C) = (u - K)/(u + K), u = a/sqrt2
_Y_HI = (_U_MAX - _MAP_K) / (_U_MAX + _MAP_K)
_ERFCX_DEG = 13
_EXP_DEG = 9
_ROOT_DEG = 15
_ROOT_RADIUS = 1.0 / 16
_LN2 = math.log(2.0)

# kernels are compiled with FMA contraction only: no reassociation, IEEE otherwise
_FLAGS = dict(error_model="numpy", fastmath={"contract"}, cache=True)


def _monomials(f, deg: int, lo: float, hi: float) -> np.ndarray:
    """Power-series coefficients (low first) of f's degree-`deg` Chebyshev interpolant on [lo, hi]."""
    p = np.polynomial.Chebyshev.interpolate(f, deg, domain=[lo, hi])
    return p.convert(kind=np.polynomial.Polynomial, domain=[-1, 1], window=[-1, 1]).coef


def half_erfcx_coefficients() -> np.ndarray:
    """h = 0.5 erfcx(u) as a polynomial in y = (u - K)/(u + K), y in [-1, _Y_HI]."""
    return _monomials(lambda y: 0.5 * special.erfcx(_MAP_K * (1 + y) / (1 - y)), _ERFCX_DEG, -1.0, _Y_HI)


def exp_coefficients() -> np.ndarray:
    """e^r as a polynomial in r on [-ln2/2, ln2/2]."""
    return _monomials(np.exp, _EXP_DEG, -_LN2 / 2, _LN2 / 2)


def _two_chains(c: np.ndarray) -> np.ndarray:
    """Coefficients c_0..c_n as a (2, m) array: row 0 holds c_0, c_2, ..., row 1 c_1, c_3, ..."""
    padded = np.zeros(2 * -(-len(c) // 2))
    padded[: len(c)] = c
    return np.ascontiguousarray(padded.reshape(-1, 2).T)


_H = _two_chains(half_erfcx_coefficients())  # frozen into the compiled code as constants
_EXP = _two_chains(exp_coefficients())
_ROOT_HI, _ROOT_LO, _ROOT_SERIES = nm.grad_root_series()
_ROOT_C = _two_chains(_ROOT_SERIES[: _ROOT_DEG + 1])


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
def _poly(c2, t):
    """sum_k c_k t^k from _two_chains(c): two independent Horner chains in t^2.

    One chain of 13 fused multiply-adds waits ~65 cycles on itself; two
    chains overlap, and the vector units stay busy.
    """
    t2 = t * t
    m = c2.shape[1]
    p0, p1 = c2[0, m - 1], c2[1, m - 1]
    for j in range(m - 2, -1, -1):
        p0 = p0 * t2 + c2[0, j]
        p1 = p1 * t2 + c2[1, j]
    return p0 + t * p1


_ROUND_MAGIC = 6755399441055744.0  # 1.5 * 2^52: z + magic rounds z to an integer k
_MAGIC_BITS = 0x4338000000000000  # the bits of magic; bits(z + magic) = _MAGIC_BITS + k


@numba.njit(inline="always", **_FLAGS)
def _exp_nonpos(z):
    """exp(z) for z in [-708, 0], relative error 2e-14.

    k = round(z / ln2) and 2^k are read off the bits of z/ln2 + 1.5*2^52
    (AVX2 has no packed float64 -> int64 conversion; integer adds and shifts it has).
    """
    t = z * 1.4426950408889634 + _ROUND_MAGIC
    k = t - _ROUND_MAGIC
    r = z - k * _LN2  # one fused multiply-add: k ln2 is not rounded
    return _poly(_EXP, r) * _bits_to_f64((_f64_to_bits(t) - _MAGIC_BITS + 1023) << 52)


@numba.njit(inline="always", **_FLAGS)
def half_erfcx_and_exp(a):
    """(0.5 erfcx(a/sqrt2), exp(-a^2/2)) for float32 values 0 <= a <= A_CUT."""
    return _poly(_H, (a - _MAP_C) / (a + _MAP_C)), _exp_nonpos(-0.5 * (a * a))


@numba.njit(inline="always", **_FLAGS)
def round_flag(x, y, lo, hi, out, flags, i):
    """Round y to float32 into out[i], knowing the truth lies between lo and hi; flag if undecided.

    Rounding is monotone, so if lo and hi round alike, so does the truth. For
    |x| < TINY an undecided value is an exact tie at x/2 with the truth just
    above it: it rounds up. Shared by every float32 kernel.
    """
    lo32 = np.float32(lo)
    hi32 = np.float32(hi)
    undecided = lo32 != hi32 and y == y  # nan is decided: it stays nan
    tiny = abs(x) < TINY
    out[i] = max(lo32, hi32) if undecided and tiny else np.float32(y)
    flags[i] = undecided and not tiny


@numba.njit(parallel=True, **_FLAGS)
def _gelu_f32(x, out, flags):
    for i in numba.prange(x.size):
        xi = np.float64(x[i])
        a = min(abs(xi), A_CUT)  # nan -> A_CUT (comparisons with nan are false)
        h, e = half_erfcx_and_exp(a)
        # beyond A_CUT (infinities included) x is replaced by +-A_CUT in x Q: the
        # results are then x (x > 0) and -15 Q(15) = -5e-50, which rounds to -0
        xq = math.copysign(a, xi) * (h * e)
        y = xq if xi <= 0 else xi - xq  # <= : GELU(-0) = -0
        round_flag(xi, y, y * (1.0 - REL_ERR), y * (1.0 + REL_ERR), out, flags, i)


@numba.njit(parallel=True, **_FLAGS)
def _gelu_grad_f32(x, out, flags):
    for i in numba.prange(x.size):
        xi = np.float64(x[i])
        a = min(abs(xi), A_CUT)
        h, e = half_erfcx_and_exp(a)
        q = h * e
        xphi = (xi * nm.INV_SQRT_2PI) * e
        y = (q if xi < 0 else 1.0 - q) + xphi
        err = (q + abs(xphi)) * REL_ERR  # absolute: the two terms may cancel
        d = (xi - _ROOT_HI) - _ROOT_LO
        if abs(d) < _ROOT_RADIUS:
            y = _poly(_ROOT_C, d)
            err = abs(y) * 1e-14
        if not abs(xi) < A_CUT:
            y = 1.0 if xi > 0 else (-0.0 if xi < 0 else xi)
        round_flag(xi, y, y - err, y + err, out, flags, i)


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


def raw_f32(name: str, x: np.ndarray, out: np.ndarray | None = None):
    """(float32 values, indices of the flagged ones) from the kernel alone, before any settling.

    x is read as a flat float32 array; `out`, if given, is a C-contiguous
    float32 array of x's size that receives the values.
    """
    x = np.ascontiguousarray(x, dtype=np.float32).ravel()
    out = np.empty_like(x) if out is None else out.reshape(-1)
    flags = np.empty(x.size, dtype=np.bool_)
    if name == "gelu":
        _gelu_f32(x, out, flags)
    elif name == "gelu_grad":
        _gelu_grad_f32(x, out, flags)
    else:
        raise ValueError(f"no float32 kernel for {name!r}")
    return out, np.flatnonzero(flags)


def correctly_rounded_f32(name: str, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded float32 `name`(x) ("gelu" or "gelu_grad"), shape kept.

    `out`: a C-contiguous float32 array of x's shape to write into (returned).
    """
    from .reference import correctly_rounded

    shape = np.shape(x)
    x = np.ascontiguousarray(x, dtype=np.float32).ravel()
    y, idx = raw_f32(name, x, out)
    if idx.size:
        y[idx] = correctly_rounded(name, x[idx])
    return y.reshape(shape) if out is None else out
