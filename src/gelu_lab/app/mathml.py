"""Display formulas as MathML, drawn natively by the browser: ``mathml(tex)``.

The app's formulas are a handful of ``$$ ... $$`` blocks in the content files.
They are converted once on the server (``latex2mathml``, pure Python) instead of
being typeset in the page by MathJax, whose 2 MB script was the largest part of
a cold page load. Chromium (>= 109), Firefox and Safari render MathML Core.

latex2mathml emits a few things MathML Core does not draw as TeX would; they are
rewritten here (see ``_FIXES``): ``\\sim`` as a relation, ``\\mathcal N`` as the
script letter itself (Core ignores ``mathvariant`` other than "normal"), upright
capital Greek (TeX's ``\\Phi``), ``\\operatorname`` names as identifiers, ``/``
without operator spacing, and the negative thin space ``\\!`` dropped (Core has no
negative ``mspace``).
"""

from __future__ import annotations

import functools
import re

from latex2mathml.converter import convert

# Unicode's mathematical script capitals (some live in the Letterlike Symbols block)
_SCRIPT = {c: chr(0x1D49C + i) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
_SCRIPT.update({"B": "\u212C", "E": "\u2130", "F": "\u2131", "H": "\u210B", "I": "\u2110", "L": "\u2112", "M": "\u2133", "R": "\u211B"})

_FIXES = [
    (re.compile(r"<mi>&#x0007E;</mi>"), lambda m: "<mo>&#x0223C;</mo>"),  # \sim
    (re.compile(r'<mi mathvariant="script">([A-Z])</mi>'), lambda m: f"<mi>{_SCRIPT[m.group(1)]}</mi>"),
    (re.compile(r"<mi>(&#x0039[1-9A-F];|&#x003A[0-9];)</mi>"), lambda m: f'<mi mathvariant="normal">{m.group(1)}</mi>'),
    (re.compile(r"<mo>([a-z]{2,})</mo>"), lambda m: f"<mi>{m.group(1)}</mi>"),
    (re.compile(r"<mo>&#x0002F;</mo>"), lambda m: '<mo lspace="0" rspace="0">&#x0002F;</mo>'),
    (re.compile(r'<mspace width="negativethinmathspace" />'), lambda m: ""),
]

# a display formula in Markdown: `$$` alone on the lines before and after it
DISPLAY = re.compile(r"^\$\$[ \t]*\n(.*?)\n\$\$[ \t]*$", re.M | re.S)


@functools.cache
def mathml(tex: str, display: bool = True) -> str:
    """The MathML (``<math>`` element, as a string) of one LaTeX formula.

    Raises ValueError when latex2mathml cannot parse `tex` (content files are
    checked by the tests, so this shows up there, not in a reader's page).
    """
    try:
        out = convert(tex.strip(), display="block" if display else "inline")
    except Exception as e:  # latex2mathml raises its own exception types (and IndexError on truncated input)
        raise ValueError(f"cannot convert formula {tex!r}: {e}") from None
    for pattern, repl in _FIXES:
        out = pattern.sub(repl, out)
    return out


def split(source: str) -> list[tuple[str, str]]:
    """Markdown cut at its display formulas: [("md", text) | ("math", tex), ...], empty texts left out."""
    parts = DISPLAY.split(source)
    return [("math" if i % 2 else "md", p) for i, p in enumerate(parts) if i % 2 or p.strip()]
