"""A training run as a background job, for the app: start it, ask how far it got.

The FFN face of :mod:`gelu_lab.results.jobs` (job kind "ffn"): ``gelu-lab train ...``
for one activation and seed, run as a separate process; its step and run id come
from the run's metrics in the runs store, so a page reload, a second browser tab or
a restarted server all see the same progress. One job at a time (the FFN and the
Misconceptions pages share it). Importing this module does not import torch.
"""

from __future__ import annotations

from pathlib import Path

from ..results import jobs

KIND = "ffn"


def resume_command(run_id: int, store: str | None = None) -> str:
    """The command that continues an interrupted training run (``--store`` when not the default)."""
    return f"gelu-lab train --resume {int(run_id)}" + (f" --store {store}" if store else "")


def next_seed(runs: list[dict], config: dict) -> int:
    """One more than the highest seed among runs of the same experiment and activation."""
    from ..stats.runsets import group_key

    key = group_key(config)
    seeds = [r["config"]["seed"] for r in runs if group_key(r["config"]) == key and r["config"]["activation"] == config["activation"]]
    return max(seeds, default=-1) + 1


def train_args(activation: str, preset: str, steps: int, fc_init_std) -> list[str]:
    """The `gelu-lab train` arguments of one run of this experiment (the job adds its seed and store)."""
    return ["train", "--activations", activation, "--preset", preset, "--steps", str(int(steps)), "--fc-init-std", str(fc_init_std)]


def command(activation: str, preset: str, steps: int, fc_init_std) -> str:
    """The command a reader runs to train this run on their own machine (a page shows it)."""
    return "gelu-lab " + " ".join(train_args(activation, preset, steps, fc_init_std))


def start(store_path, activation: str, seed: int, steps: int, fc_init_std, preset: str = "quick", eval_interval: int = 50) -> dict:
    """Start a training run in the background; jobs.AlreadyRunning while one runs, ValueError for a bad preset."""
    from .presets import PRESETS
    from .variants import canonical

    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    activation = canonical(activation)
    args = [*train_args(activation, preset, steps, fc_init_std), "--seeds", "1", "--eval-interval", str(int(eval_interval)),
            "--store", str(store_path), "--no-progress", "--seed-start", str(int(seed))]
    what = f"{activation} · {preset} · seed {int(seed)} · fc_init_std {fc_init_std} · {int(steps)} steps"
    return jobs.start(store_path, KIND, args, {"activation": activation, "seed": int(seed), "steps": int(steps),
                                               "fc_init_std": fc_init_std, "preset": preset, "what": what})


def start_next_seed(store_path, activation: str, preset: str, steps: int, fc_init_std) -> dict:
    """Start, as a background job, the next free seed of this experiment for `activation`
    (among the shipped runs and the store's), so the run adds a seed to its bands."""
    from ..results import latest
    from .corpus import corpus_info
    from .train import TrainConfig  # torch: only when training starts anyway

    full = TrainConfig.make(preset, steps=steps, fc_init_std=fc_init_std, activation=activation).to_dict()
    try:
        full["text_sha256"] = corpus_info()["sha256"]
    except OSError:
        full["text_sha256"] = ""
    known = latest("train", store=store_path)
    seed = next_seed(known.value if known else [], full)
    return start(store_path, activation, seed, steps, fc_init_std, preset=preset, eval_interval=max(10, steps // 12))


def _run_of(store, job: dict) -> dict | None:
    """The training run the job writes: the one its process owns, else the newest of its configuration."""
    runs = store.runs("train")
    same = [r for r in runs if all(r["config"].get(k) == job[k] for k in ("activation", "seed", "steps"))]
    mine = [r for r in same if (r.get("owner") or {}).get("pid") == job["pid"]]
    return (mine or same or [None])[-1]


def status(store_path) -> dict | None:
    """The last job (None if never started): jobs.status plus step, run_id and progress
    {"n": step, "total": steps}. A job whose run was resumed later (``gelu-lab train
    --resume``) reports that run's state; an interrupted one says how to resume it."""
    job = jobs.status(store_path, KIND)
    if job is None or "activation" not in job:
        return None
    job["step"], job["run_id"], run_status = 0, None, None
    if Path(store_path).exists():
        from ..results.store import Store

        with Store(store_path) as s:
            run = _run_of(s, job)
            if run is not None:
                job["run_id"], run_status = run["id"], run["status"]
                job["step"] = max((m["step"] for m in s.metrics(run["id"], "val_loss")), default=0)
    job["progress"] = {"n": job["step"], "total": job["steps"], "desc": job.get("what", "")}
    if job["state"] == "done" and run_status != "done":  # exited 0 without finishing its run
        job["state"], job["error"] = "failed", "the run did not finish"
    elif job["state"] == "interrupted" and run_status in ("running", "done"):  # resumed since, by another process
        job["state"] = run_status
        del job["resume"]
    if job["state"] == "interrupted" and job["run_id"] is not None:
        job["resume"] = resume_command(job["run_id"])
    return job
