"""A training run as a background job, for the app: start it, ask how far it got.

The job is a separate process (``python -m gelu_lab train ...``, its own
session), never work in a web request. Its state lives where any process can
read it: the job file ``<store dir>/jobs/ffn-job.json`` (pid, command, start
time, activation, seed) and the run's metrics in the runs store. So a page
reload, a second browser tab or a restarted server all see the same progress.
One job at a time. Importing this module does not import torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

_CHILDREN: dict[int, subprocess.Popen] = {}  # reaped here, so a finished child is not a zombie


def job_file(store_path) -> Path:
    return Path(store_path).parent / "jobs" / "ffn-job.json"


def _alive(pid: int) -> bool:
    p = _CHILDREN.get(pid)
    if p is not None:
        return p.poll() is None
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie of another parent still answers kill(0)
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"
    except OSError:
        return True


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

    st = status(store_path)
    if st and st["state"] == "running":
        raise ValueError("a training job is already running")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    activation = canonical(activation)
    cmd = [sys.executable, "-m", "gelu_lab", "train", "--activations", activation, "--seeds", "1", "--preset", preset,
           "--steps", str(int(steps)), "--fc-init-std", str(fc_init_std), "--eval-interval", str(int(eval_interval)),
           "--store", str(store_path), "--no-progress", "--seed-start", str(int(seed))]
    jf = job_file(store_path)
    jf.parent.mkdir(parents=True, exist_ok=True)
    log = open(jf.with_suffix(".log"), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    log.close()
    _CHILDREN[proc.pid] = proc
    job = {"pid": proc.pid, "started": time.time(), "activation": activation, "seed": int(seed), "steps": int(steps),
           "fc_init_std": fc_init_std, "preset": preset, "command": " ".join(cmd[2:])}
    tmp = jf.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(job))
    os.replace(tmp, jf)
    return job


def status(store_path) -> dict | None:
    """The last job: its fields plus state (running/done/failed), step and run id; None if never started."""
    jf = job_file(store_path)
    try:
        job = json.loads(jf.read_text())
    except (OSError, ValueError):
        return None
    job["step"], job["run_id"], run_status = 0, None, None
    if Path(store_path).exists():
        from ..store import Store

        with Store(store_path) as s:
            for r in reversed(s.runs("train")):
                c = r["config"]
                if c.get("activation") == job["activation"] and c.get("seed") == job["seed"] and c.get("steps") == job["steps"]:
                    job["run_id"], run_status = r["id"], r["status"]
                    steps = [m["step"] for m in s.metrics(r["id"], "val_loss")]
                    job["step"] = max(steps, default=0)
                    break
    if _alive(job["pid"]):
        job["state"] = "running"
    else:
        job["state"] = "done" if run_status == "done" else "failed"
        if job["state"] == "failed":
            try:
                lines = jf.with_suffix(".log").read_text().strip().splitlines()
                job["error"] = lines[-1][:200] if lines else ""
            except OSError:
                job["error"] = ""
    return job
