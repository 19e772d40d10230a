"""`gelu-lab claims`: common statements about GELU, each checked by computation or against a measurement."""

from __future__ import annotations

from ..analysis.claims import CLAIMS, check_all
from ..printing import emit, to_json


def register(sub):
    p = sub.add_parser("claims", help="check common claims about GELU (computed now, or against the newest measurement)")
    p.add_argument("--id", action="append", choices=list(CLAIMS), help="only this claim (repeatable)")
    p.add_argument("--lang", default="en", choices=["en", "zh"])
    p.add_argument("--store", help="runs store to read measurements from (default $GELU_LAB_STORE or the data directory)")
    p.add_argument("--measure", action="store_true", help="time this machine now instead of reading the newest bench run")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def run(args) -> int:
    from ..app.claim_words import words
    from ..app.content import LANGS
    from ..results.store import for_reading

    store = for_reading(args.store)
    try:
        rows = check_all(store, args.id, measure=args.measure)
    finally:
        if store:
            store.close()
    said = [{lang: words(r, lang) for lang in LANGS} for r in rows]
    if args.format == "json":
        out = [{**{k: v for k, v in r.items() if k not in ("note", "values")}, "text": {lang: w[lang]["text"] for lang in LANGS},
                "note": {lang: w[lang]["note"] for lang in LANGS}} for r, w in zip(rows, said)]
        print(to_json({"claims": out}))
        return 0
    said = [w[args.lang] for w in said]
    table = [{"id": r["id"], "verdict": r["verdict"], "claim": w["text"]} for r, w in zip(rows, said)]
    print(emit(table, ["id", "verdict", "claim"], "text"))
    for r, w in zip(rows, said):
        print(f"\n[{r['id']}] {r['verdict']}: {w['note']}" + ("" if r["source"] == "computed" else f"\n  {w['source']}")
              + (f"\n  run: {r['how']}" if r["verdict"] == "untested" and r["how"] else ""))
    return 0
