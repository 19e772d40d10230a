"""Background jobs (gelu_lab.results.jobs) and the progress bar another process can read (gelu_lab.results.progress)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from gelu_lab.results import jobs, progress


def wait(store, kind, timeout=120):
    t0 = time.time()
    while time.time() - t0 < timeout:
        st = jobs.status(store, kind)
        if st["state"] != "running":
            return st
        time.sleep(0.2)
    raise AssertionError(f"job {kind} still running after {timeout} s")


def test_a_job_runs_the_cli_reports_progress_and_stores_its_result(tmp_path):
    from gelu_lab.results.store import Store

    store = tmp_path / "runs.sqlite"
    assert jobs.status(store, "acc") is None
    job = jobs.start(store, "acc", ["accuracy", "--impl", "gelu", "--dtype", "float16", "--store", str(store)], {"what": "f16"})
    assert job["what"] == "f16" and job["command"].startswith("gelu-lab accuracy")
    with pytest.raises(jobs.AlreadyRunning) as busy:  # one job per kind, said by type, not by words
        jobs.start(store, "acc", ["accuracy", "--impl", "gelu", "--dtype", "float16"])
    assert busy.value.job["pid"] == job["pid"] and busy.value.job["what"] == "f16"
    st = wait(store, "acc")
    assert st["state"] == "done" and st["rc"] == 0
    assert st["progress"]["n"] == st["progress"]["total"] == 65536  # the tqdm bar of measure, mirrored
    with Store(store) as s:
        run = s.runs("accuracy")[-1]
    assert run["status"] == "done"
    assert run["provenance"]["command"].startswith("gelu-lab accuracy --impl gelu")  # the job's wrapper is not recorded


def test_a_failing_job_says_why_and_another_can_start(tmp_path):
    store = tmp_path / "runs.sqlite"
    jobs.start(store, "acc", ["accuracy", "--impl", "no_such_kernel"])
    st = wait(store, "acc")
    assert st["state"] == "failed" and st["rc"] == 2
    assert "no_such_kernel" in st["error"]
    jobs.start(store, "acc", ["--version"])
    st = wait(store, "acc")
    assert st["state"] == "done" and st["rc"] == 0


def test_a_dead_or_foreign_pid_is_not_a_running_job(tmp_path):
    from gelu_lab.results import owner

    store = tmp_path / "runs.sqlite"
    jf = jobs.job_file(store, "bench")
    jf.parent.mkdir(parents=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        # a job file left by a server that died, whose pid now belongs to some other process
        # (same pid, another start time); and one from before jobs recorded their process
        foreign = {**owner.of(other.pid), "start": "1"}
        for who in ({"owner": foreign}, {}):
            jf.write_text(json.dumps({"kind": "bench", "pid": other.pid, "started": 0, "command": "gelu-lab bench",
                                      "done_file": str(tmp_path / "jobs" / "bench-done.json"), **who}))
            st = jobs.status(store, "bench")
            assert st["state"] == "interrupted" and st["resume"] == "gelu-lab bench" and "error" not in st, who
        assert owner.alive(owner.of(other.pid)) is True and owner.alive(foreign) is False
    finally:
        other.kill()
        other.wait()
    assert owner.alive(owner.of(other.pid)) is False  # reaped: gone
    assert owner.alive({**owner.me(), "host": "elsewhere"}) is None  # another host's process: cannot tell


def test_a_killed_or_cancelled_job_is_interrupted_and_starting_it_again_resumes_its_run(tmp_path):
    import signal

    from gelu_lab.results.store import Store

    store = tmp_path / "runs.sqlite"
    args = ["accuracy", "--impl", "gelu", "--dtype", "float32", "--range", "1", "2", "--chunk-bits", "14", "--store", str(store)]
    assert not jobs.cancel(store, "acc")  # nothing to stop
    for how in ("kill", "cancel"):
        job = jobs.start(store, "acc", args, {"what": "f32 [1, 2]"})
        t0 = time.time()
        while not ((jobs.status(store, "acc") or {}).get("progress") or {}).get("n"):  # a chunk is stored
            assert time.time() - t0 < 60 and jobs.status(store, "acc")["state"] == "running"
            time.sleep(0.05)
        if how == "kill":
            os.kill(job["pid"], signal.SIGKILL)  # no cleanup, like a power cut
        else:
            assert jobs.cancel(store, "acc")
        st = wait(store, "acc", timeout=10)
        assert st["state"] == "interrupted" and st["rc"] is None and "error" not in st, how
        assert st["resume"] == job["command"]  # an accuracy sweep resumes its stored run when run again
        assert st.get("cancelled", False) == (how == "cancel")
        assert not jobs.cancel(store, "acc")
        with Store(store) as s:
            (run,) = s.runs("accuracy")
        assert run["status"] == "interrupted" and run["owner"]["pid"] == job["pid"]
    jobs.start(store, "acc", args, {"what": "f32 [1, 2]"})  # the same command again: it resumes
    assert wait(store, "acc")["state"] == "done"
    with Store(store) as s:
        (resumed,) = s.runs("accuracy")
    assert resumed["id"] == run["id"] and resumed["status"] == "done"


def test_progress_bar_mirrors_to_the_file_only_when_asked(tmp_path, monkeypatch):
    path = tmp_path / "p.json"
    monkeypatch.delenv(progress.ENV, raising=False)
    with progress.bar(total=3, disable=True) as b:
        b.update(3)
    assert not path.exists()
    monkeypatch.setenv(progress.ENV, str(path))
    with progress.bar(total=10, desc="x", disable=True) as b:
        assert progress.read(path)["n"] == 0
        for _ in range(10):
            b.update(1)
    assert progress.read(path) == {**progress.read(path), "n": 10, "total": 10, "desc": "x"}
    assert progress.read(tmp_path / "missing.json") is None
    assert os.listdir(tmp_path) == ["p.json"]  # written by rename: no temporary file left
