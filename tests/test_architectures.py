"""Where GELU is used: the Overview's table of architectures' default activations.

The config classes are read here again, independently of gelu_lab.analysis.architectures (its
own list of classes and attributes is not used), and the form's distance to exact GELU is
recomputed on a dense grid.
"""

from __future__ import annotations

import numpy as np
import pytest

from gelu_lab import activations
from gelu_lab.analysis import architectures

import transformers  # noqa: E402  (make test installs it: the bert extra)

# what the brief names: architecture -> (config class, attribute)
EXPECTED = {
    "BERT": ("BertConfig", "hidden_act"), "RoBERTa": ("RobertaConfig", "hidden_act"), "ALBERT": ("AlbertConfig", "hidden_act"),
    "ELECTRA": ("ElectraConfig", "hidden_act"), "DeBERTa-v2": ("DebertaV2Config", "hidden_act"),
    "DistilBERT": ("DistilBertConfig", "activation"), "ModernBERT": ("ModernBertConfig", "hidden_activation"),
    "GPT-2": ("GPT2Config", "activation_function"), "GPT-J": ("GPTJConfig", "activation_function"),
    "GPT-NeoX": ("GPTNeoXConfig", "hidden_act"), "Phi": ("PhiConfig", "hidden_act"), "Gemma 2": ("Gemma2Config", "hidden_activation"),
    "Falcon": ("FalconConfig", "activation"), "T5": ("T5Config", "feed_forward_proj"), "OPT": ("OPTConfig", "activation_function"),
    "BART": ("BartConfig", "activation_function"), "ViT": ("ViTConfig", "hidden_act"), "CLIP (text)": ("CLIPTextConfig", "hidden_act"),
    "CLIP (vision)": ("CLIPVisionConfig", "hidden_act"), "Whisper": ("WhisperConfig", "activation_function"),
    "Llama": ("LlamaConfig", "hidden_act"), "Mistral": ("MistralConfig", "hidden_act"),
}


@pytest.fixture(scope="module")
def table():
    return architectures.table()


def test_every_architecture_is_read_from_its_config_class(table):
    assert table["transformers"] == transformers.__version__
    rows = {r["architecture"]: r for r in table["rows"]}
    assert set(rows) == set(EXPECTED)
    for arch, (cls, attr) in EXPECTED.items():
        cfg = getattr(transformers, cls)()
        r = rows[arch]
        assert (r["config"], r["attribute"], r["value"]) == (cls, attr, getattr(cfg, attr)), arch
        name = cfg.dense_act_fn if arch == "T5" else getattr(cfg, attr)
        assert r["name"] == name and r["form"] == activations.canonical(name), arch


def test_every_name_maps_to_a_form_the_pages_know(table):
    for r in table["rows"]:
        assert r["form"] in activations.names(), r


def test_the_gap_is_the_largest_difference_to_exact_gelu(table):
    a, b = table["interval"]
    x = np.linspace(a, b, 400_001)
    g = activations.get("gelu").fn(x)
    for r in table["rows"]:
        if r["gated"]:  # in a gated FFN the activation is multiplied by a second projection: no comparable gap
            assert r["gap"] is None, r
            continue
        grid = float(np.max(np.abs(activations.get(r["form"]).fn(x) - g)))
        assert r["gap"] >= grid - 1e-15 and r["gap"] <= grid * (1 + 1e-6) + 1e-15, r


# the FFN each paper describes: LLaMA (Touvron et al. 2023) and Mistral 7B use SwiGLU, Gemma 2
# (Gemma Team 2024) and ModernBERT (Warner et al. 2024) GeGLU; every other one here is the plain
# W2 act(W1 x) of BERT, GPT-2, T5 v1.0 (ReLU), ViT, CLIP, Whisper, OPT, BART, Falcon, Phi
GATED = {"ModernBERT", "Gemma 2", "Llama", "Mistral"}


def test_the_ffn_structure_is_the_papers(table):
    assert {r["architecture"] for r in table["rows"] if r["gated"]} == GATED
    assert all(r["gated"] is False for r in table["rows"] if r["architecture"] not in GATED)


def test_the_ffn_structure_follows_t5s_own_switch():
    """T5's config says itself whether its FFN is gated (is_gated_act): the structure read from
    the model code must agree, both ways."""
    for proj in ("relu", "gated-gelu", "gated-silu"):
        cfg = transformers.T5Config(feed_forward_proj=proj, num_layers=1, num_decoder_layers=1)
        got = architectures.ffn_structure(transformers, cfg)
        assert got == {"gated": cfg.is_gated_act, "d_ff": cfg.d_ff}, proj


def test_without_transformers_the_section_says_so_in_one_line(monkeypatch):
    from gelu_lab.app import architecture_table, content

    monkeypatch.setattr(architectures, "transformers", lambda: None)
    architectures.table.cache_clear()
    try:
        assert architectures.table()["rows"] == []
        for lang in ("zh", "en"):
            div = architecture_table.table(lang)
            assert div.id == "overview-arch" and "pip install transformers" in str(div) and str(div).count("P(") == 1
            assert "overview-arch-table" not in str(div)
    finally:
        architectures.table.cache_clear()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_overview_shows_the_table(lang, table):
    from gelu_lab.app import content
    from gelu_lab.app.pages.overview import page as overview

    page = str(overview.layout({p.name: p.default for p in overview.PARAMS}, lang))
    t = content.text(lang, "overview")
    assert "overview-arch-table" in page and t["arch.col.gap"].split("{")[0] in page
    for r in table["rows"]:
        assert f"data-arch='{r['architecture']}'" in page or f'data-arch="{r["architecture"]}"' in page
    assert page.count("Config().") == len(EXPECTED)
    assert page.count(t["arch.gap.gated"]) == len(GATED)  # no distance to GELU where the FFN is gated
