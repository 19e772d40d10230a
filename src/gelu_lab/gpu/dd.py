"""Double-double arithmetic in Triton: the GPU's last tier works in it (gelu_lab.gpu.dd_gelu).

A double-double (hi, lo) holds hi + lo with |lo| <= ulp(hi)/2: about 106 bits.
The operations are the classic error-free ones (Dekker 1971; Knuth's two-sum;
Bailey's QD library for the compositions), with relative errors of a few
2^-104 each:

    two_sum(a, b)   a + b = s + e exactly
    two_prod(a, b)  a b = p + e exactly, with Dekker's product on halves of 26 bits
                    (no fma: Triton's interpreter computes tl.fma unfused; the halves
                    come from the bits, so no contraction can change them)
    add, mul, mul_d, div

to_f32(hi, lo) rounds a double-double to float32 once: the conversion of hi is
right unless hi is a float32 midpoint exactly, where the sign of lo decides.

The kernels that run this code are launched without contraction of a*b + c
(gelu_lab.gpu), so the GPU computes what is written, as the interpreter does.
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
    """a = hi + lo exactly, each with at most 26 significant bits: a rounded to 26 bits on its bits
    (half an ulp of the 27 dropped ones added, then those cleared), so every partial product of
    two_prod has at most 52 bits and is exact."""
    hi = ((a.to(tl.int64, bitcast=True) + 67108864) & -134217728).to(tl.float64, bitcast=True)  # + 2^26, then -2^27 as a mask
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
