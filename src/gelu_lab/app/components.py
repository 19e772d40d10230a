"""The few building blocks every page uses: text, figure, slider, number box, readout."""

from __future__ import annotations

from dash import dcc, html

from ..mathml import mathml, split
from .state import Param


def md(source: str, **kw):
    """Markdown; display formulas (`$$` on their own lines) become MathML, drawn by the browser.

    Text without formulas is one dcc.Markdown. With formulas, a div of Markdown
    pieces and formula divs; Dash has no MathML components and dcc.Markdown's
    HTML parser mangles MathML, so a formula div carries its server-made
    ``<math>`` in ``data-mathml`` and assets/gelu_lab.js puts it in place.
    """
    parts = split(source)
    if all(kind == "md" for kind, _ in parts):
        return dcc.Markdown(source, className="prose", **kw)
    return html.Div(
        [dcc.Markdown(p) if kind == "md" else html.Div(className="math-display", **{"data-mathml": mathml(p)}) for kind, p in parts],
        className="prose", **kw,
    )


def graph(id: str, figure) -> dcc.Graph:
    """A figure with Plotly's download-as-PNG button."""
    return dcc.Graph(
        id=id,
        figure=figure,
        config={
            "displaylogo": False,
            "toImageButtonOptions": {"format": "png", "filename": f"gelu-lab-{id}", "scale": 2},
            # no "Share chart" button: it uploads the figure to Plotly Cloud
            "modeBarButtonsToRemove": ["select2d", "lasso2d", "sendChartToCloud"],
        },
        className="figure",
    )


def slider(id: str, p: Param, value, label: str, marks=None) -> html.Div:
    """A labelled slider over the param's range; Dash's slider carries its own number box.

    updatemode "mouseup": only then does Dash 4 commit a typed value (clamped to the
    range) when the box loses focus; while dragging, ``drag_value`` moves.
    """
    if marks is None:
        marks = {v: f"{v:g}" for v in (p.lo, p.hi)}
    return html.Div(
        [
            html.Label(label, htmlFor=id, className="control-label"),
            dcc.Slider(id=id, min=p.lo, max=p.hi, step=p.step, value=value, marks=marks, className="slider"),
        ],
        className="control",
    )


def number(id: str, p: Param, value, label: str) -> html.Div:
    """A labelled number box; the page's callback clamps what is typed and says so.

    No min/max on the element: the browser would turn an out-of-range value into
    None, and the reader would be told the box is empty instead of "clamped".
    The value is sent on Enter or when the box loses focus (debounce=True): a
    timed debounce fires after the box may be gone (route change) and errors.
    """
    return html.Div(
        [
            html.Label(label, htmlFor=id, className="control-label"),
            dcc.Input(id=id, type="number", step=p.step or "any", value=value, debounce=True, className="number"),
        ],
        className="control",
    )


def presets(page: str, label: str, values, text) -> html.Div:
    """Buttons that set a slider (the page's clientside `preset` callback listens to
    ``{"type": f"{page}-preset", "value": v}``); text(v) is a button's caption."""
    buttons = [html.Button(text(v), id={"type": f"{page}-preset", "value": v}, n_clicks=0) for v in values]
    return html.Div([html.Span(label)] + buttons, className="presets")


def family_table(p: Param, trace: int, ys, names, readouts) -> dict:
    """What the clientside ``family`` callback needs to move curve `trace` of a figure
    along slider `p`: one precomputed curve, legend name and readout per grid point."""
    grid = [p.lo + i * p.step for i in range(len(ys))]
    return {
        "lo": p.lo, "step": p.step, "n": len(ys), "trace": trace,
        "y": [[round(float(v), 6) for v in row] for row in ys],
        "names": list(names), "value": [f"{v:g}" for v in grid], "readout": list(readouts),
    }


def readout(id: str, label: str, value: str) -> html.Div:
    return html.Div([html.Span(label, className="readout-label"), html.Span(value, id=id, className="readout-value")], className="readout")


def readouts(*items) -> html.Div:
    return html.Div(list(items), className="readouts")


def message(id: str, text: str = "") -> html.Div:
    """Where a page says that an input was repaired (clamped, or not a number)."""
    return html.Div(text, id=id, className="message", role="status")


def section(*children, **kw) -> html.Section:
    return html.Section(list(children), className="card", **kw)


def fmt(v, digits: int = 4) -> str:
    """A computed number as the reader sees it: fixed decimals, no '-0.0000'."""
    s = f"{float(v):.{digits}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s
