"""One Transformer FFN block, live, in NumPy: h = x W1 + b1, y = act(h), out = y W2; or gated
(gelu_lab.nn.variants): h = x W, v = x V, y = act(h) ⊙ v, out = y W2.

For the /ffn page: where do the hidden pre-activations fall on the activation
curve, for a given init scale, and how many units are dead or nearly flat?

    block(activation, sigma, d=64, tokens=512, seed=0)

x are `tokens` (256) LayerNorm-ed token vectors (zero mean, unit variance per
vector, as a pre-LN block sees them), W1 ~ N(0, (sigma/sqrt d)^2) so that the
pre-activations have std ~= sigma (the same arithmetic as the trained model's
``fc_init_std``: sigma = fc_init_std * sqrt(d)), b1 = 0, W2 ~ N(0, 0.02^2)
like the model's. The statistics are those of :func:`gelu_lab.nn.train.ffn_stats`,
on the same definitions (dead: never positive on these tokens; near-dead:
|act'| < 0.01 on every token; constant: output std < 1 % of the mean unit std),
plus ``linearity``: R^2 of the best straight line through (h, act(h)) -- near 1
means the activation acts as a linear map on this input range, so the FFN adds
little non-linearity, which is what happens to GELU and SiLU at sigma ~ 0.2.
For a gated variant, W and V are both drawn like W1 (as the model's init does) with the
gated width h ~ 8d/3, the unit statistics are those of the gate act(x W), and ``y`` is
the product that enters W2: act(xW) ⊙ xV, whose sign is free even where act's is not.
No torch needed: the activation is the registry's NumPy function.
"""

from __future__ import annotations

import functools

import numpy as np

from ..activations import get
from . import variants


@functools.lru_cache(maxsize=8)
def _inputs(d: int, tokens: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((tokens, d))
    x = (x - x.mean(1, keepdims=True)) / x.std(1, keepdims=True)  # LayerNorm without affine
    w1 = rng.standard_normal((d, 4 * d))  # scaled per sigma below
    w2 = 0.02 * rng.standard_normal((4 * d, d))
    wv = rng.standard_normal((d, 4 * d))  # a gated block's V (drawn last: the ungated block's numbers stay as they were)
    return x, w1, w2, wv


def unit_stats(h: np.ndarray, y: np.ndarray, dy: np.ndarray) -> dict:
    """Shares of dead / near-dead / constant units and pre-activation moments; arrays are (tokens, units)."""
    ystd = y.std(0)
    return {
        "dead": float(np.mean(h.max(0) <= 0)),
        "near_dead": float(np.mean(np.abs(dy).max(0) < 0.01)),
        "const": float(np.mean(ystd < 0.01 * max(float(ystd.mean()), 1e-300))),
        "pre_mean": float(h.mean()),
        "pre_std": float(h.std()),
        "pre_neg": float(np.mean(h < 0)),
    }


def linearity(h: np.ndarray, y: np.ndarray) -> float:
    """R^2 of the least-squares line y ~ a h + b over all entries (1 = the activation acts linearly here)."""
    h, y = h.ravel(), y.ravel()
    vy = y.var()
    if vy == 0:
        return 1.0
    c = np.cov(h, y, bias=True)[0, 1]
    return float(c * c / (h.var() * vy))


def block(activation: str, sigma: float, d: int = 64, tokens: int = 256, seed: int = 0) -> dict:
    """The FFN block of variant `activation` on random LayerNorm-ed tokens: h, y (what enters
    W2), out and their statistics; y_neg, y_min, y_max: y's negative share and range."""
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive number, got {sigma}")
    gated = variants.is_gated(activation)
    act = get(variants.gate_activation(activation))
    x, w1, w2, wv = _inputs(d, tokens, seed)
    width = variants.hidden_width(d, gated)
    scale = sigma / np.sqrt(d)
    h = (x @ (w1[:, :width] * scale)).astype(np.float32)  # float32, as a model computes it (and the fast kernels)
    a = np.asarray(act.fn(h))
    dy = np.asarray(act.grad(h))
    y = a * (x @ (wv[:, :width] * scale)).astype(np.float32) if gated else a
    out = y @ w2[:width]
    return {"h": h, "y": y, "out": out, **unit_stats(h, a, dy), "linearity": linearity(h, a), "sigma": sigma, "d": d, "gated": gated,
            "y_neg": float(np.mean(y < 0)), "y_min": float(y.min()), "y_max": float(y.max())}
