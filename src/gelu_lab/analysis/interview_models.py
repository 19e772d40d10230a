"""The numbers of the Interview questions that read models and measurements (analysis.interview
registers them with their questions): the approximations in a real BERT and in 16-bit formats,
the framework names, the FFN experiment, the gated FFN's size, LayerNorm's place.

Each function returns {key: value} for one question. The measurements are the shipped ones
(a value of the installed package, the same for every reader): results.latest(..., store=False).
"""

from __future__ import annotations

import math

from .. import activations
from . import errors, forms, gradflow
from .interview_math import INTERVAL


def probe_swaps() -> dict:
    """{activation: all-layer swap row} of the shipped BERT probe (a value of the installed package)."""
    from .. import results

    got = results.latest("probe", store=False)
    return {w["activation"]: w for w in (got.value["swaps"] if got else []) if w["layer"] == "all"}


def tanh_vs_erf():
    c = errors.error_curves("tanh", "gelu", INTERVAL)
    s = errors.error_curves("sigmoid", "gelu", INTERVAL)
    w = probe_swaps()
    kept = {f: w[f"gelu_{f}"]["nn_top1"] if f"gelu_{f}" in w else math.nan for f in ("tanh", "sigmoid")}
    return {"tanh_max": c.max_abs_error, "tanh_x": abs(c.argmax), "sigmoid_max": s.max_abs_error, "tanh_nn": kept["tanh"], "sigmoid_nn": kept["sigmoid"]}


def steps16():
    """The approximations' largest errors in float16 steps at their peaks (analysis.forms)."""
    a = forms.apart(*INTERVAL)
    return {"tanh_f16_steps": a["gelu_tanh"]["steps"]["float16"], "sigmoid_f16_steps": a["gelu_sigmoid"]["steps"]["float16"]}


def differ16():
    """How many inputs of each 16-bit format round differently under the exact and the tanh form,
    and the approximations' peaks in float16 steps."""
    return {**{f"differ_{dt}": forms.differ16("gelu_tanh", dt) for dt in ("bfloat16", "float16")}, **steps16()}


def ffn_gain():
    """GELU against ReLU in the shipped learning-rate experiment (the FFN page's): the paired
    final-loss difference and its 95 % interval, and the worst dead-ReLU share of any layer
    of any of its ReLU runs. The shipped set only: a value of the installed package."""
    from .. import results
    from ..stats.runsets import experiments, main_cell, pair_of
    from .claims import dead_relu_shares

    got = results.latest("train", store=False)
    exps = experiments(got.value) if got else []
    main = main_cell(exps)
    p = pair_of(main, "relu")
    paper = {k: v for k, v in paper_numbers().items() if k in PAPER_GELU_RELU}
    if p is None:
        return {**{k: math.nan for k in ("ffn_gap", "ffn_lo", "ffn_hi", "ffn_n", "ffn_width", "ffn_steps", "relu_dead_max")}, **paper}
    dead = dead_relu_shares(exps[0]["runs"])
    c = main["runs"][0]["config"]
    return {"ffn_gap": p["mean"], "ffn_lo": p["lo"], "ffn_hi": p["hi"], "ffn_n": p["n"], "ffn_width": c["n_embd"], "ffn_steps": c["steps"],
            "relu_dead_max": max((d["max_layer_share"] for d in dead), default=math.nan), **paper}


# Shazeer 2020's numbers the GELU-against-ReLU answer quotes (paper_numbers)
PAPER_GELU_RELU = ("paper_gelu", "paper_relu", "paper_gelu_long", "paper_relu_long", "paper_steps", "paper_steps_long")


GATED_OURS = ("swiglu", "geglu")  # the gated variants the answer quotes from our experiment


def gated_ours() -> dict:
    """SwiGLU and GEGLU minus GELU in the shipped experiment's main cell, paired by seed (analysis.glu_paper):
    {"ours_<v>", "ours_<v>_lo", "ours_<v>_hi", "ours_<v>_verdict"} and "ours_n"; nan and "none" without runs."""
    from .. import results
    from ..stats.runsets import experiments, main_cell
    from .glu_paper import side_by_side

    got = results.latest("train", store=False)
    s = side_by_side(main_cell(experiments(got.value))) if got else None
    out, ns = {}, []
    for v in GATED_OURS:
        p = (s or {}).get("ours", {}).get(v, {}).get("gap")
        out.update({f"ours_{v}": p["mean"] if p else math.nan, f"ours_{v}_lo": p["lo"] if p else math.nan,
                    f"ours_{v}_hi": p["hi"] if p else math.nan, f"ours_{v}_verdict": p["verdict"] if p else "none"})
        ns.append(p["n"] if p else 0)
    return {**out, "ours_n": min(ns)}


def paper_numbers() -> dict:
    """Shazeer 2020's Table 1 numbers the answer quotes (analysis.glu_paper.PAPER): log-perplexity
    after the two step counts, and the spreads within the ungated and the gated pair at the end."""
    from .glu_paper import PAPER

    lp, steps = PAPER["log_ppl"], PAPER["steps"]
    out = {f"paper_{v}": lp[v][0] for v in ("relu", "gelu", "geglu", "swiglu")}
    out.update({f"paper_{v}_long": lp[v][1] for v in ("relu", "gelu", "geglu", "swiglu")})
    return {**out, "paper_steps": steps[0], "paper_steps_long": steps[1], "paper_plain_spread": abs(lp["relu"][1] - lp["gelu"][1]),
            "paper_gated_spread": abs(lp["geglu"][1] - lp["swiglu"][1])}


def gated():
    """A plain FFN with d_ff = 4d has 2 matrices of d x 4d; a gated one, 3 of d x d_ff': the same
    count at d_ff' = 2/3 4d. LLaMA rounds 2/3 4d up to a multiple of 256 (its model code);
    LlamaConfig's defaults (the 7B model) show the result. Then the paper's numbers and ours."""
    plain, gated = 2 * 4, 3 * (2 / 3) * 4  # weights per d^2
    out = {"plain_params": plain, "gated_params": gated, "llama_d": math.nan, "llama_exact": math.nan, "llama_rule": math.nan, "llama_dff": math.nan,
           **paper_numbers(), **gated_ours()}
    from . import architectures

    tf = architectures.transformers()
    if tf is not None:
        cfg = tf.LlamaConfig()
        d, exact = cfg.hidden_size, 2 * 4 * cfg.hidden_size / 3
        out.update(llama_d=d, llama_exact=exact, llama_rule=256 * math.ceil(int(exact) / 256), llama_dff=cfg.intermediate_size)
    return out


def norm_place():
    """The Gradients page's stacks at BERT-large's depth, at initialisation: the gradient that
    reaches the first layer, relative to the top, in pre-LN and post-LN, with GELU and ReLU."""
    d = gradflow.MAX_DEPTH
    return {"ln_depth": d, "ln_width": gradflow.WIDTH,
            **{f"{a}_{n}": float(gradflow.gradient_flow(n, d, a)[0]) for a in ("preln", "postln") for n in ("gelu", "relu")}}


def bert():
    import torch

    return {"torch_default": torch.nn.GELU().approximate, "hf_gelu": activations.canonical("gelu"),
            "hf_gelu_new": activations.canonical("gelu_new"), "hf_pytorch_tanh": activations.canonical("gelu_pytorch_tanh"),
            "hf_quick": activations.canonical("quick_gelu")}
