"""Gradients page: derivatives with their key points, and gradient flow through depth."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import COLORS, styled


def derivatives_figure(x, curves: dict, names: dict, points: list, labels: dict) -> go.Figure:
    """Derivative curves (curves = {key: y}, colours by the activation name before '.'),
    and key points as markers: points = [(x, y, text)]. labels: title, x, y.
    """
    fig = go.Figure()
    for key, y in curves.items():
        name = key.split(".")[0]
        second = key.endswith(".grad2")
        fig.add_scatter(x=x, y=y, name=names[key], line={"color": COLORS.get(name), "dash": "dash" if second else None, "width": 2.5 if name == "gelu" else 2})
    fig.add_scatter(
        x=[p[0] for p in points], y=[p[1] for p in points], text=[p[2] for p in points], mode="markers+text", textposition="top center",
        marker={"size": 9, "color": "black", "symbol": "x"}, name=labels["points"], textfont={"size": 11},
    )
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(title=labels["y"], range=[-0.6, 1.4])
    fig.update_layout(hovermode="closest")
    return styled(fig, labels["title"], height=440)


def flow_figure(flows: dict, names: dict, labels: dict) -> go.Figure:
    """Per-layer gradient RMS relative to the output, log y; flows = {arch: {name: norms (len L+1)}}.

    labels: mlp, preln, layer, ratio.
    """
    archs = list(flows)
    fig = make_subplots(rows=1, cols=len(archs), subplot_titles=[labels[a] for a in archs], shared_yaxes=True, horizontal_spacing=0.05)
    for col, arch in enumerate(archs, start=1):
        for name, norms in flows[arch].items():
            fig.add_scatter(
                x=list(range(len(norms))), y=norms, name=names[name], legendgroup=name, showlegend=col == 1,
                line={"color": COLORS.get(name), "width": 2.5 if name == "gelu" else 2}, mode="lines+markers", marker={"size": 4}, row=1, col=col,
            )
        fig.update_xaxes(title=labels["layer"], row=1, col=col)
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_yaxes(title=labels["ratio"], col=1)
    fig.update_layout(hovermode="closest")
    return styled(fig, None, height=400)
