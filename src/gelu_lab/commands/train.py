"""`gelu-lab train`: train the small Transformer once per activation and seed.

    gelu-lab train --activations gelu,gelu_tanh,relu,sigmoid,silu --seeds 3 --preset quick
    gelu-lab train --activations gelu,relu --fc-init-std 0.02,unit     # an init-scale sweep
    gelu-lab train --activations geglu,swiglu --preset decide          # gated FFNs (gelu_lab.nn.variants)
    gelu-lab train --resume 7                                           # continue an interrupted run
    torchrun --nproc_per_node=2 -m gelu_lab train ...                   # DDP (gloo on CPU)
"""

from __future__ import annotations

import shlex

from ..printing import emit


def _positive(name):
    import argparse

    def conv(s):
        try:
            v = int(s)
        except ValueError:
            v = 0
        if v < 1:
            raise argparse.ArgumentTypeError(f"must be a positive integer, got {s!r}")
        return v

    return conv


def register(sub):
    from ..nn.presets import PRESETS

    p = sub.add_parser("train", help="train a small char Transformer per FFN activation and seed (needs torch)")
    p.add_argument("--activations", default="gelu,gelu_tanh,relu,sigmoid,silu",
                   help="comma-separated FFN variants: activation names of the registry, or gated ones (glu, bilinear, reglu, geglu, swiglu)")
    p.add_argument("--seeds", type=_positive("seeds"), default=1, help="number of seeds (0..N-1)")
    p.add_argument("--seed-start", type=int, default=0, help="first seed (seeds are S..S+N-1)")
    p.add_argument("--preset", default="quick", choices=list(PRESETS))
    p.add_argument("--steps", type=_positive("steps"), help="training steps (default: the preset's)")
    p.add_argument("--fc-init-std", default="0.02", help='std of the FFN input weights W1; "unit" = 1/sqrt(d); a comma list sweeps')
    p.add_argument("--width", type=_positive("width"), help="model width n_embd (default: the preset's; a multiple of its heads)")
    p.add_argument("--batch-size", type=_positive("batch-size"))
    p.add_argument("--lr", type=float)
    p.add_argument("--eval-interval", type=_positive("eval-interval"))
    p.add_argument("--ckpt-every", type=_positive("ckpt-every"), default=500, help="checkpoint every K steps")
    p.add_argument("--text", help="train on this UTF-8 text file instead of the Shakespeare corpus")
    p.add_argument("--store", help="runs store file (default: $GELU_LAB_STORE or the data dir)")
    p.add_argument("--resume", type=_positive("resume"), metavar="RUN_ID", help="continue an interrupted run from its checkpoint (gelu-lab runs list shows them)")
    p.add_argument("--threads", type=_positive("threads"), help="torch CPU threads (1 is fastest on a busy machine)")
    p.add_argument("--again", action="store_true", help="train even if an identical finished run is stored")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--format", default="text", choices=["text", "json", "csv"])
    p.set_defaults(func=run)


def _fc_values(s: str) -> list:
    out = []
    for tok in s.split(","):
        tok = tok.strip()
        if tok == "unit":
            out.append("unit")
            continue
        try:
            v = float(tok)
        except ValueError:
            raise ValueError(f'--fc-init-std: {tok!r} is neither a number nor "unit"') from None
        if not 0 < v < 10:
            raise ValueError(f"--fc-init-std must be in (0, 10), got {tok}")
        out.append(v)
    return out


def _command_line(args) -> str:
    """The command, with every option spelled out, for the runs' provenance."""
    if args.resume:
        return f"gelu-lab train --resume {args.resume}"
    parts = ["gelu-lab train", f"--activations {args.activations}", f"--seeds {args.seeds}", f"--preset {args.preset}"]
    if args.seed_start:
        parts.append(f"--seed-start {args.seed_start}")
    for flag in ("steps", "width", "fc_init_std", "batch_size", "lr", "eval_interval", "ckpt_every", "text", "threads"):
        v = getattr(args, flag)
        if v is not None:
            parts.append(f"--{flag.replace('_', '-')} {shlex.quote(str(v))}")
    return " ".join(parts)


def _resume_hints(store, acts, store_arg) -> None:
    """Say which interrupted runs of these activations could be continued instead of
    started again (a new run starts all the same: its seed or steps may differ)."""
    import os
    import sys

    from ..nn.train_job import resume_command

    if os.environ.get("RANK", "0") != "0":  # under torchrun: rank 0 speaks
        return
    for r in store.runs("train", "interrupted"):
        c = r["config"]
        if c.get("activation") in acts:
            print(f"gelu-lab: run {r['id']} ({c['activation']} seed {c.get('seed')}, {c.get('steps')} steps) was interrupted; "
                  f"{resume_command(r['id'], store_arg)} continues it", file=sys.stderr)


def run(args) -> int:
    from ..nn.variants import canonical

    acts = [canonical(a) for a in args.activations.split(",") if a.strip()]
    if not acts:
        raise ValueError("--activations is empty")
    fcs = _fc_values(args.fc_init_std)
    if args.text:
        import os

        if not os.path.isfile(args.text):
            raise ValueError(f"--text {args.text}: no such file")
    if args.seed_start < 0:
        raise ValueError(f"--seed-start must be >= 0, got {args.seed_start}")
    if args.lr is not None and not 0 < args.lr < 1:
        raise ValueError(f"--lr must be in (0, 1), got {args.lr}")
    import torch  # without it the CLI names the extra to install
    from ..nn.train import TrainConfig, grid, train
    from ..results.store import Store, train_runs

    if args.threads:
        torch.set_num_threads(args.threads)
    command = _command_line(args)
    with Store(args.store) as store:
        if args.resume:
            ids = [train(None, store, resume=args.resume, progress=not args.no_progress, command=command)]
        else:
            _resume_hints(store, acts, args.store)
            ids = []
            for fc in fcs:
                base = dict(preset=args.preset, steps=args.steps, n_embd=args.width, fc_init_std=fc, batch_size=args.batch_size, lr=args.lr,
                            eval_interval=args.eval_interval, ckpt_every=args.ckpt_every, text=args.text)
                TrainConfig.make(**{**base, "activation": acts[0]})  # bad options fail before any training
                ids += grid(acts, range(args.seed_start, args.seed_start + args.seeds), store, base, progress=not args.no_progress, again=args.again, command=command)
        if int(__import__("os").environ.get("RANK", "0")) != 0:
            return 0
        rows = []
        for r in train_runs(store, ids=set(ids), status=None, with_metrics=False):
            f = r["final"] or {}
            c = r["config"]
            rows.append({"run": r["id"], "activation": c["activation"], "seed": c["seed"], "fc_init_std": c["fc_init_std"],
                         "steps": c["steps"], "val_loss": f.get("val_loss_full"), "wall_s": f.get("wall_s"), "tok_s": f.get("tok_s")})
    print(emit(rows, ["run", "activation", "seed", "fc_init_std", "steps", "val_loss", "wall_s", "tok_s"], args.format))
    return 0
