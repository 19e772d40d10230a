"""The Triton kernels of gelu_lab.gpu: one pass over the tensor, then the few inputs it lists.

    main32    float32: each input's value in one pass; an input it cannot decide is listed (or, for
              a small tensor, settled in the same launch)
    settle32  float32: the listed inputs, by a tighter tier, then in double-double
    lookup16  float16/bfloat16: out = table[bits of x]

FORM 0 is the exact form, 1 the tanh form, 2 the sigmoid form; ORDER the
derivative. With HAS_GRAD the kernels write grad * value (each rounded as the two
separate ops would be: the value to float32 or the 16-bit format, then the product),
so that autograd's backward is one pass.

Tables (float64 tensors, gelu_lab.gpu makes them):
    tab   the native kernel's main pass for one function (native_tables.json):
          C[j][k] at 16 j + k (j = 0..8), EPS[k] at 144 + k, W, INVW, SAT, ZERO, X0 hi, X0 lo at 160..165
    tt    the TIGHT tier: H rows (2 x 7), E rows (2 x 5), MAPC, REL at 24, 25; root series rows (2 x 8) at 26,
          its RADIUS, A_CUT, TINY, 1/sqrt(2 pi), X0 hi, X0 lo at 42..47
    qtab  Q(j/8) and phi(j/8), j = 0..120, as double-doubles; inv: 1/(n + 1), n = 0..31; ddc: the forms' constants
"""

from __future__ import annotations

import triton
import triton.language as tl

from . import dd

NTERMS = tl.constexpr(32)  # terms of q_phi's series: the remainder is below 1e-33 of the sum

# Triton makes a Python float that is not an operand of + - * / a float32 constant, a -0.0 literal
# +0, and -x is 0 - x (so -(+0) is +0); and a select between 1.0 and -0.0 came out as +0 on an H200:
# a float64 constant here is always an operand of arithmetic, and a choice of a signed zero or a
# limit is made on the float32 bits (-2147483648 is -0.0, 0x3F800000 is 1.0).


@triton.jit
def _horner8(tab, i, t):
    """sum c_j[i] t^j, j = 0..8 (coefficient j of sub-range i at tab[16 j + i]). Horner, not native.c's
    Estrin: each thread runs several inputs, whose chains overlap, and Horner has two multiplications fewer."""
    p = tl.load(tab + 128 + i)
    for jj in tl.static_range(8):
        p = p * t + tl.load(tab + 112 - 16 * jj + i)
    return p


@triton.jit
def _main_exact(xf, tab, ebits, ORDER: tl.constexpr):
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
    p = _horner8(tab, i, t)
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
def _list(listed, offs, list_ptr, count_ptr, cap):
    """Append the block's listed offsets to the list: one atomic add per block that has any."""
    flags = listed.to(tl.int32)
    n_listed = tl.sum(flags, axis=0)
    if n_listed > 0:
        base = tl.atomic_add(count_ptr, n_listed, sem="relaxed")
        pos = base + tl.cumsum(flags, axis=0) - 1
        tl.store(list_ptr + pos, offs, mask=listed & (pos < cap))


@triton.jit
def _formula(xf, FORM: tl.constexpr, ORDER: tl.constexpr, K2, C, BETA, INV_SQRT_2PI):
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
def _poly2(c, M: tl.constexpr, t):
    """sum c_j t^j from two Horner chains in t^2: c[0..M) the even coefficients, c[M..2M) the odd."""
    t2 = t * t
    p0 = t * 0.0 + tl.load(c + M - 1)
    p1 = t * 0.0 + tl.load(c + 2 * M - 1)
    for jj in tl.static_range(M - 1):
        p0 = tl.fma(p0, t2, tl.load(c + M - 2 - jj))
        p1 = tl.fma(p1, t2, tl.load(c + 2 * M - 2 - jj))
    return tl.fma(t, p1, p0)


@triton.jit
def _tight(xf, tt, ORDER: tl.constexpr):
    """native.c's gelu_tier / grad_tight with the TIGHT tier: (float32 value, undecided)."""
    x = xf.to(tl.float64)
    a_cut = tl.load(tt + 43)
    a = tl.abs(x)
    inside = a < a_cut
    a = tl.where(inside, a, a_cut)  # nan too
    c = tl.load(tt + 24)
    h = _poly2(tt, 7, (a - c) / (a + c))
    z = -0.5 * (a * a)
    tk = z * 1.4426950408889634 + 6755399441055744.0  # fused on the GPU, as native.c's fma()
    r = z - (tk - 6755399441055744.0) * 0.6931471805599453
    e = _poly2(tt + 14, 5, r) * ((tk.to(tl.int64, bitcast=True) - 4843621399236968448 + 1023) << 52).to(tl.float64, bitcast=True)
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
        yr = _poly2(tt + 26, 8, d)
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


@triton.jit
def _exact_dd(x, ORDER: tl.constexpr, qtab, inv):
    """The exact form's ORDER-th derivative at float64 x (|x| < 15, not nan) as a double-double."""
    qh, ql, ph, pl = dd.q_phi(tl.abs(x), qtab, inv, NTERMS)
    if ORDER == 2:  # (2 - x^2) phi, x^2 exact
        sh, sl = dd.two_prod(x, x)
        th, tl_ = dd.add(x * 0.0 + 2.0, x * 0.0, -sh, -sl)
        return dd.mul(th, tl_, ph, pl)
    rh, rl = dd.add(x * 0.0 + 1.0, x * 0.0, -qh, -ql)  # 1 - Q
    if ORDER == 0:  # x Q (x <= 0), x (1 - Q) (x > 0)
        return dd.mul_d(tl.where(x > 0, rh, qh), tl.where(x > 0, rl, ql), x)
    xh, xl = dd.mul_d(ph, pl, x)  # Q + x phi (x < 0), 1 - Q + x phi
    return dd.add(tl.where(x < 0, qh, rh), tl.where(x < 0, ql, rl), xh, xl)


@triton.jit
def _form_dd(x, FORM: tl.constexpr, ORDER: tl.constexpr, ddc, inv):
    """x sigmoid(z) (tanh form: z = 2k(x + c x^3); sigmoid form: z = beta x), its ORDER-th derivative, as a
    double-double; ddc: 2k, c, 3c, 12kc, beta, ln2, each (hi, lo). Where exp(-|z|) < e^-200 the value
    is 0 here (far below float32's smallest; the caller gives the zero its sign)."""
    zero = x * 0.0
    if FORM == 1:
        x2h, x2l = dd.two_prod(x, x)
        x3h, x3l = dd.mul_d(x2h, x2l, x)
        th, tl_ = dd.mul(tl.load(ddc + 2), tl.load(ddc + 3), x3h, x3l)
        th, tl_ = dd.add(x, zero, th, tl_)
        zh, zl = dd.mul(tl.load(ddc), tl.load(ddc + 1), th, tl_)
        th, tl_ = dd.mul(tl.load(ddc + 4), tl.load(ddc + 5), x2h, x2l)
        th, tl_ = dd.add(zero + 1.0, zero, th, tl_)
        dzh, dzl = dd.mul(tl.load(ddc), tl.load(ddc + 1), th, tl_)
        ddzh, ddzl = dd.mul_d(zero + tl.load(ddc + 6), zero + tl.load(ddc + 7), x)
    else:
        zh, zl = dd.mul_d(zero + tl.load(ddc + 8), zero + tl.load(ddc + 9), x)
        dzh, dzl = zero + tl.load(ddc + 8), zero + tl.load(ddc + 9)
        ddzh, ddzl = zero, zero
    neg = zh < 0
    wh = tl.where(neg, zh, -zh)  # -|z|
    wl = tl.where(neg, zl, -zl)
    under = wh < -200.0
    eh, el = dd.exp_neg(tl.where(under, zero, wh), tl.where(under, zero, wl), tl.load(ddc + 10), tl.load(ddc + 11), inv)
    eh = tl.where(under, zero, eh)
    el = tl.where(under, zero, el)
    nh, nl = dd.add(zero + 1.0, zero, eh, el)  # 1 + e^-|z|
    ph, pl = dd.div(zero + 1.0, zero, nh, nl)  # sigmoid(|z|)
    mh, ml = dd.div(eh, el, nh, nl)  # sigmoid(-|z|)
    sh = tl.where(neg, mh, ph)  # sigmoid(z), and sigmoid(-z)
    sl = tl.where(neg, ml, pl)
    uh = tl.where(neg, ph, mh)
    ul = tl.where(neg, pl, ml)
    if ORDER == 0:
        return dd.mul_d(sh, sl, x)
    ssh, ssl = dd.mul(sh, sl, uh, ul)
    if ORDER == 1:  # s + x z' s(1 - s)
        th, tl_ = dd.mul(dzh, dzl, ssh, ssl)
        th, tl_ = dd.mul_d(th, tl_, x)
        return dd.add(sh, sl, th, tl_)
    # s(1 - s) (2 z' + x z'' + x z'^2 (1 - 2s)), 1 - 2s = sigmoid(-z) - sigmoid(z)
    mh, ml = dd.add(uh, ul, -sh, -sl)
    th, tl_ = dd.mul(dzh, dzl, dzh, dzl)
    th, tl_ = dd.mul(th, tl_, mh, ml)
    th, tl_ = dd.mul_d(th, tl_, x)
    bh, bl = dd.mul_d(ddzh, ddzl, x)
    th, tl_ = dd.add(th, tl_, bh, bl)
    th, tl_ = dd.add(th, tl_, 2.0 * dzh, 2.0 * dzl)
    return dd.mul(ssh, ssl, th, tl_)


@triton.jit
def _settle(xf, live, tt, qtab, inv, ddc, FORM: tl.constexpr, ORDER: tl.constexpr):
    """Correctly rounded float32 values at the inputs `live` marks (the main pass listed them)."""
    if FORM == 0 and ORDER < 2:
        v, left = _tight(xf, tt, ORDER)
        left = left & live
    else:
        v = tl.zeros_like(xf)
        left = live
    if tl.max(left.to(tl.int32), 0) > 0:  # rare: the double-double tier, for this chunk
        x = tl.where(left, xf.to(tl.float64), 0.5)
        if FORM == 0:
            yh, yl = _exact_dd(x, ORDER, qtab, inv)
        else:
            yh, yl = _form_dd(x, FORM, ORDER, ddc, inv)
        wb = dd.to_f32(yh, yl).to(tl.int32, bitcast=True)
        # an exact zero: underflow far below float32 (or x = 0, order 0); its sign is the truth's
        if ORDER < 2:
            wb = tl.where(yh == 0.0, tl.where(x < 0, -2147483648, 0), wb)
        else:
            wb = tl.where(yh == 0.0, -2147483648, wb)
        if ORDER == 0:
            wb = tl.where(xf == 0.0, xf.to(tl.int32, bitcast=True), wb)
        v = tl.where(left, wb.to(tl.float32, bitcast=True), v)
    return v


@triton.jit
def main32(x_ptr, g_ptr, out_ptr, list_ptr, count_ptr, n, cap, tab, ebits, tt, qtab, inv, ddc,
           FORM: tl.constexpr, ORDER: tl.constexpr, HAS_GRAD: tl.constexpr,
           K2: tl.constexpr, C: tl.constexpr, BETA: tl.constexpr, INV_SQRT_2PI: tl.constexpr,
           BLOCK: tl.constexpr, EVEN: tl.constexpr, FUSED: tl.constexpr):
    """One pass: every value; the inputs it cannot decide appended to the list for settle32, or
    (FUSED, for small tensors: one launch) settled here. EVEN: n is a multiple of BLOCK."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if EVEN:
        xf = tl.load(x_ptr + offs)
    else:
        xf = tl.load(x_ptr + offs, mask=mask, other=1.0)
    if FORM == 0 and ORDER < 2:
        v, listed = _main_exact(xf, tab, ebits, ORDER)
    else:
        v, listed = _formula(xf, FORM, ORDER, K2, C, BETA, INV_SQRT_2PI)
    if not EVEN:
        listed = listed & mask
    if FUSED:
        if tl.max(listed.to(tl.int32), 0) > 0:
            v = tl.where(listed, _settle(xf, listed, tt, qtab, inv, ddc, FORM, ORDER), v)
    if HAS_GRAD:
        if EVEN:
            v = tl.load(g_ptr + offs) * v
        else:
            v = tl.load(g_ptr + offs, mask=mask, other=0.0) * v
    if EVEN:
        tl.store(out_ptr + offs, v)
    else:
        tl.store(out_ptr + offs, v, mask=mask)
    if not FUSED:
        _list(listed, offs, list_ptr, count_ptr, cap)


@triton.jit
def settle32(x_ptr, g_ptr, out_ptr, list_ptr, count_ptr, n, cap, tab, ebits, tt, qtab, inv, ddc,
             FORM: tl.constexpr, ORDER: tl.constexpr, HAS_GRAD: tl.constexpr,
             K2: tl.constexpr, C: tl.constexpr, BETA: tl.constexpr, INV_SQRT_2PI: tl.constexpr, CHUNK: tl.constexpr):
    """The listed inputs, CHUNK at a time over all programs; where main32 listed more than `cap`
    (structured data), every input again: those it would list are settled here."""
    step = tl.num_programs(0) * CHUNK
    count = tl.load(count_ptr)
    lane = tl.arange(0, CHUNK)
    base = tl.program_id(0) * CHUNK
    if count <= cap:
        while base < count:  # a while, not a range over a run-time bound: Triton's interpreter takes that
            j = base + lane
            live = j < count
            i = tl.load(list_ptr + j, mask=live, other=0)
            xf = tl.load(x_ptr + i, mask=live, other=1.0)
            v = _settle(xf, live, tt, qtab, inv, ddc, FORM, ORDER)
            if HAS_GRAD:
                v = tl.load(g_ptr + i, mask=live, other=0.0) * v
            tl.store(out_ptr + i, v, mask=live)
            base += step
    else:
        while base < n:
            i = base + lane
            inside = i < n
            xf = tl.load(x_ptr + i, mask=inside, other=1.0)
            if FORM == 0 and ORDER < 2:
                _, listed = _main_exact(xf, tab, ebits, ORDER)
            else:
                _, listed = _formula(xf, FORM, ORDER, K2, C, BETA, INV_SQRT_2PI)
            live = listed & inside
            if tl.max(live.to(tl.int32), 0) > 0:
                v = _settle(xf, live, tt, qtab, inv, ddc, FORM, ORDER)
                if HAS_GRAD:
                    v = tl.load(g_ptr + i, mask=live, other=0.0) * v
                tl.store(out_ptr + i, v, mask=live)
            base += step


@triton.jit
def lookup16(x_ptr, g_ptr, out_ptr, table, n, HAS_GRAD: tl.constexpr, BF16: tl.constexpr, BLOCK: tl.constexpr):
    """out = table[bits of x] (16-bit patterns as int16); with HAS_GRAD, grad * that, rounded once."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bits = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int32) & 0xFFFF
    v = tl.load(table + bits, mask=mask, other=0)
    if HAS_GRAD:
        g = tl.load(g_ptr + offs, mask=mask, other=0).to(tl.int32) & 0xFFFF
        if BF16:  # bfloat16 -> float32 exactly; the product (exact in float32) back by nearest-even on the bits
            p = (g << 16).to(tl.float32, bitcast=True) * ((v.to(tl.int32) & 0xFFFF) << 16).to(tl.float32, bitcast=True)
            u = p.to(tl.int32, bitcast=True)
            r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
            v = tl.where(p != p, 0x7FC0, r & 0xFFFF).to(tl.int16)
        else:
            p = g.to(tl.int16).to(tl.float16, bitcast=True).to(tl.float32) * v.to(tl.float16, bitcast=True).to(tl.float32)
            v = p.to(tl.float16).to(tl.int16, bitcast=True)
    tl.store(out_ptr + offs, v, mask=mask)
