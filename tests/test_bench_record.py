"""bench/record.py's quiet check: a timed bench script writes nothing while other work keeps the
machine busy, unless told to (and then the file and the docs say how busy)."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import record  # noqa: E402

sys.path.remove(str(ROOT / "bench"))


def _cpus_in_proc_stat() -> int:
    return sum(1 for line in Path("/proc/stat").read_text().splitlines() if line[:3] == "cpu" and line[3:4].isdigit())


def test_busy_counts_user_system_irq_and_steal_but_not_nice_idle_or_iowait():
    #              user nice system idle iowait irq softirq steal guest guest_nice
    before = record._jiffies("cpu  100 100 100 100 100 100 100 100 0 0")
    after = record._jiffies("cpu  110 190 120 300 140 103 104 105 0 0")
    busy, total = after[0] - before[0], after[1] - before[1]
    assert (busy, total) == (10 + 20 + 3 + 4 + 5, 10 + 90 + 20 + 200 + 40 + 3 + 4 + 5)


@pytest.mark.xdist_group("cpu")  # keeps a core busy for a second
def test_busy_share_sees_a_busy_process():
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)  # past its start
        share = record.busy_share(0.8)
    finally:
        spin.kill()
        spin.wait()
    one = 1 / _cpus_in_proc_stat()  # one busy process's share of all the CPUs /proc/stat counts (others only add)
    assert 0.8 * one < share <= 1.0, (share, one)


def _record(tmp_path, monkeypatch, share, **kw):
    monkeypatch.setattr(record, "RESULTS", tmp_path)  # bench/results itself is never written by a test
    monkeypatch.setattr(record, "busy_share", lambda seconds=1.0: share)
    with record.recording("quiet_check", **kw) as figures:
        figures["a figure"] = 1.0
    return tmp_path / "quiet_check.json"


def test_a_timed_run_on_a_busy_machine_writes_nothing_and_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GELU_LAB_BENCH_BUSY", raising=False)
    with pytest.raises(SystemExit) as stop:
        _record(tmp_path, monkeypatch, 0.6)
    assert stop.value.code == 2 and not list(tmp_path.iterdir())
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "quiet_check.json not written" in err and "60%" in err and "GELU_LAB_BENCH_BUSY=ok" in err


def test_a_quiet_machine_records_and_says_nothing_of_it(tmp_path, monkeypatch):
    monkeypatch.delenv("GELU_LAB_BENCH_BUSY", raising=False)
    doc = json.loads(_record(tmp_path, monkeypatch, record.BUSY_LIMIT - 0.01).read_text())
    assert doc["figures"] == {"a figure": 1.0} and "busy_before" not in doc


def test_told_to_it_records_the_busy_share_and_the_docs_show_it(tmp_path, monkeypatch):
    monkeypatch.setenv("GELU_LAB_BENCH_BUSY", "ok")
    doc = json.loads(_record(tmp_path, monkeypatch, 0.6).read_text())
    assert doc["figures"] == {"a figure": 1.0} and doc["busy_before"] == 0.6
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import render_measurements
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert "other work took 60% of its CPU time before the run" in render_measurements.bench_record(tmp_path / "quiet_check.json").where


def test_untimed_runs_and_a_tests_own_path_skip_the_check(tmp_path, monkeypatch):
    monkeypatch.delenv("GELU_LAB_BENCH_BUSY", raising=False)
    assert "busy_before" not in json.loads(_record(tmp_path, monkeypatch, 0.9, timed=False).read_text())
    with record.recording("own_path", path=tmp_path / "own.json") as figures:
        figures["b"] = 2.0
    assert json.loads((tmp_path / "own.json").read_text())["figures"] == {"b": 2.0}
