"""Per-call cost of gelu_lab's GELU by size, NumPy and torch op, against torch's own, in one run.

    .venv/bin/python bench/bench_op.py [--sizes 1024,65536,1048576] [--threads 2] [--repeats 9]

bench/bench_gelu.py measures throughput at 2^24, where the kernels' speed is
all that counts; a model calls GELU on smaller tensors too, where what
surrounds the kernel counts. At each size, microseconds per call (median of
--repeats samples, the cases of one size sampled in turn) of these cases of
gelu_lab.analysis.bench (float32 from N(0, 4)):

  gelu_lab:erf                gelu_lab.gelu(x, out=y) on a NumPy array
  gelu_lab.torch:erf          gelu_lab.torch.gelu(x, out=y) on a tensor: the torch op
  torch:erf                   torch's exact GELU, out=y
  gelu_lab.torch:erf:fwd+bwd  gelu_lab.torch.GELU()(x).backward(g), x requiring grad
  torch:erf:fwd+bwd           torch.nn.GELU()(x).backward(g)

and torch's time over ours (above 1: ours is faster), each ratio from this run.
"""

from __future__ import annotations

import argparse
import sys

PAIRS = [("gelu_lab:erf", "torch:erf"), ("gelu_lab.torch:erf", "torch:erf"), ("gelu_lab.torch:erf:fwd+bwd", "torch:erf:fwd+bwd")]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1024,65536,1048576")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=9)
    a = p.parse_args(argv)
    try:
        sizes = [int(s) for s in a.sizes.split(",")]
    except ValueError:
        p.error(f"--sizes: comma-separated integers, got {a.sizes!r}")
    if min(sizes) < 1 or a.threads < 1 or a.repeats < 1:
        p.error("--sizes, --threads and --repeats must be positive")

    from gelu_lab import kernels
    from gelu_lab.analysis import bench
    from gelu_lab.results.printing import text_table
    from gelu_lab.results.store import provenance

    bench.set_threads(a.threads)
    names = list(dict.fromkeys(n for pair in PAIRS for n in pair))
    print(f"# {provenance()['processor']}; ISA: {bench.cpu_isa() or '-'}; gelu_lab float32 kernel: {kernels.variant()}; "
          f"{a.threads} threads, median of {a.repeats}, microseconds a call")
    rows = []
    for n in sizes:
        timed = bench.time_interleaved({k: bench.CASES[k].setup(n) for k in names}, repeats=a.repeats)
        us = {k: timed[k]["median_s"] * 1e6 for k in names}
        rows.append({"n": n, **us, **{f"{den} / {num}": us[den] / us[num] for num, den in PAIRS}})
    print(text_table(rows, list(rows[0]), digits=4))
    return 0


if __name__ == "__main__":
    sys.exit(main())
