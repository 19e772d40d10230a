"""Double-double arithmetic in Triton, and GELU's functions in it: the GPU's last tier.

A double-double (hi, lo) holds hi + lo with |lo| <= ulp(hi)/2: about 106 bits.
The operations are the classic error-free ones (Dekker 1971; Knuth's two-sum;
Bailey's QD library for the compositions), with relative errors of a few
2^-104 each:

    two_sum(a, b)   a + b = s + e exactly
    two_prod(a, b)  a b = p + e exactly, with Dekker's split (no fma: Triton's
                    interpreter computes tl.fma unfused, and a split by bit mask
                    cannot be undone by contraction of a*b + c on the GPU)
    add, mul, mul_d, div

GELU's pieces, for 0 <= a <= 15 (a a float32 value held in float64):

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

to_f32(hi, lo) rounds a double-double to float32 once: the conversion of hi is
right unless hi is a float32 midpoint exactly, where the sign of lo decides.

The error of each function here is below 1e-28 relative (of the value, or of the
sum of the absolute values of its terms where they cancel); the GPU kernel
rounds it to float32 without a further test: bench/gpu_check.py compares every
float32 input, and tests/test_gpu.py the interpreter's results, with the CPU kernel.
"""

from __future__ import annotations

import triton
import triton.language as tl

@triton.jit
def two_sum(a, b):
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@triton.jit
def fast_two_sum(a, b):
    """a + b = s + e exactly, for |a| >= |b| (or a = 0)."""
    s = a + b
    return s, b - (s - a)


@triton.jit
def split(a):
    """a = hi + lo exactly, hi with 26 significant bits, lo with at most 27."""
    hi = (a.to(tl.int64, bitcast=True) & -134217728).to(tl.float64, bitcast=True)  # -2^27: the low 27 of 52 bits cleared
    return hi, a - hi


@triton.jit
def two_prod(a, b):
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@triton.jit
def add(ah, al, bh, bl):
    """(ah, al) + (bh, bl), the accurate sum (also where the two cancel)."""
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    s, e = fast_two_sum(s, e + t)
    return fast_two_sum(s, e + f)


@triton.jit
def mul(ah, al, bh, bl):
    p, e = two_prod(ah, bh)
    return fast_two_sum(p, e + (ah * bl + al * bh))


@triton.jit
def mul_d(ah, al, b):
    """(ah, al) times a double b."""
    p, e = two_prod(ah, b)
    return fast_two_sum(p, e + al * b)


@triton.jit
def div(ah, al, bh, bl):
    """(ah, al) / (bh, bl) by three long-division steps."""
    q1 = ah / bh
    rh, rl = mul_d(bh, bl, q1)
    rh, rl = add(ah, al, -rh, -rl)
    q2 = rh / bh
    sh, sl = mul_d(bh, bl, q2)
    rh, rl = add(rh, rl, -sh, -sl)
    q3 = rh / bh
    q1, q2 = fast_two_sum(q1, q2)
    return add(q1, q2, q3, q3 * 0.0)


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
        th, tl_ = mul(ch, cl, ih, il)
        sqh, sql = add(sqh, sql, th, tl_)
        uh, ul = mul(mh, ml, ih, il)
        xh, xl = mul_d(th, tl_, p)
        yh, yl = mul_d(uh, ul, q)
        nh, nl = add(xh, xl, yh, yl)
        mh, ml = ch, cl
        ch, cl = -nh, -nl
        sph, spl = add(sph, spl, ch, cl)
    row = tab_ptr + 4 * j
    qh, ql = tl.load(row), tl.load(row + 1)
    ph, pl = tl.load(row + 2), tl.load(row + 3)
    wh, wl = mul(ph, pl, sqh, sql)
    wh, wl = mul_d(wh, wl, d)
    qh, ql = add(qh, ql, -wh, -wl)
    ph, pl = mul(ph, pl, sph, spl)
    return qh, ql, ph, pl


@triton.jit
def exp_neg(wh, wl, ln2h, ln2l, inv_ptr):
    """exp(w) for a double-double -708 < w <= 0 (inv: 1/(n + 1) as double-doubles, as for q_phi)."""
    k = tl.floor(wh * 1.4426950408889634 + 0.5)
    ph, pl = two_prod(k, ln2h)
    rh, rl = add(wh, wl, -ph, -pl)
    rh, rl = add(rh, rl, -(k * ln2l), k * 0.0)  # |k ln2l| < 2^-45: its rounding is below 2^-98 of exp's scale
    rh, rl = rh * 0.0009765625, rl * 0.0009765625  # r / 1024, exactly
    mh, ml = rh, rl  # expm1 by Taylor: r + r^2/2 + ... + r^10/10!
    th, tl_ = rh, rl
    for i in range(2, 11):
        th, tl_ = mul(th, tl_, rh, rl)
        th, tl_ = mul(th, tl_, tl.load(inv_ptr + 2 * i - 2), tl.load(inv_ptr + 2 * i - 1))  # times 1/i
        mh, ml = add(mh, ml, th, tl_)
    for _ in range(10):  # (1 + m)^2 = 1 + (2m + m^2)
        sh, sl = mul(mh, ml, mh, ml)
        mh, ml = add(2.0 * mh, 2.0 * ml, sh, sl)
    eh, el = add(mh, ml, mh * 0.0 + 1.0, mh * 0.0)
    scale = ((k.to(tl.int64) + 1023) << 52).to(tl.float64, bitcast=True)  # 2^k: k >= -1022 for w > -708
    return eh * scale, el * scale


@triton.jit
def to_f32(h, l):
    """The double-double h + l rounded once to float32 (nearest, ties to even)."""
    ah = tl.abs(h)
    lm = tl.where(h < 0, -l, l)  # lo along |h|'s direction
    r = ah.to(tl.float32)
    r64 = r.to(tl.float64)
    rb = r.to(tl.int32, bitcast=True)
    nb = tl.where(ah > r64, rb + 1, rb - 1)  # r's neighbour on h's side
    n64 = nb.to(tl.float32, bitcast=True).to(tl.float64)
    tie = (ah == (r64 + n64) * 0.5) & (ah != r64) & (lm != 0.0)
    big = tl.where(n64 > r64, nb, rb)
    small = tl.where(n64 > r64, rb, nb)
    mag = tl.where(tie, tl.where(lm > 0.0, big, small), rb)
    sign = ((h.to(tl.int64, bitcast=True) >> 32) & -(1 << 31)).to(tl.int32)  # h's sign bit, at bit 31
    return (mag | sign).to(tl.float32, bitcast=True)
