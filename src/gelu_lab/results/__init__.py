"""Results: where every measurement GELU Lab shows is read from.

    latest(kind, key=None, *, store=None) -> Result | None

The one way to read a result. It looks in the reader's runs store first
(:mod:`.store`; ``store=`` a path or an open Store, default the reader's own)
and falls back to the result set shipped with the package in
``gelu_lab/data`` (:mod:`.shipped`). The answer says which it was
(``source``: "store" or "shipped") and carries the provenance of the run
that made it (command, versions, CPU, date; never a machine path).

Kinds
    accuracy  key = the plan key (analysis.accuracy.Plan.key): the summary of one sweep
    bench     the newest ``gelu-lab bench`` run: value {"rows", "machine"}
    probe     the newest ``gelu-lab probe``: value = its result document
    train     every finished training run: value = list of run dicts, the shipped set
              first, then the reader's own (each run says its "source"); source is
              "store" when the reader has any

Heavy work writes here through :mod:`.store` and :mod:`.jobs`; the app, the
report, the claims and the CLI only read, through :func:`latest`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import shipped
from .store import Store, default_path

KINDS = ("accuracy", "bench", "probe", "train")


@dataclass(frozen=True)
class Result:
    value: object  # what was measured
    provenance: dict  # how, where and when (command, versions, CPU, date)
    source: str  # "store": the reader's runs store; "shipped": gelu_lab/data
    run: dict | None = field(default=None, compare=False)  # the store's run row, when source == "store"


def _from_store(kind: str, key, s: Store) -> Result | None:
    if kind == "train":
        from .store import train_runs

        runs = train_runs(s)
        return Result(runs, {}, "store") if runs else None
    name = {"accuracy": "summary", "bench": "rows", "probe": "probe"}[kind]
    run, value = s.latest_result(kind, name, key)
    if run is None:
        return None
    if kind == "bench":
        value = {"rows": value, "machine": s.result(run["id"], "machine") or {}}
    return Result(value, run["provenance"], "store", run)


def _open(store):
    if isinstance(store, Store):
        return store, False
    path = Path(store) if store is not None else default_path()
    if not path.exists():
        return None, False
    return Store(path), True


def latest(kind: str, key: str | None = None, *, store=None) -> Result | None:
    """The newest result of `kind`: the reader's store if it has one, else the shipped one, else None."""
    if kind not in KINDS:
        raise ValueError(f"unknown result kind {kind!r}; choose from {', '.join(KINDS)}")
    mine = None
    try:
        s, opened = _open(store)
        if s is not None:
            try:
                mine = _from_store(kind, key, s)
            finally:
                if opened:
                    s.close()
    except OSError:  # an unreadable store reads as an empty one
        mine = None
    found = shipped.result(kind, key)
    ship = None if found is None else Result(found[0], found[1], "shipped", found[2])
    if kind == "train":
        ship_runs = [] if ship is None else [{**r, "source": "shipped"} for r in ship.value]
        own = [] if mine is None else [{**r, "source": "store"} for r in mine.value]
        if not ship_runs and not own:
            return None
        return Result(ship_runs + own, ship.provenance if ship else {}, "store" if own else "shipped")
    return mine if mine is not None else ship
