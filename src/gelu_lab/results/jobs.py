"""Background jobs for the app: a ``gelu-lab`` command run as a detached process.

    start(store_path, kind, args, info=None) -> job dict    ValueError while `kind` runs
    status(store_path, kind) -> job dict | None             state, progress, error

A job is ``python -m gelu_lab.results.jobs DONE ARGS...``: the CLI run with ARGS in a
process of its own session (heavy work never runs in a web request), which
writes its exit status to DONE when it ends. Everything about a job lives in
files beside the runs store, ``<store dir>/jobs/<kind>-*``:

    <kind>-job.json       pid, command, start time, the caller's info
    <kind>-job.log        its stdout and stderr
    <kind>-progress.json  {"n", "total", "desc"}: :func:`gelu_lab.results.progress.bar`
                          writes it (through $GELU_LAB_JOB_PROGRESS)
    <kind>-done.json      {"rc", "finished"}

so a page reload, a second tab or a restarted server all see the same job, and
the results go to the runs store like any CLI run. One job per kind at a time
(a file lock makes "is one running? then start" atomic). A killed job is
"failed"; the accuracy and training commands resume their stored run when
started again. Importing this module imports nothing heavy.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from . import progress
from .files import atomic_write

_CHILDREN: dict[int, subprocess.Popen] = {}  # reaped here, so a finished child is not a zombie


def jobs_dir(store_path) -> Path:
    return Path(store_path).parent / "jobs"


def _file(store_path, kind: str, what: str) -> Path:
    if not kind.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"bad job kind {kind!r}")
    return jobs_dir(store_path) / f"{kind}-{what}"


def job_file(store_path, kind: str) -> Path:
    return _file(store_path, kind, "job.json")


def _write_json(path: Path, value: dict) -> None:
    atomic_write(path, lambda tmp: tmp.write_text(json.dumps(value)))


def _read_json(path: Path) -> dict | None:
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def _running(pid: int, marker: str) -> bool:
    """Is `pid` alive and still our job? (after a restart the pid may belong to another process)"""
    p = _CHILDREN.get(pid)
    if p is not None:
        return p.poll() is None
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        if Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] == "Z":  # a zombie of another parent
            return False
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc: trust kill(0)


def start(store_path, kind: str, args: list[str], info: dict | None = None) -> dict:
    """Run ``gelu-lab ARGS`` in the background as job `kind`; ValueError if one is running.

    info: whatever the caller wants back from :func:`status` (what the job computes).
    """
    jf = job_file(store_path, kind)
    jf.parent.mkdir(parents=True, exist_ok=True)
    done, prog, log_path = _file(store_path, kind, "done.json"), _file(store_path, kind, "progress.json"), _file(store_path, kind, "job.log")
    with open(_file(store_path, kind, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two clicks at once start one job
        st = status(store_path, kind)
        if st and st["state"] == "running":
            raise ValueError(f"the {kind} job is already running")
        for f in (done, prog):
            f.unlink(missing_ok=True)
        cmd = [sys.executable, "-m", "gelu_lab", *map(str, args)]
        env = {**os.environ, progress.ENV: str(prog), DONE_ENV: str(done)}
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        _CHILDREN[proc.pid] = proc
        job = {"kind": kind, "pid": proc.pid, "started": time.time(), "command": "gelu-lab " + " ".join(map(str, args)),
               "done_file": str(done), **(info or {})}
        _write_json(jf, job)
    return job


def status(store_path, kind: str) -> dict | None:
    """The last job of `kind`, or None if none was ever started.

    Its job-file fields plus: state ("running", "done" or "failed"), progress
    ({"n", "total", "desc"} or None, as last written by the job), rc (exit status
    once ended) and error (the last line of its log, when failed).
    """
    jf = job_file(store_path, kind)
    job = _read_json(jf)
    if job is None:
        return None
    job["progress"] = progress.read(_file(store_path, kind, "progress.json"))
    end = _read_json(Path(job.get("done_file", "")))
    if _running(int(job["pid"]), job.get("done_file", "")) and end is None:
        job["state"], job["rc"] = "running", None
        return job
    job["rc"] = None if end is None else end.get("rc")
    job["state"] = "done" if job["rc"] == 0 else "failed"
    if job["state"] == "failed":
        try:
            lines = [ln for ln in _file(store_path, kind, "job.log").read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            lines = []
        job["error"] = (lines[-1][:200] if lines else "") or ("stopped before it finished" if end is None else f"exit status {job['rc']}")
    return job


DONE_ENV = "GELU_LAB_JOB_DONE"


def take_done_file() -> Path | None:
    """The exit-status file of the job this process runs, if it is one; the variable is
    removed so that processes the job starts do not claim it."""
    path = os.environ.pop(DONE_ENV, None)
    return Path(path) if path else None


def record_exit(done: Path, rc: int) -> None:
    """Write the job's exit status where :func:`status` looks for it."""
    _write_json(done, {"rc": rc, "finished": time.time()})
