"""The FFN page's live block: pick an FFN variant (an activation, or a gated variant) and an
init scale, and watch the hidden pre-activations, the activation they go through and what
enters W₂ -- for a gated variant the product act(xW) ⊙ xV, which takes either sign and has
no bound on either side. Then the parameter count of every variant at the experiment's width.

Numbers from :func:`gelu_lab.nn.ffn_view.live` and :func:`gelu_lab.nn.ffn_view.param_counts`.
"""

from __future__ import annotations

from dash import html

from .... import activations
from ....figures import ffn as figs
from ....nn import ffn_view as data
from ....nn import variants
from ....printing import pct, sig
from ... import content
from ...components import dropdown, graph, md, message, readout, readouts, slider, values_table
from ...state import Param
from . import view

VARIANTS = (*activations.names(), *variants.GATED)  # the activations the pages show, then the gated FFNs
ACT = Param("act", "gelu", choices=VARIANTS)
SIGMA = Param("sigma", 0.16, 0.05, 3.0, 0.01)
READOUTS = ("dead", "near", "neg", "lin", "std", "yneg", "yrange")


def live(act, sigma, lang, t):
    """(block figure, figure of what enters W₂, readout texts) for variant `act` on inputs of std `sigma`."""
    d = data.live(act, sigma)
    gate = variants.gate_activation(act)
    labels = {"title": t["fig.block.title"], "hist": t["fig.hist"], "act": content.label(gate, lang), "x": t["fig.pre"],
              "density": t["fig.density"], "y": t["fig.act_y"]}
    color = figs.COLORS.get(act, figs.NEUTRAL)
    block = figs.block_figure(d["centers"], d["density"], d["xs"], d["ys"], labels, color=color)
    title = t["fig.w2in.gated" if d["gated"] else "fig.w2in.plain"]
    w2in = figs.hist_figure(d["y_centers"], d["y_density"], {"title": title, "x": t["fig.w2in.x"], "density": t["fig.density"]})
    return block, w2in, view.readouts(d["readouts"])


def param_table(d: int, lang: str, t: dict):
    """Every FFN variant's hidden width and parameters at width d, against the ungated 4d FFN's."""
    rows = [html.Tr([html.Td(content.label(r["act"], lang) if r["act"] != "gelu" else t["params.plain"]), html.Td(str(r["hidden"])),
                     html.Td(sig(r["params"])), html.Td(pct(r["ratio"] - 1, 2))]) for r in data.param_counts(d)]
    head = [t[f"params.{k}"] for k in ("variant", "hidden", "count", "diff")]
    return [md(content.fill(t["params.text"], d=str(d))), values_table(head, rows, id="ffn-params-el")]


def section_children(state: dict, lang: str, t: dict, width: int) -> list:
    """The live block's section (its controls at `state`), then the parameter counts at `width`."""
    block, w2in, vals = live(state["act"], state["sigma"], lang, t)
    acts = [{"label": content.label(n, lang), "value": n} for n in VARIANTS]
    return [
        html.H2(t["block.h"]), md(t["block.text"]),
        html.Div([dropdown("ffn-act", t["label.act"], acts, state["act"]),
                  slider("ffn-sigma", SIGMA, state["sigma"], t["label.sigma"], marks={v: f"{v:g}" for v in (0.05, 0.5, 1, 2, 3)})],
                 className="controls"),
        message("ffn-msg"),
        readouts(*(readout(f"ffn-r-{k}", t[f"read.{k}"], v) for k, v in zip(READOUTS, vals))),
        graph("ffn-block", block),
        md(t["block.after"]),
        md(t["block.gated"]),
        graph("ffn-w2in", w2in),
        *param_table(width, lang, t),
    ]
