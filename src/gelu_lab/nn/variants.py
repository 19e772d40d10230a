"""The FFN variants by name, torch-free (the CLI, the plans and the pages name them without torch).

Ungated, for every activation of the registry (:mod:`gelu_lab.activations`)::

    FFN(x) = act(x W1 + b1) W2 + b2,                     W1: d x 4d,  W2: 4d x d

Gated (Shazeer 2020, "GLU Variants Improve Transformer"), named after their gate::

    FFN(x) = (act(x W + b) ⊙ (x V + c)) W2 + b2,         W, V: d x h, W2: h x d

    glu       act = sigmoid (Dauphin et al. 2017's GLU)
    bilinear  act = identity (no non-linearity but the product)
    reglu     act = relu
    geglu     act = gelu (the exact, erf form)
    swiglu    act = silu (Swish with beta = 1)

A gated FFN has three matrices where the ungated one has two, so its hidden width h
is cut to keep the parameter count: Shazeer takes h = 2/3 of the ungated width (8d/3);
here h is the integer that brings the count (biases included) closest to the ungated
4d FFN's, which is within 1 % of it for every d >= 8 (tests/test_ffn_model.py).

Biases: nanoGPT's ``bias=True`` on every projection, so b, c, b1, b2 are there (zero
at init) and count in the match; T5 and Shazeer have none. At d = 128 they are 0.5 %
of the FFN's parameters, and keeping them leaves the activation as the only
difference from the ungated runs.
"""

from __future__ import annotations

from .. import activations

# gated variant -> the activation of its gate (a registry name)
GATED = {"glu": "sigmoid", "bilinear": "linear", "reglu": "relu", "geglu": "gelu", "swiglu": "silu"}


def canonical(name: str) -> str:
    """The variant's name: a gated one of GATED, else the registry name of an activation
    (aliases accepted); ValueError for anything else."""
    key = str(name).strip().lower()
    if key in GATED:
        return key
    try:
        return activations.canonical(key)
    except ValueError:
        raise ValueError(f"unknown FFN variant {name!r}: an activation of the registry, or one of {', '.join(GATED)}") from None


def is_gated(name: str) -> bool:
    return canonical(name) in GATED


def gate_activation(name: str) -> str:
    """The activation applied inside the FFN: the gate's for a gated variant, else the name's own."""
    key = canonical(name)
    return GATED.get(key, key)


def ungated_params(d: int) -> int:
    """W1 (d x 4d) + b1 + W2 (4d x d) + b2."""
    return 8 * d * d + 5 * d


def gated_params(d: int, h: int) -> int:
    """W and V (d x h each) + b and c + W2 (h x d) + b2."""
    return 3 * d * h + 2 * h + d


def hidden_width(d: int, gated: bool) -> int:
    """4d ungated; gated, the h whose count is nearest the ungated one (3dh + 2h + d = 8d² + 5d)."""
    if not gated:
        return 4 * d
    exact = (8 * d * d + 4 * d) / (3 * d + 2)
    return min((int(exact), int(exact) + 1), key=lambda h: abs(gated_params(d, h) - ungated_params(d)))


def ffn_params(name: str, d: int) -> int:
    """Parameters of one FFN of variant `name` at width d."""
    gated = is_gated(name)
    return gated_params(d, hidden_width(d, True)) if gated else ungated_params(d)
