"""Measure what the Implementation page shows and ship it in gelu_lab/data/measured.json.

    .venv/bin/python bench/ship_measured.py [--store S] [--skip-accuracy] [--skip-bench] [--threads 1,2]

Runs, into the runs store S (default a fresh one under /tmp; reuse one to
resume a killed sweep):

    gelu-lab accuracy --impl IMPL --dtype float32 --exhaustive     for IMPL in the page's precision rows
    gelu-lab bench --sizes 1e3,1e5,1e7 --threads 1,2 --repeats 9   (run it on an idle machine)

then writes every finished accuracy summary (keyed like the store) and the
newest bench run, with their provenance and no machine path (the store's
location, any absolute path: gelu_lab.results.store.portable), to
src/gelu_lab/data/measured.json: what a fresh install shows until the reader's
own store holds newer runs (gelu_lab.results.latest).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from gelu_lab.analysis import accuracy, bench
from gelu_lab.analysis.implementation import IMPLS
from gelu_lab.results.shipped import PATH
from gelu_lab.results.store import Store, portable


def gelu_lab(*argv: str) -> None:
    print("$ gelu-lab", " ".join(argv), flush=True)
    subprocess.run([sys.executable, "-m", "gelu_lab", *argv], check=True)


def export(store: Store) -> dict:
    acc = {}
    for run in store.runs(accuracy.KIND, "done"):
        summary = store.result(run["id"], "summary")
        if summary is not None and run["config"]["plan"]["dtype"] == "float32":
            acc[run["key"]] = {**summary, "provenance": run["provenance"]}
    run, rows = store.latest_result(bench.KIND, "rows")
    if run is not None:  # the run row without its owner (host, boot id, pid: nothing to ship)
        run = {k: run[k] for k in ("id", "kind", "key", "config", "status", "provenance", "created", "updated")}
    b = None if run is None else {"run": run, "rows": rows, "machine": store.result(run["id"], "machine") or {}}
    return portable({"accuracy": acc, "bench": b})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", help="runs store to fill (default: a fresh one in /tmp)")
    ap.add_argument("--skip-accuracy", action="store_true")
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args(argv)
    store = a.store or str(Path(tempfile.mkdtemp(prefix="gelu-lab-ship-")) / "runs.sqlite")
    if not a.skip_accuracy:
        for impl in IMPLS:
            gelu_lab("accuracy", "--impl", impl, "--dtype", "float32", "--exhaustive", "--store", store)
    if not a.skip_bench:
        gelu_lab("bench", "--sizes", "1e3,1e5,1e7", "--threads", a.threads, "--repeats", "9", "--store", store)
    with Store(store) as s:
        doc = export(s)
    old = json.loads(PATH.read_text()) if PATH.exists() else {}
    doc = {"accuracy": {**old.get("accuracy", {}), **doc["accuracy"]}, "bench": doc["bench"] or old.get("bench")}
    PATH.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}: {len(doc['accuracy'])} accuracy summaries, bench {'yes' if doc['bench'] else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
