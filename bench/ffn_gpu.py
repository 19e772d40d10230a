"""The FFN comparison at nanoGPT's Shakespeare-character scale, on one GPU, in a fixed time budget.

    PYTHONPATH=src python3 bench/ffn_gpu.py --out DIR                       # on the device: ~10 minutes
    .venv/bin/python bench/ffn_gpu.py --tiny --out /tmp/x                   # here: the same path, tiny sizes, CPU

Every FFN variant of the shipped experiment (ungated and gated, gelu_lab.nn.variants), 3 seeds each,
at the rate the CPU experiment's sweep chose for it (its main cell; a variant it lacks takes GELU's),
preset "shakespeare" (6 layers, width 384, context 256, batch 64: nanoGPT's
config/train_shakespeare_char.py without dropout). Each run is one ``gelu-lab train`` process;
``--parallel`` of them share the device at a time (small models leave most of an H200 idle).

The pilot first: ``--parallel`` runs of ``--pilot-steps`` steps at once, timed; from their step time
under that sharing and their fixed cost (start, evaluation, the final pass over the validation set)
the script sizes the step count so that every run fits the budget, rounded down to a multiple of
the evaluation interval. The pilot's figures go into the result set.

Writes DIR/ffn_gpu.sqlite (the runs store) and DIR/ffn_gpu.json: the runs as a result set
(gelu-lab runs export's format) with provenance: device, versions, date, the pilot, the plan.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = 3


def _args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="folder for ffn_gpu.sqlite and ffn_gpu.json")
    p.add_argument("--budget-s", type=float, default=540.0, help="wall seconds for everything after the pilot (default 540)")
    p.add_argument("--parallel", type=int, default=8, help="training processes sharing the device at a time")
    p.add_argument("--pilot-steps", type=int, default=60)
    p.add_argument("--seeds", type=int, default=SEEDS)
    p.add_argument("--tiny", action="store_true", help="the tiny preset, two variants, one seed: the code path in seconds on a CPU")
    return p.parse_args(argv)


def rates(tiny: bool) -> dict:
    """{variant: learning rate} from the shipped experiment's sweep (stats.runsets.experiments);
    the variants it only lends a rate to, and the gated ones it lacks, take GELU's."""
    from gelu_lab import results
    from gelu_lab.nn import variants
    from gelu_lab.stats.runsets import experiments

    got = results.latest("train", store=False)
    exps = experiments(got.value) if got else []
    lr = dict(exps[0]["lr"]) if exps else {}
    want = ["gelu", "relu"] if tiny else list(dict.fromkeys([*lr, "relu2", *variants.GATED]))
    base = lr.get("gelu", 1e-3)
    return {v: lr.get(v, base) for v in want}


def _train(store, act, seed, lr, preset, steps, env) -> subprocess.Popen:
    args = [sys.executable, "-m", "gelu_lab", "train", "--activations", act, "--seed-start", str(seed), "--seeds", "1", "--preset", preset,
            "--steps", str(steps), "--lr", repr(lr), "--store", store, "--no-progress", "--threads", "1"]
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def run_all(jobs: list[tuple], store: str, preset: str, steps: int, parallel: int, env) -> float:
    """Train every (variant, seed, rate), `parallel` at a time; the wall seconds. RuntimeError on a failed run."""
    t0, todo, active = time.perf_counter(), list(jobs), []
    while todo or active:
        while todo and len(active) < parallel:
            act, seed, lr = todo.pop(0)
            active.append((_train(store, act, seed, lr, preset, steps, env), act, seed))
        time.sleep(0.2)
        for item in [a for a in active if a[0].poll() is not None]:
            active.remove(item)
            if item[0].returncode != 0:
                raise RuntimeError(f"{item[1]} seed {item[2]} failed: {item[0].stderr.read().strip().splitlines()[-1:]}")
    return time.perf_counter() - t0


def size_steps(pilot: dict, n_runs: int, parallel: int, budget_s: float, eval_interval: int, cap: int) -> int:
    """The step count that fits every run in the budget: waves of `parallel` runs, each costing the
    pilot's fixed seconds plus steps x its seconds per step (both measured under the same sharing)."""
    waves = math.ceil(n_runs / parallel)
    per_wave = budget_s / waves - pilot["fixed_s"]
    steps = int(per_wave / pilot["step_s"]) // eval_interval * eval_interval
    return max(eval_interval, min(cap, steps))


def main(argv=None) -> dict:
    a = _args(argv)
    os.makedirs(a.out, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "src"), os.environ.get("PYTHONPATH", "")]), "OMP_NUM_THREADS": "1"}
    import torch

    from gelu_lab.commands import run_words as W
    from gelu_lab.nn import runs as R
    from gelu_lab.nn.presets import PRESETS
    from gelu_lab.results.store import Store, provenance, train_runs

    preset = "tiny" if a.tiny else "shakespeare"
    lr = rates(a.tiny)
    seeds = 1 if a.tiny else a.seeds
    jobs = [(v, s, r) for s in range(seeds) for v, r in lr.items()]
    # the pilot: `parallel` short runs at once (seeds past the real ones: a scratch store, not shipped)
    pilot_store = os.path.join(a.out, "pilot.sqlite")
    pilot_jobs = [(v, 100 + i, r) for i, (v, s, r) in enumerate(jobs[: a.parallel])]
    wall = run_all(pilot_jobs, pilot_store, preset, a.pilot_steps, a.parallel, env)
    with Store(pilot_store) as s:
        finals = [r["final"] for r in train_runs(s, with_metrics=False)]
    step_s = max(f["loop_s"] for f in finals) / a.pilot_steps
    pilot = {"runs": len(finals), "steps": a.pilot_steps, "wall_s": round(wall, 2), "step_s": step_s,
             "fixed_s": max(0.0, wall - step_s * a.pilot_steps)}  # start, evaluations, the final validation pass
    steps = size_steps(pilot, len(jobs), a.parallel, a.budget_s, PRESETS[preset]["eval_interval"], PRESETS[preset]["steps"])
    print(f"pilot: {len(finals)} runs of {a.pilot_steps} steps in {wall:.1f} s, {step_s * 1e3:.1f} ms/step shared; {len(jobs)} runs of {steps} steps")
    store = os.path.join(a.out, "ffn_gpu.sqlite")
    spent = run_all(jobs, store, preset, steps, a.parallel, env)
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    with Store(store) as s:
        runs = train_runs(s)
    prov = {**provenance(f"python bench/ffn_gpu.py --budget-s {a.budget_s:g} --parallel {a.parallel}" + (" --tiny" if a.tiny else "")),
            "device": device, "cuda": torch.version.cuda, "pilot": pilot,
            "plan": {"preset": preset, "steps": steps, "seeds": seeds, "parallel": a.parallel, "budget_s": a.budget_s, "lr": lr}, "wall_s": round(spent, 1)}
    doc = R.export_doc(runs, prov)
    with open(os.path.join(a.out, "ffn_gpu.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    for g in W.compare(runs):
        print(f"{g['label']}: {g['verdict']}")
        for p in g["paired"]:
            print("  " + W.paired_line(p))
    return doc


if __name__ == "__main__":
    main()
