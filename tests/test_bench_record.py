"""bench/record.py's quiet check: a timed bench script writes nothing while other processes keep the
machine busy, unless told to (and then the file and the docs say how busy)."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import record  # noqa: E402

sys.path.remove(str(ROOT / "bench"))


@pytest.fixture
def busy_machine():
    """One busy process per CPU (so that others hold the machine whatever the suite does), for the test's length."""
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    time.sleep(0.3)  # past their start
    yield
    for p in spin:
        p.kill()
        p.wait()


def _record(tmp_path, monkeypatch, **kw):
    monkeypatch.setattr(record, "RESULTS", tmp_path)  # bench/results itself is never written by a test
    with record.recording("quiet_check", **kw) as figures:
        figures["a figure"] = 1.0
    return tmp_path / "quiet_check.json"


def test_the_share_of_a_busy_machine_is_seen(busy_machine):
    assert record.busy_share(0.5) > 0.75


def test_a_timed_run_on_a_busy_machine_writes_nothing_and_says_why(busy_machine, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GELU_LAB_BENCH_BUSY", raising=False)
    with pytest.raises(SystemExit) as stop:
        _record(tmp_path, monkeypatch)
    assert stop.value.code == 2 and not list(tmp_path.iterdir())
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "quiet_check.json not written" in err and "GELU_LAB_BENCH_BUSY=ok" in err


def test_told_to_it_records_the_busy_share_and_the_docs_show_it(busy_machine, tmp_path, monkeypatch):
    monkeypatch.setenv("GELU_LAB_BENCH_BUSY", "ok")
    doc = json.loads(_record(tmp_path, monkeypatch).read_text())
    assert doc["figures"] == {"a figure": 1.0} and doc["busy_before"] > 0.75
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import render_measurements
    finally:
        sys.path.remove(str(ROOT / "tools"))
    where = render_measurements.bench_record(tmp_path / "quiet_check.json").where
    assert f"other processes busy on {doc['busy_before']:.0%} of it before the run" in where


def test_untimed_runs_and_a_tests_own_path_skip_the_check(busy_machine, tmp_path, monkeypatch):
    monkeypatch.delenv("GELU_LAB_BENCH_BUSY", raising=False)
    assert "busy_before" not in json.loads(_record(tmp_path, monkeypatch, timed=False).read_text())
    with record.recording("own_path", path=tmp_path / "own.json") as figures:
        figures["b"] = 2.0
    assert json.loads((tmp_path / "own.json").read_text())["figures"] == {"b": 2.0}
