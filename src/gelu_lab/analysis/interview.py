"""The numbers behind the Interview questions page, each computed when asked.

    QUESTIONS              question id -> Question(id, quantities, compute); page order
    check(qid)             -> [{"key", "value", "stated", "agrees"}], computed once per process
    values(qid)            -> {key: value}, the quick part, computed once per process (the answer texts)
    compute(qid)           -> {key: value}, computed now
    agrees(value, stated)  -> True / False / None (nothing stated)

An answer quotes a figure the way an interviewee would ("GELU'(0) = 0.5", "the
minimum is about -0.1700 at x = -0.7518"): that is the *stated* value of a
:class:`Quantity`, a string whose decimals set the tolerance (half a unit in its
last place). The check computes the quantity with gelu_lab and says whether the
stated figure holds. Quantities with nothing to state (counts over the bfloat16
inputs, a Monte Carlo mean) are computed only. Every value comes from the
library (numerics, activations, analysis.theory / errors / fits / accuracy,
reference); nothing the library can compute is typed in here. The computations live in
:mod:`.interview_math` (GELU's own mathematics) and :mod:`.interview_models` (models and
measurements); this module holds the questions and the checking.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

from .interview_math import (  # noqa: F401  (the page and the tests read the helpers and the figure data here)
    CANCEL_X, DROPOUT_N, FAR_LEFT, INTERVAL, SEED, bf16, bf16_edge, c044715, c044715_fits, cancellation, dead_relu, dip, dropout,
    far_left, grad0, grad_range, relu_gap, sigmoid_ffn, silu, silu_gate, cancellation_curves, erfc_gelu, gate_curves, naive_gelu,
    series_c, zero_edge)
from .interview_models import GATED_OURS, PAPER_GELU_RELU, bert, differ16, ffn_gain, gated, norm_place, tanh_vs_erf


@dataclass(frozen=True)
class Quantity:
    """One number of an answer: `stated` is the figure the answer quotes (None: computed only),
    `fmt` how the computed value is shown."""

    key: str
    stated: str | None = None
    fmt: str = ".6f"


@dataclass(frozen=True)
class Question:
    id: str
    quantities: tuple = ()
    compute: Callable | None = None  # () -> {key: value}: quick (under ~0.1 s once warm); the answer may quote these
    slow: Callable | None = None  # () -> {key: value}: the rest, computed only when Check asks
    figure: str | None = None  # name of the page figure that goes with the answer
    keys: list = field(init=False, default=None)

    def __post_init__(self):
        object.__setattr__(self, "keys", [q.key for q in self.quantities])


QUESTIONS = {
    q.id: q
    for q in [
        Question("why", (Quantity("grad_m5", None, ".2g"),), far_left),
        Question("grad0", (Quantity("grad0", "0.5", ".4f"), Quantity("grad2_0", "0.7979", ".6f"), Quantity("relu_left", "0", ".0f"),
                           Quantity("relu_right", "1", ".0f")), grad0),
        Question("dip", (Quantity("min_x", "-0.7518"), Quantity("min_y", "-0.1700")), dip),
        Question("grad_range", (Quantity("gmax_x", "1.4142"), Quantity("gmax", "1.1289"), Quantity("gmin_x", "-1.4142"),
                                Quantity("gmin", "-0.1289")), grad_range),
        Question("dropout", (Quantity("gelu1", "0.8413"), Quantity("mc_mean", None, ".4f"), Quantity("mc_se", None, ".4f"),
                             Quantity("dropout1", "0.9", ".4f")), dropout),
        Question("relu_gap", (Quantity("gap", "0.1700"), Quantity("gap_x", "0.7518"), Quantity("gap_10", "0.0170")), relu_gap),
        Question("tanh_vs_erf", (Quantity("tanh_max", "0.00047", ".3e"), Quantity("tanh_x", "2.70", ".4f"), Quantity("sigmoid_max", "0.020", ".4f"),
                                 Quantity("differ_bfloat16", None, "d"), Quantity("differ_float16", None, "d"),
                                 Quantity("tanh_f16_steps", None, ".3f"), Quantity("sigmoid_f16_steps", "10", ".2f"),
                                 Quantity("tanh_nn", None, ".1%"), Quantity("sigmoid_nn", None, ".1%")), tanh_vs_erf, differ16),
        Question("c044715", (Quantity("c_gate", "0.044715", ".7f"), Quantity("gate_max", "0.00018", ".3e"), Quantity("gate_max_classic", None, ".3e"),
                             Quantity("c_series", None, ".7f"), Quantity("c_gelu", "0.0444", ".7f"), Quantity("gelu_max_fit", "0.00039", ".3e"),
                             Quantity("gelu_max_classic", None, ".3e")), c044715, c044715_fits, figure="gate"),
        Question("sigmoid_ffn", (Quantity("sig_grad_max", "0.25", ".4f"), Quantity("sig0", "0.5", ".4f"), Quantity("mean_sig_grad", None, ".4f"),
                                 Quantity("mean_gelu_grad", "0.5", ".4f"), Quantity("sig_4", None, ".4f"), Quantity("gelu_4", None, ".4f")), sigmoid_ffn),
        Question("dead_relu", (Quantity("relu_dead", "0.5", ".3f"), Quantity("gelu_dead", "0", ".3f"), Quantity("p_dead", "0.5", ".4f"),
                               Quantity("edge64", None, ".4f"), Quantity("edge32", None, ".4f"), Quantity("grad_m5", None, ".2g")), dead_relu),
        Question("silu", (Quantity("silu_max", "0.19", ".4f"), Quantity("silu_x", None, ".4f"), Quantity("quick_max", None, ".4f"),
                          Quantity("beta_gate", "1.702", ".4f"), Quantity("beta_gate_max", "0.0095", ".5f"),
                          Quantity("best_beta", None, ".4f"), Quantity("best_beta_max", None, ".4f")), silu, silu_gate),
        Question("cancellation", (Quantity("true_m10", None, ".4e"), Quantity("naive_m10", None, "g"), Quantity("naive_rel", "1", ".4f"),
                                  Quantity("erfc_rel", None, ".1e"), Quantity("naive_edge64", None, ".4f"), Quantity("naive_edge32", None, ".4f")),
                 cancellation, figure="cancel"),
        Question("bert", (Quantity("torch_default", "none", "s"), Quantity("hf_gelu", "gelu", "s"), Quantity("hf_gelu_new", "gelu_tanh", "s"),
                          Quantity("hf_pytorch_tanh", "gelu_tanh", "s"), Quantity("hf_quick", "gelu_sigmoid", "s")), slow=bert),
        Question("bf16", (Quantity("torch_version", None, "s"), Quantity("bf16_zero", None, "d"), Quantity("bf16_zero_tail", None, "d"), Quantity("bf16_zero_edge", None, ".4f"),
                          Quantity("bf16_zero_tiny", None, "d"), Quantity("ours_max_ulp", "0", "d"),
                          Quantity("torch_max_ulp", None, "d"), Quantity("torch_wrong", None, "d"), Quantity("torch_flush", None, "d")), bf16_edge, slow=bf16),
        Question("gated", (Quantity("plain_params", "8", ".0f"), Quantity("gated_params", "8", ".0f"), Quantity("llama_d", None, "d"),
                           Quantity("llama_exact", None, ".2f"), Quantity("llama_rule", "11008", "d"), Quantity("llama_dff", "11008", "d"),
                           *(Quantity(f"paper_{v}{end}", None, ".3f") for end in ("", "_long") for v in ("relu", "gelu", "geglu", "swiglu")),
                           Quantity("paper_steps", None, ",d"), Quantity("paper_steps_long", None, ",d"),
                           Quantity("paper_plain_spread", None, ".3f"), Quantity("paper_gated_spread", None, ".3f"),
                           *(Quantity(f"ours_{v}{end}", None, "+.4f") for v in GATED_OURS for end in ("", "_lo", "_hi")),
                           Quantity("ours_n", None, "d")), gated),
        Question("post_ln", (Quantity("ln_depth", None, "d"), Quantity("ln_width", None, "d"), Quantity("preln_gelu", None, ".3g"), Quantity("preln_relu", None, ".3g"),
                             Quantity("postln_gelu", None, ".3g"), Quantity("postln_relu", None, ".3g")), norm_place),
        Question("ffn_gain", (Quantity("ffn_gap", None, "+.4f"), Quantity("ffn_lo", None, "+.4f"), Quantity("ffn_hi", None, "+.4f"),
                              Quantity("ffn_n", None, "d"), Quantity("ffn_width", None, "d"), Quantity("ffn_steps", None, "d"),
                              Quantity("relu_dead_max", None, ".3f"),
                              *(Quantity(k, None, ",d" if "steps" in k else ".3f") for k in PAPER_GELU_RELU)), ffn_gain),
    ]
}


def _question(qid: str) -> Question:
    if qid not in QUESTIONS:
        raise ValueError(f"unknown question {qid!r}; choose from {', '.join(QUESTIONS)}")
    return QUESTIONS[qid]


def agrees(value, stated: str | None) -> bool | None:
    """Whether `value` rounds to the stated figure: |value - stated| <= half a unit in
    its last decimal (strings: equal). None when nothing is stated."""
    if stated is None:
        return None
    if isinstance(value, str):
        return value == stated
    decimals = len(stated.split(".")[1]) if "." in stated else 0
    return bool(abs(float(value) - float(stated)) <= 0.5 * 10.0**-decimals * (1 + 1e-9))


def compute(qid: str, slow: bool = True) -> dict:
    """{key: value} of question `qid`, computed now ({} for a question without numbers);
    slow=False: only the quick part (what the answer text may quote)."""
    q = _question(qid)
    out = q.compute() if q.compute else {}
    if slow and q.slow:
        out.update(q.slow())
    return out


@functools.cache
def values(qid: str) -> dict:
    """The quick part of :func:`compute`, once per process (the values the answer texts quote)."""
    return compute(qid, slow=False)


def check(qid: str) -> list[dict]:
    """Each quantity of the question: its computed value, the stated figure and whether they agree.

    Every value depends only on gelu_lab and the installed packages, so it is computed once
    per process (the quick part shared with :func:`values`); each call gets its own rows."""
    return [dict(r) for r in _checked(qid)]


@functools.cache
def _checked(qid: str) -> tuple[dict, ...]:
    q = _question(qid)
    v = {**values(qid), **(q.slow() if q.slow else {})}
    return tuple({"key": s.key, "value": v[s.key], "stated": s.stated, "agrees": agrees(v[s.key], s.stated), "fmt": s.fmt} for s in q.quantities)
