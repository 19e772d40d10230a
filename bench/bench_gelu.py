"""Throughput of gelu_lab's GELU kernels against torch and the memory roofline, in one run.

    .venv/bin/python bench/bench_gelu.py [--n 16777216] [--threads 1,2] [--repeats 9] [--clock wall|thread] [--avx2]

For n float32 elements (default 2^24) at each thread count (numba and torch
both set): gelu_lab.gelu and gelu_lab.gelu_grad (float32: the correctly
rounded kernel, native or numba as printed), torch's exact and tanh GELU and its backward kernel,
np.copyto (the memory roofline), and the 16-bit paths (gelu_lab's table
lookup vs torch) in bfloat16 and float16. Each figure is the median of
--repeats timed samples; the cases of one thread count are sampled in turn
(gelu_lab.analysis.bench.time_interleaved), so a load that comes and goes
falls on all of them alike, and every ratio is between figures of this same run. --clock thread times the calling thread's
CPU time instead of the wall clock (one thread only): on a core shared with
other processes it leaves out their share. --avx2 runs it again as an AVX2
machine would, on an AVX-512 one: numba compiled for AVX2, torch's AVX2
kernels (ATen's and oneDNN's: torch's float32 exact GELU and its backward run
in oneDNN, which ATEN_CPU_CAPABILITY does not reach), gelu_lab's avx2 variant
(unless GELU_LAB_KERNEL names another); a stand-in for an AVX2 CPU, not a
measurement of one (on a CPU without AVX-512 the same run is the real thing;
the header says which). The header names the kernel of each torch case.
Writes bench/results/bench_gelu.json (bench_gelu_avx2.json with --avx2).
"""

from __future__ import annotations

import argparse
import os
import sys

import record
from gelu_lab.analysis import bench
from gelu_lab.printing import text_table

CASES = ["copy", "gelu_lab:erf", "gelu_lab:erf:grad", "torch:erf", "torch:tanh", "torch:erf:grad", "torch:tanh:grad",
         "gelu_lab:erf:bfloat16", "torch:erf:bfloat16", "gelu_lab:erf:float16", "torch:erf:float16"]
RATIOS = [
    ("gelu_lab:erf", "torch:erf"),
    ("gelu_lab:erf:grad", "torch:erf:grad"),
    ("torch:tanh", "torch:erf"),
    ("torch:tanh:grad", "torch:erf:grad"),
    ("gelu_lab:erf:bfloat16", "torch:erf:bfloat16"),
    ("gelu_lab:erf:float16", "torch:erf:float16"),
]


HELD = "GELU_LAB_BENCH_HELD_TO_AVX2"  # set in the re-run process


def held_to_avx2_env() -> dict:
    """The environment of an AVX2 stand-in. NUMBA_CPU_NAME alone keeps the host's features
    (AVX-512 code under the name haswell), so the features are the host's less AVX-512;
    ATEN_CPU_CAPABILITY holds ATen's kernels, ONEDNN_MAX_CPU_ISA oneDNN's."""
    import llvmlite.binding as ll

    feats = ll.get_host_cpu_features()
    off = lambda k: k.startswith("avx512") or k.startswith("avx10") or k == "evex512"  # noqa: E731
    env = dict(os.environ, NUMBA_CPU_NAME="haswell", ATEN_CPU_CAPABILITY="avx2", ONEDNN_MAX_CPU_ISA="AVX2",
               **{HELD: "1"},
               NUMBA_CPU_FEATURES=",".join(("+" if on and not off(k) else "-") + k for k, on in feats.items()))
    env.setdefault("GELU_LAB_KERNEL", "avx2")
    return env


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--clock", choices=["wall", "thread"], default="wall")
    p.add_argument("--avx2", action="store_true", help="this CPU held to AVX2 (numba, torch, gelu_lab), a stand-in for an AVX2 machine")
    a = p.parse_args(argv)
    if a.avx2 and not os.environ.get(HELD):  # numba and torch read these when imported: a fresh process
        args = sys.argv[1:] if argv is None else list(argv)
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *args], held_to_avx2_env())
    name = "bench_gelu" + ("_avx2" if os.environ.get(HELD) else "") + (f"_n{a.n}" if a.n != 1 << 24 else "")
    with record.recording(name, n=a.n) as figures:
        figures.update(measure(a))
    return 0


NAMES = {"gelu_lab:erf": "gelu_lab.gelu", "torch:erf": "torch exact", "gelu_lab:erf:grad": "gelu_lab.gelu_grad",
         "torch:erf:grad": "torch exact backward", "torch:tanh": "torch tanh", "torch:tanh:grad": "torch tanh backward",
         "gelu_lab:erf:bfloat16": "gelu_lab bfloat16", "torch:erf:bfloat16": "torch bfloat16",
         "gelu_lab:erf:float16": "gelu_lab float16", "torch:erf:float16": "torch float16"}


def measure(a) -> dict:
    """Print the run and return its figures: each ratio of RATIOS per thread count, and each case's Gelem/s."""
    threads = [int(t) for t in a.threads.split(",")]
    m = bench.machine(threads)
    if os.environ.get(HELD):
        real = "avx512f" not in (m["isa"] or "")
        print("# held to AVX2: NUMBA_CPU_NAME=haswell without AVX-512 features, ATEN_CPU_CAPABILITY=avx2, "
              "ONEDNN_MAX_CPU_ISA=AVX2" + ("; this CPU has no AVX-512: a measurement of an AVX2 machine" if real else
                                          "; on this AVX-512 CPU: a stand-in for an AVX2 machine"))
    print(f"# {m['processor']}, {m['affinity_cpus']} cpus available; numpy {m['numpy']}, torch {m.get('torch')}, "
          f"numba {m['numba']}; n = {a.n} elements, median of {a.repeats}, {a.clock} clock")
    print(f"# ISA: {m['isa'] or '-'}; gelu_lab float32 kernel: {m['kernel']}, 16-bit lookups: {m['lookup16']} "
          f"(available: {', '.join(m['kernels'])}; GELU_LAB_KERNEL forces one)")
    tk = {c: k for c, k in m["torch_kernels"].items() if c in CASES}
    print("# torch kernels: " + (", ".join(f"{c} {k}" for c, k in tk.items()) or "-"))
    rows = bench.run(CASES, sizes=[a.n], threads=threads, repeats=a.repeats, progress=None, clock=a.clock, interleave=True)
    print(text_table([{**r, "min_gelem_s": r["n"] / r["min_s"] / 1e9} for r in rows],
                     ["case", "dtype", "threads", "gelem_s", "min_gelem_s", "vs_copy"], digits=4))
    print("\n# ratios (throughput of the first over the second, same run)")
    ratios = [q for num, den in RATIOS for q in bench.ratios(rows, num, den)]
    print(text_table(ratios, ["num", "den", "threads", "ratio"], digits=4))
    t = lambda n: f"{n} thread" + ("s" if n > 1 else "")  # noqa: E731
    figures = {f"{NAMES[q['num']]} / {NAMES[q['den']]}, {t(q['threads'])}": round(q["ratio"], 3) for q in ratios}
    figures.update({f"{NAMES.get(r['case'], r['case'])}, Gelem/s, {t(r['threads'])}": round(r["gelem_s"], 3) for r in rows})
    figures["torch kernels"] = ", ".join(f"{c} {k}" for c, k in tk.items())
    return figures


if __name__ == "__main__":
    sys.exit(main())
