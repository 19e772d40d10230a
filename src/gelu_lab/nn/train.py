"""One training run of the small Transformer, measured and resumable.

    cfg = TrainConfig.make("quick", activation="relu", seed=0)
    run_id = train(cfg, Store(path))           # writes metrics and results to the runs store
    train(None, store, resume=run_id)          # continues a killed run from its checkpoint

Only the activation differs between runs with the same seed: the initial
weights come from ``torch.manual_seed(seed)`` (activations have no
parameters) and batch `step` depends only on (seed, step). A gated FFN
(:mod:`gelu_lab.nn.variants`) has other shapes, so its weights are other
draws; it still sees the same batches as every run of its seed.

Every ``eval_interval`` steps the run logs (store kind "train", one metric per
name and step): train loss (mean over the interval), val loss (``eval_iters``
fixed val batches, the same for every run), lr, and per FFN layer ``L{i}.``
- ``dead``       share of hidden units never positive on the held-out batch (ReLU: zero gradient)
- ``near_dead``  share whose |act'(pre)| < 0.01 on every token (almost no gradient flows)
- ``const``      share whose output std over tokens < 1 % of the layer's mean unit std
- ``pre_mean``, ``pre_std``, ``pre_neg``   the pre-activations x W1 + b1 (all units, tokens)
(gated FFN: these are of the gate's pre-activations x W + b, the ones act sees)
- ``grad``, ``grad_fc``   gradient norm of the whole block and of W1 (before clipping)
At the end: the loss on every non-overlapping val window ("val_loss_full"),
wall time and tokens/s, as result "final".

A checkpoint (model, optimiser, RNG, step, interval accumulators, elapsed
time) is written every ``ckpt_every`` steps by writing aside and renaming, so
a kill at any moment leaves the last good one; it carries its sha256, and a
damaged one is reported at resume, never loaded; a resumed run logs exactly the
numbers an uninterrupted one would (same thread count, same machine).

DDP: under ``torchrun --nproc_per_node=K`` the global batch is split over the
K processes (gloo on CPU, nccl on GPU); rank 0 alone writes the store (its
"train_loss" is the mean over its own share of each batch), and at the end the
ranks compare parameter checksums ("ranks_identical" in the result).
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import io
import math
import os
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import torch
from torch.nn import functional as F

from ..results.files import CorruptFile, atomic_write, read_checked, write_checked
from .data import CharData
from .ffn import unit_stats
from .model import GPT, GPTConfig
from .presets import PRESETS
from .variants import canonical


@dataclass
class TrainConfig:
    activation: str = "gelu"
    seed: int = 0
    preset: str = "quick"
    steps: int = 1500
    n_layer: int = 2
    n_embd: int = 64
    n_head: int = 4
    block_size: int = 64
    batch_size: int = 32  # global: split over DDP processes
    lr: float = 1e-3
    min_lr_frac: float = 0.1
    warmup: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    eval_interval: int = 100
    eval_iters: int = 5
    ckpt_every: int = 500
    fc_init_std: float | str = 0.02
    val_frac: float = 0.1
    text: str | None = None  # a file; None = the Shakespeare corpus
    text_sha256: str = ""

    @classmethod
    def make(cls, preset: str = "quick", **overrides) -> "TrainConfig":
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; valid: {', '.join(PRESETS)}")
        known = {f.name for f in fields(cls)}
        bad = set(overrides) - known
        if bad:
            raise ValueError(f"unknown training options: {', '.join(sorted(bad))}")
        cfg = cls(preset=preset, **{**PRESETS[preset], **{k: v for k, v in overrides.items() if v is not None}})
        cfg.check()
        return cfg

    def check(self):
        self.activation = canonical(self.activation)
        for name in ("steps", "n_layer", "n_embd", "n_head", "block_size", "batch_size", "eval_interval", "eval_iters", "ckpt_every"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be a positive integer, got {getattr(self, name)}")
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd {self.n_embd} is not a multiple of n_head {self.n_head}")
        if not (isinstance(self.lr, (int, float)) and 0 < self.lr < 1):
            raise ValueError(f"lr must be in (0, 1), got {self.lr}")
        if self.fc_init_std != "unit" and not (0 < float(self.fc_init_std) < 10):
            raise ValueError(f"fc_init_std must be 'unit' or a positive number below 10, got {self.fc_init_std}")

    def model_config(self, vocab_size: int) -> GPTConfig:
        return GPTConfig(vocab_size, self.block_size, self.n_layer, self.n_head, self.n_embd, self.activation, self.fc_init_std)

    def key(self) -> str:
        """What makes two runs the same experiment (the runs-store key)."""
        return (
            f"{self.activation}/seed{self.seed}/{self.preset}/L{self.n_layer}d{self.n_embd}h{self.n_head}"
            f"T{self.block_size}B{self.batch_size}/steps{self.steps}/lr{self.lr:g}/fc{self.fc_init_std}"
            f"/text{self.text_sha256[:12]}"
        )

    def to_dict(self) -> dict:
        return asdict(self)


def load_text(cfg: TrainConfig) -> str:
    if cfg.text:
        try:
            return Path(cfg.text).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"cannot read --text {cfg.text}: {e}") from None
    from .corpus import load_text as corpus_text

    return corpus_text()


def text_sha256(cfg: TrainConfig) -> str:
    """sha256 of the run's text as UTF-8 (for the corpus: its recorded checksum)."""
    if not cfg.text:
        from .corpus import corpus_info

        return corpus_info()["sha256"]  # the corpus is ASCII, so this is its UTF-8 hash too

    return hashlib.sha256(load_text(cfg).encode("utf-8")).hexdigest()


def lr_at(cfg: TrainConfig, step: int) -> float:
    """Linear warmup, then cosine decay to min_lr_frac * lr at the last step."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    t = min(1.0, (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup))
    return cfg.lr * (cfg.min_lr_frac + (1 - cfg.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * t)))


def make_optimizer(model: GPT, cfg: TrainConfig) -> torch.optim.Optimizer:
    """AdamW, weight decay on matrices only (nanoGPT)."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.99))


# --- measurements -------------------------------------------------------------


@torch.no_grad()
def ffn_stats(model: GPT, x: torch.Tensor) -> dict:
    """Per FFN layer: dead / near-dead / constant unit shares and pre-activation moments on batch x."""
    pres = []
    hooks = [b.ffn.c_fc.register_forward_hook(lambda m, i, o, f=b.ffn: pres.append(f.pre(o).detach())) for b in model.blocks]
    try:
        model(x)
    finally:
        for h in hooks:
            h.remove()
    out = {}
    for i, (b, h) in enumerate(zip(model.blocks, pres)):
        h = h.reshape(-1, h.shape[-1]).float()  # (tokens, units)
        with torch.enable_grad():  # act'(h) elementwise, for any activation
            hh = h.clone().requires_grad_(True)
            y = b.ffn.act(hh)
            (d,) = torch.autograd.grad(y.sum(), hh)
        stats = unit_stats(h.cpu().numpy(), y.detach().cpu().numpy(), d.cpu().numpy())
        out.update({f"L{i}.{k}": v for k, v in stats.items()})
    return out


def grad_norms(model: GPT) -> dict:
    """Gradient norm of each block and of its FFN input weight W1 (call after backward)."""
    out = {}
    for i, b in enumerate(model.blocks):
        gs = [p.grad.detach().norm() for p in b.parameters() if p.grad is not None]
        out[f"L{i}.grad"] = torch.stack(gs).norm().item() if gs else 0.0
        g = b.ffn.c_fc.weight.grad
        out[f"L{i}.grad_fc"] = g.norm().item() if g is not None else 0.0
    return out


@torch.no_grad()
def eval_loss(model: GPT, data: CharData, cfg: TrainConfig, device) -> float:
    """Mean loss over eval_iters fixed val batches (seed 0: the same for every run)."""
    losses = []
    for i in range(cfg.eval_iters):
        x, y = data.batch("val", 0, i, cfg.batch_size, cfg.block_size)
        losses.append(model(x.to(device), y.to(device))[1].item())
    return sum(losses) / len(losses)


@torch.no_grad()
def full_val_loss(model: GPT, data: CharData, cfg: TrainConfig, device, rows: int = 128) -> float:
    """Token-weighted loss over every non-overlapping val window."""
    x, y = data.windows("val", cfg.block_size)
    total = 0.0
    for s in range(0, len(x), rows):
        logits, _ = model(x[s : s + rows].to(device))
        total += F.cross_entropy(logits.flatten(0, 1), y[s : s + rows].to(device).flatten(), reduction="sum").item()
    return total / y.numel()


# --- distributed --------------------------------------------------------------


def _leave_group():
    """Destroy the process group while the interpreter still runs (torch's advice). Left to
    its teardown, a gloo thread can still be releasing the last collective's tensors,
    which needs the GIL of an interpreter already gone: the process aborts as it exits
    ("terminate called without an active exception", SIGABRT). destroy_process_group
    alone still left that abort now and then: objects in uncollected reference cycles
    can keep the group alive past it, so the cycles are collected first."""
    if torch.distributed.is_initialized():
        gc.collect()
        torch.distributed.destroy_process_group()


def _dist_setup():
    """(rank, world, device) from the torchrun environment; a plain run is (0, 1, cpu|cuda)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
    else:
        device = torch.device("cpu")
    if world > 1 and not torch.distributed.is_initialized():
        torch.distributed.init_process_group("nccl" if device.type == "cuda" else "gloo")
        atexit.register(_leave_group)
    return rank, world, device


def checkpoint_path(store, run_id: int) -> Path:
    return Path(store.path).parent / "checkpoints" / f"train-{run_id}.pt"


def model_path(store, run_id: int) -> Path:
    return Path(store.path).parent / "checkpoints" / f"model-{run_id}.pt"


def _atomic_save(obj, path: Path):
    atomic_write(path, lambda p: torch.save(obj, p))  # readers see the old file or the new one, never half of one


def save_checkpoint(state: dict, path: Path):
    """torch.save(state), behind its sha256, atomically: damage found at resume is reported, not loaded."""
    buf = io.BytesIO()
    torch.save(state, buf)
    write_checked(path, buf.getvalue())


def load_checkpoint(path: Path, device) -> dict:
    """The state saved by save_checkpoint; CorruptFile (one line, exit 1 on the CLI) if damaged."""
    try:
        data = read_checked(path)
    except CorruptFile as e:
        raise CorruptFile(f"checkpoint not loaded: {e}; delete it to restart the run from step 0") from None
    return torch.load(io.BytesIO(data), map_location=device, weights_only=False)


# --- the run ------------------------------------------------------------------


def train(cfg: TrainConfig | None, store, resume: int | None = None, progress: bool = False, command: str | None = None) -> int:
    """Train one run (or resume run `resume`); returns its run id. Rank 0 writes the store."""
    rank, world, device = _dist_setup()
    if resume is not None:
        run = next((r for r in store.runs("train") if r["id"] == resume), None)
        if run is None:
            raise ValueError(f"no training run with id {resume} in {store.path}")
        if run["status"] == "done":
            raise ValueError(f"run {resume} is already done")
        names = {f.name for f in fields(TrainConfig)}
        cfg = TrainConfig(**{k: v for k, v in run["config"].items() if k in names})
    text = load_text(cfg)
    data = CharData(text, cfg.val_frac)
    if cfg.text_sha256 and cfg.text_sha256 != data.sha256:
        raise ValueError(f"the text of run {resume} changed since it started (sha256 differs)")
    cfg.text_sha256 = data.sha256
    if cfg.batch_size % world:
        raise ValueError(f"batch size {cfg.batch_size} is not divisible by {world} processes")

    torch.manual_seed(cfg.seed)  # same seed -> same initial weights for every activation
    model = GPT(cfg.model_config(data.vocab_size)).to(device)
    opt = make_optimizer(model, cfg)
    run_id = resume
    if rank == 0 and run_id is None:
        run_id = store.start_run("train", cfg.key(), {**cfg.to_dict(), "world": world, "params": model.n_params()}, command)
    start, acc, elapsed = 0, [0.0, 0], 0.0
    ckpt = checkpoint_path(store, run_id) if run_id is not None else None
    if world > 1:  # every rank needs the run id to find the checkpoint
        box = [run_id]
        torch.distributed.broadcast_object_list(box, src=0)
        run_id = box[0]
        ckpt = checkpoint_path(store, run_id)
    if resume is not None and ckpt.exists():
        state = load_checkpoint(ckpt, device)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"])
        start, acc, elapsed = state["step"], state["acc"], state["elapsed"]
    if resume is not None and rank == 0:  # after the checkpoint proved sound: a damaged one leaves the run as it was
        store.resume_run(resume)  # this process owns it now; ValueError while another one runs it
    ddp = torch.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    per_rank = cfg.batch_size // world

    bar = None
    if progress and rank == 0:
        from tqdm import tqdm

        bar = tqdm(total=cfg.steps, initial=start, desc=f"{cfg.activation} seed {cfg.seed}", unit="step", leave=False)
    t_train, tokens = 0.0, 0
    t0 = time.perf_counter()
    for step in range(start, cfg.steps):
        do_eval = step % cfg.eval_interval == 0
        if do_eval and rank == 0:  # measured before this step's update
            model.eval()
            xs, _ = data.batch("val", 0, 0, cfg.batch_size, cfg.block_size)
            row = {"val_loss": eval_loss(model, data, cfg, device), **ffn_stats(model, xs.to(device)), "lr": lr_at(cfg, step)}
            if acc[1]:
                row["train_loss"] = acc[0] / acc[1]
            acc = [0.0, 0]
            model.train()
        elif do_eval:
            acc = [0.0, 0]
        ts = time.perf_counter()
        for g in opt.param_groups:
            g["lr"] = lr_at(cfg, step)
        x, y = data.batch("train", cfg.seed, step, per_rank, cfg.block_size, rank, world)
        _, loss = ddp(x.to(device), y.to(device))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if do_eval and rank == 0:
            row.update(grad_norms(model))
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        opt.step()
        lv = loss.item()
        t_train += time.perf_counter() - ts
        tokens += per_rank * cfg.block_size * world
        acc = [acc[0] + lv, acc[1] + 1]
        if do_eval and rank == 0:
            store.log_metrics(run_id, step, row)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{lv:.3f}", tok_s=f"{tokens / max(t_train, 1e-9):,.0f}", refresh=False)
        if (step + 1) % cfg.ckpt_every == 0 and step + 1 < cfg.steps and rank == 0:
            save_checkpoint(
                {"model": model.state_dict(), "optimizer": opt.state_dict(), "rng": torch.get_rng_state(),
                 "step": step + 1, "acc": acc, "elapsed": elapsed + time.perf_counter() - t0, "config": cfg.to_dict()},
                ckpt,
            )
    loop_s = time.perf_counter() - t0  # the step loop with all its instrumentation (bench/bench_train.py)
    if bar is not None:
        bar.close()
    identical = None
    if world > 1:  # DDP must keep every replica bit-identical; check it rather than trust it
        flat = torch.cat([p.detach().flatten().cpu() for p in model.parameters()])
        digests = [None] * world
        torch.distributed.all_gather_object(digests, hashlib.sha256(flat.numpy().tobytes()).hexdigest())
        identical = len(set(digests)) == 1
    if rank == 0:
        model.eval()
        xs, _ = data.batch("val", 0, 0, cfg.batch_size, cfg.block_size)
        row = {"val_loss": eval_loss(model, data, cfg, device), **ffn_stats(model, xs.to(device))}
        if acc[1]:
            row["train_loss"] = acc[0] / acc[1]
        vfull = full_val_loss(model, data, cfg, device)
        row["val_loss_full"] = vfull
        store.log_metrics(run_id, cfg.steps, row)
        wall = elapsed + time.perf_counter() - t0
        final = {
            "val_loss_full": vfull, "val_loss": row["val_loss"], "train_loss": row.get("train_loss"),
            "steps": cfg.steps, "params": model.n_params(), "wall_s": wall,
            "tok_s": tokens / t_train if t_train else None, "loop_s": loop_s, "world": world, "device": device.type,
            "threads": torch.get_num_threads(), "ranks_identical": identical,
        }
        store.put_result(run_id, "final", final)
        _atomic_save({"model": model.state_dict(), "config": cfg.to_dict(), "chars": data.chars}, model_path(store, run_id))
        store.set_status(run_id, "done")
        ckpt.unlink(missing_ok=True)
    if world > 1:
        torch.distributed.barrier()
    return run_id


def grid(activations, seeds, store, base: dict, progress: bool = False, again: bool = False, command: str | None = None):
    """Run every (seed, activation) in that order; done runs with the same key are reused unless again."""
    ids = []
    for seed in seeds:
        for act in activations:
            cfg = TrainConfig.make(**{**base, "activation": act, "seed": seed})
            cfg.text_sha256 = text_sha256(cfg)
            if not again:
                done = store.find_run("train", cfg.key(), "done")
                if done:
                    ids.append(done["id"])
                    continue
            ids.append(train(cfg, store, progress=progress, command=command))
    return ids
