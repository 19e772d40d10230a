"""Transformer FFN page: the live block, training curves with seed bands, the init sweep."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import COLORS, NEUTRAL, styled


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"


def block_figure(centers, density, xs, act_y, labels: dict, color: str = COLORS["gelu"]) -> go.Figure:
    """Histogram (bin centers, density) of the hidden pre-activations, under the activation curve act(xs).

    labels: title, hist, act, x, density, y.
    """
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    width = float(centers[1] - centers[0]) if len(centers) > 1 else 1.0
    fig.add_bar(x=centers, y=density, width=width, name=labels["hist"], marker={"color": _rgba(NEUTRAL, 0.45)}, secondary_y=False)
    fig.add_scatter(x=xs, y=act_y, name=labels["act"], line={"color": color, "width": 2.5}, secondary_y=True)
    fig.update_xaxes(title=labels["x"], range=[float(xs[0]), float(xs[-1])])
    fig.update_yaxes(title=labels["density"], secondary_y=False)
    fig.update_yaxes(title=labels["y"], secondary_y=True, showgrid=False)
    fig.update_layout(hovermode="closest", bargap=0)
    return styled(fig, labels["title"], height=360)


def _band_traces(fig, b: dict, name: str, color: str, row=None, col=None, showlegend=True, group=None):
    kw = {"row": row, "col": col} if row else {}
    if b["n"] > 1:  # min..max over seeds as a filled band
        fig.add_scatter(x=b["step"] + b["step"][::-1], y=b["hi"] + b["lo"][::-1], fill="toself", line={"width": 0},
                        fillcolor=_rgba(color, 0.18), hoverinfo="skip", showlegend=False, legendgroup=group or name, **kw)
    fig.add_scatter(x=b["step"], y=b["mean"], name=f"{name} (n={b['n']})" if showlegend else name, line={"color": color, "width": 2},
                    showlegend=showlegend, legendgroup=group or name, **kw)


def band_figure(bands: dict, names: dict, labels: dict, log_y: bool = False, height: int = 360) -> go.Figure:
    """One line per activation (mean over seeds) with a min..max band. labels: title, x, y."""
    fig = go.Figure()
    for act, b in bands.items():
        _band_traces(fig, b, names.get(act, act), COLORS.get(act, NEUTRAL))
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(title=labels["y"], type="log" if log_y else "linear")
    return styled(fig, labels["title"], height=height)


def layers_figure(per_layer: list[dict], names: dict, labels: dict, log_y: bool = True) -> go.Figure:
    """band_figure with one panel per layer (shared y). labels: title, x, y, layer ("layer {i}")."""
    n = max(1, len(per_layer))
    fig = make_subplots(rows=1, cols=n, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[labels["layer"].replace("{i}", str(i)) for i in range(n)])
    for i, bands in enumerate(per_layer):
        for act, b in bands.items():
            _band_traces(fig, b, names.get(act, act), COLORS.get(act, NEUTRAL), row=1, col=i + 1, showlegend=i == 0, group=act)
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(title=labels["y"], col=1)
    fig.update_yaxes(type="log" if log_y else "linear")
    return styled(fig, labels["title"], height=340)


def gap_figure(bands: dict, ref: str, names: dict, labels: dict) -> go.Figure:
    """Mean val loss minus the reference activation's at each step: below 0 = ahead of it."""
    fig = go.Figure()
    r = dict(zip(bands[ref]["step"], bands[ref]["mean"])) if ref in bands else {}
    for act, b in bands.items():
        if act == ref:
            continue
        pts = [(s, m - r[s]) for s, m in zip(b["step"], b["mean"]) if s in r]
        fig.add_scatter(x=[p[0] for p in pts], y=[p[1] for p in pts], name=names.get(act, act),
                        line={"color": COLORS.get(act, NEUTRAL), "width": 2})
    fig.add_hline(y=0, line={"color": COLORS.get(ref, NEUTRAL), "dash": "dash"})
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(title=labels["y"])
    return styled(fig, labels["title"], height=320)


def sweep_figure(sweep: dict, names: dict, labels: dict) -> go.Figure:
    """Final val loss (mean +- std over seeds) against the FFN pre-activation std at init.

    sweep: :func:`gelu_lab.nn.runs.sweep`. labels: title, x, y.
    """
    fig = go.Figure()
    x = sweep["pre_std"]
    for act, a in sweep["acts"].items():
        err = [s if s is not None and s == s else 0.0 for s in a["std"]]
        fig.add_scatter(x=x, y=a["mean"], name=names.get(act, act), mode="lines+markers",
                        error_y={"type": "data", "array": err, "visible": True},
                        line={"color": COLORS.get(act, NEUTRAL), "width": 2})
    fig.update_xaxes(title=labels["x"], type="log", tickvals=x, ticktext=[f"{v:.2g}" for v in x])
    fig.update_yaxes(title=labels["y"])
    fig.update_layout(hovermode="closest")
    return styled(fig, labels["title"], height=360)
