"""vs Sigmoid page: the three gates, and the x sigmoid(beta x) family."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import COLORS, NEUTRAL, styled

FAMILY = 2  # trace index of x sigmoid(beta x) in family_figure (moved clientside)


def gates_figure(x, Phi, sig1702, sig1, labels: dict) -> go.Figure:
    """Top: Phi(x), sigmoid(1.702x), sigmoid(x). Bottom: sigmoid(1.702x) - Phi(x).

    labels: title, Phi, sig1702, sig1, diff, x, gate.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32], vertical_spacing=0.06)
    fig.add_scatter(x=x, y=Phi, name=labels["Phi"], line={"color": COLORS["gelu"], "width": 2.5}, row=1, col=1)
    fig.add_scatter(x=x, y=sig1702, name=labels["sig1702"], line={"color": COLORS["gelu_sigmoid"], "dash": "dash"}, row=1, col=1)
    fig.add_scatter(x=x, y=sig1, name=labels["sig1"], line={"color": COLORS["sigmoid"]}, row=1, col=1)
    fig.add_scatter(x=x, y=np.asarray(sig1702) - np.asarray(Phi), name=labels["diff"], line={"color": NEUTRAL}, row=2, col=1)
    fig.update_xaxes(title=labels["x"], row=2, col=1)
    fig.update_yaxes(title=labels["gate"], row=1, col=1)
    fig.update_yaxes(title=labels["diff"], row=2, col=1, title_font={"size": 11})
    return styled(fig, labels["title"], height=440)


def family_figure(x, gelu, relu, y_beta, labels: dict) -> go.Figure:
    """GELU, ReLU and x sigmoid(beta x) for one beta. labels: title, gelu, relu, family, x, y."""
    fig = go.Figure()
    fig.add_scatter(x=x, y=gelu, name=labels["gelu"], line={"color": COLORS["gelu"], "width": 2.5})
    fig.add_scatter(x=x, y=relu, name=labels["relu"], line={"color": COLORS["relu"], "dash": "dot"})
    fig.add_scatter(x=x, y=y_beta, name=labels["family"], line={"color": COLORS["silu"], "width": 2})
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(title=labels["y"])
    return styled(fig, labels["title"], height=380)


def squash_figure(x, gelu, sigmoid, labels: dict) -> go.Figure:
    """Gate times input keeps magnitude, the gate alone is squashed into (0, 1). labels: title, gelu, sigmoid, identity, x, y."""
    fig = go.Figure()
    fig.add_scatter(x=x, y=x, name=labels["identity"], line={"color": NEUTRAL, "dash": "dot", "width": 1})
    fig.add_scatter(x=x, y=gelu, name=labels["gelu"], line={"color": COLORS["gelu"], "width": 2.5})
    fig.add_scatter(x=x, y=sigmoid, name=labels["sigmoid"], line={"color": COLORS["sigmoid"], "width": 2})
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(title=labels["y"])
    return styled(fig, labels["title"], height=340)
