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
Writes bench/results/bench_op.json.
"""

from __future__ import annotations

import argparse
import sys

import record

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

    with record.recording("bench_op") as figures:
        figures.update(measure(a, sizes))
    return 0


def measure(a, sizes) -> dict:
    from gelu_lab.analysis import bench
    from gelu_lab.printing import text_table

    m = bench.machine([a.threads])
    print(f"# {m['processor']}; ISA: {m['isa'] or '-'}; gelu_lab float32 kernel: {m['kernel']}; "
          f"{a.threads} threads, median of {a.repeats}, microseconds a call")
    names = list(dict.fromkeys(n for pair in PAIRS for n in pair))
    rows = bench.run(names, sizes=sizes, threads=[a.threads], repeats=a.repeats, progress=None, interleave=True)
    us = {(r["case"], r["n"]): r["median_s"] * 1e6 for r in rows}
    ratio = {(q["num"], q["n"]): q["ratio"] for num, den in PAIRS for q in bench.ratios(rows, num, den)}
    print(text_table([{"n": n, **{k: us[(k, n)] for k in names}, **{f"{den} / {num}": ratio[(num, n)] for num, den in PAIRS}}
                      for n in sizes], ["n", *names, *(f"{den} / {num}" for num, den in PAIRS)], digits=4))
    figures = {f"{k}, n = {n}, microseconds a call": round(us[(k, n)], 2) for n in sizes for k in names}
    figures.update({f"{den} / {num}, n = {n}": round(ratio[(num, n)], 3) for n in sizes for num, den in PAIRS})
    return figures


if __name__ == "__main__":
    sys.exit(main())
