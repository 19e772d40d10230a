"""Stored training runs: read, export, compare.

A run, as every function here takes and returns it, is a plain dict

    {"id", "key", "status", "config", "provenance", "final": {...} | None,
     "metrics": {name: [[step, value], ...]}}

the same whether it comes from the runs store or from the result set shipped
with the package (both read through ``gelu_lab.results.latest("train")``), so
the CLI, the app and the tests share one code path.

``compare`` answers "which activation wins": per group of runs that differ
only in activation and seed, the final val loss of each activation as
mean +- sample std over seeds, the ranking, and for each activation whether
its gap to the best one is larger than the seed-to-seed noise: runs with the
same seed share init and batches, so the per-seed differences to the best get
a paired 95 % t interval, and "separated" means it excludes 0 (the same test as
every GELU-against-X verdict). With fewer than two shared seeds the noise is
unknown and nothing is "separated". ``behind`` counts the seeds in which an
activation ends behind the best one ("2/2": in every seed).
"""

from __future__ import annotations

import math

# the comparison itself sits below nn (the claims use it too); the callers of nn.runs find it here
from ..results.runsets import compare_group, experiments, final_loss, group_key, group_label, groups, main_cell, pair_of, paired, pairs, verdict_parts  # noqa: F401


def export_doc(runs: list[dict], provenance: dict | None = None, digits: int = 6) -> dict:
    """A JSON-ready document of runs (numbers rounded to `digits` significant digits), with no
    machine path in it (it may be shipped: gelu_lab.results.store.portable)."""
    from ..results.store import portable

    def r(v):
        return float(f"{v:.{digits}g}") if isinstance(v, float) and math.isfinite(v) else v

    slim = []
    for run in runs:
        d = dict(run)
        d["metrics"] = {k: [[s, r(v)] for s, v in pts] for k, pts in run["metrics"].items()}
        d["final"] = {k: r(v) for k, v in (run["final"] or {}).items()}
        slim.append(d)
    return portable({"provenance": provenance or {}, "runs": slim})


def series(run: dict, name: str) -> tuple[list[int], list[float]]:
    pts = [p for p in run["metrics"].get(name, []) if p[1] is not None]
    return [p[0] for p in pts], [p[1] for p in pts]


def compare(runs: list[dict]) -> list[dict]:
    """Every comparison in `runs`: first the cells of the learning-rate experiments (each
    activation at its own rate, "lr": {act: rate}), then compare_group for every group
    of runs sharing all settings but activation and seed.
    [{"group", "label", "config", "rows", "verdict", "paired"}], "paired" being GELU against
    each other activation (:func:`pairs`)."""
    out = []
    for e in experiments(runs):
        for c in e["cells"]:
            out.append({"group": c["key"], "label": c["label"], "config": c["runs"][0]["config"], "rows": c["rows"],
                        "verdict": verdict(c["rows"]), "paired": c["paired"], "lr": e["lr"]})
    for key, members in groups(runs).items():
        rows = compare_group(members)
        if rows:
            out.append({"group": key, "label": group_label(members[0]["config"]), "config": members[0]["config"],
                        "rows": rows, "verdict": verdict(rows), "paired": pairs(rows)})
    return out


VERDICT_WORDS = {"larger": "larger than the seed-to-seed noise", "within": "within the seed-to-seed noise"}


def paired_line(p: dict) -> str:
    """One line of a paired comparison, as the CLI prints it."""
    if p["verdict"] == "unknown":
        return f"{p['a']} - {p['b']}: {p['mean']:+.4f} nats/char over {p['n']} seed(s): noise unknown"
    return (f"{p['a']} - {p['b']}: {p['mean']:+.4f} nats/char, 95% interval [{p['lo']:+.4f}, {p['hi']:+.4f}] "
            f"over {p['n']} seeds: {VERDICT_WORDS[p['verdict']]}")


def verdict(rows: list[dict]) -> str:
    """One sentence, the CLI's (the page words results.runsets.verdict_parts in its language):
    who wins and whether the gaps exceed the seed-to-seed noise."""
    v = verdict_parts(rows)
    if v is None:
        return ""
    best = v["best"]
    if v["kind"] == "only":
        return f"only {best} was run"
    if v["kind"] == "one_seed":
        return f"{best} is lowest, but with one seed the seed-to-seed noise is unknown"
    if v["kind"] == "wins":
        return f"{best} wins; every gap is larger than the seed-to-seed noise"
    tail = "; paired by seed, it is ahead of them in every seed" if v["ahead"] else ""
    return f"{best} is lowest, but within the seed-to-seed noise of {', '.join(v['close'])}: not a clear win over them" + tail


# --- series for the figures ------------------------------------------------------


def _layer_series(run: dict, metric: str, layer) -> tuple[list[int], list[float]]:
    """A metric's series; per-layer metrics ("dead", "grad_fc", ...) by layer index or averaged ("mean")."""
    if metric in run["metrics"]:
        return series(run, metric)
    if layer != "mean":
        return series(run, f"L{layer}.{metric}")
    layers = sorted(k for k in run["metrics"] if k.startswith("L") and k.endswith("." + metric))
    per = [dict(zip(*series(run, k))) for k in layers]
    steps = sorted(set.intersection(*(set(p) for p in per))) if per else []
    return steps, [sum(p[s] for p in per) / len(per) for s in steps]


def bands(runs: list[dict], metric: str, layer="mean") -> dict:
    """{activation: {"step", "mean", "lo", "hi", "n"}}: mean and min..max over seeds at each step."""
    by_act: dict[str, list[dict]] = {}
    for run in runs:
        steps, vals = _layer_series(run, metric, layer)
        by_act.setdefault(run["config"]["activation"], []).append(dict(zip(steps, vals)))
    out = {}
    for act, seeds in by_act.items():
        steps = sorted(set().union(*seeds))
        cols = [[s_[st] for s_ in seeds if st in s_] for st in steps]
        out[act] = {"step": steps, "mean": [sum(c) / len(c) for c in cols], "lo": [min(c) for c in cols],
                    "hi": [max(c) for c in cols], "n": len(seeds)}
    return out


def n_layers(runs: list[dict]) -> int:
    return max((int(r["config"].get("n_layer", 1)) for r in runs), default=0)


def fc_value(config: dict) -> float:
    """The FFN input-weight init std as a number ("unit" = 1/sqrt(d))."""
    fc = config.get("fc_init_std", 0.02)
    return 1.0 / math.sqrt(config["n_embd"]) if fc == "unit" else float(fc)
