"""Fuzz every public numeric function of gelu_lab at volume and print the counts.

    .venv/bin/python bench/fuzz_numeric.py [--n 1048576] [--seed 0]

Runs the checks of tests/test_fuzz_numeric.py (one piece of code for both):
every GELU form and derivative, every registry activation, on every bit
pattern of float16 and bfloat16 and on n random bit patterns plus n N(0, 3)
values of float32 and float64 (specials always included); the torch face
(values, backward, double backward against NumPy, bit for bit); and
round_to_format against the brute-force nearest on n random float64 patterns
plus the midpoints between neighbouring values of each format.

Prints inputs tried per dtype, failures (each one described) and seconds;
exits 1 if anything failed.
Writes bench/results/fuzz_numeric.json (also when a failure is found: it is the finding).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import record

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import test_fuzz_numeric as T  # noqa: E402

import gelu_lab  # noqa: E402
from gelu_lab.floats import FORMATS, round_to_format  # noqa: E402


def torch_face(n: int, rng) -> tuple[int, list[str]]:
    """gelu_lab.gelu on tensors: values, backward and double backward equal the NumPy results."""
    import torch

    from gelu_lab import torch as gtorch

    tried, bad = 0, []
    for dtype, dt in T.DTYPES.items():
        x = T.inputs(dt, n, rng)
        for approx in T.APPROX:
            t = gtorch.from_numpy(x, torch.empty(0)).requires_grad_(True)
            y = T.call(gelu_lab.gelu, t, approx)
            (g,) = torch.autograd.grad(y.sum(), t, create_graph=True)
            (g2,) = torch.autograd.grad(g.sum(), t)
            for what, got, want in (("value", y, gelu_lab.gelu), ("backward", g, gelu_lab.gelu_grad),
                                    ("double backward", g2, gelu_lab.gelu_grad2)):
                if got.dtype != t.dtype or not T.same(gtorch.to_numpy(got), want(x, approx)):
                    bad.append(f"torch {what} [{approx}] {dtype}: differs from NumPy")
            tried += x.size
    return tried, bad


def rounding(n: int, rng) -> tuple[int, list[str]]:
    """round_to_format against the brute-force nearest value (16-bit) or the IEEE cast (float32)."""
    tried, bad = 0, []
    for name in ("float16", "bfloat16", "float32"):
        dt = T.DTYPES[name]
        y = T.round_inputs(dt, n, rng)
        got = T.call(round_to_format, y, FORMATS[name])
        with np.errstate(over="ignore", invalid="ignore"):
            want = T.nearest_by_search(y, dt) if dt.itemsize == 2 else y.astype(dt)
        u = T.UINT[dt.itemsize]
        wrong = np.flatnonzero((got.view(u) != want.view(u)) & ~np.isnan(y))
        if wrong.size:
            bad.append(f"round_to_format {name}: {wrong.size} wrong, e.g. y={y[wrong[:3]].tolist()}")
        tried += y.size
    return tried, bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="random float32/float64 inputs of each kind per function (default 2^20)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with record.recording("fuzz_numeric", timed=False) as figures:
        return run(args, figures)


def run(args, figures) -> int:
    rng = np.random.default_rng(args.seed)

    t0 = time.perf_counter()
    with tqdm(total=len(T.CASES) * len(T.DTYPES), desc="functions x dtypes", file=sys.stderr) as bar:
        r = T.fuzz(args.n, args.seed, progress=bar.update)
    t_fuzz = time.perf_counter() - t0
    print(f"{r['cases']} functions x {len(T.DTYPES)} dtypes, {t_fuzz:.1f} s")
    for name, k in r["inputs"].items():
        print(f"  {name:9s} {k:>13,d} inputs ({k // r['cases']:,d} per function)")
    total = sum(r["inputs"].values())
    failures = list(r["failures"])

    t1 = time.perf_counter()
    n_torch, bad = torch_face(max(1, args.n // 8), rng)
    failures += bad
    print(f"torch face (value, backward, double backward x 3 forms): {n_torch:,d} inputs, {time.perf_counter() - t1:.1f} s")
    t2 = time.perf_counter()
    n_round, bad = rounding(args.n, rng)
    failures += bad
    print(f"round_to_format (float16, bfloat16, float32): {n_round:,d} inputs, {time.perf_counter() - t2:.1f} s")

    total += n_torch + n_round
    print(f"inputs tried: {total:,d}; failures: {len(failures)}; {time.perf_counter() - t0:.1f} s in all")
    figures.update({"inputs tried": total, "public functions x dtypes": f"{r['cases']} x {len(T.DTYPES)}",
                    "torch value / backward / double-backward checks": n_torch, "round_to_format cases": n_round,
                    "failures": len(failures), "seconds in all": round(time.perf_counter() - t0, 1)})
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
