"""`gelu-lab accuracy`: ULP error of any GELU implementation against the correctly rounded value."""

from __future__ import annotations

import contextlib

from ..analysis import accuracy as acc
from ..analysis import framework_impls as fi
from ..printing import emit, to_json
from ..reference import REFERENCES

COLUMNS = ["region", "n", "wrong", "frac_wrong", "max_ulp", "argmax_x", *acc.CATEGORIES]


def register(sub):
    p = sub.add_parser("accuracy", help="ULP error of an implementation (built-in, torch:NAME or module:function)")
    p.add_argument("--impl", required=True, action="append",
                   help=f"gelu, gelu_grad, gelu_tanh, ..., torch:gelu, torch:gelu_tanh, torch:gelu_grad, "
                        f"{', '.join(s for s in fi.SPECS if not s.startswith('torch:'))}, "
                        "or module:function; repeat it to measure several over the same inputs (the reference computed once)")
    p.add_argument("--reference", choices=list(REFERENCES), help="the function the impl computes (default: its own; gelu for module:function)")
    p.add_argument("--dtype", default="float32", choices=acc.DTYPES)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--sample", type=int, metavar="N", help="float32: N inputs stratified over binades (default 1048576)")
    g.add_argument("--range", nargs=2, type=float, metavar=("A", "B"), help="float32: every float32 in [A, B]")
    g.add_argument("--exhaustive", action="store_true", help="float32: all 2^32 inputs, in chunks (resumable)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--chunk-bits", type=int, default=acc.CHUNK_BITS, help="log2 of the chunk size (default 24)")
    p.add_argument("--store", help="runs store file (default $GELU_LAB_STORE or the data directory)")
    p.add_argument("--no-store", action="store_true", help="do not record the run")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.add_argument("--progress", action="store_true", help="a progress bar on stderr even when it is not a terminal")
    p.set_defaults(func=run)


def run(args) -> int:
    impls = [acc.resolve(i, args.reference) for i in args.impl]
    if args.dtype != "float32" or args.exhaustive:
        if args.dtype != "float32" and (args.sample is not None or args.range is not None):
            raise ValueError(f"{args.dtype} is always checked exhaustively (65536 inputs): drop --sample/--range")
        mode = "exhaustive"
    else:
        mode = "range" if args.range is not None else "sample"
    from ..results.store import Store

    with contextlib.nullcontext() if args.no_store else Store(args.store) as store:
        done = acc.measure_all(impls, args.dtype, mode, sample=(1 << 20) if args.sample is None else args.sample, seed=args.seed, interval=args.range,
                               chunk_bits=args.chunk_bits, store=store, progress=True if args.progress else None)
    if args.format == "json":
        print(to_json(done[0] if len(done) == 1 else done))
        return 0
    for s in done:
        _print(s)
    return 0


def _print(s: dict) -> None:
    w = s["worst"]
    print(f"{s['impl']} vs correctly rounded {s['reference']}, {s['dtype']} {s['mode']}: {s['n']} inputs, "
          f"{s['wrong']} not correctly rounded ({s['frac_wrong']:.3%}), max {s['max_ulp']} ulp"
          + (f" at x = {w['x']!r} (got {w['got']!r}, want {w['want']!r})" if w else ""))
    counts = ", ".join(f"{k} {v}" for k, v in s["counts"].items())
    print(f"special cases: {counts}")
    hist = ", ".join(f"{lab}: {c}" for lab, c in zip(s["histogram"]["labels"], s["histogram"]["counts"]) if c)
    print(f"ulp histogram: {hist}")
    rows = [{**r, "argmax_x": "-" if r["argmax_x"] is None else r["argmax_x"]} for r in s["regions"] if r["n"]]
    print(emit(rows, COLUMNS, "text", None))
