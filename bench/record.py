"""Every bench script's result as data: bench/results/<name>.json.

    with record.recording("bench_gelu") as figures:   # what the script prints is kept too
        ...
        figures["gelu_lab.gelu / torch exact, 1 thread"] = 0.68

A result file holds the figures (labels that say what each number is, with its unit), what
the script printed, the command that made it, the date, the machine (CPU, cores, ISA, the
float32 kernel gelu_lab ran, or the device) and the versions. `make docs`
(tools/render_measurements.py) renders docs/measurements.md and the README's headline table
from these files, so a figure is never typed into prose; tests/test_measurements.py keeps
them in sync. A run that fails writes nothing.

A timing is only as good as the quiet it was made in: on a machine this small (2 CPUs) a second
process doubles a call's time, and a thread pool waits out a descheduled thread (torch took 8 ms
for 1024 inputs in a run made beside the test suite). So `recording` first watches the machine
for a second while it sleeps itself; if other work (un-niced processes, a hypervisor's steal) took
more than BUSY_LIMIT of its CPU time, a timed script writes nothing and stops with a one-line
message (exit 2). GELU_LAB_BENCH_BUSY=ok records it anyway, with that share in the file
("busy_before"), which the docs show.
Scripts that time nothing (an exhaustive check, a mutation run) pass timed=False.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
BUSY_LIMIT = 0.25  # of the machine's CPU time, taken by other work in the second before a timed run
VERSIONED = ("numpy", "scipy", "numba", "torch", "triton", "dash", "plotly", "playwright", "jax", "tensorflow", "onnxruntime")


def machine() -> dict:
    """CPU, cores, ISA and the kernel gelu_lab runs here (gelu_lab.analysis.bench's words)."""
    from gelu_lab import kernels
    from gelu_lab.analysis.bench import cpu_isa
    from gelu_lab.results.store import cpu_name

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu_name(), "cpus": cpus, "isa": cpu_isa(), "kernel": kernels.variant(),
            "loadavg_1min": round(os.getloadavg()[0], 2)}


def _jiffies(line: str) -> tuple[int, int]:
    """(busy, total) clock ticks of all CPUs since boot, from /proc/stat's first line ("cpu user nice
    system idle iowait irq softirq steal ..."). Busy leaves out niced work (nice > 0: a long experiment
    in the background yields the CPU to a timing), idle and iowait."""
    v = [int(x) for x in line.split()[1:9]]
    return sum(v) - v[1] - v[3] - v[4], sum(v)


def busy_share(seconds: float = 1.0) -> float | None:
    """The share of the machine's CPU time that other work (other processes, un-niced; a
    hypervisor's steal) took over `seconds`, this process asleep meanwhile, so that none of it
    is its own; None where /proc/stat cannot be read."""
    import time

    stat = Path("/proc/stat")
    try:
        b0, t0 = _jiffies(stat.read_text().split("\n", 1)[0])
        time.sleep(seconds)
        b1, t1 = _jiffies(stat.read_text().split("\n", 1)[0])
    except (OSError, ValueError, IndexError):
        return None
    return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0


def versions() -> dict:
    """Python, gelu_lab, and each package of VERSIONED the script has imported."""
    import platform

    from gelu_lab import __version__

    out = {"python": platform.python_version(), "gelu_lab": __version__}
    for name in VERSIONED:
        if name in sys.modules:
            out[name] = getattr(sys.modules[name], "__version__", "?")
    return out


def write(name: str, figures: dict, output: str = "", command: str | None = None, path: Path | None = None, **more) -> Path:
    """bench/results/<name>.json (or `path`, for a test's short run): figures, what was printed,
    command, date, machine, versions (+ `more`)."""
    from gelu_lab.results.store import now, portable_command

    script = Path(sys.argv[0])
    cmd = command or " ".join([f"bench/{script.name}" if script.parent.resolve() == RESULTS.parent else str(script), *sys.argv[1:]])
    doc = {"name": name, "command": portable_command(cmd), "date": now(), "machine": machine(), "versions": versions(),
           "figures": figures, **more, "output": output}
    path = Path(path) if path is not None else RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"# wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}", file=sys.stderr)
    return path


class _Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()


@contextlib.contextmanager
def recording(name: str, fd_level: bool = False, path: Path | None = None, timed: bool = True, **more):
    """Collect the script's figures (the dict yielded) and what it prints; write them at the end
    if the block ends without an exception. fd_level: also what C code prints to fd 1 (then
    shown at the end rather than as it comes). `more`'s values are written as they are at the
    end (a list the script fills as it runs, say); `path`: see :func:`write` (a test's own path
    skips the quiet check); timed: the script times something (the module docstring)."""
    if timed and path is None:
        busy = busy_share()
        if busy is not None and busy > BUSY_LIMIT:
            if os.environ.get("GELU_LAB_BENCH_BUSY") != "ok":
                print(f"bench: {name}.json not written: other work used {busy:.0%} of the machine's CPU time in the "
                      f"second before the run (a timing now would be partly its); wait for it, or set "
                      f"GELU_LAB_BENCH_BUSY=ok to record it anyway", file=sys.stderr)
                raise SystemExit(2)
            more = {**more, "busy_before": round(busy, 2)}
    figures, kept = {}, io.StringIO()
    if fd_level:
        sys.stdout.flush()
        saved, tmp = os.dup(1), tempfile.TemporaryFile()
        os.dup2(tmp.fileno(), 1)
        try:
            yield figures
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode(errors="replace")
            sys.stdout.write(text)
            kept.write(text)
    else:
        real = sys.stdout
        sys.stdout = _Tee(real, kept)
        try:
            yield figures
        finally:
            sys.stdout = real
    write(name, figures, kept.getvalue(), path=path, **more)
