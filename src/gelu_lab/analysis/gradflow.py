"""Gradient flow at initialisation through a deep stack, for any activation.

    gradient_flow(name, depth, arch="mlp" | "preln" | "postln", width=64, batch=128, seed=0)

returns, for each depth l = 0..L, the RMS of d(loss)/d(h_l), the gradient at the
input of block l+1 (h_0 is the network input, h_L its output), divided by the
one at the output. A value far below 1 at l = 0 means the first layers barely
learn: the gradient vanished on its way down.

Three stacks, all with weights W ~ N(0, 2/fan_in) (He init) and inputs ~ N(0, 1):

    mlp     h_l = act(h_{l-1} W_l)                               (plain MLP)
    preln   h_l = h_{l-1} + act(LN(h_{l-1}) W1_l) W2_l           (pre-LayerNorm residual FFN, as in GPT-2)
    postln  h_l = LN(h_{l-1} + act(h_{l-1} W1_l) W2_l)           (post-LayerNorm residual FFN, as in BERT)

(hidden width 4 x width in both residual stacks; the attention blocks are left out).

A stack of depth L is the first L layers of one fixed MAX_DEPTH stack.

The loss is <h_L, G> / batch for a fixed Gaussian G, so d(loss)/d(h_L) = G / batch.
The backward pass is written out by hand in float64 NumPy (no torch import); tests check it against torch autograd.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import activations

ARCHS = ("mlp", "preln", "postln")
LN_EPS = 1e-12  # BERT's LayerNorm epsilon
MAX_DEPTH = 24  # BERT-large
WIDTH, BATCH = 32, 64  # small: the sweep is cheap enough to compute on a page request


def _layernorm(h):
    mu = h.mean(axis=1, keepdims=True)
    s = np.sqrt(h.var(axis=1, keepdims=True) + LN_EPS)
    return (h - mu) / s, s


def _layernorm_backward(du, xhat, s):
    # d/dh of (h - mean h) / std h, row by row, without the affine part (identity at init)
    return (du - du.mean(axis=1, keepdims=True) - xhat * (du * xhat).mean(axis=1, keepdims=True)) / s


def init_weights(depth: int, width: int, arch: str, seed: int = 0) -> list:
    """Per layer: [W] for mlp, [W1, W2] for the residual stacks; W ~ N(0, 2/fan_in)."""
    rng = np.random.default_rng(seed)

    def he(fan_in, fan_out):
        return rng.normal(0.0, np.sqrt(2.0 / fan_in), (fan_in, fan_out))

    if arch == "mlp":
        return [[he(width, width)] for _ in range(depth)]
    return [[he(width, 4 * width), he(4 * width, width)] for _ in range(depth)]


@functools.lru_cache(maxsize=64)
def _forward(name: str, arch: str, width: int, batch: int, seed: int, max_depth: int):
    """Weights, top gradient G and, per layer, what the backward pass needs.

    Cached: the activation is evaluated once per layer of the deepest stack,
    and a stack of depth L is the first L layers of it, so moving the depth
    slider only re-runs the (cheap) backward matmuls.
    """
    act = activations.get(name)
    rng = np.random.default_rng(seed + 1)
    h = rng.normal(size=(batch, width))
    G = rng.normal(size=(batch, width))
    weights = init_weights(max_depth, width, arch, seed)
    tape = []
    for ws in weights:
        if arch == "mlp":
            a = h @ ws[0]
            tape.append((act.grad(a),))
            h = act.fn(a)
        elif arch == "preln":
            u, s = _layernorm(h)
            a = u @ ws[0]
            tape.append((act.grad(a), u, s))
            h = h + act.fn(a) @ ws[1]
        else:  # postln: the sum first, then its LayerNorm
            a = h @ ws[0]
            h, s = _layernorm(h + act.fn(a) @ ws[1])
            tape.append((act.grad(a), h, s))
    return weights, G, tape


def gradient_flow(
    name: str, depth: int, arch: str = "mlp", width: int = WIDTH, batch: int = BATCH, seed: int = 0, max_depth: int = MAX_DEPTH
) -> np.ndarray:
    """RMS of d(loss)/d(h_l) for l = 0..depth, relative to l = depth (float64, length depth+1)."""
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
    depth = int(depth)
    if not 1 <= depth <= max_depth:
        raise ValueError(f"depth must be in 1..{max_depth}, got {depth}")
    weights, G, tape = _forward(activations.canonical(name), arch, int(width), int(batch), int(seed), int(max_depth))
    g = G / batch
    norms = [np.sqrt(np.mean(g * g))]
    for ws, saved in zip(reversed(weights[:depth]), reversed(tape[:depth])):
        if arch == "mlp":
            g = (g * saved[0]) @ ws[0].T
        elif arch == "preln":
            dact, u, s = saved
            g = g + _layernorm_backward(((g @ ws[1].T) * dact) @ ws[0].T, u, s)
        else:
            dact, u, s = saved
            g = _layernorm_backward(g, u, s)  # through the LayerNorm, then into both paths of the sum
            g = g + ((g @ ws[1].T) * dact) @ ws[0].T
        norms.append(np.sqrt(np.mean(g * g)))
    norms = np.array(norms[::-1])
    return norms / norms[-1]
