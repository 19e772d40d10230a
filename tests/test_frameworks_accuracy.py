"""`gelu-lab accuracy --impl` for other frameworks' GELU, and the measured table built from it.

Every impl is measured: numpy:naive, scipy and torch, and JAX, TensorFlow and ONNX Runtime,
which the `test` extra installs (make test); one missing fails test_each_framework_impl_measures,
nothing is skipped. A framework that is not installed is simulated by a module that fails to import.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gelu_lab.analysis import accuracy as acc
from gelu_lab.analysis import framework_impls as fi
from gelu_lab.analysis import frameworks

ROOT = Path(__file__).parents[1]


def run_cli(*argv, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "gelu_lab", *argv], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def test_the_seed_formula_in_float32_is_what_numpy_naive_computes():
    from scipy import special

    x = np.linspace(-10, 10, 1001, dtype=np.float32)
    got = fi.function("numpy:naive")(x)
    assert got.dtype == np.float32
    want = np.float32(0.5) * x * (np.float32(1) + special.erf(x / np.float32(np.sqrt(2))))
    np.testing.assert_array_equal(got, want)
    assert fi.function("scipy")(x).dtype == np.float32


def test_measure_all_shares_inputs_and_reference_and_equals_one_at_a_time():
    impls = ["numpy:naive", "scipy", "torch:gelu", "gelu"]
    together = acc.measure_all(impls, "float32", "sample", sample=4000, seed=3)
    for spec, s in zip(impls, together):
        alone = acc.measure(spec, "float32", "sample", sample=4000, seed=3)
        for k in ("impl", "reference", "n", "wrong", "max_ulp", "worst", "counts", "histogram"):
            assert s[k] == alone[k], (spec, k)
    naive = together[0]
    assert naive["reference"] == "gelu" and naive["wrong"] > 0 and naive["counts"]["flush"] > 0  # the left tail cancels to 0
    assert together[3]["wrong"] == 0  # gelu_lab itself


def test_cli_measures_several_impls_at_once(tmp_path):
    r = run_cli("accuracy", "--impl", "numpy:naive", "--impl", "scipy", "--dtype", "float32", "--sample", "2000", "--no-store")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("vs correctly rounded gelu, float32 sample") == 2


@pytest.mark.parametrize("spec, package", [("jax:gelu", "jax"), ("jax:gelu_tanh", "jax"), ("tensorflow:gelu", "tensorflow"),
                                           ("onnxruntime:Gelu", "onnxruntime")])
def test_an_impl_that_is_not_installed_is_one_line_and_exit_2(tmp_path, spec, package):
    fake = tmp_path / "fake"
    (fake / package).mkdir(parents=True)
    (fake / package / "__init__.py").write_text(f"raise ImportError('no {package} here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), str(ROOT / "src")])}
    r = run_cli("accuracy", "--impl", spec, "--dtype", "float16", "--no-store", env=env, cwd=tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "not installed" in lines[0] and package in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_a_format_the_framework_lacks_is_refused_in_one_line():
    r = run_cli("accuracy", "--impl", "numpy:naive", "--dtype", "float16", "--no-store")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "float32" in r.stderr


def test_spec_spellings():
    assert fi.spec_of("onnxruntime:gelu") == "onnxruntime:Gelu" and fi.spec_of("onnxruntime:GELU_TANH") == "onnxruntime:Gelu_tanh"
    assert fi.spec_of("scipy:gelu") == "scipy" and fi.spec_of("mymod:gelu") is None
    with pytest.raises(ValueError, match="numpy:naive"):
        acc.resolve("nonsense")


@pytest.mark.parametrize("spec", [s for s in fi.SPECS if not s.startswith("torch:")])
def test_each_framework_impl_measures(spec):
    s = fi.SPECS[spec]
    assert fi.installed(s.package), f"{s.package} is not installed: the test extra installs every framework"
    dtype = "float16" if "float16" in s.dtypes else "float32"
    kw = {} if dtype == "float16" else {"sample": 3000}
    r = acc.measure(spec, dtype, "exhaustive" if dtype == "float16" else "sample", **kw)
    assert r["reference"] == s.form and r["n"] > 0
    assert r["frac_wrong"] < 0.5  # a sane GELU: mostly right, whatever its rounding
    if spec in fi.SPECS and spec.split(":")[0] in fi.FRAMEWORKS:
        assert r["framework_default"] in ("gelu", "gelu_tanh")


def test_defaults_asked_from_the_installed_source_agree_with_the_signature():
    import jax  # the test extra installs it

    d = inspect.signature(jax.nn.gelu).parameters["approximate"].default
    assert fi.default_form("jax") == ("gelu_tanh" if d else "gelu")
    assert next(r for r in frameworks.defaults() if r.framework.startswith("JAX")).asked


def test_a_missing_framework_has_its_documented_default(monkeypatch):
    monkeypatch.setattr(fi, "installed", lambda name: None if name != "torch" else "x")
    fi.default_form.cache_clear()
    try:
        names = [d.framework for d in frameworks.defaults()]
        assert "JAX" in names and "TensorFlow" in names and "ONNX" in names
    finally:
        fi.default_form.cache_clear()


def test_the_table_reads_the_store_first(tmp_path):
    from gelu_lab.results.store import Store

    with Store(tmp_path / "runs.sqlite") as st:
        s = acc.measure("numpy:naive", "float32", "sample", sample=3000, store=st)
    rows = frameworks.accuracy_rows(tmp_path / "runs.sqlite")
    row = next(r for r in rows if r["impl"] == "numpy:naive")
    assert row["measured"] and row["source"] == "store" and row["mode"] == "sample"
    assert row["frac_wrong"] == s["frac_wrong"] and row["max_ulp"] == s["max_ulp"] and row["default"] is True
    assert row["flush"] == s["counts"]["flush"] and row["nonfinite"] == s["counts"]["overflow"] + s["counts"]["spurious_nan"]
    assert {(r["impl"], r["dtype"]) for r in rows} >= {("gelu", "float32"), ("jax:gelu_tanh", "bfloat16"), ("scipy", "float32")}


def test_the_shipped_table_has_every_framework_with_portable_provenance():
    rows = [r for r in frameworks.accuracy_rows(store=False) if r["measured"]]
    shipped = {(r["impl"], r["dtype"]) for r in rows}
    for spec, s in fi.SPECS.items():
        for dtype in s.dtypes:
            assert (spec, dtype) in shipped, f"{spec} {dtype} is not in gelu_lab/data/frameworks.json"
    for r in rows:
        p = r["provenance"]
        assert p["processor"] and p["date"] and p["command"].startswith("gelu-lab accuracy")
        assert "/tmp" not in p["command"] and "/work" not in p["command"] and "/home" not in p["command"]
    jax_rows = [r for r in rows if r["framework"] == "JAX"]
    assert {r["default"] for r in jax_rows} == {True, False} and all(r["version"] for r in jax_rows)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_table_on_the_implementation_and_misconceptions_pages(lang, monkeypatch, tmp_path):
    monkeypatch.setenv("GELU_LAB_STORE", str(tmp_path / "none.sqlite"))
    from gelu_lab.app import content, framework_table

    t = content.text(lang, "frameworks")
    div = str(framework_table.table(lang))
    assert t["col.wrong"] in div and "jax.nn.gelu(x, approximate=True)" in div
    from gelu_lab.app.pages.implementation import page as implementation
    from gelu_lab.app.pages.misconceptions import page as misconceptions

    assert "implementation-frameworks-table" in str(implementation.layout({p.name: p.default for p in implementation.PARAMS}, lang))
    assert "misc-frameworks-table" in str(misconceptions.card("jax_default_tanh", lang, content.text(lang, "misconceptions")))


def test_the_jax_card_is_a_measured_verdict_from_the_table(monkeypatch):
    from gelu_lab.analysis import claims

    r = claims.check("jax_default_tanh", store=False)
    assert r["source"] == "shipped" and r["verdict"] == ("true" if r["figures"]["default_form"] == "gelu_tanh" else "false")
    assert r["note"].startswith("note.jax_default_tanh.measured")
    monkeypatch.setattr(frameworks, "accuracy_rows", lambda store=None: [])
    monkeypatch.setattr(claims, "_jax_asked", lambda: None)
    r = claims.check("jax_default_tanh", store=False)
    assert r["verdict"] == "untested" and "frameworks" in r["how"]
