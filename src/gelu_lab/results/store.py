"""The runs store: one SQLite file holding every measurement GELU Lab makes.

Heavy jobs (training, probes, benchmarks, exhaustive sweeps) write here; the
app and the report only read. WAL mode, one transaction per write, so a job
killed at any moment leaves the file consistent, and a job that finds its own
unfinished run (same kind and key) can resume it.

Location: ``--store PATH`` on the CLI, else ``$GELU_LAB_STORE``, else
``runs.sqlite`` in ``$GELU_LAB_DATA`` or the user's data directory
(~/.local/share/gelu-lab).

Tables
    runs(id, kind, key, config, status, provenance, created, updated, owner)
    metrics(run_id, step, name, value)          time series (loss curves, ...)
    results(run_id, name, value)                JSON documents (final tables, ...)
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import platform
import re
import shlex
import sqlite3
import sys
import time
import urllib.parse
from pathlib import Path

from . import owner, writes

def _someone_else(who: dict | None) -> bool:
    """Is `who` a live process other than this one?"""
    return bool(who) and who.get("pid") != os.getpid() and owner.alive(who) is True


_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'running',
    provenance TEXT NOT NULL DEFAULT '{}',
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS runs_kind_key ON runs(kind, key);
CREATE TABLE IF NOT EXISTS metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    name TEXT NOT NULL,
    value REAL,
    PRIMARY KEY (run_id, step, name)
);
CREATE TABLE IF NOT EXISTS results (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);
"""


def data_dir() -> Path:
    """Where GELU Lab keeps its data: $GELU_LAB_DATA or ~/.local/share/gelu-lab."""
    env = os.environ.get("GELU_LAB_DATA")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "gelu-lab"


def default_path() -> Path:
    env = os.environ.get("GELU_LAB_STORE")
    return Path(env).expanduser() if env else data_dir() / "runs.sqlite"


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


FRAMEWORKS = ("torch", "jax", "jaxlib", "tensorflow", "onnxruntime", "onnx")  # their versions join the provenance when a run loaded them


def provenance(command: str | None = None) -> dict:
    """Where a measurement came from: command, versions, machine, date.

    The command is recorded without machine paths (:func:`portable_command`): provenance
    is shown to readers and shipped with the package.
    """
    import numpy
    import scipy

    info = {
        "command": portable_command(command if command is not None else " ".join(["gelu-lab", *sys.argv[1:]])),
        "date": now(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "machine": platform.machine(),
        "processor": cpu_name(),
        "cpus": os.cpu_count(),
    }
    for package in FRAMEWORKS:
        if package in sys.modules:
            info[package] = getattr(sys.modules[package], "__version__", "?")
    from .. import __version__

    info["gelu_lab"] = __version__
    return info


_ABSOLUTE = re.compile(r"^(/|~|[A-Za-z]:[\\/])")
_LOCATION_OPTIONS = ("--store",)  # where a run was written, not what was measured


def _file_name(token: str) -> str:
    """An absolute path as its last part (``/tmp/x/corpus.txt`` -> ``corpus.txt``), else the token."""
    if _ABSOLUTE.match(token):
        return re.split(r"[\\/]", token.rstrip("/\\"))[-1] or token
    return token


def portable_command(command: str) -> str:
    """A command line with no machine path in it: ``--store PATH`` dropped, every other
    absolute path (also in ``--opt=PATH``) cut to its file name."""
    try:  # a Windows path's backslashes are not escapes
        tokens = [t.strip("'\"") for t in shlex.split(command, posix="\\" not in command)]
    except ValueError:  # an unbalanced quote: plain words
        tokens = command.split()
    out, skip = [], False
    for tok in tokens:
        if skip:
            skip = False
            continue
        opt, eq, val = tok.partition("=")
        if opt in _LOCATION_OPTIONS:
            skip = not eq
            continue
        out.append(f"{opt}={_file_name(val)}" if eq and opt.startswith("--") else _file_name(tok))
    return " ".join(shlex.quote(t) if re.search(r"[\s'\"]", t) or not t else t for t in out)


_COMMANDS = ("gelu-lab", "python", "bench/", "torchrun")


def portable(value):
    """A JSON document with no machine path: command lines through :func:`portable_command`,
    a string that is an absolute path cut to its file name; the rest unchanged."""
    if isinstance(value, dict):
        return {k: portable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [portable(v) for v in value]
    if isinstance(value, str):
        if value.startswith(_COMMANDS):
            return portable_command(value)
        if not any(c.isspace() for c in value):
            return _file_name(value)
    return value


def cpuinfo() -> dict:
    """The first processor's fields in /proc/cpuinfo ({} where there is none)."""
    fields = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if not key.strip() and fields:
                break  # the first processor's block is enough
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def cpu_name() -> str:
    """The CPU's model name, with its family and model numbers where /proc/cpuinfo has them
    (a VM may report only "AMD EPYC", which names no generation: family 23 is Zen 1-2, 25 Zen 3-4, 26 Zen 5)."""
    fields = cpuinfo()
    if "model name" in fields:  # "Family F Model M", as Windows' platform.processor() writes them
        nums = [f"{label} {fields[k]}" for k, label in (("cpu family", "Family"), ("model", "Model")) if fields.get(k)]
        return fields["model name"] + (f" ({' '.join(nums)})" if nums else "")
    return platform.processor() or "unknown"


class Store:
    """A handle on the runs store file (created on first use)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        barred = writes.forbidden()  # a public server's process: read what is there, create nothing
        if barred and not self.path.exists():
            raise OSError(f"no runs store at {self.path} (this process only reads: {barred})")
        if not barred:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise OSError(f"cannot create the folder of the runs store {self.path} ({e.strerror or e})") from None
        # A folder we may not write to (read-only mount, other owner) still lets us read
        # an existing store: SQLite's WAL mode needs to create files beside it, so open it
        # immutable, read-only (what a later writer adds to the WAL is not seen). A process
        # that only reads by choice opens it read-only but not immutable: it sees what a
        # training run writes meanwhile (SQLite keeps its WAL index beside the file).
        folder_writable = os.access(self.path.parent, os.W_OK)
        self.read_only = bool(barred) or (self.path.exists() and not folder_writable)
        if not self.path.exists() and not folder_writable:
            raise OSError(f"cannot write to the folder {self.path.parent} to create the runs store")
        if self.read_only:
            frozen = "" if barred and folder_writable else "&immutable=1"
            uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?mode=ro{frozen}"
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30)
        else:
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        try:
            if not self.read_only:
                self._wal()
                self.db.execute("PRAGMA foreign_keys=ON")
                self.db.executescript(_SCHEMA)
                self._add_owner_column()
            else:
                self.db.execute("SELECT count(*) FROM runs").fetchone()
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise OSError(f"runs store {self.path} is not a readable SQLite file ({e})") from None

    def _wal(self, wait_s: float = 30.0):
        """PRAGMA journal_mode=WAL. On a new file, processes that open it at the same moment
        (the ranks of a torchrun job) all try to switch it, and SQLite answers the losers
        "database is locked" at once, without waiting out the busy timeout: they try
        again until the winner's switch is done (then the pragma only reads the mode)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def close(self):
        self.db.close()

    @contextlib.contextmanager
    def _writing(self):
        """One write transaction: all of its statements land, or none (a SIGKILL mid-way
        leaves the store as before). The connection is in autocommit mode, where
        ``with connection:`` opens no transaction, so BEGIN IMMEDIATE is explicit.
        OSError on a store opened read-only."""
        if self.read_only:
            writes.check(f"writing to the runs store {self.path}")
            raise OSError(f"runs store {self.path} is read-only here: its folder {self.path.parent} is not writable")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- runs -------------------------------------------------------------
    # A run's status as read: "running", "interrupted", "done" or "failed". The file holds
    # "running" until the run's process marks it done or failed; a "running" run whose
    # process is gone (killed, out of memory, a power cut: nothing could mark it) reads
    # as "interrupted". So every run knows its owner (gelu_lab.results.owner): the process
    # that started it, or the one that resumed it last (resume_run).

    def _add_owner_column(self):
        """Stores made before runs had owners get the column (their runs have none)."""
        if "owner" not in {r[1] for r in self.db.execute("PRAGMA table_info(runs)")}:
            try:
                self.db.execute("ALTER TABLE runs ADD COLUMN owner TEXT")
            except sqlite3.OperationalError as e:  # another process added it just now
                if "duplicate column" not in str(e):
                    raise

    def start_run(self, kind: str, key: str, config: dict, command: str | None = None) -> int:
        """A new run in state 'running', owned by this process; returns its id. Its provenance
        carries a random "run" id: the run stays itself when stores merge (gelu_lab.results.merge)."""
        import uuid

        t = now()
        prov = {**provenance(command), "run": uuid.uuid4().hex}
        with self._writing():
            cur = self.db.execute(
                "INSERT INTO runs(kind, key, config, provenance, created, updated, owner) VALUES (?,?,?,?,?,?,?)",
                (kind, key, json.dumps(config, sort_keys=True), json.dumps(prov), t, t, json.dumps(owner.me())),
            )
        return int(cur.lastrowid)

    def resume_run(self, run_id: int) -> dict:
        """Take over an unfinished run to continue it: this process becomes its owner.

        ValueError if there is no such run, it is finished, or another process of this
        machine is still running it (two processes must not write one run).
        """
        with self._writing():
            row = self.db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
            run = self._run(row) if row else None
            if run is None:
                raise ValueError(f"no run with id {run_id} in {self.path}")
            if run["status"] in ("done", "failed"):
                raise ValueError(f"run {run_id} is already {run['status']}")
            if run["status"] == "running" and _someone_else(run["owner"]):
                raise ValueError(f"run {run_id} is still running (pid {run['owner']['pid']})")
            self.db.execute("UPDATE runs SET owner=?, updated=? WHERE id=?", (json.dumps(owner.me()), now(), run_id))
        return run

    def resumable(self, kind: str, key: str) -> dict | None:
        """The newest unfinished run of this kind and key that no other live process is running:
        an interrupted one, or one this process left (an exception); None if there is none."""
        rows = self.db.execute("SELECT * FROM runs WHERE kind=? AND key=? AND status='running' ORDER BY id DESC", (kind, key))
        return next((r for r in map(self._run, rows) if r["status"] == "interrupted" or not _someone_else(r["owner"])), None)

    def find_run(self, kind: str, key: str, status: str | None = None) -> dict | None:
        """The newest run of this kind and key (optionally in this status, as read)."""
        return next(iter(reversed(self.runs(kind, status, key=key))), None)

    def set_status(self, run_id: int, status: str):
        with self._writing():
            self.db.execute("UPDATE runs SET status=?, updated=? WHERE id=?", (status, now(), run_id))

    def runs(self, kind: str | None = None, status: str | None = None, key: str | None = None) -> list[dict]:
        """Runs, oldest first: of `kind`, in `status` (as read: "interrupted" too), of `key`."""
        q, args = "SELECT * FROM runs WHERE 1=1", []
        for col, v in (("kind", kind), ("key", key)):
            if v is not None:
                q, args = q + f" AND {col}=?", args + [v]
        if status:
            q, args = q + " AND status=?", args + ["running" if status == "interrupted" else status]
        out = [self._run(r) for r in self.db.execute(q + " ORDER BY id", args)]
        return [r for r in out if r["status"] == status] if status in ("running", "interrupted") else out

    def add_runs(self, runs: list[dict]) -> list[int]:
        """Copy finished runs in, all in one transaction (gelu_lab.results.merge): each a dict with
        kind, key, config, status, provenance, created, updated and optionally "metrics"
        {name: [[step, value], ...]} and "results" {name: value}. Their new ids."""
        from .files import plain as _plain

        ids = []
        with self._writing():
            for r in runs:
                cur = self.db.execute(
                    "INSERT INTO runs(kind, key, config, status, provenance, created, updated) VALUES (?,?,?,?,?,?,?)",
                    (r["kind"], r["key"], json.dumps(r["config"], sort_keys=True), r["status"], json.dumps(r["provenance"]), r["created"], r["updated"]))
                rid = int(cur.lastrowid)
                self.db.executemany("INSERT INTO metrics(run_id, step, name, value) VALUES (?,?,?,?)",
                                    [(rid, int(st), n, v) for n, pts in r.get("metrics", {}).items() for st, v in pts])
                self.db.executemany("INSERT INTO results(run_id, name, value) VALUES (?,?,?)",
                                    [(rid, n, json.dumps(_plain(v))) for n, v in r.get("results", {}).items()])
                ids.append(rid)
        return ids

    def delete_run(self, run_id: int):
        with self._writing():
            self.db.execute("DELETE FROM runs WHERE id=?", (run_id,))

    @staticmethod
    def _run(row) -> dict:
        d = dict(row)
        d["config"] = json.loads(d["config"])
        d["provenance"] = json.loads(d["provenance"])
        d["owner"] = json.loads(d["owner"]) if d.get("owner") else None
        if d["status"] == "running" and owner.alive(d["owner"]) is False:
            d["status"] = "interrupted"
        return d

    # --- metrics and results ---------------------------------------------
    def log_metrics(self, run_id: int, step: int, values: dict):
        """Record named scalars at a step (one transaction; replaces on repeat)."""
        with self._writing():
            self.db.executemany(
                "INSERT OR REPLACE INTO metrics(run_id, step, name, value) VALUES (?,?,?,?)",
                [(run_id, int(step), k, None if v is None else float(v)) for k, v in values.items()],
            )
            self.db.execute("UPDATE runs SET updated=? WHERE id=?", (now(), run_id))

    def metrics(self, run_id: int, name: str | None = None) -> list[dict]:
        q = "SELECT step, name, value FROM metrics WHERE run_id=?" + (" AND name=?" if name else "")
        rows = self.db.execute(q + " ORDER BY step, name", (run_id, name) if name else (run_id,))
        return [dict(r) for r in rows]

    def put_result(self, run_id: int, name: str, value):
        from .files import plain as _plain

        with self._writing():
            self.db.execute(
                "INSERT OR REPLACE INTO results(run_id, name, value) VALUES (?,?,?)",
                (run_id, name, json.dumps(_plain(value))),
            )
            self.db.execute("UPDATE runs SET updated=? WHERE id=?", (now(), run_id))

    def result(self, run_id: int, name: str):
        row = self.db.execute("SELECT value FROM results WHERE run_id=? AND name=?", (run_id, name)).fetchone()
        return json.loads(row[0]) if row else None

    def results(self, run_id: int) -> dict:
        rows = self.db.execute("SELECT name, value FROM results WHERE run_id=?", (run_id,))
        return {r["name"]: json.loads(r["value"]) for r in rows}

    def latest_result(self, kind: str, name: str, key: str | None = None):
        """(run, value) of the newest finished run of `kind` holding result `name`, or (None, None)."""
        q = "SELECT r.*, s.value AS _v FROM runs r JOIN results s ON s.run_id = r.id WHERE r.kind=? AND s.name=? AND r.status='done'"
        args = [kind, name]
        if key is not None:
            q, args = q + " AND r.key=?", args + [key]
        row = self.db.execute(q + " ORDER BY r.id DESC LIMIT 1", args).fetchone()
        if not row:
            return None, None
        d = dict(row)
        value = json.loads(d.pop("_v"))
        return self._run(d), value

    def integrity_ok(self) -> bool:
        return self.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def for_reading(path=None):
    """The runs store at `path` (default: the reader's own, :func:`default_path`) opened to
    read: a :class:`Store`, or False when there is none yet (reading never creates one;
    ``gelu_lab.results.latest(store=False)`` then reads the shipped results only).
    OSError when the file is there but cannot be read."""
    p = Path(path) if path is not None else default_path()
    return Store(p) if p.exists() else False


def train_runs(store: "Store", ids=None, status: str | None = "done", with_metrics: bool = True) -> list[dict]:
    """Training runs of a Store as plain dicts (finished ones by default)."""
    out = []
    for r in store.runs("train", status):
        if ids and r["id"] not in ids:
            continue
        d = {k: r[k] for k in ("id", "key", "status", "config", "provenance", "created", "updated")}
        d["final"] = store.result(r["id"], "final")
        d["metrics"] = {}
        if with_metrics:
            for m in store.metrics(r["id"]):
                d["metrics"].setdefault(m["name"], []).append([m["step"], m["value"]])
        out.append(d)
    return out
