"""The FFN experiment that decides: which FFN variant trains best, GELU against each other one?

    gelu-lab experiment --workers 2 --write src/gelu_lab/data/ffn_results.json

The plans and the schedule are :mod:`gelu_lab.nn.plans`; this module carries one out.
Every run is one ``gelu-lab train`` process, one thread each, ``workers`` at a time.
It runs what the plan wants (:func:`gelu_lab.nn.plans.wanted`) and asks again, until
the plan wants nothing more: the sweep grows its grids until each best rate is
bracketed, then the seeds of each variant run at its rate.

A run already done in the store is not run again; an interrupted one (its process
gone) is resumed from its checkpoint; so a killed experiment goes on where it stopped
when the command is given again. Importing this module does not import torch.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time

from .plans import PLANS, Plan, config, train_args, train_config, wanted  # noqa: F401 (PLANS: the CLI's choices)


def _resume_args(run_id: int) -> list[str]:
    return ["train", "--resume", str(run_id), "--threads", "1", "--no-progress"]


def _execute(plan: Plan, runs: list[dict], store_path: str, workers: int, bar=None) -> list[int]:
    """Run what is not done yet, `workers` processes at a time; the run ids, in order.
    A run another live process is training (an earlier call of the experiment, killed
    while its runs went on) is waited for, not started twice. A failing run stops the
    experiment (RuntimeError with its last words) once the others running have ended."""
    from ..results.store import Store

    todo, waiting = [], []
    with Store(store_path) as store:
        for run in runs:
            key = train_config(plan, run).key()
            if key in waiting or any(k == key for k, _ in todo):  # listed twice: one run
                continue
            if store.find_run("train", key, "done"):
                if bar is not None:
                    bar.update(1)
            elif store.runs("train", "running", key=key):
                waiting.append(key)
            else:
                left = store.resumable("train", key)
                todo.append((key, _resume_args(left["id"]) if left else train_args(plan, run)))
    active, failure, looked = {}, None, 0.0
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    while todo or active or waiting:
        while todo and len(active) + len(waiting) < workers and failure is None:
            key, args = todo.pop(0)
            proc = subprocess.Popen([sys.executable, "-m", "gelu_lab", *args, "--store", str(store_path)], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            active[proc] = key
        if failure is not None and not active:
            break
        time.sleep(0.2)
        for proc in [p for p in active if p.poll() is not None]:
            key = active.pop(proc)
            err = proc.stderr.read().strip().splitlines()
            if proc.returncode != 0 and failure is None:
                failure = f"a run of the experiment failed ({key}): {err[-1] if err else f'exit {proc.returncode}'}"
            if bar is not None:
                bar.update(1)
        if waiting and time.time() - looked > 5:  # the runs of another process: done, or left to us
            looked = time.time()
            with Store(store_path) as store:
                for key in list(waiting):
                    if store.find_run("train", key, "done"):
                        waiting.remove(key)
                        if bar is not None:
                            bar.update(1)
                    elif not store.runs("train", "running", key=key):
                        waiting.remove(key)
                        left = store.resumable("train", key)
                        todo.insert(0, (key, _resume_args(left["id"])))
    if failure:
        raise RuntimeError(failure)
    with Store(store_path) as store:
        return [store.find_run("train", train_config(plan, run).key(), "done")["id"] for run in runs]


def sweep_losses(plan: Plan, store) -> dict:
    """{variant: {rate: final val loss}} of the plan's finished sweep runs in `store` (seed 0, the
    plan's cell, any rate): the runs whose key is the plan's but for the rate."""
    from ..stats.runsets import final_loss

    out = {}
    done = [r for r in store.runs("train", "done") if r["config"].get("seed") == 0]
    for act in plan.sweep:
        template = train_config(plan, config(plan, act, 0, 0.5)).key()  # "/lr0.5/" where the rate goes
        for r in done:
            lr = r["config"].get("lr")
            if r["config"].get("activation") == act and isinstance(lr, (int, float)) and r["key"] == template.replace("/lr0.5/", f"/lr{lr:g}/"):
                loss = final_loss({"final": store.result(r["id"], "final")})
                if loss is not None:
                    out.setdefault(act, {})[float(lr)] = loss
    return out


def pending(plan: Plan, store_path: str) -> list[dict]:
    """The runs the plan wants now that the store at `store_path` has not finished, in order
    (no store there yet: the first round, and none is created)."""
    from ..results.store import for_reading

    store = for_reading(store_path)
    if store is False:
        return wanted(plan, {})[0]
    with store:
        runs, _ = wanted(plan, sweep_losses(plan, store))
        return [r for r in runs if not store.find_run("train", train_config(plan, r).key(), "done")]


def commands(plan: Plan, store_path: str) -> list[str]:
    """``gelu-lab train`` command lines, one per run the plan still wants (none: it is complete).
    After the sweep's first grid they depend on its losses: run them, merge the stores
    (``gelu-lab runs merge``), ask again."""
    return [shlex.join(["gelu-lab", *train_args(plan, r)]) for r in pending(plan, store_path)]


def summary(plan: Plan, store_path: str) -> dict:
    """Where the plan stands in the store: {"plan", "lr": {variant: rate}, "sweep": {variant: {rate: loss}},
    "runs": [ids of the finished runs it wants], "pending": how many it still wants}."""
    from ..results.store import Store

    with Store(store_path) as store:
        losses = sweep_losses(plan, store)
        runs, lr = wanted(plan, losses)
        found = [store.find_run("train", train_config(plan, r).key(), "done") for r in runs]
    ids = sorted({f["id"] for f in found if f})
    return {"plan": plan.to_dict(), "lr": lr, "sweep": losses, "runs": ids, "pending": len(runs) - sum(1 for f in found if f)}


def run(plan: Plan, store_path: str, workers: int = 2, progress: bool = True) -> dict:
    """Carry out the plan (resuming where a previous call stopped): run what it wants until it
    wants nothing new. Its :func:`summary` (nothing "pending")."""
    from tqdm import tqdm

    rounds = 0
    while True:
        todo = pending(plan, store_path)
        if not todo:
            break
        rounds += 1
        with tqdm(total=len(todo), desc=f"round {rounds}", unit="run", disable=not progress) as bar:
            _execute(plan, todo, store_path, workers, bar)
    return summary(plan, store_path)
