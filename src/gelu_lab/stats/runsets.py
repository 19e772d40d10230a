"""Stored training runs as sets: groups of comparable runs, their comparison, the paired
interval, and the learning-rate experiments of :mod:`gelu_lab.nn.experiment`.

Plain dicts in, plain dicts out (a run as :mod:`gelu_lab.nn.runs` describes it), no torch:
the FFN page, ``gelu-lab runs compare`` and the claims (gelu_lab.analysis.claims) share it.
"""

from __future__ import annotations

import json
import math

# configuration fields that do not define the experiment a run belongs to
_NOT_GROUP = {"activation", "seed", "world", "params", "text", "ckpt_every", "eval_interval", "eval_iters"}


def final_loss(run: dict) -> float | None:
    f = run.get("final") or {}
    return f.get("val_loss_full", f.get("val_loss"))


def group_key(config: dict) -> str:
    """What runs must share to be compared: everything but activation and seed."""
    return json.dumps({k: v for k, v in sorted(config.items()) if k not in _NOT_GROUP}, sort_keys=True)


def group_label(config: dict) -> str:
    lr = config.get("lr")
    return (
        f"{config.get('preset')} L{config.get('n_layer')} d{config.get('n_embd')} "
        f"steps {config.get('steps')}" + (f" lr {lr:g}" if isinstance(lr, (int, float)) else "") + f" fc_init_std {config.get('fc_init_std')}"
    )


def groups(runs: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for run in runs:
        out.setdefault(group_key(run["config"]), []).append(run)
    return out


def _mean_std(v: list[float]) -> tuple[float, float]:
    m = sum(v) / len(v)
    s = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else float("nan")
    return m, s


def paired(a: dict, b: dict, level: float = 0.95) -> dict:
    """Seed-by-seed differences a[seed] - b[seed] over the seeds both have: their mean, the
    paired-t interval at `level` (mean +- t_{n-1} s/sqrt(n)) and the verdict "larger" (the
    interval excludes 0: the gap is larger than the seed-to-seed noise), "within" (it does
    not) or "unknown" (fewer than 2 shared seeds)."""
    from scipy import stats

    shared = sorted(set(a) & set(b))
    d = [a[k] - b[k] for k in shared]
    out = {"n": len(d), "diffs": d, "seeds": shared, "mean": sum(d) / len(d) if d else float("nan"),
           "lo": float("nan"), "hi": float("nan"), "half": float("nan"), "verdict": "unknown", "level": level}
    if len(d) >= 2:
        m, s = _mean_std(d)
        half = float(stats.t.ppf((1 + level) / 2, len(d) - 1)) * s / math.sqrt(len(d))
        out.update(lo=m - half, hi=m + half, half=half, verdict="larger" if m - half > 0 or m + half < 0 else "within")
    return out


def compare_group(runs: list[dict], metric=final_loss) -> list[dict]:
    """Rows per activation, best first: n, mean, std, rank, gap to best, per_seed {seed: value},
    and whether it is separated from the best: the paired 95 % interval of its per-seed
    difference to the best (:func:`paired`, the one test every verdict on the page uses)
    excludes 0. With fewer than two shared seeds nothing is separated."""
    by_act: dict[str, dict[int, float]] = {}
    for run in runs:
        v = metric(run)
        if v is not None:
            by_act.setdefault(run["config"]["activation"], {})[run["config"]["seed"]] = float(v)
    rows = []
    for act, per_seed in by_act.items():
        vals = [per_seed[k] for k in sorted(per_seed)]
        m, s = _mean_std(vals)
        rows.append({"activation": act, "n": len(vals), "mean": m, "std": s, "seeds": vals, "per_seed": per_seed})
    rows.sort(key=lambda r: r["mean"])
    if not rows:
        return rows
    best = rows[0]
    for i, r in enumerate(rows, 1):
        r["rank"] = i
        r["gap"] = r["mean"] - best["mean"]
        r["spread"] = r["std"] + best["std"]  # the 1-sigma bands, shown by the CLI
        # paired by seed (same init and batches): the interval of the difference to the best, and
        # in how many shared seeds it is behind
        r["paired"] = paired(r["per_seed"], best["per_seed"]) if i > 1 else None
        r["separated"] = bool(i > 1 and r["paired"]["verdict"] == "larger")
        shared = sorted(set(r["per_seed"]) & set(best["per_seed"]))
        r["behind"] = f"{sum(r['per_seed'][k] > best['per_seed'][k] for k in shared)}/{len(shared)}" if i > 1 else ""
    return rows


def verdict_parts(rows: list[dict]) -> dict | None:
    """What the one-sentence verdict on a compare_group says, as data (the CLI and the page word
    it): {"kind": "only" | "one_seed" | "wins" | "close", "best": activation, "close": [the
    activations within the seed-to-seed noise of the best], "ahead": the best is ahead of each of them
    in every shared seed, paired}; None without rows."""
    if not rows:
        return None
    best = rows[0]["activation"]
    if len(rows) == 1:
        return {"kind": "only", "best": best, "close": [], "ahead": False}
    if rows[0]["n"] < 2:
        return {"kind": "one_seed", "best": best, "close": [], "ahead": False}
    close = [r for r in rows[1:] if not r["separated"]]
    ahead = bool(close) and all(r["behind"] and r["behind"].split("/")[0] == r["behind"].split("/")[1] != "1" for r in close)
    return {"kind": "close" if close else "wins", "best": best, "close": [r["activation"] for r in close], "ahead": ahead}


def main_cell(exps: list[dict]) -> dict | None:
    """The main cell of the first experiment of :func:`experiments` (its sweep's width and init); None without one."""
    return next((c for c in exps[0]["cells"] if c["main"]), None) if exps else None


def pair_of(cell: dict | None, other: str) -> dict | None:
    """GELU against `other` in an experiment cell (an entry of its "paired"); None without it."""
    return next((p for p in cell["paired"] if p["b"] == other), None) if cell else None


def pairs(rows: list[dict], ref: str = "gelu") -> list[dict]:
    """`ref` against every other activation of a compare_group, seed by seed:
    [{"a": ref, "b": act, **paired(ref's losses, act's)}]; [] without `ref`."""
    per = {r["activation"]: r["per_seed"] for r in rows}
    if ref not in per:
        return []
    return [{"a": ref, "b": act, **paired(per[ref], per[act])} for act in per if act != ref]


# --- the experiment that decides (gelu_lab.nn.experiment) --------------------------


def _loss_key(losses: dict):
    """Sort key of a rate by its loss: a diverged run (nan, inf, None) is worse than any finite one."""
    return lambda lr: losses[lr] if isinstance(losses[lr], (int, float)) and math.isfinite(losses[lr]) else math.inf


def bracket(losses: dict) -> dict:
    """A learning-rate sweep {rate: final val loss} judged: "chosen", the rate with the lowest
    loss (a diverged run counts as the worst); "below" and "above", its neighbours on the
    grid (None at an edge); "bracketed": it has a neighbour on both sides and both are
    worse, so the optimum of this grid lies between them and no rate beyond could win
    without the loss curve turning twice."""
    rates = sorted(losses)
    key = _loss_key(losses)
    chosen = min(rates, key=key)
    i = rates.index(chosen)
    below = rates[i - 1] if i > 0 else None
    above = rates[i + 1] if i + 1 < len(rates) else None
    worse = all(n is not None and key(n) > key(chosen) for n in (below, above))
    return {"chosen": chosen, "below": below, "above": above, "bracketed": worse}

_NOT_CELL = _NOT_GROUP | {"lr"}  # a cell: one width and init, each activation at its own rate
_NOT_FAMILY = _NOT_CELL | {"n_embd", "fc_init_std"}  # a family: the cells of one experiment


def _key(config: dict, drop: set) -> str:
    return json.dumps({k: v for k, v in sorted(config.items()) if k not in drop}, sort_keys=True)


def experiments(runs: list[dict], ref: str = "gelu") -> list[dict]:
    """The learning-rate experiments among `runs`, largest first: families of cells that
    differ in width and init scale, in one of which (the sweep cell) seed 0 of some
    activations was trained at several rates.

    Each activation's rate is the swept one with the lowest final val loss (:func:`bracket`;
    an activation not swept: the rate most of its runs in the family use); a cell compares
    the activations at their rates seed by seed (:func:`pairs`: `ref` minus each other).

    [{"label", "lr": {act: rate}, "sweep": {act: {rate: final val loss}}, "bracket": {act: bracket(its sweep)}, "steps", "runs" (all of them),
      "cells": [{"key", "width", "fc", "label", "runs" (at the chosen rates), "rows", "paired", "main"}]}]
    """
    out = []
    fams: dict[str, list[dict]] = {}
    for run in runs:
        c = run["config"]
        if isinstance(c.get("lr"), (int, float)) and "activation" in c and "seed" in c:  # a run that can take part
            fams.setdefault(_key(c, _NOT_FAMILY), []).append(run)
    for members in fams.values():
        cells: dict[str, list[dict]] = {}
        for run in members:
            cells.setdefault(_key(run["config"], _NOT_CELL), []).append(run)
        sweeps = {}
        for key, cr in cells.items():
            per: dict[str, dict] = {}
            for run in cr:
                if run["config"]["seed"] == 0 and final_loss(run) is not None:
                    per.setdefault(run["config"]["activation"], {})[float(run["config"]["lr"])] = float(final_loss(run))
            per = {a: v for a, v in per.items() if len(v) > 1}
            if per:
                sweeps[key] = per
        if not sweeps:
            continue
        main = max(sweeps, key=lambda k: (len(sweeps[k]), len(cells[k])))
        brackets = {a: bracket(v) for a, v in sweeps[main].items()}
        lr = {a: b["chosen"] for a, b in brackets.items()}
        for run in members:  # the activations not swept: their most used rate
            a = run["config"]["activation"]
            if a not in lr:
                rates = [float(r["config"]["lr"]) for r in members if r["config"]["activation"] == a]
                lr[a] = max(set(rates), key=rates.count)
        fam_cells = []
        for key, cr in cells.items():
            chosen = [r for r in cr if float(r["config"]["lr"]) == lr[r["config"]["activation"]]]
            rows = compare_group(chosen)
            if not rows:
                continue
            c = chosen[0]["config"]
            fam_cells.append({"key": "cell:" + key, "width": int(c["n_embd"]), "fc": c.get("fc_init_std"), "runs": chosen, "rows": rows,
                              "paired": pairs(rows, ref), "main": key == main,
                              "label": group_label({**c, "lr": None}) + " lr: each activation's best"})
        main_fc = cells[main][0]["config"].get("fc_init_std")
        fam_cells.sort(key=lambda c: (not c["main"], c["fc"] != main_fc, -c["width"]))  # the main cell, then its init, widest first
        c0 = members[0]["config"]
        out.append({"label": f"{c0.get('preset')} L{c0.get('n_layer')} steps {c0.get('steps')}", "lr": lr, "sweep": sweeps[main], "bracket": brackets,
                    "steps": int(c0.get("steps", 0)), "cells": fam_cells, "n_runs": len(members), "runs": members})
    return sorted(out, key=lambda e: -e["n_runs"])


def comparisons(runs: list[dict]) -> list[dict]:
    """Every comparison in `runs` ("which activation wins"): first the cells of the learning-rate
    experiments (each activation at its own rate, "lr": {act: rate}), then compare_group for
    every group of runs sharing all settings but activation and seed.
    [{"group", "label", "config", "rows", "paired"(, "lr")}], "paired" being GELU against each
    other activation (:func:`pairs`).

    Per group, the final val loss of each activation as mean +- sample std over seeds, the
    ranking, and for each activation whether its gap to the best one is larger than the
    seed-to-seed noise: runs with the same seed share init and batches, so the per-seed
    differences to the best get a paired 95 % t interval, and "separated" means it excludes 0
    (the same test as every GELU-against-X verdict). With fewer than two shared seeds the
    noise is unknown and nothing is "separated". ``behind`` counts the seeds in which an
    activation ends behind the best one ("2/2": in every seed)."""
    out = []
    for e in experiments(runs):
        for c in e["cells"]:
            out.append({"group": c["key"], "label": c["label"], "config": c["runs"][0]["config"], "rows": c["rows"],
                        "paired": c["paired"], "lr": e["lr"]})
    for key, members in groups(runs).items():
        rows = compare_group(members)
        if rows:
            out.append({"group": key, "label": group_label(members[0]["config"]), "config": members[0]["config"],
                        "rows": rows, "paired": pairs(rows)})
    return out
