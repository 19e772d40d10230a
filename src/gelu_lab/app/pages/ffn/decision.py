"""The FFN page's answer: the learning-rate experiment's verdict, its learning-rate sweep and its scale trend.

All numbers come from :func:`gelu_lab.nn.ffn_view.decision` (the shipped result set and
the reader's store); this module only says them, in the page language.
"""

from __future__ import annotations

from dash import html

from ....figures import ffn as figs
from ....nn import ffn_view as data
from ....stats import runsets as R
from ....printing import fixed
from ... import content
from ...components import graph, md, values_table


def nats(v: float) -> str:
    """A loss difference as shown: 3 decimals, 4 below 0.01 (where 3 would hide it)."""
    return fixed(v, 4 if abs(v) < 0.01 else 3)


def _names(lang):
    return lambda a: content.label(a, lang)


def verdict(d: dict, t: dict, lang: str) -> str:
    """The sentence that opens the training section: GELU against ReLU in the main cell."""
    p, c, main = d["relu"], d["c"], d["main"]
    if p is None:
        return t["decide.no_relu"]
    means = {r["activation"]: r["mean"] for r in main["rows"]}
    values = dict(width=str(c["n_embd"]), steps=str(c["steps"]), n=str(p["n"]), gap=nats(abs(p["mean"])), half=nats(p["half"]),
                  mean=nats(p["mean"]), lo=nats(p["lo"]), hi=nats(p["hi"]), g=fixed(means["gelu"], 3), r=fixed(means["relu"], 3))
    key = "decide.within" if p["verdict"] != "larger" else ("decide.lower" if p["mean"] < 0 else "decide.higher")
    return content.fill(t[key if p["verdict"] != "unknown" else "decide.unknown"], **values)


def rows_verdict(rows: list[dict], t: dict, lang: str) -> str:
    """The sentence under the results table: who is lowest and whether the gaps exceed the seed-to-seed noise, in words."""
    v = R.verdict_parts(rows)
    if v is None:
        return ""
    name = _names(lang)
    ahead = t["verdict.ahead"] if v["ahead"] else ""
    return content.fill(t[f"verdict.{v['kind']}"], best=name(v["best"]), names=content.join(map(name, v["close"]), lang), ahead=ahead)


def setup(d: dict, t: dict) -> str:
    c = d["c"]
    return content.fill(t["decide.text"], layers=str(c["n_layer"]), width=str(c["n_embd"]), ctx=str(c["block_size"]),
                        steps=str(c["steps"]), batch=str(c["batch_size"]), chars=f"{c['steps'] * c['batch_size'] * c['block_size']:,}")


def pairs_table(d: dict, t: dict, lang: str):
    name = _names(lang)
    rows = [html.Tr([html.Td(name(p["b"])), html.Td(nats(p["mean"])),
                     html.Td("–" if p["verdict"] == "unknown" else f"[{nats(p['lo'])}, {nats(p['hi'])}]"),
                     html.Td(str(p["n"])), html.Td(t[f"pair.{p['verdict']}"])]) for p in d["pairs"]]
    head = [t[f"pairs.{k}"] for k in ("vs", "mean", "ci", "n", "verdict")]
    return values_table(head, rows, id="ffn-pairs-el")


def lr_block(d: dict, t: dict, lang: str) -> list:
    """Each swept variant's rates with its chosen one, and whether every choice is bracketed
    (stats.runsets.bracket: a worse rate on both sides)."""
    name = _names(lang)
    chosen = content.join((f"{name(a)} {r:g}" for a, r in d["lr"].items()), lang)
    text = content.fill(t["lr.text"], rates=content.join((f"{r:g}" for r in d["rates"]), lang), chosen=chosen)
    edge = [a for a, b in d["exp"]["bracket"].items() if not b["bracketed"]]
    text += " " + (content.fill(t["lr.edge"], acts=content.join((name(a) for a in edge), lang)) if edge else t["lr.bracketed"])
    fig = figs.lr_figure(d["sweep"], d["lr"], {a: name(a) for a in d["sweep"]},
                         {"title": t["fig.lr.title"], "x": t["fig.lr.x"], "y": t["fig.lr.y"], "chosen": t["fig.lr.chosen"]})
    return [html.H3(t["lr.h"]), md(text, id="ffn-lr-text"), graph("ffn-lr", fig)]


def trend_block(d: dict, t: dict, lang: str) -> list:
    if not d["trend"]:
        return []
    fc_name = {fc: t["fc.unit"] if fc == "unit" else content.fill(t["trend.fc"], fc=fc) for fc in d["trend_words"]}
    points = [{**p, "series": fc_name[p["fc"]]} for p in d["trend"]]
    lines = []
    for fc, word in d["trend_words"].items():
        at = content.join((f"d = {p['width']}: {nats(p['mean'])} [{nats(p['lo'])}, {nats(p['hi'])}]"
                    for p in sorted((p for p in d["trend"] if p["fc"] == fc), key=lambda p: p["width"])), lang)
        lines.append("- " + content.fill(t["trend.line"], fc=fc_name[fc], word=t["trend." + word], at=at))
    c = d["c"]
    text = content.fill(t["trend.text"], width=str(c["n_embd"]), fc=str(c["fc_init_std"])) + "\n\n" + "\n".join(lines)
    fig = figs.trend_figure(points, {"title": t["fig.trend.title"], "x": t["fig.trend.x"], "y": t["fig.trend.y"]})
    return [html.H3(t["trend.h"]), md(text, id="ffn-trend-text"), graph("ffn-trend", fig)]


def block(d: dict | None, lang: str, t: dict) -> tuple[list, list]:
    """(what opens the training section, what follows its curves) for `d`, nn.ffn_view.decision of
    the runs: the verdict and the table of pairs; the learning-rate sweep and the scale trend.
    ([note], []) without the experiment."""
    if d is None:
        return [html.P(t["decide.none"], id="ffn-decision", className="verdict")], []
    head = [html.H3(t["decide.h"]), md(setup(d, t)), html.Div(md(verdict(d, t, lang)), id="ffn-decision", className="verdict"), pairs_table(d, t, lang)]
    return head, [*lr_block(d, t, lang), *trend_block(d, t, lang)]
