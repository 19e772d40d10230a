"""Misconceptions page: the small figure on each claim's card.

Pure: data and words in, a figure out (no claim ids, no computation). The shapes: curves
with marked points (values, the minimum, error curves against a threshold), bars against a
threshold (speed ratios, dead shares), a mean with its interval over steps, grouped bars on
a log axis, and a placeholder that says why there is nothing to draw yet. Which claim draws
what is its record's (gelu_lab.analysis.claims, .claim_figures); the page's view puts the
words in (app/pages/misconceptions/view.py).
"""

from __future__ import annotations

import textwrap

import plotly.graph_objects as go

from . import COLORS, NEUTRAL, axis, figure, palette

HEIGHT = 290


def _threshold(y: float, label: str) -> dict:
    return {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": y, "y1": y, "line": {"color": NEUTRAL, "dash": "dash", "width": 1.2},
            "label": {"text": label, "textposition": "end", "font": {"size": 11, "color": NEUTRAL}}}


def curves_figure(x, curves: list[tuple], labels: dict, points=(), threshold=None, log_x=False, log_y=False) -> go.Figure:
    """Lines on a shared x. curves: [(name, y, color key)]; points: [(x, y, text)]
    marked and labelled; threshold: (y, label) drawn as a dashed line.
    labels: title, x, y."""
    traces = [
        {"type": "scatter", "mode": "lines+markers" if len(x) < 20 else "lines", "x": x, "y": y, "name": name,
         "line": palette.line(color, width=2)}
        for name, y, color in curves
    ]
    if points:
        traces.append({"type": "scatter", "mode": "markers+text", "x": [p[0] for p in points], "y": [p[1] for p in points],
                       "text": [p[2] for p in points], "textposition": "top center", "showlegend": False,
                       "marker": {"color": NEUTRAL, "size": 8, "symbol": "x"}, "textfont": {"size": 11}})
    return figure(
        traces, labels["title"], hovermode="closest",
        xaxis=axis(labels["x"], type="log" if log_x else "linear"),
        yaxis=axis(labels["y"], type="log" if log_y else "linear", exponentformat="power", automargin=True),  # tick labels as wide as the data
        shapes=[_threshold(*threshold)] if threshold else [],
        # the legend under the x axis title, with the room it needs
        legend={"orientation": "h", "y": -0.36, "yanchor": "top", "x": 0, "font": {"size": 11}},
        margin={"l": 55, "r": 15, "t": 50, "b": 90}, height=HEIGHT + 30,
    )


def bars_figure(names: list[str], values: list[float], labels: dict, threshold=None, color: str = "gelu", **layout) -> go.Figure:
    """One bar a value, with an optional (y, label) threshold line. labels: title, y."""
    traces = [{"type": "bar", "x": names, "y": values, "marker": {"color": COLORS.get(color, NEUTRAL)},
               "text": [f"{v:.3g}" for v in values], "textposition": "outside", "showlegend": False}]
    return figure(traces, labels["title"], height=HEIGHT, hovermode="closest", yaxis=axis(labels["y"]),
                  shapes=[_threshold(*threshold)] if threshold else [], **layout)


def placeholder_figure(text: str) -> go.Figure:
    """An empty frame with a line of text: the evidence is not there yet (or still being computed)."""
    return figure([], None, height=HEIGHT, xaxis={"visible": False}, yaxis={"visible": False},
                  # an annotation does not wrap itself: lines of at most 60 characters
                  annotations=[{"text": "<br>".join(textwrap.wrap(text, 60)), "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False,
                                "font": {"size": 13, "color": NEUTRAL}}])


def band_figure(x, mean, lo, hi, labels: dict) -> go.Figure:
    """A mean over steps with its interval as a band, against a dashed 0. labels: title, x, y."""
    band = {"type": "scatter", "x": x + x[::-1], "y": hi + lo[::-1], "fill": "toself",
            "fillcolor": palette.fill(COLORS["gelu"], 0.15), "line": {"width": 0}, "hoverinfo": "skip", "showlegend": False}
    line = {"type": "scatter", "x": x, "y": mean, "mode": "lines+markers", "line": {"color": COLORS["gelu"], "width": 2},
            "showlegend": False, "hovertemplate": "%{x}: %{y:.4f}<extra></extra>"}
    return figure([band, line], labels["title"], height=HEIGHT, hovermode="closest", xaxis=axis(labels["x"]),
                  yaxis=axis(labels["y"]), shapes=[_threshold(0.0, "0")])


def grouped_bars_figure(groups: list[str], series: list[tuple], title: str, threshold=None) -> go.Figure:
    """Bars per group, one series a colour, on a log axis. series: [(name, values, color key)];
    threshold: (y, label) drawn as a dashed line."""
    traces = [{"type": "bar", "x": groups, "y": list(values), "name": name, "marker": {"color": COLORS.get(color, NEUTRAL)}}
              for name, values, color in series]
    return figure(traces, title, height=HEIGHT + 30, hovermode="closest", barmode="group",
                  yaxis=axis("", type="log", exponentformat="power"), shapes=[_threshold(*threshold)] if threshold else [],
                  legend={"orientation": "h", "y": -0.25, "yanchor": "top", "x": 0, "font": {"size": 11}}, margin={"l": 55, "r": 15, "t": 50, "b": 80})
