"""Numbers as the Real BERT and Misconceptions pages print them: about four significant
figures, the full value on hover; a cosine near 1 shown as its gap to 1; counts grouped;
every evidence key said in words. Checked against the stored results and against mpmath."""

from __future__ import annotations

import math
import re

import mpmath
import pytest

from gelu_lab.analysis import claims as C
from gelu_lab.app import content
from gelu_lab.app.claim_words import case, value, words
from gelu_lab.app.components import sig
from gelu_lab.app.pages.bert import page as bert
from gelu_lab.app.pages.misconceptions import view as misconceptions
from gelu_lab.app.pages.bert import view as probe_words
from gelu_lab.nn import probe_view
from dash_tree import as_json


def _spans(node):
    """(text, title) of every full-value span under a Dash component."""
    js = as_json(node) if hasattr(node, "to_plotly_json") else node  # static markup read back into components
    if isinstance(js, dict) and "props" in js:
        p = js["props"]
        if "full-value" in str(p.get("className", "")):
            yield p["children"], p["title"]
        yield from _spans(p.get("children"))
    elif isinstance(js, (list, tuple)):
        for x in js:
            yield from _spans(x)


@pytest.fixture(scope="module")
def probe():
    return probe_view.stored()["result"]


def test_bert_tables_show_one_minus_the_score(probe):
    t = content.text("zh", "bert")
    rows = [w for w in probe["swaps"] if w["layer"] == "all"]
    got = list(_spans(bert.swap_table(probe, bert._names("zh"), t)))
    want = [1 - w[m] for w in rows for m in ("cos_mean", "cos_min", "spearman")]
    assert len(got) == len(want)
    for (text, title), gap in zip(got, want):
        assert float(title) == gap and text == sig(gap)
        assert float(text) == pytest.approx(gap, rel=5e-4)  # four figures of the gap itself
    # the tanh form's cosines round to 1.000 but their gaps do not: the table tells it from SiLU's
    tanh = next(w for w in rows if w["activation"] == "gelu_tanh")
    assert sig(tanh["cos_mean"]) == "1.000" and float(sig(1 - tanh["cos_mean"])) > 0
    prec = list(_spans(bert.precision_table(probe, t)))
    assert [float(ti) for _, ti in prec] == [1 - p[m] for p in probe["precision"] for m in ("cos_mean", "cos_min", "spearman")]


def test_bert_text_quotes_the_gaps_and_grouped_counts(probe):
    v = probe_words.quoted(probe)
    cr = probe["precision"][-1]
    assert float(v["cr_gap"]) == pytest.approx(1 - cr["cos_min"], rel=5e-4) and len(v["cr_gap"].split("e")[0].replace(".", "").lstrip("0")) == 4
    assert v["tokens"] == f"{probe['tokens']:,}" and v["n"] == f"{probe['n_sentences']:,}"
    prec = content.fill(content.text("zh", "bert")["prec.text"], **v)
    assert v["cr_gap"] in prec and f"{cr['cos_min']:.12f}" not in prec


def test_lists_in_claim_notes_are_separated_as_each_language_writes_them():
    """"NumPy 5.91×, PyTorch 0.388×" in English (a content block cannot end in the space), "…、…" in Chinese."""
    ratios = {"numpy:tanh / numpy:erf": 5.91, "torch:tanh / torch:erf": 0.388}
    en, zh = (value(ratios, content.text(lang, "misconceptions"), lang) for lang in ("en", "zh"))
    assert re.fullmatch(r"NumPy \S+, PyTorch \S+", en), en
    assert zh.count("、") == 1 and "," not in zh, zh


def test_claim_values_read_as_a_reader_wants(monkeypatch):
    t = content.text("zh", "misconceptions")
    assert [value(x, t, "zh") for x in (0.5, 0.0, 10_000_000, -0.04550026389635842, 1.4332578593959695e-06)] == ["0.5", "0", "10,000,000", "-0.04550", "1.433e-06"]
    assert value(True, t, "zh") == t["value.yes"] and value(None, t, "zh") == t["value.none"]
    assert case("numpy:tanh / numpy:erf", t) == "NumPy" and case("torch:tanh:fwd+bwd / torch:erf:fwd+bwd", t) == content.fill(t["backend.pass"], name="PyTorch")
    # PyTorch's default GELU: the note gives the gaps to each form, which mpmath recomputes
    res = C.check("torch_default_tanh")
    note = words(res, "en")["note"]
    with mpmath.workdps(30):
        exact = mpmath.ncdf(1)
        tanh = 0.5 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (1 + 0.044715)))
    y = res["figures"]["gelu(1)"]
    assert sig(abs(y - float(tanh))) in note and sig(y) in note
    assert abs(y - float(exact)) < 1e-15  # the default is the erf form (torch 2.x)
    assert not re.search(r"\d\.\d{8,}", note)  # no 0.8413447460685429


def test_every_evidence_key_has_words_and_no_note_prints_too_many_digits():
    for lang in content.LANGS:
        t = content.text(lang, "misconceptions")
        for res in C.check_all(False):
            keys = set()

            def walk(v):
                if isinstance(v, dict):
                    for k, x in v.items():
                        keys.add(k)
                        walk(x)
                elif isinstance(v, (list, tuple)):
                    for x in v:
                        walk(x)

            walk(res["figures"])
            missing = [k for k in keys if k != "key" and " / " not in k and "num." + re.sub(r"[^\w.\-]", "_", k) not in t]
            assert missing == [], (lang, res["id"], missing)
            for number in re.findall(r"\d[\d.]*", words(res, lang)["note"]):
                assert len(number.replace(".", "").lstrip("0")) <= 7, (res["id"], number)


def test_evidence_table_keeps_the_full_value_on_hover():
    res = C.check("monotonic")
    t = content.text("zh", "misconceptions")
    got = dict(zip(res["figures"], _spans(misconceptions.numbers(res["figures"], t, "zh"))))
    x0 = got["argmin"]
    assert float(x0[1]) == res["figures"]["argmin"] and x0[0] == sig(res["figures"]["argmin"])
    assert math.isclose(float(x0[0]), res["figures"]["argmin"], rel_tol=5e-4)
