"""The Triton kernels of gelu_lab.gpu: one pass over the tensor, then the few inputs it lists.

    main32    float32: each input's value in one pass; an input it cannot decide is listed (or, for
              a small tensor, settled in the same launch)
    settle32  float32: the listed inputs, by a tighter tier, then in double-double
    lookup16  float16/bfloat16: out = table[bits of x]

FORM 0 is the exact form, 1 the tanh form, 2 the sigmoid form; ORDER the
derivative. With HAS_GRAD the kernels write grad * value (each rounded as the two
separate ops would be: the value to float32 or the 16-bit format, then the product),
so that autograd's backward is one pass.

Tables (float64 tensors that gelu_lab.gpu makes; tab's and tt's layouts are gelu_lab.gpu.tiers'
offsets): tab, one function's main pass (native_tables.json) and ebits, its sub-ranges' Ziv bounds;
tt, the TIGHT tier; qtab, Q(j/8) and phi(j/8) for j = 0..120 as double-doubles; inv, 1/(n + 1)
for n = 0..31; ddc, the forms' constants (2k, c, 3c, 12kc, beta, ln2) as double-doubles.
"""

from __future__ import annotations

import triton
import triton.language as tl

from . import dd, dd_gelu, tiers

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
def _settle(xf, live, tt, qtab, inv, ddc, FORM: tl.constexpr, ORDER: tl.constexpr):
    """Correctly rounded float32 values at the inputs `live` marks (the main pass listed them)."""
    if FORM == 0 and ORDER < 2:
        v, left = tiers.tight(xf, tt, ORDER)
        left = left & live
    else:
        v = tl.zeros_like(xf)
        left = live
    if tl.max(left.to(tl.int32), 0) > 0:  # rare: the double-double tier, for this chunk
        x = tl.where(left, xf.to(tl.float64), 0.5)
        if FORM == 0:
            yh, yl = dd_gelu.exact(x, ORDER, qtab, inv)
        else:
            yh, yl = dd_gelu.forms(x, FORM, ORDER, ddc, inv)
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
        v, listed = tiers.main_exact(xf, tab, ebits, ORDER)
    else:
        v, listed = tiers.formula(xf, FORM, ORDER)
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
             CHUNK: tl.constexpr):
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
                _, listed = tiers.main_exact(xf, tab, ebits, ORDER)
            else:
                _, listed = tiers.formula(xf, FORM, ORDER)
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
