"""Formulas as MathML (gelu_lab.app.mathml): every formula of every content file converts,
and the page text around them keeps no TeX delimiters. Drawing is checked in Chromium
by app_browser.check_basics (test_app_pages)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from gelu_lab.app import content
from gelu_lab.app.mathml import mathml, split

M = "{http://www.w3.org/1998/Math/MathML}"


def _blocks():
    for lang in content.LANGS:
        for f in sorted((content.ROOT / lang).glob("*.md")):
            for name, text in content.text(lang, f.stem).items():
                yield f"{lang}/{f.stem}:{name}", text


FORMULAS = sorted({tex for _, text in _blocks() for kind, tex in split(text) if kind == "math"})


def test_content_has_formulas():
    assert len(FORMULAS) >= 5  # the definition, its derivatives, the three implementation forms


def test_no_tex_left_in_text():
    left = [where for where, text in _blocks() for kind, part in split(text) if kind == "md" and "$$" in part]
    assert left == [], "a $$ formula not on lines of its own"


def test_split_keeps_text_order():
    parts = split("before\n\n$$\na + b\n$$\n\nafter")
    assert parts == [("md", "before\n\n"), ("math", "a + b"), ("md", "\n\nafter")]


@pytest.mark.parametrize("tex", FORMULAS)
def test_formula_is_mathml(tex):
    root = ET.fromstring(mathml(tex))
    assert root.tag == M + "math" and root.get("display") == "block"
    # every number of the TeX source is a number of the formula (e.g. 0.044715, 1.702)
    numbers = sorted(e.text for e in root.iter(M + "mn"))
    assert sorted(re.findall(r"\d+(?:\.\d+)?", re.sub(r"\\[a-zA-Z]+", " ", tex))) == numbers
    # nothing MathML Core would not draw the TeX way
    for e in root.iter():
        assert e.get("mathvariant") in (None, "normal"), tex
        assert not (e.tag == M + "mspace" and not re.fullmatch(r"[\d.]+em", e.get("width", ""))), tex


def test_fixups():
    assert "&#x0223C;" in mathml(r"Z \sim \mathcal N(0, 1)")  # \sim a relation, not a tilde
    assert "\U0001D4A9" in mathml(r"\mathcal N")
    assert '<mi mathvariant="normal">&#x003A6;</mi>' in mathml(r"\Phi(x)")
    assert "<mi>erf</mi>" in mathml(r"\operatorname{erf}(x)")


def test_bad_formula_is_a_value_error():
    with pytest.raises(ValueError, match="cannot convert"):
        mathml(r"\left( x")
