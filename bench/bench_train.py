"""What the lab's instrumentation costs: its training loop against a plain PyTorch loop.

    .venv/bin/python bench/bench_train.py [--preset quick] [--steps 300] [--pairs 2] [--threads 1]

Both loops train the same model (same init, same batches, same optimiser and
schedule) for the same number of steps, in this one process, interleaved
plain, lab, plain, lab, ... so a busy machine slows both alike. The lab loop
is ``gelu_lab.nn.train.train`` with everything on: evals every
``eval_interval`` steps (val batches, per-layer unit statistics, gradient
norms), store writes, checkpoints, the progress bar (to /dev/null). Its time
is the step loop ("loop_s"), without the final full-val pass that a plain
loop would not do either. Bar (issue 6): instrumentation <= 10 %.
Writes bench/results/bench_train.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import torch

import record


def plain_loop(cfg, data) -> float:
    """nanoGPT's loop, nothing else: seconds for cfg.steps steps."""
    from gelu_lab.nn.model import GPT
    from gelu_lab.nn.train import lr_at, make_optimizer

    torch.manual_seed(cfg.seed)
    model = GPT(cfg.model_config(data.vocab_size))
    opt = make_optimizer(model, cfg)
    t0 = time.perf_counter()
    for step in range(cfg.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(cfg, step)
        x, y = data.batch("train", cfg.seed, step, cfg.batch_size, cfg.block_size)
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        opt.step()
    return time.perf_counter() - t0


def lab_loop(cfg, tmp) -> float:
    import contextlib
    import io

    from gelu_lab.nn.train import train
    from gelu_lab.results.store import Store

    with Store(os.path.join(tmp, f"bench-{time.monotonic_ns()}.sqlite")) as store, contextlib.redirect_stderr(io.StringIO()):
        rid = train(cfg, store, progress=True)
        return store.result(rid, "final")["loop_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    from gelu_lab.nn.corpus import load_text
    from gelu_lab.nn.data import CharData
    from gelu_lab.nn.train import TrainConfig

    cfg = TrainConfig.make(args.preset, steps=args.steps, ckpt_every=max(1, args.steps // 2))
    data = CharData(load_text(), cfg.val_frac)
    tokens = cfg.steps * cfg.batch_size * cfg.block_size
    with record.recording("bench_train") as figures:
        figures.update(measure(args, cfg, data, tokens))


def measure(args, cfg, data, tokens) -> dict:
    plain, lab = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.pairs):
            plain.append(plain_loop(cfg, data))
            lab.append(lab_loop(cfg, tmp))
    print(f"preset {args.preset}: {cfg.steps} steps, batch {cfg.batch_size} x {cfg.block_size}, eval every "
          f"{cfg.eval_interval}, checkpoint every {cfg.ckpt_every}, {args.threads} thread(s)")
    for i, (p, q) in enumerate(zip(plain, lab)):
        print(f"  pair {i}: plain {p:7.2f} s ({tokens / p:9,.0f} tok/s)   lab {q:7.2f} s ({tokens / q:9,.0f} tok/s)   lab/plain {q / p:.3f}")
    ratio = statistics.median(q / p for p, q in zip(plain, lab))
    print(f"median lab/plain = {ratio:.3f}: instrumentation costs {100 * (ratio - 1):+.1f} % (bar: <= +10 %)")
    return {f"lab / plain step time, median of {args.pairs} pairs": round(ratio, 3),
            "plain loop, tokens/s (median)": round(tokens / statistics.median(plain)),
            "preset, steps, threads": f"{args.preset}, {cfg.steps}, {args.threads}"}


if __name__ == "__main__":
    main()
