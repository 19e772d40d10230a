"""The Real BERT page's view: the probe's numbers (gelu_lab.nn.probe_view) as the page and the
story quote them, and a layer statistic as the table shows it.

    STAT_COLS                   the table's columns: (statistic, digits, kind)
    cell(v, digits, kind)       one table cell
    quoted(result)              the numbers the texts quote ({n}, {tokens}, {means}, ...)
"""

from __future__ import annotations

from ....nn.probe_view import SWAPS
from ....printing import fixed, pct, sig

STAT_COLS = [("mean", 3, None), ("std", 3, None), ("skew", 2, None), ("excess_kurtosis", 2, None),
             ("share_negative", 1, "%"), ("share_in_minus3_0", 1, "%"), ("share_below_minus3", 2, "%"),
             ("ks_std_normal", 3, None), ("ks_fitted_normal", 3, None), ("gelu_magnitude_from_negative", 1, "%"),
             ("units_never_positive", 0, "int")]


def _range(vals, f) -> str:
    return f"{f(min(vals))} – {f(max(vals))}"


def cell(v, digits: int, kind) -> str:
    """A layer statistic as the table shows it (STAT_COLS: digits and kind)."""
    if kind == "%":
        return pct(v, digits)
    return str(int(v)) if kind == "int" else fixed(v, digits)


def quoted(res: dict) -> dict:
    """The numbers the page's texts quote ({n}, {tokens}, {sub}, {means}, ...), as shown: counts
    grouped, and for the scores that round to 1 their gap to 1 (1 - cosine), which does not."""
    L = res["layers"]
    rows = {(w["activation"], w["layer"]): w for w in res["swaps"]}
    cr = res["precision"][-1]
    bf = next((p for p in res["precision"] if p["dtype"] == "bfloat16"), None)
    v = {
        "n": sig(res["n_sentences"]), "tokens": sig(res["tokens"]),
        "sub": sig(res.get("subset", {}).get("sentences", res["n_sentences"])),
        "means": _range([x["mean"] for x in L], lambda m: fixed(m, 2)),
        "neg": _range([x["share_negative"] for x in L], lambda s: pct(s, 0)),
        "ks_std": _range([x["ks_std_normal"] for x in L], lambda s: fixed(s, 2)),
        "ks_fit": _range([x["ks_fitted_normal"] for x in L], lambda s: fixed(s, 3)),
        "mag": _range([x["gelu_magnitude_from_negative"] for x in L], lambda s: pct(s, 0)),
        "mid": _range([x["share_in_minus3_0"] for x in L], lambda s: pct(s, 0)),
        "differs": pct(cr["share_torch_differs"]), "over1": pct(cr["share_torch_over_1ulp"]),
        "cr_gap": sig(1.0 - cr["cos_min"]),
        "bf_gap": sig(1.0 - bf["cos_min"]) if bf else "–", "bf_nn": pct(bf["nn_top1"]) if bf else "–",
    }
    for a in SWAPS:
        w = rows.get((a, "all"))
        if w:
            v[f"{a}_cos"], v[f"{a}_gap"] = sig(w["cos_mean"], 3), sig(1.0 - w["cos_mean"])
            v[f"{a}_rho"] = sig(w["spearman"], 3)
            v[f"{a}_nn"] = pct(w["nn_top1"])
    return v
