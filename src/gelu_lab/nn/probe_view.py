"""What the Real BERT page shows, as data: the newest probe (the reader's store, else the
shipped one), its layers' densities, the drift of each swap, and one sentence through the
model (the page's view, gelu_lab.app.pages.bert.view, says the numbers).

    stored()                     {"result", "provenance", "source", "run"}
    histogram_panels(result)     per layer: the measured density and the two normal curves
    drift(result, metric)        1 - score per swapped layer and for all layers at once
    sentence(text)               tokens, per-layer pre-activation densities, nearest neighbours

Importing this module imports neither torch nor the model; :func:`sentence` loads the
model on its first call (once, then cached with the neighbour pool's embeddings).
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from .. import results
from ..numerics import phi

SWAPS = ("gelu_tanh", "gelu_sigmoid", "relu", "silu")  # gelu_lab.nn.probe.SWAPS, without importing torch
POOL, POOL_WORDS = 48, 14  # neighbours: the first 48 probe sentences of at most 14 words (cheap to embed 5 times)
MAX_CHARS = 2000  # gelu_lab.nn.probe.MAX_CHARS (checked before any model is loaded)
XS = np.linspace(-6.0, 4.0, 201)
BINS = np.linspace(-6.0, 4.0, 51)  # a sentence's pre-activation histogram



def stored() -> dict:
    """{"result", "provenance", "source", "run"}: the newest probe in the reader's store, else the
    shipped one; read through gelu_lab.results.latest."""
    r = results.latest("probe")
    return {"result": r.value, "provenance": r.provenance, "source": r.source, "run": r.run["id"] if r.run else None}


def histogram_panels(res: dict) -> list[dict]:
    """Per layer: bin centers and measured density of its FFN pre-activations, the standard
    normal pdf and the normal fitted to the layer (its mean and std) on XS."""
    panels = []
    for L in res["layers"]:
        h = L["hist"]
        dens = np.asarray(h["density"])
        panels.append({"centers": h["lo"] + h["step"] * (np.arange(len(dens)) + 0.5), "density": dens, "x": XS, "std_pdf": phi(XS),
                       "fit_pdf": phi((XS - L["mean"]) / L["std"]) / L["std"], "mean": L["mean"], "std": L["std"]})
    return panels


def drift(res: dict, metric: str) -> tuple[dict, dict]:
    """(per swap: (layer labels "1".."6", 1 - metric per one-layer swap), per swap: 1 - metric
    with every layer swapped); 1 - metric is kept above 1e-12 for a log axis."""
    series, together = {}, {}
    for a in SWAPS:
        rows = {w["layer"]: w for w in res["swaps"] if w["activation"] == a}
        layers = sorted(k for k in rows if k != "all")
        if layers:
            series[a] = ([str(k + 1) for k in layers], [max(1.0 - rows[k][metric], 1e-12) for k in layers])
        if "all" in rows:
            together[a] = max(1.0 - rows["all"][metric], 1e-12)
    return series, together


_WARM = threading.Lock()


@functools.cache
def _model():
    """The model and the neighbour pool's embeddings under each activation (first call only)."""
    import torch

    from . import probe as P

    # one intra-op thread: a request is a handful of one-sentence passes, and on a busy
    # machine a second OpenMP thread spins far longer than the work itself takes
    torch.set_num_threads(1)
    bert = P.load()
    pool = [s for s in stored()["result"]["sentences"] if len(s.split()) <= POOL_WORDS][:POOL]
    return bert, pool, P.pool_embeddings(bert, pool)


def sentence(s: str) -> dict:
    """One sentence through the model: {"tokens", "layers": [{"x", "density", "neg"}] (its FFN
    pre-activations per layer, on BINS), "near": {activation: [{"sentence", "cos"}]} (its 3
    nearest pool sentences under GELU and each swap)}. ImportError, OSError or ValueError
    (gelu_lab.nn.probe.ProbeError) when the model or torch is missing or the text is refused."""
    from . import probe as P

    with _WARM:  # one loader at a time; later requests find the cache
        bert, pool, emb = _model()
    pre = P.preactivations(bert, s)
    layers = []
    for a in pre["layers"]:
        hist, _ = np.histogram(a, bins=BINS)
        layers.append({"x": (BINS[:-1] + BINS[1:]) / 2, "density": hist / (a.size * (BINS[1] - BINS[0])), "neg": float(np.mean(a < 0))})
    return {"tokens": pre["tokens"], "layers": layers, "near": P.neighbours(bert, s, pool, emb, k=3)}
