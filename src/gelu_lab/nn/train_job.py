"""A training run as a background job, for the app: start it, ask how far it got.

The FFN face of :mod:`gelu_lab.results.jobs` (job kind "ffn"): ``gelu-lab train ...``
for one activation and seed, run as a separate process; its step and run id
come from the run's metrics in the runs store. So a page reload, a second
browser tab or a restarted server all see the same progress. One job at a
time. Importing this module does not import torch.
"""

from __future__ import annotations

from pathlib import Path

from ..results import jobs

KIND = "ffn"


def job_file(store_path) -> Path:
    return jobs.job_file(store_path, KIND)


def next_seed(runs: list[dict], config: dict) -> int:
    """One more than the highest seed among runs of the same experiment and activation."""
    from .runs import group_key

    key = group_key(config)
    seeds = [r["config"]["seed"] for r in runs if group_key(r["config"]) == key and r["config"]["activation"] == config["activation"]]
    return max(seeds, default=-1) + 1


def start(store_path, activation: str, seed: int, steps: int, fc_init_std, preset: str = "quick", eval_interval: int = 50) -> dict:
    """Start a training run in the background; ValueError if one is still running."""
    from ..activations import canonical
    from .presets import PRESETS

    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    activation = canonical(activation)
    args = ["train", "--activations", activation, "--seeds", "1", "--preset", preset, "--steps", str(int(steps)),
            "--fc-init-std", str(fc_init_std), "--eval-interval", str(int(eval_interval)), "--store", str(store_path),
            "--no-progress", "--seed-start", str(int(seed))]
    try:
        return jobs.start(store_path, KIND, args, {"activation": activation, "seed": int(seed), "steps": int(steps),
                                                    "fc_init_std": fc_init_std, "preset": preset})
    except ValueError as e:
        if "already running" in str(e):
            raise ValueError("a training job is already running") from None
        raise


def status(store_path) -> dict | None:
    """The last job: its fields plus state (running/done/failed), step and run id; None if never started."""
    job = jobs.status(store_path, KIND)
    if job is None or "activation" not in job:
        return None
    job["step"], job["run_id"], run_status = 0, None, None
    if Path(store_path).exists():
        from ..results.store import Store

        with Store(store_path) as s:
            for r in reversed(s.runs("train")):
                c = r["config"]
                if c.get("activation") == job["activation"] and c.get("seed") == job["seed"] and c.get("steps") == job["steps"]:
                    job["run_id"], run_status = r["id"], r["status"]
                    steps = [m["step"] for m in s.metrics(r["id"], "val_loss")]
                    job["step"] = max(steps, default=0)
                    break
    if job["state"] == "done" and run_status != "done":  # exited 0 without finishing its run
        job["state"], job["error"] = "failed", "the run did not finish"
    return job
