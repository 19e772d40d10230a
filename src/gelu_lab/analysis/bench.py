"""Cost: throughput of every GELU form on every backend, against the memory roofline.

    time_call(fn, repeats=5)            median seconds of one call (the one timing helper)
    CASES                               name -> Case(backend, form, direction, dtype, setup)
    run(cases, sizes, threads)          rows of Gelem/s with ratios measured in the same run
    machine(threads)                    CPU, its ISA, the float32 kernel in use, thread count, library versions
    torch_kernels()                     which kernel torch runs for each torch case: oneDNN's (and its ISA) or ATen's

A case's ``setup(n)`` builds its arrays once and returns a zero-argument callable;
only that callable is timed. The roofline is ``np.copyto`` of n float32 (read n,
write n): no elementwise kernel that reads its input and writes its output can
beat it, so ``vs_copy`` is the share of the memory bandwidth a kernel reaches.
Forward cases time y = f(x); "grad" cases the derivative alone (gelu_lab.gelu_grad,
torch's gelu_backward kernel with g = 1); "fwd+bwd" cases time y = f(x) and
y.backward(g) through torch autograd (for gelu_lab: value and derivative).
The "gelu_lab.torch" cases are gelu_lab's torch op on a tensor, as a model
calls it: forward with out= (torch:erf's way) and fwd+bwd through
gelu_lab.torch.GELU; next to NumPy's, they show what the op's dispatch and
autograd cost at small sizes (bench/bench_op.py).
"""

from __future__ import annotations

import functools
import os
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..numerics import INV_SQRT2, SIGMOID_BETA, SQRT_2_OVER_PI, TANH_CUBIC

KIND = "bench"


CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}


def time_call(fn: Callable, repeats: int = 5, min_sample_s: float = 2e-3, clock: str = "wall") -> dict:
    """Median time of one call of fn, over `repeats` samples.

    One untimed warm-up call (JIT, caches, page faults), then each sample runs
    fn `inner` times in a row so that a sample lasts at least min_sample_s
    (perf_counter resolution and call overhead do not dominate tiny sizes).
    clock: "wall" (perf_counter) or "thread" (the calling thread's CPU time:
    not slowed by other processes sharing the core, but blind to work done in
    other threads, so only meaningful at one thread).
    """
    return time_interleaved({"": fn}, repeats, min_sample_s, clock)[""]


def _calibrate(fn: Callable, min_sample_s: float, clock: str) -> int:
    """Calls per sample: one warm-up call, then one timed call sets how many make min_sample_s."""
    now = CLOCKS[clock]
    fn()
    t0 = now()
    fn()
    return max(1, int(min_sample_s / max(now() - t0, 1e-9)))


def _sample(fn: Callable, inner: int, clock: str) -> float:
    now = CLOCKS[clock]
    t0 = now()
    for _ in range(inner):
        fn()
    return (now() - t0) / inner


def time_interleaved(fns: dict, repeats: int = 5, min_sample_s: float = 2e-3, clock: str = "wall") -> dict:
    """time_call for several callables at once, sampled in turn (a, b, c, a, b, c, ...).

    A load that comes and goes on a shared machine then falls on every callable
    alike, so the ratios of their medians hold better than from runs one after another.
    """
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    inner = {k: _calibrate(f, min_sample_s, clock) for k, f in fns.items()}
    samples = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            samples[k].append(_sample(f, inner[k], clock))
    return {k: {"median_s": statistics.median(v), "min_s": min(v), "max_s": max(v), "repeats": repeats, "inner": inner[k]}
            for k, v in samples.items()}


@dataclass(frozen=True)
class Case:
    name: str
    backend: str  # numpy | gelu_lab | gelu_lab.torch | torch | roofline
    form: str  # erf | tanh | sigmoid | copy
    direction: str  # forward | grad | fwd+bwd
    dtype: str
    setup: Callable  # n -> zero-argument callable


def _x(n: int, dtype="float32") -> np.ndarray:
    # N(0, 2): the range where activations live; every code path is taken
    x = np.random.default_rng(0).normal(0.0, 2.0, n)
    if dtype == "float32":
        return x.astype(np.float32)
    from ..floats import FORMATS, round_to_format

    return round_to_format(x, FORMATS[dtype])


def _numpy_case(form):
    from scipy import special

    def setup(n):
        x = _x(n)
        out = np.empty_like(x)
        h, k, c, b = np.float32(0.5), np.float32(SQRT_2_OVER_PI), np.float32(TANH_CUBIC), np.float32(SIGMOID_BETA)
        if form == "erf":
            return lambda: np.multiply(h * x, 1 + special.erf(x * np.float32(INV_SQRT2)), out=out)
        if form == "tanh":
            return lambda: np.multiply(h * x, 1 + np.tanh(k * (x + c * x * x * x)), out=out)
        return lambda: np.multiply(x, special.expit(b * x), out=out)

    return setup


def _gelu_lab_case(approximate, direction, dtype="float32"):
    def setup(n):
        import gelu_lab

        x = _x(n, dtype)
        out = np.empty_like(x)
        if direction == "forward":
            return lambda: gelu_lab.gelu(x, approximate, out=out)
        if direction == "grad":
            return lambda: gelu_lab.gelu_grad(x, approximate, out=out)
        g = np.empty_like(x)
        return lambda: (gelu_lab.gelu(x, approximate, out=out), gelu_lab.gelu_grad(x, approximate, out=g))

    return setup


ACTIVATION = {"erf": "gelu", "tanh": "gelu_tanh", "sigmoid": "gelu_sigmoid"}  # form -> registry name


def _torch_case(form, direction, dtype="float32"):
    def setup(n):
        import torch

        from ..torch import from_numpy, native, sigmoid_form

        x = from_numpy(_x(n, dtype), torch.empty(0))
        approx = "none" if form == "erf" else "tanh"
        if direction == "forward":  # written into a preallocated tensor
            out = torch.empty_like(x)
            if form == "sigmoid":
                return lambda: sigmoid_form(x, out=out)
            return lambda: torch._C._nn.gelu(x, approximate=approx, out=out)
        if direction == "grad":  # the backward kernel alone: g * GELU'(x), g = 1
            ones, out = torch.ones_like(x), torch.empty_like(x)
            return lambda: torch.ops.aten.gelu_backward.grad_input(ones, x, approximate=approx, grad_input=out)
        return _fwd_bwd(native(ACTIVATION[form]), x)

    return setup


def _op_case(direction):
    def setup(n):
        import torch

        from .. import torch as gtorch

        x = gtorch.from_numpy(_x(n), torch.empty(0))
        if direction == "forward":
            out = torch.empty_like(x)
            return lambda: gtorch.gelu(x, out=out)
        return _fwd_bwd(gtorch.GELU(), x)

    return setup


def _fwd_bwd(module, x):
    """y = module(x), y.backward(ones), x a leaf that requires grad (its .grad: the derivative)."""
    import torch

    xr, g = x.clone().requires_grad_(True), torch.ones_like(x)

    def fwd_bwd():
        xr.grad = None
        module(xr).backward(g)

    return fwd_bwd


def _copy_case(n):
    x = _x(n)
    out = np.empty_like(x)
    return lambda: np.copyto(out, x)


def _cases() -> dict:
    cs = [Case("copy", "roofline", "copy", "forward", "float32", _copy_case)]
    for form in ("erf", "tanh", "sigmoid"):
        cs.append(Case(f"numpy:{form}", "numpy", form, "forward", "float32", _numpy_case(form)))
    for form, approx in (("erf", "none"), ("tanh", "tanh"), ("sigmoid", "sigmoid")):
        cs.append(Case(f"gelu_lab:{form}", "gelu_lab", form, "forward", "float32", _gelu_lab_case(approx, "forward")))
        cs.append(Case(f"gelu_lab:{form}:fwd+bwd", "gelu_lab", form, "fwd+bwd", "float32", _gelu_lab_case(approx, "fwd+bwd")))
    for form in ("erf", "tanh", "sigmoid"):
        cs.append(Case(f"torch:{form}", "torch", form, "forward", "float32", _torch_case(form, "forward")))
        cs.append(Case(f"torch:{form}:fwd+bwd", "torch", form, "fwd+bwd", "float32", _torch_case(form, "fwd+bwd")))
    for form, approx in (("erf", "none"), ("tanh", "tanh")):
        cs.append(Case(f"gelu_lab:{form}:grad", "gelu_lab", form, "grad", "float32", _gelu_lab_case(approx, "grad")))
        cs.append(Case(f"torch:{form}:grad", "torch", form, "grad", "float32", _torch_case(form, "grad")))
    cs.append(Case("gelu_lab.torch:erf", "gelu_lab.torch", "erf", "forward", "float32", _op_case("forward")))
    cs.append(Case("gelu_lab.torch:erf:fwd+bwd", "gelu_lab.torch", "erf", "fwd+bwd", "float32", _op_case("fwd+bwd")))
    for dt in ("bfloat16", "float16"):
        cs.append(Case(f"gelu_lab:erf:{dt}", "gelu_lab", "erf", "forward", dt, _gelu_lab_case("none", "forward", dt)))
        cs.append(Case(f"torch:erf:{dt}", "torch", "erf", "forward", dt, _torch_case("erf", "forward", dt)))
    return {c.name: c for c in cs}


CASES = _cases()
DEFAULT_SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)
MAX_SIZE = 10**8


def set_threads(threads: int):
    """Thread count of numba and torch (NumPy/SciPy elementwise code is single-threaded)."""
    import numba

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        pass


def machine(threads: int | None = None) -> dict:
    """Where the figures were measured: CPU, cores, threads used, versions."""
    from ..results.store import provenance

    info = provenance()
    import numba

    info["numba"] = numba.__version__
    try:
        import torch

        info["torch"] = torch.__version__
    except ImportError:
        pass
    from .. import kernels

    info["kernel"] = kernels.variant()  # the float32 kernel gelu_lab runs here (native variant or numba)
    info["lookup16"] = kernels.lookup_variant()  # and the 16-bit lookups' (native wherever it was built)
    info["kernels"] = kernels.available()
    info["isa"] = cpu_isa()
    info["torch_kernels"] = torch_kernels()
    info["threads"] = threads
    info["affinity_cpus"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return info


# Run in a fresh process with oneDNN's log on: each torch case once on a few inputs, a marker line before it.
_TORCH_KERNELS_PROBE = """
import sys
from gelu_lab.analysis.bench import CASES
for name in sys.argv[1:]:
    print("#case", name, flush=True)
    CASES[name].setup(4096)()
import torch
print("#aten", torch.backends.cpu.get_cpu_capability(), flush=True)
"""


def torch_kernels(names=None) -> dict[str, str]:
    """Which kernel torch runs for each torch forward and grad case: "oneDNN <implementation>"
    as oneDNN's log names it (e.g. "oneDNN jit:avx2"), else "ATen <CPU capability>".

    torch sends contiguous float32 and bfloat16 exact GELU, forward and backward, to
    oneDNN, which picks its ISA itself (ONEDNN_MAX_CPU_ISA caps it, ATEN_CPU_CAPABILITY
    does not), so a ratio against torch names the kernel it was divided by. Empty
    where torch is missing or the probe fails. Costs a fresh process (torch's import)
    the first time per set of cases and ISA caps.
    """
    names = tuple(n for n in (names or CASES) if CASES[n].backend == "torch" and CASES[n].direction in ("forward", "grad"))
    return dict(_probe_torch_kernels(names, *(os.environ.get(k) for k in _ISA_CAPS)))


_ISA_CAPS = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")  # what the kernels' choice reads


@functools.cache
def _probe_torch_kernels(names: tuple, *caps) -> tuple:
    import subprocess
    import sys

    env = dict(os.environ, ONEDNN_VERBOSE="1")
    try:
        done = subprocess.run([sys.executable, "-c", _TORCH_KERNELS_PROBE, *names], env=env, capture_output=True,
                              text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if done.returncode != 0:
        return ()
    found, case, aten = {}, None, "?"
    for line in done.stdout.splitlines():
        if line.startswith("#case "):
            case = line.split()[1]
        elif line.startswith("#aten "):
            aten = line.split()[1]
        elif case and line.startswith("onednn_verbose,") and ",primitive,exec,cpu," in line:
            found[case] = "oneDNN " + line.split(",")[6]  # onednn_verbose,v1,primitive,exec,cpu,<kind>,<impl>,...
    return tuple((n, found.get(n, f"ATen {aten}")) for n in names)


ISA_FLAGS = ("avx512f", "avx512vl", "avx2", "fma")  # what the native kernel's variants need


def cpu_isa() -> str:
    """The instruction-set extensions of ISA_FLAGS this CPU reports (/proc/cpuinfo; "" elsewhere)."""
    from ..results.store import cpuinfo

    flags = cpuinfo().get("flags", "").split()
    return " ".join(fl for fl in ISA_FLAGS if fl in flags)


def check_names(names) -> list[str]:
    names = list(names)
    bad = [n for n in names if n not in CASES]
    if bad:
        raise ValueError(f"unknown bench case {bad[0]!r}; choose from {', '.join(CASES)}")
    return names


def run(names=None, sizes=DEFAULT_SIZES, threads=(1,), repeats: int = 5, progress: bool | None = None,
        clock: str = "wall", interleave: bool = False) -> list[dict]:
    """Throughput rows for every case x size x thread count.

    Each row: case, backend, form, direction, dtype, n, threads, median_s,
    min_s (a loaded machine shows in the gap between the two; clock: see
    time_call), gelem_s (1e9
    elements per second, from the median) and vs_copy (its throughput over the
    roofline's at the same n and threads: copy is always measured too).
    interleave: the cases of one (threads, n) are set up together and sampled
    in turn (time_interleaved): fairer ratios on a shared machine, all their
    arrays in memory at once.
    """
    from ..results.progress import bar as tqdm  # tqdm, mirrored to a background job's progress file

    names = check_names(names or list(CASES))
    if "copy" not in names:
        names = ["copy", *names]
    sizes = [int(s) for s in sizes]
    if any(not 1 <= s <= MAX_SIZE for s in sizes):
        raise ValueError(f"sizes must lie in 1..{MAX_SIZE:.0e}")
    if any(int(t) < 1 for t in threads):
        raise ValueError("threads must be >= 1")
    if clock not in CLOCKS or (clock == "thread" and any(int(t) != 1 for t in threads)):
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}; 'thread' only at one thread")
    rows = []
    bar = tqdm(total=len(names) * len(sizes) * len(threads), desc="bench", disable=None if progress is None else not progress, leave=False)
    try:
        for t in threads:
            set_threads(int(t))
            for n in sizes:
                if interleave:
                    timed = time_interleaved({name: CASES[name].setup(n) for name in names}, repeats, clock=clock)
                else:
                    timed = {}
                    for name in names:
                        timed[name] = time_call(CASES[name].setup(n), repeats, clock=clock)
                        bar.update(1)
                copy = None
                for name in names:
                    c, r = CASES[name], timed[name]
                    row = {"case": name, "backend": c.backend, "form": c.form, "direction": c.direction, "dtype": c.dtype,
                           "n": n, "threads": int(t), "median_s": r["median_s"], "min_s": r["min_s"],
                           "gelem_s": n / r["median_s"] / 1e9}
                    copy = row["gelem_s"] if name == "copy" else copy
                    row["vs_copy"] = row["gelem_s"] / copy
                    rows.append(row)
                if interleave:
                    bar.update(len(names))
    finally:
        bar.close()
    return rows


def ratios(rows: list[dict], num: str, den: str) -> list[dict]:
    """Throughput of case `num` over case `den`, per (n, threads), from the same run."""
    by = {(r["case"], r["n"], r["threads"]): r["gelem_s"] for r in rows}
    out = []
    for (case, n, t), v in by.items():
        if case == num and (den, n, t) in by:
            out.append({"num": num, "den": den, "n": n, "threads": t, "ratio": v / by[(den, n, t)]})
    return out


# the question the bench must answer: is the tanh form much cheaper than erf?
TANH_VS_ERF = [("numpy:tanh", "numpy:erf"), ("torch:tanh", "torch:erf"), ("torch:tanh:fwd+bwd", "torch:erf:fwd+bwd"),
               ("gelu_lab:tanh", "gelu_lab:erf")]


def tanh_vs_erf(rows: list[dict]) -> list[dict]:
    """Speed of the tanh form over erf (> 1: tanh faster), per backend, size and threads."""
    return [r for num, den in TANH_VS_ERF for r in ratios(rows, num, den)]


def measure(names=None, sizes=DEFAULT_SIZES, threads=(1,), repeats: int = 5, store=None, progress=None, command=None,
            interleave: bool = False) -> dict:
    """run() plus the machine and the tanh/erf ratios; stored (kind "bench") when store is given."""
    rows = run(names, sizes, threads, repeats, progress, interleave=interleave)
    result = {"machine": machine(list(threads)), "rows": rows, "tanh_vs_erf": tanh_vs_erf(rows)}
    if store is not None:
        key = f"threads={','.join(map(str, threads))}"
        plan = {"cases": names or list(CASES), "sizes": list(sizes), "threads": list(threads), "repeats": repeats, "interleave": interleave}
        rid = store.start_run(KIND, key, plan, command)
        for name in ("machine", "rows", "tanh_vs_erf"):
            store.put_result(rid, name, result[name])
        store.set_status(rid, "done")
        result["run_id"] = rid
    return result
