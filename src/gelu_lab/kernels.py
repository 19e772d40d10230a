"""Compiled float32 kernels of the exact GELU and its derivative, correctly rounded.

Each float32 input is widened to float64 and evaluated with no libm call and
no table lookup, so the loop vectorises (numba, AVX2, parallel over threads):

    Q(a)  = h(a) E(a),  h = 0.5 erfcx(a/sqrt2),  E = exp(-a^2/2),  a = |x|
    GELU  = x - x Q       (x > 0)        x Q            (x <= 0)
    GELU' = (1 - Q) + x phi (x >= 0)     Q + x phi      (x < 0),   x phi = x E / sqrt(2 pi)

* a^2 is exact in float64 for float32 a, so E has an exact argument. exp is
  k = round(z / ln2) read off the bits of z/ln2 + 1.5*2^52, r = z - k ln2 in
  one fused multiply-add (|k| <= 163, so the error of ln2's double is below
  4e-15), a Chebyshev interpolant of e^r on [-ln2/2, ln2/2], and 2^k built
  from its bits.
* h on [0, A_CUT] is one polynomial in y = (a - C)/(a + C), C = K sqrt2: the
  map turns erfcx's 1/u tail into something a polynomial fits. Coefficients:
  Chebyshev interpolation of SciPy's erfcx, converted to monomials in y (all
  below 0.4, so Horner is stable); K was chosen by scanning.
* Polynomials run as two Horner chains in t^2: one chain waits on its own
  latency, and with 16 vector registers more chains spill; two keep the
  multiply-add units busy.
* GELU' near its root x0 = -0.75179... is the Taylor series of
  :func:`gelu_lab.numerics.grad_root_series` in (x - x0).

Two tiers (:class:`Fit`), each a bound on the relative error of its float64
value (the fits' errors plus ~1e-15 of roundings; `tests/test_core_accuracy.py`
checks the fits against mpmath):

    FAST   h degree 11, K = 2.75, exp degree 7    3.5e-10   flags 0.83 % of N(0, 4) data
    TIGHT  h degree 13, K = 2.8,  exp degree 9    6e-12     flags 1.7 % of those

The value is rounded once to float32; an input is flagged when the ends of its
error interval round differently, i.e. the tier cannot decide. The kernels run
over blocks of BLOCK inputs in parallel: GELU runs FAST over the block, then
TIGHT on the block's flagged inputs while they are in cache; GELU' runs TIGHT.
What is left (0.014 % of N(0, 4) data) is returned as a list of indices:
:mod:`gelu_lab.core` settles it with :func:`gelu_lab.reference.correctly_rounded`
(libm with a tight bound, then mpmath); this module never imports the reference.
Settling a block's flagged inputs while the block is in cache beats a second
pass over the whole array (flags, np.flatnonzero, gather, TIGHT, scatter):
bench/bench_gelu.py measures the kernels.
Beyond |x| = 15 both functions are their float32 limits (x or -0; 1 or -0).
The whole float32 range is verified exhaustively by `bench/exhaustive_float32.sh`.

The native kernel. Where pip built the C extension ``gelu_lab._native``
(src/gelu_lab/native.c, constants from tools/gen_native_tables.py), :func:`raw_f32`
and :func:`lookup16` run it instead, under the same contract: values plus the
indices it cannot decide. Its main pass fits both functions on the negative
half only, with degree-8 polynomials on 16 sub-ranges of |x| < SAT (AVX-512:
coefficients from registers by permutes), and gets the positive half from
GELU(x) = x + GELU(-x) and GELU'(x) = 1 - GELU'(-x); it rounds once with a
Ziv test of the sub-range's bound and hands everything else (the tail, nan,
undecided roundings) to the tiers above, ported to C. Built with OpenMP, it
runs its own threads (:func:`thread_count` of them), on the runtime torch
uses. Variants:
"avx512", "avx2" (AVX2+FMA: the same method on tables of its own, 512
sub-ranges of degree 3, 4 lanes), "scalar"
(portable C, fma()), chosen by :func:`variant`: the widest the CPU runs,
numba where it has no AVX2 (faster than the scalar variants; ``GELU_LAB_KERNEL``
forces any of them); the 16-bit lookups run in C wherever it was built
(:func:`lookup_variant`). `bench/exhaustive_native.py` checks every variant on
all 2^32 inputs against the numba kernel.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import functools
import importlib
import itertools
import math
import os

import numba
import numpy as np
from numba.core import types
from llvmlite import ir
from numba.extending import intrinsic
from scipy import special

from . import forks, numerics as nm
from .rounding import _FLAGS, round_flag

A_CUT = 15.0  # beyond |x| = 15 the float32 results are the limits

_U_MAX = 10.75  # A_CUT / sqrt2 < 10.75
_ROOT_DEG = 15
_LN2 = math.log(2.0)

# kernels are compiled with FMA contraction only: no reassociation, IEEE otherwise


def _monomials(f, deg: int, lo: float, hi: float) -> np.ndarray:
    """Power-series coefficients (low first) of f's degree-`deg` Chebyshev interpolant on [lo, hi]."""
    p = np.polynomial.Chebyshev.interpolate(f, deg, domain=[lo, hi])
    return p.convert(kind=np.polynomial.Polynomial, domain=[-1, 1], window=[-1, 1]).coef


def half_erfcx_coefficients(k: float, deg: int) -> np.ndarray:
    """h = 0.5 erfcx(u) as a polynomial in y = (u - k)/(u + k), u in [0, _U_MAX]."""
    y_hi = (_U_MAX - k) / (_U_MAX + k)
    return _monomials(lambda y: 0.5 * special.erfcx(k * (1 + y) / (1 - y)), deg, -1.0, y_hi)


def exp_coefficients(deg: int) -> np.ndarray:
    """e^r as a polynomial in r on [-ln2/2, ln2/2]."""
    return _monomials(np.exp, deg, -_LN2 / 2, _LN2 / 2)


def _two_chains(c: np.ndarray) -> np.ndarray:
    """Coefficients c_0..c_n as a (2, m) array: row 0 holds c_0, c_2, ..., row 1 c_1, c_3, ..."""
    padded = np.zeros(2 * -(-len(c) // 2))
    padded[: len(c)] = c
    return np.ascontiguousarray(padded.reshape(-1, 2).T)


class Fit:
    """One accuracy tier: h's map constant and degree, exp's degree, and the bound they give."""

    def __init__(self, map_k: float, erfcx_deg: int, exp_deg: int, rel_err: float):
        self.map_c, self.rel_err = map_k * nm.SQRT2, rel_err
        self.h = _two_chains(half_erfcx_coefficients(map_k, erfcx_deg))
        self.exp = _two_chains(exp_coefficients(exp_deg))


# rel_err = the fits' max relative error (h + exp, on dense grids; tested against
# mpmath) plus room for float64 roundings (~1e-15)
FAST = Fit(2.75, 11, 7, 3.5e-10)  # h 2.64e-10, exp 5.9e-11
TIGHT = Fit(2.8, 13, 9, 6e-12)  # h 4.9e-12, exp 2e-14
# numba freezes module-level arrays and floats into the compiled code as constants
_H_FAST, _EXP_FAST, _C_FAST, _REL_FAST = FAST.h, FAST.exp, FAST.map_c, FAST.rel_err
_H_TIGHT, _EXP_TIGHT, _C_TIGHT, _REL_TIGHT = TIGHT.h, TIGHT.exp, TIGHT.map_c, TIGHT.rel_err
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
def _exp_nonpos(z, c_exp):
    """exp(z) for z in [-708, 0], relative error 2e-14.

    k = round(z / ln2) and 2^k are read off the bits of z/ln2 + 1.5*2^52
    (AVX2 has no packed float64 -> int64 conversion; integer adds and shifts it has).
    """
    t = z * 1.4426950408889634 + _ROUND_MAGIC
    k = t - _ROUND_MAGIC
    r = z - k * _LN2  # one fused multiply-add: k ln2 is not rounded
    return _poly(c_exp, r) * _bits_to_f64((_f64_to_bits(t) - _MAGIC_BITS + 1023) << 52)


@numba.njit(inline="always", **_FLAGS)
def half_erfcx_and_exp(a, c_h, c_exp, map_c):
    """(0.5 erfcx(a/sqrt2), exp(-a^2/2)) for float32 values 0 <= a <= A_CUT, by one Fit's polynomials."""
    return _poly(c_h, (a - map_c) / (a + map_c)), _exp_nonpos(-0.5 * (a * a), c_exp)


@numba.njit(inline="always", **_FLAGS)
def _gelu64(xi, c_h, c_exp, map_c):
    a = min(abs(xi), A_CUT)  # nan -> A_CUT (comparisons with nan are false)
    h, e = half_erfcx_and_exp(a, c_h, c_exp, map_c)
    # beyond A_CUT (infinities included) x is replaced by +-A_CUT in x Q: the
    # results are then x (x > 0) and -15 Q(15) = -5e-50, which rounds to -0
    xq = math.copysign(a, xi) * (h * e)
    return xq if xi <= 0 else xi - xq  # <= : GELU(-0) = -0


@numba.njit(inline="always", **_FLAGS)
def _gelu_rounded(x, i, c_h, c_exp, map_c, rel_err, out, flags):
    """GELU(x[i]) by one Fit, rounded to float32 into out[i] (flags[i]: undecided)."""
    xi = np.float64(x[i])
    y = _gelu64(xi, c_h, c_exp, map_c)
    round_flag(xi, y, y * (1.0 - rel_err), y * (1.0 + rel_err), out, flags, i)


BLOCK = 8192  # inputs per parallel task: its x, out and flags stay in L2 while it settles them
SLOTS = 8  # undecided inputs a block lists; a block with more marks them in a flags array


@intrinsic
def _ctz(typingctx, v):
    """Count of trailing zero bits of a nonzero uint64 (LLVM's cttz)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.uint64(types.uint64), codegen


@numba.njit(inline="always", **_FLAGS)
def _flagged(fl, m):
    """Positions of the set flags in fl[:m], in order.

    fl holds BLOCK bools. They are read eight at a time as uint64 words (on
    this little-endian machine flag j of a word is bit 8j) and each set one is
    peeled off with a trailing-zero count: the work is one pass per flag, not
    a compare and branch per input.
    """
    fl[m:] = False
    words = fl.view(np.uint64)
    idx = np.empty(BLOCK, np.int64)
    c = 0
    for w in range(words.size):
        word = words[w]
        while word != 0:
            idx[c] = 8 * w + (_ctz(word) >> 3)
            c += 1
            word &= word - np.uint64(1)
    return idx[:c]


@numba.njit(inline="always", **_FLAGS)
def _keep(pos, lo, row, crowded):
    """Record the block-relative positions pos of undecided inputs; returns how many there are.

    Up to SLOTS go into row (as indices, offset lo). More happen only in
    structured data: 8192 consecutive float32 values near 6.35e-7, where GELU'
    is 0.5 + 0.8x, hold 133 undecided ones. Those are marked in
    crowded[lo:...] instead, an array written (and so paged in) only for such
    blocks.
    """
    if pos.size <= row.size:
        for j in range(pos.size):
            row[j] = lo + pos[j]
    else:
        marks = crowded[lo:lo + BLOCK]
        marks[:] = False
        marks[pos] = True
    return pos.size


# The kernels run over blocks of BLOCK inputs (numba's prange): a vectorised
# pass over the block, then the block's few undecided inputs while it is still
# in cache (see the module docstring). One kernel per function, not one
# taking a Fit: numba unrolls the polynomials (and so vectorises the loop) only
# for coefficients it sees as constants, i.e. module globals, and caches only
# module-level functions. The block set-up (lo, xb, ob, fl) is written out in
# each: taken from an inline helper returning them, it gave wrong GELU values
# for some FAST-flagged inputs (numba 0.68.1, parallel lowering), at any thread count.
@numba.njit(parallel=True, **_FLAGS)
def _gelu_f32(x, out, left, n_left, crowded):
    """GELU by FAST, then TIGHT on FAST's undecided inputs; the still undecided are kept by _keep."""
    for b in numba.prange(n_left.size):
        lo = b * BLOCK
        xb, ob = x[lo:lo + BLOCK], out[lo:lo + BLOCK]
        fl = np.empty(BLOCK, np.bool_)
        for i in range(xb.size):
            _gelu_rounded(xb, i, _H_FAST, _EXP_FAST, _C_FAST, _REL_FAST, ob, fl)
        pos = _flagged(fl, xb.size)
        xs = xb[pos]  # gathered, so TIGHT's loop vectorises too
        ys, still = np.empty_like(xs), np.empty(xs.size, np.bool_)
        for j in range(xs.size):
            _gelu_rounded(xs, j, _H_TIGHT, _EXP_TIGHT, _C_TIGHT, _REL_TIGHT, ys, still)
        ob[pos] = ys
        n_left[b] = _keep(pos[still], lo, left[b], crowded)


@numba.njit(inline="always", **_FLAGS)
def _gelu_grad_rounded(x, i, out, flags):
    """GELU'(x[i]) by TIGHT (the Taylor series near its root), rounded to float32 into out[i]."""
    xi = np.float64(x[i])
    a = min(abs(xi), A_CUT)
    h, e = half_erfcx_and_exp(a, _H_TIGHT, _EXP_TIGHT, _C_TIGHT)
    q = h * e
    xphi = (xi * nm.INV_SQRT_2PI) * e
    y = (q if xi < 0 else 1.0 - q) + xphi
    err = (q + abs(xphi)) * _REL_TIGHT  # absolute: the two terms may cancel
    d = (xi - _ROOT_HI) - _ROOT_LO
    if abs(d) < nm.GRAD_ROOT_RADIUS:
        y = _poly(_ROOT_C, d)
        err = abs(y) * 1e-14
    if not abs(xi) < A_CUT:  # the float32 limits, exactly: nothing to decide
        y = 1.0 if xi > 0 else (-0.0 if xi < 0 else xi)
        err = 0.0
    round_flag(xi, y, y - err, y + err, out, flags, i)


@numba.njit(parallel=True, **_FLAGS)
def _gelu_grad_f32(x, out, left, n_left, crowded):
    """GELU' by TIGHT; the undecided are kept by _keep."""
    for b in numba.prange(n_left.size):
        lo = b * BLOCK
        xb, ob = x[lo:lo + BLOCK], out[lo:lo + BLOCK]
        fl = np.empty(BLOCK, np.bool_)
        for i in range(xb.size):
            _gelu_grad_rounded(xb, i, ob, fl)
        n_left[b] = _keep(_flagged(fl, xb.size), lo, left[b], crowded)


@numba.njit(parallel=True, cache=True)
def _gather16(table, bits, out):
    for i in numba.prange(bits.size):
        out[i] = table[bits[i]]


def lookup16(table: np.ndarray, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """table[bit pattern of x] for a 16-bit x: a parallel gather (the table is L2-resident).

    out, if given, is a C-contiguous array of x's shape and the table's dtype
    that receives the values (and is returned).
    """
    bits = np.ascontiguousarray(x).view(np.uint16).ravel()
    res = np.empty(np.shape(x), dtype=table.dtype) if out is None else out
    flat = res.reshape(-1).view(np.uint16)
    v = lookup_variant()
    if v == "numba":
        _gather16(table.view(np.uint16), bits, flat)
        return res
    t16 = table.view(np.uint16)
    _native_parts(lambda lo, hi, threads: _native.lookup16(t16, bits[lo:hi], flat[lo:hi], _VARIANTS[v], threads), bits.size)
    return res


_KERNELS = {"gelu": _gelu_f32, "gelu_grad": _gelu_grad_f32}


def raw_f32(name: str, x: np.ndarray, out: np.ndarray | None = None):
    """(float32 values, indices of the inputs the kernel left undecided) for "gelu" or "gelu_grad".

    x is read as a flat float32 array; `out`, if given, is a C-contiguous
    float32 array of x's size that receives the values. The indices are sorted.
    The kernel is :func:`variant`'s: the native one (gelu_lab._native) or numba's.
    """
    if name not in _KERNELS:
        raise ValueError(f"no float32 kernel for {name!r}")
    x = np.ascontiguousarray(x, dtype=np.float32).ravel()
    out = np.empty_like(x) if out is None else out.reshape(-1)
    v = variant()
    if v != "numba":
        return out, _native_f32(name, _VARIANTS[v], x, out)
    n_left = np.empty(-(-x.size // BLOCK), dtype=np.int64)
    left = np.empty((n_left.size, SLOTS), dtype=np.int64)
    crowded = np.empty(x.size, dtype=np.bool_)  # not paged in unless a block writes to it
    _KERNELS[name](x, out, left, n_left, crowded)
    listed = n_left[:, None] <= SLOTS
    idx = [left[(np.arange(SLOTS) < n_left[:, None]) & listed]]
    idx += [b * BLOCK + np.flatnonzero(crowded[b * BLOCK:(b + 1) * BLOCK]) for b in np.flatnonzero(~listed[:, 0])]
    return out, np.sort(np.concatenate(idx))


# --------------------------------------------------------------------------
# The native kernel (src/gelu_lab/native.c, built by pip as gelu_lab._native):
# the same contract as the numba kernels above, in C, one variant per
# instruction set (AVX-512, AVX2+FMA, scalar fma()), the best this CPU runs.
# Where it was not built (no C compiler at install time) the numba kernels run.
# GELU_LAB_KERNEL=numba|scalar|avx2|avx512 forces one.

_NATIVE_ERROR = ""  # why the extension did not load, where it did not
try:  # by name: an extension module is no source file, and import-linter would read `from . import` as the package
    _native = importlib.import_module(f"{__package__}._native")
except ImportError as e:  # built without a C compiler (or, from the wheel, no libgomp.so.1 here): the numba kernels
    _native, _NATIVE_ERROR = None, "" if isinstance(e, ModuleNotFoundError) else str(e)

_VARIANTS = {name: v for v, name in enumerate(_native.VARIANT_NAMES)} if _native is not None else {}  # name -> f32's number
KERNEL_ENV = "GELU_LAB_KERNEL"


# fastest first, as bench/bench_gelu.py measures them (its --avx2 stand-in for the avx2
# row; docs/measurements.md has the figures): numba beats the scalar variants everywhere
_ORDER = ("avx512", "avx2", "numba", "scalar", "scalar-libm")


@functools.lru_cache(maxsize=8)
def _kernels_of(native, order: tuple[str, ...]) -> tuple[str, ...]:
    """available() for an extension module (None: not built) and an order; a CPU's variants do
    not change, and asking costs microseconds, as much as a small call's kernel (tests swap both)."""
    have = {*(native.variants() if native is not None else ()), "numba"}
    return tuple(k for k in order if k in have)


def available() -> list[str]:
    """The kernels this machine runs, fastest first ("avx512", "avx2", "numba", "scalar", "scalar-libm")."""
    return list(_kernels_of(_native, _ORDER))


def unavailable() -> list[str]:
    """The variants built into gelu_lab._native that this CPU cannot run (its ISA lacks
    their instructions), in available()'s order: what a run here leaves untested."""
    if _native is None:
        return []
    have = set(_kernels_of(_native, _ORDER))
    return [k for k in _ORDER if k in _native.VARIANT_NAMES and k not in have]


def _forced() -> str:
    """The kernel $GELU_LAB_KERNEL names ("" when unset)."""
    return os.environ.get(KERNEL_ENV, "").strip().lower()


def variant() -> str:
    """The kernel in use: $GELU_LAB_KERNEL if set (ValueError if this machine cannot run it), else the fastest available."""
    want, have = _forced(), _kernels_of(_native, _ORDER)
    if not want:
        return have[0]
    if want not in have:
        raise ValueError(f"{KERNEL_ENV}={want!r} cannot run here; available: {', '.join(have)}")
    return want


def reason() -> str:
    """Why :func:`variant` is the kernel in use here, in a few words."""
    v = variant()
    if _forced():
        return f"{KERNEL_ENV}={_forced()} forces it"
    if _native is None and _NATIVE_ERROR:
        return f"the C extension gelu_lab._native does not load: {_NATIVE_ERROR}"
    if _native is None:
        return "the C extension gelu_lab._native was not built (no C compiler when pip installed gelu-lab)"
    if v == "avx512":
        return "this CPU has AVX-512 (avx512f, avx512vl)"
    if v == "avx2":
        return "this CPU has AVX2 and FMA but no AVX-512"
    return "this CPU has neither AVX-512 nor AVX2+FMA; numba's kernel is faster than the C scalar variant"


def lookup_variant() -> str:
    """The kernel of the 16-bit lookups: $GELU_LAB_KERNEL's if set, else the fastest native
    variant (plain loads in C, the same for every variant, faster than numba's gather, also
    where numba runs float32), numba's only where the extension was not built."""
    if _forced():
        return variant()
    return next((k for k in _kernels_of(_native, _ORDER) if k != "numba"), "numba")


_THREADS = contextvars.ContextVar("gelu_lab_threads", default=None)


@contextlib.contextmanager
def threads(n: int):
    """Run the native kernel and the 16-bit lookups on n threads inside the block (gelu_lab.torch
    passes torch.get_num_threads()); outside one, numba.get_num_threads(). The numba kernels
    keep numba's own setting."""
    token = _THREADS.set(max(1, int(n)))
    try:
        yield
    finally:
        _THREADS.reset(token)


def thread_count() -> int:
    """The threads the native kernel runs now: the innermost :func:`threads` block's, else numba's."""
    return _THREADS.get() or numba.get_num_threads()


_POOL = {}
PARTS_PER_THREAD = 8  # parts are handed out as threads come free: a thread slowed by another process takes fewer


def _parallel(task, n: int, min_part: int):
    """[task(lo, hi) for the parts [lo, hi) of [0, n)], run by thread_count() threads.

    The parts (multiples of BLOCK, about PARTS_PER_THREAD per thread) are taken
    from a shared counter by whichever thread is free, so a core shared with
    another process slows the call by its share, not by half of it. The native
    calls release the GIL, so the parts run at once. Results in part order.
    """
    threads = max(1, min(thread_count(), n // min_part))
    if threads == 1:
        return [task(0, n)]
    step = max(min_part, -(-n // (threads * PARTS_PER_THREAD) // BLOCK) * BLOCK)
    bounds = [(lo, min(lo + step, n)) for lo in range(0, n, step)]
    results = [None] * len(bounds)
    counter = itertools.count()  # next() on it is atomic under the GIL

    def worker():
        for j in iter(counter.__next__, None):
            if j >= len(bounds):
                return
            results[j] = task(*bounds[j])

    key = (os.getpid(), threads)  # a forked child has the dict but not the threads: a pool of its own
    if key not in _POOL:
        _POOL[key] = concurrent.futures.ThreadPoolExecutor(threads - 1, thread_name_prefix="gelu_lab")
    futures = [_POOL[key].submit(worker) for _ in range(threads - 1)]
    worker()  # this thread works too
    for f in futures:
        f.result()
    return results


def _native_f32(name: str, v: int, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Undecided indices (sorted) after the native kernel wrote x's values into out."""
    fn = 0 if name == "gelu" else 1

    def part(lo, hi, threads):
        und = np.empty(min(hi - lo, 256 + (hi - lo) // 128), dtype=np.int64)  # typical inputs: ~1e-4 undecided
        c = _native.f32(fn, v, x[lo:hi], out[lo:hi], und, threads)
        if c > und.size:  # crowded with undecided inputs (structured data): again, with room for all
            und = np.empty(c, dtype=np.int64)
            _native.f32(fn, v, x[lo:hi], out[lo:hi], und, threads)
        und = und[:c]
        und.sort()
        return und + lo if lo else und

    parts = _native_parts(part, x.size)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _native_parts(task, n: int) -> list:
    """[task(lo, hi, threads)] over [0, n): one call on the extension's own threads where it
    has them (:func:`_native_threads`), else parts on Python threads, one thread each. Under
    two of the extension's smallest parts (MIN_PART inputs), one call on one thread, as the
    extension would run it, without asking thread_count() (a microsecond, as much as a small
    call's kernel)."""
    if n < 2 * _native.MIN_PART:
        return [task(0, n, 1)]
    if _native_threads():
        return [task(0, n, thread_count())]
    return _parallel(lambda lo, hi: task(lo, hi, 1), n, _native.MIN_PART)


def _native_threads() -> bool:
    """Whether the extension runs its own threads here: built with OpenMP, and not in a
    process made by fork (gelu_lab.forks: GNU OpenMP's threads do not survive a fork,
    and a child that enters a parallel region after its parent ran one, gelu_lab's
    or torch's, hangs; a forked child splits arrays over Python threads instead)."""
    return bool(_native.openmp()) and not forks.forked()
