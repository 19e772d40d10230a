"""Real BERT page: pre-activation histograms per layer, embedding drift per swap, one sentence's pre-activations."""

from __future__ import annotations

import plotly.graph_objects as go

from . import COLORS, NEUTRAL, axis, figure, palette

LAYER_COLORS = palette.LINES  # six layers, six colours apart under CVD, cool (first) to warm (last)


def _grid(n: int, cols: int, titles, gap_x=0.06, gap_y=0.16) -> dict:
    """Layout keys of an n-panel grid (rows x cols), each panel titled."""
    rows = -(-n // cols)
    w, h = (1 - gap_x * (cols - 1)) / cols, (1 - gap_y * (rows - 1)) / rows
    out, notes = {}, []
    for i, text in enumerate(titles):
        r, c = divmod(i, cols)
        k = "" if i == 0 else str(i + 1)
        x0, y1 = c * (w + gap_x), 1 - r * (h + gap_y)
        out[f"xaxis{k}"] = {"domain": [x0, x0 + w], "anchor": f"y{k}", **({"matches": "x"} if i else {})}
        out[f"yaxis{k}"] = {"domain": [y1 - h, y1], "anchor": f"x{k}"}
        notes.append({"text": text, "x": x0 + w / 2, "y": y1, "xref": "paper", "yref": "paper", "xanchor": "center",
                      "yanchor": "bottom", "showarrow": False, "font": {"size": 13}})
    out["annotations"] = notes
    return out


def histogram_figure(panels: list[dict], labels: dict) -> go.Figure:
    """Per layer: the pre-activation density (bars) against N(0, 1) and the fitted normal (lines).

    panels[i]: centers, density (bars), x, std_pdf, fit_pdf (curves on x), title.
    labels: title, data, std, fit, x, y.
    """
    traces = []
    for i, p in enumerate(panels):
        k = "" if i == 0 else str(i + 1)
        ref = {"xaxis": f"x{k}", "yaxis": f"y{k}", "showlegend": i == 0}
        traces += [
            {"type": "bar", "x": p["centers"], "y": p["density"], "name": labels["data"], "marker": {"color": palette.fill(palette.SKY_BLUE, 0.5), "line": {"width": 0}},
             **ref, "legendgroup": "data"},
            {"type": "scatter", "x": p["x"], "y": p["std_pdf"], "name": labels["std"], "mode": "lines",
             "line": {"color": NEUTRAL, "width": 1.6, "dash": "dash"}, **ref, "legendgroup": "std"},
            {"type": "scatter", "x": p["x"], "y": p["fit_pdf"], "name": labels["fit"], "mode": "lines",
             "line": {"color": COLORS["gelu"], "width": 1.8}, **ref, "legendgroup": "fit"},
        ]
    lay = _grid(len(panels), 3, [p["title"] for p in panels])
    for i in range(len(panels)):
        k = "" if i == 0 else str(i + 1)
        lay[f"xaxis{k}"].update(range=[-6, 4], **(axis(labels["x"]) if i >= 3 else {}))
        if i % 3 == 0:
            lay[f"yaxis{k}"].update(axis(labels["y"]))
    return figure(traces, labels["title"], height=560, bargap=0, hovermode="closest",
                  legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.1, "yanchor": "bottom", "font": {"size": 12}}, **lay)


def drift_figure(series: dict, together: dict, names: dict, labels: dict) -> go.Figure:
    """Embedding drift per activation: one layer swapped at a time (lines), all layers at once (markers).

    series[act] = (xs, ys): xs layer labels ("1".."6"), ys = 1 - agreement;
    together[act] = 1 - agreement with every layer swapped, drawn at x = labels["all"]
    (log axis: the tanh form sits near 1e-7, ReLU near 0.5). names[act]: legend name.
    labels: title, x, y, all.
    """
    traces = []
    for a in dict.fromkeys([*series, *together]):
        color = COLORS.get(a, NEUTRAL)
        if a in series:
            xs, ys = series[a]
            traces.append({"type": "scatter", "x": xs, "y": ys, "name": names[a], "legendgroup": a, "mode": "lines+markers",
                           "line": palette.line(a, width=2), "marker": {"size": 8}})
        if a in together:
            traces.append({"type": "scatter", "x": [labels["all"]], "y": [together[a]], "name": names[a], "legendgroup": a,
                           "showlegend": a not in series, "mode": "markers", "marker": {"color": color, "size": 12, "symbol": "diamond"}})
    return figure(traces, labels["title"], height=380, hovermode="closest",
                  xaxis={**axis(labels["x"]), "type": "category"}, yaxis=axis(labels["y"], type="log", exponentformat="power"))


def sentence_figure(curves: list[dict], labels: dict) -> go.Figure:
    """One sentence's pre-activations: a density curve per layer. curves[i]: x, density, name. labels: title, x, y."""
    traces = [
        {"type": "scatter", "x": c["x"], "y": c["density"], "name": c["name"], "mode": "lines",
         "line": {"color": LAYER_COLORS[i % len(LAYER_COLORS)], "width": 1.8}}
        for i, c in enumerate(curves)
    ]
    shapes = [{"type": "line", "x0": 0, "x1": 0, "y0": 0, "y1": 1, "yref": "paper", "line": {"color": NEUTRAL, "width": 1, "dash": "dot"}}]
    return figure(traces, labels["title"], height=340, hovermode="closest", shapes=shapes,
                  xaxis={**axis(labels["x"]), "range": [-6, 4]}, yaxis=axis(labels["y"]))


def damage_figure(rows: list[dict], names: dict, labels: dict) -> go.Figure:
    """What a swap costs the model against how far the swapped curve is from GELU, both on log
    axes: per activation (rows from analysis.swaps.damage) one point for 1 − mean cosine and
    one for the share of nearest neighbours lost (a share of 0 cannot sit on a log axis and
    is left out). names[act]: point label. labels: title, x, y, cos, nn."""
    traces = []
    for key, symbol in (("cos_gap", "circle"), ("nn_lost", "diamond")):
        pts = [r for r in rows if r[key] > 0]
        traces.append({"type": "scatter", "x": [r["max_dev"] for r in pts], "y": [r[key] for r in pts], "name": labels["cos" if key == "cos_gap" else "nn"],
                       "mode": "lines+markers+text" if key == "cos_gap" else "lines+markers", "text": [names[r["activation"]] for r in pts],
                       # the end points' labels lean inwards, so none is cut off at the plot's edge
                       "textposition": ["top right" if i == 0 else "top left" if i == len(pts) - 1 else "top center" for i in range(len(pts))],
                       "line": {"color": COLORS["gelu"] if key == "cos_gap" else NEUTRAL, "width": 1.5,
                                                             "dash": "solid" if key == "cos_gap" else "dot"},
                       "marker": {"size": 10, "symbol": symbol}})
    return figure(traces, labels["title"], height=380, left=72, hovermode="closest",
                  xaxis=axis(labels["x"], type="log", exponentformat="power"), yaxis=axis(labels["y"], type="log", exponentformat="power"))
