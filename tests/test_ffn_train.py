"""Training runs: the store gets the run, a killed run resumes to the same numbers, DDP, CLI errors."""

import math
import os
import signal
import subprocess
import sys
import time

import pytest

from gelu_lab.cli import main
from gelu_lab.commands import run_words as W
from gelu_lab.nn import runs as R
from gelu_lab.results.store import Store, train_runs

PY = sys.executable
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def text_file(tmp_path_factory):
    from gelu_lab.nn.corpus import load_text

    p = tmp_path_factory.mktemp("text") / "t.txt"
    p.write_text(load_text()[:40_000])
    return str(p)


def _train_args(text, store, *extra):
    return ["train", "--preset", "tiny", "--text", text, "--store", store, "--threads", "1", "--no-progress", *extra]


def test_tiny_run_writes_the_store(text_file, tmp_path, capsys):
    store = str(tmp_path / "s.sqlite")
    assert main(_train_args(text_file, store, "--activations", "relu,gelu", "--steps", "60", "--seeds", "2")) == 0
    with Store(store) as s:
        runs = train_runs(s)
        assert s.integrity_ok()
    assert sorted((r["config"]["activation"], r["config"]["seed"]) for r in runs) == [("gelu", 0), ("gelu", 1), ("relu", 0), ("relu", 1)]
    for r in runs:
        steps, val = R.series(r, "val_loss")
        assert steps == [0, 20, 40, 60]
        vocab = len(set(open(text_file).read()))
        assert abs(val[0] - math.log(vocab)) < 0.3  # an untrained model is close to uniform
        assert val[-1] < val[0] - 0.3  # and it learns
        for name in ("L0.dead", "L0.near_dead", "L0.const", "L0.pre_neg"):
            assert all(0 <= v <= 1 for v in R.series(r, name)[1])
        assert R.series(r, "L0.grad_fc")[1][0] > 0
        f = r["final"]
        assert f["steps"] == 60 and f["tok_s"] > 0 and f["val_loss_full"] == pytest.approx(R.series(r, "val_loss_full")[1][0])
        assert r["provenance"]["command"].startswith("gelu-lab train")
    # same seed: same start (init and first batch), so the step-0 numbers agree across activations
    first = {(r["config"]["activation"], r["config"]["seed"]): R.series(r, "L0.pre_std")[1][0] for r in runs}
    assert first[("relu", 0)] == first[("gelu", 0)] and first[("relu", 0)] != first[("relu", 1)]
    # compare: two activations, two seeds each
    (g,) = W.compare(runs)
    assert [row["rank"] for row in g["rows"]] == [1, 2] and all(row["n"] == 2 for row in g["rows"])
    capsys.readouterr()
    assert main(["runs", "compare", "--store", store, "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("group,rank,activation") and len(out) == 3


def _cli(*args, check=True):
    return subprocess.run([PY, "-m", "gelu_lab", *args], env=ENV, capture_output=True, text=True, check=check, timeout=240)


def test_killed_run_resumes_to_identical_numbers(text_file, tmp_path):
    store = str(tmp_path / "s.sqlite")
    args = _train_args(text_file, store, "--activations", "silu", "--steps", "150", "--ckpt-every", "10", "--eval-interval", "20")
    proc = subprocess.Popen([PY, "-m", "gelu_lab", *args], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt = tmp_path / "checkpoints" / "train-1.pt"
    deadline = time.time() + 180
    while not ckpt.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # no chance to clean up: like a power cut
    proc.wait()
    with Store(store) as s:
        (run,) = s.runs("train")
        assert run["status"] == "interrupted", "the run finished before it could be killed"
    _cli(*_train_args(text_file, store, "--resume", "1"))
    _cli(*_train_args(text_file, store, "--activations", "silu", "--steps", "150", "--ckpt-every", "10", "--eval-interval", "20", "--again"))
    with Store(store) as s:
        resumed, straight = train_runs(s)
    assert resumed["id"] == 1 and resumed["status"] == "done" and straight["id"] == 2
    assert resumed["metrics"].keys() == straight["metrics"].keys()
    for name in straight["metrics"]:
        assert resumed["metrics"][name] == straight["metrics"][name], name  # bit-identical
    for k in ("val_loss_full", "val_loss", "train_loss"):
        assert resumed["final"][k] == straight["final"][k]
    assert not ckpt.exists()  # a finished run removes its checkpoint


def test_torchrun_two_gloo_processes_match_one_process(text_file, tmp_path):
    store = str(tmp_path / "s.sqlite")
    args = _train_args(text_file, store, "--activations", "gelu", "--steps", "30", "--eval-interval", "10")
    argv = [PY, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "-m", "gelu_lab", *args]
    ddp_run = subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=240)
    if ddp_run.returncode and "Address already in use" in ddp_run.stderr:
        # torchrun picks its workers' port by closing a socket it bound, and another test's server
        # may take the port meanwhile (pytorch/pytorch#66953): that race alone earns a second try
        ddp_run = subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=240)
    assert ddp_run.returncode == 0, ddp_run.stderr[-4000:]
    _cli(*args, "--again")
    with Store(store) as s:
        ddp, single = train_runs(s)
    assert ddp["final"]["world"] == 2 and single["final"]["world"] == 1
    assert ddp["final"]["ranks_identical"] is True
    # two processes with half the batch each see the same data as one: same losses up to summation order
    for name in ("val_loss", "L0.pre_std"):
        a, b = R.series(ddp, name)[1], R.series(single, name)[1]
        assert a == pytest.approx(b, rel=1e-4), name


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--seeds", "0"],
        ["train", "--activations", "nope"],
        ["train", "--fc-init-std", "-1"],
        ["train", "--fc-init-std", "big"],
        ["train", "--preset", "huge"],
        ["train", "--steps", "ten"],
        ["train", "--lr", "5"],
        ["train", "--text", "/no/such/file.txt"],
        ["runs"],
        ["runs", "show", "x"],
        ["runs", "compare", "--format", "xml"],
    ],
)
def test_bad_arguments_one_line_exit_2(argv, capsys, tmp_path):
    assert main([*argv, "--store", str(tmp_path / "s.sqlite")] if argv[0] == "train" else argv) == 2
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err


def test_missing_run_and_store_one_line(tmp_path, capsys):
    store = str(tmp_path / "s.sqlite")
    assert main(["runs", "list", "--store", store]) == 2
    Store(store).close()
    assert main(["runs", "show", "5", "--store", store]) == 2
    assert main(["train", "--resume", "5", "--store", store, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all("error" in line for line in err)


def test_experiment_end_to_end_resumes_after_a_kill(tmp_path):
    """The tiny plan through the CLI, killed once in its sweep: given again, it finishes with
    no run twice, and writes a result set the app reads, with no machine path in it."""
    import json

    from gelu_lab.nn import experiment as X
    from gelu_lab.results.store import Store

    store, out = str(tmp_path / "x.sqlite"), tmp_path / "set.json"
    argv = [PY, "-m", "gelu_lab", "experiment", "--plan", "tiny", "--store", store, "--workers", "2", "--no-progress"]
    p = subprocess.Popen(argv, env=ENV, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:  # a run of the sweep has logged a step
        time.sleep(0.2)
        if os.path.exists(store):
            with Store(store) as s:
                if any(s.metrics(r["id"]) for r in s.runs("train")):
                    break
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    deadline = time.time() + 30  # the killed training processes are reaped by init: until then they own their runs
    while time.time() < deadline:
        with Store(store) as s:
            if any(r["status"] == "interrupted" for r in s.runs("train")):
                break
        time.sleep(0.2)
    with Store(store) as s:
        assert any(r["status"] == "interrupted" for r in s.runs("train"))
    done = subprocess.run([*argv, "--write", str(out)], env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    plan = X.PLANS["tiny"]
    with Store(store) as s:
        runs = s.runs("train")
        wanted, lr = X.wanted(plan, X.sweep_losses(plan, s))
    n_runs = len(wanted)
    # the killed ones resumed, none started twice, and every run the plan wants (its grown sweep too) is done
    assert len(runs) == n_runs == len({r["key"] for r in runs}) and all(r["status"] == "done" for r in runs)
    assert set(lr) == set(plan.sweep) and not X.commands(plan, store)
    assert "gelu - relu:" in done.stdout and "95% interval" in done.stdout
    listed = subprocess.run([PY, "-m", "gelu_lab", "runs", "compare", "--store", store], env=ENV, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "lr: each activation's best" in listed.stdout and "95% interval [" in listed.stdout, listed.stdout[-1500:]
    doc = json.loads(out.read_text())
    assert len(doc["runs"]) == n_runs and str(tmp_path) not in out.read_text()
    prov = doc["provenance"]
    assert prov["experiment"]["name"] == "tiny" and prov["experiment"]["plan"]["preset"] == "tiny" and set(prov["experiment"]["lr"]) == {"gelu", "relu", "swiglu"} and prov["torch"] and prov["processor"]
    from gelu_lab.stats.runsets import experiments

    (e,) = experiments(doc["runs"])
    assert e["lr"] == prov["experiment"]["lr"] and [c["width"] for c in e["cells"]] == [16, 8]
    assert {a: s["bracketed"] for a, s in prov["experiment"]["sweep"].items()} == {a: b["bracketed"] for a, b in e["bracket"].items()}
