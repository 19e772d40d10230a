"""The float64 tiers of gelu_lab.gpu: a value with a bound on its error, rounded once where the bound decides.

    main_exact(xf, tab, ebits, ORDER)  the exact form's value and derivative: native.c's main pass
    formula(xf, FORM, ORDER, ...)      every other form and order: the formula with gelu_lab.torch._f64's bound
    tight(xf, tt, ORDER)               the exact form again, by the CPU kernels' TIGHT tier (Q = h(|x|) exp(-x^2/2))

Each returns (float32 value, undecided). The tables' layouts are the offsets below (gelu_lab.gpu
fills the tables by them): `tab`, one function's main pass, and `tt`, the TIGHT tier.

The kernels are launched without contraction of a*b + c: every fused multiply-add is a tl.fma
(always fused on the GPU; Triton's interpreter computes it as a product then a sum, an error
the bounds cover), so a value is computed the same way wherever it is computed again.
"""

from __future__ import annotations

import triton
import triton.language as tl

from .. import numerics as nm

# the forms' constants and the float64 formulas' bound, as gelu_lab.numerics has them
K2, C, BETA, INV_SQRT_2PI = (tl.constexpr(v) for v in (2.0 * nm.SQRT_2_OVER_PI, nm.TANH_CUBIC, nm.SIGMOID_BETA, nm.INV_SQRT_2PI))
B_BASE, B_X2_SLOPE, B_X2_CAP, B_Z_SLOPE, B_Z_CAP, B_FLOOR = (
    tl.constexpr(v) for v in (nm.BOUND_BASE, *nm.BOUND_X2, *nm.BOUND_Z, nm.BOUND_FLOOR))

# tab: C[j][k] at C_AT + 16 j + k (j = 0..8, sub-range k = 0..15), then W, 1/W, SAT, ZERO, x0 (hi, lo)
C_AT, W_AT, INVW_AT, SAT_AT, ZERO_AT, X0_AT, TAB_LEN = (tl.constexpr(v) for v in (0, 144, 145, 146, 147, 148, 150))
# tt: h's two Horner rows (2 x 7), exp's (2 x 5), the map constant, the bound, the root series' rows (2 x 8),
# its radius, A_CUT, TINY, 1/sqrt(2 pi), x0 (hi, lo)
H_AT, E_AT, MAPC_AT, REL_AT, ROOT_AT, RADIUS_AT, ACUT_AT, TINY_AT, ISQ2PI_AT, TX0_AT, TT_LEN = (
    tl.constexpr(v) for v in (0, 14, 24, 25, 26, 42, 43, 44, 45, 46, 48))
MAGIC = tl.constexpr(6755399441055744.0)  # 1.5 2^52: z + MAGIC holds round(z) in its low bits (a float32 value too)
LN2, LOG2E = tl.constexpr(0.6931471805599453), tl.constexpr(1.4426950408889634)

# Triton makes a Python float that is not an operand of + - * / a float32 constant (tl.full(.., float64)
# does not), a -0.0 literal +0, and -x is 0 - x (so -(+0) is +0); and a select between 1.0 and -0.0
# came out as +0 on an H200: a choice of a signed zero or a limit is made on the float32 bits
# (-2147483648 is -0.0, 0x3F800000 is 1.0).


@triton.jit
def horner8(tab, i, t):
    """sum c_j[i] t^j, j = 0..8 (coefficient j of sub-range i at tab[C_AT + 16 j + i]). Horner, not native.c's
    Estrin: each thread runs several inputs, whose chains overlap, and Horner has two multiplications fewer."""
    p = tl.load(tab + C_AT + 128 + i)
    for jj in tl.static_range(8):
        p = tl.fma(p, t, tl.load(tab + C_AT + 112 - 16 * jj + i))
    return p


@triton.jit
def main_exact(xf, tab, ebits, ORDER: tl.constexpr):
    """native.c's main_avx512_body on float32 xf: (float32 value, listed).

    |x| < SAT: P(t) on sub-range i = round(|x| / W), GELU = xpos - |x| P, GELU' = d P (x <= 0) or
    1 - d P, d = -|x| - x0; rounded once, and listed unless the 29 bits the rounding drops lie more
    than EBITS[i] units of g's last place from the midpoint (Ziv's test on the bits). x >= SAT: the
    limit (x or 1); x < ZERO: -0; the rest (the tail, nan, for GELU |x| < 2^-100) listed.
    """
    sat = tl.load(tab + SAT_AT).to(tl.float32)
    xb = xf.to(tl.int32, bitcast=True)
    ab = xb & 0x7FFFFFFF
    main = ab < sat.to(tl.int32, bitcast=True)  # |x| < SAT; nan is not
    if ORDER == 0:
        main = main & (ab >= 0x0D800000)  # |x| >= 2^-100: GELU is a float32 normal
    a = tl.abs(xf).to(tl.float64)
    na = -a
    s = tl.fma(na, -tl.load(tab + INVW_AT), MAGIC)  # MAGIC + round(|x| / W) in the low bits
    t = tl.fma(s - MAGIC, tl.load(tab + W_AT), na)  # -|x| + k W, exact
    i = (s.to(tl.int64, bitcast=True) & 15).to(tl.int32)
    p = horner8(tab, i, t)
    if ORDER == 0:
        g = tl.fma(na, p, tl.where(xf > 0, a, 0.0))  # GELU(x) = xpos + GELU(-|x|)
    else:
        g = ((na - tl.load(tab + X0_AT)) - tl.load(tab + X0_AT + 1)) * p  # GELU'(-|x|)
        g = tl.where(xf > 0, 1.0 - g, g)
    low = (g.to(tl.int64, bitcast=True) & 0x1FFFFFFF).to(tl.int32)
    decided = tl.abs(low - 0x10000000) > tl.load(ebits + i)
    vb = g.to(tl.float32).to(tl.int32, bitcast=True)
    high = xf >= sat
    zero = xf < tl.load(tab + ZERO_AT).to(tl.float32)
    if ORDER == 0:
        vb = tl.where(high, xb, vb)
    else:
        vb = tl.where(high, 0x3F800000, vb)  # 1.0
    vb = tl.where(zero, -2147483648, vb)  # -0.0
    return vb.to(tl.float32, bitcast=True), ~(main & decided) & ~high & ~zero


@triton.jit
def formula(xf, FORM: tl.constexpr, ORDER: tl.constexpr):
    """A form's ORDER-th derivative in float64 with a bound on its error (gelu_lab.torch's _f64):
    (float32 value, listed: the bound does not decide it). |x| > 1e3 and nan: their limits."""
    x = xf.to(tl.float64)
    if FORM == 0:  # the exact form's second derivative, (2 - x^2) phi
        xx = x * x
        p = tl.exp(-0.5 * xx) * INV_SQRT_2PI
        y = (2.0 - xx) * p
        scale = (2.0 + xx) * p
        rel = (B_BASE + B_X2_SLOPE * tl.minimum(xx, B_X2_CAP)) * 1.1102230246251565e-16  # 2^-53
    else:
        if FORM == 1:
            xx = x * x
            z = K2 * (x + C * xx * x)
            dz = K2 * (1.0 + 3.0 * C * xx)
            ddz = (6.0 * K2 * C) * x
        else:
            z = BETA * x
            dz = x * 0.0 + BETA
            ddz = x * 0.0
        s = 1.0 / (1.0 + tl.exp(-z))
        if ORDER == 0:
            y = x * s
            scale = tl.abs(y)
        else:
            ss = s / (1.0 + tl.exp(z))  # s(1 - s) without cancelling
            if ORDER == 1:
                b = x * dz * ss
                y = s + b
                scale = s + tl.abs(b)
            else:
                t1 = 2.0 * dz
                t2 = x * ddz
                t3 = x * dz * dz
                y = ss * (t1 + t2 + t3 * (1.0 - 2.0 * s))
                scale = ss * (tl.abs(t1) + tl.abs(t2) + tl.abs(t3))
        rel = (B_BASE + B_Z_SLOPE * tl.minimum(tl.abs(z), B_Z_CAP)) * 1.1102230246251565e-16
    bound = rel * scale + tl.where(x != 0.0, B_FLOOR, 0.0)  # float64's underflow
    lo32 = (y - bound).to(tl.float32)
    hi32 = (y + bound).to(tl.float32)
    sign_lo = lo32.to(tl.int32, bitcast=True) < 0
    sign_hi = hi32.to(tl.int32, bitcast=True) < 0
    # not y - y != 0 for "not finite": contracted into fma(x, s, -x s) on the GPU, that is the product's error
    listed = (lo32 != hi32) | (sign_lo != sign_hi) | ~(tl.abs(y) <= 1.7976931348623157e308)
    # the limits: of numerics' x sigmoid(z) rows beyond 1e3; GELU'' beyond 15 is negative and below 2^-151
    if FORM == 0:
        big = tl.abs(xf) >= 15.0
    else:
        big = tl.abs(xf) > 1000.0
    xb = xf.to(tl.int32, bitcast=True)
    if ORDER == 0:
        lim = tl.where(xf > 0, xb, -2147483648)  # x, or -0 (the zeros by their bits: see _neg0)
    elif ORDER == 1:
        lim = tl.where(xf > 0, 0x3F800000, -2147483648)  # 1, or -0
    else:
        lim = tl.full(xf.shape, -2147483648, tl.int32)
    vb = tl.where(big, lim, tl.where(xf != xf, xb, hi32.to(tl.int32, bitcast=True)))
    return vb.to(tl.float32, bitcast=True), listed & ~big & (xf == xf)


@triton.jit
def poly2(c, M: tl.constexpr, t):
    """sum c_j t^j from two Horner chains in t^2: c[0..M) the even coefficients, c[M..2M) the odd."""
    t2 = t * t
    p0 = t * 0.0 + tl.load(c + M - 1)
    p1 = t * 0.0 + tl.load(c + 2 * M - 1)
    for jj in tl.static_range(M - 1):
        p0 = tl.fma(p0, t2, tl.load(c + M - 2 - jj))
        p1 = tl.fma(p1, t2, tl.load(c + 2 * M - 2 - jj))
    return tl.fma(t, p1, p0)


@triton.jit
def tight(xf, tt, ORDER: tl.constexpr):
    """native.c's gelu_tier / grad_tight with the TIGHT tier: (float32 value, undecided)."""
    x = xf.to(tl.float64)
    a_cut = tl.load(tt + ACUT_AT)
    a = tl.abs(x)
    inside = a < a_cut
    a = tl.where(inside, a, a_cut)  # nan too
    c = tl.load(tt + MAPC_AT)
    h = poly2(tt + H_AT, 7, (a - c) / (a + c))
    z = -0.5 * (a * a)
    tk = tl.fma(z, tl.full([], LOG2E, tl.float64), MAGIC)  # as native.c's exp_nonpos
    r = tl.fma(-(tk - MAGIC), tl.full([], LN2, tl.float64), z)  # (unfused by the interpreter: 1e-14 of e, inside the bound)
    e = poly2(tt + E_AT, 5, r) * ((tk.to(tl.int64, bitcast=True) - 4843621399236968448 + 1023) << 52).to(tl.float64, bitcast=True)
    rel = tl.load(tt + REL_AT)
    if ORDER == 0:
        xq = tl.where(inside, x, tl.where(x > 0, a_cut, -a_cut)) * (h * e)  # keeps the sign of -0
        y = tl.where(x <= 0, xq, x - xq)
        lo = y * (1.0 - rel)
        hi = y * (1.0 + rel)
    else:
        q = h * e
        xphi = (x * tl.load(tt + ISQ2PI_AT)) * e
        y = tl.where(x < 0, q, 1.0 - q) + xphi
        err = (q + tl.abs(xphi)) * rel
        d = (x - tl.load(tt + TX0_AT)) - tl.load(tt + TX0_AT + 1)
        root = tl.abs(d) < tl.load(tt + RADIUS_AT)  # Phi + x phi cancels near its zero: the Taylor series there
        yr = poly2(tt + ROOT_AT, 8, d)
        y = tl.where(root, yr, y)
        err = tl.where(root, tl.abs(yr) * 1e-14, err)
        y = tl.where(inside, y, tl.where(x > 0, 1.0, tl.where(x < 0, 0.0, x)))  # beyond A_CUT: the limits (-0: below)
        err = tl.where(inside, err, 0.0)
        lo = y - err
        hi = y + err
    lo32 = lo.to(tl.float32)
    hi32 = hi.to(tl.float32)
    undecided = (lo32 != hi32) & (y == y)
    tiny = tl.abs(x) < tl.load(tt + TINY_AT)
    v = tl.where(undecided & tiny, tl.maximum(lo32, hi32), y.to(tl.float32))
    if ORDER == 1:  # beyond -A_CUT: -0, by its bits
        v = tl.where(~inside & (x < 0), -2147483648, v.to(tl.int32, bitcast=True)).to(tl.float32, bitcast=True)
    return v, undecided & ~tiny
