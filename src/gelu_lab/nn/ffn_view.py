"""What the Transformer FFN page shows, as data: the live block, runs grouped into
experiments, the statistics of a group, the init sweep, the time a run takes, the
training job and the unfinished runs of the reader's store.

Numbers and dicts of numbers: the page (``gelu_lab.app.pages.ffn``, its view) turns these into
figures, tables and text; no Dash, no display text and no torch here (a click that starts
training imports torch to check its options).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from .. import activations
from ..results import latest
from ..stats import runsets as S
from . import ffn as block
from . import runs as R
from . import train_job, variants
from .train_job import resume_command

UNIT_METRICS = ("dead", "near_dead", "const", "pre_std", "pre_mean", "pre_neg")
RUN_STEPS = (100, 300, 600, 1500)
RUN_PRESETS = ("quick", "tiny")
RUN_ACTS = ("gelu", "gelu_tanh", "relu", "sigmoid", "silu", "relu2", "geglu", "swiglu")  # the run control's FFN variants
RUN_FC = {"0.02": 0.02, "unit": "unit"}  # the init-scale choices of the run control


def pool(store=None) -> tuple[list[dict], dict]:
    """(runs, shipped provenance): the shipped result set plus the finished runs of the reader's
    store (each with its "source"), read through gelu_lab.results.latest."""
    r = latest("train", store=store)
    return (r.value, r.provenance) if r else ([], {})


def _histogram(values, lo: float, hi: float, bins: int = 80) -> tuple:
    density, edges = np.histogram(values, bins=bins, range=(lo, hi), density=True)
    return np.round(0.5 * (edges[1:] + edges[:-1]), 5), np.round(density, 5)


def live(act: str, sigma: float) -> dict:
    """The FFN block of variant `act` on Gaussian inputs of std `sigma`: histogram of its
    pre-activations ("centers", "density"), the (gate's) activation curve ("xs", "ys"),
    histogram of what enters W2 ("y_centers", "y_density": act(h), or act(xW) ⊙ xV for a gated
    variant, "gated") and "readouts": {"dead", "near_dead", "pre_neg" (shares), "linearity",
    "pre_std", "y_neg" (the negative share of what enters W2), "y_min", "y_max" (its range)}."""
    b = block.block(act, sigma)
    lim = max(3.0, 4.5 * sigma)
    xs = np.linspace(-lim, lim, 401)
    centers, density = _histogram(b["h"], -lim, lim)
    span = max(abs(b["y_min"]), abs(b["y_max"]), 1e-6)  # symmetric: a gated product spreads to both sides
    y_centers, y_density = _histogram(b["y"], -span, span)
    return {"centers": centers, "density": density, "xs": xs, "ys": activations.get(variants.gate_activation(act)).fn(xs),
            "y_centers": y_centers, "y_density": y_density, "gated": b["gated"],
            "readouts": {k: float(b[k]) for k in ("dead", "near_dead", "pre_neg", "linearity", "pre_std", "y_neg", "y_min", "y_max")}}


def param_counts(d: int) -> list[dict]:
    """Every FFN variant of the page at width d: its hidden width, its FFN's parameters and
    their ratio to the ungated 4d FFN's (gelu_lab.nn.variants)."""
    plain = variants.ungated_params(d)
    return [{"act": a, "hidden": variants.hidden_width(d, variants.is_gated(a)), "params": variants.ffn_params(a, d),
             "ratio": variants.ffn_params(a, d) / plain} for a in ("gelu", *variants.GATED)]


def _groups(runs: list[dict]) -> dict[str, list[dict]]:
    """Every group of comparable runs: the cells of the learning-rate experiments (each
    activation at its own rate; keys "cell:..."), then the groups of runs that share every
    setting but activation and seed."""
    cells = {c["key"]: c["runs"] for e in S.experiments(runs) for c in e["cells"]}
    return {**cells, **S.groups(runs)}


def group_options(runs: list[dict]) -> list[dict]:
    """The experiments of `runs`, the default first (the main cell of the learning-rate
    experiment, else the largest group at the small, nanoGPT, init): [{"key", "config", "n",
    "sources", "best_lr"}] ("best_lr": a cell whose activations train at their own rates; the
    page names a group in words from its "config")."""
    exp = [(k, m) for k, m in _groups(runs).items() if k.startswith("cell:")]
    rest = sorted(S.groups(runs).items(), key=lambda g: (-len(g[1]), R.fc_value(g[1][0]["config"])))
    # a cell's runs have each their activation's rate: its label names none
    return [{"key": key, "config": {**m[0]["config"], "lr": None} if key.startswith("cell:") else m[0]["config"], "n": len(m),
             "sources": sorted({r["source"] for r in m}), "best_lr": key.startswith("cell:")} for key, m in exp + rest]


def _val(bands, act, i=-1, scale=1.0) -> float | None:
    return bands[act]["mean"][i] * scale if act in bands else None


@functools.lru_cache(maxsize=64)
def _gauss_linearity(act, sigma):
    h = np.random.default_rng(0).normal(0.0, sigma, 20000)
    return block.linearity(h, np.asarray(activations.get(act).fn(h)))


def group(runs: list[dict], key: str, metric: str = "dead") -> dict | None:
    """One experiment: bands of val loss, of `metric` (layer mean) and of the W1 gradient per
    layer; the comparison rows (stats.runsets.compare_group); its runs; and the numbers its
    explanation quotes ("quoted": numbers, None where the group has no such activation; the
    page's view says them). None if `runs` has no such group."""
    gruns = _groups(runs).get(key) if key else None
    if not gruns:
        return None
    pre, mean, dead, grad = (R.bands(gruns, m) for m in ("pre_std", "pre_mean", "dead", "grad_fc"))
    s0, s1 = (pre["gelu"]["mean"][i] if "gelu" in pre else None for i in (0, -1))
    rows = S.compare_group(gruns)
    quoted = {"s0": s0 or None, "s1": s1 or None,
              **{k: float(_gauss_linearity("gelu", s)) if s else None for k, s in (("r0", s0), ("r1", s1))},
              "fc": gruns[0]["config"]["fc_init_std"], "steps": gruns[0]["config"]["steps"],
              "sig_mean": _val(mean, "sigmoid"), "sig_grad": _val(grad, "sigmoid"), "gelu_grad": _val(grad, "gelu"),
              "relu_dead": _val(dead, "relu", scale=100), "relu_dead0": _val(dead, "relu", i=0, scale=100)}
    return {"runs": gruns, "rows": rows, "best": rows[0]["activation"] if rows else None, "quoted": quoted,
            "loss": R.bands(gruns, "val_loss"), "metric": R.bands(gruns, metric),
            "grad": [R.bands(gruns, "grad_fc", i) for i in range(R.n_layers(gruns))]}


def day(stamp) -> str:
    """An ISO time stamp as the page shows it: its date ("2026-12-01T17:24:50+00:00" -> "2026-12-01")."""
    return str(stamp)[:10] if stamp else "?"


def provenance(gruns: list[dict], shipped: dict) -> list[dict]:
    """Where each source of a group's runs came from: [{"source", "date" (a day), "processor",
    "cpus", "versions", "commands"}] (the shipped set's provenance, else its first run's)."""
    out = []
    for src in sorted({r["source"] for r in gruns}):
        p = shipped if src == "shipped" and shipped else next(r for r in gruns if r["source"] == src)["provenance"]
        out.append({"source": src, "date": day(p.get("date")), "processor": str(p.get("processor", "?")), "cpus": str(p.get("cpus", "?")),
                    "versions": f"Python {p.get('python', '?')}, PyTorch {p.get('torch', '?')}, gelu-lab {p.get('gelu_lab', '?')}",
                    # an experiment's runs: the one command that made them all
                    "commands": [c for c in ([p.get("command", "")] if "experiment" in p else p.get("train_commands") or [p.get("command", "")]) if c]})
    return out


def trend(exp: dict, other: str = "relu") -> list[dict]:
    """GELU minus `other` in every cell of an experiment that has both: [{"fc", "width", "mean", "lo", "hi", "n"}]."""
    out = []
    for c in exp["cells"]:
        p = S.pair_of(c, other)
        if p and p["n"]:
            out.append({"fc": str(c["fc"]), "width": c["width"], "mean": p["mean"], "lo": p["lo"], "hi": p["hi"], "n": p["n"], "verdict": p["verdict"]})
    return out


def trend_word(points: list[dict]) -> str:
    """How GELU's gap to the other activation moves from the narrowest to the widest model, for
    one init scale: "flips" (opposite signs, both ends outside the noise), "grows" or
    "shrinks" (|mean|), "noise" (within the noise at every width), "one" (a single width)."""
    pts = sorted(points, key=lambda p: p["width"])
    if len(pts) < 2:
        return "one"
    if all(p["verdict"] != "larger" for p in pts):
        return "noise"
    a, b = pts[0], pts[-1]
    if a["mean"] * b["mean"] < 0 and a["verdict"] == b["verdict"] == "larger":
        return "flips"
    return "grows" if abs(b["mean"]) > abs(a["mean"]) else "shrinks"


def decision(runs: list[dict]) -> dict | None:
    """The experiment that decides, as the page states it: its main cell (the sweep's width and
    init), GELU against each other activation there, the learning-rate sweep and the scale
    trend of GELU minus ReLU. None when `runs` hold no learning-rate experiment."""
    exps = S.experiments(runs)
    if not exps:
        return None
    e = exps[0]
    main = S.main_cell(exps)
    points = trend(e)
    words = {fc: trend_word([p for p in points if p["fc"] == fc]) for fc in dict.fromkeys(p["fc"] for p in points)}
    return {"exp": e, "main": main, "relu": S.pair_of(main, "relu"), "pairs": main["paired"], "trend": points, "trend_words": words,
            "sweep": e["sweep"], "rates": sorted({r for v in e["sweep"].values() for r in v}), "lr": e["lr"], "c": main["runs"][0]["config"]}


def run_time(preset: str = "quick") -> dict:
    """What one shipped run of `preset` took (measured, not promised): median wall seconds,
    steps, and the machine ("cpu", "cpus", "threads": the page says them in words); None each
    without a shipped run."""
    runs, _ = pool(store=False)
    runs = [r for r in runs if r["config"].get("preset") == preset and (r.get("final") or {}).get("wall_s")]
    if not runs:
        return {"wall": None, "steps": None, "cpu": None, "cpus": None, "threads": None}
    walls = sorted(r["final"]["wall_s"] for r in runs)
    p = runs[0]["provenance"]
    return {"wall": walls[len(walls) // 2], "steps": runs[0]["config"]["steps"],
            "cpu": p.get("processor", "?"), "cpus": p.get("cpus", "?"), "threads": runs[0]["final"].get("threads", "?")}


def _run_choice(args: dict) -> tuple:
    """(activation, preset, steps, fc_init_std) of the run control's {"act", "fc", "preset",
    "steps"}; ValueError for anything the page does not offer."""
    act, fc, preset, steps = (args.get(k) for k in ("act", "fc", "preset", "steps"))
    if act not in RUN_ACTS or fc not in RUN_FC or preset not in RUN_PRESETS or steps not in RUN_STEPS:
        raise ValueError(f"not a run this page offers: {act}, {fc}, {preset}, {steps}")
    return act, preset, steps, RUN_FC[fc]


def start_run(store_path, args: dict) -> dict:
    """Start the run control's training job, the next free seed of that experiment."""
    return train_job.start_next_seed(store_path, *_run_choice(args))


def run_command(args: dict) -> str:
    """The command that trains the run control's choice on a reader's own machine."""
    return train_job.command(*_run_choice(args))


def unfinished(store_path) -> list[dict]:
    """The training runs of the store at `store_path` that have not finished, oldest first:
    {"id", "status" ("running" or "interrupted"), "activation", "preset", "seed", "step", "steps", "resume"}.
    ``resume``: the command that continues an interrupted run (``--store`` when the
    store is not the reader's default one); "" while its process still runs it."""
    from ..results.store import Store, default_path

    path = Path(store_path)
    if not path.exists():
        return []
    store_arg = None if path == default_path() else str(path)
    out = []
    with Store(path) as s:
        for r in s.runs("train"):
            if r["status"] not in ("running", "interrupted"):
                continue
            c = r["config"]
            step = max((m["step"] for m in s.metrics(r["id"], "val_loss")), default=0)
            out.append({"id": r["id"], "status": r["status"], "step": step, "steps": c.get("steps"),
                        "activation": c.get("activation"), "preset": c.get("preset"), "seed": c.get("seed"),
                        "resume": resume_command(r["id"], store_arg) if r["status"] == "interrupted" else ""})
    return out
