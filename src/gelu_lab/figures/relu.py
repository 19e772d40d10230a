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

    labels: title, relu, gelu, grad, count.
    """
    lo = float(min(np.min(relu_grad), np.min(gelu_grad), -0.2))
    hi = float(max(np.max(relu_grad), np.max(gelu_grad), 1.2))
    xbins = {"start": lo, "end": hi, "size": (hi - lo) / bins}
    traces = [
        {"type": "histogram", "x": relu_grad, "xbins": xbins, "name": labels["relu"], "marker": {"color": COLORS["relu"]}, "showlegend": False},
        {"type": "histogram", "x": gelu_grad, "xbins": xbins, "name": labels["gelu"], "marker": {"color": COLORS["gelu"]}, "showlegend": False,
         "xaxis": "x2", "yaxis": "y2"},
    ]
    lay = side_by_side([labels["relu"], labels["gelu"]], gap=0.05, share_y=True)
    lay["xaxis"].update(axis(labels["grad"]))
    lay["xaxis2"].update(axis(labels["grad"]))
    lay["yaxis"].update(axis(labels["count"]))
    return figure(traces, labels["title"], height=340, hovermode="closest", bargap=0.05, **lay)
