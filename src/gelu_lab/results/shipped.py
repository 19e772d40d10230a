"""The result sets shipped with the package, shown until the reader's runs store has its own.

    result(kind, key=None) -> (value, provenance, run) | None   read through gelu_lab.results.latest

Files in ``gelu_lab/data``, each written by a documented command from runs of
the ordinary CLI commands, with their provenance (versions, CPU, date,
command; no machine path):

    measured.json      accuracy sweeps (by plan key) and a bench run   bench/ship_measured.py
    frameworks.json    accuracy sweeps of other frameworks' GELU       bench/ship_frameworks.py
    ffn_results.json   the FFN training runs                           gelu-lab runs export
    bert_probe.json    the BERT probe                                  gelu-lab probe --format json
    gpu_check.json     the GPU kernels checked and timed on a GPU      bench/gpu_check.py (on the device)

The exhaustive float32 sweeps take minutes per implementation and training
takes an hour, so a fresh install shows these instead of an empty page.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from .result import Result

DATA = Path(__file__).parents[1] / "data"
PATH = DATA / "measured.json"
ACCURACY_FILES = ("measured.json", "frameworks.json")  # accuracy sweeps: one set, keyed by plan key
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
    """The shipped result of `kind` (see gelu_lab.results.latest), or None."""
    d = doc(FILES[kind])
    if kind == "accuracy":
        sweeps = {k: v for name in ACCURACY_FILES for k, v in doc(name).get("accuracy", {}).items()}
        if key is None:
            found = [{**v, "key": k, "source": "shipped"} for k, v in sweeps.items()]
            return Result(found, {}, "shipped") if found else None
        entry = sweeps.get(key)
        return None if entry is None else Result(entry, entry.get("provenance", {}), "shipped")
    if kind == "bench":
        b = d.get("bench")
        return None if not b else Result({"rows": b["rows"], "machine": b["machine"]}, b["run"].get("provenance", {}), "shipped", b["run"])
    if kind == "train":
        return None if not d.get("runs") else Result(d["runs"], d.get("provenance", {}), "shipped")
    if kind == "probe":
        return None if "result" not in d else Result(d["result"], d.get("provenance", {}), "shipped")
    raise ValueError(f"unknown result kind {kind!r}")
