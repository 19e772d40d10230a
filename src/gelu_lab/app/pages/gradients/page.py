"""Gradients: GELU' and GELU'' with their landmarks, and gradient flow through depth."""

from __future__ import annotations

import functools

from dash import html

from ....analysis import gradflow, theory
from ... import content
from ...components import graph, md, message, readout, readouts, section, sig, slider
from ...state import Param
from .view import FLOW_ACTS, _derivatives, _flow_ids, flow

DEPTH = Param("depth", 12, 1, gradflow.MAX_DEPTH, 1, integer=True)
PARAMS = [DEPTH]


@functools.cache
def _t(lang):
    """The page's texts, filled with the numbers they quote: the landmarks of GELU' and, for the
    bicycle analogy, the first-layer gradients the flow section measures at the default depth."""
    kp = theory.key_points()
    exact = lambda v: f"{v:.4g}"  # noqa: E731  (0.5 and 0.25 are exact: no trailing zeros)
    v = {"grad0": exact(kp["grad_at_0"]), "sig_max": exact(kp["sigmoid_grad_max"]), "root": sig(kp["grad_root"]),
         "grad_max": sig(kp["grad_max"]), "grad_min": sig(kp["grad_min"]), "grad_min_x": sig(kp["grad_min_x"]),
         "depth": str(DEPTH.default), "width": str(gradflow.WIDTH), "batch": str(gradflow.BATCH)}
    v |= {f"{arch}_{n}": sig(gradflow.gradient_flow(n, DEPTH.default, arch)[0]) for arch in gradflow.ARCHS for n in ("gelu", "relu")}
    return {k: content.fill(text, **v) for k, text in content.text(lang, "gradients").items()}


def layout(state, lang):
    t = _t(lang)
    kp = theory.key_points()
    ffig, fvals = flow(state["depth"], lang)
    labels = [f"{t['flow.' + arch]} · {content.label(n, lang)}" for arch in gradflow.ARCHS for n in FLOW_ACTS]
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(
                html.H2(t["key.h"]),
                md(t["ride.text"]),
                md(t["key.text"]),
                readouts(
                    readout("gradients-k0", "GELU′(0)", sig(kp["grad_at_0"])),
                    readout("gradients-kroot", t["read.root"], sig(kp["grad_root"])),
                    readout("gradients-kmin", t["read.min"], sig(kp["gelu_min"])),
                    readout("gradients-kmax", "GELU′(√2)", sig(kp["grad_max"])),
                    readout("gradients-kneg", "GELU′(−√2)", sig(kp["grad_min"])),
                    readout("gradients-ksig", "max σ′", sig(kp["sigmoid_grad_max"])),
                ),
                graph("gradients-derivs", _derivatives(lang, t, kp)),
                md(t["ride.check"]),
            ),
            section(
                html.H2(t["flow.h"]),
                md(t["flow.text"]),
                html.Div([slider("gradients-depth", DEPTH, state["depth"], t["label.depth"], marks={v: str(v) for v in (1, 6, 12, 18, 24)})], className="controls"),
                message("gradients-msg"),
                html.P(t["read.flow"], className="control-label"),
                readouts(*[readout(i, lab, v) for i, lab, v in zip(_flow_ids(), labels, fvals)]),
                graph("gradients-flow", ffig),
                md(t["flow.after"]),
                md(t["flow.ride"]),
            ),
        ]
    )
