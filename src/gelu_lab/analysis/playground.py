"""The Playground's network in NumPy: the reference for the page's JavaScript trainer.

The Playground page trains two copies of a small network in the browser
(``app/assets/playground.js``). This module is the same computation written plainly with
NumPy and gelu_lab's activations, from the same seed: the same data (a mulberry32 stream),
the same initial weights, the same batches, so that tests/test_playground.py can hold the
JavaScript to it (losses and weights to 1e-9 in float64 after many steps).

Network: the features of (x1, x2) -> ``layers`` hidden layers of ``units`` units -> one
logit. Loss: binary cross-entropy of sigmoid(logit), the mean over the batch, plus
``l2``/2 times the sum of the squared weights (biases excluded). Plain SGD. Initial
weights N(0, init²/fan_in), biases 0.

    run = train(config, steps)         # {"points", "ntrain", "initial", "losses", "weights"}
    logits(layers, activation, X)      # a network's outputs for feature rows X
"""

from __future__ import annotations

import math

import numpy as np

from .. import activations

N = 400  # points per dataset
NOISE = 2.0  # noise 100 % would be a N(0, 2²) shift of each coordinate
INIT_SALT, BATCH_SALT = 0x5BD1E995, 0x9E3779B9
FEATURES = {
    "x1": lambda a, b: a, "x2": lambda a, b: b, "x1sq": lambda a, b: a * a, "x2sq": lambda a, b: b * b,
    "x1x2": lambda a, b: a * b, "sin1": lambda a, b: np.sin(a), "sin2": lambda a, b: np.sin(b),
}
DATASETS = ("circle", "xor", "gauss", "spiral")
_M = 0xFFFFFFFF


class Mulberry32:
    """mulberry32: a 32-bit state, each call a float in [0, 1) from 32 bits (as the JavaScript one)."""

    def __init__(self, seed: int):
        self.a = seed & _M

    def __call__(self) -> float:
        self.a = a = (self.a + 0x6D2B79F5) & _M
        t = ((a ^ (a >> 15)) * (1 | a)) & _M
        t = ((t + (((t ^ (t >> 7)) * (61 | t)) & _M)) & _M) ^ t
        return ((t ^ (t >> 14)) & _M) / 4294967296.0

    def gauss(self) -> float:
        u, v = 1.0 - self(), self()
        return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * v)


def dataset(name: str, noise_pct: float, seed: int) -> np.ndarray:
    """(N, 3) rows (x1, x2, label), shuffled: two classes of N/2 points in about [-6, 6]²."""
    rng, half, pts = Mulberry32(seed), N // 2, []
    for i in range(N):
        c = 1 if i < half else 0
        if name == "xor":
            a, b = 10 * rng() - 5, 10 * rng() - 5
            a, b = a + (0.3 if a > 0 else -0.3), b + (0.3 if b > 0 else -0.3)
            c = 1 if a * b > 0 else 0
        elif name == "gauss":
            m = 2.0 if c else -2.0
            a = m + rng.gauss()
            b = m + rng.gauss()
        elif name == "spiral":
            k = i if c else i - half
            r, t = 5 * k / half, 3.5 * math.pi * k / half + (0.0 if c else math.pi)
            a, b = r * math.sin(t), r * math.cos(t)
        else:  # circle
            r = 2.5 * rng() if c else 3.5 + 1.5 * rng()
            t = 2 * math.pi * rng()
            a, b = r * math.sin(t), r * math.cos(t)
        s = noise_pct / 100 * NOISE
        a += s * rng.gauss()
        b += s * rng.gauss()
        pts.append([a, b, c])
    for i in range(N - 1, 0, -1):  # Fisher-Yates
        j = math.floor(rng() * (i + 1))
        pts[i], pts[j] = pts[j], pts[i]
    return np.array(pts, dtype=np.float64)


def feature_list(features) -> list[str]:
    """The chosen features in their fixed order; none chosen means x1, x2."""
    f = [k for k in FEATURES if k in set(features or ())]
    return f or ["x1", "x2"]


def feature_matrix(points: np.ndarray, features) -> np.ndarray:
    return np.stack([FEATURES[k](points[:, 0], points[:, 1]) for k in feature_list(features)], axis=1)


def init_layers(sizes, scale: float, wseed: int) -> list[list[np.ndarray]]:
    """[[W (out, in), b (out,)] per layer]: W ~ N(0, scale²/fan_in) drawn row by row, b = 0."""
    rng = Mulberry32(wseed ^ INIT_SALT)
    out = []
    for nin, nout in zip(sizes[:-1], sizes[1:]):
        s = scale / math.sqrt(max(nin, 1))
        out.append([np.array([s * rng.gauss() for _ in range(nin * nout)]).reshape(nout, nin), np.zeros(nout)])
    return out


def logits(layers, activation: str, X: np.ndarray, hidden: list | None = None) -> np.ndarray:
    """The network's logits for feature rows X; `hidden` (a list) receives each hidden layer's pre-activations."""
    f = activations.get(activation).fn
    a = X
    for i, (W, b) in enumerate(layers):
        z = a @ W.T + b
        if i == len(layers) - 1:
            return z[:, 0]
        if hidden is not None:
            hidden.append(z)
        a = f(z)
    raise ValueError("no layers")


def bce(z: np.ndarray, y: np.ndarray) -> float:
    """Mean binary cross-entropy of sigmoid(z) against labels y, computed without overflow."""
    return float(np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))))


def sgd_step(layers, activation: str, X: np.ndarray, y: np.ndarray, lr: float, l2: float) -> None:
    """One step of plain SGD on the batch (X, y), in place."""
    act = activations.get(activation)
    zs, acts, a = [], [X], X
    for i, (W, b) in enumerate(layers):
        z = a @ W.T + b
        zs.append(z)
        a = z if i == len(layers) - 1 else act.fn(z)
        acts.append(a)
    sig = np.where(zs[-1] >= 0, 1 / (1 + np.exp(-np.abs(zs[-1]))), np.exp(-np.abs(zs[-1])) / (1 + np.exp(-np.abs(zs[-1]))))
    d = (sig - y[:, None]) / len(y)
    grads = []
    for i in range(len(layers) - 1, -1, -1):
        W = layers[i][0]
        grads.append((d.T @ acts[i] + l2 * W, d.sum(axis=0)))
        if i:
            d = (d @ W) * act.grad(zs[i - 1])
    for (W, b), (gW, gb) in zip(layers, reversed(grads)):
        W -= lr * gW
        b -= lr * gb


class Batches:
    """The shared batch order: a reshuffle (Fisher-Yates) whenever the next batch would run past the end."""

    def __init__(self, ntrain: int, batch: int, wseed: int):
        self.n, self.B = ntrain, min(max(1, batch), ntrain)
        self.rng, self.perm, self.pos = Mulberry32(wseed ^ BATCH_SALT), list(range(ntrain)), ntrain

    def next(self) -> list[int]:
        if self.pos + self.B > self.n:
            p = self.perm
            for i in range(self.n - 1, 0, -1):
                j = math.floor(self.rng() * (i + 1))
                p[i], p[j] = p[j], p[i]
            self.pos = 0
        out = self.perm[self.pos:self.pos + self.B]
        self.pos += self.B
        return out


def dead_units(layers, activation: str, X: np.ndarray) -> list[list[bool]]:
    """Per hidden layer and unit: True where the activation's derivative is 0 at every row of X."""
    hidden = []
    logits(layers, activation, X, hidden)
    grad = activations.get(activation).grad
    return [[bool(np.all(grad(z[:, j]) == 0)) for j in range(z.shape[1])] for z in hidden]


def train(config: dict, steps: int) -> dict:
    """Both networks of the page's run `config` after `steps` SGD steps: the points, the
    initial layers, [[train, test] loss per network] after each step, the final layers, dead units."""
    pts = dataset(config["dataset"], config["noise"], config["seed"])
    X, y = feature_matrix(pts, config["features"]), pts[:, 2]
    ntrain = min(N - 1, max(1, math.floor(N * config["split"] / 100 + 0.5)))  # JavaScript's Math.round
    sizes = [X.shape[1]] + [config["units"]] * config["layers"] + [1]
    initial = init_layers(sizes, config["init"], config["wseed"])
    acts = [config["act_a"], config["act_b"]]
    nets = [[[W.copy(), b.copy()] for W, b in initial] for _ in acts]
    batches, losses = Batches(ntrain, config["batch"], config["wseed"]), []
    for _ in range(steps):
        idx = batches.next()
        for net, act in zip(nets, acts):
            sgd_step(net, act, X[idx], y[idx], config["lr"], config["l2"])
        losses.append([[bce(logits(net, act, X[:ntrain]), y[:ntrain]), bce(logits(net, act, X[ntrain:]), y[ntrain:])] for net, act in zip(nets, acts)])
    return {"points": pts, "ntrain": ntrain, "initial": initial, "losses": losses, "weights": nets,
            "dead": [dead_units(net, act, X) for net, act in zip(nets, acts)]}
