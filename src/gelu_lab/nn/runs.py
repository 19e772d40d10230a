"""Stored training runs: export, series and bands for the figures.

A run, as every function here takes and returns it, is a plain dict

    {"id", "key", "status", "config", "provenance", "final": {...} | None,
     "metrics": {name: [[step, value], ...]}}

the same whether it comes from the runs store or from the result set shipped
with the package (both read through ``gelu_lab.results.latest("train")``), so
the CLI, the app and the tests share one code path.

Their comparison ("which activation wins") is :func:`gelu_lab.stats.runsets.comparisons`
(numbers), said by the CLI (:mod:`gelu_lab.commands.run_words`) and by the FFN page.
"""

from __future__ import annotations

import math



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
