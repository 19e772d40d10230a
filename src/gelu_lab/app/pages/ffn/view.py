"""The FFN page's view: the numbers of :mod:`gelu_lab.nn.ffn_view` as the page shows them.

    readouts(r)     the live block's readouts (ffn_view.live()["readouts"]), in READOUTS' order
    quoted(q)       the numbers the explanation of a group quotes (ffn_view.group()["quoted"])
    run_time(d)     what one shipped run took (ffn_view.run_time()), as the run text says it
"""

from __future__ import annotations

from ....printing import fixed, pct

NONE = "–"  # a number that cannot be given (no such activation in the group, no shipped run)


def _num(v, digits: int) -> str:
    return NONE if v is None else fixed(v, digits)


def _text(v) -> str:
    return NONE if v is None else str(v)


def readouts(r: dict) -> list[str]:
    """Dead, near-dead and negative shares, linearity, pre-activation std, the negative share and
    the range of what enters W2."""
    return [pct(r["dead"]), pct(r["near_dead"]), pct(r["pre_neg"]), fixed(r["linearity"], 4), fixed(r["pre_std"], 3),
            pct(r["y_neg"]), f"[{fixed(r['y_min'], 2)}, {fixed(r['y_max'], 2)}]"]


def quoted(q: dict) -> dict:
    """{s0, s1: the pre-activation std at the start and end; r0, r1: GELU's linearity there; fc,
    steps; sig_mean, sig_grad, gelu_grad; relu_dead, relu_dead0: ReLU's dead share in %}."""
    digits = {"s0": 2, "s1": 2, "r0": 3, "r1": 3, "sig_mean": 2, "sig_grad": 3, "gelu_grad": 3, "relu_dead": 2, "relu_dead0": 2}
    return {**{k: _num(q[k], d) for k, d in digits.items()}, "fc": _text(q["fc"]), "steps": _text(q["steps"])}


def run_time(d: dict) -> dict:
    """{"wall" (whole seconds), "steps", "cpu", "cpus", "threads"} as text ("–" without a run)."""
    return {"wall": NONE if d["wall"] is None else f"{d['wall']:.0f}", **{k: _text(d[k]) for k in ("steps", "cpu", "cpus", "threads")}}
