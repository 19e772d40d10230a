"""Gradients page: derivatives with their key points, and gradient flow through depth."""

from __future__ import annotations

import plotly.graph_objects as go

from . import NEUTRAL, axis, figure, palette, side_by_side


def derivatives_figure(x, curves: dict, names: dict, points: list, labels: dict) -> go.Figure:
    """Derivative curves (curves = {key: y}, colours by the activation name before '.'),
    and key points as markers: points = [(x, y, text)]. labels: title, x, y, points.
    """
    traces = []
    for key, y in curves.items():
        name = key.split(".")[0]
        # here the dash tells GELU'' from GELU' (the colour tells the activation)
        line = palette.line(name, dash="dash" if key.endswith(".grad2") else "solid")
        traces.append({"type": "scatter", "x": x, "y": y, "name": names[key], "line": line})
    traces.append(
        {"type": "scatter", "x": [p[0] for p in points], "y": [p[1] for p in points], "text": [p[2] for p in points], "mode": "markers+text",
         "textposition": "top center", "marker": {"size": 9, "color": NEUTRAL, "symbol": "x"}, "name": labels["points"], "textfont": {"size": 11}}
    )
    return figure(traces, labels["title"], height=440, hovermode="closest", xaxis=axis(labels["x"]), yaxis=axis(labels["y"], range=[-0.6, 1.4]))


def flow_figure(flows: dict, names: dict, labels: dict) -> go.Figure:
    """Per-layer gradient RMS relative to the output, log y; flows = {arch: {name: norms (len L+1)}}.

    labels: mlp, preln, layer, ratio.
    """
    archs = list(flows)
    lay = side_by_side([labels[a] for a in archs], gap=0.05, share_y=True)
    traces = []
    for i, arch in enumerate(archs):
        k = "" if i == 0 else str(i + 1)
        lay[f"xaxis{k}"].update(axis(labels["layer"]))
        lay[f"yaxis{k}"].update(type="log", exponentformat="power")
        for name, norms in flows[arch].items():
            traces.append(
                {"type": "scatter", "x": list(range(len(norms))), "y": norms, "name": names[name], "legendgroup": name, "showlegend": i == 0,
                 "line": palette.line(name), "mode": "lines+markers", "marker": {"size": 4},
                 "xaxis": f"x{k}", "yaxis": f"y{k}"}
            )
    lay["yaxis"].update(axis(labels["ratio"]))
    return figure(traces, None, height=400, left=72, hovermode="closest", **lay)  # powers of ten as ticks
