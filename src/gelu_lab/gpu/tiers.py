"""The float64 tiers of gelu_lab.gpu: a value with a bound on its error, rounded once where the bound decides.

    main_exact(xf, tab, ebits, ORDER)  the exact form's value and derivative: native.c's main pass
    formula(xf, FORM, ORDER, ...)      every other form and order: the formula with gelu_lab.torch._f64's bound
    tight(xf, tt, ORDER)               the exact form again, by the CPU kernels' TIGHT tier (Q = h(|x|) exp(-x^2/2))

Each returns (float32 value, undecided); the table layouts are in gelu_lab.gpu.kernels' docstring.
"""

from __future__ import annotations

import triton
import triton.language as tl

# Triton makes a Python float that is not an operand of + - * / a float32 constant, a -0.0 literal
# +0, and -x is 0 - x (so -(+0) is +0); and a select between 1.0 and -0.0 came out as +0 on an H200:
# a float64 constant here is always an operand of arithmetic, and a choice of a signed zero or a
# limit is made on the float32 bits (-2147483648 is -0.0, 0x3F800000 is 1.0).


@triton.jit
def horner8(tab, i, t):
    """sum c_j[i] t^j, j = 0..8 (coefficient j of sub-range i at tab[16 j + i]). Horner, not native.c's
    Estrin: each thread runs several inputs, whose chains overlap, and Horner has two multiplications fewer."""
    p = tl.load(tab + 128 + i)
    for jj in tl.static_range(8):
        p = p * t + tl.load(tab + 112 - 16 * jj + i)
    return p


@triton.jit
def main_exact(xf, tab, ebits, ORDER: tl.constexpr):
    """native.c's main_avx512_body on float32 xf: (float32 value, listed).

    |x| < SAT: P(t) on sub-range i = round(|x| / W), GELU = xpos - |x| P, GELU' = d P (x <= 0) or
    1 - d P, d = -|x| - x0; rounded once, and listed unless the 29 bits the rounding drops lie more
    than EBITS[i] units of g's last place from the midpoint (Ziv's test on the bits). x >= SAT: the
    limit (x or 1); x < ZERO: -0; the rest (the tail, nan, for GELU |x| < 2^-100) listed.
    """
    sat = tl.load(tab + 162).to(tl.float32)
    xb = xf.to(tl.int32, bitcast=True)
    ab = xb & 0x7FFFFFFF
    main = ab < sat.to(tl.int32, bitcast=True)  # |x| < SAT; nan is not
    if ORDER == 0:
        main = main & (ab >= 0x0D800000)  # |x| >= 2^-100: GELU is a float32 normal
    a = tl.abs(xf).to(tl.float64)
    s = a * tl.load(tab + 161) + 6755399441055744.0  # 1.5 2^52 + round(|x| / W) in the low bits
    t = (s - 6755399441055744.0) * tl.load(tab + 160) - a  # -|x| + k W, exact
    i = (s.to(tl.int64, bitcast=True) & 15).to(tl.int32)
    p = horner8(tab, i, t)
    if ORDER == 0:
        g = tl.where(xf > 0, a, 0.0) - a * p  # GELU(x) = xpos + GELU(-|x|)
    else:
        q = ((a + tl.load(tab + 164)) + tl.load(tab + 165)) * p  # -GELU'(-|x|)
        g = tl.where(xf > 0, 1.0 + q, q)  # rounded as -q is, with the sign put back on the bits below
    low = (g.to(tl.int64, bitcast=True) & 0x1FFFFFFF).to(tl.int32)
    decided = tl.abs(low - 0x10000000) > tl.load(ebits + i)
    vb = g.to(tl.float32).to(tl.int32, bitcast=True)
    if ORDER == 1:
        vb = vb ^ tl.where(xf > 0, 0, -2147483648)  # x <= 0: -g
    high = xf >= sat
    zero = xf < tl.load(tab + 163).to(tl.float32)
    if ORDER == 0:
        vb = tl.where(high, xb, vb)
    else:
        vb = tl.where(high, 0x3F800000, vb)  # 1.0
    vb = tl.where(zero, -2147483648, vb)  # -0.0
    return vb.to(tl.float32, bitcast=True), ~(main & decided) & ~high & ~zero


@triton.jit
def formula(xf, FORM: tl.constexpr, ORDER: tl.constexpr, K2, C, BETA, INV_SQRT_2PI):
    """A form's ORDER-th derivative in float64 with a bound on its error (gelu_lab.torch's _f64):
    (float32 value, listed: the bound does not decide it). |x| > 1e3 and nan: their limits."""
    x = xf.to(tl.float64)
    if FORM == 0:  # the exact form's second derivative, (2 - x^2) phi
        xx = x * x
        p = tl.exp(-0.5 * xx) * INV_SQRT_2PI
        y = (2.0 - xx) * p
        scale = (2.0 + xx) * p
        rel = (64.0 + 4.0 * tl.minimum(xx, 1600.0)) * 1.1102230246251565e-16
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
        rel = (64.0 + 32.0 * tl.minimum(tl.abs(z), 800.0)) * 1.1102230246251565e-16
    bound = rel * scale + tl.where(x != 0.0, 9.332636185032189e-302, 0.0)  # 2^-1000: float64's underflow
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
    a_cut = tl.load(tt + 43)
    a = tl.abs(x)
    inside = a < a_cut
    a = tl.where(inside, a, a_cut)  # nan too
    c = tl.load(tt + 24)
    h = poly2(tt, 7, (a - c) / (a + c))
    z = -0.5 * (a * a)
    tk = z * 1.4426950408889634 + 6755399441055744.0  # fused on the GPU, as native.c's fma()
    r = z - (tk - 6755399441055744.0) * 0.6931471805599453
    e = poly2(tt + 14, 5, r) * ((tk.to(tl.int64, bitcast=True) - 4843621399236968448 + 1023) << 52).to(tl.float64, bitcast=True)
    rel = tl.load(tt + 25)
    if ORDER == 0:
        xq = tl.where(inside, x, tl.where(x > 0, a_cut, -a_cut)) * (h * e)  # keeps the sign of -0
        y = tl.where(x <= 0, xq, x - xq)
        lo = y * (1.0 - rel)
        hi = y * (1.0 + rel)
    else:
        q = h * e
        xphi = (x * tl.load(tt + 45)) * e
        y = tl.where(x < 0, q, 1.0 - q) + xphi
        err = (q + tl.abs(xphi)) * rel
        d = (x - tl.load(tt + 46)) - tl.load(tt + 47)
        root = tl.abs(d) < tl.load(tt + 42)  # Phi + x phi cancels near its zero: the Taylor series there
        yr = poly2(tt + 26, 8, d)
        y = tl.where(root, yr, y)
        err = tl.where(root, tl.abs(yr) * 1e-14, err)
        y = tl.where(inside, y, tl.where(x > 0, 1.0, tl.where(x < 0, 0.0, x)))  # beyond A_CUT: the limits (-0: below)
        err = tl.where(inside, err, 0.0)
        lo = y - err
        hi = y + err
    lo32 = lo.to(tl.float32)
    hi32 = hi.to(tl.float32)
    undecided = (lo32 != hi32) & (y == y)
    tiny = tl.abs(x) < tl.load(tt + 44)
    v = tl.where(undecided & tiny, tl.maximum(lo32, hi32), y.to(tl.float32))
    if ORDER == 1:  # beyond -A_CUT: -0, by its bits
        v = tl.where(~inside & (x < 0), -2147483648, v.to(tl.int32, bitcast=True)).to(tl.float32, bitcast=True)
    return v, undecided & ~tiny
