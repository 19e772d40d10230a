"""GELU and its derivatives in double-double: the last tier of gelu_lab.gpu, for the few inputs the
float64 tiers cannot decide.

    exact(x, ORDER, qtab, inv), forms(x, FORM, ORDER, ddc, inv) -> (hi, lo)

Their pieces, for 0 <= a <= 15 (a a float32 value held in float64):

    q_phi(a) -> Q(a) = Phi(-a) and phi(a), by the Taylor series about the nearest
    a0 = j/8 (|d| = |a - a0| <= 1/16) of tables made with mpmath at 40 digits:
        phi(a0 + d) = phi(a0) sum c_n,     Q(a0 + d) = Q(a0) - d phi(a0) sum c_n/(n + 1),
        c_0 = 1,  c_1 = -a0 d,  c_{n+1} = -(a0 d c_n + d^2 c_{n-1})/(n + 1)
    (phi^(n)(a0) = (-1)^n He_n(a0) phi(a0) and He's recurrence; a0 d and d^2 are
    exact doubles). |a0 d| <= 15/16, so 32 terms leave a remainder below 1e-33 of
    the sum; the sums cancel by at most a factor e (Q falls by e^(-a0 d)).

    exp_neg(w) -> exp(w) for w <= 0 (a double-double): k = round(w/ln2),
    r = w - k ln2 (ln2 as a double-double), expm1(r/1024) by 10 Taylor terms,
    then ten squarings of 1 + m kept as m <- 2m + m^2 (no cancellation), times 2^k.

The error of each function here is below 1e-28 relative (of the value, or of the
sum of the absolute values of its terms where they cancel; tests/test_gpu.py checks
it against mpmath), and the kernels round it to float32 without a further test. That
is safe where no float32 input's value lies within 1e-28 of a rounding midpoint: of
2^32 inputs, the closest is expected about 2^-56 (1e-17) of its value away, far
outside. For the exact form's value and derivative bench/gpu_check.py shows it on
every float32 input; for the other forms and orders only samples are checked
(tests/test_gpu.py, bench/gpu_check.py).
"""

from __future__ import annotations

import triton
import triton.language as tl

from . import dd

NTERMS = tl.constexpr(32)  # terms of q_phi's series: the remainder is below 1e-33 of the sum


@triton.jit
def q_phi(a, tab_ptr, inv_ptr, NTERMS: tl.constexpr):
    """(Q hi, Q lo, phi hi, phi lo) at 0 <= a <= 15; tab: rows (Q(j/8), phi(j/8)) as double-doubles, inv: 1/(n + 1)."""
    j = tl.minimum(tl.maximum((a * 8.0 + 0.5).to(tl.int32), 0), 120)
    a0 = j.to(tl.float64) * 0.125
    d = a - a0
    p = a0 * d
    q = d * d
    zero = a * 0.0
    ch, cl = zero + 1.0, zero  # c_n
    mh, ml = zero, zero  # c_{n-1}
    sph, spl = zero + 1.0, zero  # sum c_n
    sqh, sql = zero, zero  # sum c_n / (n + 1)
    for n in range(NTERMS):
        ih = tl.load(inv_ptr + 2 * n)
        il = tl.load(inv_ptr + 2 * n + 1)
        th, tl_ = dd.mul(ch, cl, ih, il)
        sqh, sql = dd.add(sqh, sql, th, tl_)
        uh, ul = dd.mul(mh, ml, ih, il)
        xh, xl = dd.mul_d(th, tl_, p)
        yh, yl = dd.mul_d(uh, ul, q)
        nh, nl = dd.add(xh, xl, yh, yl)
        mh, ml = ch, cl
        ch, cl = -nh, -nl
        sph, spl = dd.add(sph, spl, ch, cl)
    row = tab_ptr + 4 * j
    qh, ql = tl.load(row), tl.load(row + 1)
    ph, pl = tl.load(row + 2), tl.load(row + 3)
    wh, wl = dd.mul(ph, pl, sqh, sql)
    wh, wl = dd.mul_d(wh, wl, d)
    qh, ql = dd.add(qh, ql, -wh, -wl)
    ph, pl = dd.mul(ph, pl, sph, spl)
    return qh, ql, ph, pl


@triton.jit
def exp_neg(wh, wl, ln2h, ln2l, inv_ptr):
    """exp(w) for a double-double -708 < w <= 0 (inv: 1/(n + 1) as double-doubles, as for q_phi)."""
    k = tl.floor(wh * 1.4426950408889634 + 0.5)
    ph, pl = dd.two_prod(k, ln2h)
    rh, rl = dd.add(wh, wl, -ph, -pl)
    rh, rl = dd.add(rh, rl, -(k * ln2l), k * 0.0)  # |k ln2l| < 2^-45: its rounding is below 2^-98 of exp's scale
    rh, rl = rh * 0.0009765625, rl * 0.0009765625  # r / 1024, exactly
    mh, ml = rh, rl  # expm1 by Taylor: r + r^2/2 + ... + r^10/10!
    th, tl_ = rh, rl
    for i in range(2, 11):
        th, tl_ = dd.mul(th, tl_, rh, rl)
        th, tl_ = dd.mul(th, tl_, tl.load(inv_ptr + 2 * i - 2), tl.load(inv_ptr + 2 * i - 1))  # times 1/i
        mh, ml = dd.add(mh, ml, th, tl_)
    for _ in range(10):  # (1 + m)^2 = 1 + (2m + m^2)
        sh, sl = dd.mul(mh, ml, mh, ml)
        mh, ml = dd.add(2.0 * mh, 2.0 * ml, sh, sl)
    eh, el = dd.add(mh, ml, mh * 0.0 + 1.0, mh * 0.0)
    scale = ((k.to(tl.int64) + 1023) << 52).to(tl.float64, bitcast=True)  # 2^k: k >= -1022 for w > -708
    return eh * scale, el * scale


@triton.jit
def exact(x, ORDER: tl.constexpr, qtab, inv):
    """The exact form's ORDER-th derivative at float64 x (|x| < 15, not nan) as a double-double."""
    qh, ql, ph, pl = q_phi(tl.abs(x), qtab, inv, NTERMS)
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
def forms(x, FORM: tl.constexpr, ORDER: tl.constexpr, ddc, inv):
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
    eh, el = exp_neg(tl.where(under, zero, wh), tl.where(under, zero, wl), tl.load(ddc + 10), tl.load(ddc + 11), inv)
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
