"""Past one machine: `gelu-lab experiment --commands` prints the runs a plan still wants, one
`gelu-lab train` each; run them into two stores, `gelu-lab runs merge` them, ask again, until
nothing is left; merging is idempotent and refuses a run trained twice."""

import json
import shlex

from gelu_lab.cli import main
from gelu_lab.nn import experiment as X
from gelu_lab.results.store import Store, train_runs


def fake_run(store, act, seed, loss, kind="train"):
    """A finished run written the way a training run writes one (no torch)."""
    rid = store.start_run(kind, f"{act}/seed{seed}", {"activation": act, "seed": seed})
    store.log_metrics(rid, 0, {"val_loss": loss + 1.0})
    store.log_metrics(rid, 10, {"val_loss": loss})
    store.put_result(rid, "final", {"val_loss_full": loss})
    store.set_status(rid, "done")
    return rid


def summary(path):
    with Store(path) as s:
        return sorted((r["key"], r["created"], r["final"]["val_loss_full"], json.dumps(r["metrics"], sort_keys=True)) for r in train_runs(s))


def test_merge_two_stores_is_idempotent_and_refuses_a_run_made_twice(tmp_path, capsys):
    a, b, c = (str(tmp_path / f"{n}.sqlite") for n in "abc")
    with Store(a) as s:
        fake_run(s, "gelu", 0, 1.5)
        fake_run(s, "relu", 0, 1.6)
        s.start_run("train", "gelu/seed1", {"activation": "gelu", "seed": 1})  # unfinished: stays where it can resume
    with Store(b) as s:
        fake_run(s, "gelu", 1, 1.4)
        fake_run(s, "probe", 0, 0.1, kind="probe")
    assert main(["runs", "merge", a, b, "--store", c]) == 0
    assert "4 run(s) added, 0 already there" in capsys.readouterr().out
    assert summary(c) == sorted(summary(a) + summary(b))
    with Store(c) as s:
        assert [r["kind"] for r in s.runs("probe")] == ["probe"] and not s.runs("train", "interrupted")
    before = summary(c)
    assert main(["runs", "merge", a, b, a, "--store", c]) == 0  # again, and a source twice: nothing new
    assert "0 run(s) added, 6 already there" in capsys.readouterr().out and summary(c) == before
    # a result set (runs export) of the same runs is the same runs
    assert main(["runs", "export", "--store", a]) == 0
    (tmp_path / "a.json").write_text(capsys.readouterr().out)
    assert main(["runs", "merge", str(tmp_path / "a.json"), "--store", c]) == 0 and summary(c) == before
    # the same key trained again, separately: refused in one line, exit 2, nothing written
    d = str(tmp_path / "d.sqlite")
    with Store(d) as s:
        fake_run(s, "silu", 0, 1.7)
        fake_run(s, "gelu", 0, 1.55)
    capsys.readouterr()
    assert main(["runs", "merge", d, "--store", c]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "two separate runs of gelu/seed0" in err[0] and "keep one" in err[0]
    assert summary(c) == before
    assert main(["runs", "merge", str(tmp_path / "none.sqlite"), "--store", c]) == 2
    assert "no runs store or result set" in capsys.readouterr().err


def test_commands_run_on_two_machines_merge_into_the_experiment(tmp_path, capsys):
    """The tiny plan as a scheduler would run it: each round's commands split over two stores,
    merged, asked again; at the end the experiment itself finds nothing left to run."""
    a, b, merged = (str(tmp_path / f"{n}.sqlite") for n in ("a", "b", "merged"))
    rounds, trained = 0, []
    while True:
        capsys.readouterr()  # what the training runs and the merge printed
        assert main(["experiment", "--plan", "tiny", "--commands", "--store", merged]) == 0
        lines = capsys.readouterr().out.splitlines()
        if not lines:
            break
        rounds += 1
        assert rounds < 10 and all(line.startswith("gelu-lab train ") for line in lines)
        for i, line in enumerate(lines):
            argv = shlex.split(line)[1:]
            assert main([*argv, "--store", a if i % 2 else b]) == 0
            trained.append(line)
        assert main(["runs", "merge", a, b, "--store", merged]) == 0
    assert rounds >= 2 and len(trained) == len(set(trained))  # the sweep grew after the first round; no run twice
    with Store(merged) as s:
        runs = s.runs("train")
        assert len(runs) == len(trained) == len({r["key"] for r in runs}) and all(r["status"] == "done" for r in runs)
    capsys.readouterr()
    assert main(["experiment", "--plan", "tiny", "--store", merged, "--no-progress"]) == 0  # nothing to run: only the summary
    out = capsys.readouterr().out
    assert out.startswith("learning rates: gelu ") and "swiglu" in out and "gelu - swiglu:" in out
    with Store(merged) as s:
        assert len(s.runs("train")) == len(trained)
    assert X.commands(X.PLANS["tiny"], merged) == []
