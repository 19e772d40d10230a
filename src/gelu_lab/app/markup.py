"""A tree of Dash html components written out as HTML: one string, every text and attribute escaped.

    markup(tree) -> str          tree: html components, strings, numbers, None, lists of them

Why a page wants this (components.static): dash-renderer 4.4 dispatches a store
action for each component it renders, and each dispatch runs the selector of every
component on the page, so the cost of drawing a page grows with the square of its
component count (docs/decisions.md, "Tables as static markup": bench/route_cost.py). Content that never
changes once drawn (a table of measured numbers) needs none of that bookkeeping:
as one div whose markup the browser parses, it costs one component.

Only dash_html_components can be written (they are plain elements: html.Td is a
<td>, its props its attributes); anything else (a dcc.Graph, a dcc.Link that routes
without a reload) raises TypeError, as does a pattern-matching (dict) id: they need
Dash, so they cannot be static. Nor can any id a callback reads or writes
(tests/test_markup.py checks every page for that).
"""

from __future__ import annotations

import html as _html
import re

# React prop -> HTML attribute, where they differ; the props no element has (Dash's own)
_NAMES = {"className": "class", "htmlFor": "for", "colSpan": "colspan", "rowSpan": "rowspan", "tabIndex": "tabindex",
          "accessKey": "accesskey", "contentEditable": "contenteditable", "spellCheck": "spellcheck"}
_DASH = {"children", "n_clicks", "n_clicks_timestamp", "disable_n_clicks", "loading_state", "key", "setProps"}
_VOID = {"area", "br", "col", "hr", "img", "input", "wbr"}
_KEBAB = re.compile(r"[A-Z]")


def css(style: dict) -> str:
    """{"fontFamily": "x", "textAlign": "left"} -> "font-family:x;text-align:left" (a React style as CSS)."""
    return ";".join(f"{_KEBAB.sub(lambda m: '-' + m.group(0).lower(), k)}:{v}" for k, v in style.items())


def attributes(props: dict) -> str:
    """An element's props as HTML attributes (leading space each); True: the bare name, False/None: left out."""
    out = []
    for k, v in props.items():
        if k in _DASH or v is None or v is False:
            continue
        name = _NAMES.get(k, k)
        if v is True:
            out.append(f" {name}")
            continue
        if k == "style" and isinstance(v, dict):
            v = css(v)
        out.append(f' {name}="{_html.escape(str(v))}"')
    return "".join(out)


def markup(tree, *, keep=None, other=None, href=None) -> str:
    """tree as HTML (see the module's docstring).

    keep: the props written as attributes (None: every one); other(component) -> str or None:
    how to write a component before the rules here (None from it: the rules; a component that
    is not a plain html one and that `other` leaves raises TypeError); href(url) -> url: where
    a link goes. The offline report (app.report) writes whole pages with these; the app's
    static content uses none. A div's ``data-html`` (markup made on the server: app.components
    md's MathML, static's tables) is written as its content, as assets/compat/data_html.js
    puts it in the app.
    """
    if tree is None or isinstance(tree, bool):
        return ""
    if isinstance(tree, (str, int, float)):
        return _html.escape(str(tree), quote=False)
    if isinstance(tree, (list, tuple)):
        return "".join(markup(c, keep=keep, other=other, href=href) for c in tree)
    if other is not None and (made := other(tree)) is not None:
        return made
    if getattr(tree, "_namespace", None) != "dash_html_components":
        raise TypeError(f"{type(tree).__name__} is not a plain html component: it cannot be written as static markup")
    props = tree.to_plotly_json()["props"]
    if keep is not None:
        props = {k: v for k, v in props.items() if k in keep}
    elif isinstance(props.get("id"), dict):
        raise TypeError(f"a pattern-matching id {props['id']} needs a Dash component: it cannot be static markup")
    if href is not None and isinstance(props.get("href"), str):
        props["href"] = href(props["href"])
    tag = tree._type.lower()
    if tag in _VOID:
        return f"<{tag}{attributes(props)}>"
    made = getattr(tree, "data-html", None)
    inner = made if made is not None else markup(props.get("children") if keep is None else getattr(tree, "children", None), keep=keep, other=other, href=href)
    return f"<{tag}{attributes(props)}>{inner}</{tag}>"
