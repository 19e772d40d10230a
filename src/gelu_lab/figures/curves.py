"""Activation curves on one chart (Overview)."""

from __future__ import annotations

import plotly.graph_objects as go

from . import COLORS, axis, figure


def activation_curves(x, curves: dict, names: dict, xlabel: str, ylabel: str, title=None, shown=None, yrange=None) -> go.Figure:
    """One line per activation: curves = {name: y}, names = {name: legend label}; trace.meta = name.

    shown: the names drawn (default all); the others stay in the legend, one click away.
    """
    traces = [
        {
            "type": "scatter", "x": x, "y": y, "name": names[key], "meta": key,
            "visible": True if shown is None or key in shown else "legendonly",
            "line": {"color": COLORS.get(key), "dash": "dash" if key in ("gelu_tanh", "gelu_sigmoid") else None, "width": 2.5 if key == "gelu" else 2},
        }
        for key, y in curves.items()
    ]
    return figure(traces, title, height=430, xaxis=axis(xlabel, range=[x[0], x[-1]]), yaxis=axis(ylabel, range=yrange))
