"""Activation curves on one chart (Overview)."""

from __future__ import annotations

import plotly.graph_objects as go

from . import LEGEND, axis, figure, palette

# How a ticked and an unticked curve are drawn; the Overview's clientside callback
# (assets/gelu_lab.js `visible`) restyles the drawn figure with these same two.
SHOWN = {"opacity": 1, "hoverinfo": "all", "showlegend": True}
HIDDEN = {"opacity": 0, "hoverinfo": "skip", "showlegend": False}


def activation_curves(x, curves: dict, names: dict, xlabel: str, ylabel: str, title=None, shown=None, yrange=None) -> go.Figure:
    """One line per activation: curves = {name: y}, names = {name: legend label}; trace.meta = name.

    shown: the names shown (default all). Every curve is drawn; the others are
    transparent, skipped by the hover and left out of the legend, so that the page can
    show or hide one at once (opacity, assets/gelu_lab.js) before the chart is redrawn.
    The legend is a key, not a control (a click on it does nothing): on the page the
    checklist picks the curves and keeps them in the URL.
    """
    traces = [
        {
            "type": "scatter", "x": x, "y": y, "name": names[key], "meta": key,
            **({} if shown is None or key in shown else HIDDEN),
            "line": palette.line(key),  # ten curves, six colours: the dash tells apart those that share one
        }
        for key, y in curves.items()
    ]
    return figure(traces, title, height=430, xaxis=axis(xlabel, range=[x[0], x[-1]]), yaxis=axis(ylabel, range=yrange),
                  legend={**LEGEND, "itemclick": False, "itemdoubleclick": False})
