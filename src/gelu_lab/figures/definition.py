"""Definition page: the gate Phi(x) as an area, and the Bernoulli-mask reading."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import COLORS, NEUTRAL, styled

# trace order of gate_figure, used by the clientside callback that moves x
SHADE, MARK_IN, MARK_OUT = 1, 4, 5


def gate_figure(grid, density, gelu, x: float, phi_x: float, gelu_x: float, labels: dict) -> go.Figure:
    """Left: N(0,1) density, area left of x shaded and labelled Phi(x). Right: input x vs output x Phi(x).

    labels: density_title, output_title, density, area, input, output, identity, x, y.
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=(labels["density_title"], labels["output_title"]), horizontal_spacing=0.1)
    shade_x = [g for g in grid if g <= x]
    shade_y = list(density[: len(shade_x)])
    fig.add_scatter(x=grid, y=density, name=labels["density"], line={"color": NEUTRAL}, row=1, col=1)
    fig.add_scatter(
        x=shade_x, y=shade_y, name=labels["area"], fill="tozeroy", line={"color": COLORS["gelu"], "width": 0},
        fillcolor="rgba(214,39,40,0.35)", row=1, col=1,
    )
    fig.add_scatter(x=grid, y=grid, name=labels["identity"], line={"color": NEUTRAL, "dash": "dot", "width": 1}, row=1, col=2)
    fig.add_scatter(x=grid, y=gelu, name=labels["output"], line={"color": COLORS["gelu"], "width": 2.5}, row=1, col=2)
    fig.add_scatter(x=[x], y=[x], name=labels["input"], mode="markers", marker={"size": 11, "color": NEUTRAL, "symbol": "circle-open"}, row=1, col=2)
    fig.add_scatter(x=[x], y=[gelu_x], name=labels["output"], mode="markers", marker={"size": 11, "color": COLORS["gelu"]}, row=1, col=2, showlegend=False)
    fig.add_annotation(
        x=x, y=0.42, text=f"Φ({x:.2f}) = {phi_x:.4f}", showarrow=False, xanchor="right", font={"color": COLORS["gelu"]}, row=1, col=1
    )
    fig.update_xaxes(title=labels["x"])
    fig.update_yaxes(range=[0, 0.45], row=1, col=1)
    fig.update_yaxes(title=labels["y"], row=1, col=2)
    fig.update_layout(hovermode="closest")
    fig = styled(fig, None, height=400)
    return fig.update_layout(legend={"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"}, margin={"b": 90, "t": 40})


def bernoulli_figure(n, gelu_running, dropout_running, relu_running, gelu: float, dropout: float, relu: float, labels: dict) -> go.Figure:
    """Running means of x*m for three masks against n, with their expectations as dashed lines.

    labels: title, gelu, dropout, relu, expect, n, mean.
    """
    fig = go.Figure()
    for key, run, limit, color in (
        ("gelu", gelu_running, gelu, COLORS["gelu"]),
        ("dropout", dropout_running, dropout, COLORS["silu"]),
        ("relu", relu_running, relu, COLORS["relu"]),
    ):
        fig.add_scatter(x=n, y=run, name=labels[key], line={"color": color})
        fig.add_scatter(
            x=[n[0], n[-1]], y=[limit, limit], name=f"{labels['expect']} = {limit:.4f}", mode="lines",
            line={"color": color, "dash": "dash", "width": 1}, hoverinfo="skip", showlegend=False,
        )
    fig.update_xaxes(title=labels["n"], type="log")
    fig.update_yaxes(title=labels["mean"])
    return styled(fig, labels["title"], height=380)
