"""The result sets shipped with the package, shown until the reader's runs store has its own.

    result(kind, key=None) -> (value, provenance, run) | None   read through gelu_lab.results.latest

Files in ``gelu_lab/data``, each written by a documented command from runs of
the ordinary CLI commands, with their provenance (versions, CPU, date,
command; no machine path):

    measured.json      accuracy sweeps (by plan key) and a bench run   bench/ship_measured.py
    ffn_results.json   the FFN training runs                           gelu-lab runs export
    bert_probe.json    the BERT probe                                  gelu-lab probe --format json

The exhaustive float32 sweeps take minutes per implementation and training
takes an hour, so a fresh install shows these instead of an empty page.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"
PATH = DATA / "measured.json"
FILES = {"accuracy": "measured.json", "bench": "measured.json", "train": "ffn_results.json", "probe": "bert_probe.json"}


@functools.cache
def doc(name: str) -> dict:
    """The parsed shipped file `name` ({} if it is missing or unreadable)."""
    try:
        d = json.loads((DATA / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


def result(kind: str, key: str | None = None):
    """(value, provenance, run) of the shipped result of `kind` (see gelu_lab.results.latest), or None."""
    d = doc(FILES[kind])
    if kind == "accuracy":
        entry = d.get("accuracy", {}).get(key)
        if entry is None:
            return None
        return entry, (entry.get("provenance", d.get("provenance", {})) if isinstance(entry, dict) else {}), None
    if kind == "bench":
        b = d.get("bench")
        return None if not b else ({"rows": b["rows"], "machine": b["machine"]}, b["run"].get("provenance", {}), b["run"])
    if kind == "train":
        return None if not d.get("runs") else (d["runs"], d.get("provenance", {}), None)
    if kind == "probe":
        return None if "result" not in d else (d["result"], d.get("provenance", {}), None)
    raise ValueError(f"unknown result kind {kind!r}")


# the readers of today, until they read through results.latest
def accuracy(key: str) -> dict | None:
    r = result("accuracy", key)
    return None if r is None else r[0]


def bench():
    b = doc("measured.json").get("bench")
    return None if not b else (b["run"], b["rows"], b["machine"])
