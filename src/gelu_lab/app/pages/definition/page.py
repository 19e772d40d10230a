"""Definition: GELU(x) = x Phi(x) as admission by rank, and the Bernoulli-mask reading."""

from __future__ import annotations

import functools

import numpy as np
from dash import dcc, html

from ....analysis import theory
from ....figures import definition as figs
from ... import content
from ...components import fmt, graph, md, message, number, presets, readout, readouts, section, sig, slider
from ...state import Param

X = Param("x", 1.0, -4.0, 4.0, 0.01)
N = Param("n", 1000, 10, 5000, 10, integer=True)
SEED = Param("seed", 0, 0, 9999, 1, integer=True)
PARAMS = [X, N, SEED]
PRESETS = (2.0, 0.0, -2.0)
READOUTS = ("definition-rx", "definition-rphi", "definition-rout")  # what the x slider moves


@functools.cache
def _numbers() -> dict:
    """What the HR-office analogy quotes, computed: the share Phi(x) of the scores 1, 0 and -1
    that gets through, what comes out, and GELU's minimum (how far below 0 a negative score can come out)."""
    g = theory.gate_table([1.0, 0.0, -1.0])
    kp = theory.key_points()
    pct = [f"{sig(100 * p)}%" for p in g["Phi"]]
    return {"keep": f"{theory.DROPOUT_KEEP:g}", "phi1": pct[0], "phi0": pct[1], "phim1": pct[2],
            "out1": sig(g["gelu"][0]), "outm1": sig(g["gelu"][2]), "gelu_min": sig(kp["gelu_min"]), "x_min": sig(kp["grad_root"])}


def _t(lang):
    v = _numbers()
    return {k: content.fill(t, **v) for k, t in content.text(lang, "definition").items()}


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


def gate_labels(t):
    return {k: t[f"fig.{k}"] for k in ("density_title", "output_title", "density", "area", "input", "output", "identity", "x", "y")}


PLOTTED = 300  # points per running-mean curve at most: spaced evenly on its log n axis


def bernoulli(x, n, seed, t):
    """Figure and readouts of the Bernoulli-mask section.

    The curves are drawn through at most PLOTTED of the n running means (the first
    and the last included), log-spaced like the axis: the same picture as all n,
    with a payload and a redraw that do not grow with n (5000 masks were 200 kB).
    """
    b = theory.bernoulli_masks(x, n, seed)
    labels = {k: t[f"bern.{k}"] for k in ("title", "gelu", "dropout", "relu", "expect", "n", "mean")}
    k = np.unique(np.round(np.geomspace(1, len(b["n"]), PLOTTED)).astype(int)) - 1
    fig = figs.bernoulli_figure(b["n"][k], b["gelu_running"][k], b["dropout_running"][k], b["relu_running"][k], b["gelu"], b["dropout"], b["relu"], labels)
    vals = [fmt(b["gelu_running"][-1]), fmt(b["gelu"]), fmt(abs(b["gelu_running"][-1] - b["gelu"])), fmt(b["dropout_running"][-1]), fmt(b["dropout"])]
    return fig, vals


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
