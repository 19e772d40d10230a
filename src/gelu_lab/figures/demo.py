"""Python demo page: the rows of the comparison table (`gelu-lab table`) as a chart, and
the seed demo's left tail against gelu_lab's."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from . import COLORS, NEUTRAL, axis, figure, palette, stacked

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
         "line": palette.line(c, width=2), "marker": {"size": 6}}
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


def tail_figure(curve: dict, zero_edge: float, rel_edge: float, tol: float, labels: dict) -> go.Figure:
    """The seed's 0.5 x (1 + erf(x/sqrt 2)) against gelu_lab in the left tail.

    Top: |GELU(x)| of both on a log axis (the seed's exact zeros, below zero_edge,
    leave a gap). Bottom: the seed's relative error on a log axis, with a dashed line
    at tol and at 1 (100 %), and dotted verticals at rel_edge and zero_edge.
    curve: demo_table.seed_tail_curve(); labels: title, x, y, err, seed, gelu_lab."""
    x = curve["x"]
    traces = [
        {"type": "scatter", "mode": "lines", "x": x, "y": [_finite_or_none(v, positive=True) for v in curve[c]], "name": labels[c],
         "line": {"color": color, "width": width, "dash": dash}}
        # gelu_lab broad underneath, the seed thin on top: where they agree both show, where the seed is 0 it stops
        for c, color, width, dash in (("gelu_lab", COLORS["gelu"], 5, None), ("seed", palette.BLUE, 2, "dot"))
    ]
    traces.append({"type": "scatter", "mode": "lines", "x": x, "y": [_finite_or_none(v, positive=True) for v in curve["rel"]],
                   "name": labels["err"], "line": {"color": NEUTRAL, "width": 1.5}, "xaxis": "x2", "yaxis": "y2"})
    lay = stacked((0.5, 0.4), gap=0.1)
    lay["yaxis"].update(axis(labels["y"], type="log", exponentformat="power"))
    lay["yaxis2"].update(axis(labels["err"], type="log", exponentformat="power"))
    lay["xaxis2"].update(axis(labels["x"]))
    hline = {"type": "line", "xref": "x2", "yref": "y2", "x0": min(x), "x1": max(x), "line": {"color": NEUTRAL, "width": 1, "dash": "dash"}}
    vline = {"type": "line", "xref": "x2", "yref": "paper", "y0": 0, "y1": 1, "line": {"color": palette.BLUE, "width": 1, "dash": "dot"}}  # the seed's edges, in the seed's colour
    shapes = [{**hline, "y0": v, "y1": v} for v in (tol, 1.0)] + [{**vline, "x0": v, "x1": v} for v in (rel_edge, zero_edge)]
    return figure(traces, labels["title"], height=480, hovermode="x unified", shapes=shapes, **lay)
