"""Faults: a job SIGKILLed at a random moment, a checkpoint damaged on disk.

- A training run is killed (SIGKILL: no cleanup, like a power cut) at a random
  moment after its first checkpoint, its resumption is killed again, and the
  second resumption runs to the end: after each kill the store passes PRAGMA
  integrity_check, and the result equals an unkilled run's bit for bit.
  (tests/test_ffn_train.py kills once, right after the first checkpoint.)
- A damaged checkpoint (bytes flipped, truncated, no checksum header) is
  detected by its sha256 and reported in one line, exit 1: it is not loaded,
  and neither it nor the store is touched.
- A BERT probe is killed mid-run: the store stays consistent, the killed run
  reads "interrupted" with no result (readers only take "done" runs), and running
  the same command again completes.
- A killed training run reads "interrupted" in `gelu-lab runs list` and on the FFN
  page, with the command that resumes it; while that command runs, the run is
  "running" again and a second resumption is refused; it then finishes.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from gelu_lab import cli
from gelu_lab.nn.train import checkpoint_path
from gelu_lab.results.store import Store, train_runs
from test_ffn_train import ENV, PY, _train_args, text_file  # noqa: F401  (text_file is a fixture)

ARGS = ("--activations", "silu", "--steps", "200", "--ckpt-every", "10", "--eval-interval", "20")


def integrity(path) -> str:
    """PRAGMA integrity_check on a fresh connection ("ok" when sound)."""
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


def moments(request) -> random.Random:
    """The random source of a test's kill moments: a new seed every run (the moments a fixed
    seed gives would be the only ones ever tried), shown in the test's report (a section of
    its own, which capsys does not swallow); GELU_LAB_FAULT_SEED=<seed> replays it, as far
    as a moment in wall time can be replayed."""
    seed = int(os.environ.get("GELU_LAB_FAULT_SEED") or random.SystemRandom().randrange(2**32))
    request.node.add_report_section("call", "kill moments", f"seed {seed} (GELU_LAB_FAULT_SEED={seed} replays it)")
    return random.Random(seed)


def kill_at_random(argv, ready, rng, max_delay=0.3, timeout=240, done=None):
    """Start `python -m gelu_lab argv`, wait for ready(), sleep a random moment, SIGKILL it.

    Returns True if it was killed while still running (False: it had finished, or
    done() says its work was complete: a process that has written its result is still
    alive while the interpreter shuts down).
    """
    proc = subprocess.Popen([PY, "-m", "gelu_lab", *argv], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + timeout
    while not ready() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(rng.uniform(0, max_delay))
    alive = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return alive and not (done and done())


def _killed_twice(text_file, where, rng, max_delay):
    """Train, kill at a random moment after the first checkpoint, resume, kill again after its
    next evaluation: (store, checkpoint path, whether both kills landed before the run was done)."""
    where.mkdir()
    store = str(where / "s.sqlite")
    first = _train_args(text_file, store, *ARGS)
    resume = _train_args(text_file, store, "--resume", "1")

    def done():
        with Store(store) as s:
            return s.runs("train")[0]["status"] == "done"

    def step():  # the last step with a logged val_loss
        with Store(store) as s:
            return s.metrics(1, "val_loss")[-1]["step"]

    ckpt = where / "checkpoints" / "train-1.pt"
    if not kill_at_random(first, ckpt.exists, rng, max_delay, done=done):
        return store, ckpt, False
    assert integrity(store) == "ok"
    killed_at = step()
    landed = kill_at_random(resume, lambda: step() > killed_at, rng, max_delay, done=done)
    assert integrity(store) == "ok"
    return store, ckpt, landed


def test_train_killed_twice_at_random_moments_resumes_to_the_unkilled_result(text_file, tmp_path, capsys, request):  # noqa: F811
    rng = moments(request)
    # a moment too late (the run done before the kill) is no test of a resume: try again in a
    # fresh store with a shorter delay; a kill that lands but is not resumed right still fails
    for attempt in range(4):
        store, ckpt, killed_twice = _killed_twice(text_file, tmp_path / f"try{attempt}", rng, 0.3 / 2**attempt)
        if killed_twice:
            break
    assert killed_twice, "every run finished before it could be killed twice"
    resume = _train_args(text_file, store, "--resume", "1")
    with Store(store) as s:
        assert s.runs("train")[0]["status"] == "interrupted"  # its process is gone
    assert cli.main(resume) == 0  # in-process: same thread count, same numbers
    assert cli.main(_train_args(text_file, store, *ARGS, "--again")) == 0
    capsys.readouterr()
    assert integrity(store) == "ok"
    with Store(store) as s:
        resumed, straight = train_runs(s)
    assert resumed["status"] == straight["status"] == "done"
    assert resumed["metrics"] == straight["metrics"]  # every metric at every step, bit for bit
    for k in ("val_loss_full", "val_loss", "train_loss"):
        assert resumed["final"][k] == straight["final"][k]
    assert not ckpt.exists()


def _listed(store, capsys) -> list[tuple]:
    """(status, resume) of each run, as `gelu-lab runs list` prints them."""
    import json

    capsys.readouterr()
    assert cli.main(["runs", "list", "--store", store, "--format", "json"]) == 0
    return [(r["status"], r["resume"]) for r in json.loads(capsys.readouterr().out)["rows"]]


def test_a_killed_run_shows_as_interrupted_with_the_command_that_resumes_it(text_file, tmp_path, capsys, monkeypatch):  # noqa: F811
    from gelu_lab.nn import ffn_view

    store = str(tmp_path / "s.sqlite")
    ckpt = tmp_path / "checkpoints" / "train-1.pt"
    assert kill_at_random(_train_args(text_file, store, *ARGS), ckpt.exists, random.Random(0), max_delay=0)
    resume = f"gelu-lab train --resume 1 --store {store}"
    assert _listed(store, capsys) == [("interrupted", resume)]
    monkeypatch.setenv("GELU_LAB_STORE", store)  # the page reads the reader's own store: no --store to type
    (shown,) = ffn_view.unfinished(store)
    assert (shown["id"], shown["status"], shown["resume"], shown["steps"]) == (1, "interrupted", "gelu-lab train --resume 1", 200)
    assert 0 <= shown["step"] < 200
    # a new run of the same activation is told it could resume instead (and is started all the same)
    assert cli.main(_train_args(text_file, store, "--activations", "silu", "--steps", "1")) == 0
    assert f"run 1 (silu seed 0, 200 steps) was interrupted; {resume} continues it" in capsys.readouterr().err

    # resumed by another process: "running" again, and nobody else may resume it meanwhile
    proc = subprocess.Popen([PY, "-m", "gelu_lab", *_train_args(text_file, store, "--resume", "1")], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            with Store(store) as s:
                if s.runs("train")[0]["owner"]["pid"] == proc.pid:
                    break
            time.sleep(0.02)
        if proc.poll() is None:  # still at it (a tiny run may already be done)
            assert _listed(store, capsys)[0] in (("running", ""), ("done", ""))
            if ffn_view.unfinished(store):
                assert ffn_view.unfinished(store)[0]["status"] == "running"
            rc = cli.main(_train_args(text_file, store, "--resume", "1"))
            err = capsys.readouterr().err
            assert rc == 2 and ("still running" in err or "already done" in err), err
    finally:
        _, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    assert _listed(store, capsys) == [("done", ""), ("done", "")]
    assert ffn_view.unfinished(store) == []
    assert integrity(store) == "ok"


def test_a_killed_training_job_reads_interrupted_with_its_resume_command_until_resumed(tmp_path, capsys, monkeypatch):
    """The FFN page's job (gelu_lab.nn.train_job) SIGKILLed: interrupted, not failed, with the
    command that continues its run; continued by that command, the job reads done."""
    from gelu_lab.nn import train_job

    store = tmp_path / "runs.sqlite"
    monkeypatch.setenv("GELU_LAB_STORE", str(store))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the job inherits it
    job = train_job.start(store, "relu", 0, 400, 0.02, preset="tiny", eval_interval=20)
    deadline = time.time() + 120
    while (train_job.status(store) or {}).get("step", 0) < 20:  # its run is stored and under way
        assert time.time() < deadline and train_job.status(store)["state"] == "running", train_job.status(store)
        time.sleep(0.05)
    os.kill(job["pid"], signal.SIGKILL)
    while train_job.status(store)["state"] == "running":
        assert time.time() < deadline
        time.sleep(0.05)
    st = train_job.status(store)
    assert st["state"] == "interrupted" and "error" not in st and st["run_id"] == 1
    assert st["resume"] == "gelu-lab train --resume 1" and 20 <= st["progress"]["n"] < 400
    assert cli.main(["train", *st["resume"].split()[2:], "--no-progress", "--threads", "1"]) == 0  # the command, as shown
    capsys.readouterr()
    st = train_job.status(store)
    assert st["state"] == "done" and st["step"] == 400 and "resume" not in st


def _damage(kind: str, raw: bytes) -> bytes:
    if kind == "flipped bytes":
        b = bytearray(raw)
        for i in range(len(b) // 2, len(b), 4099):  # inside the tensors, after the header
            b[i] ^= 0x5A
        return bytes(b)
    if kind == "truncated":
        return raw[: len(raw) * 2 // 3]
    return raw.split(b"\n", 1)[1]  # "no header": a bare torch.save file (or one from before checksums)


def test_a_damaged_checkpoint_is_reported_not_loaded(text_file, tmp_path, capsys):  # noqa: F811
    store = str(tmp_path / "s.sqlite")
    ckpt = tmp_path / "checkpoints" / "train-1.pt"
    assert kill_at_random(_train_args(text_file, store, *ARGS), ckpt.exists, random.Random(0), max_delay=0)
    good = ckpt.read_bytes()
    with Store(store) as s:
        before = (s.runs("train"), s.metrics(1))
    resume = _train_args(text_file, store, "--resume", "1")
    for kind in ("flipped bytes", "truncated", "no header"):
        bad = _damage(kind, good)
        ckpt.write_bytes(bad)
        assert cli.main(resume) == 1, kind
        out, err = capsys.readouterr()
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and out == "", err
        assert "checkpoint not loaded" in err and "sha256" in err, err
        assert ckpt.read_bytes() == bad  # left for the user to look at
        with Store(store) as s:
            assert (s.runs("train"), s.metrics(1)) == before, kind  # nothing trained on damaged weights
            assert s.integrity_ok()
    ckpt.write_bytes(good)  # the intact one resumes
    assert cli.main(resume) == 0
    capsys.readouterr()
    with Store(store) as s:
        assert s.runs("train")[0]["status"] == "done"


@pytest.mark.xdist_group("bert")
def test_probe_killed_mid_run_leaves_a_sound_store_and_runs_again(tmp_path, capsys, request):
    text = tmp_path / "s.txt"
    words = "cat dog rain town river night bread stone light music".split()
    text.write_text("".join(f"The {a} saw the {b} near the {c}.\n" for a in words for b in words[:3] for c in words[:1]))
    store = str(tmp_path / "runs.sqlite")
    argv = ["probe", "--text", str(text), "--precision", "none", "--threads", "1", "--store", store, "--no-progress"]

    def started():  # the run row is written before the measuring starts
        if not Path(store).exists():
            return False
        try:
            with Store(store) as s:
                return bool(s.runs("probe"))
        except OSError:
            return False

    assert kill_at_random(argv, started, moments(request), max_delay=0.3), "the probe finished before it could be killed"
    assert integrity(store) == "ok"
    with Store(store) as s:
        (killed,) = s.runs("probe")
        assert killed["status"] == "interrupted" and s.results(killed["id"]) == {}
        assert s.latest_result("probe", "probe") == (None, None)  # readers see no half result
    assert cli.main(argv) == 0
    capsys.readouterr()
    assert integrity(store) == "ok"
    with Store(store) as s:
        run, value = s.latest_result("probe", "probe")
        assert run["id"] != killed["id"] and run["status"] == "done" and value["n_sentences"] == 30
        assert s.find_run("probe", killed["key"])["id"] == run["id"]  # the newest run of that key is the finished one
