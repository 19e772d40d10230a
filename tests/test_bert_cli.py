"""`gelu-lab probe` on the command line: bad input is one line, a small run lands in the store."""

import json

import pytest

from gelu_lab import cli
from gelu_lab.results.store import Store

pytestmark = pytest.mark.xdist_group("bert")


def _one_line_error(capsys, argv, code=2):
    assert cli.main(argv) == code
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err and err.startswith("gelu-lab")
    return err


def test_bad_input_is_one_line(tmp_path, capsys):
    assert "no such file" in _one_line_error(capsys, ["probe", "--text", str(tmp_path / "missing.txt")])
    (tmp_path / "empty.txt").write_text("\n  \n")
    assert "no sentences" in _one_line_error(capsys, ["probe", "--text", str(tmp_path / "empty.txt")])
    (tmp_path / "long.txt").write_text("A fine sentence.\n" + "x" * 100000 + "\n")
    assert "100000 characters" in _one_line_error(capsys, ["probe", "--text", str(tmp_path / "long.txt")])
    assert "3..20000" in _one_line_error(capsys, ["probe", "--sentences", "0"])
    assert "--precision" in _one_line_error(capsys, ["probe", "--precision", "float8"])
    (tmp_path / "two.txt").write_text("One.\nTwo.\n")
    assert "at least 3" in _one_line_error(capsys, ["probe", "--text", str(tmp_path / "two.txt")])


def test_small_run_is_stored_with_provenance(tmp_path, capsys):
    text = tmp_path / "s.txt"
    text.write_text("The cat sat on the mat.\nA dog barked at night.\nRain fell on the quiet town.\n")
    store = tmp_path / "runs.sqlite"
    argv = ["probe", "--text", str(text), "--no-layer-sweep", "--precision", "none", "--threads", "1",
            "--store", str(store), "--no-progress", "--format", "json"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    res = out["result"]
    assert res["n_sentences"] == 3 and len(res["layers"]) == 6
    assert {w["layer"] for w in res["swaps"]} == {"all"} and len(res["precision"]) == 1
    with Store(store) as s:
        run, value = s.latest_result("probe", "probe")
    assert run["id"] == out["run_id"] and run["status"] == "done" and value == json.loads(json.dumps(res))
    assert run["provenance"]["torch"] and run["config"]["sentences"] == 3
