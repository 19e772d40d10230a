"""Claims about the models around GELU, each checked (registered in gelu_lab.analysis.claims).

    t5_gelu()                       T5's FFN: v1.0 (T5Config's default) and v1.1 ("gated-gelu")
    llama_gelu()                    LLaMA's FFN: LlamaConfig's activation, gated or not
    inputs_standard_normal(store)   the inputs of GELU in the BERT probe against N(0, 1)
    smooth_deep()                   what carries the gradient down 24 layers at initialisation

The model claims read the installed Hugging Face transformers: the configuration class for the
activation's name, the model code for the FFN's structure (analysis.architectures.ffn_structure).
"""

from __future__ import annotations

from ..activations import canonical
from . import architectures, gradflow
from .evidence import ev

TF_HOW = "pip install transformers"
GELU_FORMS = ("gelu", "gelu_tanh", "gelu_sigmoid")
KS_FAR = 0.1  # a Kolmogorov–Smirnov distance this large: a tenth of the inputs on the wrong side somewhere
VANISHED = 1e-3  # a first-layer gradient this small (relative to the top) has vanished
KEPT = 0.1  # one this large has not


def _ffn(tf, cfg, act_name: str) -> dict:
    """The activation a config names, its form, and whether the model's FFN is gated (from its code)."""
    return {"activation": act_name, "form": canonical(act_name), "gated": architectures.ffn_structure(tf, cfg)["gated"]}


def t5_gelu():
    """T5 v1.0 is T5Config's default (feed_forward_proj "relu"); T5 v1.1's checkpoints set
    "gated-gelu". The claim, "as BERT does", needs GELU in a plain FFN: neither has it."""
    tf = architectures.transformers()
    if tf is None:
        return ev("untested", {}, "note.transformers_missing", how=TF_HOW)
    f = {}
    for version, kw in (("v1_0", {}), ("v1_1", {"feed_forward_proj": "gated-gelu"})):
        cfg = tf.T5Config(**kw)
        got = _ffn(tf, cfg, cfg.dense_act_fn)
        f |= {f"{version}_proj": cfg.feed_forward_proj, f"{version}_activation": got["activation"], f"{version}_gated": got["gated"]}
    plain_gelu = any(canonical(f[f"{v}_activation"]) in GELU_FORMS and f[f"{v}_gated"] is False for v in ("v1_0", "v1_1"))
    return ev("true" if plain_gelu else "false", f, "note.t5_gelu",
              {"v10_proj": f["v1_0_proj"], "v10_act": f["v1_0_activation"], "v11_act": f["v1_1_activation"], "version": tf.__version__})


def llama_gelu():
    """LlamaConfig's activation and the structure of the FFN its model code builds."""
    tf = architectures.transformers()
    if tf is None:
        return ev("untested", {}, "note.transformers_missing", how=TF_HOW)
    cfg = tf.LlamaConfig()
    got = _ffn(tf, cfg, cfg.hidden_act)
    f = {"hidden_act": got["activation"], "gated": got["gated"], "d_model": cfg.hidden_size, "d_ff": cfg.intermediate_size}
    return ev("true" if got["form"] in GELU_FORMS else "false", f, "note.llama_gelu",
              {"act": got["activation"], "version": tf.__version__})


def inputs_standard_normal(store, measure):
    """The BERT probe's FFN pre-activations, layer by layer, against N(0, 1): false when every
    layer is more than KS_FAR from it (in Kolmogorov–Smirnov distance), depends when some are."""
    from .. import results

    got = results.latest("probe", store=store)
    if got is None:
        return ev("untested", {}, "note.inputs_standard_normal.none", how="gelu-lab probe")
    layers = [{"layer": i + 1, **{k: L[k] for k in ("mean", "std", "ks_std_normal", "ks_fitted_normal", "excess_kurtosis")}}
              for i, L in enumerate(got.value["layers"])]
    far = [L["ks_std_normal"] > KS_FAR for L in layers]
    verdict = "false" if all(far) else "depends" if any(far) else "true"
    span = lambda k: (min(L[k] for L in layers), max(L[k] for L in layers))  # noqa: E731
    v = {"model": got.value.get("model", "?"), "n": got.value.get("n_sentences"), "far": KS_FAR}
    for k, name in (("mean", "mean"), ("std", "std"), ("ks_std_normal", "ks"), ("ks_fitted_normal", "fit"), ("excess_kurtosis", "kurt")):
        v[f"{name}_lo"], v[f"{name}_hi"] = span(k)
    return ev(verdict, {"layers": layers, "ks_far": KS_FAR}, "note.inputs_standard_normal", v, "gelu-lab probe", got.source, got.provenance)


def smooth_deep():
    """At BERT-large's depth, at initialisation: the gradient reaching the first layer (relative
    to the top) in the three stacks of the Gradients page. False when ReLU, not smooth at 0, keeps
    it in every stack and the sigmoid, smooth everywhere, loses it in the plain one."""
    depth = gradflow.MAX_DEPTH
    first = {a: {n: float(gradflow.gradient_flow(n, depth, a)[0]) for n in ("gelu", "relu", "sigmoid")} for a in gradflow.ARCHS}
    relu_keeps = all(first[a]["relu"] >= KEPT for a in gradflow.ARCHS)
    smooth_loses = first["mlp"]["sigmoid"] < VANISHED
    f = {"depth": depth, "first_layer": [{"arch": a, **first[a]} for a in gradflow.ARCHS], "kept": KEPT, "vanished": VANISHED}
    v = {"depth": depth, **{f"{a}_{n}": first[a][n] for a in gradflow.ARCHS for n in ("gelu", "relu", "sigmoid")}}
    return ev("false" if relu_keeps and smooth_loses else "depends", f, "note.smooth_deep", v)
