"""Measure every framework's GELU and ship the table in gelu_lab/data/frameworks.json.

    pip install -e ".[frameworks]"
    .venv/bin/python bench/ship_frameworks.py [--store S] [--sample N] [--export-only]

Runs, into the runs store S (default a fresh one under /tmp; reuse one to resume a killed sweep),
one `gelu-lab accuracy` per format with every implementation that computes in it, so the inputs
and the correctly rounded reference are made once per chunk for all of them:

    gelu-lab accuracy --impl gelu --impl gelu_tanh --impl torch:gelu ... --dtype float16            all 65 536 inputs
    gelu-lab accuracy --impl ... --dtype bfloat16                                                   all 65 536 inputs
    gelu-lab accuracy --impl torch:gelu ... --dtype float32 --exhaustive                            all 2^32 inputs
    (--sample N: float32 on N inputs stratified over the binades instead)

then writes every finished summary (keyed like the store: gelu_lab.results.latest reads it as
the shipped set) with its provenance (command, versions, CPU, date; no machine path) to
src/gelu_lab/data/frameworks.json. gelu_lab's own float32 rows come from measured.json
(bench/ship_measured.py). A framework that is not installed is left out, and said so.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from gelu_lab.analysis import accuracy
from gelu_lab.analysis import framework_impls as fi
from gelu_lab.results.shipped import DATA
from gelu_lab.results.store import Store, portable
from ship_measured import gelu_lab  # the one "run a gelu-lab command, say it" (bench/ is on the path of a bench script)

PATH = DATA / "frameworks.json"
OURS = ("gelu", "gelu_tanh")  # gelu_lab's own, 16-bit here (float32 is measured.json's)


def export(store: Store) -> dict:
    out = {}
    for run in store.runs(accuracy.KIND, "done"):
        summary = store.result(run["id"], "summary")
        if summary is not None:
            spec = run["config"]["impl"]
            if spec in fi.SPECS and "framework_default" not in summary:  # a run made before it was recorded: ask the same install
                summary["framework_default"] = fi.default_form(fi.SPECS[spec].package)
            out[run["key"]] = {**summary, "provenance": run["provenance"]}
    return portable(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", help="runs store to fill (default: a fresh one in /tmp)")
    ap.add_argument("--sample", type=int, help="float32: this many inputs stratified over the binades, not all 2^32")
    ap.add_argument("--dtypes", default="float16,bfloat16,float32")
    ap.add_argument("--export-only", action="store_true", help="measure nothing: write the file from the finished runs in --store")
    a = ap.parse_args(argv)
    store = a.store or str(Path(tempfile.mkdtemp(prefix="gelu-lab-fw-")) / "runs.sqlite")
    present = [s for s in fi.SPECS.values() if fi.installed(s.package) is not None]
    for s in fi.SPECS.values():
        if s not in present:
            print(f"{s.spec}: {s.package} is not installed, left out", file=sys.stderr)
    for dtype in [] if a.export_only else a.dtypes.split(","):
        impls = [*(OURS if dtype != "float32" else ()), *(s.spec for s in present if dtype in s.dtypes)]
        how = ["--exhaustive"] if a.sample is None else ["--sample", str(a.sample)]
        gelu_lab("accuracy", *(f"--impl={i}" for i in impls), "--dtype", dtype, *(how if dtype == "float32" else ()),
                 "--store", store, "--progress")
    with Store(store) as s:
        doc = export(s)
    old = json.loads(PATH.read_text()) if PATH.exists() else {}
    doc = {"accuracy": {**old.get("accuracy", {}), **doc}}
    PATH.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}: {len(doc['accuracy'])} accuracy summaries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
