"""What a call of gelu_lab.torch's GPU path costs the host, measured on the CPU: the kernels are not launched.

    .venv/bin/python bench/gpu_host.py [--n 1024] [--repeats 7]

On a GPU, a small tensor's GELU takes as long as the host takes to issue it (bench/gpu_check.py's
"small" rows: the device's time per call is the host's). This runs the same path here, CPU tensors
sent down the Triton path as the tests send them (TRITON_ON_CPU), with main32, settle32 and lookup16
replaced by launches that do nothing: what is left is the dispatcher, autograd and gelu_lab's own
Python around the launches. Triton's launcher itself is not in it (that needs a GPU).

Cases (microseconds a call, best of --repeats, each of 2000 calls, the cases in turn):
  fp32 forward      gelu_lab.torch.gelu(x), float32
  bf16 forward      gelu_lab.torch.gelu(x), bfloat16
  fp32 backward op  torch.ops.gelu_lab.gelu_backward(g, x)
  fp32 fwd+bwd      gelu_lab.torch.gelu(x).backward(g), x requiring grad
  torch             torch.nn.functional.gelu(x) on the same CPU tensor: a native op's dispatch and a small kernel
Writes bench/results/gpu_host.json.
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit

import record


class _NoLaunch:
    """kernel[grid](...) that does nothing."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def measure(n: int, repeats: int) -> dict:
    import torch

    import gelu_lab.torch as gtorch
    from gelu_lab.gpu import kernels

    gtorch.TRITON_ON_CPU = True
    kernels.main32 = kernels.settle32 = kernels.lookup16 = _NoLaunch()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, generator=gen)
    g = torch.randn(n, generator=gen)
    xb = x.to(torch.bfloat16)
    xr = x.clone().requires_grad_(True)
    cases = {
        "fp32 forward": lambda: gtorch.gelu(x),
        "bf16 forward": lambda: gtorch.gelu(xb),
        "fp32 backward op": lambda: gtorch._BACKWARD(g, x, "none", 0),
        "fp32 fwd+bwd": lambda: gtorch.gelu(xr).backward(g),
        "torch": lambda: torch.nn.functional.gelu(x),
    }
    for f in cases.values():
        f()
    best = {k: float("inf") for k in cases}
    for _ in range(repeats):
        for k, f in cases.items():
            best[k] = min(best[k], timeit.timeit(f, number=2000) / 2000)
    print(f"# n = {n}, kernels not launched, best of {repeats}, microseconds a call")
    for k, v in best.items():
        print(f"{k:>18}  {v * 1e6:8.2f}")
    return {f"{k}, n = {n}, microseconds a call": round(v * 1e6, 2) for k, v in best.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--repeats", type=int, default=7)
    a = p.parse_args(argv)
    if a.n < 1 or a.repeats < 1:
        p.error("--n and --repeats must be positive")
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: no GPU needed to import the kernels
    with record.recording("gpu_host") as figures:
        figures.update(measure(a.n, a.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
