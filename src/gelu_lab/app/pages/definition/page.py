"""Definition: GELU(x) = x Phi(x) as admission by rank, and the Bernoulli-mask reading."""

from __future__ import annotations

import functools

from dash import dcc, html

from ....analysis import theory
from ....figures import definition as figs
from ...components import fmt, graph, md, message, number, presets, readout, readouts, section, slider
from ...state import Param
from .view import PRESETS, READOUTS, _t, bernoulli, gate_labels

X = Param("x", 1.0, -4.0, 4.0, 0.01)
N = Param("n", 1000, 10, 5000, 10, integer=True)
SEED = Param("seed", 0, 0, 9999, 1, integer=True)
PARAMS = [X, N, SEED]


@functools.cache
def _gate():
    """What the x slider shows at each grid point, computed on first use (the same for every request):
    ``reads[i]``, the texts of the READOUTS."""
    g = theory.gate_table(theory.grid(X.lo, X.hi, X.step))
    return g, {
        "lo": X.lo, "step": X.step, "n": len(g["x"]),
        "ids": list(READOUTS), "reads": [[fmt(v, 2), fmt(p), fmt(o)] for v, p, o in zip(g["x"], g["Phi"], g["gelu"])],
        "label": [figs.phi_label(v, p) for v, p in zip(g["x"], g["Phi"])], "side": [figs.label_side(v) for v in g["x"]],  # as the figure writes them
        "xs": g["x"].tolist(), "density": g["phi"].tolist(), "gelu": g["gelu"].tolist(),
        "trace": {"shade": figs.SHADE, "mark_in": figs.MARK_IN, "mark_out": figs.MARK_OUT, "label": figs.LABEL}, "label_y": figs.LABEL_Y,
    }


def layout(state, lang):
    t = _t(lang)
    x = state["x"]
    g, table = _gate()
    i = round((x - X.lo) / X.step)
    gate = figs.gate_figure(g["x"], g["phi"], g["gelu"], x, g["Phi"][i], g["gelu"][i], gate_labels(t))
    bfig, bvals = bernoulli(x, state["n"], state["seed"], t)
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(
                html.H2(t["gate.title"]),
                md(t["hr.text"]),
                md(t["gate.text"]),
                html.Div([slider("definition-x", X, x, t["label.x"], marks={v: f"{v:g}" for v in range(-4, 5)}, table="definition-table"),
                     presets("definition", t["presets"], PRESETS, lambda v: f"x = {v:g}")], className="controls"),
                readouts(
                    *[readout(r, label, v) for r, label, v in zip(READOUTS, ("x", t["read.phi"], t["read.out"]), table["reads"][i])],
                ),
                graph("definition-gate", gate),
                dcc.Store(id="definition-table", data=table),
                md(t["hr.breaks"]),
            ),
            section(
                html.H2(t["bern.h"]),
                md(t["bern.text"]),
                html.Div(
                    [slider("definition-n", N, state["n"], t["label.n"], marks={10: "10", 1000: "1000", 2500: "2500", 5000: "5000"}),
                     number("definition-seed", SEED, state["seed"], t["label.seed"])],
                    className="controls",
                ),
                message("definition-msg"),
                readouts(*[readout(f"definition-b{k}", t[f"read.b{k}"], v) for k, v in zip(("mean", "gelu", "gap", "drop", "dropexp"), bvals)]),
                graph("definition-bernoulli", bfig),
                md(t["bern.after"]),
            ),
        ]
    )
