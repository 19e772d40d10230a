"""Presentation lives in app/ (a page's view) and commands/, never below (DESIGN.md, "The house"):
no module under analysis/, nn/, stats/ or results/ returns a display string.

A display string, for this scan, is text made to be read rather than computed with: a string
literal holding a percent sign ("84.1%", "%.3f"), an en dash ("1.2–3.4"), an f-string with a
format spec (f"{x:.4f}", f"{n:,}"), or a call of gelu_lab.printing's formatters. Found in what a
public function returns (a return statement, or a dict, list or tuple it builds and returns), it
fails, in a private helper too. Exceptions, log lines, warnings and numbers parsed back (float(f"{v:.6g}")) are not
display: they are never returned.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gelu_lab"
LIBRARY = ("analysis", "nn", "stats", "results")
FORMATTERS = {"fixed", "sig", "pct", "fmt", "fmt_number", "text_table"}
PERCENT = re.compile(r"\d%|%[-+ 0#]*\d*(?:\.\d+)?[sdfgeEx]|%\(")


def _display(node: ast.AST) -> str | None:
    """What in `node` (an expression) reads as display text, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if "–" in node.value:
            return f"an en dash in {node.value!r}"
        if PERCENT.search(node.value):
            return f"a percent sign in {node.value!r}"
    if isinstance(node, ast.FormattedValue) and node.format_spec is not None and ast.unparse(node.format_spec) != "f'g'":
        return f"an f-string with a format spec: {ast.unparse(node)}"  # ':g' alone: a number in a key or a config's label
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        if name in FORMATTERS:
            return f"a call of {name}()"
        if name in {"float", "int"}:  # a number parsed back from text is a number
            return None
    for child in ast.iter_child_nodes(node):
        what = _display(child)
        if what:
            return what
    return None


def _not_returned(node: ast.AST, parents: dict) -> bool:
    """True when `node` sits in a raise, a log or warning call, or a number parsed back."""
    p = node
    while p in parents:
        p = parents[p]
        if isinstance(p, ast.Raise):
            return True
        if isinstance(p, ast.Call) and isinstance(p.func, (ast.Name, ast.Attribute)):
            name = p.func.id if isinstance(p.func, ast.Name) else p.func.attr
            if name in {"float", "int", "debug", "info", "warning", "error", "exception", "warn", "print", "write"}:
                return True
        if isinstance(p, ast.FunctionDef):
            return False
    return False


def findings(source: str, where: str = "<string>") -> list[str]:
    """Every display string a function of `source` returns (a private helper's too: what it
    returns ends up in a public one's result): 'where:line: function: what'."""
    tree = ast.parse(source)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.ImportFrom,)) and node.module and node.module.split(".")[-1] == "printing":
            out.append(f"{where}:{node.lineno}: imports the printing layer (presentation)")
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        parents = {c: p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
        # names a public function returns, and what was assigned to them
        returned = {n.value.id for n in ast.walk(fn) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
        exprs = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
        exprs += [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id in returned for t in n.targets)]
        exprs += [a for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in {"append", "update", "extend"}
                  and isinstance(n.func.value, ast.Name) and n.func.value.id in returned for a in n.args]
        exprs += [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in returned for t in n.targets)]
        for e in exprs:
            if _not_returned(e, parents):
                continue
            what = _display(e)
            if what:
                out.append(f"{where}:{e.lineno}: {fn.name}() returns {what}")
    return out


def _modules():
    return sorted(p for layer in LIBRARY for p in (SRC / layer).rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_library_module_returns_a_display_string(path):
    assert findings(path.read_text(encoding="utf-8"), str(path.relative_to(SRC))) == []


@pytest.mark.parametrize("code", [
    "def share(x):\n    return f'{100 * x:.1f}%'\n",
    "def span(a, b):\n    return {'range': f'{a}–{b}'}\n",
    "from ..printing import pct\ndef share(x):\n    return x\n",
    "def row(x):\n    out = {}\n    out['v'] = pct(x)\n    return out\n",
    "def rows(xs):\n    out = []\n    for x in xs:\n        out.append({'v': fixed(x, 3)})\n    return out\n",
    "def line(p):\n    return '%.3f nats' % p\n",
])
def test_the_scan_finds_display_strings(code):
    """The scan fails on what the old analysis/implementation.py, nn/ffn_view.py and
    nn/probe_view.py did (a percentage, a range with an en dash, printing's formatters)."""
    assert findings(code)


@pytest.mark.parametrize("code", [
    "def share(x):\n    return x\n",
    "def r(v):\n    return float(f'{v:.6g}')\n",
    "def check(x):\n    if x < 0:\n        raise ValueError(f'{x:.3f} is negative')\n    return x\n",
    "def key(run):\n    return f\"{run['preset']} L{run['n_layer']}\"\n",
])
def test_the_scan_passes_numbers_and_errors(code):
    assert findings(code) == []
