"""No rendered page and no report shows an unfilled ``{placeholder}`` of a content template.

Every page of the registry is rendered in both languages the way the server renders a
page load (gelu_lab.app.shell.render, no browser), on a fresh install (an empty runs
store: the shipped results); every string it holds is searched, figure titles and
axis labels included. Code the page quotes (the library's own source) may hold braces
and is left out. The report is built in both languages and searched the same way: its
text, and the figures it carries as JSON.
"""

from __future__ import annotations

import html.parser
import json
import re

import pytest

from gelu_lab.app import content, registry

PLACEHOLDER = re.compile(r"(?<!%)\{[A-Za-z_][A-Za-z0-9_]*\}")  # %{y}: a plotly hover template, not ours
CODE = {"Code", "Pre"}  # quoted source code, not a template


def strings(node, path=""):
    """(where, text) of every string in a Dash component tree, a figure, or plain JSON."""
    if hasattr(node, "to_plotly_json"):
        node = node.to_plotly_json()
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            yield from strings(v, f"{path}[{i}]")
    elif isinstance(node, dict):
        if node.get("type") in CODE and "props" in node:
            return
        where = f"{path}/{node.get('type', '')}#{(node.get('props') or {}).get('id', '')}" if "props" in node else path
        for k, v in node.items():
            if k not in ("type", "namespace"):
                yield from strings(v, f"{where}.{k}")


def unfilled(pairs) -> list[str]:
    return [f"{where}: {m.group()} in {text[:120]!r}" for where, text in pairs for m in PLACEHOLDER.finditer(text)]


@pytest.fixture(scope="module")
def fresh_install(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("GELU_LAB_STORE", str(tmp_path_factory.mktemp("fresh") / "runs.sqlite"))  # none yet: the shipped results
    yield
    mp.undo()


@pytest.mark.parametrize("lang", content.LANGS)
@pytest.mark.parametrize("slug", [p.slug for p in registry.PAGES])
def test_no_rendered_page_shows_a_placeholder(fresh_install, slug, lang):
    from gelu_lab.app import page_module, shell

    page = next(p for p in registry.PAGES if p.slug == slug)
    rendered = shell.render(page.route, f"?lang={lang}", {p.slug: page_module(p.slug) for p in registry.PAGES})
    assert unfilled(strings(rendered)) == []


class _Text(html.parser.HTMLParser):
    """The text of an HTML file outside script, style and code; and its figures' JSON."""

    def __init__(self):
        super().__init__()
        self.text, self.figures, self._skip, self._in = [], None, 0, None

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "code", "pre"):
            self._skip += 1
            self._in = "figures" if dict(attrs).get("id") == "figures" else tag

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code", "pre"):
            self._skip -= 1
            self._in = None

    def handle_data(self, data):
        if self._in == "figures":
            self.figures = json.loads(data)
        elif not self._skip:
            self.text.append(data)


@pytest.mark.parametrize("lang", content.LANGS)
def test_no_report_shows_a_placeholder(fresh_install, tmp_path, lang, capsys):
    from gelu_lab import cli

    out = tmp_path / f"report-{lang}.html"
    assert cli.main(["report", "--out", str(out), "--lang", lang, "--no-progress"]) == 0
    capsys.readouterr()
    doc = _Text()
    doc.feed(out.read_text(encoding="utf-8"))
    assert doc.figures, "the report carries its figures as JSON"
    assert unfilled([("text", "".join(doc.text))]) == []
    assert unfilled(strings(doc.figures, "figures")) == []
