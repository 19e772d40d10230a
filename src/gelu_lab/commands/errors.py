"""`gelu-lab errors`: error of the GELU approximations (or any activation) against exact GELU."""

from __future__ import annotations

from ..analysis.errors import error_curves
from ..printing import emit, to_json

COLUMNS = ["approx", "reference", "max_abs_error", "argmax", "x_neg", "x_pos", "max_rel_error", "argmax_rel"]


def register(sub):
    p = sub.add_parser("errors", help="max error of an approximation against exact GELU, located")
    p.add_argument("--approx", action="append", help="tanh, sigmoid or any activation name (repeatable; default: tanh and sigmoid)")
    p.add_argument("--reference", default="gelu", help="the activation to compare against (default gelu)")
    p.add_argument("--interval", nargs=2, type=float, default=[-4.0, 4.0], metavar=("A", "B"))
    p.add_argument("--points", type=int, default=2001, help="points of the error curves in the json output")
    p.add_argument("--curves", action="store_true", help="include the curves (x, abs_error, rel_error) in the json output")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def run(args) -> int:
    results = [error_curves(a, args.reference, tuple(args.interval), args.points) for a in (args.approx or ["tanh", "sigmoid"])]
    if args.format == "json":
        print(to_json({"interval": args.interval, "results": [r.to_dict(curves=args.curves) for r in results]}))
        return 0
    rows = []
    for r in results:
        xs = {("x_neg" if x < 0 else "x_pos"): x for x, _ in r.argmax_pair}
        rows.append({"approx": r.approx, "reference": r.reference, "max_abs_error": r.max_abs_error, "argmax": r.argmax,
                     "x_neg": xs.get("x_neg", "-"), "x_pos": xs.get("x_pos", "-"),
                     "max_rel_error": r.max_rel_error, "argmax_rel": r.argmax_rel})
    print(emit(rows, COLUMNS, "text"))
    return 0
