"""`gelu-lab runs`: the training runs in the runs store.

    gelu-lab runs list                          one line per run; an interrupted one with the command that resumes it
    gelu-lab runs show RUN_ID                   config, provenance, final numbers, metric table
    gelu-lab runs export --format json|csv      everything (json: the document the app reads)
    gelu-lab runs compare                       val loss per activation: mean +- std, ranking, gap vs spread,
                                                GELU minus each other activation paired by seed, with its 95% interval
    gelu-lab runs merge SOURCE... [--store S]   copy the finished runs of other stores (or result sets) into S:
                                                idempotent; two separate runs of one key are refused (exit 2)
--shipped reads the result set shipped with the package instead of the store.
"""

from __future__ import annotations

from ..printing import emit, to_json

LIST_COLUMNS = ["run", "status", "activation", "seed", "preset", "steps", "fc_init_std", "val_loss", "wall_s", "tok_s", "resume"]
CMP_COLUMNS = ["group", "rank", "activation", "n", "mean", "std", "gap", "spread", "separated", "behind"]


def register(sub):
    from . import Parser

    p = sub.add_parser("runs", help="list, show, export and compare stored training runs")
    acts = p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    for name, helptext in (("list", "one line per run"), ("show", "one run in full"),
                           ("export", "all runs with metrics"), ("compare", "val loss per activation over seeds")):
        q = acts.add_parser(name, help=helptext)
        if name == "show":
            q.add_argument("run_id", type=int, metavar="RUN_ID")
        q.add_argument("--store", help="runs store file (default: $GELU_LAB_STORE or the data dir)")
        q.add_argument("--shipped", action="store_true", help="the result set shipped with gelu-lab, not the store")
        q.add_argument("--format", default="json" if name == "export" else "text", choices=["text", "json", "csv"])
        q.set_defaults(func=run)
    q = acts.add_parser("merge", help="bring other runs stores (or result sets) into this one")
    q.add_argument("sources", nargs="+", metavar="SOURCE", help="runs store files or result sets (gelu-lab runs export, experiment --write)")
    q.add_argument("--store", help="the store to merge into (default: $GELU_LAB_STORE or the data dir)")
    q.set_defaults(func=merge)
    p.set_defaults(func=lambda args: _need_action())


def merge(args) -> int:
    from ..results.merge import merge as merge_into
    from ..results.store import default_path

    target = args.store or str(default_path())
    got = merge_into(target, args.sources)
    print(f"merged {got['sources']} source(s) into {target}: {got['added']} run(s) added, {got['present']} already there")
    return 0


def _need_action():
    from . import CliError

    raise CliError("runs: choose an action: list, show, export, compare or merge")


def _runs(args, with_metrics=True):
    """(runs, provenance of the set): the shipped set (--shipped), else the store's runs."""
    from pathlib import Path

    from ..results import latest
    from ..results.store import Store, default_path, train_runs

    if args.shipped:
        got = latest("train", store=False)
        if got is None:
            raise ValueError("no result set is shipped with this installation")
        return got.value, got.provenance
    path = Path(args.store) if args.store else default_path()
    if not path.exists():
        raise ValueError(f"no runs store at {path} (train first, or use --shipped)")
    with Store(path) as store:
        status = None if args.action in ("list", "show") else "done"
        return train_runs(store, status=status, with_metrics=with_metrics), {}


def run(args) -> int:
    from ..nn import runs as R
    from .run_words import compare, paired_line

    runs, prov = _runs(args, with_metrics=args.action != "list")
    if args.action == "list":
        from ..nn.train_job import resume_command

        rows = []
        for r in runs:
            c, f = r["config"], r["final"] or {}
            # a run whose process is gone reads as "interrupted" (gelu_lab.results.store)
            resume = resume_command(r["id"], args.store) if r["status"] == "interrupted" and not args.shipped else ""
            rows.append({"run": r["id"], "status": r["status"], "activation": c["activation"], "seed": c["seed"],
                         "preset": c["preset"], "steps": c["steps"], "fc_init_std": c["fc_init_std"],
                         "val_loss": f.get("val_loss_full", ""), "wall_s": f.get("wall_s", ""), "tok_s": f.get("tok_s", ""),
                         "resume": resume})
        print(emit(rows, LIST_COLUMNS, args.format))
    elif args.action == "show":
        run = next((r for r in runs if r["id"] == args.run_id), None)
        if run is None:
            raise ValueError(f"no training run with id {args.run_id}")
        names = sorted(run["metrics"])
        steps = sorted({s for pts in run["metrics"].values() for s, _ in pts})
        table = {n: dict(map(tuple, run["metrics"][n])) for n in names}
        rows = [{"step": s, **{n: table[n].get(s, "") for n in names}} for s in steps]
        if args.format == "text":
            print(to_json({k: run[k] for k in ("id", "key", "status", "config", "provenance", "final")}))
            print(emit(rows, ["step", *names], "text"))
        else:
            print(emit(rows, ["step", *names], args.format, {k: run[k] for k in ("id", "key", "status", "config", "provenance", "final")}))
    elif args.action == "export":
        if args.format == "csv":
            rows = [{"run": r["id"], "activation": r["config"]["activation"], "seed": r["config"]["seed"],
                     "fc_init_std": r["config"]["fc_init_std"], "step": s, "name": n, "value": v}
                    for r in runs for n, pts in sorted(r["metrics"].items()) for s, v in pts]
            print(emit(rows, ["run", "activation", "seed", "fc_init_std", "step", "name", "value"], "csv"))
        else:
            from ..results.store import provenance

            prov = prov or {**provenance(), "train_commands": sorted({r["provenance"].get("command", "") for r in runs})}
            print(to_json(R.export_doc(runs, prov)))
    else:  # compare
        groups = compare(runs)
        if args.format == "json":
            print(to_json(groups))
            return 0
        rows = [{"group": g["label"], **{k: row[k] for k in CMP_COLUMNS[1:]}} for g in groups for row in g["rows"]]
        print(emit(rows, CMP_COLUMNS, args.format))
        if args.format == "text":
            for g in groups:
                print(f"{g['label']}: {g['verdict']}")
                for p in g["paired"]:
                    print("  " + paired_line(p))
    return 0
