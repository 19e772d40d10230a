"""`gelu-lab report`: every page, figure and measured table in one self-contained HTML file."""

from __future__ import annotations

import sys
from pathlib import Path

from . import CliError
from ..printing import to_json


def register(sub):
    p = sub.add_parser("report", help="write the app, its figures and the measured tables to ONE offline HTML file")
    p.add_argument("--out", default="gelu-lab.html", help="the HTML file to write (default gelu-lab.html)")
    p.add_argument("--lang", default="zh", choices=["zh", "en"])
    p.add_argument("--store", help="runs store file (default $GELU_LAB_STORE or the data directory)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def run(args) -> int:
    from ..app import report
    from ..results.store import for_reading

    if not Path(args.out).resolve().parent.is_dir():
        raise CliError(f"report: the folder of --out {args.out} does not exist")
    if Path(args.out).is_dir():
        raise CliError(f"report: --out {args.out} is a folder; name the HTML file to write")
    # a store named with --store must be readable (OSError: exit 1); the default one may not be there
    store = for_reading(args.store) if args.store else None
    try:
        info = report.build(args.out, args.lang, store=store, progress=False if args.no_progress else None)
    finally:  # closed on failure too: no -wal/-shm left beside a store that could not be read
        if store:
            store.close()
    if args.format == "json":
        print(to_json(info))
        return 0
    print(f"wrote {info['path']}: {info['bytes'] / 1e6:.1f} MB, {len(info['sections'])} sections, {info['figures']} figures, {info['seconds']:.1f} s")
    commands = {key: command for key, _, command in report.MEASUREMENTS}
    for key in info["missing"]:
        print(f"missing measurement {key}: run `{commands[key]}`", file=sys.stderr)
    return 0
