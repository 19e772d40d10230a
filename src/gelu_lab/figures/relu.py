"""vs ReLU page: GELU(s x)/s closing in on ReLU, and the dead-unit histograms."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import COLORS, styled

SCALED = 1  # trace index of GELU(s x)/s in scale_figure (moved clientside)


def scale_figure(x, relu, y_scaled, labels: dict) -> go.Figure:
    """ReLU(x) and GELU(s x)/s on x. labels: title, relu, scaled, x, y."""
    fig = go.Figure()
    fig.add_scatter(x=x, y=relu, name=labels["relu"], line={"color": COLORS["relu"], "width": 2})
    fig.add_scatter(x=x, y=y_scaled, name=labels["scaled"], line={"color": COLORS["gelu"], "width": 2.5})
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(title=labels["y"])
    return styled(fig, labels["title"], height=360)


def dead_unit_figure(relu_grad, gelu_grad, labels: dict, bins: int = 40) -> go.Figure:
    """Histograms of the per-unit gradients under ReLU and GELU on shared bins.

    labels: title, relu, gelu, grad, count.
    """
    lo = float(min(np.min(relu_grad), np.min(gelu_grad), -0.2))
    hi = float(max(np.max(relu_grad), np.max(gelu_grad), 1.2))
    size = (hi - lo) / bins
    fig = make_subplots(rows=1, cols=2, subplot_titles=(labels["relu"], labels["gelu"]), shared_yaxes=True, horizontal_spacing=0.05)
    for col, (g, key) in enumerate(((relu_grad, "relu"), (gelu_grad, "gelu")), start=1):
        fig.add_histogram(
            x=g, xbins={"start": lo, "end": hi, "size": size}, name=labels[key], marker={"color": COLORS[key]}, row=1, col=col, showlegend=False
        )
    fig.update_xaxes(title=labels["grad"])
    fig.update_yaxes(title=labels["count"], col=1)
    fig.update_layout(hovermode="closest", bargap=0.05)
    return styled(fig, labels["title"], height=340)
