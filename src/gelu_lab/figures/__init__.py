"""Figures: pure functions from data to a ``plotly.graph_objects.Figure``.

No Dash, no I/O, no maths beyond arranging what they are given: the numbers
come from :mod:`gelu_lab.analysis` / :mod:`gelu_lab.activations`, the words
(titles, axis labels, legend names) are passed in by the caller in the
reader's language. The app, a static report and the tests call the same
functions. One module per topic; :func:`styled` gives every figure the same look.
"""

from __future__ import annotations

import plotly.graph_objects as go

# one colour per activation, the same on every page
COLORS = {
    "gelu": "#d62728",
    "gelu_tanh": "#ff7f0e",
    "gelu_sigmoid": "#bcbd22",
    "relu": "#1f77b4",
    "sigmoid": "#2ca02c",
    "silu": "#9467bd",
    "elu": "#8c564b",
    "softplus": "#e377c2",
    "mish": "#17becf",
    "leaky_relu": "#7f7f7f",
}
NEUTRAL = "#555555"
FONT = "system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'Microsoft YaHei', sans-serif"


_AXIS = {"gridcolor": "#e8ecf1", "zerolinecolor": "#c9d1d9", "linecolor": "#c9d1d9", "ticks": "", "automargin": True}
# a small layout-only template: plotly's named templates hold defaults for every trace
# type and cost ~0.1 s of validation per figure, too slow for a 40 ms callback budget
TEMPLATE = go.layout.Template(layout={"paper_bgcolor": "white", "plot_bgcolor": "white", "xaxis": _AXIS, "yaxis": _AXIS})


def styled(fig: go.Figure, title: str | None = None, height: int = 380) -> go.Figure:
    """The common look: white background, light grid, legend on the right, tight margins, hover on x."""
    fig.update_layout(
        template=TEMPLATE,
        title={"text": title, "x": 0.01, "font": {"size": 15}} if title else None,
        height=height,
        margin={"l": 55, "r": 15, "t": 50 if title else 30, "b": 45},
        font={"family": FONT, "size": 13},
        legend={"x": 1.01, "y": 1, "xanchor": "left", "font": {"size": 12}},
        hovermode="x unified",
    )
    return fig
