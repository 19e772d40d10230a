"""bench/ffn_gpu.py, the GPU-scale FFN comparison, on the CPU with tiny sizes: its pilot sizes the
runs to the budget, every variant and seed is trained, and the result set carries its provenance."""

import importlib.util
import json
from pathlib import Path

import pytest

from gelu_lab.nn.presets import PRESETS

SCRIPT = Path(__file__).parents[1] / "bench" / "ffn_gpu.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("ffn_gpu", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_pilot_sizes_the_steps_to_the_budget(script):
    # 33 runs, 8 at a time: 5 waves of 540/5 = 108 s, 5 s of it fixed: 103 s / 0.1 s = 1030 steps, 1000 at the interval 250
    assert script.size_steps({"step_s": 0.1, "fixed_s": 5.0}, 33, 8, 540.0, 250, 5000) == 1000
    assert script.size_steps({"step_s": 0.001, "fixed_s": 5.0}, 33, 8, 540.0, 250, 5000) == 5000  # capped at the preset's
    assert script.size_steps({"step_s": 10.0, "fixed_s": 5.0}, 33, 8, 540.0, 250, 5000) == 250  # never below one interval


def test_tiny_run_writes_a_result_set_with_its_pilot_and_device(script, tmp_path):
    doc = script.main(["--tiny", "--out", str(tmp_path), "--budget-s", "20", "--parallel", "2", "--pilot-steps", "10"])
    on_disk = json.loads((tmp_path / "ffn_gpu.json").read_text())
    assert on_disk == json.loads(json.dumps(doc))
    prov, plan = doc["provenance"], doc["provenance"]["plan"]
    assert prov["device"] == "cpu" and prov["torch"] and prov["pilot"]["runs"] == 2 and prov["pilot"]["step_s"] > 0
    assert plan["steps"] % PRESETS["tiny"]["eval_interval"] == 0 and plan["steps"] <= PRESETS["tiny"]["steps"]
    assert {(r["config"]["activation"], r["config"]["seed"]) for r in doc["runs"]} == {("gelu", 0), ("relu", 0)}
    assert all(r["config"]["steps"] == plan["steps"] and r["config"]["lr"] == plan["lr"][r["config"]["activation"]] for r in doc["runs"])
    assert str(tmp_path) not in (tmp_path / "ffn_gpu.json").read_text()  # no machine path in a set that may ship
