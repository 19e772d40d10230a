"""Results: where every measurement GELU Lab shows is read from.

    latest(kind, key=None, *, store=None) -> Result | None

The one way to read a result. It looks in the reader's runs store first
(:mod:`.store`) and falls back to the result set shipped with the package in
``gelu_lab/data`` (:mod:`.shipped`). The answer says which it was (``source``:
"store" or "shipped") and carries the provenance of the run that made it
(command, versions, CPU, date; never a machine path).

store
    None: the reader's own store (``$GELU_LAB_STORE``, else the data directory);
    a path or an open :class:`.store.Store`; False: none, the shipped set only.
    Reading never creates a store; one that cannot be read counts as empty.

Kinds
    accuracy  key = the plan key (analysis.accuracy.Plan.key): the summary of one sweep.
              key None: every sweep, a list of summaries (the store's newest per plan
              key, else the shipped one), each with its "key", "source" and "provenance"
    bench     the newest ``gelu-lab bench`` run: value {"rows", "machine"}
    probe     the newest ``gelu-lab probe``: value = its result document
    train     every finished training run: value = list of run dicts, the shipped set
              first, then the reader's own (each run says its "source"); source is
              "store" when the reader has any

``store_state()`` says whether the reader's store can be read (a server's /healthz);
``live_signature()`` changes whenever what the store and the jobs show may have (the app
keeps a rendered page that shows them until it does).

Heavy work writes here through :mod:`.store` and :mod:`.jobs`; the app, the
report, the claims and the CLI only read, through :func:`latest`.
"""

from __future__ import annotations

from pathlib import Path

from . import shipped
from .result import Result
from .store import Store, default_path, train_runs

__all__ = ["KINDS", "Result", "latest", "live_signature", "store_state"]
KINDS = ("accuracy", "bench", "probe", "train")
_RESULT = {"accuracy": "summary", "bench": "rows", "probe": "probe"}  # the stored result a kind's runs hold


def _accuracy_all(s: Store) -> list[dict]:
    """The newest finished summary per plan key in store `s`, with source and provenance."""
    newest = {}
    for run in s.runs("accuracy", "done"):  # by id: a later run replaces an earlier one
        summary = s.result(run["id"], "summary")
        if summary is not None:
            newest[run["key"]] = {**summary, "key": run["key"], "source": "store", "provenance": run["provenance"]}
    return list(newest.values())


def _from_store(kind: str, key, s: Store) -> Result | None:
    if kind == "train":
        runs = train_runs(s)
        return Result(runs, {}, "store") if runs else None
    if kind == "accuracy" and key is None:
        found = _accuracy_all(s)
        return Result(found, {}, "store") if found else None
    run, value = s.latest_result(kind, _RESULT[kind], key)
    if run is None:
        return None
    if kind == "bench":
        value = {"rows": value, "machine": s.result(run["id"], "machine") or {}}
    return Result(value, run["provenance"], "store", run)


def _read_store(kind: str, key, store) -> Result | None:
    if store is False:
        return None
    try:
        if isinstance(store, Store):
            return _from_store(kind, key, store)
        path = Path(store) if store is not None else default_path()
        if not path.exists():
            return None
        with Store(path) as s:
            return _from_store(kind, key, s)
    except OSError:  # an unreadable store reads as an empty one
        return None


def _merge(kind: str, mine: Result | None, ship: Result | None) -> Result | None:
    """Lists (train; accuracy without a key): the shipped items and the reader's together."""
    ship_items = [] if ship is None else list(ship.value)
    own = [] if mine is None else list(mine.value)
    if kind == "train":
        ship_items = [{**r, "source": "shipped"} for r in ship_items]
        own = [{**r, "source": "store"} for r in own]
    else:  # one summary per plan key: the reader's replaces the shipped one
        keys = {v["key"] for v in own}
        ship_items = [v for v in ship_items if v["key"] not in keys]
    if not ship_items and not own:
        return None
    return Result(ship_items + own, ship.provenance if ship else {}, "store" if own else "shipped")


def latest(kind: str, key: str | None = None, *, store=None) -> Result | None:
    """The newest result of `kind`: the reader's store if it has one, else the shipped one, else None."""
    if kind not in KINDS:
        raise ValueError(f"unknown result kind {kind!r}; choose from {', '.join(KINDS)}")
    mine = _read_store(kind, key, store)
    ship = shipped.result(kind, key)
    if kind == "train" or (kind == "accuracy" and key is None):
        return _merge(kind, mine, ship)
    return mine if mine is not None else ship


def store_state(path=None) -> dict:
    """{"store": "none" | "readable" | "unreadable", "runs": how many (readable), "error": why
    (unreadable)} of the store at `path` (default: the reader's own); never creates one."""
    p = Path(path) if path is not None else default_path()
    if not p.exists():
        return {"store": "none"}
    try:
        with Store(p) as s:
            return {"store": "readable", "runs": int(s.db.execute("SELECT count(*) FROM runs").fetchone()[0])}
    except Exception as e:  # OSError, sqlite3's errors: a monitor wants the reason, never a traceback
        return {"store": "unreadable", "error": str(e).splitlines()[0] if str(e) else type(e).__name__}


def live_signature(path=None) -> tuple | None:
    """What a page showing the runs store and the jobs depends on beyond its URL: the path, and
    (name, mtime, size) of the store, its WAL and every job file. None while something may
    change with no file changing: a job without its exit file, or a run marked running (its
    process may be gone, and the run then reads as interrupted). Never creates a store."""
    import sqlite3
    from urllib.parse import quote

    from .jobs import jobs_dir

    p = Path(path) if path is not None else default_path()
    jd = jobs_dir(p)
    files = [p, p.with_name(p.name + "-wal"), *(sorted(jd.iterdir()) if jd.is_dir() else [])]
    sig = [str(p)]
    for f in files:
        try:
            st = f.stat()
        except OSError:
            st = None
        if f.name.endswith("-wal"):  # an empty WAL or none is the same: a reader's connection makes an empty one
            sig.append((f.name, st.st_mtime_ns, st.st_size) if st and st.st_size else (f.name, 0))
            continue
        sig.append((f.name, st.st_mtime_ns, st.st_size) if st else (f.name, None))
        if st and f.name.endswith("-job.json") and not (jd / f.name.replace("-job.json", "-done.json")).exists():
            return None
    if p.exists():
        try:
            db = sqlite3.connect(f"file:{quote(str(p.resolve()))}?mode=ro", uri=True)
            try:
                if db.execute("SELECT 1 FROM runs WHERE status = 'running' LIMIT 1").fetchone():
                    return None
            finally:
                db.close()
        except sqlite3.Error:
            return None  # unreadable now: render anew (the page says what it can)
    return tuple(sig)
