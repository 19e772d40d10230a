"""The few building blocks every page uses: text, figure, slider, number box, readout, table, choices."""

from __future__ import annotations

import functools
import re

from dash import dcc, html
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from ..printing import fixed as fmt  # noqa: F401  (the pages format numbers with it)
from ..printing import sig
from .markup import markup
from .mathml import mathml, split
from .state import Param


def md(source: str, **kw) -> html.Div:
    """Markdown as Dash html components; display formulas (`$$` on their own lines) become MathML.

    Converted here on the server (markdown-it, CommonMark and tables), so a page
    needs no dcc.Markdown: its 460 kB of script chunks (Markdown parser and
    highlight.js), fetched after the layout, were a fifth of a cold page load.
    Dash has no MathML components, so a formula div carries its server-made
    ``<math>`` in ``data-html`` and assets/compat/data_html.js puts it in place.
    """
    return html.Div(prose(source), className="prose", **kw)


def prose(source: str) -> list:
    """The children of md(source): what a callback returns to update an md() block."""
    return list(_prose(source))


@functools.lru_cache(maxsize=1024)
def _prose(source: str) -> tuple:
    """The components of a text (cached: pages re-render the same texts; a component is only
    serialised, never changed, so one can sit in many layouts)."""
    out = []
    for kind, part in split(source):
        if kind == "md":
            out += _children(SyntaxTreeNode(MARKDOWN.parse(part)))
        else:
            out.append(html.Div(className="math-display", **{"data-html": mathml(part)}))
    return tuple(out)


MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")  # the one parser: gelu_lab.app.report uses it too
_TAGS = {
    "paragraph": html.P, "strong": html.Strong, "em": html.Em, "bullet_list": html.Ul, "ordered_list": html.Ol,
    "list_item": html.Li, "blockquote": html.Blockquote, "table": html.Table, "thead": html.Thead,
    "tbody": html.Tbody, "tr": html.Tr, "th": html.Th, "td": html.Td,
}


def _children(node) -> list:
    out = []
    for c in node.children:
        out += _component(c)
    return out


# a sign or an exponent's sign: "-" before a digit, not inside a word, a range or a date ("GPT-2", "2026-12-01")
_MINUS = re.compile(r"(?<![\w\-./])-(?=\.?\d)|(?<=\de)-(?=\d)")


def typeset(text: str) -> str:
    """Running text as a reader sees it: a computed number's minus sign is the same "−" (U+2212)
    the content files write, not the hyphen Python prints ("−0.7518", "7.9e−07"). Code keeps its
    hyphens: only prose text passes through here."""
    return _MINUS.sub("\u2212", text)


def _component(node) -> list:
    """One markdown-it syntax-tree node as a list of Dash components and strings."""
    t = node.type
    if t == "text":
        return [typeset(node.content)]
    if t == "softbreak":
        return ["\n"]
    if t == "hardbreak":
        return [html.Br()]
    if t == "code_inline":
        return [html.Code(node.content)]
    if t in ("fence", "code_block"):
        lang = node.info.split()[0] if node.info.strip() else ""
        return [html.Pre(html.Code(node.content.removesuffix("\n"), className=f"language-{lang}" if lang else None))]
    if t in ("inline", "root") or (t == "paragraph" and node.hidden):  # a tight list's items hold no <p>
        return _children(node)
    if t == "link":
        return [html.A(_children(node), href=node.attrs["href"], title=node.attrs.get("title"))]
    if t == "image":
        return [html.Img(src=node.attrs["src"], alt=node.content, title=node.attrs.get("title"))]
    if t == "heading":
        return [getattr(html, node.tag.upper())(_children(node))]
    if t == "hr":
        return [html.Hr()]
    if t in ("th", "td") and node.attrs.get("style"):  # column alignment
        return [_TAGS[t](_children(node), style={"textAlign": node.attrs["style"].split(":")[1]})]
    if t == "ordered_list" and node.attrs.get("start", 1) != 1:
        return [html.Ol(_children(node), start=node.attrs["start"])]
    if t == "table":
        return [scrolling(html.Table(_children(node)))]
    if t in _TAGS:
        return [_TAGS[t](_children(node))]
    return [node.content] if node.content else _children(node)  # html (off) and any other node: its text


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


def slider(id: str, p: Param, value, label: str, marks=None, table: str | None = None) -> html.Div:
    """A labelled slider over the param's range; Dash's slider carries its own number box.

    updatemode "mouseup": only then does Dash 4 commit a typed value (clamped to the
    range) when the box loses focus; while dragging, ``drag_value`` moves.
    `table`: the id of the dcc.Store holding this slider's :func:`family_table` (or
    one like it): assets/compat/speed_readouts.js then shows its readouts as soon as the handle moves.
    The label names the handle and the number box (dcc.Slider has no prop for that:
    assets/compat/a11y.js points their aria-labelledby at it).
    """
    if marks is None:
        marks = {v: f"{v:g}" for v in (p.lo, p.hi)}
    return html.Div(
        [
            html.Label(label, htmlFor=id, id=f"{id}-label", className="control-label"),
            dcc.Slider(id=id, min=p.lo, max=p.hi, step=p.step, value=value, marks=marks, className="slider"),
        ],
        className="control",
        **({"data-table": table} if table else {}),
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


def family_table(p: Param, trace: int, ys, names, readouts, ids) -> dict:
    """What the clientside ``family`` callback needs to move curve `trace` of a figure
    along slider `p`: one precomputed curve, legend name and readout per grid point.
    ``reads[i]``: the texts of the readouts `ids` (the slider's value, then `readouts[i]`)."""
    grid = [p.lo + i * p.step for i in range(len(ys))]
    return {
        "lo": p.lo, "step": p.step, "n": len(ys), "trace": trace,
        "y": [[round(float(v), 6) for v in row] for row in ys],
        "names": list(names), "ids": list(ids), "reads": [[f"{v:g}", r] for v, r in zip(grid, readouts)],
    }


def readout(id: str, label: str, value: str) -> html.Div:
    """A labelled value that a control changes; a screen reader says it (label and value) when it does, politely."""
    return html.Div([html.Span(label, className="readout-label"), html.Span(value, id=id, className="readout-value")], className="readout",
                    **{"aria-live": "polite", "aria-atomic": "true"})


def readouts(*items) -> html.Div:
    return html.Div(list(items), className="readouts")


def message(id: str, text: str = "") -> html.Div:
    """Where a page says that an input was repaired (clamped, or not a number)."""
    return html.Div(text, id=id, className="message", role="status")


def section(*children, **kw) -> html.Section:
    return html.Section(list(children), className="card", **kw)


def more(summary: str, *children, **kw) -> html.Details:
    """An advanced part of a page, folded: its one-line summary shows, the rest opens on
    a click (or Enter), so the page first shows its one main idea."""
    return html.Details([html.Summary(summary), *children], className="more", **kw)


def superscript(k: int) -> str:
    """An integer in superscript digits, for powers in running text: 2 + superscript(28) is 2²⁸."""
    return str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def full(v, digits: int = 4, **kw) -> html.Span:
    """A number shown to `digits` significant figures with its full value (repr) on hover:
    the one element the page-text test lets print more than 7 significant digits."""
    return html.Span(sig(v, digits), title=repr(float(v)), className="full-value", **kw)


def values_table(head, rows, head_style=None, **kw) -> html.Div:
    """A table of numbers: `head` the column titles (or html.Th cells), `rows` its html.Tr rows;
    `kw` (its id) go to the table. In a box of its own that scrolls sideways when the table is
    wider than the page (a phone): assets/compat/a11y.js makes such a box a focusable region. Sent as
    static markup (one Dash component however many cells, see static): nothing in it can be a
    callback's input or output; a callback that changes a table returns a new one."""
    cells = [h if isinstance(h, html.Th) else html.Th(h, style=head_style) for h in head]
    return static(scrolling(html.Table([html.Thead(html.Tr(cells)), html.Tbody(rows)], className="values", **kw)))


def static(tree, **kw) -> html.Div:
    """Content that never changes once drawn (html components only), as ONE Dash component:
    a div whose data-html holds tree's markup (app.markup: escaped), which assets/compat/data_html.js
    puts in place. A big table as 600 components costs Dash's renderer time that grows with
    the square of the page's component count; as one, nothing (app.markup says why)."""
    return html.Div(**{"data-html": markup(tree)}, **kw)


def scrolling(table) -> html.Div:
    """The box a table scrolls sideways in, never the page (see values_table)."""
    return html.Div(table, className="table-scroll")


def radio(id: str, label: str, values, value, text=str) -> html.Div:
    """Labelled radio buttons in a row, one per value, captioned text(value)."""
    options = [{"label": text(v), "value": v} for v in values]
    return html.Div([html.Label(label, htmlFor=id, id=f"{id}-label", className="control-label"),  # names the group (assets/compat/a11y.js)
                     dcc.RadioItems(id=id, options=options, value=value, inline=True, className="checklist")], className="control")


def dropdown(id: str, label: str, options, value) -> html.Div:
    """A labelled dropdown that always has a value."""
    return html.Div([html.Label(label, htmlFor=id, id=f"{id}-label", className="control-label"),  # names the button (assets/compat/a11y.js)
                     dcc.Dropdown(id=id, options=options, value=value, clearable=False)], className="control")
