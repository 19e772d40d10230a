"""Our FFN variants beside the published ones: Shazeer 2020, "GLU Variants Improve Transformer", Table 1.

    PAPER                      the paper's numbers (cited; its setting is in the content files, one line)
    side_by_side(cell)         ours and the paper's, variant by variant, orderings, and where they agree
    paper_table()              the paper's variants in its order: log-perplexities, rank, gaps to GELU

The paper trains T5-base-sized encoder-decoders on C4 (span corruption), the FFN parameters
matched by giving the gated variants d_ff = 2048 where the ungated ones have 3072 (2/3), and
reports the log-perplexity of a held-out set after 65,536 and after 524,288 steps. Ours is a
character model of 0.8 M parameters on Shakespeare after 1,000 steps (the runs say their own
size): the two can agree on the *order* of the variants and on the sign of their gaps, not on
the size of a gap, so that is all that is compared here. The numbers below are the paper's
(typed from its Table 1); every number of ours comes from the runs.
"""

from __future__ import annotations

import math

from ..stats.runsets import paired

PAPER = {
    "citation": "N. Shazeer, GLU Variants Improve Transformer, arXiv:2002.05202 (2020), Table 1",
    "steps": (65536, 524288),
    # FFN variant (our name) -> log-perplexity after (65,536, 524,288) steps; "Swish" is Swish with beta = 1, our SiLU
    "log_ppl": {
        "relu": (1.997, 1.677), "gelu": (1.983, 1.679), "silu": (1.994, 1.683), "glu": (1.982, 1.663),
        "bilinear": (1.960, 1.648), "reglu": (1.953, 1.645), "geglu": (1.942, 1.633), "swiglu": (1.944, 1.636),
    },
    "gated": ("glu", "bilinear", "reglu", "geglu", "swiglu"),
}
REF = "gelu"


def _gap_to_ref(per_seed: dict, ref: dict) -> dict:
    """The variant minus GELU, paired by seed (below 0: lower loss than GELU), with its 95 % interval."""
    return paired(per_seed, ref)


def _gated_first(values: dict) -> bool | None:
    """Is every gated variant below every ungated one? None unless both kinds are there."""
    gated = [v for a, v in values.items() if a in PAPER["gated"]]
    plain = [v for a, v in values.items() if a not in PAPER["gated"]]
    return (max(gated) < min(plain)) if gated and plain else None


def paper_table() -> list[dict]:
    """Every variant of the paper, in its order: [{"variant", "short", "long" (log-perplexity
    after PAPER["steps"]), "rank" (1: the lowest at the short run), "gap_short", "gap_long" (to GELU)}]."""
    lp = PAPER["log_ppl"]
    rank = {a: i for i, a in enumerate(sorted(lp, key=lambda a: lp[a][0]), 1)}
    return [{"variant": a, "short": s, "long": l_, "rank": rank[a], "gap_short": s - lp[REF][0], "gap_long": l_ - lp[REF][1]}
            for a, (s, l_) in lp.items()]


def side_by_side(cell: dict | None) -> dict | None:
    """The main cell of our experiment (stats.runsets.experiments) beside the paper.

    {"variants": the variants both have, in the paper's order;
     "ours": {v: {"mean", "n", "gap" (v minus GELU, paired: mean, lo, hi, verdict, n)}},
     "paper": {v: {"short", "long", "gap_short", "gap_long"}} (minus GELU's, at 65,536 and 524,288 steps),
     "order_ours", "order_paper" (best first; the paper's at 65,536 steps),
     "pairs": [{"a", "b", "paper": paper a - b at 65,536 steps, "ours": paired a - b, "agree": same sign, "settled": ours beyond the noise}],
     "agree", "settled_disagree", "noise_disagree": pair counts and lists,
     "gated_first": {"ours", "paper"}: every gated variant below every ungated one,
     "params": our model's parameter count (GELU's runs), "steps": ours}
    None without a cell or with fewer than two variants that both have."""
    if cell is None:
        return None
    rows = {r["activation"]: r for r in cell["rows"]}
    shared = [a for a in PAPER["log_ppl"] if a in rows]
    if len(shared) < 2:
        return None
    lp = PAPER["log_ppl"]
    ours = {a: {"mean": rows[a]["mean"], "n": rows[a]["n"],
                "gap": _gap_to_ref(rows[a]["per_seed"], rows[REF]["per_seed"]) if REF in rows and a != REF else None} for a in shared}
    paper = {a: {"short": lp[a][0], "long": lp[a][1], "gap_short": lp[a][0] - lp[REF][0], "gap_long": lp[a][1] - lp[REF][1]} for a in shared}
    pairs = []
    for i, a in enumerate(shared):
        for b in shared[i + 1:]:
            p = paired(rows[a]["per_seed"], rows[b]["per_seed"])
            paper_d = lp[a][0] - lp[b][0]
            agree = (p["mean"] < 0) == (paper_d < 0) if paper_d != 0 and math.isfinite(p["mean"]) else None
            pairs.append({"a": a, "b": b, "paper": paper_d, "ours": p, "agree": agree, "settled": p["verdict"] == "larger"})
    run0 = next((r for r in cell["runs"] if r["config"]["activation"] == REF), cell["runs"][0])
    return {
        "variants": shared, "ours": ours, "paper": paper,
        "order_ours": sorted(shared, key=lambda a: ours[a]["mean"]), "order_paper": sorted(shared, key=lambda a: lp[a][0]),
        "pairs": pairs, "agree": [p for p in pairs if p["agree"]],
        "settled_disagree": [p for p in pairs if p["agree"] is False and p["settled"]],
        "noise_disagree": [p for p in pairs if p["agree"] is False and not p["settled"]],
        "gated_first": {"ours": _gated_first({a: ours[a]["mean"] for a in shared}), "paper": _gated_first({a: lp[a][0] for a in shared})},
        "params": run0["config"].get("params"), "steps": run0["config"].get("steps"),
    }
