"""Interview questions page: line charts of the evidence behind two answers."""

from __future__ import annotations

import plotly.graph_objects as go

from . import axis, figure, palette

DASHES = (None, "dash", "dot", "dashdot")


def lines_figure(x, curves: dict, names: dict, labels: dict, log_y: bool = False) -> go.Figure:
    """One line per curve (curves = {key: y}, names = {key: legend label});
    labels: title, x, y. log_y: a logarithmic y axis (values must be > 0)."""
    traces = [
        {"type": "scatter", "x": x, "y": y, "name": names[key], "meta": key, "line": {"color": palette.LINES[i % len(palette.LINES)], "width": 2, "dash": DASHES[i % len(DASHES)]}}
        for i, (key, y) in enumerate(curves.items())
    ]
    yaxis = axis(labels["y"], type="log", exponentformat="power") if log_y else axis(labels["y"], automargin=True)  # errors: long tick labels
    return figure(traces, labels["title"], height=360, xaxis=axis(labels["x"], range=[x[0], x[-1]]), yaxis=yaxis)
