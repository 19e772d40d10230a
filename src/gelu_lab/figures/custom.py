"""Your own activation against GELU: the curves and the derivatives, side by side."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import COLORS, NEUTRAL, axis, figure, side_by_side


def _finite(y):
    """inf/nan as gaps (None): Plotly cannot draw them."""
    y = np.asarray(y, dtype=np.float64)
    return np.where(np.isfinite(y), y, None)


def _range(ref, own) -> list[float]:
    """GELU's range, widened to the formula's but by at most 5x its span: a formula
    that explodes (exp(10x)) must not flatten GELU into a line."""
    ref = np.asarray(ref, dtype=np.float64)
    lo, hi = float(np.min(ref)), float(np.max(ref))
    own = np.asarray(own, dtype=np.float64)
    own = own[np.isfinite(own)]
    if own.size:
        span = 5 * (hi - lo) + 1.0
        lo, hi = max(min(lo, float(own.min())), lo - span), min(max(hi, float(own.max())), hi + span)
    pad = 0.08 * (hi - lo) + 1e-3
    return [lo - pad, hi + pad]


def custom_figure(x, y, dy, gelu, gelu_grad, labels: dict) -> go.Figure:
    """Left: f(x) and GELU(x); right: f'(x) and GELU'(x) (inf/nan left as gaps).

    labels: f, gelu, df, dgelu (legend names), curve, derivative (panel titles), x.
    """
    gel = {"color": COLORS["gelu"], "width": 2.5}
    own = {"color": NEUTRAL, "width": 2, "dash": "dash"}
    traces = []
    for col, (ref, mine, rname, mname) in enumerate([(gelu, y, "gelu", "f"), (gelu_grad, dy, "dgelu", "df")], start=1):
        axes = {"xaxis": "x" if col == 1 else "x2", "yaxis": "y" if col == 1 else "y2"}
        traces.append({"type": "scatter", "x": x, "y": ref, "name": labels[rname], "line": gel, "legendgroup": "gelu", "showlegend": col == 1, **axes})
        traces.append({"type": "scatter", "x": x, "y": _finite(mine), "name": labels[mname], "line": own, "legendgroup": "f", "showlegend": col == 1, **axes})
    layout = side_by_side([labels["curve"], labels["derivative"]], gap=0.08)
    layout["xaxis"].update(axis(labels["x"]))
    layout["xaxis2"].update(axis(labels["x"]))
    layout["yaxis"]["range"] = _range(gelu, y)
    layout["yaxis2"]["range"] = _range(gelu_grad, dy)
    return figure(traces, None, height=400, hovermode="x", legend={"orientation": "h", "x": 0, "y": -0.22}, **layout)
