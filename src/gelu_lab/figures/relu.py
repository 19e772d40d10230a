"""vs ReLU page: GELU(s x)/s closing in on ReLU, and the dead-unit histograms."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import COLORS, axis, figure, side_by_side

SCALED = 1  # trace index of GELU(s x)/s in scale_figure (moved clientside)


def scale_figure(x, relu, y_scaled, labels: dict, yrange=None) -> go.Figure:
    """ReLU(x) and GELU(s x)/s on x. labels: title, relu, scaled, x, y; yrange fixed (or autorange)."""
    traces = [
        {"type": "scatter", "x": x, "y": relu, "name": labels["relu"], "line": {"color": COLORS["relu"], "width": 2}},
        {"type": "scatter", "x": x, "y": y_scaled, "name": labels["scaled"], "line": {"color": COLORS["gelu"], "width": 2.5}},
    ]
    return figure(traces, labels["title"], height=360, xaxis=axis(labels["x"]), yaxis=axis(labels["y"], range=yrange))


def dead_unit_figure(relu_grad, gelu_grad, labels: dict, bins: int = 40) -> go.Figure:
    """Histograms of the per-unit gradients under ReLU and GELU on shared bins.

    Counted here (np.histogram) and drawn as bars: the page ships 2 x `bins`
    counts, not every unit's gradient, and the app's plotly.js bundle has no
    histogram trace. labels: title, relu, gelu, grad, count.
    """
    lo = float(min(np.min(relu_grad), np.min(gelu_grad), -0.2))
    hi = float(max(np.max(relu_grad), np.max(gelu_grad), 1.2))
    edges = np.linspace(lo, hi, bins + 1)
    centers, width = (edges[:-1] + edges[1:]) / 2, edges[1] - edges[0]
    traces = []
    for k, (name, g) in enumerate((("relu", relu_grad), ("gelu", gelu_grad))):
        traces.append({"type": "bar", "x": centers, "y": np.histogram(g, bins=edges)[0], "width": width,
                       "name": labels[name], "marker": {"color": COLORS[name]}, "showlegend": False,
                       **({"xaxis": "x2", "yaxis": "y2"} if k else {})})
    lay = side_by_side([labels["relu"], labels["gelu"]], gap=0.05, share_y=True)
    lay["xaxis"].update(axis(labels["grad"]))
    lay["xaxis2"].update(axis(labels["grad"]))
    lay["yaxis"].update(axis(labels["count"]))
    return figure(traces, labels["title"], height=340, hovermode="closest", bargap=0.05, **lay)
