"""Build time and size of `gelu-lab report`, and the cost of "your own activation".

    .venv/bin/python bench/bench_report.py

Report: `gelu-lab report` in a fresh process per language (imports included, as a
user runs it), from the default runs store; prints seconds, MB and figures, against
the issue's bar (<= 30 s). Formulas: parse, derivative, evaluation on 10^6 points,
and the full compare_with_gelu (fit of a included) for typical and worst-case
formulas (near the node and nesting limits), in one process.
Writes bench/results/bench_report.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import record

from gelu_lab.analysis import user_formula as F
from gelu_lab.analysis import custom

FORMULAS = {
    "sigmoid form, fit a": "x*sigmoid(a*x)",
    "tanh form, fit a": "0.5*x*(1+tanh(a*(x+0.044715*x**3)))",
    "x*Phi(x)": "x*Phi(x)",
    "24 nested sigmoid(a*.)": "x*" + "sigmoid(a*" * 24 + "x" + ")" * 24,
    "15-fold product, fit a": "*".join(["sigmoid(a*x)"] * 15),
}


def report_builds(figures):
    with tempfile.TemporaryDirectory() as d:
        for lang in ("zh", "en"):
            out = Path(d) / f"gelu-lab-{lang}.html"
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "gelu_lab", "report", "--lang", lang, "--out", str(out), "--no-progress", "--format", "json"],
                               capture_output=True, text=True, check=True)
            wall = time.perf_counter() - t
            info = json.loads(r.stdout)
            figures[f"gelu-lab report --lang {lang}, s wall (imports included)"] = round(wall, 1)
            figures[f"gelu-lab report --lang {lang}, MB"] = round(info["bytes"] / 1e6, 2)
            print(f"report {lang}: {wall:5.1f} s wall (build {info['seconds']:.1f} s), {info['bytes'] / 1e6:.2f} MB, "
                  f"{info['figures']} figures, missing {info['missing'] or 'none'}; bar 30 s: {'ok' if wall <= 30 else 'OVER'}")


def formulas(figures):
    x = np.linspace(-4, 4, 1_000_000)
    for name, text in FORMULAS.items():
        t0 = time.perf_counter()
        e = F.parse(text)
        t1 = time.perf_counter()
        d = F.diff(e)
        t2 = time.perf_counter()
        d.eval(x, a=1.0)
        t3 = time.perf_counter()
        c = custom.compare_with_gelu(text, (-4, 4))
        t4 = time.perf_counter()
        figures[f"your own activation, {name}: compare with GELU, s"] = round(t4 - t3, 2)
        print(f"{name:26s} nodes {F.size(e):3d} (f') {F.size(d):3d}  parse {1e3 * (t1 - t0):6.2f} ms  diff {1e3 * (t2 - t1):6.2f} ms  "
              f"f' on 1e6 points {1e3 * (t3 - t2):7.1f} ms  compare (fit a: {c.fitted}) {t4 - t3:5.2f} s")


if __name__ == "__main__":
    with record.recording("bench_report") as figures:
        report_builds(figures)
        formulas(figures)
