"""Implementation page: error curves of the forms, ULP error along x, throughput against the roofline."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from . import COLORS, NEUTRAL, axis, figure, palette

# one colour per implementation of the precision table, in the palette of the forms
IMPL_COLORS = {"gelu": COLORS["gelu"], "gelu_tanh": COLORS["gelu_tanh"], "torch:gelu": palette.BLUE, "torch:gelu_tanh": palette.SKY_BLUE}
FORM_COLORS = {"erf": COLORS["gelu"], "tanh": COLORS["gelu_tanh"], "sigmoid": COLORS["gelu_sigmoid"]}


def error_figure(x, curves: dict, maxima: dict, names: dict, labels: dict, log: bool = False, dashed=()) -> go.Figure:
    """Error curves of the forms against exact GELU, their located maxima as markers.

    curves = {key: y} (colour by the activation name before any '.'), maxima =
    {key: [(x, y)]}, names = {key: legend name}; keys in `dashed` are drawn dashed.
    log: logarithmic y (zeros leave gaps). labels: title, x, y, maxima.
    """
    traces = []
    for key, y in curves.items():
        color = COLORS.get(key.split(".")[0], NEUTRAL)
        traces.append({"type": "scatter", "x": x, "y": y, "name": names[key], "legendgroup": key,
                       "line": {"color": color, "width": 2, "dash": "dash" if key in dashed else None}})
    for key, pts in maxima.items():
        if not pts:
            continue
        color = COLORS.get(key.split(".")[0], NEUTRAL)
        traces.append({"type": "scatter", "x": [p[0] for p in pts], "y": [p[1] for p in pts], "mode": "markers",
                       "marker": {"size": 10, "symbol": "x", "color": color, "line": {"width": 1, "color": NEUTRAL}},
                       "name": f"{labels['maxima']} · {names[key]}", "legendgroup": key, "hovertemplate": "x = %{x:.6f}<br>%{y:.4e}<extra></extra>"})
    yaxis = axis(labels["y"], exponentformat="power", automargin=True)  # errors: tick labels as long as they are small
    if log:
        yaxis["type"] = "log"
    return figure(traces, labels["title"], height=400, hovermode="closest", xaxis=axis(labels["x"]), yaxis=yaxis)


def ulp_figure(points: dict, names: dict, labels: dict) -> go.Figure:
    """ULP error of each input, per implementation: points = {impl: (x, ulp)}.

    Only inputs with an error are drawn (log y axis); a correctly rounded
    implementation keeps its legend entry and draws nothing. labels: title, x, y.
    """
    traces = []
    for impl, (x, u) in points.items():
        traces.append({"type": "scatter", "x": x, "y": u, "name": names[impl], "mode": "markers",
                       "marker": {"size": 5, "color": IMPL_COLORS.get(impl, NEUTRAL), "opacity": 0.8},
                       "hovertemplate": "x = %{x:.6g}<br>%{y} ulp<extra>" + names[impl] + "</extra>"})
    return figure(traces, labels["title"], height=380, hovermode="closest", xaxis=axis(labels["x"]),
                  yaxis=axis(labels["y"], type="log", exponentformat="power"))


def cost_figure(bars: dict, roofline: float | None, backends: list, names: dict, labels: dict) -> go.Figure:
    """Throughput per backend, one bar per form: bars = {form: [Gelem/s per backend]}
    (None where not measured); roofline: np.copyto's Gelem/s, drawn as a line.
    names = {form: legend name}; labels: title, y, roofline."""
    traces = [{"type": "bar", "x": backends, "y": ys, "name": names[form], "marker": {"color": FORM_COLORS.get(form, NEUTRAL)},
               "hovertemplate": "%{x}: %{y:.3f} Gelem/s<extra>" + names[form] + "</extra>"} for form, ys in bars.items()]
    shapes, notes = [], []
    if roofline:
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": roofline, "y1": roofline, "line": {"color": NEUTRAL, "dash": "dash", "width": 1.5}})
        # on a log axis an annotation's y is log10 of the value (a shape's is the value itself)
        notes.append({"xref": "paper", "x": 1, "y": math.log10(roofline), "xanchor": "right", "yanchor": "bottom", "showarrow": False,
                      "text": f"{labels['roofline']}: {roofline:.2f}", "font": {"size": 12}})
    return figure(traces, labels["title"], height=380, hovermode="closest", barmode="group", shapes=shapes, annotations=notes,
                  yaxis=axis(labels["y"], type="log", exponentformat="power"), xaxis=axis(""))
