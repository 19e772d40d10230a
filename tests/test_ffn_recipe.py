"""The training recipe the lab's verdicts rest on, pinned by what a run actually does.

Each run here is gelu_lab.nn.train.train() itself, watched from outside: the optimiser
it makes is wrapped so that every step records the learning rate it is given, the
global gradient norm it is handed (after clipping) and the norm the backward pass
produced (before clipping, read by hooks on the parameters). Expectations come from
formulas written out here and from a text whose entropy is known in advance: a
Markov source over 16 letters whose next letter is the previous one plus 1 or 2
(mod 16), each with probability 1/2. No model of any size can do better on held-out
text than its entropy rate, ln 2 nats a character; an untrained one is near ln 16.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from gelu_lab.nn import train as T
from gelu_lab.nn.data import CharData
from gelu_lab.nn.model import GPT
from gelu_lab.results.store import Store, train_runs

LETTERS = 16
RATE = math.log(2)  # the source's entropy rate, nats a character
SIZE = dict(n_layer=1, n_embd=16, n_head=2, block_size=16, batch_size=16, eval_interval=10)


def markov_text(n: int = 20_000, seed: int = 0) -> str:
    steps = np.random.default_rng(seed).integers(1, 3, n)  # +1 or +2, each with probability 1/2
    return "".join(chr(ord("a") + int(i)) for i in np.cumsum(steps) % LETTERS)


def shuffled(text: str, lo: int, hi: int, seed: int = 1) -> str:
    """text with its characters lo:hi shuffled: the same length and the same vocabulary, other text."""
    part = list(text[lo:hi])
    np.random.default_rng(seed).shuffle(part)
    return text[:lo] + "".join(part) + text[hi:]


def cut_of(text: str, val_frac: float = 0.1) -> int:
    """Where the held-out tail begins: the last val_frac of the characters (DESIGN: a positional split)."""
    return int(len(text) * (1 - val_frac))


class Watch:
    """What the optimiser of a train() run sees at each of its steps."""

    def __init__(self, monkeypatch):
        self.steps = []  # per optimiser step: {"lr": [per group], "raw": norm before clipping, "applied": norm stepped on}
        self.opt = self.model = None
        make = T.make_optimizer

        def watched(model, cfg):
            opt = make(model, cfg)
            self.opt, self.model, raw = opt, model, {}
            for p in model.parameters():  # after backward has summed p's gradient, before anything scales it
                p.register_post_accumulate_grad_hook(lambda p: raw.__setitem__(id(p), float(p.grad.double().norm()) ** 2))
            opt.register_step_pre_hook(lambda o, args, kwargs: self._record(o, raw))
            return opt

        monkeypatch.setattr(T, "make_optimizer", watched)

    def _record(self, opt, raw):
        applied = math.sqrt(sum(float(p.grad.double().norm()) ** 2 for g in opt.param_groups for p in g["params"] if p.grad is not None))
        self.steps.append({"lr": [g["lr"] for g in opt.param_groups], "raw": math.sqrt(sum(raw.values())), "applied": applied})
        raw.clear()


def run(tmp_path, text: str, monkeypatch=None, **options):
    """(finished run as train_runs gives it, Watch or None, the saved model's file) of one train() run on `text`."""
    path = tmp_path / f"text-{len(list(tmp_path.glob('text-*')))}.txt"
    path.write_text(text)
    watch = Watch(monkeypatch) if monkeypatch else None
    cfg = T.TrainConfig.make("tiny", text=str(path), **{**SIZE, **options})
    with Store(tmp_path / "runs.sqlite") as store:
        run_id = T.train(cfg, store)
        (done,) = train_runs(store, ids=[run_id])
        return done, watch, T.model_path(store, run_id)


def loaded(model_file) -> tuple[GPT, dict]:
    saved = torch.load(model_file, weights_only=False)
    cfg = T.TrainConfig(**saved["config"])
    model = GPT(cfg.model_config(len(saved["chars"])))
    model.load_state_dict(saved["model"])
    return model.eval(), saved


# --- the learning-rate schedule -------------------------------------------------------


def schedule(step: int, lr: float, warmup: int, steps: int, floor: float) -> float:
    """The recipe as lr_at's docstring states it, written out here: linear warm-up to lr over
    `warmup` steps (step s gets lr (s+1)/warmup), then half a cosine from lr down to floor*lr
    at the last step."""
    if step < warmup:
        return lr * (step + 1) / warmup
    t = (step - warmup) / (steps - warmup)
    return lr * (floor + (1 - floor) * (1 + math.cos(math.pi * t)) / 2)


def test_the_schedule_at_chosen_steps():
    cfg = T.TrainConfig.make("tiny", steps=110, warmup=10, lr=0.02, min_lr_frac=0.1)
    # by hand: warm-up 0.002, 0.004 ... 0.02; cosine 0.02 at step 10, half way (step 60) 0.02 (0.1 + 0.9/2)
    chosen = {0: 0.002, 4: 0.010, 9: 0.020, 10: 0.020, 60: 0.011, 110: 0.002}
    for step, lr in chosen.items():
        assert T.lr_at(cfg, step) == pytest.approx(lr, rel=1e-12), step
    # a quarter of the way: cos(pi/4) = sqrt(1/2)
    assert T.lr_at(cfg, 35) == pytest.approx(0.02 * (0.1 + 0.45 * (1 + math.sqrt(0.5))), rel=1e-12)
    after = [T.lr_at(cfg, s) for s in range(10, 111)]
    assert all(a >= b for a, b in zip(after, after[1:])) and min(after) == pytest.approx(0.002, rel=1e-12)


def test_a_run_steps_with_the_schedule_and_clips_the_global_norm(tmp_path, monkeypatch):
    """Every optimiser step of a run: each parameter group gets the schedule's lr for that
    step; the gradient it steps on has global norm min(raw, clip), the raw norm read before
    clipping. The clip is set small, so that it binds at the steps it must."""
    steps, clip = 40, 0.05
    done, watch, _ = run(tmp_path, markov_text(), monkeypatch, steps=steps, warmup=8, lr=0.01, min_lr_frac=0.1, grad_clip=clip)
    assert len(watch.steps) == steps
    for s, seen in enumerate(watch.steps):
        want = schedule(s, 0.01, 8, steps, 0.1)
        assert seen["lr"] == pytest.approx([want] * len(seen["lr"]), rel=1e-12), s
    raw = [s["raw"] for s in watch.steps]
    assert sum(r > 2 * clip for r in raw) >= steps // 2, raw  # the clip binds: the test would see a run without it
    for s, seen in enumerate(watch.steps):
        assert seen["applied"] <= clip * (1 + 1e-5), (s, seen)
        assert seen["applied"] == pytest.approx(min(seen["raw"], clip), rel=1e-4), (s, seen)
    assert done["metrics"]["lr"] == [[s, pytest.approx(schedule(s, 0.01, 8, steps, 0.1), rel=1e-12)] for s in range(0, steps, 10)]


# --- weight decay -----------------------------------------------------------------------


def test_weight_decay_on_the_weight_matrices_and_embeddings_only():
    """AdamW's decay on every Linear and Embedding weight (the tied head once), none on
    biases and LayerNorm parameters; one step with zero gradients shows it: Adam's update
    is then zero, the decoupled decay shrinks exactly the decayed tensors by lr * wd."""
    torch.manual_seed(0)
    cfg = T.TrainConfig.make("tiny", n_layer=2, weight_decay=0.25, lr=0.01)
    model = GPT(cfg.model_config(20))
    meant = {id(m.weight) for m in model.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Embedding))}
    spared = {id(p) for m in model.modules() if isinstance(m, torch.nn.LayerNorm) for p in m.parameters()}
    spared |= {id(m.bias) for m in model.modules() if isinstance(m, torch.nn.Linear) and m.bias is not None}
    assert meant.isdisjoint(spared) and len(meant) + len(spared) == len(list(model.parameters()))
    opt = T.make_optimizer(model, cfg)
    by_decay = {}
    for g in opt.param_groups:
        by_decay.setdefault(g["weight_decay"], set()).update(id(p) for p in g["params"])
    assert by_decay == {0.25: meant, 0.0: spared}
    before = {id(p): p.detach().clone() for p in model.parameters()}
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    opt.step()
    for name, p in model.named_parameters():
        factor = 1 - 0.01 * 0.25 if id(p) in meant else 1.0
        torch.testing.assert_close(p.detach(), before[id(p)] * factor, rtol=1e-6, atol=0, msg=name)


# --- validation: held-out text only ----------------------------------------------------------


def test_the_validation_loss_reads_the_held_out_text_and_nothing_else():
    """One model, three texts: poisoning the training part (shuffled) leaves both validation
    losses exactly as they were; poisoning the held-out tail changes them."""
    text = markov_text()
    cut = cut_of(text)
    torch.manual_seed(0)
    cfg = T.TrainConfig.make("tiny", **SIZE)
    data = CharData(text, cfg.val_frac)
    model = GPT(cfg.model_config(data.vocab_size)).eval()
    with torch.no_grad():  # a model that is not uniform, so that the texts it reads matter
        model.wte.weight.normal_(0, 1.0)

    def losses(t):
        d = CharData(t, cfg.val_frac)
        assert d.vocab_size == data.vocab_size and torch.equal(d.val, data.val) == (t[cut:] == text[cut:])
        return T.eval_loss(model, d, cfg, "cpu"), T.full_val_loss(model, d, cfg, "cpu")

    clean = losses(text)
    assert losses(shuffled(text, 0, cut)) == clean
    poisoned = losses(shuffled(text, cut, len(text)))
    assert poisoned[0] != clean[0] and poisoned[1] != clean[1]


def test_training_batches_never_touch_the_held_out_text(tmp_path):
    """Two runs whose texts differ only in the held-out tail train identically, bit for bit
    (their training losses and final weights), and report different validation losses."""
    text = markov_text()
    a, _, model_a = run(tmp_path, text, steps=30)
    b, _, model_b = run(tmp_path, shuffled(text, cut_of(text), len(text)), steps=30)
    assert a["metrics"]["train_loss"] == b["metrics"]["train_loss"]
    wa, wb = loaded(model_a)[0].state_dict(), loaded(model_b)[0].state_dict()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert a["final"]["val_loss_full"] != b["final"]["val_loss_full"]


# --- a short run reaches the loss fixed in advance ---------------------------------------------


def held_out_loss(model: GPT, text: str, chars: str, block: int) -> float:
    """Cross-entropy of `model` over every non-overlapping window of the last tenth of `text`,
    computed here from the characters (no CharData): what "val_loss_full" means."""
    tail = [chars.index(c) for c in text[cut_of(text):]]
    n = (len(tail) - 1) // block
    x = torch.tensor(tail[: n * block]).view(n, block)
    y = torch.tensor(tail[1 : n * block + 1]).view(n, block)
    with torch.no_grad():
        logits, _ = model(x)
        return F.cross_entropy(logits.flatten(0, 1), y.flatten()).item()


def test_a_short_run_learns_the_source_down_to_its_entropy_rate(tmp_path):
    """300 steps of the tiny model on the Markov text: the held-out loss starts near ln 16
    (uniform over the letters), ends within 0.05 nats of the entropy rate ln 2 and not
    below it (no model beats the source on text it did not train on: the tail's own
    sample frequencies allow ~1e-4 below), and is the loss of the saved model on the tail."""
    text = markov_text()
    unigram = -sum(c / len(text) * math.log(c / len(text)) for c in map(text.count, set(text)))
    assert unigram == pytest.approx(math.log(LETTERS), abs=0.01)  # the source's letters are equally frequent
    done, _, model_file = run(tmp_path, text, steps=300, lr=0.01, warmup=10, eval_interval=50)
    start = done["metrics"]["val_loss"][0]
    assert start[0] == 0 and start[1] == pytest.approx(math.log(LETTERS), abs=0.15)
    final = done["final"]["val_loss_full"]
    assert RATE - 0.002 < final < RATE + 0.05, final
    model, saved = loaded(model_file)
    assert final == pytest.approx(held_out_loss(model, text, saved["chars"], SIZE["block_size"]), rel=1e-5)
