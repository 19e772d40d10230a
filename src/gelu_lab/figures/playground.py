"""Playground page: the loss of both networks, training and test, on one chart.

The page's script (app/assets/playground.js) fills in the points as the networks train
and renames and recolours the traces when the activations change; this is the empty
chart it starts from, in the reader's words.
"""

from __future__ import annotations

import plotly.graph_objects as go

from . import axis, figure
from .palette import NEUTRAL, color

TEST_DASH = "dot"  # a network's test loss; its training loss is solid


def net_colors(act_a: str, act_b: str) -> list[str]:
    """The two networks' colours: their activations' own, network B grey when both are the same colour."""
    a, b = color(act_a), color(act_b)
    return [a, NEUTRAL if b == a else b]


def loss_figure(names: list[str], act_a: str, act_b: str, labels: dict) -> go.Figure:
    """Four empty lines: names = [A training, A test, B training, B test]; labels: title, x, y."""
    cols = net_colors(act_a, act_b)
    traces = [{"type": "scatter", "mode": "lines", "x": [], "y": [], "name": n,
               "line": {"color": cols[i // 2], "width": 2, "dash": "solid" if i % 2 == 0 else TEST_DASH}}
              for i, n in enumerate(names)]
    return figure(traces, labels["title"], height=340, xaxis=axis(labels["x"], rangemode="tozero"),
                  yaxis=axis(labels["y"], rangemode="tozero"))
