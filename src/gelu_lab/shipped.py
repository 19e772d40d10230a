"""Measurements shipped with the package, shown until the reader's runs store has its own.

    accuracy(key)  the float32 accuracy summary stored under `key`
                   (analysis.accuracy.Plan.key), or None
    bench()        (run, rows, machine) of the shipped `gelu-lab bench` run, or None

They live in ``gelu_lab/data/measured.json``, written by
``bench/ship_measured.py`` from runs of the ordinary CLI commands, each with
its provenance (machine, versions, date, command). The exhaustive float32
sweeps take minutes per implementation, so a fresh install shows these
instead of an empty table; the page says where each number comes from.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

PATH = Path(__file__).parent / "data" / "measured.json"


@functools.cache
def _doc() -> dict:
    try:
        return json.loads(PATH.read_text())
    except (OSError, ValueError):
        return {}


def accuracy(key: str) -> dict | None:
    return _doc().get("accuracy", {}).get(key)


def bench() -> tuple[dict, list, dict] | None:
    b = _doc().get("bench")
    return None if not b else (b["run"], b["rows"], b["machine"])
