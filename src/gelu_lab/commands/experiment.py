"""`gelu-lab experiment`: the FFN experiment that decides (gelu_lab.nn.experiment).

    gelu-lab experiment --store S --reuse src/gelu_lab/data/ffn_results.json --write src/gelu_lab/data/ffn_results.json
                                          # the shipped set: the runs shipped before are reused where their config is identical
    gelu-lab experiment --plan tiny --store /tmp/t.sqlite                        # the whole pipeline in seconds
    gelu-lab experiment --commands --store S                                     # the runs still wanted, one command each

Given again after a kill, it goes on where it stopped (done runs are kept,
interrupted ones resumed). Past one machine: ``--commands`` prints one ``gelu-lab
train`` line per run the plan still wants given the store; run them anywhere (a Slurm
job array, GNU parallel), bring the stores together with ``gelu-lab runs merge``, and
ask again: the sweep's grid grows from its losses, so the list comes in rounds, and an
empty one means the plan is complete.
"""

from __future__ import annotations


def register(sub):
    from ..nn.plans import PLANS

    p = sub.add_parser("experiment", help="the FFN experiment: learning-rate sweep, seeds, scale trend (needs torch)")
    p.add_argument("--plan", default="ship", choices=list(PLANS), help="ship: the shipped result set; tiny: seconds")
    p.add_argument("--workers", type=int, default=2, help="training processes at a time, one thread each (default 2)")
    p.add_argument("--store", help="runs store file (default: $GELU_LAB_STORE or the data dir)")
    p.add_argument("--write", metavar="FILE", help="write the experiment's runs as a result set (the format of data/ffn_results.json)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--reuse", action="append", default=[], metavar="SOURCE",
                   help="first merge the finished runs of this store or result set (gelu-lab runs merge): runs of identical config are not trained again")
    p.add_argument("--no-run", action="store_true",
                   help="train nothing: summarise (and --write) what the store holds now; the result set says how many runs are still to do")
    p.add_argument("--commands", action="store_true", help="print one `gelu-lab train` command per run still wanted, and run nothing")
    p.set_defaults(func=run)


def _isa() -> str:
    """The widest x86 vector extension the CPU reports (speed figures name it)."""
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return ""
    return next((isa for flag, isa in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX")) if flag in flags), "")


def run(args) -> int:
    import platform

    from ..nn.experiment import PLANS, run as carry_out
    from ..printing import to_json
    from ..results.store import default_path, provenance

    if not 1 <= args.workers <= 64:
        raise ValueError(f"--workers must be in 1..64, got {args.workers}")
    import torch  # noqa: F401 (the runs need it: without it the CLI names the extra before the first run fails)
    store = args.store or str(default_path())
    plan = PLANS[args.plan]
    if args.reuse:
        from ..results.merge import merge

        got = merge(store, args.reuse)
        print(f"reused: {got['added']} run(s) added to the store, {got['present']} already there")
    if args.commands:
        from ..nn.experiment import commands

        for line in commands(plan, store):
            print(line)
        return 0
    if args.no_run:
        from ..nn.experiment import summary

        got = summary(plan, store)
    else:
        got = carry_out(plan, store, workers=args.workers, progress=not args.no_progress)
    from ..nn import runs as R
    from .run_words import compare, paired_line
    from ..results.store import Store, train_runs

    with Store(store) as s:
        runs = train_runs(s, ids=set(got["runs"]))
    from ..stats.runsets import bracket

    brackets = {a: bracket(v) for a, v in got["sweep"].items()}
    print("learning rates: " + ", ".join(f"{a} {r:g}" + ("" if a not in brackets or brackets[a]["bracketed"] else " (not bracketed)")
                                         for a, r in got["lr"].items()))
    if got["pending"]:
        print(f"not finished: the plan still wants {got['pending']} run(s) (`gelu-lab experiment --commands` lists them)")
    for g in compare(runs):
        if g.get("lr"):  # the experiment's cells; `gelu-lab runs compare` shows every group
            print(f"{g['label']}: {g['verdict']}")
            for p in g["paired"]:
                print("  " + paired_line(p))
    if args.write:
        from datetime import datetime

        # the experiment's own span, whichever calls of this command carried it out
        span = (max(map(datetime.fromisoformat, (r["updated"] for r in runs)))
                - min(map(datetime.fromisoformat, (r["created"] for r in runs)))).total_seconds()
        sweep = {a: {"rates": sorted(v), "chosen": brackets[a]["chosen"], "bracketed": brackets[a]["bracketed"]} for a, v in got["sweep"].items()}
        exp = {"name": args.plan, "plan": got["plan"], "lr": got["lr"], "sweep": sweep, "runs": len(runs), "pending": got["pending"], "workers": args.workers, "threads_per_run": 1,
               "span_s": round(span), "run_s_total": round(sum((r["final"] or {}).get("wall_s") or 0 for r in runs))}
        prov = {**provenance(), "isa": _isa(), "python_impl": platform.python_implementation(), "experiment": exp,
                "train_commands": sorted({r["provenance"].get("command", "") for r in runs})}
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(to_json(R.export_doc(runs, prov)) + "\n")
    return 0
