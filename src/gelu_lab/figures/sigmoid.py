"""vs Sigmoid page: the three gates, and the x sigmoid(beta x) family."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import COLORS, NEUTRAL, axis, figure, palette, stacked

FAMILY = 2  # trace index of x sigmoid(beta x) in family_figure (moved clientside)


def gates_figure(x, Phi, sig1702, sig1, labels: dict) -> go.Figure:
    """Top: Phi(x), sigmoid(1.702x), sigmoid(x). Bottom: sigmoid(1.702x) - Phi(x).

    labels: title, Phi, sig1702, sig1, diff, x, gate.
    """
    traces = [
        {"type": "scatter", "x": x, "y": Phi, "name": labels["Phi"], "line": {"color": COLORS["gelu"], "width": 2.5}},
        {"type": "scatter", "x": x, "y": sig1702, "name": labels["sig1702"], "line": palette.line("gelu_sigmoid")},
        {"type": "scatter", "x": x, "y": sig1, "name": labels["sig1"], "line": {"color": COLORS["sigmoid"]}},
        {"type": "scatter", "x": x, "y": np.asarray(sig1702) - np.asarray(Phi), "name": labels["diff"], "line": {"color": NEUTRAL},
         "xaxis": "x2", "yaxis": "y2"},
    ]
    lay = stacked()
    lay["xaxis2"].update(axis(labels["x"]))
    lay["yaxis"].update(axis(labels["gate"]))
    lay["yaxis2"].update(title={"text": labels["diff"], "font": {"size": 11}})
    return figure(traces, labels["title"], height=440, left=72, **lay)  # the difference's ticks are 5 characters wide


def family_figure(x, gelu, relu, y_beta, labels: dict, yrange=None) -> go.Figure:
    """GELU, ReLU and x sigmoid(beta x) for one beta. labels: title, gelu, relu, family, x, y; yrange fixed (or autorange)."""
    traces = [
        {"type": "scatter", "x": x, "y": gelu, "name": labels["gelu"], "line": {"color": COLORS["gelu"], "width": 2.5}},
        {"type": "scatter", "x": x, "y": relu, "name": labels["relu"], "line": palette.line("relu")},
        {"type": "scatter", "x": x, "y": y_beta, "name": labels["family"], "line": palette.line("silu")},
    ]
    return figure(traces, labels["title"], height=380, xaxis=axis(labels["x"]), yaxis=axis(labels["y"], range=yrange))


def squash_figure(x, gelu, sigmoid, labels: dict) -> go.Figure:
    """Gate times input keeps magnitude, the gate alone is squashed into (0, 1). labels: title, gelu, sigmoid, identity, x, y."""
    traces = [
        {"type": "scatter", "x": x, "y": x, "name": labels["identity"], "line": {"color": NEUTRAL, "dash": "dot", "width": 1}},
        {"type": "scatter", "x": x, "y": gelu, "name": labels["gelu"], "line": {"color": COLORS["gelu"], "width": 2.5}},
        {"type": "scatter", "x": x, "y": sigmoid, "name": labels["sigmoid"], "line": {"color": COLORS["sigmoid"], "width": 2}},
    ]
    return figure(traces, labels["title"], height=340, xaxis=axis(labels["x"]), yaxis=axis(labels["y"]))
