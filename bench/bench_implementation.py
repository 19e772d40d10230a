"""What the Implementation page costs: its render, its callbacks' work, its two background jobs.

    .venv/bin/python bench/bench_implementation.py [--exhaustive]

In one process, with an empty runs store in a temporary directory: the page's
layout cold (first render: JIT caches, torch import, the 16-bit tallies) and warm,
per dtype; the work behind each control (error curves on a new interval, the
constant sliders, each fit); then the two jobs as the page starts them, with
small plans (float32 range [1, 2], a one-size bench) and their wall time from
start to "done". --exhaustive also times the page's real float32 job (all 2^32
inputs of gelu_lab's exact GELU; minutes). Writes bench/results/bench_implementation.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import record


def timed(fn, repeats=1):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def job_wall(start, kind):
    """Wall seconds from start() to the job's end, and how it ended."""
    from gelu_lab.results import jobs
    from gelu_lab.results.store import default_path

    t0 = time.perf_counter()
    start(default_path())
    while jobs.status(default_path(), kind)["state"] == "running":
        time.sleep(0.05)
    return time.perf_counter() - t0, jobs.status(default_path(), kind)["state"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exhaustive", action="store_true", help="also the real float32 job (minutes)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gelu-impl-bench-")
    os.environ["GELU_LAB_STORE"] = str(Path(tmp) / "runs.sqlite")
    with record.recording("bench_implementation") as figures:
        measure(args, figures)


def measure(args, figures):
    from gelu_lab.analysis import implementation as D
    from gelu_lab.app import content, state
    from gelu_lab.app.pages.implementation import page as P
    from gelu_lab.app.pages.implementation import view as parts

    def say(label, seconds, note=""):
        figures[f"{label}, s"] = round(seconds, 3)
        print(f"{label + ':':40s} {seconds:7.3f} s {note}")

    t = content.text("en", "implementation")
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}, python {sys.version.split()[0]}")
    v, _ = state.read(P.PARAMS, "?lang=en")
    say("layout cold (bfloat16)", timed(lambda: P.layout(v, "en")))
    say("layout warm (bfloat16)", timed(lambda: P.layout(v, "en"), 5))
    for dt in ("float16", "float32"):
        v2, _ = state.read(P.PARAMS, f"?dtype={dt}")
        say(f"layout first {dt}", timed(lambda: P.layout(v2, "en")))
    iv = iter([(-3.0 - 0.01 * i, 2.0 + 0.01 * i) for i in range(100)])
    say("error curves, a new interval", timed(lambda: parts.error_view(*next(iv), "abs", "off", "en", t), 5))
    cs = iter([0.04 + 1e-4 * i for i in range(100)])
    say("constant sliders (4 located maxima)", timed(lambda: parts.constants_view(next(cs), 0.8, 1.7, -4, 4, "en", t), 5))
    for norm in ("max", "l2"):
        D._fit.cache_clear()
        say(f"fit button, {norm} (both forms)", timed(lambda: parts.fit_table(-4.0, 4.0, norm, t)))
    D.F32_PLAN = {"mode": "range", "interval": (1.0, 2.0)}
    w, st = job_wall(lambda path: D.start_accuracy(path, "gelu"), D.ACC_JOB)
    say("job: float32 range [1, 2], 2^23 inputs", w, f"({st})")
    D.BENCH_ARGS = ["--sizes", "1e5", "--repeats", "1", "--threads", "1"]
    w, st = job_wall(D.start_bench, D.BENCH_JOB)
    say("job: bench, 10 cases at n = 1e5", w, f"({st})")
    if args.exhaustive:
        D.F32_PLAN = {"mode": "exhaustive"}
        w, st = job_wall(lambda path: D.start_accuracy(path, "gelu"), D.ACC_JOB)
        say("job: float32 exhaustive, gelu_lab", w, f"({st})")


if __name__ == "__main__":
    main()
