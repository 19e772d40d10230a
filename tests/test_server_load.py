"""A short load test: bench/bench_load.py (5 clients x 5 s against `gelu-lab serve`) answers every request.

Counts only, no timing: the latency figures belong to the full bench run
(20 clients x 60 s, bench/results/load.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_load  # noqa: E402


def test_five_clients_five_seconds_no_error(tmp_path, capsys):
    out = tmp_path / "load.json"
    rc = bench_load.main(["--clients", "5", "--seconds", "5", "--cold", "0.5", "--out", str(out)])
    res = json.loads(out.read_text())
    assert res["errors"] == 0 and rc == 0, res["error_samples"]
    kinds = res["kinds"]
    assert all(kinds[k]["n"] > 0 for k in ("page", "asset", "layout", "dependencies", "callback")), kinds
    assert kinds["callback"]["n_204"] < kinds["callback"]["n"]  # callbacks did real work, not only "no change"
    assert res["requests"] == sum(k["n"] for k in kinds.values())
    assert "requests in" in capsys.readouterr().out
