"""Two background jobs writing one runs store at the same time: nothing corrupt, nothing lost.

Two `gelu-lab train` processes (different activations) share one SQLite file, each
logging metrics every 5 steps and checkpointing as often, while this process reads
the store in a loop (as the app's progress callback does). Afterwards the file passes
PRAGMA integrity_check and each run is complete: status done, every eval step's
metrics, its final result.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from gelu_lab.nn import runs as R
from gelu_lab.results.store import Store, train_runs

PY = sys.executable
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}
STEPS, EVERY = 100, 5


def test_two_training_jobs_share_one_store(tmp_path):
    from gelu_lab.nn.corpus import load_text

    text = tmp_path / "t.txt"
    text.write_text(load_text()[:40_000])
    store = str(tmp_path / "runs.sqlite")
    Store(store).close()  # the schema exists before either job starts, as in a used data dir

    def job(act):
        args = ["train", "--preset", "tiny", "--text", str(text), "--store", store, "--threads", "1", "--no-progress",
                "--activations", act, "--steps", str(STEPS), "--eval-interval", str(EVERY), "--ckpt-every", str(EVERY)]
        return subprocess.Popen([PY, "-m", "gelu_lab", *args], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    procs = [job("gelu"), job("relu")]
    reads = 0
    with Store(store) as reader:
        while any(p.poll() is None for p in procs):
            for r in reader.runs("train"):  # a reader in the middle of both writers
                reader.metrics(r["id"], "val_loss")
            reads += 1
            time.sleep(0.05)
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert reads > 0

    with Store(store) as s:
        assert s.integrity_ok()
        runs = train_runs(s, status=None)
    assert sorted(r["config"]["activation"] for r in runs) == ["gelu", "relu"]
    for r in runs:
        assert r["status"] == "done"
        steps, val = R.series(r, "val_loss")
        assert steps == list(range(0, STEPS + 1, EVERY))  # not one eval lost
        assert all(v == v and v > 0 for v in val)
        assert r["final"]["steps"] == STEPS
    assert not list((tmp_path / "checkpoints").glob("train-*.pt"))  # both finished runs removed their checkpoints


OPENER = r"""
import os, sys
from gelu_lab.results.store import Store
folder, rounds, me = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for r in range(rounds):
    open(os.path.join(folder, f"ready-{r}-{me}"), "w").close()
    while not os.path.exists(os.path.join(folder, f"go-{r}")):
        pass  # spin: both openers leave the line within microseconds of each other
    try:
        with Store(os.path.join(folder, f"s{r}.sqlite")) as s:
            s.runs("train")
    except OSError as e:
        print(f"round {r}: {e}")
"""


def test_processes_that_open_a_new_store_at_once_all_get_it(tmp_path):
    # the ranks of a torchrun job open the same new store together: SQLite answered all
    # but one "database is locked" when they switched it to WAL (half of these rounds did)
    rounds = 10
    procs = [subprocess.Popen([PY, "-c", OPENER, str(tmp_path), str(rounds), str(i)], env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    for r in range(rounds):
        deadline = time.monotonic() + 60
        while not all((tmp_path / f"ready-{r}-{i}").exists() for i in range(2)):
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.001)
        (tmp_path / f"go-{r}").touch()
    outs = [p.communicate(timeout=60) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert out == "", out
