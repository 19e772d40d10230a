"""Runs stores brought together: ``gelu-lab runs merge SOURCE… --store TARGET``.

An experiment's runs may be trained on many machines (``gelu-lab experiment --commands``),
each writing its own store; this copies their finished runs into one. A source is a
runs store (SQLite) or a result set written by ``gelu-lab runs export`` or
``gelu-lab experiment --write`` (the shipped ``ffn_results.json`` is one).

A run is the same run wherever it is copied: same kind and key, and the same random
"run" id in its provenance (given when it starts; runs older than that id: the same
creation time). Merging
is idempotent -- a run already in the target is left as it is -- and all or nothing:
two *different* finished runs of one key (the same configuration trained twice,
separately) are refused, naming both, before anything is written, because a
comparison would count that seed twice. Unfinished runs are not copied (their
checkpoints stay on the machine that can resume them).
"""

from __future__ import annotations

import json
from pathlib import Path

from .store import Store, for_reading

_SQLITE = b"SQLite format 3\x00"


class DuplicateRun(ValueError):
    """Two separately made finished runs of one key (exit 2 on the CLI)."""


def _from_store(path: Path) -> list[dict]:
    store = for_reading(path)
    with store:
        out = []
        for r in store.runs(None, "done"):
            metrics: dict = {}
            for m in store.metrics(r["id"]):
                metrics.setdefault(m["name"], []).append([m["step"], m["value"]])
            out.append({**{k: r[k] for k in ("id", "kind", "key", "config", "status", "provenance", "created", "updated")},
                        "metrics": metrics, "results": store.results(r["id"])})
        return out


def _from_result_set(path: Path) -> list[dict]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path} is neither a runs store nor a result set ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise ValueError(f"{path} is neither a runs store nor a result set (no list of runs)")
    return [{**{k: r[k] for k in ("id", "key", "config", "provenance", "created", "updated")}, "kind": "train", "status": "done",
             "metrics": r.get("metrics", {}), "results": {"final": r["final"]} if r.get("final") else {}}
            for r in doc["runs"] if r.get("status", "done") == "done"]


def read(path) -> list[dict]:
    """The finished runs of a source (store or result set), each with its metrics and results."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no runs store or result set at {path}")
    with open(path, "rb") as f:
        head = f.read(len(_SQLITE))
    return _from_store(path) if head == _SQLITE else _from_result_set(path)


def _where(run: dict, source) -> str:
    return f"run {run['id']} of {source}"


def _identity(run: dict) -> str:
    """What makes a copy the same run: its random id, else (older runs) its creation time."""
    return run["provenance"].get("run") or run["created"]


def merge(target, sources: list) -> dict:
    """Copy the finished runs of `sources` into the store at `target` (created if need be).
    {"added": n, "present": n (already there: skipped), "sources": n}. DuplicateRun (nothing
    written) when two different finished runs share a kind and key."""
    seen: dict = {}  # (kind, key) -> (identity, where)
    with Store(target) as store:
        for r in store.runs(None, "done"):
            seen[(r["kind"], r["key"])] = (_identity(r), f"run {r['id']} of {target}")
        new, present = [], 0
        for src in sources:
            for run in read(src):
                ident = (run["kind"], run["key"])
                if ident in seen:
                    same, where = seen[ident]
                    if same != _identity(run):
                        raise DuplicateRun(f"{_where(run, src)} and {where} are two separate runs of {run['key']}: keep one, then merge again")
                    present += 1
                    continue
                seen[ident] = (_identity(run), _where(run, src))
                new.append(run)
        store.add_runs(new)
    return {"added": len(new), "present": present, "sources": len(sources)}
