"""Python demo page: the rows of the comparison table (`gelu-lab table`) as a chart."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from . import COLORS, axis, figure, stacked

VALUES = ("gelu", "gelu_tanh", "gelu_sigmoid", "relu")
ERRORS = (("tanh_abs_err", "gelu_tanh"), ("sigmoid_abs_err", "gelu_sigmoid"))


def _finite_or_none(v, positive=False):
    # plotly draws None as a gap: inf/nan (a float16 overflow) and, on a log axis, exact zeros
    ok = math.isfinite(v) and (v > 0 if positive else True)
    return v if ok else None


def table_figure(rows: list[dict], labels: dict) -> go.Figure:
    """Top: the four activations at each x of the table; bottom: the two absolute
    errors on a log axis (a zero error, where the approximation is exact in the
    dtype, leaves a gap). rows: comparison_table rows; labels: title, x, y, err and
    one legend name per column of VALUES and ERRORS."""
    rows = sorted(rows, key=lambda r: r["x"])
    xs = [_finite_or_none(r["x"]) for r in rows]
    traces = [
        {"type": "scatter", "mode": "lines+markers", "x": xs, "y": [_finite_or_none(r[c]) for r in rows], "name": labels[c],
         "line": {"color": COLORS[c], "width": 2, "dash": "dot" if c == "relu" else None}, "marker": {"size": 6}}
        for c in VALUES
    ]
    traces += [
        {"type": "scatter", "mode": "markers", "x": xs, "y": [_finite_or_none(r[c], positive=True) for r in rows], "name": labels[c],
         "marker": {"color": COLORS[color], "size": 8, "symbol": "x"}, "xaxis": "x2", "yaxis": "y2"}
        for c, color in ERRORS
    ]
    lay = stacked((0.6, 0.3), gap=0.1)
    lay["yaxis"].update(axis(labels["y"]))
    lay["yaxis2"].update(axis(labels["err"], type="log", exponentformat="power"))
    lay["xaxis2"].update(axis(labels["x"]))
    return figure(traces, labels["title"], height=460, hovermode="closest", **lay)
