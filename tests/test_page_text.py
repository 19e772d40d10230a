"""What a reader sees on every page: no unfilled ``{placeholder}`` of a content template, no raw
code identifier in the Chinese text, no number printed with more than 7 significant digits
(outside a "full value" element, which shows about four and keeps the full value on hover).

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

from gelu_lab import activations
from gelu_lab.app import content, registry
from dash_tree import as_json

PLACEHOLDER = re.compile(r"(?<!%)\{[A-Za-z_][A-Za-z0-9_]*\}")  # %{y}: a plotly hover template, not ours
CODE = {"Code", "Pre"}  # quoted source code, not a template


def strings(node, path=""):
    """(where, text) of every string in a Dash component tree, a figure, or plain JSON."""
    if hasattr(node, "to_plotly_json"):
        node = as_json(node)  # static markup read back into components
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
    # <main data-figure-words>: the templates assets/compat/figure_text.js fills in the browser
    # (tests/test_app_figure_text.py checks the texts it writes)
    pairs = [(where, s) for where, s in strings(_rendered(slug, lang)) if not where.endswith(".data-figure-words")]
    assert unfilled(pairs) == []


def visible(node, skip_lang: str | None = None):
    """The text a reader sees in a Dash component tree: children, labels, input placeholders,
    and in figures the title, axis titles, annotations and legend names. Code (Code, Pre),
    "full value" spans and elements whose lang is `skip_lang` (an English example sentence on
    a zh page) are left out."""
    if hasattr(node, "to_plotly_json"):
        node = as_json(node)  # static markup read back into components
    if isinstance(node, str):
        yield node
    elif isinstance(node, (list, tuple)):
        for v in node:
            yield from visible(v, skip_lang)
    elif isinstance(node, dict) and "props" in node:
        props = node["props"] or {}
        if node.get("type") in CODE or "full-value" in str(props.get("className", "")).split() or (skip_lang and props.get("lang") == skip_lang):
            return
        for k in ("children", "label", "placeholder", "options"):
            if k in props:
                yield from visible(props[k], skip_lang)
        if isinstance(props.get("figure"), dict):
            yield from _figure_text(props["figure"])
    elif isinstance(node, dict):  # an option {"label", "value"}
        yield from visible(node.get("label"), skip_lang)


def _figure_text(fig: dict):
    lay = fig.get("layout") or {}
    for k, ax in lay.items():
        if isinstance(ax, dict) and (k == "title" or k.startswith(("xaxis", "yaxis"))):
            t = ax.get("text") if k == "title" else (ax.get("title") or {}).get("text") if isinstance(ax.get("title"), dict) else ax.get("title")
            if isinstance(t, str):
                yield t
    for a in lay.get("annotations") or []:
        if isinstance(a.get("text"), str):
            yield a["text"]
    for tr in fig.get("data") or []:
        if isinstance(tr.get("name"), str) and tr.get("showlegend", True) is not False:
            yield tr["name"]


# a number as text shows it: 1,234.5678 / -0.004049694095 / 1.5e-07 (not inside a word, a
# version "3.11.7", an arXiv id or a hex digest)
NUMBER = re.compile(r"(?<![\w.])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w.])|(?<![\w.])[-−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
ARXIV = re.compile(r"\b\d{4}\.\d{4,5}\b")


def significant(number: str) -> int:
    """Significant digits of a printed number: 0.004050 -> 4, 10,000,000 -> 1, 820,480 -> 5."""
    mant = number.lstrip("-−").replace(",", "").split("e")[0].split("E")[0]
    digits = mant.replace(".", "").lstrip("0")
    return len(digits if "." in mant else digits.rstrip("0")) or 1


def too_precise(texts) -> list[str]:
    return [f"{m.group()!r} in {t[:120]!r}" for t in texts for m in NUMBER.finditer(ARXIV.sub("", t)) if significant(m.group()) > 7]


# lowercase ASCII words a Chinese learner meets as they are: functions and number formats of
# the formulas. Any other lowercase word on a zh page is code (belongs in `code`) or untranslated.
MATH_WORDS = {"tanh", "erf", "erfc", "exp", "log", "ln", "max", "min", "sin", "cos", "sigmoid", "softmax", "dropout",
              "float16", "bfloat16", "float32", "float64", "act"}  # act(x): the FFN formula's activation; single letters are variables
WORD = re.compile(r"(?<![\w\-./`'])[a-z][a-z0-9_]+(?![\w\-.])")  # not in a version (v1.1), a path or a compound


def raw_identifiers(texts) -> list[str]:
    return [f"{m.group()!r} in {t[:120]!r}" for t in texts for m in WORD.finditer(t) if m.group() not in MATH_WORDS]


@pytest.mark.parametrize("lang", content.LANGS)
@pytest.mark.parametrize("slug", [p.slug for p in registry.PAGES])
def test_no_rendered_page_prints_more_than_seven_significant_digits(fresh_install, slug, lang):
    assert too_precise(visible(_rendered(slug, lang))) == []


@pytest.mark.parametrize("slug", [p.slug for p in registry.PAGES])
def test_no_zh_page_shows_a_raw_identifier(fresh_install, slug):
    assert raw_identifiers(visible(_rendered(slug, "zh"), skip_lang="en")) == []


def test_the_text_checks_catch_what_they_are_for():
    assert [significant(s) for s in ("0.004050", "10,000,000", "820,480", "1.5e-07", "0.999999999999", "-0.0040496940948902835")] == [4, 1, 5, 2, 12, 17]
    assert too_precise(["cos 0.999999999999 and 0.8413447460685429", "arXiv:1606.08415, Python 3.11.7, 1,234,567 runs"]) == [
        "'0.999999999999' in 'cos 0.999999999999 and 0.8413447460685429'", "'0.8413447460685429' in 'cos 0.999999999999 and 0.8413447460685429'"]
    names = [n for n in activations.names() if n not in MATH_WORDS]
    assert raw_identifiers([f"{n} 的误差" for n in names]) and all(raw_identifiers([f"用 {n}"]) for n in names)
    assert raw_identifiers(["mc_stderr 为 0.1", "2 thread(s)", "argmin 在 x = 1"]) == [
        "'mc_stderr' in 'mc_stderr 为 0.1'", "'thread' in '2 thread(s)'", "'argmin' in 'argmin 在 x = 1'"]
    assert raw_identifiers(["tanh 近似与 erf、float16 中的 GELU(x)、ReLU、x·Φ(x)", "pre-LN 结构", "见 arXiv:1606.08415"]) == []
    page = {"type": "Div", "namespace": "dash_html_components", "props": {"children": [
        {"type": "Code", "namespace": "dash_html_components", "props": {"children": "gelu_exact(x)"}},
        {"type": "Span", "namespace": "dash_html_components", "props": {"children": "0.8413", "className": "full-value", "title": "0.8413447460685429"}},
        {"type": "Span", "namespace": "dash_html_components", "props": {"children": "The quality of mercy", "lang": "en"}}]}}
    assert list(visible(page, skip_lang="en")) == []


def _rendered(slug: str, lang: str):
    from gelu_lab.app import page_module, shell

    page = next(p for p in registry.PAGES if p.slug == slug)
    return shell.render(page.route, f"?lang={lang}", {p.slug: page_module(p.slug) for p in registry.PAGES})


class _Text(html.parser.HTMLParser):
    """The text of an HTML file outside script, style, code and formulas; and its figures' JSON."""

    def __init__(self):
        super().__init__()
        self.text, self.figures, self._skip, self._in, self._spans = [], None, 0, None, []

    def handle_starttag(self, tag, attrs):
        english = tag == "span" and dict(attrs).get("lang") == "en"  # an English term beside its Chinese one
        if tag == "span":
            self._spans.append(english)
        if tag in ("script", "style", "code", "pre", "math") or english:
            self._skip += 1
            self._in = "figures" if dict(attrs).get("id") == "figures" else tag

    def handle_endtag(self, tag):
        if tag == "span":
            if self._spans and self._spans.pop():
                self._skip -= 1
            return
        if tag in ("script", "style", "code", "pre", "math"):
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
    if lang == "zh":  # the measured tables too: their keys in words or as code, never raw English
        assert raw_identifiers(t for t in doc.text if t.strip()) == []


@pytest.mark.parametrize("lang", content.LANGS)
@pytest.mark.parametrize("slug", [p.slug for p in registry.PAGES])
def test_no_rendered_page_shows_raw_markdown_emphasis(fresh_install, slug, lang):
    """A '**' left in the text is emphasis CommonMark did not take: a closing '**' after
    Chinese punctuation and before a Chinese character does not close (put it before the 。)."""
    assert [t[:120] for t in visible(_rendered(slug, lang)) if "**" in t] == []
