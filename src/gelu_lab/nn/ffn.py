"""One Transformer FFN block, live, in NumPy: h = x W1 + b1, y = act(h), out = y W2.

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
No torch needed: the activation is the registry's NumPy function.
"""

from __future__ import annotations

import functools

import numpy as np

from ..activations import get


@functools.lru_cache(maxsize=8)
def _inputs(d: int, tokens: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((tokens, d))
    x = (x - x.mean(1, keepdims=True)) / x.std(1, keepdims=True)  # LayerNorm without affine
    w1 = rng.standard_normal((d, 4 * d))  # scaled per sigma below
    w2 = 0.02 * rng.standard_normal((4 * d, d))
    return x, w1, w2


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
    """The FFN block on random LayerNorm-ed tokens: h, y, out and their statistics."""
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive number, got {sigma}")
    act = get(activation)
    x, w1, w2 = _inputs(d, tokens, seed)
    h = (x @ (w1 * (sigma / np.sqrt(d)))).astype(np.float32)  # float32, as a model computes it (and the fast kernels)
    y = np.asarray(act.fn(h))
    dy = np.asarray(act.grad(h))
    out = y @ w2
    return {"h": h, "y": y, "out": out, **unit_stats(h, y, dy), "linearity": linearity(h, y), "sigma": sigma, "d": d}
