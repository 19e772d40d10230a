"""What the float32 pass of gelu_lab.gpu spends its time on: variants of main32 timed against torch's GELU.

    PYTHONPATH=src python3 bench/gpu_main_pass.py            (on a GPU; each variant in a process of its own)

Each variant replaces one piece of gelu_lab.gpu (tiers.horner8, kernels._list) before the kernel is compiled (a fresh process
each, so Triton's cache cannot hand back another variant's binary):
    base      the kernel as shipped
    uniform   every input reads sub-range 0's coefficients (the same loads, but one address per warp)   } wrong values,
    noload    the coefficients are constants in the code (no loads at all)                              } on purpose:
    nolist    no listing (no per-block sum, no atomic)                                                   } each shows a cost
    gather    a candidate: each coefficient row (16 values) loaded once per program, then tl.gather per input
              (registers or shared memory) instead of a load from global memory per input; the same arithmetic
If base is near noload and far from uniform, the per-input loads are what the pass waits on, and gather is the
first thing to try; if base is near uniform, the float64 arithmetic is.
It prints torch's time over each variant's (exact GELU, float32, 2^28 elements of N(0, 1), CUDA events, median of
25, interleaved with torch), for base and gather whether their values on 2^20 of those inputs are the CPU kernel's
("same" or "DIFFERENT"), and writes them to --out (default bench/results/gpu_main_pass.json).
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import subprocess
import sys

import triton
import triton.language as tl

from gelu_lab.gpu.tiers import C_AT

VARIANTS = ("base", "uniform", "noload", "nolist", "gather")


@triton.jit
def gathered_horner8(tab, i, t):
    """tiers.horner8's sum, each coefficient row loaded once (16 values) and gathered per input."""
    lane = tl.arange(0, 16)
    p = tl.gather(tl.load(tab + C_AT + 128 + lane), i, 0)
    for jj in tl.static_range(8):
        p = tl.fma(p, t, tl.gather(tl.load(tab + C_AT + 112 - 16 * jj + lane), i, 0))
    return p


CORRECT = ("base", "gather")  # the variants whose values must be the CPU kernel's


def run(variant: str) -> str:
    import torch

    from gelu_lab import gpu, torch as gtorch
    from gelu_lab.gpu import kernels as K, tiers

    if variant == "uniform":
        @triton.jit
        def horner(tab, i, t):
            p = tl.load(tab + 128)
            for jj in tl.static_range(8):
                p = p * t + tl.load(tab + 112 - 16 * jj)
            return p
        tiers.horner8 = horner
    elif variant == "noload":
        @triton.jit
        def horner(tab, i, t):
            p = t * 0.0 + 1.1e-7
            for jj in tl.static_range(8):
                p = p * t + (0.37 - 0.041 * jj)
            return p
        tiers.horner8 = horner
    elif variant == "gather":
        tiers.horner8 = gathered_horner8
    elif variant == "nolist":
        @triton.jit
        def nolist(listed, offs, list_ptr, count_ptr, cap):
            pass
        K._list = nolist
    x = torch.randn(1 << 28, device="cuda", generator=torch.Generator(device="cuda").manual_seed(1))
    cases = {"torch": lambda: torch.nn.functional.gelu(x), "ours": lambda: gpu.apply(x, "none", 0)}
    for f in cases.values():
        f(), f()
    torch.cuda.synchronize()
    times = {k: [] for k in cases}
    for _ in range(25):
        for k, f in cases.items():
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            f()
            b.record()
            b.synchronize()
            times[k].append(a.elapsed_time(b))
    line = f"{variant} {statistics.median(times['torch']) / statistics.median(times['ours']):.3f}"
    if variant in CORRECT:
        head = x[:1 << 20]
        ok = torch.equal(gpu.apply(head, "none", 0).cpu().view(torch.int32), gtorch._on_cpu(head.cpu(), 0, "none").view(torch.int32))
        line += " same" if ok else " DIFFERENT"
    return line


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in VARIANTS:
        print(run(sys.argv[1]))
    else:
        out_path = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else os.path.join(os.path.dirname(__file__), "results", "gpu_main_pass.json")
        ratios, values = {}, {}
        for v in VARIANTS:
            got = subprocess.run([sys.executable, __file__, v], capture_output=True, text=True)
            print(got.stdout.strip() or f"{v} failed: {got.stderr.strip()[-300:]}", flush=True)
            words = got.stdout.strip().splitlines()[-1].split() if got.stdout.strip() else []
            if len(words) > 1 and words[0] == v:
                ratios[v] = float(words[1])
                if len(words) > 2:
                    values[v] = words[2]
        import torch

        with open(out_path, "w") as f:
            json.dump({"torch_over_ours": ratios, "values_vs_cpu_kernel": values, "provenance": {
                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "command": "PYTHONPATH=src python3 bench/gpu_main_pass.py", "device": torch.cuda.get_device_name(),
                "torch": torch.__version__}}, f, indent=1)
