"""The theory pages' analogies quote computed numbers, and say them right (issue 19).

Each page is rendered the way the server renders a page load (gelu_lab.app.shell.render,
no browser), in both languages; the number an analogy quotes is checked against mpmath
(or, for the gradient flow, against the measurement the page shows), formatted here to
four significant figures. The content templates hold placeholders, not the numbers.
Also the Chinese words of these pages: Chinese quotation marks, 0.5 (not 二分之一 or ½), 神经元死亡.
"""

from __future__ import annotations

import mpmath
import pytest

from gelu_lab.analysis import gradflow
from gelu_lab.app import content, page_module, registry, shell
from test_page_text import visible  # what a reader sees: one walker for every page-text test

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)

PAGES = ("definition", "relu", "sigmoid", "gradients")


def s4(v) -> str:
    """Four significant figures, trailing zeros kept (84.13, −0.1700), as running text shows them
    (its minus sign U+2212: app.components.typeset)."""
    return f"{float(v):#.4g}".rstrip(".").replace("-", "\u2212")


def exact(v) -> str:
    return f"{float(v):.4g}"  # 0.5, 0.25


def _prose_blocks(node):
    """The text of each md() block (className "prose") of a component tree."""
    if hasattr(node, "to_plotly_json"):
        node = node.to_plotly_json()
    if isinstance(node, (list, tuple)):
        for v in node:
            yield from _prose_blocks(v)
    elif isinstance(node, dict) and "props" in node:
        if node["props"].get("className") == "prose":
            yield "".join(visible(node["props"].get("children")))
        else:
            yield from _prose_blocks(node["props"].get("children"))


def render(slug: str, lang: str):
    page = next(p for p in registry.PAGES if p.slug == slug)
    rendered = shell.render(page.route, f"?lang={lang}", {slug: page_module(slug)})
    return next(c for c in rendered.children if getattr(c, "id", None) == f"page-{slug}")  # the page's <main>


def block(slug: str, lang: str, marker: str) -> str:
    """The rendered text of the one md() block of a page that contains `marker`."""
    found = [b for b in _prose_blocks(render(slug, lang)) if marker in b]
    assert len(found) == 1, (slug, lang, marker, found)
    return found[0]


MARK = {  # what marks each analogy block, per language
    "hr": {"zh": "人事办公室", "en": "arrives at an HR office"},
    "hr.breaks": {"zh": "比喻在哪里不成立", "en": "Where the analogy breaks"},
    "ride": {"zh": "骑车下山", "en": "bicycle riding downhill"},
    "ride.check": {"zh": "比喻之外", "en": "What the numbers correct"},
    "flow.ride": {"zh": "回到骑车的比喻", "en": "Back to the bicycle"},
}


def _gelu_min():
    root = mpmath.findroot(lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x), -0.75)
    return root, root * mpmath.ncdf(root)


@pytest.mark.parametrize("lang", content.LANGS)
def test_hr_office_shares_are_phi(lang):
    text = block("definition", lang, MARK["hr"][lang])
    for x in (1, -1, 0):
        assert f"{s4(100 * mpmath.ncdf(x))}%" in text, x  # the share Phi(x) that gets through
    assert s4(1 * mpmath.ncdf(1)) in text and s4(-1 * mpmath.ncdf(-1)) in text  # what comes out
    assert "84.13%" in text and "15.87%" in text  # the seed's "about 84 %" and "about 16 %", to four figures
    raw = content.text(lang, "definition")["hr.text"]
    assert "{phi1}" in raw and "84" not in raw and "16" not in raw  # computed by the page, not typed in


@pytest.mark.parametrize("lang", content.LANGS)
def test_hr_office_says_where_it_breaks(lang):
    text = block("definition", lang, MARK["hr.breaks"][lang])
    root, low = _gelu_min()
    assert s4(low) in text and s4(root) in text  # negative inputs do come through: GELU's minimum and where
    assert ("期望" if lang == "zh" else "expectation") in text  # not a sampled mask
    # the vs-ReLU page refers to the analogy instead of telling it again
    assert {"zh": "人事办公室", "en": "HR-office analogy"}[lang] in content.text(lang, "relu")["intro"]
    assert "{" not in content.text(lang, "relu")["intro"]


@pytest.mark.parametrize("lang", content.LANGS)
def test_bicycle_corrections_are_computed(lang):
    assert block("gradients", lang, MARK["ride"][lang])
    text = block("gradients", lang, MARK["ride.check"][lang])
    root, _ = _gelu_min()
    s2 = mpmath.sqrt(2)
    dmin = mpmath.ncdf(-s2) - s2 * mpmath.npdf(s2)  # GELU'' = phi(x)(2 - x^2) = 0 at -sqrt 2
    # the minimum really is there: GELU' is larger just beside it
    g1 = lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x)  # noqa: E731
    assert g1(-s2 - mpmath.mpf("1e-3")) > dmin < g1(-s2 + mpmath.mpf("1e-3"))
    assert exact(mpmath.ncdf(0)) in text  # GELU'(0) = Phi(0): the slope at 0 is 0.5, not 1
    for want in (s4(root), s4(dmin), s4(-s2)):
        assert want in text, want
    raw = content.text(lang, "gradients")["ride.check"]
    assert "0.5" not in raw and "0.1289" not in raw


@pytest.mark.parametrize("lang", content.LANGS)
def test_bicycle_flow_numbers_are_the_measured_ones(lang):
    depth = page_module("gradients").page.DEPTH.default
    text = block("gradients", lang, MARK["flow.ride"][lang])
    first = {(a, n): gradflow.gradient_flow(n, depth, a)[0] for a in gradflow.ARCHS for n in ("gelu", "relu")}
    for v in first.values():
        assert s4(v) in text, v
    assert str(depth) in text
    # what the sentence says of them: in the plain MLP ReLU keeps the gradient better than GELU,
    # at every depth of the slider, and in the pre-LN stack the two are close
    for d in range(1, gradflow.MAX_DEPTH + 1):
        assert gradflow.gradient_flow("relu", d, "mlp")[0] > gradflow.gradient_flow("gelu", d, "mlp")[0], d
    assert abs(first["preln", "gelu"] / first["preln", "relu"] - 1) < 0.05
    # "with a residual path, neither activation lets the gradient vanish": pre-LN and post-LN (BERT's)
    assert all(first[a, n] > 0.1 for a in ("preln", "postln") for n in ("gelu", "relu"))


@pytest.mark.parametrize("lang", content.LANGS)
def test_relu_and_sigmoid_quote_computed_slopes(lang):
    s2 = mpmath.sqrt(2)
    soft = block("relu", lang, "GELU(x) − x = GELU(−x)")
    assert exact(mpmath.ncdf(0)) in soft
    dead = "".join(_prose_blocks(render("relu", lang)))
    assert s4(mpmath.ncdf(-s2) - s2 * mpmath.npdf(s2)) in dead and s4(mpmath.ncdf(s2) + s2 * mpmath.npdf(s2)) in dead
    sq = block("sigmoid", lang, "σ′")
    assert exact(mpmath.npdf(0) * mpmath.sqrt(2 * mpmath.pi) / 4) in sq  # max sigma' = sigma'(0) = 1/4


@pytest.mark.parametrize("slug", PAGES)
def test_zh_words(slug):
    """Chinese quotation marks, 0.5 and 0.25 as numbers, one term for dead units (digits, placeholders
    and raw identifiers on every page: tests/test_page_text.py)."""
    zh = "\n".join(visible(render(slug, "zh")))
    for bad in ('"', "½", "¼", "二分之一", "四分之一", "死亡单元", "死亡 ReLU"):
        assert bad not in zh, bad
