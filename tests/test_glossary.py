"""The glossary (content/{zh,en}/glossary.md): one Chinese term per concept.

Every Chinese content file, outside code and formulas, must use the glossary's term and none of
the variants it lists under "avoid" (after taking out the correct phrases listed under "allow",
such as 前馈层（FFN） or 预激活值). The glossary is shown to readers on its own page, in both
languages, entry for entry.
"""

from __future__ import annotations

import re

import pytest

from gelu_lab.app import content
from gelu_lab.app.pages.glossary import page as glossary
from gelu_lab.app.pages.glossary import view as glossary_view

ZH = sorted(f.stem for f in (content.ROOT / "zh").glob("*.md") if f.stem != "glossary")
CODE = re.compile(r"```.*?```|`[^`\n]*`|\$\$.*?\$\$", re.S)  # code blocks, code spans, display formulas


def rules() -> list[tuple[str, list[str], list[str]]]:
    """(entry, phrases to avoid, correct phrases containing one) of the Chinese glossary."""
    t = content.text("zh", "glossary")
    return [(e, glossary_view.variants(t[f"avoid.{e}"]), glossary_view.variants(t.get(f"allow.{e}", ""))) for e in glossary.entries("zh") if f"avoid.{e}" in t]


def variants_used(text: str) -> list[str]:
    """The avoided phrases `text` uses (outside code), each with the glossary term it should be."""
    text = CODE.sub(" ", text)
    t = content.text("zh", "glossary")
    found = []
    for e, avoid, allow in rules():
        bare = text
        for phrase in sorted(allow, key=len, reverse=True):
            bare = bare.replace(phrase, " ")
        found += [f"{v!r} instead of {t[f'term.{e}']!r}" for v in avoid if v in bare]
    return found


@pytest.mark.parametrize("page", ZH)
def test_no_chinese_page_uses_a_variant_the_glossary_lists(page):
    bad = {name: used for name, block in content.text("zh", page).items() if (used := variants_used(block))}
    assert bad == {}


def test_the_check_catches_what_it_is_for():
    assert variants_used("每个前馈块里") == ["'前馈块' instead of '前馈层'"]
    assert variants_used("前馈层（FFN）：FFN(x) = act(xW₁)W₂，预激活值") == []  # the allowed forms
    assert variants_used("FFN 初始化标准差") == ["'FFN' instead of '前馈层'"]
    assert variants_used("落在种子间的随机波动之内，用 `tanh 近似` 写") != []  # code is skipped, the prose is not
    assert variants_used("这是 `tanh 近似`") == []
    assert "'tanh 近似' instead of 'tanh 形式'" in variants_used("tanh 近似的误差")


def test_both_languages_have_every_entry_and_the_page_shows_them():
    from gelu_lab.app.components import prose  # noqa: F401  (the page renders its definitions as prose)

    zh, en = glossary.entries("zh"), glossary.entries("en")
    assert zh == en and len(zh) >= 8
    tz, te = content.text("zh", "glossary"), content.text("en", "glossary")
    for e in zh:
        assert tz[f"term.{e}"] and tz[f"def.{e}"] and te[f"term.{e}"] and te[f"def.{e}"], e
    # the concepts issue 39 names, each with its one Chinese term
    want = {"exact": "精确形式", "tanh": "tanh 形式", "sigmoid": "sigmoid 形式", "ffn": "前馈层", "dead": "死亡神经元", "ulp": "ULP",
            "rounded": "正确舍入", "noise": "种子间波动", "interval": "95% 置信区间"}
    assert {e: tz[f"term.{e}"] for e in want} == want
    for lang in content.LANGS:
        page = str(glossary.layout({}, lang))
        assert all(f"glossary-{e}" in page for e in zh)
        assert all(te[f"term.{e}"] in page and tz[f"term.{e}"] in page for e in zh)  # each term beside its twin
