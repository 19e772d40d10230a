"""Page text in per-language Markdown files: content/{zh,en}/<page>.md.

A content file is plain Markdown cut into named blocks by marker lines

    <!-- intro -->
    GELU multiplies its input by ...

    <!-- label.x -->
    score x

(an HTML comment, so the file still reads as Markdown). ``text(lang, page)``
returns {block name: text}; a page asks for its blocks by name. Blocks may hold
``{placeholders}`` that the page fills with computed numbers (:func:`fill`;
not str.format, since LaTeX is full of braces).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"
ROOT = Path(__file__).parent / "content"
_MARK = re.compile(r"^<!--\s*([\w.\-]+)\s*-->\s*$", re.M)


def parse(source: str) -> dict[str, str]:
    """{name: stripped text} of the blocks of one content file."""
    parts = _MARK.split(source)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


@functools.cache
def text(lang: str, page: str) -> dict[str, str]:
    """The blocks of content/<lang>/<page>.md (cached: the files do not change at run time)."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    return parse((ROOT / lang / f"{page}.md").read_text(encoding="utf-8"))


def fill(template: str, **values) -> str:
    """Replace each ``{name}`` in template by str(values[name]); other braces stay."""
    for k, v in values.items():
        template = template.replace("{" + k + "}", str(v))
    return template


LIST_SEP = {"zh": "、", "en": ", "}  # not a content block: blocks are stripped, and en's has a space
RANGE_SEP = {"zh": " 至 ", "en": " – "}  # low to high: in Chinese a dash beside minus signs reads badly


def join(items, lang: str) -> str:
    """Items of a list as a sentence runs them: "a, b, c" in en, "a、b、c" in zh."""
    return LIST_SEP[lang].join(items)


def label(name: str, lang: str) -> str:
    """How activation `name` (a gelu_lab.activations registry name) is called in legends,
    tables and options: content/<lang>/activations.md, else the name itself."""
    return text(lang, "activations").get(name, name)
