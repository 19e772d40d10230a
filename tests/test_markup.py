"""app.markup and components.static: html components written out as HTML, read back by
Python's own html.parser (tests/dash_tree.py), never by gelu_lab's writer; and no page
puts a component a callback needs into static markup."""

from __future__ import annotations

import pytest
from dash import dcc, html
from hypothesis import given
from hypothesis import strategies as st

from gelu_lab.app import content, get_app, page_module, registry, shell
from gelu_lab.app.components import static, values_table
from gelu_lab.app.markup import markup
from dash_tree import as_json, nodes, parse

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)  # no lone surrogates


@given(TEXT, TEXT, TEXT)
def test_any_text_and_attribute_read_back_as_written(text, title, cls):
    tree = html.Table(html.Tbody(html.Tr([html.Td(text, title=title), html.Td(html.Span(text, className=cls))])))
    assert parse(markup(tree)) == [as_json(tree)]


def test_the_attributes_an_element_takes():
    tree = html.Div([html.Span("a", style={"textAlign": "left", "fontFamily": "x"}, **{"data-key": "k", "aria-label": "l"}),
                     html.Td("b", colSpan=2, hidden=True, id="c"), html.Br(), html.Details("d", open=False)], className="e")
    span = {"type": "Span", "namespace": "dash_html_components",
            "props": {"style": "text-align:left;font-family:x", "data-key": "k", "aria-label": "l", "children": "a"}}
    td = {"type": "Td", "namespace": "dash_html_components", "props": {"colSpan": "2", "hidden": True, "id": "c", "children": "b"}}
    br = {"type": "Br", "namespace": "dash_html_components", "props": {}}
    details = {"type": "Details", "namespace": "dash_html_components", "props": {"children": "d"}}  # open=False: no attribute
    assert parse(markup(tree)) == [{"type": "Div", "namespace": "dash_html_components",
                                    "props": {"className": "e", "children": [span, td, br, details]}}]
    assert markup(["<b>&", 3, None, False, html.Code("x<y")]) == "&lt;b&gt;&amp;3<code>x&lt;y</code>"
    assert markup(html.Span("q", title='say "hi" & <go>')) == '<span title="say &quot;hi&quot; &amp; &lt;go&gt;">q</span>'


def test_what_needs_dash_is_refused():
    with pytest.raises(TypeError, match="not a plain html component"):
        markup(html.Div([dcc.Graph(figure={})]))
    with pytest.raises(TypeError, match="not a plain html component"):
        markup(dcc.Link("a", href="/relu"))  # it routes without a reload; an <a> would reload
    with pytest.raises(TypeError, match="pattern-matching id"):
        markup(html.Span("a", id={"type": "x", "i": 1}))


def test_static_is_one_component_holding_the_markup():
    box = static(html.P("x"), id="s")
    assert box.children is None and box.id == "s" and getattr(box, "data-html") == "<p>x</p>"
    table = as_json(values_table(["a", "b"], [html.Tr([html.Td("1"), html.Td("2")])], id="t"))
    scroll = table["props"]["children"]  # the one element of its markup
    assert scroll["props"]["className"] == "table-scroll" and scroll["props"]["children"]["props"]["id"] == "t"


def _static_ids(page):
    """The ids of the elements inside static markup on a page: those drawn, less the components'."""
    drawn = {n["props"]["id"] for n in nodes(as_json(page)) if isinstance(n["props"].get("id"), str)}
    return drawn - {getattr(page, "id", None), *(i for i in page if isinstance(i, str))}  # iterating a component yields its descendants' ids


@pytest.mark.parametrize("lang", content.LANGS)
def test_no_component_a_callback_needs_is_static(lang):
    app = get_app()
    needed = set()
    for key, cb in app.callback_map.items():
        outs = key.strip(".").split("...")
        needed |= {o.rsplit(".", 1)[0] for o in outs}
        needed |= {str(d["id"]) for d in cb.get("inputs", []) + cb.get("state", [])}
    pages = {p.slug: page_module(p.slug) for p in registry.PAGES}
    seen = 0
    for p in registry.PAGES:
        ids = set(_static_ids(shell.render(p.route, f"?lang={lang}", pages)))
        seen += len(ids)
        assert not ids & needed, (p.route, ids & needed)
    assert seen > 0  # the pages do hold static tables with ids (the check looks at something)
