"""vs ReLU: soft gate vs hard cut, GELU(s x)/s -> ReLU(x), and dead units."""

from __future__ import annotations

import functools

from dash import dcc, html

from .... import activations
from ....analysis import theory
from ....figures import relu as figs
from ....figures import span
from ... import content
from ...components import family_table, fmt, graph, md, message, readout, readouts, section, sig, slider
from ...state import Param
from .view import FAR, READOUTS, XS, dead

S = Param("s", 2.0, 0.5, 20.0, 0.5)
MU = Param("mu", 0.0, -3.0, 3.0, 0.1)
SIGMA = Param("sigma", 1.0, 0.1, 3.0, 0.1)
PARAMS = [S, MU, SIGMA]


@functools.cache
def _table(lang):
    """GELU(s x)/s for every s on the slider's grid, and the readouts (computed on first use)."""
    t = content.text(lang, "relu")
    scales = theory.grid(S.lo, S.hi, S.step)
    fam = theory.scale_family(scales, XS)
    names = [content.fill(t["fig.scaled"], s=f"{s:g}") for s in scales]
    return family_table(S, figs.SCALED, fam["y"], names, [fmt(g) for g in fam["gap"]], READOUTS), fam


def layout(state, lang):
    t = content.text(lang, "relu")
    kp = theory.key_points()
    gelu = activations.get("gelu").fn
    table, fam = _table(lang)
    i = round((state["s"] - S.lo) / S.step)
    sfig = figs.scale_figure(XS, fam["relu"], fam["y"][i], {"title": t["fig.title"], "relu": "ReLU(x)", "scaled": table["names"][i], "x": "x", "y": t["fig.y"]},
                              yrange=span(fam["relu"], fam["y"]))  # fixed: the curve moves in place
    dfig, shares = dead(state["mu"], state["sigma"], t)
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(
                html.H2(t["soft.h"]),
                md(content.fill(t["soft.text"], grad0=f"{kp['grad_at_0']:.4g}")),  # 0.5, not 0.5000
                readouts(
                    readout("relu-k-left", "ReLU′(0⁻)", fmt(kp["relu_grad_left"], 1)),
                    readout("relu-k-right", "ReLU′(0⁺)", fmt(kp["relu_grad_right"], 1)),
                    readout("relu-k-gelu0", "GELU′(0)", fmt(kp["grad_at_0"], 4)),
                    readout("relu-k-far", f"GELU({FAR:g}) − {FAR:g}", sig(float(gelu(FAR)) - FAR)),
                    readout("relu-k-neg", f"GELU(−{FAR:g})", sig(float(gelu(-FAR)))),
                ),
            ),
            section(
                html.H2(t["scale.h"]),
                md(content.fill(t["scale.text"], gap1=fmt(fam["gap1"]))),
                html.Div([slider("relu-s", S, state["s"], t["label.s"], marks={v: f"{v:g}" for v in (0.5, 5, 10, 15, 20)}, table="relu-table")], className="controls"),
                readouts(*[readout(r, label, v) for r, label, v in zip(READOUTS, ("s", t["read.gap"]), table["reads"][i])]),
                graph("relu-scale", sfig),
                dcc.Store(id="relu-table", data=table),
            ),
            section(
                html.H2(t["dead.h"]),
                md(content.fill(t["dead.text"], n=str(theory.DEAD_UNITS))),
                html.Div(
                    [slider("relu-mu", MU, state["mu"], t["label.mu"], marks={v: f"{v:g}" for v in (-3, -2, -1, 0, 1, 2, 3)}),
                     slider("relu-sigma", SIGMA, state["sigma"], t["label.sigma"], marks={v: f"{v:g}" for v in (0.1, 1, 2, 3)})],
                    className="controls",
                ),
                message("relu-msg"),
                readouts(readout("relu-rdead", t["read.relu_dead"], shares[0]), readout("relu-gdead", t["read.gelu_dead"], shares[1])),
                graph("relu-dead", dfig),
                md(content.fill(t["dead.after"], grad_min=sig(kp["grad_min"]), grad_max=sig(kp["grad_max"]))),
            ),
        ]
    )
