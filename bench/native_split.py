"""Where the native float32 kernel's time goes: its main pass against the settling of the inputs it lists.

    .venv/bin/python bench/native_split.py [--n 16777216] [--repeats 7]

Builds bench/native_split.c (which includes src/gelu_lab/native.c) with
setup.py's compiler flags as a shared library in a temporary directory and
calls it through ctypes: for every variant this CPU runs, gelu and gelu_grad
on n float32 inputs from N(0, 4) at one thread, in C without gelu_lab's
Python layers. Per input: ns in all and in the main pass (all less the
settling, each settling call timed inside the timed loop); the share of inputs
listed and the settling's ns per listed input; the inputs left to
gelu_lab.reference; the listed inputs by band of x (% of all inputs).
bench/bench_gelu.py gives the end-to-end ratios against torch; this says
which part of the kernel to work on. Writes bench/results/native_split.json.
"""

from __future__ import annotations

import argparse
import ast
import ctypes
import pathlib
import subprocess
import sys
import sysconfig
import tempfile

import record
from gelu_lab.analysis.bench import cpu_isa
from gelu_lab.results.store import provenance

ROOT = pathlib.Path(__file__).resolve().parents[1]


def setup_flags() -> list[str]:
    """The extension's extra_compile_args in setup.py (no -ffast-math, no contraction), less OpenMP."""
    for node in ast.walk(ast.parse((ROOT / "setup.py").read_text())):
        if isinstance(node, ast.keyword) and node.arg == "extra_compile_args":
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    raise SystemExit("setup.py: no extra_compile_args found; bench/native_split.py reads its flags from there")


def build(out: pathlib.Path, flags: list[str]) -> pathlib.Path:
    lib = out / "native_split.so"
    cmd = [(sysconfig.get_config_var("CC") or "gcc").split()[0], "-shared", "-fPIC", *flags,
           f"-I{sysconfig.get_paths()['include']}", f"-I{ROOT / 'src' / 'gelu_lab'}",
           str(ROOT / "bench" / "native_split.c"), "-o", str(lib), "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"building bench/native_split.c failed:\n{' '.join(cmd)}\n{r.stderr.strip()}")
    return lib


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--out", help="write the result here instead of bench/results/native_split.json (a test's short run)")
    a = p.parse_args(argv)
    if a.n < 1 or a.repeats < 1:
        p.error("--n and --repeats must be positive")
    flags = setup_flags()
    with tempfile.TemporaryDirectory() as d:
        lib = ctypes.CDLL(str(build(pathlib.Path(d), flags)))
        print(f"# {provenance()['processor']}; ISA: {cpu_isa() or '-'}; built with {' '.join(flags)}", flush=True)
        lib.native_split.argtypes = [ctypes.c_ulonglong, ctypes.c_int]
        with record.recording("native_split", fd_level=True, path=a.out and pathlib.Path(a.out), flags=" ".join(flags)):  # the C code prints the table
            rc = lib.native_split(a.n, a.repeats)
            if rc:
                raise SystemExit(rc)
        return 0


if __name__ == "__main__":
    sys.exit(main())
