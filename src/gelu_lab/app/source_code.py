"""Library source as a page shows it: the code itself, and what it does in the reader's language.

    bare(fn) -> str             inspect.getsource(fn) without its docstrings and # comments
    name(fn) -> str             "gelu_lab.numerics.gelu_exact"
    caption(fn, lang) -> str    what fn does: the block of that name in content/<lang>/sources.md

The docstrings and comments are English prose for the library's programmers; a page says what
a function does in its own language (one caption per function, in one file) and shows the code.
"""

from __future__ import annotations

import ast
import inspect
import io
import re
import textwrap
import tokenize

from . import content


def _docstrings(src: str) -> list[tuple[int, int]]:
    """(first line, last line) of every docstring in `src` (1-based)."""
    spans = []
    for node in ast.walk(ast.parse(src)):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            spans.append((first.lineno, first.end_lineno))
    return spans


def bare(fn) -> str:
    lines = textwrap.dedent(inspect.getsource(fn)).splitlines()
    for a, b in sorted(_docstrings("\n".join(lines)), reverse=True):
        del lines[a - 1:b]
    code = "\n".join(lines) + "\n"
    comments = [t.start for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type == tokenize.COMMENT]
    lines = code.splitlines()
    for row, col in sorted(comments, reverse=True):
        lines[row - 1] = lines[row - 1][:col].rstrip()
    return re.sub(r"\n(\s*\n)+", "\n\n", "\n".join(lines)).strip("\n") + "\n"  # a removed block leaves one blank line at most


def name(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def caption(fn, lang: str) -> str:
    return content.text(lang, "sources")[name(fn)]
