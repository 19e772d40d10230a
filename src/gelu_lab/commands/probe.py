"""`gelu-lab probe`: what GELU sees inside a real BERT, and what swapping it does.

Runs :func:`gelu_lab.nn.probe.probe` on N Shakespeare sentences (or the lines
of --text FILE), stores the result in the runs store (kind "probe", result
"probe", with provenance) and prints the per-layer statistics, the swap table
and the precision table.
"""

from __future__ import annotations

import argparse
import hashlib
import sys

from ..printing import emit, to_json

LAYER_COLS = ["layer", "mean", "std", "skew", "excess_kurtosis", "share_negative", "share_in_minus3_0",
              "share_below_minus3", "ks_std_normal", "ks_fitted_normal", "gelu_magnitude_from_negative", "units_never_positive"]
SWAP_COLS = ["activation", "layer", "cos_mean", "cos_min", "spearman", "nn_top1"]
PREC_COLS = ["variant", "cos_mean", "cos_min", "spearman", "nn_top1"]


def _count(s: str) -> int:
    try:
        n = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {s!r}") from None
    if not 3 <= n <= 20000:
        raise argparse.ArgumentTypeError(f"must be in 3..20000, got {n}")
    return n


def _threads(s: str) -> int:
    if not s.isdigit() or not 1 <= int(s) <= 256:
        raise argparse.ArgumentTypeError(f"must be a whole number in 1..256, got {s!r}")
    return int(s)


def register(sub):
    p = sub.add_parser("probe", help="probe a real BERT (all-MiniLM-L6-v2): FFN pre-activations, activation swaps, precision")
    p.add_argument("--sentences", type=_count, default=None, help="how many sentences (default 500; with --text: all lines)")
    p.add_argument("--text", metavar="FILE", help="your own sentences, one per line (UTF-8)")
    p.add_argument("--no-layer-sweep", action="store_true", help="swap in all layers only, not one layer at a time")
    p.add_argument("--precision", default="auto", help='model formats to compare with float32: "auto" (bfloat16, and float16 where native), a comma list, or "none"')
    p.add_argument("--threads", type=_threads, help="torch CPU threads (default: torch's choice; 1 wastes least on a busy machine)")
    p.add_argument("--store", help="runs store file (default: $GELU_LAB_STORE or the data dir)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--format", default="text", choices=["text", "json"])
    p.set_defaults(func=run)


def _precisions(s: str):
    if s == "auto":
        return None
    if s == "none":
        return []
    out = [v.strip() for v in s.split(",") if v.strip()]
    bad = [v for v in out if v not in ("bfloat16", "float16")]
    if bad or not out:
        raise ValueError(f'--precision takes "auto", "none" or a list of bfloat16, float16; got {s!r}')
    return out


def run(args) -> int:
    precisions = _precisions(args.precision)
    from ..nn import probe as P  # torch and transformers load only now

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    if args.text:
        sentences = P.read_text(args.text)
        source = f"file sha256:{hashlib.sha256(chr(10).join(sentences).encode()).hexdigest()[:16]}"
        if args.sentences:
            sentences = sentences[: args.sentences]
    else:
        from ..nn.corpus import corpus_info, sentences as corpus_sentences

        sentences = corpus_sentences(args.sentences or P.DEFAULT_SENTENCES)
        source = f"shakespeare sha256:{corpus_info()['sha256'][:16]}"
    if len(sentences) < 3:
        raise ValueError(f"need at least 3 sentences to compare neighbours, got {len(sentences)}")
    per_layer = not args.no_layer_sweep
    P.model_dir()  # a missing model package is one line, before any work

    from tqdm import tqdm

    from ..results.store import Store

    config = {"model": P.MODEL, "source": source, "sentences": len(sentences), "swaps": list(P.SWAPS),
              "layer_sweep": per_layer, "precision": args.precision}
    key = f"{P.MODEL}|{source}|{len(sentences)}|sweep={per_layer}|{args.precision}"
    with Store(args.store) as store:
        run_id = store.start_run("probe", key, config)
        total = P.plan(len(sentences), per_layer=per_layer, precisions=precisions)
        bar = tqdm(total=total, unit="sent·layer", desc="probe", file=sys.stderr, disable=args.no_progress, dynamic_ncols=True)
        try:
            result = P.probe(sentences, per_layer=per_layer, precisions=precisions, progress=bar.update)
        except BaseException:
            store.set_status(run_id, "failed")
            raise
        finally:
            bar.close()
        store.put_result(run_id, "probe", result)
        store.set_status(run_id, "done")
        run = store.find_run("probe", key)

    if args.format == "json":
        print(to_json({"run_id": run_id, "store": str(store.path), "config": config, "provenance": run["provenance"], "result": result}))
        return 0
    layers = [{"layer": i, **{k: v for k, v in L.items() if k in LAYER_COLS}} for i, L in enumerate(result["layers"])]
    print(f"{P.MODEL}: {result['n_sentences']} sentences, {result['tokens']} tokens; run {run_id} in {store.path}")
    print(emit(layers, LAYER_COLS, "text"))
    print()
    print(emit(result["swaps"], SWAP_COLS, "text"))
    print()
    print(emit(result["precision"], PREC_COLS, "text"))
    cr = result["precision"][-1]
    print(f"torch's float32 GELU differs from the correctly rounded one on {100 * cr['share_torch_differs']:.1f} % of "
          f"{cr['values']} activation inputs, by more than 1 ulp on {100 * cr['share_torch_over_1ulp']:.4f} % "
          f"(at most {cr['max_ulp_torch']} ulp: the negative tail, where 1 + erf cancels); {result['float16_note']}")
    t = result["timings"]
    print("time: " + ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in t.items() if k.endswith("_s")) + f" on {t['threads']} threads")
    return 0
