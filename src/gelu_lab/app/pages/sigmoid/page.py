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

BETA = Param("beta", 1.7, 0.25, 8.0, 0.05)
PARAMS = [BETA]
XS = theory.grid(-4.0, 4.0, 0.05)
PRESETS = (1.0, nm.SIGMOID_BETA, 4.0, 8.0)
READOUTS = ("sigmoid-rbeta", "sigmoid-rdist")  # what the beta slider moves


@functools.cache
def _numbers() -> dict:
    """The numbers the text quotes: where 1.702 comes from (theory.sigmoid_gate) and the fit to GELU."""
    g = theory.sigmoid_gate()
    kp = theory.key_points()
    best, _ = theory.best_beta()
    dist = theory.beta_family([nm.SIGMOID_BETA], XS)["distance"][0]
    return {
        "beta": f"{nm.SIGMOID_BETA:g}",
        "phi_slope": fmt(g["phi_slope"]), "sig_slope": fmt(g["sig_slope"]),
        "steeper": f"{sig(100 * (g['sig_slope'] / g['phi_slope'] - 1))}%",
        "slope_beta": sig(g["slope_beta"]), "slope_gap": sig(g["slope_gap"]),
        "gate_beta": sig(g["gate_beta"], 5),  # five figures: 1.7017, which rounds to 1.702
        "gate_gap": sig(g["gate_gap"]), "gap": sig(g["gap"]), "best": sig(best), "dist": sig(dist),
        "half": f"{float(nm.Phi(0.0)):.4g}", "sig_max": f"{kp['sigmoid_grad_max']:.4g}",  # exact: 0.5 and 0.25
    }


def _t(lang):
    v = _numbers()
    return {k: content.fill(t, **v) for k, t in content.text(lang, "sigmoid").items()}


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
