"""Transformer FFN page: the live block, training curves with seed bands, the init sweep, ours beside the paper.

Built from trace dicts by :func:`gelu_lab.figures.figure` (one constructor call,
validation off): the training-result callback draws four of these figures at once.
"""

from __future__ import annotations

import plotly.graph_objects as go

from . import COLORS, NEUTRAL, axis, figure, palette, side_by_side


def block_figure(centers, density, xs, act_y, labels: dict, color: str = COLORS["gelu"]) -> go.Figure:
    """Histogram (bin centers, density) of the hidden pre-activations, under the activation curve act(xs).

    labels: title, hist, act, x, density, y.
    """
    width = float(centers[1] - centers[0]) if len(centers) > 1 else 1.0
    traces = [
        {"type": "bar", "x": centers, "y": density, "width": width, "name": labels["hist"], "marker": {"color": palette.fill(NEUTRAL, 0.45)}},
        {"type": "scatter", "x": xs, "y": act_y, "name": labels["act"], "line": {"color": color, "width": 2.5}, "yaxis": "y2"},
    ]
    return figure(traces, labels["title"], height=360, hovermode="closest", bargap=0,
                  xaxis=axis(labels["x"], range=[float(xs[0]), float(xs[-1])]), yaxis=axis(labels["density"]),
                  yaxis2=axis(labels["y"], overlaying="y", side="right", showgrid=False),
                  margin={"l": 55, "r": 55, "t": 50, "b": 45})


def hist_figure(centers, density, labels: dict) -> go.Figure:
    """A histogram (bin centers, density) with a dashed line at 0: which side its values fall on. labels: title, x, density."""
    width = float(centers[1] - centers[0]) if len(centers) > 1 else 1.0
    bars = {"type": "bar", "x": centers, "y": density, "width": width, "name": labels["title"], "showlegend": False,
            "marker": {"color": palette.fill(NEUTRAL, 0.6)}}
    zero = {"type": "line", "xref": "x", "x0": 0, "x1": 0, "yref": "y domain", "y0": 0, "y1": 1, "line": {"color": COLORS["gelu"], "dash": "dash"}}
    return figure([bars], labels["title"], height=300, hovermode="closest", bargap=0, shapes=[zero],
                  xaxis=axis(labels["x"]), yaxis=axis(labels["density"]))


def _band_traces(b: dict, name: str, act: str, showlegend=True, group=None, axes: dict | None = None) -> list[dict]:
    axes, color = axes or {}, palette.color(act)
    out = []
    if b["n"] > 1:  # min..max over seeds as a filled band
        out.append({"type": "scatter", "x": b["step"] + b["step"][::-1], "y": b["hi"] + b["lo"][::-1], "fill": "toself",
                    "line": {"width": 0}, "fillcolor": palette.fill(color, 0.18), "hoverinfo": "skip", "showlegend": False,
                    "legendgroup": group or name, **axes})
    out.append({"type": "scatter", "x": b["step"], "y": b["mean"], "name": f"{name} (n={b['n']})" if showlegend else name,
                "line": palette.line(act, width=2), "showlegend": showlegend, "legendgroup": group or name, **axes})
    return out


def _fits_legend(height: int, entries: int) -> int:
    """A figure's height, grown so that its legend (one line per entry, right of the plot) fits."""
    return max(height, 130 + 24 * entries)


def band_figure(bands: dict, names: dict, labels: dict, log_y: bool = False, height: int = 360) -> go.Figure:
    """One line per activation (mean over seeds) with a min..max band. labels: title, x, y."""
    traces = [tr for act, b in bands.items() for tr in _band_traces(b, names.get(act, act), act)]
    return figure(traces, labels["title"], height=_fits_legend(height, len(bands)), xaxis=axis(labels["x"]),
                  yaxis=axis(labels["y"], type="log" if log_y else "linear"))


def layers_figure(per_layer: list[dict], names: dict, labels: dict, log_y: bool = True) -> go.Figure:
    """band_figure with one panel per layer (shared y). labels: title, x, y, layer ("layer {i}")."""
    n = max(1, len(per_layer))
    layout = side_by_side([labels["layer"].replace("{i}", str(i)) for i in range(n)], gap=0.04, share_y=True)
    traces = []
    for i, bands in enumerate(per_layer):
        k = "" if i == 0 else str(i + 1)
        for act, b in bands.items():
            traces += _band_traces(b, names.get(act, act), act, showlegend=i == 0, group=act,
                                   axes={"xaxis": f"x{k}", "yaxis": f"y{k}"})
    for i in range(n):
        k = "" if i == 0 else str(i + 1)
        layout[f"xaxis{k}"] = {**layout[f"xaxis{k}"], **axis(labels["x"])}
        layout[f"yaxis{k}"] = {**layout[f"yaxis{k}"], **(axis(labels["y"]) if i == 0 else {}), "type": "log" if log_y else "linear"}
    return figure(traces, labels["title"], height=_fits_legend(340, max((len(b) for b in per_layer), default=0)), **layout)


def gap_figure(bands: dict, ref: str, names: dict, labels: dict) -> go.Figure:
    """Mean val loss minus the reference activation's at each step: below 0 = ahead of it."""
    r = dict(zip(bands[ref]["step"], bands[ref]["mean"])) if ref in bands else {}
    traces = []
    for act, b in bands.items():
        if act == ref:
            continue
        pts = [(s, m - r[s]) for s, m in zip(b["step"], b["mean"]) if s in r]
        traces.append({"type": "scatter", "x": [p[0] for p in pts], "y": [p[1] for p in pts], "name": names.get(act, act),
                       "line": palette.line(act, width=2)})
    zero = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 0, "y1": 0,
            "line": {"color": COLORS.get(ref, NEUTRAL), "dash": "dash"}}
    # differences: tick labels as long as the gaps are small
    return figure(traces, labels["title"], height=320, xaxis=axis(labels["x"]), yaxis=axis(labels["y"], automargin=True), shapes=[zero])


def lr_figure(sweep: dict, chosen: dict, names: dict, labels: dict) -> go.Figure:
    """Final val loss of seed 0 against the learning rate, per activation, the chosen rate ringed.

    sweep: {act: {rate: loss}}, chosen: {act: rate} (gelu_lab.nn.runs.experiments). labels: title, x, y, chosen.
    """
    traces, rates = [], sorted({r for v in sweep.values() for r in v})
    for act, per in sweep.items():
        xs = sorted(per)
        color = COLORS.get(act, NEUTRAL)
        traces.append({"type": "scatter", "x": xs, "y": [per[x] for x in xs], "name": names.get(act, act), "mode": "lines+markers",
                       "legendgroup": act, "line": palette.line(act, width=2)})
        if act in chosen and chosen[act] in per:
            traces.append({"type": "scatter", "x": [chosen[act]], "y": [per[chosen[act]]], "mode": "markers", "legendgroup": act,
                           "showlegend": False, "hovertemplate": labels["chosen"] + "<extra></extra>",
                           "marker": {"size": 16, "color": palette.fill(color, 0), "line": {"color": color, "width": 2}}})
    return figure(traces, labels["title"], height=360, hovermode="closest",
                  xaxis=axis(labels["x"], type="log", tickvals=rates, ticktext=[f"{r:g}" for r in rates]), yaxis=axis(labels["y"]))


def trend_figure(points: list[dict], labels: dict) -> go.Figure:
    """The paired gap (mean and its 95 % interval) against model width, one line per init scale.

    points: [{"series", "width", "mean", "lo", "hi", "n"}]; labels: title, x, y, zero. Below 0: the
    first activation of the pair has the lower loss.
    """
    traces, widths = [], sorted({p["width"] for p in points})
    colors = (COLORS["gelu"], NEUTRAL)
    for i, name in enumerate(dict.fromkeys(p["series"] for p in points)):
        pts = sorted((p for p in points if p["series"] == name), key=lambda p: p["width"])
        hi = [p["hi"] - p["mean"] if p["hi"] == p["hi"] else 0.0 for p in pts]
        lo = [p["mean"] - p["lo"] if p["lo"] == p["lo"] else 0.0 for p in pts]
        traces.append({"type": "scatter", "x": [p["width"] for p in pts], "y": [p["mean"] for p in pts], "name": name,
                       "mode": "lines+markers", "customdata": [p["n"] for p in pts],
                       "hovertemplate": "d = %{x}: %{y:.4f} (n = %{customdata})<extra>" + name + "</extra>",
                       "error_y": {"type": "data", "symmetric": False, "array": hi, "arrayminus": lo, "visible": True},
                       "line": {"color": colors[i % 2], "width": 2, "dash": ("solid", "dash")[i % 2]}, "marker": {"symbol": ("circle", "square")[i % 2], "size": 9}})
    zero = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 0, "y1": 0, "line": {"color": NEUTRAL, "dash": "dot"}}
    return figure(traces, labels["title"], height=360, hovermode="closest", shapes=[zero],
                  xaxis=axis(labels["x"], type="log", tickvals=widths, ticktext=[str(w) for w in widths]), yaxis=axis(labels["y"], automargin=True))


def paper_figure(rows: list[dict], labels: dict) -> go.Figure:
    """Each FFN variant's gap to GELU, ours above the paper's: two panels, the variants down each (a phone has
    the width of one panel), in the same order.

    rows: [{"act", "name", "ours": {"mean", "lo", "hi"} | None, "paper": (gap at the first step count, at the second)}],
    in the order to draw; labels: title, x_ours, x_paper (each panel's axis says whose numbers it holds), short,
    long (the paper's step counts). Left of 0: lower loss than GELU.
    """
    names = [r["name"] for r in rows]
    mine = [r for r in rows if r["ours"] is not None]
    traces = [{"type": "scatter", "y": [r["name"] for r in mine], "x": [r["ours"]["mean"] for r in mine], "mode": "markers",
               "name": labels["x_ours"], "showlegend": False, "hovertemplate": "%{y}: %{x:+.4f}<extra></extra>",
               "marker": {"size": 11, "color": [palette.color(r["act"]) for r in mine], "line": {"color": NEUTRAL, "width": 1}},
               "error_x": {"type": "data", "symmetric": False, "visible": True, "color": NEUTRAL,
                           "array": [r["ours"]["hi"] - r["ours"]["mean"] if r["ours"]["hi"] == r["ours"]["hi"] else 0.0 for r in mine],
                           "arrayminus": [r["ours"]["mean"] - r["ours"]["lo"] if r["ours"]["lo"] == r["ours"]["lo"] else 0.0 for r in mine]}}]
    for i, (key, symbol) in enumerate((("short", "circle"), ("long", "diamond-open"))):
        traces.append({"type": "scatter", "y": names, "x": [r["paper"][i] for r in rows], "mode": "markers", "name": labels[key],
                       "xaxis": "x2", "yaxis": "y2", "hovertemplate": "%{y}: %{x:+.3f}<extra>" + labels[key] + "</extra>",
                       "marker": {"size": 11, "symbol": symbol, "color": [palette.color(r["act"]) for r in rows], "line": {"color": NEUTRAL, "width": 1.5}}})
    zero = [{"type": "line", "yref": f"y{k} domain", "y0": 0, "y1": 1, "xref": f"x{k}", "x0": 0, "x1": 0, "line": {"color": COLORS["gelu"], "dash": "dash"}}
            for k in ("", "2")]
    cats = {"categoryorder": "array", "categoryarray": names[::-1], "automargin": True}
    # the legend (the paper's two step counts) in a bottom margin of its own, under the lower panel's axis title
    return figure(traces, labels["title"], height=640, hovermode="closest", shapes=zero, margin={"l": 55, "r": 15, "t": 50, "b": 110},
                  legend={"orientation": "h", "y": -0.16, "yanchor": "top"},
                  yaxis={**axis(""), **cats, "domain": [0.58, 1.0], "anchor": "x"}, xaxis={**axis(labels["x_ours"], automargin=True), "anchor": "y"},
                  yaxis2={**axis(""), **cats, "domain": [0.0, 0.42], "anchor": "x2"}, xaxis2={**axis(labels["x_paper"], automargin=True), "anchor": "y2"})
