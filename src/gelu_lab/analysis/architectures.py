"""Where GELU is used: the activation each well-known architecture's configuration class sets by
default, read from the installed Hugging Face transformers when asked.

    ARCHITECTURES               (name, config class, attribute): what is read; the values are not here
    table(a=-4.0, b=4.0) -> dict    {"transformers": version | None, "rows": [...], "interval": (a, b)}
    form_gap(form, a, b) -> float   max |form(x) - GELU(x)| on [a, b], the Implementation page's measure
    ffn_structure(tf, cfg) -> dict  whether the model's FFN is gated, read from its code

Each row: the architecture, the class and attribute read, the value the class's default
instance holds (``BertConfig().hidden_act``), the registry form that name means
(:func:`gelu_lab.activations.canonical`: exact, tanh or sigmoid GELU, SiLU, ReLU) and how far
that form is from exact GELU (only for a plain FFN, see below): the largest absolute difference on [a, b], located by
:func:`gelu_lab.analysis.errors.error_curves`, the function behind the Implementation page's
error curves. These are the classes' defaults: a checkpoint's own config.json may say otherwise.

T5's attribute is ``feed_forward_proj`` ("relu", "gated-gelu", ...); the activation name is what
T5Config derives from it (``dense_act_fn``).

Whether the FFN is gated is read from the model code, not from a list: :func:`ffn_structure`
builds the architecture's model from its default configuration on PyTorch's "meta" device
(shapes, no memory, no weights) and looks at the linear maps of its first FFN. A plain FFN
W₂·act(W₁x) has one map in, of width d_ff; a gated one W₂·(act(W₁x) ⊙ Vx) has two (or one of
width 2·d_ff, split in two). In a gated FFN the activation's output is multiplied by a second
projection, so its distance to GELU says nothing comparable: ``gap`` is None there.
Without transformers, ``rows`` is empty and ``transformers`` None; without torch, ``gated`` is None.
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


def transformers():
    try:
        return importlib.import_module("transformers")
    except ImportError:
        return None


def _linear_maps(model) -> list[tuple[str, int, int]]:
    """(module path, inputs, outputs) of every linear map of a torch model (GPT-2's Conv1D stores its weight transposed)."""
    import torch

    maps = []
    for path, m in model.named_modules():
        if isinstance(m, torch.nn.Linear):
            maps.append((path, m.in_features, m.out_features))
        elif type(m).__name__ == "Conv1D":
            maps.append((path, int(m.weight.shape[0]), int(m.weight.shape[1])))
    return maps


def ffn_structure(tf, cfg) -> dict:
    """{"gated": True | False | None, "d_ff"}: the first FFN of the model `cfg` configures, built
    on the meta device. Its way out is the first linear map from d_ff > d_model back to d_model;
    its ways in are the maps from d_model to d_ff or 2·d_ff in the smallest module around the
    way out that has any (so a fused attention map of a neighbouring block is not counted).
    Gated when the ways in add up to 2·d_ff. None: torch is missing or no FFN was found."""
    try:
        import torch
    except ImportError:
        return {"gated": None, "d_ff": None}
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        maps = _linear_maps(tf.AutoModel.from_config(cfg))
    d = cfg.hidden_size
    out = next(((p, i) for p, i, o in maps if o == d and i > d), None)
    if out is None:
        return {"gated": None, "d_ff": None}
    path, d_ff = out
    scope = path
    while scope:
        scope = scope.rpartition(".")[0]
        ins = [o for p, i, o in maps if p.startswith(scope + "." if scope else "") and i == d and o in (d_ff, 2 * d_ff)]
        if ins:
            return {"gated": sum(ins) == 2 * d_ff, "d_ff": d_ff}
    return {"gated": None, "d_ff": d_ff}


def read(tf, cls: str, attr: str) -> dict:
    """{"value", "name", "gated"}: the default instance's `attr`, the activation name it means,
    and whether the model's FFN is gated (read from its code: ffn_structure)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = getattr(tf, cls)()
    value = getattr(cfg, attr)
    name = cfg.dense_act_fn if attr == "feed_forward_proj" else value  # T5: "relu" or "gated-gelu"; T5Config derives the name
    return {"value": value, "name": name, "gated": ffn_structure(tf, cfg)["gated"]}


@functools.cache
def table(a: float = INTERVAL[0], b: float = INTERVAL[1]) -> dict:
    """The architectures' default activations as the installed transformers has them (see the module text)."""
    tf = transformers()
    if tf is None:
        return {"transformers": None, "rows": [], "interval": (a, b)}
    rows, gaps = [], {}
    for arch, cls, attr in ARCHITECTURES:
        r = read(tf, cls, attr)
        form = canonical(r["name"])
        if form not in gaps:
            gaps[form] = form_gap(form, a, b)
        rows.append({"architecture": arch, "config": cls, "attribute": attr, **r, "form": form, "gap": None if r["gated"] else gaps[form]})
    return {"transformers": tf.__version__, "rows": rows, "interval": (a, b)}
