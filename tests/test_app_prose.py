"""components.md: the content Markdown as Dash html components (no dcc.Markdown in any page).

The components, written out as HTML, must be what markdown-it's own HTML renderer
makes of the same text, for every block of every content file; formulas stay MathML.
"""

from __future__ import annotations

import html as h
import re

import pytest
from dash import dcc, html

from gelu_lab.app import content, get_app, registry, shell
from gelu_lab.app.components import MARKDOWN, md, prose, typeset
from gelu_lab.app.mathml import split

FILES = sorted((lang, f.stem) for lang in content.LANGS for f in (content.ROOT / lang).glob("*.md"))


def to_html(c) -> str:
    """A component tree as HTML, in markdown-it's spelling (class, attribute order as given)."""
    if c is None:
        return ""
    if isinstance(c, str):
        return h.escape(c, quote=False).replace('"', "&quot;")  # as markdown-it escapes text
    if isinstance(c, (list, tuple)):
        return "".join(to_html(x) for x in c)
    tag = type(c).__name__.lower()
    attrs = "".join(f' {k}="{h.escape(str(getattr(c, k)))}"' for k in ("href", "title", "src", "alt", "start") if getattr(c, k, None) is not None)
    if getattr(c, "className", None):
        attrs += f' class="{c.className}"'
    if getattr(c, "style", None):
        attrs += ' style="' + ";".join(f"text-align:{v}" for v in c.style.values()) + '"'
    if tag in ("br", "hr", "img"):
        return f"<{tag}{attrs}>"
    return f"<{tag}{attrs}>{to_html(c.children)}</{tag}>"


def typeset_html(s: str) -> str:
    """markdown-it's HTML with components.typeset applied to its text outside code (what md() does to text nodes)."""
    out, code = [], 0
    for part in re.split(r"(<[^>]+>)", s):
        if part.startswith("<"):
            code += 1 if re.match(r"<(code|pre)\b", part) else -1 if re.match(r"</(code|pre)>", part) else 0
            out.append(part)
        else:
            out.append(part if code else typeset(h.unescape(part)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))
    return "".join(out)


def normal(s: str) -> str:
    s = s.replace("<br />", "<br>").replace("<hr />", "<hr>")
    s = re.sub(r"\n</code></pre>", "</code></pre>", s)  # the last newline of a code block is not shown
    return re.sub(r">\n+", ">", s).strip()


@pytest.mark.parametrize("lang,page", FILES, ids=[f"{lang}-{p}" for lang, p in FILES])
def test_every_content_block_is_what_markdown_it_renders(lang, page):
    for name, text in content.text(lang, page).items():
        comps = prose(text)
        parts = split(text)
        maths = [c for c in comps if isinstance(c, html.Div)]
        assert len(maths) == sum(kind == "math" for kind, _ in parts), name
        assert all(c.className == "math-display" and "<math" in c.to_plotly_json()["props"]["data-html"] for c in maths)
        want = typeset_html("".join(MARKDOWN.render(p) for kind, p in parts if kind == "md"))
        assert normal(to_html([c for c in comps if not isinstance(c, html.Div)])) == normal(want), f"{lang}/{page}: {name}"


def test_markup_the_pages_use():
    t = content.text("en", "interview")
    src = to_html(prose(t["sources"]))
    assert '<a href="https://github.com/google-research/bert/blob/master/modeling.py">modeling.py</a>' in src
    assert "<ul><li>" in src and "<code>gelu</code>" in src
    impl = to_html(prose(content.text("en", "implementation")["forms.text"]))
    assert '<pre><code class="language-python">' in impl and "<strong>" in impl
    # brackets without a link definition are text (dcc.Markdown made empty links of them)
    assert "E[x·m]" in to_html(prose("then E[x·m] = x·Φ(x) and *so* 1[x > 0]")) and "<em>so</em>" in to_html(prose("*so*"))
    table = to_html(prose("| a | b |\n|:--|--:|\n| 1 | 2 |"))
    assert table.startswith('<div class="table-scroll"><table><thead><tr><th') and '<td style="text-align:right">2</td>' in table
    block = md("one\n\n$$\nx \\Phi(x)\n$$\n\ntwo", id="p")
    assert block.id == "p" and block.className == "prose"
    assert [type(c).__name__ for c in block.children] == ["P", "Div", "P"]


def _tree(c):
    yield c
    kids = getattr(c, "children", None)
    for k in kids if isinstance(kids, (list, tuple)) else [kids]:
        if k is not None and not isinstance(k, (str, int, float)):
            yield from _tree(k)


def test_no_page_needs_dcc_markdown():
    """dcc.Markdown would fetch its 460 kB of script chunks after the layout."""
    get_app()
    pages = {p.slug: __import__(f"gelu_lab.app.pages.{p.slug}", fromlist=["x"]) for p in registry.PAGES}
    for p in registry.PAGES:
        for lang in content.LANGS:
            assert not any(isinstance(c, dcc.Markdown) for c in _tree(shell.render(p.route, f"?lang={lang}", pages))), p.slug
