"""Figures: pure functions from data to a ``plotly.graph_objects.Figure``.

No Dash, no I/O, no maths beyond arranging what they are given: the numbers
come from :mod:`gelu_lab.analysis` / :mod:`gelu_lab.activations`, the words
(titles, axis labels, legend names) are passed in by the caller in the
reader's language. The app, a static report and the tests call the same
functions. One module per topic; :func:`new_figure` gives every figure the same look.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

# one colour and dash per activation, the same on every page and in the report (palette.py)
from .palette import AXIS_LINE, COLORS, GRID, LINES, NEUTRAL, PAPER, TEXT  # noqa: F401  (figures and pages import them from here)

FONT = "system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'Microsoft YaHei', sans-serif"


# No automargin by default: with it plotly.js draws a figure, measures its labels and
# draws it again, ~30 % of every figure's drawing time (and of a cold page load).
# The margins below fit the labels of most figures; an axis whose tick labels grow
# with the data (log scales, tiny errors) asks for it: axis(..., automargin=True).
# tests/app_browser.check_basics fails a page whose figure has a label cut off or
# overlapping another.
_AXIS = {"gridcolor": GRID, "zerolinecolor": AXIS_LINE, "linecolor": AXIS_LINE}
LEGEND = {"x": 1.01, "y": 1, "xanchor": "left", "font": {"size": 12}}  # right of the plot


def axis(title: str, **kw) -> dict:
    """An axis layout with a title (spelled out: with validation off plotly does not
    expand the string shorthand, and plotly.js 3 ignores a bare string). A log axis
    gets automargin: its tick labels (powers of ten) are as wide as the data make them."""
    if kw.get("type") == "log":
        kw.setdefault("automargin", True)
    return {"title": {"text": title}, **kw}


def _base(title: str | None, height: int, left: int = 55) -> dict:
    return {
        # a layout-only template styles every axis, subplots' included
        # colorway: a trace given no colour still takes one of the palette's
        "template": {"layout": {"paper_bgcolor": PAPER, "plot_bgcolor": PAPER, "colorway": list(LINES), "xaxis": _AXIS, "yaxis": _AXIS}},
        "title": {"text": title, "x": 0.01, "font": {"size": 15}} if title else None,
        "height": height,
        "margin": {"l": left, "r": 15, "t": 50 if title else 30, "b": 45},
        "font": {"family": FONT, "size": 13, "color": TEXT},
        "legend": LEGEND,
        "hovermode": "x unified",
    }


def styled(fig: go.Figure, title: str | None = None, height: int = 380) -> go.Figure:
    """The common look (see new_figure) applied to an existing figure."""
    return fig.update_layout(**_base(title, height))


def span(*arrays, pad: float = 0.05) -> list[float]:
    """[lo, hi] of all the values, widened by `pad` of the width on each side: the fixed
    axis range of a figure whose curves the page moves in place (the axes stay as drawn)."""
    lo = min(float(np.nanmin(a)) for a in arrays)
    hi = max(float(np.nanmax(a)) for a in arrays)
    return [lo - pad * (hi - lo), hi + pad * (hi - lo)]


def figure(traces: list, title: str | None = None, height: int = 380, left: int = 55, **layout) -> go.Figure:
    """A figure from trace dicts (``{"type": "scatter", ...}``) with the common look,
    built in one constructor call: cheaper than add_trace / update_layout / make_subplots.
    ``left``: the left margin in px, for the y tick labels and title."""
    return go.Figure(data=traces, layout={**_base(title, height, left), **layout})


def side_by_side(titles, gap: float = 0.08, share_y: bool = False) -> dict:
    """Layout keys of 1 x n plots with titles (what make_subplots builds, made directly)."""
    n = len(titles)
    w = (1.0 - gap * (n - 1)) / n
    out, notes = {}, []
    for i, text in enumerate(titles):
        k = "" if i == 0 else str(i + 1)
        lo, hi = i * (w + gap), i * (w + gap) + w
        out[f"xaxis{k}"] = {"domain": [lo, hi], "anchor": f"y{k}"}
        out[f"yaxis{k}"] = {"anchor": f"x{k}"}
        if share_y and i:
            out[f"yaxis{k}"].update(matches="y", showticklabels=False)
        notes.append(_subplot_title(text, (lo + hi) / 2, 1.0))
    out["annotations"] = notes
    return out


def stacked(heights=(0.68, 0.32), gap: float = 0.06) -> dict:
    """Layout keys of 2 plots one above the other sharing x (x axis shown at the bottom)."""
    top_lo = heights[1] + gap
    return {
        "xaxis": {"domain": [0, 1], "anchor": "y2", "matches": "x2", "showticklabels": False},
        "yaxis": {"domain": [top_lo, 1], "anchor": "x"},
        "xaxis2": {"domain": [0, 1], "anchor": "y2"},
        "yaxis2": {"domain": [0, heights[1]], "anchor": "x2"},
    }


def _subplot_title(text: str, x: float, y: float) -> dict:
    return {"text": text, "x": x, "y": y, "xref": "paper", "yref": "paper", "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": 14}}


def new_figure(title: str | None = None, height: int = 380, **layout) -> go.Figure:
    """An empty figure with the common look: white background, light grid, legend on
    the right, tight margins, hover on x; ``layout`` adds to or overrides it.

    The whole layout is given to the constructor, not set afterwards. (Plotly's private
    ``_validate=False`` saved 4 to 10 ms per page layout, under the bar of app/compat: gone.)
    """
    return go.Figure(layout={**_base(title, height), **layout})
