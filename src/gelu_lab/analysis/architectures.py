"""Where GELU is used: the activation each well-known architecture's configuration class sets by
default, read from the installed Hugging Face transformers when asked.

    ARCHITECTURES               (name, config class, attribute): what is read; the values are not here
    table(a=-4.0, b=4.0) -> dict    {"transformers": version | None, "rows": [...], "interval": (a, b)}
    form_gap(form, a, b) -> float   max |form(x) - GELU(x)| on [a, b], the Implementation page's measure

Each row: the architecture, the class and attribute read, the value the class's default
instance holds (``BertConfig().hidden_act``), the registry form that name means
(:func:`gelu_lab.activations.canonical`: exact, tanh or sigmoid GELU, SiLU, ReLU) and how far
that form is from exact GELU: the largest absolute difference on [a, b], located by
:func:`gelu_lab.analysis.errors.error_curves`, the function behind the Implementation page's
error curves. These are the classes' defaults: a checkpoint's own config.json may say otherwise.

T5's attribute is ``feed_forward_proj`` ("relu", "gated-gelu", ...); the activation name is what
T5Config derives from it (``dense_act_fn``), with ``is_gated_act`` saying whether the block is gated.
Without transformers, ``rows`` is empty and ``transformers`` None.
"""

from __future__ import annotations

import functools
import importlib
import warnings

from ..activations import canonical
from . import errors

ARCHITECTURES = (
    ("BERT", "BertConfig", "hidden_act"),
    ("RoBERTa", "RobertaConfig", "hidden_act"),
    ("ALBERT", "AlbertConfig", "hidden_act"),
    ("ELECTRA", "ElectraConfig", "hidden_act"),
    ("DeBERTa-v2", "DebertaV2Config", "hidden_act"),
    ("DistilBERT", "DistilBertConfig", "activation"),
    ("ModernBERT", "ModernBertConfig", "hidden_activation"),
    ("GPT-2", "GPT2Config", "activation_function"),
    ("GPT-J", "GPTJConfig", "activation_function"),
    ("GPT-NeoX", "GPTNeoXConfig", "hidden_act"),
    ("Phi", "PhiConfig", "hidden_act"),
    ("Gemma 2", "Gemma2Config", "hidden_activation"),
    ("Falcon", "FalconConfig", "activation"),
    ("T5", "T5Config", "feed_forward_proj"),
    ("OPT", "OPTConfig", "activation_function"),
    ("BART", "BartConfig", "activation_function"),
    ("ViT", "ViTConfig", "hidden_act"),
    ("CLIP (text)", "CLIPTextConfig", "hidden_act"),
    ("CLIP (vision)", "CLIPVisionConfig", "hidden_act"),
    ("Whisper", "WhisperConfig", "activation_function"),
    ("Llama", "LlamaConfig", "hidden_act"),
    ("Mistral", "MistralConfig", "hidden_act"),
)
INTERVAL = (-4.0, 4.0)  # the Implementation page's default interval
POINTS = 1201


def form_gap(form: str, a: float, b: float) -> float:
    """max |form(x) - GELU(x)| on [a, b] (0 for exact GELU), located as the error curves locate it."""
    if form == "gelu":
        return 0.0
    return float(errors.error_curves(form, "gelu", (a, b), n=POINTS).max_abs_error)


def _transformers():
    try:
        return importlib.import_module("transformers")
    except ImportError:
        return None


def read(tf, cls: str, attr: str) -> dict:
    """{"value", "name", "gated"}: the default instance's `attr`, the activation name it means."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = getattr(tf, cls)()
    value = getattr(cfg, attr)
    if attr == "feed_forward_proj":  # T5: "relu" or "gated-gelu"; T5Config derives the activation's name
        return {"value": value, "name": cfg.dense_act_fn, "gated": bool(cfg.is_gated_act)}
    return {"value": value, "name": value, "gated": False}


@functools.cache
def table(a: float = INTERVAL[0], b: float = INTERVAL[1]) -> dict:
    """The architectures' default activations as the installed transformers has them (see the module text)."""
    tf = _transformers()
    if tf is None:
        return {"transformers": None, "rows": [], "interval": (a, b)}
    rows, gaps = [], {}
    for arch, cls, attr in ARCHITECTURES:
        r = read(tf, cls, attr)
        form = canonical(r["name"])
        if form not in gaps:
            gaps[form] = form_gap(form, a, b)
        rows.append({"architecture": arch, "config": cls, "attribute": attr, **r, "form": form, "gap": gaps[form]})
    return {"transformers": tf.__version__, "rows": rows, "interval": (a, b)}
