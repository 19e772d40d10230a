"""`gelu-lab bench`: throughput of every GELU form and backend against the memory roofline."""

from __future__ import annotations

import contextlib

from ..analysis import bench
from ..printing import emit, to_json
from ..analysis.demo_table import parse_x_list

COLUMNS = ["case", "dtype", "n", "threads", "gelem_s", "vs_copy"]


def register(sub):
    p = sub.add_parser("bench", help="Gelem/s of each form (numpy, gelu_lab, torch; forward, backward) vs np.copyto")
    p.add_argument("--cases", help=f"comma-separated, default all: {', '.join(bench.CASES)}")
    p.add_argument("--sizes", default="1e3,1e4,1e5,1e6,1e7", help="comma-separated element counts, up to 1e8")
    p.add_argument("--threads", default="1", help="comma-separated thread counts, e.g. 1,2")
    p.add_argument("--repeats", type=int, default=5, help="timed samples per figure (the median is reported)")
    p.add_argument("--interleave", action="store_true",
                   help="sample the cases of one size in turn (fairer ratios on a shared machine; all their arrays in memory at once)")
    p.add_argument("--store", help="runs store file (default $GELU_LAB_STORE or the data directory)")
    p.add_argument("--no-store", action="store_true")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def _ints(text: str, what: str) -> list[int]:
    vals = parse_x_list(text)
    if any(v != int(v) for v in vals):
        raise ValueError(f"{what} must be whole numbers, got {text!r}")
    return [int(v) for v in vals]


def run(args) -> int:
    names = bench.check_names([c.strip() for c in args.cases.split(",") if c.strip()]) if args.cases else None
    sizes, threads = _ints(args.sizes, "--sizes"), _ints(args.threads, "--threads")
    if not 1 <= args.repeats <= 1000:
        raise ValueError("--repeats must lie in 1..1000")
    from ..results.store import Store

    with contextlib.nullcontext() if args.no_store else Store(args.store) as store:
        r = bench.measure(names, sizes, threads, args.repeats, store=store, interleave=args.interleave)
    if args.format == "json":
        print(to_json(r))
        return 0
    m = r["machine"]
    print(f"{m['processor']}, {m['cpus']} cpus, numpy {m['numpy']}, torch {m.get('torch', '-')}, numba {m['numba']}")
    print(f"ISA: {m['isa'] or '-'}; float32 kernel: {m['kernel']}, 16-bit lookups: {m['lookup16']} (available: {', '.join(m['kernels'])})")
    tk = m.get("torch_kernels") or {}
    print("torch kernels: " + (", ".join(f"{c} {k}" for c, k in tk.items()) or "-"))
    print(emit(r["rows"], COLUMNS, "text"))
    print("tanh vs erf (throughput ratio, > 1: tanh faster)")
    print(emit(r["tanh_vs_erf"], ["num", "den", "n", "threads", "ratio"], "text"))
    return 0
