"""Definition page: the gate Phi(x) as an area, and the Bernoulli-mask reading."""

from __future__ import annotations

import plotly.graph_objects as go

from . import COLORS, NEUTRAL, TEXT, axis, figure, palette, side_by_side, span

# trace order of gate_figure, used by the clientside callback that moves x
SHADE, MARK_IN, MARK_OUT, LABEL = 1, 4, 5, 6
LABEL_Y = 0.46  # height of the Phi(x) label in the density plot: its two lines above the peak (0.399; the y range is [0, 0.5])


def phi_label(x: float, phi_x: float) -> str:
    """The Phi(x) label of the density plot; the page ships it per grid point, so a moved label reads the same.
    Two short lines: on a phone the density plot is about 100 px wide."""
    return f"Φ({x:.2f})<br>= {phi_x:.4f}"


def label_side(x: float) -> str:
    """Where the Phi(x) label stands beside x: towards the middle of the plot, never out of it."""
    return "middle right" if x < 0 else "middle left"


def gate_figure(grid, density, gelu, x: float, phi_x: float, gelu_x: float, labels: dict) -> go.Figure:
    """Left: N(0,1) density, area left of x shaded and labelled Phi(x). Right: input x vs output x Phi(x).

    labels: density_title, output_title, density, area, input, output, identity, x, y.
    The page moves x in place (traces SHADE, MARK_IN, MARK_OUT and the Phi(x) label
    LABEL, a text trace), so every axis range is fixed.
    """
    n = sum(1 for g in grid if g <= x)
    right = {"xaxis": "x2", "yaxis": "y2"}
    traces = [
        {"type": "scatter", "x": grid, "y": density, "name": labels["density"], "line": {"color": NEUTRAL}},
        {"type": "scatter", "x": grid[:n], "y": density[:n], "name": labels["area"], "fill": "tozeroy",
         "line": {"color": COLORS["gelu"], "width": 0}, "fillcolor": palette.fill(COLORS["gelu"], 0.35)},
        {"type": "scatter", "x": grid, "y": grid, "name": labels["identity"], "line": {"color": NEUTRAL, "dash": "dot", "width": 1}, **right},
        {"type": "scatter", "x": grid, "y": gelu, "name": labels["output"], "line": {"color": COLORS["gelu"], "width": 2.5}, **right},
        {"type": "scatter", "x": [x], "y": [x], "name": labels["input"], "mode": "markers",
         "marker": {"size": 11, "color": NEUTRAL, "symbol": "circle-open"}, **right},
        {"type": "scatter", "x": [x], "y": [gelu_x], "name": labels["output"], "mode": "markers",
         "marker": {"size": 11, "color": COLORS["gelu"]}, "showlegend": False, **right},
        {"type": "scatter", "x": [x], "y": [LABEL_Y], "text": [phi_label(x, phi_x)], "mode": "text", "textposition": label_side(x),
         "textfont": {"color": TEXT}, "showlegend": False, "hoverinfo": "skip"},
    ]
    lay = side_by_side([labels["density_title"], labels["output_title"]], gap=0.1)
    xr = [float(grid[0]), float(grid[-1])]
    lay["xaxis"].update(axis(labels["x"], range=xr))
    lay["xaxis2"].update(axis(labels["x"], range=xr))
    lay["yaxis"].update(range=[0, 0.5])
    lay["yaxis2"].update(axis(labels["y"], range=span(grid, gelu)))
    return figure(
        traces, None, height=400, hovermode="closest", margin={"l": 55, "r": 15, "t": 40, "b": 90},
        legend={"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top", "font": {"size": 12}}, **lay,
    )


def bernoulli_figure(n, gelu_running, dropout_running, relu_running, gelu: float, dropout: float, relu: float, labels: dict) -> go.Figure:
    """Running means of x*m for three masks against n, with their expectations as dashed lines.

    labels: title, gelu, dropout, relu, expect, n, mean.
    """
    traces = []
    for key, run, limit, color in (
        ("gelu", gelu_running, gelu, COLORS["gelu"]),
        ("dropout", dropout_running, dropout, palette.SKY_BLUE),
        ("relu", relu_running, relu, COLORS["relu"]),
    ):
        traces.append({"type": "scatter", "x": n, "y": run, "name": labels[key], "line": {"color": color}})
        traces.append(
            {"type": "scatter", "x": [n[0], n[-1]], "y": [limit, limit], "name": f"{labels['expect']} = {limit:.4f}", "mode": "lines",
             "line": {"color": color, "dash": "dash", "width": 1}, "hoverinfo": "skip", "showlegend": False}
        )
    return figure(traces, labels["title"], height=380, xaxis=axis(labels["n"], type="log"), yaxis=axis(labels["mean"]))
