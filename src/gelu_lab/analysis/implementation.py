"""The numbers of the Implementation page (``gelu_lab.app.pages.implementation``).

    errors_on(a, b, scale)              the two approximations' error curves on [a, b], maxima located
    constants_on(c, k, beta, a, b)      the forms with other constants against the classic ones
    fit_rows(a, b, norm)                the fitted constants (`gelu-lab fit`)
    precision_rows(dtype)               ULP precision of each implementation (IMPLS, those installed: runnable())
    ulp_points(impl, dtype, a, b)       the inputs it rounds wrongly, with their error
    cost()                              throughput per form and backend from the newest bench run
    start_accuracy(store, impl), start_bench(store)    its background jobs

16-bit formats are measured here and now, on all 65 536 inputs; float32 (2^32 inputs,
minutes per kernel) is the reader's stored run, else the shipped one, else a stratified
sample (F32_SAMPLE) labelled as such. Numbers come formatted as the page shows them;
nothing here builds a figure or a component.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import extras, results
from ..results import jobs, shipped
from . import accuracy as acc
from . import errors, fits

FORMS = ("gelu_tanh", "gelu_sigmoid")  # the approximations, against exact GELU
POINTS = 1201  # points of the drawn curves (the maxima are located, not read off them)
IMPLS = ("gelu", "gelu_tanh", "torch:gelu", "torch:gelu_tanh")  # rows of the precision table
F32_PLAN = {"mode": "exhaustive"}  # the float32 run the page reads and its job computes (tests use a small one)
F32_SAMPLE = 1 << 16  # stratified float32 sample shown until that run is stored
ULP_POINTS = 8001  # float32 inputs of the ULP-error chart
BACKENDS = ("numpy", "gelu_lab", "torch")
COST_FORMS = ("erf", "tanh", "sigmoid")
BENCH_CASES = ["copy", *(f"{b}:{f}" for b in BACKENDS for f in COST_FORMS)]  # forward float32
BENCH_ARGS = ["--sizes", "1e6", "--repeats", "3", "--threads", "1"]  # "measure now": a short run


# --- error curves ---------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _curves(a: float, b: float):
    return {f: errors.error_curves(f, "gelu", (a, b), n=POINTS) for f in FORMS}


def errors_on(a: float, b: float, scale: str = "abs") -> dict:
    """{"x", "curves", "maxima"}: per form of FORMS its absolute (or, scale "rel", relative;
    inf and nan drawn as gaps) error against exact GELU on POINTS points of [a, b], and the
    located maxima [(x, error)]."""
    res = _curves(a, b)
    if scale == "rel":
        curves = {f: np.where(np.isfinite(r.rel_error), r.rel_error, np.nan) for f, r in res.items()}
        maxima = {f: [(r.argmax_rel, r.max_rel_error)] if math.isfinite(r.max_rel_error) else [] for f, r in res.items()}
    else:
        curves = {f: r.abs_error for f, r in res.items()}
        maxima = {f: list(r.argmax_pair) for f, r in res.items()}
    return {"x": res[FORMS[0]].x, "curves": curves, "maxima": maxima}


# --- constants ------------------------------------------------------------------------


def error_maxima(a: float, b: float) -> dict:
    """Per form of FORMS on [a, b]: {"max" (the largest absolute error, None without one), "at"
    (where each located absolute maximum is), "rel" (the largest relative error, None when
    not finite), "rel_at" (where)}: the maxima errors_on locates, from its one cached computation."""
    ab, rel = errors_on(a, b, "abs")["maxima"], errors_on(a, b, "rel")["maxima"]
    out = {}
    for f in FORMS:
        r = rel[f][0] if rel[f] else None
        out[f] = {"max": max((e for _, e in ab[f]), default=None), "at": [x for x, _ in ab[f]],
                  "rel": r[1] if r else None, "rel_at": r[0] if r else None}
    return out


def constants_on(c: float, k: float, beta: float, a: float, b: float) -> dict:
    """The tanh form with constants (c, k) and the sigmoid form with beta, against the
    classic constants, on [a, b]: {form: {"params", "x", "error", "classic_error", "at",
    "at_error"}}: the sup error located by :func:`fits.sup_error`, where and its value."""
    x = np.linspace(a, b, POINTS)
    out = {}
    for form, p in (("tanh", {"c": c, "k": k}), ("sigmoid", {"beta": beta})):
        e = fits.error_of(form, p)[0]
        _, at = fits.sup_error(form, p, a, b)
        out[form] = {"params": p, "x": x, "error": e(x), "classic_error": fits.error_of(form, fits.CLASSIC[form])[0](x),
                     "at": at, "at_error": float(e(at))}
    return out


@functools.lru_cache(maxsize=32)
def _fit(form: str, a: float, b: float, norm: str):
    return fits.fit(form, (a, b), norm)


def fit_rows(a: float, b: float, norm: str) -> list[dict]:
    """The fit `gelu-lab fit` runs, for each form on [a, b] under `norm`, beside the classic
    constants, as numbers (the page formats them): {"form", "params", "max", "rms", "classic"
    (the classic params), "cmax", "crms"} (cached: the page asks again for the same interval)."""
    out = []
    for form in fits.FORM_NAMES:
        f = _fit(form, a, b, norm)
        out.append({"form": form, "params": dict(f.params), "max": float(f.max_error), "rms": float(f.rms_error),
                    "classic": dict(f.classic["params"]), "cmax": float(f.classic["max_error"]), "crms": float(f.classic["rms_error"])})
    return out


# --- precision ------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _exhaustive16(impl, dtype):
    return acc.measure(impl, dtype, "exhaustive", progress=False)


@functools.lru_cache(maxsize=8)
def _sample32(impl, n):
    return acc.measure(impl, "float32", "sample", sample=n, progress=False)


def f32_args() -> list[str]:
    """F32_PLAN as `gelu-lab accuracy` options."""
    mode = F32_PLAN["mode"]
    bits = ["--chunk-bits", str(F32_PLAN["chunk_bits"])] if "chunk_bits" in F32_PLAN else []
    if mode == "sample":
        return ["--sample", str(F32_PLAN["sample"]), *bits]
    if mode == "range":
        return ["--range", *(repr(float(v)) for v in F32_PLAN["interval"]), *bits]
    return ["--exhaustive", *bits]


def stored_f32(impl):
    """(summary, source) of `impl` for F32_PLAN: the reader's stored run ("stored"), else the
    shipped one ("shipped"), else (None, None); read through gelu_lab.results.latest."""
    got = results.latest("accuracy", acc.plan("float32", **F32_PLAN).key(acc.resolve(impl)))
    if got is None:
        return None, None
    return got.value, "stored" if got.source == "store" else "shipped"


def precision_rows(dtype) -> list[dict]:
    """The precision table of `dtype`, one row per impl of IMPLS: {"impl", "reference",
    "source" (exhaustive, stored, shipped or sample), "n", "run_id", "max" (ulp), "at" (the
    worst input, None when none is wrong), "wrong" (share not correctly rounded, in [0, 1]),
    "flush", "zsign", "over" (counts)}: numbers (the page's view prints them)."""
    rows = []
    for impl, (s, src) in summaries(dtype).items():
        w, c = s["worst"], s["counts"]
        rows.append({"impl": impl, "reference": s["reference"], "source": src, "n": s["n"], "run_id": s.get("run_id", ""),
                     "max": s["max_ulp"], "at": None if w is None else w["x"], "wrong": s["frac_wrong"],
                     "flush": c["flush"], "zsign": c["zero_sign"], "over": c["overflow"]})
    return rows


def runnable() -> tuple[str, ...]:
    """The impls of IMPLS this installation computes: torch's need torch (the [torch] extra)."""
    return tuple(i for i in IMPLS if not i.startswith("torch:") or extras.installed("torch"))


def summaries(dtype) -> dict:
    """{impl: (summary, source)} of the runnable() impls: 16-bit exhaustive now; float32 the stored run or a sample."""
    out = {}
    for impl in runnable():
        if dtype != "float32":
            out[impl] = (_exhaustive16(impl, dtype), "exhaustive")
        else:
            s, src = stored_f32(impl)
            out[impl] = (s, src) if s is not None else (_sample32(impl, F32_SAMPLE), "sample")
    return out


@functools.lru_cache(maxsize=16)
def _ulp_errors(impl, dtype, a=None, b=None):
    """(x, ulp error) of `impl` at the inputs it gets wrong: all 65 536 of a 16-bit format
    (a, b unused), or ULP_POINTS evenly spaced float32 inputs of [a, b]."""
    if dtype == "float32":
        x = np.unique(np.linspace(a, b, ULP_POINTS).astype(np.float32))
    else:
        x = acc.plan(dtype).chunk(0)  # all 65 536 bit patterns
    im = acc.resolve(impl)
    got, _ = acc.evaluate(im, x)
    u = acc.ulp_distance(got, acc.reference_values(im.reference, x))
    bad = u > 0
    with np.errstate(invalid="ignore"):
        return x[bad].astype(np.float64), u[bad]


def ulp_points(impl, dtype, a, b):
    """(x, ulp error) of the inputs of `dtype` in [a, b] that `impl` gets wrong."""
    x, u = _ulp_errors(impl, dtype, a, b) if dtype == "float32" else _ulp_errors(impl, dtype)
    keep = (x >= a) & (x <= b)
    return x[keep], u[keep]


# --- cost -----------------------------------------------------------------------------


def stored_bench():
    """(run, rows, machine) of the newest `gelu-lab bench` run in the reader's store, else the
    shipped one, else None; read through gelu_lab.results.latest."""
    got = results.latest("bench")
    return None if got is None else (got.run, got.value["rows"], got.value["machine"])


def tanh_speedups() -> list[dict]:
    """The tanh form's throughput over erf's per backend, forward only, at the size and threads
    of :func:`cost`: [{"backend", "ratio"}]; [] without a bench run."""
    from . import bench

    d = cost()
    if d is None:
        return []
    rows = [r for r in bench.tanh_vs_erf(stored_bench()[1])
            if r["n"] == d["n"] and r["threads"] == d["threads"] and r["num"].count(":") == 1]  # "torch:tanh": forward only
    return [{"backend": r["num"].split(":")[0], "ratio": r["ratio"]} for r in rows]


def cost() -> dict | None:
    """Forward float32 throughput (Gelem/s) at the largest size and fewest threads of the
    newest bench run: {"n", "threads", "bars": {form: [per backend]}, "copy", "run",
    "machine"}; None when no run is stored or shipped."""
    got = stored_bench()
    fwd = [r for r in got[1] if r["direction"] == "forward" and r["dtype"] == "float32"] if got else []
    if not fwd:
        return None
    run, rows, machine = got
    n, threads = max(r["n"] for r in fwd), min(r["threads"] for r in fwd)
    at = {r["case"]: r["gelem_s"] for r in fwd if r["n"] == n and r["threads"] == threads}
    return {"n": n, "threads": threads, "bars": {f: [at.get(f"{b}:{f}") for b in BACKENDS] for f in COST_FORMS},
            "copy": at.get("copy"), "run": run or {}, "machine": machine}


GPU_CASES = ("fp32:fwd", "fp32:bwd", "bf16:fwd", "bf16:bwd", "fp32:tanh:fwd", "bf16:tanh:fwd",
             "fp32:geglu", "bf16:geglu", "fp32:geglu-halves", "bf16:geglu-halves")  # a case the check did not time is left out


def gpu_cost() -> dict | None:
    """The shipped check of gelu_lab.gpu (bench/gpu_check.py): provenance, the inputs checked and found wrong,
    per case torch's and our microseconds and torch/ours at the large and the small size, the FFN block;
    None without timings. A section missing or failed ({"error": ...}) is None, a case missing left out."""
    d = shipped.doc("gpu_check.json")
    big = {r["case"]: r for r in d.get("throughput", []) if isinstance(r, dict)} if isinstance(d.get("throughput"), list) else {}
    small = {r["case"]: r for r in d.get("small", []) if isinstance(r, dict)} if isinstance(d.get("small"), list) else {}
    rows = [{"case": c, "torch_us": big[f"torch:{c}"]["median_us"], "ours_us": big[f"ours:{c}"]["median_us"],
             "ratio": big[f"ours:{c}"]["torch_over_ours"], "small": small.get(f"ours:{c}", {}).get("torch_over_ours")}
            for c in GPU_CASES if f"torch:{c}" in big and f"ours:{c}" in big]
    if not rows:
        return None
    ex, ffn = d.get("exhaustive"), d.get("ffn")
    return {"provenance": d.get("provenance", {}), "n": next(iter(big.values()))["n"],
            "small_n": next(iter(small.values()))["n"] if small else None, "rows": rows,
            "exhaustive": ex if isinstance(ex, dict) and {"gelu", "gelu_grad"} <= set(ex) else None,
            "ffn": ffn if isinstance(ffn, dict) and "ours_over_torch" in ffn else None}


# --- the background jobs ----------------------------------------------------------------


ACC_JOB, BENCH_JOB = "accuracy-float32", "bench"  # their kinds (gelu_lab.results.jobs)


def start_accuracy(store, impl: str) -> dict:
    """Start `gelu-lab accuracy` for `impl` over F32_PLAN into `store`, as a background job;
    ValueError for an impl not in IMPLS, jobs.AlreadyRunning while one runs."""
    args = [*accuracy_args(impl), "--store", str(store)]
    return jobs.start(store, ACC_JOB, args, {"what": f"{impl} float32 {F32_PLAN['mode']}", "impl": impl, "mode": F32_PLAN["mode"]})


def accuracy_args(impl: str) -> list[str]:
    """The `gelu-lab accuracy` arguments of the float32 check of `impl` (ValueError for an impl not in IMPLS)."""
    if impl not in IMPLS:
        raise ValueError(f"unknown implementation {impl!r}")
    return ["accuracy", "--impl", impl, "--dtype", "float32", *f32_args()]


def bench_args() -> list[str]:
    """The `gelu-lab bench` arguments of the short bench of BENCH_CASES and BENCH_ARGS."""
    return ["bench", "--cases", ",".join(BENCH_CASES), *BENCH_ARGS]


def start_bench(store) -> dict:
    """Start the short `gelu-lab bench` into `store`, as a background job."""
    return jobs.start(store, BENCH_JOB, [*bench_args(), "--store", str(store)], {"what": "bench " + " ".join(BENCH_ARGS)})
