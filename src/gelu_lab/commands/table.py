"""`gelu-lab table`: the classic comparison table of GELU, its approximations and ReLU."""

from __future__ import annotations

from ..printing import emit
from ..analysis.demo_table import COLUMNS, DEFAULT_X, comparison_table, parse_x_list

DTYPES = ["float64", "float32", "bfloat16", "float16"]


def register(sub):
    p = sub.add_parser("table", help="GELU vs its approximations vs ReLU at a few x")
    p.add_argument("--x", default=",".join(str(v) for v in DEFAULT_X), help='comma-separated x values, e.g. "-3,0,3"')
    p.add_argument("--dtype", default="float64", choices=DTYPES)
    p.add_argument("--format", default="text", choices=["text", "json", "csv"])
    p.set_defaults(func=run)


def run(args) -> int:
    xs = parse_x_list(args.x)
    rows = comparison_table(xs, args.dtype)
    print(emit(rows, COLUMNS, args.format, {"dtype": args.dtype}))
    return 0
