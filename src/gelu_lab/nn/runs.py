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
its gap to the best one is larger than the seed-to-seed spread
(|mean_a - mean_best| > std_a + std_best, i.e. the 1-sigma bands do not
overlap). With one seed the spread is unknown and nothing is "separated".
Runs with the same seed share init and batches, so ``behind`` also counts the
seeds in which an activation ends behind the best one ("2/2": in every seed),
a paired view the unpaired spread test is blind to.
"""

from __future__ import annotations

import json
import math

# configuration fields that do not define the experiment a run belongs to
_NOT_GROUP = {"activation", "seed", "world", "params", "text", "ckpt_every", "eval_interval", "eval_iters"}


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


def final_loss(run: dict) -> float | None:
    f = run.get("final") or {}
    return f.get("val_loss_full", f.get("val_loss"))


def group_key(config: dict) -> str:
    """What runs must share to be compared: everything but activation and seed."""
    return json.dumps({k: v for k, v in sorted(config.items()) if k not in _NOT_GROUP}, sort_keys=True)


def group_label(config: dict) -> str:
    return (
        f"{config.get('preset')} L{config.get('n_layer')} d{config.get('n_embd')} "
        f"steps {config.get('steps')} fc_init_std {config.get('fc_init_std')}"
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
    """Rows per activation, best first: n, mean, std, rank, gap to best, separated from best,
    per_seed {seed: value}."""
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
        spread = r["std"] + best["std"]
        r["spread"] = spread
        r["separated"] = bool(i > 1 and math.isfinite(spread) and r["gap"] > spread)
        # paired by seed (same init and batches): in how many shared seeds is it behind the best?
        shared = sorted(set(r["per_seed"]) & set(best["per_seed"]))
        r["behind"] = f"{sum(r['per_seed'][k] > best['per_seed'][k] for k in shared)}/{len(shared)}" if i > 1 else ""
    return rows


def pairs(rows: list[dict], ref: str = "gelu") -> list[dict]:
    """`ref` against every other activation of a compare_group, seed by seed:
    [{"a": ref, "b": act, **paired(ref's losses, act's)}]; [] without `ref`."""
    per = {r["activation"]: r["per_seed"] for r in rows}
    if ref not in per:
        return []
    return [{"a": ref, "b": act, **paired(per[ref], per[act])} for act in per if act != ref]


def compare(runs: list[dict]) -> list[dict]:
    """compare_group for every group: [{"group", "label", "config", "rows", "verdict", "paired"}],
    "paired" being GELU against each other activation (:func:`pairs`)."""
    out = []
    for key, members in groups(runs).items():
        rows = compare_group(members)
        if rows:
            duel = pairs(rows)
            out.append({"group": key, "label": group_label(members[0]["config"]), "config": members[0]["config"],
                        "rows": rows, "verdict": verdict(rows), "paired": duel})
    return out


def verdict(rows: list[dict], lang: str = "en") -> str:
    """One sentence: who wins and whether the gaps exceed the seed spread."""
    if not rows:
        return ""
    best = rows[0]["activation"]
    if len(rows) == 1:
        return {"en": f"only {best} was run", "zh": f"只运行了 {best}"}[lang]
    if rows[0]["n"] < 2:
        return {"en": f"{best} is lowest, but with one seed the seed-to-seed spread is unknown",
                "zh": f"{best} 最低，但只有一个种子，无法判断种子间波动"}[lang]
    close = [r["activation"] for r in rows[1:] if not r["separated"]]
    if not close:
        return {"en": f"{best} wins; every gap is larger than the seed-to-seed spread",
                "zh": f"{best} 最好；所有差距都大于种子间波动"}[lang]
    names = ", ".join(close)
    every = all(r["behind"] and r["behind"].split("/")[0] == r["behind"].split("/")[1] != "1"
                for r in rows[1:] if not r["separated"])
    tail = {"en": "; paired by seed, it is ahead of them in every seed", "zh": "；按种子配对，它在每个种子上都领先"}[lang] if every else ""
    return {"en": f"{best} is lowest, but within the seed spread of {names}: not a clear win over them",
            "zh": f"{best} 最低，但与 {names} 的差距在种子波动之内：不算明确胜出"}[lang] + tail


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


def sweep(runs: list[dict]) -> dict | None:
    """The init-scale sweep: final val loss per activation at each fc_init_std, for the largest
    family of groups that differ only in fc_init_std. None if there is no such family.

    {"fc": [std, ...], "pre_std": [std*sqrt(d), ...], "label", "acts": {act: {"mean", "std", "n"}}}
    """
    fams: dict[str, dict] = {}
    for key, members in groups(runs).items():
        c = members[0]["config"]
        fam = json.dumps({k: v for k, v in json.loads(key).items() if k != "fc_init_std"}, sort_keys=True)
        fams.setdefault(fam, {})[fc_value(c)] = members
    fam = max(fams.values(), key=len, default=None)
    if not fam or len(fam) < 2:
        return None
    fcs = sorted(fam)
    d = next(iter(fam.values()))[0]["config"]["n_embd"]
    acts: dict[str, dict] = {}
    for i, fc in enumerate(fcs):
        for row in compare_group(fam[fc]):
            a = acts.setdefault(row["activation"], {"mean": [None] * len(fcs), "std": [None] * len(fcs), "n": [0] * len(fcs)})
            a["mean"][i], a["std"][i], a["n"][i] = row["mean"], row["std"], row["n"]
    c0 = next(iter(fam.values()))[0]["config"]
    return {"fc": fcs, "pre_std": [fc * math.sqrt(d) for fc in fcs], "acts": acts,
            "label": f"{c0.get('preset')} L{c0.get('n_layer')} d{d} steps {c0.get('steps')}"}
