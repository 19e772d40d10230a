"""The gradients page's view: its numbers (analysis/, nn/, results/) as the page shows them, the
texts filled with them and its figures; the layout is :mod:`.page`, the callbacks :mod:`.callbacks`."""

from __future__ import annotations

import functools

from .... import activations
from ....analysis import gradflow, theory
from ....figures import gradients as figs
from ... import content
from ...components import fmt, sig


FLOW_ACTS = ("gelu", "relu", "silu", "sigmoid")


def _derivatives(lang, t, kp):
    x = theory.grid(-4.0, 4.0, 0.02)
    curves = {
        "gelu.grad": activations.get("gelu").grad(x),
        "gelu.grad2": activations.get("gelu").grad2(x),
        "relu.grad": activations.get("relu").grad(x),
        "sigmoid.grad": activations.get("sigmoid").grad(x),
    }
    names = {k: t[f"fig.{k}"] for k in curves}
    points = [
        (0.0, kp["grad_at_0"], f"({fmt(0, 0)}, {fmt(kp['grad_at_0'], 2)})"),
        (kp["grad_root"], 0.0, f"({fmt(kp['grad_root'])}, 0)"),
        (kp["grad_max_x"], kp["grad_max"], f"(√2, {fmt(kp['grad_max'])})"),
        (kp["grad_min_x"], kp["grad_min"], f"(−√2, {fmt(kp['grad_min'])})"),
        (kp["sigmoid_grad_max_x"], kp["sigmoid_grad_max"], f"σ′ ≤ {fmt(kp['sigmoid_grad_max'], 2)}"),
    ]
    return figs.derivatives_figure(x, curves, names, points, {"title": t["fig.title"], "x": "x", "y": t["fig.y"], "points": t["fig.points"]})


@functools.lru_cache(maxsize=4 * gradflow.MAX_DEPTH)
def flow(depth: int, lang: str):
    """Figure and readouts of the gradient-flow section at `depth` (cached: the slider has
    MAX_DEPTH stops, and building the figure is most of the callback's 15 ms)."""
    t = content.text(lang, "gradients")
    flows = {arch: {n: gradflow.gradient_flow(n, depth, arch) for n in FLOW_ACTS} for arch in gradflow.ARCHS}
    names = {n: content.label(n, lang) for n in FLOW_ACTS}
    fig = figs.flow_figure(flows, names, {k: t[f"flow.{k}"] for k in (*gradflow.ARCHS, "layer", "ratio")})
    vals = [sig(flows[arch][n][0]) for arch in gradflow.ARCHS for n in FLOW_ACTS]
    return fig, vals


def _flow_ids():
    return [f"gradients-f-{arch}-{n}" for arch in gradflow.ARCHS for n in FLOW_ACTS]
