"""The FFN experiment that decides: does GELU beat ReLU in a Transformer's FFN?

    gelu-lab experiment --workers 2 --write src/gelu_lab/data/ffn_results.json

A plan is three phases, each a list of training runs (``gelu-lab train``, one
process per run, one thread each, ``workers`` at a time):

1. **sweep** -- every activation of ``sweep`` at every learning rate of ``lrs``,
   seed 0. Each activation then trains at the rate with its lowest final
   validation loss (``lr_from`` lends one activation's rate to another:
   GELU-tanh differs from GELU by < 0.02 % of |x|, so it takes GELU's).
2. **seeds** -- ``seeds[act]`` seeds (0..n-1) of each activation at its rate;
   seed 0 is the sweep's run. Runs with the same seed share the initial
   weights and every batch, so the activations are compared seed by seed
   (:func:`gelu_lab.nn.runs.paired`).
3. **scale** -- the same comparison at other widths and FFN init scales
   (``scale``: (width, fc_init_std, activations, seeds)), each activation at
   its rate from the sweep; then the ``small`` runs, at their preset's own
   settings (the FFN page's "run one yourself" adds seeds to them).

Selection bias: the rate is chosen on the validation loss that seed 0 then
reports; the other seeds are fresh, and the bias favours every activation
alike, so the paired differences are nearly free of it.

A run already done in the store is not run again; an interrupted one (its
process gone) is resumed from its checkpoint; so a killed experiment goes on
where it stopped when the command is given again. Importing this module does
not import torch.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Plan:
    preset: str
    lrs: tuple
    sweep: tuple  # activations whose rate is swept
    seeds: dict  # activation -> number of seeds at its rate
    lr_from: dict = field(default_factory=dict)  # activation -> the activation whose rate it takes
    scale: tuple = ()  # (width, fc_init_std, activations, seeds)
    steps: int | None = None  # None: the preset's
    fc_init_std: float | str = 0.02
    # small runs at a preset's own settings, for the FFN page's run control to add seeds to:
    # (preset, steps, fc_init_stds, activations, seeds)
    small: tuple = ()

    def to_dict(self) -> dict:
        return asdict(self)


PLANS = {
    # sized to about two hours on 2 cores (docs/decisions.md: the shipped run took 2 h 5 min)
    "ship": Plan(
        preset="decide", lrs=(2e-3, 4e-3, 8e-3), sweep=("gelu", "relu", "silu", "sigmoid"),
        seeds={"gelu": 5, "relu": 5, "silu": 5, "sigmoid": 2, "gelu_tanh": 2}, lr_from={"gelu_tanh": "gelu"},
        scale=((128, "unit", ("gelu", "relu"), 4), (64, 0.02, ("gelu", "relu"), 4), (64, "unit", ("gelu", "relu"), 4)),
        small=(("quick", 600, (0.02, "unit"), ("gelu", "gelu_tanh", "relu", "sigmoid", "silu"), 2),),
    ),
    # the whole pipeline in seconds (tests)
    "tiny": Plan(
        preset="tiny", steps=30, lrs=(3e-3, 1e-2), sweep=("gelu", "relu"), seeds={"gelu": 2, "relu": 2},
        scale=((8, "unit", ("gelu", "relu"), 2),),
    ),
}

# the order the seeds phase runs in: the activations the verdict is about first
_FIRST = ("gelu", "relu", "silu")


def _config(plan: Plan, act: str, seed: int, lr: float | None, width: int | None = None, fc=None, preset=None, steps=None) -> dict:
    return {"activation": act, "seed": seed, "lr": lr, "width": width, "fc_init_std": plan.fc_init_std if fc is None else fc,
            "preset": preset or plan.preset, "steps": steps or plan.steps}


def sweep_runs(plan: Plan) -> list[dict]:
    return [_config(plan, act, 0, lr) for act in plan.sweep for lr in plan.lrs]


def best_lrs(plan: Plan, final: dict) -> dict:
    """{activation: rate} from the sweep's final val losses ``final[(act, lr)]``; an
    activation of ``lr_from`` takes its lender's rate. Missing sweep runs: KeyError."""
    best = {act: min(plan.lrs, key=lambda lr: final[(act, lr)]) for act in plan.sweep}
    for act, lender in plan.lr_from.items():
        best[act] = best[lender]
    return best


def later_runs(plan: Plan, lr: dict) -> list[dict]:
    """The seeds and scale phases, in the order they run: seeds of the compared
    activations round by round (seed 1 of each, then seed 2, ...), the scale cells,
    then the remaining seeds of the other activations."""
    first = [a for a in _FIRST if a in plan.seeds]
    rest = [a for a in plan.seeds if a not in first]
    out = [_config(plan, a, s, lr[a]) for s in range(max((plan.seeds[a] for a in first), default=0)) for a in first if s < plan.seeds[a]]
    for width, fc, acts, n in plan.scale:
        out += [_config(plan, a, s, lr[a], width, fc) for s in range(n) for a in acts]
    out += [_config(plan, a, s, lr[a]) for s in range(max((plan.seeds[a] for a in rest), default=0)) for a in rest if s < plan.seeds[a]]
    for preset, steps, fcs, acts, n in plan.small:
        out += [_config(plan, a, s, None, fc=fc, preset=preset, steps=steps) for fc in fcs for s in range(n) for a in acts]
    return out


def train_args(plan: Plan, run: dict) -> list[str]:
    """The ``gelu-lab train`` arguments of one run of the plan (no --lr: the preset's)."""
    args = ["train", "--activations", run["activation"], "--seeds", "1", "--seed-start", str(run["seed"]),
            "--preset", run["preset"], "--fc-init-std", str(run["fc_init_std"]), "--threads", "1", "--no-progress"]
    if run["lr"] is not None:
        args += ["--lr", repr(run["lr"])]
    if run["steps"]:
        args += ["--steps", str(run["steps"])]
    if run["width"]:
        args += ["--width", str(run["width"])]
    return args


def train_config(plan: Plan, run: dict):
    """The run's TrainConfig (imports torch), its text checksum filled in: its key is the store's."""
    from .train import TrainConfig, text_sha256

    cfg = TrainConfig.make(run["preset"], activation=run["activation"], seed=run["seed"], lr=run["lr"], steps=run["steps"],
                           n_embd=run["width"], fc_init_std=run["fc_init_std"])
    cfg.text_sha256 = text_sha256(cfg)
    return cfg


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
        for i, run in enumerate(runs):
            key = train_config(plan, run).key()
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


def run(plan: Plan, store_path: str, workers: int = 2, progress: bool = True) -> dict:
    """Carry out the plan (resuming where a previous call stopped); returns
    {"plan", "lr": {act: rate}, "runs": [run id, ...]}."""
    from tqdm import tqdm

    from ..results.store import Store
    from .runs import final_loss

    sweep = sweep_runs(plan)
    with tqdm(total=len(sweep), desc="learning-rate sweep", unit="run", disable=not progress) as bar:
        ids = _execute(plan, sweep, store_path, workers, bar)
    with Store(store_path) as store:
        final = {(r["activation"], r["lr"]): final_loss({"final": store.result(i, "final")}) for r, i in zip(sweep, ids)}
    lr = best_lrs(plan, final)
    later = later_runs(plan, lr)
    with tqdm(total=len(later), desc="seeds and scale", unit="run", disable=not progress) as bar:
        ids += _execute(plan, later, store_path, workers, bar)
    return {"plan": plan.to_dict(), "lr": lr, "runs": sorted(set(ids))}
