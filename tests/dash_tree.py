"""A Dash component tree as plain JSON, with static markup read back into components.

app.components.static sends content as one div whose data-html holds its HTML;
the tests that walk a page's components (its text, its numbers, its hover values)
must see inside it as they see the rest. as_json(tree) is tree.to_plotly_json()
all the way down, each data-html string parsed (html.parser, not gelu_lab's writer)
into the same {"type", "namespace", "props"} nodes: "td" -> "Td", class -> className.
"""

from __future__ import annotations

import html.parser

_PROPS = {"class": "className", "for": "htmlFor", "colspan": "colSpan", "rowspan": "rowSpan", "tabindex": "tabIndex"}
_VOID = {"area", "br", "col", "hr", "img", "input", "wbr"}


def _as_dash(props: dict) -> None:
    """Children as Dash holds them: none left out, one child on its own, more as a list."""
    kids = props.pop("children")
    if kids:
        props["children"] = kids[0] if len(kids) == 1 else kids


class _Reader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = {"children": []}
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        props = {_PROPS.get(k, k): (True if v is None else v) for k, v in attrs}
        node = {"type": tag.capitalize(), "namespace": "dash_html_components", "props": {**props, "children": []}}
        self.open[-1]["children"].append(node)
        if tag in _VOID:
            _as_dash(node["props"])
        else:
            self.open.append(node["props"])

    def handle_endtag(self, tag):
        if tag not in _VOID:
            _as_dash(self.open.pop())

    def handle_data(self, data):
        self.open[-1]["children"].append(data)


def parse(markup: str) -> list:
    """HTML as a list of component nodes and strings."""
    r = _Reader()
    r.feed(markup)
    r.close()
    assert len(r.open) == 1, f"unclosed elements in {markup[:200]!r}"
    return r.root["children"]


def as_json(node):
    """node (a component, a list, JSON) as JSON, static markup expanded into its children."""
    if hasattr(node, "to_plotly_json"):
        node = node.to_plotly_json()
    if isinstance(node, (list, tuple)):
        return [as_json(v) for v in node]
    if isinstance(node, dict) and "props" in node and isinstance(node.get("props"), dict):
        props = {k: as_json(v) for k, v in node["props"].items()}
        if isinstance(props.get("data-html"), str) and not props.get("children"):
            props["children"] = parse(props.pop("data-html"))
            _as_dash(props)
        return {**node, "props": props}
    if isinstance(node, dict):
        return {k: as_json(v) for k, v in node.items()}
    return node


def nodes(tree):
    """Every component node of a JSON tree (as_json's), depth first."""
    for n in tree if isinstance(tree, list) else [tree]:
        if isinstance(n, dict) and isinstance(n.get("props"), dict):
            yield n
            yield from nodes(n["props"].get("children"))
