"""Every float32 input through every native kernel variant, against the numba kernel.

    .venv/bin/python bench/exhaustive_native.py [--funcs gelu,gelu_grad] [--variants avx512,avx2,scalar]
                                                [--chunk 2^24] [--start 0 --stop 2^32]

For each chunk of bit patterns, gelu_lab.kernels.raw_f32 runs once with the
numba kernel (GELU_LAB_KERNEL=numba: the independent path, itself checked
exhaustively against the libm+mpmath reference by bench/exhaustive_float32.sh)
and once per native variant. Each side's undecided inputs are settled by
gelu_lab.reference.correctly_rounded (the one thing the two share), and the
two results must agree bit for bit on every input. Prints, per function and
variant, the count of mismatches (must be 0), of undecided inputs, and the
seconds the variant's kernel took. Exit status 1 on any mismatch.
Writes bench/results/exhaustive_native.json when it ran over all 2^32 inputs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import record
from gelu_lab import kernels
from gelu_lab.reference import correctly_rounded


def settled(name: str, x: np.ndarray, v: str, out: np.ndarray) -> tuple[np.ndarray, int, float]:
    """(correctly rounded values by kernel v and the reference, in out, undecided count, kernel
    seconds). out is reused from chunk to chunk: a fresh array would be paged in at every call."""
    os.environ[kernels.KERNEL_ENV] = v
    t0 = time.perf_counter()
    y, idx = kernels.raw_f32(name, x, out=out[:x.size])
    dt = time.perf_counter() - t0
    if idx.size:
        y[idx] = correctly_rounded(name, x[idx])
    return y, idx.size, dt


def count(text: str) -> int:
    """An integer, or a power of two written 2^k (never eval'd)."""
    base, _, exp = text.partition("^")
    try:
        return int(base) ** int(exp) if exp else int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer or 2^k: {text!r}") from None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--funcs", default="gelu,gelu_grad")
    p.add_argument("--variants", default=",".join(v for v in kernels.available() if v != "numba"))
    p.add_argument("--chunk", type=count, default=1 << 24)
    p.add_argument("--start", type=count, default=0)
    p.add_argument("--stop", type=count, default=1 << 32)
    a = p.parse_args(argv)
    if (a.start, a.stop) != (0, 1 << 32):
        return sweep(a, {})
    with record.recording("exhaustive_native", timed=False) as figures:
        return sweep(a, figures)


def sweep(a, figures) -> int:
    variants = [v for v in a.variants.split(",") if v]
    saved = os.environ.get(kernels.KERNEL_ENV)
    bad = 0
    bits = np.arange(a.chunk, dtype=np.uint32)  # a chunk's bit patterns are lo + bits
    want_buf, got_buf = np.empty(a.chunk, np.float32), np.empty(a.chunk, np.float32)
    print(f"# inputs [{a.start:#x}, {a.stop:#x}) in chunks of {a.chunk}; variants {variants} vs numba")
    try:
        for name in a.funcs.split(","):
            stats = {v: [0, 0, 0.0] for v in variants}  # mismatches, undecided, seconds
            t_start = time.perf_counter()
            for lo in range(a.start, a.stop, a.chunk):
                x = (bits[:min(a.chunk, a.stop - lo)] + np.uint32(lo)).view(np.float32)
                want, _, _ = settled(name, x, "numba", want_buf)
                for v in variants:
                    got, n_und, dt = settled(name, x, v, got_buf)
                    wrong = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
                    if wrong.size and stats[v][0] == 0:
                        i = wrong[0]
                        print(f"  {name} {v}: x = {x[i]!r} ({x.view(np.uint32)[i]:#010x}) got {got[i]!r} want {want[i]!r}")
                    stats[v][0] += wrong.size
                    stats[v][1] += n_und
                    stats[v][2] += dt
            total = a.stop - a.start
            for v, (n_bad, n_und, secs) in stats.items():
                print(f"{name:9s} {v:7s} inputs {total}  mismatches {n_bad}  undecided {n_und}  kernel {secs:.1f} s")
                figures[f"{name}, {v} variant: mismatches with the numba kernel of {total} inputs"] = n_bad
                bad += n_bad
            print(f"{name:9s} all variants and the numba path: {time.perf_counter() - t_start:.1f} s")
    finally:
        if saved is None:
            os.environ.pop(kernels.KERNEL_ENV, None)
        else:
            os.environ[kernels.KERNEL_ENV] = saved
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
