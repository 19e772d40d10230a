"""ULP accuracy of any GELU implementation against the correctly rounded reference.

    resolve(spec, reference=None) -> Impl     "gelu", "torch:gelu_tanh", "mypkg.kern:gelu", ...
    measure(impl, dtype, mode="exhaustive" | "sample" | "range", ...) -> dict (the summary)

Reference: :func:`gelu_lab.reference.correctly_rounded` of the *same formula* as
the implementation (the tanh form is judged against the correctly rounded tanh
form, not against exact GELU: this measures rounding, not approximation error).

Inputs: float16 and bfloat16 are always exhaustive (65 536 bit patterns).
float32: ``sample`` (N inputs stratified over the 2 x 255 binades, subnormals one
binade, plus +-0, +-inf, nan, the extremes), ``range`` (every float32 in [A, B]),
or ``exhaustive`` (all 2^32 bit patterns, in chunks of 2^24).

ULP distance is |ord(got) - ord(want)| on the ordered-integer image of the
format (magnitude bits, negated for negative numbers, so -0 and +0 are both 0
and consecutive floats differ by 1, across binades and across zero alike). Cases
that have no ULP distance, or deserve their own count, are kept apart:

    flush        got +-0 where the correctly rounded value is non-zero
    zero_sign    got 0 with the wrong sign
    overflow     got +-inf where the true value is finite
    spurious_nan got nan where the true value is not nan
    inf_mismatch the true value is +-inf and got something else
    nan_lost     the true value is nan (x = nan) and got a number

Every tally (whole run, each chunk, each region of x) is a plain dict that
merges by addition and max, so a chunked run can be stored chunk by chunk and
resumed after a kill.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import numba
import numpy as np

from ..floats import FORMATS, format_of, round_to_format
from ..reference import REFERENCES, correctly_rounded
from . import framework_impls as fi

DTYPES = ("float16", "bfloat16", "float32")
CHUNK_BITS = 24
KIND = "accuracy"
CATEGORIES = ("flush", "zero_sign", "overflow", "spurious_nan", "inf_mismatch", "nan_lost")
# regions of x; inf counts with its tail, nan has its own
REGIONS = ("x<=-10", "(-10,-3]", "(-3,-1]", "(-1,0)", "0", "(0,1)", "[1,3)", "[3,10)", "x>=10", "nan")
HIST_BINS = 34  # bin 0: exact; 1: 1 ulp; 2: 2; k >= 3: 2^(k-2)+1 .. 2^(k-1) ulp
PROFILE_BINS = 256  # max ULP error along x, in bins of the ordered-integer axis


# --------------------------------------------------------------------------
# implementations


@dataclass(frozen=True)
class Impl:
    spec: str
    fn: Callable  # NumPy array of a float format -> array (any float dtype) of the same shape
    reference: str  # name in gelu_lab.reference.REFERENCES
    dtypes: tuple | None = None  # the formats it computes in (None: any)

    def __call__(self, x):
        return self.fn(x)


def _builtin(approximate: str, order: int):
    import gelu_lab

    f = gelu_lab.gelu if order == 0 else gelu_lab.gelu_grad
    return lambda x: f(x, approximate)


BUILTINS = {
    "gelu": (_builtin("none", 0), "gelu"),
    "gelu_grad": (_builtin("none", 1), "gelu_grad"),
    "gelu_tanh": (_builtin("tanh", 0), "gelu_tanh"),
    "gelu_tanh_grad": (_builtin("tanh", 1), "gelu_tanh_grad"),
    "gelu_sigmoid": (_builtin("sigmoid", 0), "gelu_sigmoid"),
    "gelu_sigmoid_grad": (_builtin("sigmoid", 1), "gelu_sigmoid_grad"),
}


def _torch_form(name: str):
    """torch:NAME: torch's own kernel of a built-in (gelu_lab.torch.NATIVE); a derivative by autograd."""
    from ..torch import native

    value = native(name.removesuffix("_grad"))
    return _autograd(value) if name.endswith("_grad") else value


def _autograd(f):
    """dy/dx of an elementwise torch function, by backward() with ones."""
    import torch

    def g(t):
        t = t.detach().clone().requires_grad_(True)
        y = f(t)
        y.backward(torch.ones_like(y))
        return t.grad

    return g


def _on_tensors(f):
    """A torch function as a NumPy -> NumPy one (formats kept, bfloat16 included)."""
    import torch

    from ..torch import from_numpy, to_numpy

    like = torch.empty(0)

    def g(x):
        with torch.enable_grad():
            return to_numpy(f(from_numpy(np.ascontiguousarray(x), like)))

    return g


def _user_callable(spec: str):
    """`module:function` (function may be dotted) imported by name, never eval'd."""
    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise ValueError(f"impl {spec!r}: use a built-in name, torch:NAME or module:function")
    try:
        obj = importlib.import_module(mod_name)
    except ImportError as e:
        raise ValueError(f"impl {spec!r}: cannot import module {mod_name!r} ({e})") from None
    for part in attr.split("."):
        if not part.isidentifier() or not hasattr(obj, part):
            raise ValueError(f"impl {spec!r}: module {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"impl {spec!r}: {attr!r} is not callable")
    return obj


def _array_or_tensor(f):
    """Call f on the NumPy array; if it refuses one, on a torch tensor."""

    def g(x):
        try:
            y = f(x)
        except Exception as first:
            try:
                y = _on_tensors(f)(x)
            except Exception:
                raise ValueError(f"the implementation failed on a {x.dtype} array: {type(first).__name__}: {first}") from None
        if type(y).__module__.startswith("torch"):
            from ..torch import to_numpy

            y = to_numpy(y)
        return np.asarray(y)

    return g


def resolve(spec: str, reference: str | None = None) -> Impl:
    """The implementation named by `spec`.

    spec: a built-in (gelu, gelu_grad, gelu_tanh, gelu_tanh_grad, gelu_sigmoid,
    gelu_sigmoid_grad), ``torch:`` + one of those names (derivatives by
    autograd), another framework's GELU (jax:gelu, tensorflow:gelu_tanh,
    onnxruntime:Gelu, numpy:naive, scipy, ...: :mod:`.framework_impls`), or
    ``module:function`` for a user's callable taking and returning an array or
    tensor. reference: the function it computes (default: the built-in's own;
    the form of a framework's GELU; ``gelu`` for a user callable).
    """
    spec = str(spec).strip()
    if reference is not None and reference not in REFERENCES:
        raise ValueError(f"unknown reference {reference!r}; choose from {', '.join(REFERENCES)}")
    fw = fi.spec_of(spec)
    if fw is not None and not fw.startswith("torch:"):
        s = fi.SPECS[fw]
        return Impl(fw, fi.function(fw), reference or s.form, s.dtypes)
    if spec in BUILTINS:
        fn, ref = BUILTINS[spec]
    elif spec.startswith("torch:"):
        name = spec[len("torch:") :]
        if name not in BUILTINS:
            raise ValueError(f"unknown torch impl {spec!r}; choose from {', '.join('torch:' + n for n in BUILTINS)}")
        try:
            fn, ref = _on_tensors(_torch_form(name)), name
        except ImportError:
            raise ValueError(f"impl {spec!r} needs torch, which is not installed") from None
    elif ":" in spec:
        fn, ref = _array_or_tensor(_user_callable(spec)), "gelu"
    else:
        raise ValueError(f"unknown impl {spec!r}; use one of {', '.join(BUILTINS)}, torch:NAME, "
                         f"{', '.join(s for s in fi.SPECS if not s.startswith('torch:'))} or module:function")
    return Impl(spec, fn, reference or ref)


# --------------------------------------------------------------------------
# the ordered-integer image of a format


def _uint(fmt):
    return np.dtype(f"uint{fmt.dtype.itemsize * 8}")


def ordered(a: np.ndarray) -> np.ndarray:
    """Ordered-integer image (int64) of a float16/bfloat16/float32 array.

    Non-negative floats map to their bit pattern, negative ones to minus their
    magnitude bits: order preserved, +-0 -> 0, neighbours differ by 1.
    """
    fmt = format_of(a.dtype)
    bits = a.view(_uint(fmt)).astype(np.int64)
    sign = 1 << (8 * fmt.dtype.itemsize - 1)
    mag = bits & (sign - 1)
    return np.where(bits & sign, -mag, mag)


def from_ordered(o, fmt) -> np.ndarray:
    """Inverse of :func:`ordered` (0 -> +0)."""
    o = np.asarray(o, dtype=np.int64)
    sign = 1 << (8 * fmt.dtype.itemsize - 1)
    bits = np.where(o < 0, (-o) | sign, o)
    return bits.astype(_uint(fmt)).view(fmt.dtype)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|ord(got) - ord(want)|: how many floats of the format lie between, plus one."""
    return np.abs(ordered(got) - ordered(want))


def hist_labels() -> list[str]:
    labels = ["0", "1", "2"]
    for k in range(3, HIST_BINS):
        labels.append(f"{2 ** (k - 2) + 1}-{2 ** (k - 1)}")
    return labels


# --------------------------------------------------------------------------
# tallies: plain dicts that merge


def empty_tally() -> dict:
    r = len(REGIONS)
    return {
        "n": 0,
        "wrong": 0,
        "max_ulp": 0,
        "worst": None,  # {"x", "got", "want", "ulp"}
        "hist": [0] * HIST_BINS,
        "counts": {c: 0 for c in CATEGORIES},
        "examples": {c: None for c in CATEGORIES},
        "regions": {
            "n": [0] * r,
            "wrong": [0] * r,
            "max_ulp": [0] * r,
            "argmax_x": [None] * r,
            **{c: [0] * r for c in CATEGORIES},
        },
        "profile": [0] * PROFILE_BINS,
    }


# category codes of the kernel, in CATEGORIES order
_FLUSH, _ZSIGN, _OVER, _SNAN, _INFM, _NANL = range(6)


@numba.njit(cache=True)
def _tally_kernel(xb, gb, wb, width, inf_mag, edges, out_i64):
    """One pass over bit patterns: x inputs, g got, w want (unsigned ints of the format).

    Works on the ordered-integer image only (see :func:`ordered`); edges are
    the ordered images of -10, -3, -1, 1, 3, 10. Fills out_i64 (see _unpack)
    and returns nothing; indices of examples are -1 when there are none.
    """
    nreg = 10
    sign = np.int64(1) << (width - 1)
    mask = sign - 1
    shift = width - 8
    hist = out_i64[0:HIST_BINS]
    base = HIST_BINS
    reg_n = out_i64[base : base + nreg]
    reg_wrong = out_i64[base + nreg : base + 2 * nreg]
    reg_max = out_i64[base + 2 * nreg : base + 3 * nreg]
    reg_arg = out_i64[base + 3 * nreg : base + 4 * nreg]
    reg_cat = out_i64[base + 4 * nreg : base + 10 * nreg]  # 6 categories x regions
    prof = out_i64[base + 10 * nreg : base + 10 * nreg + PROFILE_BINS]
    tail = base + 10 * nreg + PROFILE_BINS
    first = out_i64[tail : tail + 6]  # first index of each category
    # out_i64[tail + 6]: wrong, [tail + 7]: max ulp, [tail + 8]: its index
    for i in range(xb.size):
        xv, gv, wv = np.int64(xb[i]), np.int64(gb[i]), np.int64(wb[i])
        xm, gm, wm = xv & mask, gv & mask, wv & mask
        xo = -xm if xv & sign else xm
        if xm > inf_mag:
            r = 9
        elif xo == 0:
            r = 4
        elif xo < 0:
            r = 0 if xo <= edges[0] else (1 if xo <= edges[1] else (2 if xo <= edges[2] else 3))
        else:
            r = 5 if xo < edges[3] else (6 if xo < edges[4] else (7 if xo < edges[5] else 8))
        reg_n[r] += 1
        g_nan, w_nan = gm > inf_mag, wm > inf_mag
        if gv == wv or (g_nan and w_nan):
            if wm < inf_mag:
                hist[0] += 1
            continue
        out_i64[tail + 6] += 1
        reg_wrong[r] += 1
        c = -1
        if g_nan:
            c = _SNAN
        elif w_nan:
            c = _NANL
        elif wm == inf_mag:
            c = _INFM
        elif gm == inf_mag:
            c = _OVER
        elif gm == 0:
            c = _ZSIGN if wm == 0 else _FLUSH
        if c >= 0:
            reg_cat[c * nreg + r] += 1
            if first[c] < 0:
                first[c] = i
            continue
        go = -gm if gv & sign else gm
        wo = -wm if wv & sign else wm
        u = abs(go - wo)
        b = 0
        v = u - 1
        while v > 0:  # bin: 1 + bit length of u - 1
            v >>= 1
            b += 1
        b = min(b + 1, HIST_BINS - 1)
        hist[b] += 1
        if u > reg_max[r]:
            reg_max[r] = u
            reg_arg[r] = i
        if u > out_i64[tail + 7]:
            out_i64[tail + 7] = u
            out_i64[tail + 8] = i
        pb = (xo + sign) >> shift
        if u > prof[pb]:
            prof[pb] = u


_OUT_LEN = HIST_BINS + 10 * len(REGIONS) + PROFILE_BINS + 9


def tally(x: np.ndarray, got: np.ndarray, want: np.ndarray) -> dict:
    """Tally of one batch: x inputs, got the implementation's values, want the reference's."""
    fmt = format_of(x.dtype)
    ut = _uint(fmt)
    width = 8 * fmt.dtype.itemsize
    inf_mag = int(np.array([np.inf], dtype=fmt.dtype).view(ut)[0])
    edges = ordered(np.array([-10, -3, -1, 1, 3, 10], dtype=np.float64).astype(fmt.dtype))
    out = np.zeros(_OUT_LEN, dtype=np.int64)
    nreg, base = len(REGIONS), HIST_BINS
    out[base + 3 * nreg : base + 4 * nreg] = -1
    tail = base + 10 * nreg + PROFILE_BINS
    out[tail : tail + 6] = -1
    xb, gb, wb = (np.ascontiguousarray(a).ravel().view(ut) for a in (x, got, want))
    _tally_kernel(xb, gb, wb, width, inf_mag, edges, out)

    def f64(a, i):
        with np.errstate(invalid="ignore"):
            return float(a.ravel()[i].astype(np.float64))

    def example(i):
        return None if i < 0 else {"x": f64(x, i), "got": f64(got, i), "want": f64(want, i)}

    t = empty_tally()
    t["n"] = int(x.size)
    t["hist"] = out[:HIST_BINS].tolist()
    reg = t["regions"]
    reg["n"] = out[base : base + nreg].tolist()
    reg["wrong"] = out[base + nreg : base + 2 * nreg].tolist()
    reg["max_ulp"] = out[base + 2 * nreg : base + 3 * nreg].tolist()
    reg["argmax_x"] = [None if i < 0 else f64(x, i) for i in out[base + 3 * nreg : base + 4 * nreg]]
    for k, c in enumerate(CATEGORIES):
        cat = out[base + (4 + k) * nreg : base + (5 + k) * nreg]
        reg[c] = cat.tolist()
        t["counts"][c] = int(cat.sum())
        t["examples"][c] = example(int(out[tail + k]))
    t["profile"] = out[base + 10 * nreg : tail].tolist()
    t["wrong"] = int(out[tail + 6])
    t["max_ulp"] = int(out[tail + 7])
    if t["max_ulp"] > 0:
        t["worst"] = {**example(int(out[tail + 8])), "ulp": t["max_ulp"]}
    return t


def merge(a: dict, b: dict) -> dict:
    """The tally of two disjoint batches."""
    out = empty_tally()
    out["n"], out["wrong"] = a["n"] + b["n"], a["wrong"] + b["wrong"]
    out["hist"] = [i + j for i, j in zip(a["hist"], b["hist"])]
    out["profile"] = [max(i, j) for i, j in zip(a["profile"], b["profile"])]
    first = a if a["max_ulp"] >= b["max_ulp"] else b
    out["max_ulp"], out["worst"] = first["max_ulp"], first["worst"]
    for c in CATEGORIES:
        out["counts"][c] = a["counts"][c] + b["counts"][c]
        out["examples"][c] = a["examples"][c] or b["examples"][c]
    ra, rb, ro = a["regions"], b["regions"], out["regions"]
    for key in ("n", "wrong", *CATEGORIES):
        ro[key] = [i + j for i, j in zip(ra[key], rb[key])]
    for i in range(len(REGIONS)):
        src = ra if ra["max_ulp"][i] >= rb["max_ulp"][i] else rb
        ro["max_ulp"][i], ro["argmax_x"][i] = src["max_ulp"][i], src["argmax_x"][i]
    return out


# --------------------------------------------------------------------------
# inputs


@dataclass(frozen=True)
class Plan:
    """Which inputs a run covers, as a list of chunks that can be made independently."""

    dtype: str
    mode: str  # exhaustive | sample | range
    size: int  # inputs in all
    chunks: int
    sample: int = 0
    seed: int = 0
    lo: int = 0  # ordered-integer bounds (range mode), or bit-pattern bounds
    hi: int = 0
    chunk_bits: int = CHUNK_BITS

    def key(self, impl: Impl) -> str:
        """The store key of a run of `impl` over these inputs."""
        what = {"exhaustive": "exhaustive", "sample": f"sample={self.sample},seed={self.seed}", "range": f"range={self.lo}:{self.hi}"}
        return f"{impl.spec}|{impl.reference}|{self.dtype}|{what[self.mode]}"

    def config(self) -> dict:
        return {"dtype": self.dtype, "mode": self.mode, "size": self.size, "chunks": self.chunks,
                "sample": self.sample, "seed": self.seed, "lo": self.lo, "hi": self.hi, "chunk_bits": self.chunk_bits}

    def chunk(self, i: int) -> np.ndarray:
        """The inputs of chunk i."""
        fmt = FORMATS[self.dtype]
        if self.mode == "sample":
            return stratified_sample(self.sample, self.seed)
        step = 1 << self.chunk_bits
        if self.mode == "exhaustive":
            total = 1 << (8 * fmt.dtype.itemsize)
            a, b = i * step, min((i + 1) * step, total)
            return np.arange(a, b, dtype=np.int64).astype(_uint(fmt)).view(fmt.dtype)
        a = self.lo + i * step
        b = min(a + step, self.hi + 1)
        return from_ordered(np.arange(a, b, dtype=np.int64), fmt)


def stratified_sample(n: int, seed: int = 0) -> np.ndarray:
    """About n float32 inputs: the same number from each binade of each sign.

    Exponent fields 0 (the subnormals) to 254, both signs, uniform random
    significands; plus +-0, +-inf, nan, +-largest, +-smallest subnormal.
    """
    rng = np.random.default_rng(seed)
    per = max(1, n // 510)
    exps = np.repeat(np.arange(255, dtype=np.uint32), 2 * per)
    signs = np.tile(np.repeat(np.array([0, 1], dtype=np.uint32), per), 255)
    mant = rng.integers(0, 1 << 23, size=exps.size, dtype=np.uint32)
    bits = (signs << 31) | (exps << 23) | mant
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.4028235e38, -3.4028235e38, 1e-45, -1e-45], dtype=np.float32)
    return np.concatenate([bits.view(np.float32), special])


def plan(dtype: str, mode: str = "exhaustive", sample: int = 1 << 20, seed: int = 0, interval=None, chunk_bits: int = CHUNK_BITS) -> Plan:
    """The inputs of a run; ValueError for combinations that make no sense."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    fmt = FORMATS[dtype]
    if fmt.p <= 11 and mode != "exhaustive":
        raise ValueError(f"{dtype} is always checked exhaustively (65536 inputs): drop --sample/--range")
    if not 4 <= chunk_bits <= 28:
        raise ValueError("chunk bits must lie in 4..28")
    step = 1 << chunk_bits
    if mode == "exhaustive":
        total = 1 << (8 * fmt.dtype.itemsize)
        return Plan(dtype, mode, total, -(-total // step), chunk_bits=chunk_bits)
    if mode == "sample":
        if not 1 <= int(sample) <= 1 << 28:
            raise ValueError(f"--sample must be between 1 and {1 << 28}, got {sample}")
        s = stratified_sample(int(sample), seed)
        return Plan(dtype, mode, int(s.size), 1, sample=int(sample), seed=int(seed), chunk_bits=chunk_bits)
    if mode == "range":
        from .errors import check_interval

        a, b = check_interval(*interval, limit=float(np.finfo(np.float32).max))
        # the float32 numbers inside [a, b]: round the ends inward
        fa, fb = np.float32(a), np.float32(b)
        if float(fa) < a:
            fa = np.nextafter(fa, np.float32(np.inf))
        if float(fb) > b:
            fb = np.nextafter(fb, np.float32(-np.inf))
        lo, hi = int(ordered(np.array([fa]))[0]), int(ordered(np.array([fb]))[0])
        if hi < lo:
            raise ValueError(f"no float32 number lies in [{a!r}, {b!r}]")
        size = hi - lo + 1
        return Plan(dtype, mode, size, -(-size // step), lo=lo, hi=hi, chunk_bits=chunk_bits)
    raise ValueError(f"mode must be exhaustive, sample or range, got {mode!r}")


# --------------------------------------------------------------------------
# a run


def evaluate(impl: Impl, x: np.ndarray) -> tuple[np.ndarray, str]:
    """impl(x) in x's format (rounded once if it answered in another) and the dtype it returned."""
    y = np.asarray(impl(x))
    if y.shape != x.shape:
        raise ValueError(f"impl {impl.spec!r} returned shape {y.shape} for input shape {x.shape}")
    returned = y.dtype.name
    if y.dtype != x.dtype:
        y = round_to_format(y.astype(np.float64), format_of(x.dtype))
    return y, returned


def reference_values(name: str, x: np.ndarray) -> np.ndarray:
    """correctly_rounded(name, x), with nan inputs answered nan without asking it.

    2^24 of the 2^32 float32 bit patterns are nans; every reference maps nan
    to nan, so they need no evaluation (and no settling).
    """
    with np.errstate(invalid="ignore"):
        nan = np.isnan(x.astype(np.float32) if x.dtype.itemsize == 2 else x)
    if not nan.any():
        return correctly_rounded(name, x)
    want = np.full(x.shape, np.nan, dtype=x.dtype)
    want[~nan] = correctly_rounded(name, x[~nan])
    return want


def summarize(t: dict, impl: Impl, p: Plan) -> dict:
    """The report of a finished tally: figures, fractions, per-region rows."""
    fmt = FORMATS[p.dtype]
    w = 8 * fmt.dtype.itemsize
    edges = [(b << (w - 8)) - (1 << (w - 1)) for b in range(PROFILE_BINS + 1)]
    lim = int(ordered(np.array([np.inf], dtype=fmt.dtype))[0])
    xs = from_ordered(np.clip(edges, -lim, lim), fmt).astype(np.float64)
    reg = t["regions"]
    rows = []
    for i, name in enumerate(REGIONS):
        rows.append({
            "region": name,
            "n": reg["n"][i],
            "wrong": reg["wrong"][i],
            "frac_wrong": reg["wrong"][i] / reg["n"][i] if reg["n"][i] else 0.0,
            "max_ulp": reg["max_ulp"][i],
            "argmax_x": reg["argmax_x"][i],
            **{c: reg[c][i] for c in CATEGORIES},
        })
    return {
        "impl": impl.spec,
        "reference": impl.reference,
        "dtype": p.dtype,
        "mode": p.mode,
        "n": t["n"],
        "wrong": t["wrong"],
        "frac_wrong": t["wrong"] / t["n"] if t["n"] else 0.0,
        "max_ulp": t["max_ulp"],
        "worst": t["worst"],
        "counts": t["counts"],
        "examples": t["examples"],
        "histogram": {"labels": hist_labels(), "counts": t["hist"]},
        "regions": rows,
        "profile": {"x_lo": xs[:-1].tolist(), "x_hi": xs[1:].tolist(), "max_ulp": t["profile"]},
        "returned_dtype": t.get("returned_dtype", p.dtype),
        "plan": p.config(),
    }


def measure(impl: Impl | str, dtype: str, mode: str = "exhaustive", **kw) -> dict:
    """Measure `impl` over the inputs of `plan(...)`; the summary dict (see :func:`measure_all`)."""
    return measure_all([impl], dtype, mode, **kw)[0]


def measure_all(impls, dtype: str, mode: str = "exhaustive", *, sample: int = 1 << 20, seed: int = 0,
                interval=None, chunk_bits: int = CHUNK_BITS, store=None, progress: bool | None = None, command: str | None = None) -> list[dict]:
    """Measure each of `impls` over the inputs of `plan(...)`; their summaries, in order.

    The inputs are made, and the reference computed, once per chunk for all of them.
    store: a :class:`gelu_lab.results.store.Store` to record each run in (kind
    "accuracy", key Plan.key): every chunk's tally is stored as it finishes,
    and an unfinished run with the same key resumes where it stopped. A summary is
    stored as result "summary". progress: a tqdm bar on stderr (None: only when
    stderr is a terminal). ValueError, before any work, for an impl that does not
    compute in `dtype`.
    """
    from ..results.progress import bar as tqdm  # tqdm, mirrored to a background job's progress file

    impls = [resolve(i) if isinstance(i, str) else i for i in impls]
    p = plan(dtype, mode, sample=sample, seed=seed, interval=interval, chunk_bits=chunk_bits)
    for im in impls:
        if im.dtypes is not None and dtype not in im.dtypes:
            raise ValueError(f"impl {im.spec!r} computes in {', '.join(im.dtypes)}, not {dtype}")
    run_ids, done = [None] * len(impls), [{} for _ in impls]
    if store is not None:
        for k, im in enumerate(impls):
            old = store.resumable(KIND, p.key(im))
            if old is not None and old["config"].get("plan") == p.config():
                run_ids[k] = store.resume_run(old["id"])["id"]
                done[k] = {n: v for n, v in store.results(run_ids[k]).items() if n.startswith("chunk/")}
            else:
                run_ids[k] = store.start_run(KIND, p.key(im), {"impl": im.spec, "reference": im.reference, "plan": p.config()}, command)
    totals, returned = [empty_tally() for _ in impls], [None] * len(impls)
    desc = impls[0].spec if len(impls) == 1 else f"{len(impls)} impls"
    bar = tqdm(total=p.size * len(impls), unit="x", unit_scale=True, desc=f"{desc} {dtype}", disable=None if progress is None else not progress, leave=False)
    try:
        for i in range(p.chunks):
            name = f"chunk/{i:05d}"
            todo = [k for k in range(len(impls)) if name not in done[k]]
            x = p.chunk(i) if todo else None
            wants = {}
            for k, im in enumerate(impls):
                if k in todo:
                    got, ret = evaluate(im, x)
                    if im.reference not in wants:
                        wants[im.reference] = reference_values(im.reference, x)
                    t = tally(x, got, wants[im.reference])
                    t["returned_dtype"] = ret
                    if store is not None:
                        store.put_result(run_ids[k], name, t)
                else:
                    t = done[k][name]
                returned[k] = returned[k] or t.get("returned_dtype")
                totals[k] = merge(totals[k], t)
                bar.update(t["n"])
    finally:
        bar.close()
    out = []
    for k, im in enumerate(impls):
        totals[k]["returned_dtype"] = returned[k] or dtype
        summary = summarize(totals[k], im, p)
        if im.spec in fi.SPECS:  # the form the framework computes when not told, as installed now
            summary["framework_default"] = fi.default_form(fi.SPECS[im.spec].package)
        if store is not None:
            summary["run_id"] = run_ids[k]
            store.put_result(run_ids[k], "summary", summary)
            store.set_status(run_ids[k], "done")
        out.append(summary)
    return out


def stored(impl: str, dtype: str, mode: str = "exhaustive", store=None, reference: str | None = None, **plan_args):
    """The newest stored summary of this measurement, or None (for the app: no recomputing)."""
    from ..results.store import Store

    im = resolve(impl, reference) if not isinstance(impl, Impl) else impl
    key = plan(dtype, mode, **plan_args).key(im)
    s = store or Store()
    _, value = s.latest_result(KIND, "summary", key)
    return value
