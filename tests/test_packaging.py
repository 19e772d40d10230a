"""What a user gets from `pip install gelu-lab`: the wheel `make wheel` builds (tools/build_dist.py),
installed by pip into a fresh venv with no compiler on PATH and no extra.

- the wheel is a manylinux wheel with the native kernel, and the venv runs it (not numba's
  fallback), computing the same float32 bits as the development install;
- pip brought the library's own dependencies only: Dash, Plotly, torch are not importable;
- gelu and gelu_grad on every float16 and bfloat16 input give the expected bits (correctly
  rounded values are unique: the hashes below are the development install's, which
  tests/test_core_accuracy.py holds to mpmath on all 65 536 inputs);
- a command whose extra is missing says which one in one line, exit 2; `gelu-lab doctor` runs.

pip resolves the dependencies as for any user (its cache makes it quick); --no-compile skips
writing .pyc files for them, which is most of an install's time.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import gelu_lab
from gelu_lab import kernels

ROOT = Path(__file__).resolve().parents[1]

# sha256 of the uint16 bits of f(all 65 536 bit patterns), f = gelu, gelu_grad
EXPECTED = {
    ("float16", "gelu"): "6ffc618822158039c177d6bbeb61494ac3aead4a09719801caf5970ca8256096",
    ("float16", "gelu_grad"): "4d58b3c6dfae6a9d756c84a0fdb2e0aca5795fd2ac62b8b52e2161c44f1b048c",
    ("bfloat16", "gelu"): "6574dbe3844548ad5f1520f5ce7568ec5c1fe888f67e90c41b9fbe160c1d9823",
    ("bfloat16", "gelu_grad"): "37232b253d91027a66c121b18bc9e3f78523c510b4a08a84c573b9decaf52125",
}

CHECK = """
import hashlib, importlib.util, json, sys
import ml_dtypes, numpy as np
import gelu_lab
from gelu_lab import kernels
sixteen = {}
for name, dt in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
    x = np.arange(1 << 16, dtype=np.uint16).view(dt)
    for f in ("gelu", "gelu_grad"):
        sixteen[f"{name} {f}"] = hashlib.sha256(getattr(gelu_lab, f)(x).view(np.uint16).tobytes()).hexdigest()
x = np.random.default_rng(3).normal(0, 3, 200_000).astype(np.float32)
print(json.dumps({"file": gelu_lab.__file__, "kernel": kernels.variant(), "native": kernels._native is not None,
                  "sixteen": sixteen, "gelu": hashlib.sha256(gelu_lab.gelu(x).tobytes()).hexdigest(),
                  "grad": hashlib.sha256(gelu_lab.gelu_grad(x).tobytes()).hexdigest(),
                  "importable": {m: importlib.util.find_spec(m) is not None for m in ("dash", "plotly", "waitress", "torch", "tqdm")}}))
"""


def sixteen_bit_hash(dtype, f: str) -> str:
    x = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    return hashlib.sha256(getattr(gelu_lab, f)(x).view(np.uint16).tobytes()).hexdigest()


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    had_build = (ROOT / "build").exists()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "build_dist.py"), "--out", str(out)],
                          check=True, capture_output=True, text=True)
    assert (ROOT / "build").exists() == had_build, "the build wrote build/ into the source tree"
    wheel, sdist = (Path(p) for p in done.stdout.split())
    return wheel, sdist


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory):
    """A fresh venv with the wheel installed by pip, without a compiler on PATH."""
    here = tmp_path_factory.mktemp("fresh")
    (here / "empty").mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(here / "venv")], check=True)
    py = here / "venv" / "bin" / "python"
    env = {**os.environ, "PATH": str(here / "empty")}  # no gcc, no cc: pip can build nothing here
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-compile", str(dist[0])],
                   check=True, capture_output=True, env=env)
    return py, {"PATH": f"{py.parent}:/usr/bin:/bin", "HOME": str(here), "GELU_LAB_STORE": str(here / "runs.sqlite")}


def test_make_wheel_builds_a_manylinux_wheel_with_the_kernel_and_an_sdist_with_its_source(dist):
    wheel, sdist = dist
    assert "manylinux" in wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("gelu_lab/_native") and n.endswith(".so") for n in names)
    assert not any("libgomp" in n for n in names)  # torch's runtime is shared, not a copy (tools/build_dist.py)
    listed = tarfile.open(sdist).getnames()
    for part in ("setup.py", "src/gelu_lab/native.c", "src/gelu_lab/native_tables.h", "pyproject.toml"):
        assert f"{sdist.name.removesuffix('.tar.gz')}/{part}" in listed


def test_the_wheel_alone_runs_the_native_kernel_and_is_the_library_without_the_app(venv):
    py, env = venv
    got = json.loads(subprocess.run([str(py), "-c", CHECK], check=True, capture_output=True, text=True, env=env,
                                    cwd=env["HOME"]).stdout)
    assert Path(got["file"]).is_relative_to(py.parents[1])  # the installed copy, not the source tree
    assert got["native"] and got["kernel"] == kernels.variant() != "numba"
    x = np.random.default_rng(3).normal(0, 3, 200_000).astype(np.float32)
    assert got["gelu"] == hashlib.sha256(gelu_lab.gelu(x).tobytes()).hexdigest()
    assert got["grad"] == hashlib.sha256(gelu_lab.gelu_grad(x).tobytes()).hexdigest()
    for (name, f), want in EXPECTED.items():
        assert got["sixteen"][f"{name} {f}"] == want, (name, f)
    assert got["importable"] == {"dash": False, "plotly": False, "waitress": False, "torch": False, "tqdm": False}


def test_the_expected_bits_are_the_development_installs():
    for (name, f), want in EXPECTED.items():
        assert sixteen_bit_hash({"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}[name], f) == want, (name, f)


def test_without_extras_a_command_names_its_extra_and_doctor_runs(venv):
    py, env = venv
    cli = str(py.parent / "gelu-lab")
    serve = subprocess.run([cli, "serve"], capture_output=True, text=True, env=env)
    assert serve.returncode == 2
    assert serve.stderr.splitlines() == ["gelu-lab: error: gelu-lab serve needs dash, which is not installed: pip install 'gelu-lab[app]'"]
    doctor = subprocess.run([cli, "doctor"], capture_output=True, text=True, env=env)
    assert doctor.returncode == 0, doctor.stderr
    assert f"kernel            {kernels.variant()}: " in doctor.stdout
    assert "[app]             missing dash, plotly, waitress, markdown_it, latex2mathml, tqdm: pip install 'gelu-lab[app]'" in doctor.stdout
    table = subprocess.run([cli, "table", "--dtype", "float16"], capture_output=True, text=True, env=env)
    assert table.returncode == 0 and table.stdout.count("\n") >= 7, table.stderr
