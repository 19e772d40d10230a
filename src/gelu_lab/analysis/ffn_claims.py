"""Claims about FFN variants, checked against the FFN experiment (registered in gelu_lab.analysis.claims).

    train_runs(store)            (source, runs, learning-rate experiments): the reader's store, else the shipped set
    relu2_better(store, measure) modded-nanogpt's "ReLU² ... ~1-2 % better than GELU", in the experiment's main cell

modded-nanogpt (K. Jordan et al., train_gpt.py) computes its FFN as ``F.relu(x).square()`` with the
comment "https://arxiv.org/abs/2109.08668v2; ~1-2% better than GELU" (the Primer paper, So et al.
2021). Read here as: the final validation loss is 1 to 2 % lower with ReLU² than with GELU. Our
check is the relative difference (GELU − ReLU²) / GELU per seed, paired (same batches, same
initial weights), with its 95 % interval, each variant at the rate its sweep chose.
"""

from __future__ import annotations

from .evidence import Share, ev

EXPERIMENT_HOW = "gelu-lab experiment --workers 2"
CLAIMED = (0.01, 0.02)  # "~1-2 % better": the band of relative loss reductions the claim names


def train_runs(store) -> tuple[str | None, list[dict], list[dict]]:
    """(source, its runs, its learning-rate experiments): the reader's store when it holds
    training runs, else the shipped set."""
    from .. import results
    from ..stats.runsets import experiments

    got = results.latest("train", store=store)
    runs = [] if got is None else got.value
    for src in ("store", "shipped"):
        mine = [r for r in runs if r["source"] == src]
        if mine:
            return src, mine, experiments(mine)
    return None, [], []


def relative_gain(cell: dict, other: str, ref: str = "gelu") -> dict | None:
    """(ref − other) / ref per shared seed in an experiment cell, paired: mean, 95 % interval, verdict
    (stats.runsets.paired); above 0: `other` has the lower loss. None without both."""
    from ..stats.runsets import paired

    per = {r["activation"]: r["per_seed"] for r in cell["rows"]} if cell else {}
    if ref not in per or other not in per:
        return None
    shared = set(per[ref]) & set(per[other])
    return paired({s: (per[ref][s] - per[other][s]) / per[ref][s] for s in shared}, {s: 0.0 for s in shared})


def relu2_better(store, measure):
    """True when ReLU² is ahead of GELU beyond the seed-to-seed noise by an amount the 1-2 % band
    meets; false when GELU is ahead beyond the noise, or ReLU² ahead by a margin the band does
    not meet; unsettled when the interval includes 0."""
    from ..stats.runsets import main_cell

    source, runs, exps = train_runs(store)
    cell = main_cell(exps)
    g = relative_gain(cell, "relu2")
    if g is None or g["n"] < 2:
        return ev("untested", {}, "note.relu2_better.none", how=EXPERIMENT_HOW)
    lo, hi = CLAIMED
    if g["verdict"] != "larger":
        verdict = "unsettled"
    elif g["lo"] > 0:
        verdict = "true" if g["lo"] <= hi and g["hi"] >= lo else "false"
    else:
        verdict = "false"
    c = cell["runs"][0]["config"]
    f = {"relative": {k: g[k] for k in ("mean", "lo", "hi", "n", "diffs")}, "claimed": list(CLAIMED), "width": c["n_embd"], "steps": c["steps"]}
    which = verdict if verdict != "false" else ("false.gelu" if g["hi"] < 0 else "false.size")
    prov = next(r["provenance"] for r in cell["runs"] if r["config"]["activation"] == "relu2")
    return ev(verdict, f, f"note.relu2_better.{which}",
              {"n": str(g["n"]), "width": str(c["n_embd"]), "steps": str(c["steps"]), "mean": Share(g["mean"], 2), "lo": Share(g["lo"], 2),
               "hi": Share(g["hi"], 2), "band_lo": Share(lo, 0), "band_hi": Share(hi, 0), "params": c.get("params")}, EXPERIMENT_HOW, source, prov)
