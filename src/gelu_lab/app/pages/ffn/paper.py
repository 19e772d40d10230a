"""The FFN page's comparison with Shazeer 2020 ("GLU Variants Improve Transformer", Table 1):
a table and a figure with our ordering and gaps beside the paper's, and the sentence that
says where they agree. Ours from :func:`gelu_lab.analysis.glu_paper.side_by_side` of the
experiment's main cell; the paper's numbers from :data:`gelu_lab.analysis.glu_paper.PAPER`.
A variant the result set has no runs of yet shows the paper's numbers only, and the text
says which are missing.
"""

from __future__ import annotations

from dash import html

from ....analysis import glu_paper
from ....figures import ffn as figs
from ....printing import fixed, sig
from ... import content
from ...components import graph, md, values_table
from .decision import nats
from .view import NONE


def _ours_gap(p: dict | None) -> str:
    if p is None:
        return NONE
    return nats(p["mean"]) + ("" if p["verdict"] == "unknown" else f" [{nats(p['lo'])}, {nats(p['hi'])}]")


def _pair(p: dict, lang: str) -> str:
    return f"{content.label(p['a'], lang)} / {content.label(p['b'], lang)}"


def sentence(s: dict, t: dict, lang: str) -> str:
    """Where our ordering agrees with the paper's and where not, computed from both."""
    join = lambda ps: content.join((_pair(p, lang) for p in ps), lang)  # noqa: E731
    parts = [content.fill(t["paper.agree"], agree=str(len(s["agree"])), pairs=str(len(s["pairs"])))]
    if s["settled_disagree"]:
        parts.append(content.fill(t["paper.against"], n=str(len(s["settled_disagree"])), which=join(s["settled_disagree"])))
    if s["noise_disagree"]:
        parts.append(content.fill(t["paper.against_noise"], n=str(len(s["noise_disagree"])), which=join(s["noise_disagree"])))
    g = s["gated_first"]
    parts.append(t["paper.gated.none"] if g["ours"] is None else t["paper.gated.holds" if g["ours"] else "paper.gated.not"])
    parts.append(content.fill(t["paper.scale"], params=sig(s["params"], 2) if s["params"] else NONE, steps=str(s["steps"])))
    return " ".join(parts)


def table(s: dict | None, lang: str, t: dict):
    """Every variant of the paper, in its order: our mean, rank and gap to GELU (95 % interval), the paper's."""
    ours = (s or {}).get("ours", {})
    rank_ours = {a: i for i, a in enumerate((s or {}).get("order_ours", []), 1)}
    rows = []
    for p in glu_paper.paper_table():
        a, o = p["variant"], ours.get(p["variant"])
        rows.append(html.Tr([html.Td(content.label(a, lang)),
                             html.Td(f"{fixed(o['mean'], 3)} ({o['n']})" if o else NONE), html.Td(str(rank_ours.get(a, NONE))),
                             html.Td(_ours_gap(o["gap"]) if o and o["gap"] else NONE),
                             html.Td(fixed(p["short"], 3)), html.Td(str(p["rank"])), html.Td(fixed(p["gap_short"], 3)),
                             html.Td(fixed(p["long"], 3)), html.Td(fixed(p["gap_long"], 3))]))
    head = [t[f"paper.col.{k}"] for k in ("variant", "ours", "rank", "ours_gap", "short", "rank", "short_gap", "long", "long_gap")]
    return values_table(head, rows, id="ffn-paper-el")


def figure(s: dict | None, lang: str, t: dict):
    lp = glu_paper.PAPER["log_ppl"]
    ours = (s or {}).get("ours", {})
    rows = []
    for a, (short, long) in lp.items():
        o = ours.get(a)
        gap = None
        if o is not None:  # GELU itself sits at 0 by definition; another variant at its paired gap
            gap = {"mean": 0.0, "lo": 0.0, "hi": 0.0} if a == glu_paper.REF else o["gap"]
        # the paper's short names: a phone has room for them beside the points
        rows.append({"act": a, "name": t[f"paper.name.{a}"], "ours": gap, "paper": (short - lp["gelu"][0], long - lp["gelu"][1])})
    steps = glu_paper.PAPER["steps"]
    labels = {"title": t["fig.paper.title"], "x_ours": t["fig.paper.x_ours"], "x_paper": t["fig.paper.x_paper"], "short": content.fill(t["fig.paper.steps"], steps=f"{steps[0]:,}"),
              "long": content.fill(t["fig.paper.steps"], steps=f"{steps[1]:,}")}
    return graph("ffn-paper", figs.paper_figure(rows, labels))


def block(d: dict | None, lang: str, t: dict, prov: dict | None = None) -> list:
    """The section's part: heading, the paper's setting (cited), the table, the figure, the sentence,
    and what the result set lacks (variants with no runs, runs of the plan still to run)."""
    s = glu_paper.side_by_side(d["main"]) if d else None
    missing = [a for a in glu_paper.PAPER["log_ppl"] if not s or a not in s["ours"]]
    pending = ((prov or {}).get("experiment") or {}).get("pending")
    text = [t["paper.setting"]]
    if s:
        text.append(sentence(s, t, lang))
    if missing:
        text.append(content.fill(t["paper.missing"], which=content.join((content.label(a, lang) for a in missing), lang)))
    if pending:
        text.append(content.fill(t["paper.partial"], n=str(pending)))
    return [html.H3(t["paper.h"]), md("\n\n".join(text), id="ffn-paper-text"), table(s, lang, t), figure(s, lang, t)]
