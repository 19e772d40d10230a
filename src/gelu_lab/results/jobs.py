"""Background jobs for the app: a ``gelu-lab`` command run as a detached process.

    start(store_path, kind, args, info=None) -> job    AlreadyRunning while a `kind` job runs
    status(store_path, kind) -> job | None             state, progress, error, resume
    cancel(store_path, kind) -> bool                   stop it (it can be resumed)

start and cancel raise :class:`.writes.WritesForbidden` in a process that only reads (a
public server); status only reads.

A job is ``python -m gelu_lab ARGS``: the CLI in a process of its own session (heavy
work never runs in a web request), which writes its exit status to the file named
by $GELU_LAB_JOB_DONE when it ends (:func:`record_exit`, called by ``cli.main``).
Everything about a job lives in files beside the runs store, ``<store dir>/jobs/<kind>-*``:

    <kind>-job.json       its process (gelu_lab.results.owner), command, start time, the caller's info
    <kind>-job.log        its stdout and stderr
    <kind>-progress.json  {"n", "total", "desc"}: :func:`gelu_lab.results.progress.bar`
                          writes it (through $GELU_LAB_JOB_PROGRESS)
    <kind>-done.json      {"rc", "finished"}

so a page reload, a second tab or a restarted server all see the same job, and the
results go to the runs store like any CLI run. One job per kind at a time (a file
lock makes "is one running? then start" atomic). A job whose process is gone without
an exit status (killed, cancelled, a power cut) is "interrupted": its runs stay
resumable, and ``resume`` says the command that continues it (the caller's, or the
job's own command: the accuracy sweeps resume their stored run when run again).
Importing this module imports nothing heavy.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import owner, progress, writes
from .files import atomic_write

DONE_ENV = "GELU_LAB_JOB_DONE"
STATES = ("running", "done", "failed", "interrupted")
_CHILDREN: dict[int, subprocess.Popen] = {}  # reaped here, so a finished child is not a zombie


class AlreadyRunning(Exception):
    """A job of this kind is running: one at a time. ``job`` is its status."""

    def __init__(self, job: dict):
        super().__init__(f"the {job['kind']} job is already running: {job['command']}")
        self.job = job


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


def _alive(job: dict) -> bool:
    p = _CHILDREN.get(job["pid"])
    if p is not None and p.poll() is not None:
        del _CHILDREN[job["pid"]]
        return False
    who = job.get("owner")  # none: a job file from before jobs knew their process
    return who is not None and owner.alive(who) is not False  # another host's job: trust it runs


def start(store_path, kind: str, args: list[str], info: dict | None = None) -> dict:
    """Run ``gelu-lab ARGS`` in the background as job `kind`; AlreadyRunning if one runs.

    info: whatever the caller wants back from :func:`status` (what the job computes;
    ``resume``: the command that continues it if it is interrupted).
    """
    writes.check(f"starting the {kind} job")
    jf = job_file(store_path, kind)
    jf.parent.mkdir(parents=True, exist_ok=True)
    done, prog, log_path = (_file(store_path, kind, w) for w in ("done.json", "progress.json", "job.log"))
    with open(_file(store_path, kind, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two clicks at once start one job
        st = status(store_path, kind)
        if st and st["state"] == "running":
            raise AlreadyRunning(st)
        for f in (done, prog):
            f.unlink(missing_ok=True)
        cmd = [sys.executable, "-m", "gelu_lab", *map(str, args)]
        env = {**os.environ, progress.ENV: str(prog), DONE_ENV: str(done)}
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        _CHILDREN[proc.pid] = proc
        job = {"kind": kind, "pid": proc.pid, "owner": owner.of(proc.pid), "started": time.time(),
               "command": "gelu-lab " + " ".join(map(str, args)), "done_file": str(done), **(info or {})}
        _write_json(jf, job)
    return job


def status(store_path, kind: str) -> dict | None:
    """The last job of `kind`, or None if none was ever started.

    Its job-file fields plus: state (one of STATES), progress ({"n", "total", "desc"}
    or None, as last written by the job), rc (exit status once ended), error (the
    last line of its log, when failed) and resume (the command that continues it,
    when interrupted; ``cancelled`` is true if :func:`cancel` stopped it).
    """
    job = _read_json(job_file(store_path, kind))
    if job is None:
        return None
    job["progress"] = progress.read(_file(store_path, kind, "progress.json"))
    end = _read_json(Path(job.get("done_file", "")))
    job["rc"] = None if end is None else end.get("rc")
    if end is None:
        job["state"] = "running" if _alive(job) else "interrupted"
    else:
        job["state"] = "done" if job["rc"] == 0 else "failed"
    if job["state"] == "interrupted":
        job["resume"] = job.get("resume") or job["command"]
    if job["state"] == "failed":
        try:
            lines = [ln for ln in _file(store_path, kind, "job.log").read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            lines = []
        job["error"] = (lines[-1][:200] if lines else "") or f"exit status {job['rc']}"
    return job


def cancel(store_path, kind: str) -> bool:
    """Stop the running job of `kind` (SIGTERM to its process group: the store stays
    consistent, and the job resumes as an interrupted one does); False if none runs."""
    writes.check(f"cancelling the {kind} job")
    if not job_file(store_path, kind).exists():
        return False
    with open(_file(store_path, kind, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        st = status(store_path, kind)
        if not st or st["state"] != "running" or owner.alive(st.get("owner")) is not True:
            return False
        try:
            os.killpg(st["pid"], signal.SIGTERM)  # the job leads its own session (start_new_session)
        except ProcessLookupError:
            return False
        job = _read_json(job_file(store_path, kind)) or {}
        _write_json(job_file(store_path, kind), {**job, "cancelled": True})
    p = _CHILDREN.get(st["pid"])
    if p is not None:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    return True


def take_done_file() -> Path | None:
    """The exit-status file of the job this process runs, if it is one; the variable is
    removed so that processes the job starts do not claim it."""
    path = os.environ.pop(DONE_ENV, None)
    return Path(path) if path else None


def record_exit(done: Path, rc: int) -> None:
    """Write the job's exit status where :func:`status` looks for it."""
    _write_json(done, {"rc": rc, "finished": time.time()})
