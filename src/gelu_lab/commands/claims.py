"""`gelu-lab claims`: common statements about GELU, each checked by computation now."""

from __future__ import annotations

from ..analysis.claims import CLAIMS, check_all
from ..results.printing import emit, to_json


def register(sub):
    p = sub.add_parser("claims", help="check common claims about GELU (verdicts computed now)")
    p.add_argument("--id", action="append", choices=list(CLAIMS), help="only this claim (repeatable)")
    p.add_argument("--lang", default="en", choices=["en", "zh"])
    p.add_argument("--store", help="runs store to read training results from (default $GELU_LAB_STORE or the data directory)")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def _open_store(path):
    """The store to read, or None when there is none yet (reading never creates one)."""
    from pathlib import Path

    from ..results.store import Store, default_path

    p = Path(path) if path else default_path()
    return Store(p) if p.exists() else None


def run(args) -> int:
    store = _open_store(args.store)
    try:
        rows = check_all(store, args.id)
    finally:
        if store is not None:
            store.close()
    if args.format == "json":
        print(to_json({"claims": rows}))
        return 0
    table = [{"id": r["id"], "verdict": r["verdict"], "claim": r["text"][args.lang]} for r in rows]
    print(emit(table, ["id", "verdict", "claim"], "text"))
    for r in rows:
        print(f"\n[{r['id']}] {r['verdict']}: {r['note'][args.lang]}" + (f"\n  run: {r['how']}" if r["verdict"] == "untested" and r["how"] else ""))
    return 0
