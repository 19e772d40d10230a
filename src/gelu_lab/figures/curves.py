"""Activation curves on one chart (Overview)."""

from __future__ import annotations

import plotly.graph_objects as go

from . import COLORS, styled


def activation_curves(x, curves: dict, names: dict, xlabel: str, ylabel: str, title: str | None = None) -> go.Figure:
    """One line per activation: curves = {name: y}, names = {name: legend label}."""
    fig = go.Figure()
    for key, y in curves.items():
        dash = "dash" if key in ("gelu_tanh", "gelu_sigmoid") else None
        fig.add_scatter(x=x, y=y, name=names[key], meta=key, line={"color": COLORS.get(key), "dash": dash, "width": 2.5 if key == "gelu" else 2})
    fig.update_xaxes(title=xlabel, zeroline=True)
    fig.update_yaxes(title=ylabel, zeroline=True)
    return styled(fig, title, height=430)
