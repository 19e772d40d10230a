"""Where a command's CPU time goes: its processes' CPU seconds by kind, sampled from /proc.

    .venv/bin/python bench/cpu_by_process.py -- .venv/bin/python -m pytest -q -n 2 --dist loadgroup

Runs the command and, once a second until it ends, reads user + system time of
every process on the machine (this is meant for a machine doing nothing else);
each process is filed under a kind named by its command line when first seen
(Chromium, with its --type where its command line still shows one; a pytest-xdist worker, `gelu-lab <command>`, else the
program's name). A process that starts and ends between two readings, and the
last second of each, are missed: the sums are a lower bound. Prints the CPU
seconds per kind, their share, and the command's wall time.
Writes bench/results/cpu_by_process.json.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

import record

TICK = os.sysconf("SC_CLK_TCK")


def kind(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return None
    if not args:
        return None
    prog = os.path.basename(args[0])
    if "chrom" in prog:
        return " ".join(["chromium", *(a[7:] for a in args if a.startswith("--type="))])
    if prog.startswith("python"):
        line = " ".join(args)
        if "execnet" in line or "exec(eval(sys.stdin.readline()))" in line:
            return "pytest-xdist worker"
        if args[1:3] == ["-m", "gelu_lab"] and len(args) > 3:
            return f"gelu-lab {args[3]}"
        return "python -c" if args[1:2] == ["-c"] else "python " + " ".join(args[1:3])
    return prog


def cpu_s(pid: str, children: bool = False) -> float | None:
    """User + system CPU seconds of process pid (with children: of its reaped children too); None if gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return sum(int(v) for v in fields[11:15 if children else 13]) / TICK


def main(argv: list[str]) -> int:
    if "--" in argv:
        argv = argv[argv.index("--") + 1:]
    if not argv:
        print("usage: bench/cpu_by_process.py -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    with record.recording("cpu_by_process", command=f"bench/cpu_by_process.py -- {' '.join(argv)}") as figures:
        return watch(argv, figures)


def watch(argv: list[str], figures: dict) -> int:
    seen: dict[str, tuple[str, float]] = {}  # pid -> (kind, CPU seconds at the last reading)
    total: Counter = Counter()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv)
    while proc.poll() is None:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            now = cpu_s(pid)
            if now is None:
                continue
            if pid in seen:
                k, before = seen[pid]
                total[k] += max(0.0, now - before)
                seen[pid] = (k, now)
            elif (k := kind(pid)) is not None:
                seen[pid] = (k, now)  # what it used before this reading is not the command's to count
        time.sleep(1.0)
    wall = time.perf_counter() - t0
    whole = sum(total.values()) or 1.0
    print(f"# {' '.join(argv)}: exit {proc.returncode}, {wall:.0f} s wall, {whole:.0f} CPU-s counted")
    for k, v in total.most_common(15):
        print(f"{v:8.1f} s  {100 * v / whole:5.1f} %  {k}")
        figures[f"{k}, share of CPU seconds counted"] = f"{100 * v / whole:.1f} %"
    figures.update({"wall, s": round(wall), "CPU seconds counted": round(whole), "exit status": proc.returncode})
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
