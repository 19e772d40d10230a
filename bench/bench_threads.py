"""The native kernel's threads: how it scales, and what torch's idle threads do to it, in one run.

    .venv/bin/python bench/bench_threads.py [--repeats 15]

1. The C kernel alone (gelu_lab._native.f32, no Python layers), float32 from N(0, 4),
   2^16 inputs (in cache) and 2^24 (in memory), at 1 and 2 threads: ns per element
   (the best of --repeats) and the speed-up; torch's exact forward and backward beside it.
2. gelu_lab.gelu of 2^24 floats at 2 threads, alternating with torch's exact GELU on the
   same array (as in a torch program): the median milliseconds of each, with the extension's
   OpenMP threads (the default) and with Python threads instead (the path of a build without
   OpenMP or a forked process). libgomp's threads spin for a while after each torch op.
Writes bench/results/bench_threads.json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch

import gelu_lab
import record
from gelu_lab import kernels
from gelu_lab.analysis import bench


def best_ns(fn, n: int, repeats: int) -> float:
    return bench.time_call(fn, repeats)["min_s"] / n * 1e9


def scaling(repeats: int, figures: dict) -> None:
    v = kernels._VARIANTS[kernels.variant()]
    print("# 1. the C kernel alone and torch, ns per element (best of", repeats, ")")
    print(f"{'n':>6} {'function':>9} {'threads':>7} {'gelu_lab':>9} {'torch':>7}")
    for k in (16, 24):
        n = 1 << k
        x = np.random.default_rng(0).normal(0, 2, n).astype(np.float32)
        y, und = np.empty_like(x), np.empty(n // 64 + 256, np.int64)
        xt, yt, ones = torch.from_numpy(x), torch.empty(n), torch.ones(n)
        torch_fn = {0: lambda: torch._C._nn.gelu(xt, out=yt),
                    1: lambda: torch.ops.aten.gelu_backward.grad_input(ones, xt, grad_input=yt)}
        for fn, name in ((0, "gelu"), (1, "gelu_grad")):
            one = None
            for t in (1, 2):
                torch.set_num_threads(t)
                ours = best_ns(lambda: kernels._native.f32(fn, v, x, y, und, t), n, repeats)
                theirs = best_ns(torch_fn[fn], n, repeats)
                one = one or ours
                figures[f"C kernel {name}, 2^{k} inputs, {t} thread{'s' if t > 1 else ''}, ns per element"] = round(ours, 3)
                figures[f"torch {name}, 2^{k} inputs, {t} thread{'s' if t > 1 else ''}, ns per element"] = round(theirs, 3)
                print(f"2^{k:<4} {name:>9} {t:>7} {ours:9.3f} {theirs:7.3f}" + (f"   speed-up {one / ours:.2f}" if t == 2 else ""))


def beside_torch(repeats: int, figures: dict) -> None:
    n = 1 << 24
    x = np.random.default_rng(0).normal(0, 2, n).astype(np.float32)
    y, xt, yt = np.empty_like(x), torch.from_numpy(x), torch.empty(n)
    torch.set_num_threads(2)
    print("\n# 2. gelu of 2^24 floats at 2 threads, alternating with torch's exact GELU: median ms")
    for label, native_threads in (("OpenMP threads (default)", kernels._native_threads), ("Python threads", lambda: False)):
        kernels._native_threads, saved = native_threads, kernels._native_threads
        try:
            with kernels.threads(2):
                ours, theirs = [], []
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    gelu_lab.gelu(x, out=y)
                    t1 = time.perf_counter()
                    torch._C._nn.gelu(xt, out=yt)
                    ours.append(t1 - t0)
                    theirs.append(time.perf_counter() - t1)
        finally:
            kernels._native_threads = saved
        figures[f"gelu_lab.gelu beside torch, 2^24 inputs, 2 threads, {label}, ms"] = round(1e3 * statistics.median(ours), 2)
        print(f"{label:>26}: gelu_lab {1e3 * statistics.median(ours):6.2f}   torch {1e3 * statistics.median(theirs):6.2f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=15)
    a = p.parse_args(argv)
    m = bench.machine([1, 2])
    print(f"# {m['processor']}; ISA {m['isa'] or '-'}; kernel {m['kernel']}; torch {m.get('torch')}")
    if kernels.variant() == "numba":
        print("the native kernel is not in use here (numba runs): nothing to measure", file=sys.stderr)
        return 2
    with record.recording("bench_threads") as figures:
        scaling(a.repeats, figures)
        beside_torch(a.repeats, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
