"""A short load test: bench/bench_load.py (5 readers x 5 s against one public replica behind
Debian's nginx, as `gelu-lab deploy` writes it) answers every request.

Counts only, no timing: the latency figures belong to the full bench run
(50, 100 and 200 readers, 1 and 2 replicas, bench/results/load.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_load  # noqa: E402

pytestmark = pytest.mark.xdist_group("public")  # the worker that runs the other nginx stack


def test_five_readers_five_seconds_no_error(tmp_path, capsys):
    out = tmp_path / "load.json"
    rc = bench_load.main(["--replicas", "1", "--clients", "5", "--seconds", "5", "--warmup", "0", "--ramp", "1", "--think", "0.2",
                          "--cold", "0.5", "--out", str(out)])
    res = json.loads(out.read_text())
    (run,) = res["runs"]
    assert run["errors"] == 0 and rc == 0, run["error_samples"]
    kinds = run["kinds"]
    assert all(kinds[k]["n"] > 0 for k in ("page", "asset", "layout", "dependencies", "callback")), kinds
    assert kinds["callback"]["n_204"] < kinds["callback"]["n"]  # callbacks did real work, not only "no change"
    assert run["requests"] == sum(k["n"] for k in kinds.values())
    assert res["setup"]["rate_limit"] is True and res["machine"]["cpus"] >= 1 and "loadavg_1min" in res["machine"]
    assert any(k.startswith("1 replica, 5 readers: callback") for k in res["figures"])
    assert "readers:" in capsys.readouterr().out


def test_a_reader_is_an_address_of_its_own():
    addresses = [bench_load.address(i) for i in range(600)]
    assert len(set(addresses)) == 600 and addresses[0] == "127.0.0.2"
    assert all(a.startswith("127.") and 1 < int(a.split(".")[-1]) < 255 for a in addresses)
