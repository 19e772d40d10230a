"""Our FFN variants beside Shazeer 2020: the orderings, the pairs that agree, the page's table and
sentence, and the gated block's numbers (no browser)."""

import json
import statistics

import pytest

from gelu_lab.analysis import glu_paper
from gelu_lab.app import content
from gelu_lab.app.pages.ffn import paper as ffn_paper
from gelu_lab.app.pages.ffn import view as ffn_words
from gelu_lab.nn import ffn_view
from gelu_lab.stats.runsets import experiments

PAPER_65K = {"relu": 1.997, "gelu": 1.983, "silu": 1.994, "glu": 1.982, "bilinear": 1.960, "reglu": 1.953, "geglu": 1.942, "swiglu": 1.944}


def run(act, seed, loss, lr=4e-3):
    cfg = {"activation": act, "seed": seed, "lr": lr, "n_embd": 128, "fc_init_std": 0.02, "preset": "decide", "steps": 1000, "n_layer": 4,
           "params": 820480}
    return {"id": hash((act, seed, lr)) % 10**7, "config": cfg, "final": {"val_loss_full": loss}, "metrics": {}, "provenance": {}}


def cell(losses: dict, seeds=4):
    """An experiment whose seed 0 is swept at two rates (the second worse), each variant's seeds at its loss + a seed wobble."""
    runs = [run(a, s, v + 0.001 * ((s * 7 + len(a)) % 3), 4e-3) for a, v in losses.items() for s in range(seeds)]
    runs += [run(a, 0, v + 1.0, 8e-3) for a, v in losses.items()]
    (e,) = experiments(runs)
    return next(c for c in e["cells"] if c["main"])


def test_ours_in_the_paper_s_order_agrees_on_every_pair():
    s = glu_paper.side_by_side(cell({a: v - 0.2 for a, v in PAPER_65K.items()}))
    n = len(PAPER_65K)
    assert s["variants"] == list(PAPER_65K) and len(s["pairs"]) == n * (n - 1) // 2
    assert len(s["agree"]) == len(s["pairs"]) and not s["settled_disagree"] and not s["noise_disagree"]
    assert s["order_ours"] == s["order_paper"] == sorted(PAPER_65K, key=PAPER_65K.get)
    assert s["gated_first"] == {"ours": True, "paper": True} and s["params"] == 820480
    gap = s["ours"]["swiglu"]["gap"]  # SwiGLU minus GELU, paired by seed
    assert gap["mean"] == pytest.approx(PAPER_65K["swiglu"] - PAPER_65K["gelu"], abs=0.003) and gap["n"] == 4
    assert s["paper"]["geglu"]["gap_long"] == pytest.approx(1.633 - 1.679)


def test_a_variant_out_of_place_is_named_and_the_headline_checked():
    losses = {a: v - 0.2 for a, v in PAPER_65K.items()}
    losses["relu"] = 1.0  # far ahead of everything: against the paper in every pair it is in, beyond the noise
    s = glu_paper.side_by_side(cell(losses))
    against = {(p["a"], p["b"]) for p in s["settled_disagree"]}
    assert against == {("relu", b) for b in PAPER_65K if b != "relu" and PAPER_65K[b] < PAPER_65K["relu"]}
    assert s["gated_first"]["ours"] is False and s["order_ours"][0] == "relu"
    t = content.text("en", "ffn")
    said = ffn_paper.sentence(s, t, "en")
    assert t["paper.gated.not"] in said and "ReLU / GELU (exact)" in said and f"**{len(s['agree'])}**" in said
    assert glu_paper.side_by_side(None) is None and glu_paper.side_by_side(cell({"gelu": 1.8})) is None


def test_partial_results_show_the_paper_and_say_what_is_missing():
    t = content.text("en", "ffn")
    d = {"main": cell({"gelu": 1.8, "relu": 1.79})}
    text = json.dumps([c.to_plotly_json() for c in ffn_paper.block(d, "en", t, {"experiment": {"pending": 7}})], default=str)
    assert content.fill(t["paper.partial"], n="7") in text and "SwiGLU" in text  # the missing variants are named
    assert ffn_paper.block(None, "zh", content.text("zh", "ffn"))  # no experiment: the paper's numbers still


def test_the_page_s_table_quotes_the_runs():
    c = cell({"gelu": 1.8, "swiglu": 1.75, "relu": 1.81})
    s = glu_paper.side_by_side(c)
    html = repr(ffn_paper.table(s, "en", content.text("en", "ffn")).to_plotly_json())
    mean = statistics.mean(r["final"]["val_loss_full"] for r in c["runs"] if r["config"]["activation"] == "swiglu")
    assert f"{mean:.3f} (4)" in html and "1.944" in html


def test_gated_block_takes_either_sign_and_the_counts_match():
    relu, reglu = ffn_view.live("relu", 1.0), ffn_view.live("reglu", 1.0)
    shown = {a: ffn_words.readouts(d["readouts"]) for a, d in (("relu", relu), ("reglu", reglu))}  # the page's view says the numbers
    assert shown["relu"][5] == "0.0%" and not relu["gated"] and reglu["gated"]
    lo, hi = (float(v) for v in shown["reglu"][6].strip("[]").split(","))
    assert lo < -1 and hi > 1  # the product spreads to both sides
    for row in ffn_view.param_counts(128):
        assert abs(row["ratio"] - 1) < 0.01 and row["params"] > 0


@pytest.mark.parametrize("lang", content.LANGS)
def test_the_story_s_gated_step_quotes_the_counts_and_our_intervals(lang):
    from gelu_lab.app.pages.story import view as story
    from gelu_lab.nn import variants

    t = content.text(lang, "story")
    c = cell({"gelu": 1.8, "swiglu": 1.75, "geglu": 1.76})
    v = story.after(lang, t, {"c": c["runs"][0]["config"], "main": c})
    assert v["gated_hidden"] == str(variants.hidden_width(128, True)) and v["plain_hidden"] == "512"
    s = glu_paper.side_by_side(c)
    lo = s["ours"]["swiglu"]["gap"]["lo"]
    assert story.signed(lo) in v["ours_gated"] and content.label("geglu", lang) in v["ours_gated"]
    assert v["p_swiglu"] == "1.944" and v["p_steps"] == "65,536"
    assert story.after(lang, t, None)["ours_gated"] == t["after.none"]  # no experiment: said so, no number invented
