"""The CLI's words for comparisons of training runs (`gelu-lab runs compare`, `gelu-lab
experiment`): the numbers are :func:`gelu_lab.stats.runsets.comparisons`; the FFN page says the
same verdicts in its own words (app/pages/ffn/decision.py).

    compare(runs)     comparisons(runs), each with "verdict": one sentence
    verdict(rows)     who wins and whether the gaps exceed the seed-to-seed noise
    paired_line(p)    one line of a paired comparison
"""

from __future__ import annotations

from ..stats import runsets as S

VERDICT_WORDS = {"larger": "larger than the seed-to-seed noise", "within": "within the seed-to-seed noise"}


def compare(runs: list[dict]) -> list[dict]:
    """S.comparisons(runs) with each group's verdict in words:
    [{"group", "label", "config", "rows", "verdict", "paired"(, "lr")}]."""
    out = []
    for g in S.comparisons(runs):
        said = {k: g[k] for k in ("group", "label", "config", "rows")}
        out.append({**said, "verdict": verdict(g["rows"]), **{k: v for k, v in g.items() if k not in said}})
    return out


def paired_line(p: dict) -> str:
    """One line of a paired comparison, as the CLI prints it."""
    if p["verdict"] == "unknown":
        return f"{p['a']} - {p['b']}: {p['mean']:+.4f} nats/char over {p['n']} seed(s): noise unknown"
    return (f"{p['a']} - {p['b']}: {p['mean']:+.4f} nats/char, 95% interval [{p['lo']:+.4f}, {p['hi']:+.4f}] "
            f"over {p['n']} seeds: {VERDICT_WORDS[p['verdict']]}")


def verdict(rows: list[dict]) -> str:
    """One sentence, the CLI's (the page words stats.runsets.verdict_parts in its language):
    who wins and whether the gaps exceed the seed-to-seed noise."""
    v = S.verdict_parts(rows)
    if v is None:
        return ""
    best = v["best"]
    if v["kind"] == "only":
        return f"only {best} was run"
    if v["kind"] == "one_seed":
        return f"{best} is lowest, but with one seed the seed-to-seed noise is unknown"
    if v["kind"] == "wins":
        return f"{best} wins; every gap is larger than the seed-to-seed noise"
    tail = "; paired by seed, it is ahead of them in every seed" if v["ahead"] else ""
    return f"{best} is lowest, but within the seed-to-seed noise of {', '.join(v['close'])}: not a clear win over them" + tail
