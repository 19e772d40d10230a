"""vs Sigmoid: the gates Phi(x), sigma(1.702x), sigma(x), and the x sigma(beta x) family."""

from __future__ import annotations

import functools

from dash import dcc, html

from .... import activations
from .... import numerics as nm
from ....analysis import theory
from ....figures import sigmoid as figs
from ....figures import span
from ... import content
from ...components import family_table, fmt, graph, md, presets, readout, readouts, section, sig, slider
from ...state import Param
from .view import PRESETS, READOUTS, XS, _t

BETA = Param("beta", 1.7, 0.25, 8.0, 0.05)
PARAMS = [BETA]


@functools.cache
def _table(lang):
    """x sigmoid(beta x) for every beta on the slider's grid, and the readouts (computed on first use)."""
    t = _t(lang)
    betas = theory.grid(BETA.lo, BETA.hi, BETA.step)
    fam = theory.beta_family(betas, XS)
    names = [content.fill(t["fig.family"], b=f"{b:g}") for b in betas]
    return family_table(BETA, figs.FAMILY, fam["y"], names, [fmt(d) for d in fam["distance"]], READOUTS), fam


def layout(state, lang):
    t = _t(lang)
    g = theory.gates(theory.grid(-5.0, 5.0, 0.02))
    gl = {k: t[f"gates.{k}"] for k in ("title", "Phi", "sig1702", "sig1", "diff", "x", "gate")}
    table, fam = _table(lang)
    i = round((state["beta"] - BETA.lo) / BETA.step)
    ffig = figs.family_figure(
        XS, fam["gelu"], fam["relu"], fam["y"][i], {"title": t["fam.title"], "gelu": "GELU(x)", "relu": "ReLU(x)", "family": table["names"][i], "x": "x", "y": t["fig.y"]},
        yrange=span(fam["gelu"], fam["relu"], fam["y"]),  # fixed: the curve moves in place
    )
    best, best_d = theory.best_beta()
    ref = theory.beta_family([1.0, nm.SIGMOID_BETA], XS)["distance"]
    wide = theory.grid(-6.0, 6.0, 0.02)
    sq = figs.squash_figure(
        wide, activations.get("gelu").fn(wide), activations.get("sigmoid").fn(wide),
        {k: t[f"sq.{k}"] for k in ("title", "gelu", "sigmoid", "identity", "x", "y")},
    )
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(
                html.H2(t["gates.h"]),
                md(t["gates.text"]),
                readouts(readout("sigmoid-gap", t["read.gate_gap"], fmt(g["max_gap"]))),
                graph("sigmoid-gates", figs.gates_figure(g["x"], g["Phi"], g["sig1702"], g["sig1"], gl)),
            ),
            section(
                html.H2(t["fam.h"]),
                md(t["fam.text"]),
                html.Div([slider("sigmoid-beta", BETA, state["beta"], "β", marks={v: f"{v:g}" for v in (0.25, 1, 2, 4, 6, 8)}, table="sigmoid-table"),
                     presets("sigmoid", t["presets"], PRESETS, lambda b: f"β = {b:g}")], className="controls"),
                readouts(
                    *[readout(r, label, v) for r, label, v in zip(READOUTS, ("β", t["read.dist"]), table["reads"][i])],
                    readout("sigmoid-silu", t["read.silu"], fmt(ref[0])),
                    readout("sigmoid-1702", t["read.1702"], fmt(ref[1])),
                    readout("sigmoid-best", t["read.best"], sig(best)),
                    readout("sigmoid-bestd", t["read.bestd"], fmt(best_d)),
                ),
                graph("sigmoid-family", ffig),
                dcc.Store(id="sigmoid-table", data=table),
                md(t["fam.after"]),
            ),
            section(html.H2(t["sq.h"]), md(t["sq.text"]), graph("sigmoid-squash", sq)),
        ]
    )
