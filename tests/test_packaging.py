"""A wheel of the project, built and installed the way pip does it on a fresh machine,
carries the native kernel and runs it: `pip install .` is this build plus the install.

The build runs without isolation (the test environment's setuptools, no download)
in a copy of the sources (in place, setuptools would leave build/ and a fresh egg-info
in the tree); the installed copy is imported from outside the source tree and must
compute the same bits as the development install.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np

import gelu_lab
from gelu_lab import kernels

ROOT = pathlib.Path(__file__).resolve().parents[1]

CHECK = """
import json, sys
import numpy as np
import gelu_lab
from gelu_lab import kernels
x = np.random.default_rng(3).normal(0, 3, 200_000).astype(np.float32)
y = gelu_lab.gelu(x)
g = gelu_lab.gelu_grad(x)
print(json.dumps({"file": gelu_lab.__file__, "kernel": kernels.variant(), "openmp": bool(kernels._native and kernels._native.openmp()),
                  "gelu": y.view(np.uint32).tolist()[:5000], "grad": g.view(np.uint32).tolist()[:5000]}))
"""


def source_copy(dst: pathlib.Path) -> None:
    """What a build reads (pyproject.toml, setup.py, MANIFEST.in and what they name), copied
    to dst without the development install's leftovers (compiled extension, egg-info, caches)."""
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy2(ROOT / name, dst / name)
    leftovers = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info")
    for tree in ("src", "tools"):
        shutil.copytree(ROOT / tree, dst / tree, ignore=leftovers)


def test_wheel_builds_installs_and_runs_the_native_kernel(tmp_path):
    dist, site = tmp_path / "dist", tmp_path / "site"
    had_build = (ROOT / "build").exists()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    sources = tmp_path / "sources"
    sources.mkdir()
    source_copy(sources)
    subprocess.run([*pip, "wheel", str(sources), "--no-deps", "--no-build-isolation", "-w", str(dist)], check=True,
                   capture_output=True, cwd=tmp_path)
    assert (ROOT / "build").exists() == had_build, "the build wrote build/ into the source tree"
    (wheel,) = dist.glob("gelu_lab-*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True, capture_output=True)
    assert list((site / "gelu_lab").glob("_native*.so")), "the wheel has no native kernel"
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", CHECK], check=True, capture_output=True, text=True, cwd=tmp_path, env=env)
    got = json.loads(out.stdout)
    assert pathlib.Path(got["file"]).is_relative_to(site)  # the installed copy, not the source tree
    assert got["kernel"] == kernels.variant() and got["openmp"] == kernels._native.openmp()
    x = np.random.default_rng(3).normal(0, 3, 200_000).astype(np.float32)
    assert got["gelu"] == gelu_lab.gelu(x).view(np.uint32).tolist()[:5000]
    assert got["grad"] == gelu_lab.gelu_grad(x).view(np.uint32).tolist()[:5000]
