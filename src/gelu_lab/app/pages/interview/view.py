"""The Interview page's view: a computed value as the page shows it, the answers' texts filled
with the quoted figures, the Check table and the figures; the layout is :mod:`.page`, the
callbacks :mod:`.callbacks`."""

from __future__ import annotations

import functools
import math

from dash import dcc, html

from ....analysis import interview as iv
from ....analysis import theory
from ....figures import interview as figs
from ... import content
from ...components import graph, md, scrolling, section


def show(value, fmt: str) -> str:
    """A computed value as the page shows it: `fmt` applied, no '-0.000'."""
    if isinstance(value, str) or fmt == "s":
        return str(value)
    if isinstance(value, float) and math.isnan(value):  # not measured in this installation's shipped results
        return "–"
    whole = fmt.endswith("d")  # "d" or ",d": an integer, with or without thousands separators
    s = format(int(value) if whole else float(value), fmt)
    return s[1:] if s.startswith("-") and not whole and float(s) == 0 else s


HIDDEN = {"display": "none"}
SHOWN: dict = {}


def _t(lang):
    return content.text(lang, "interview")


def _said(qid: str) -> dict:
    """{key: text} for the answer of `qid`: the stated figure, or the quick value computed once
    (the slow ones appear only in the Check table)."""
    q = iv.QUESTIONS[qid]
    if not q.quantities:
        return {}
    v = iv.values(qid) if any(s.stated is None for s in q.quantities) else {}
    return {s.key: s.stated if s.stated is not None else show(v[s.key], s.fmt) for s in q.quantities if s.stated is not None or s.key in v}


def _ours(qid: str, t: dict, lang: str) -> dict:
    """The gated question's sentence about our experiment: each gated variant minus GELU with its 95 %
    interval and what the interval says, or that the result set has no gated runs yet."""
    if qid != "gated":
        return {}
    v, said = iv.values(qid), _said(qid)
    parts = [content.fill(t["gated.ours.gap"], act=content.label(a, lang), mean=said[f"ours_{a}"], lo=said[f"ours_{a}_lo"],
                          hi=said[f"ours_{a}_hi"], verdict=t[f"gated.verdict.{v[f'ours_{a}_verdict']}"])
             for a in iv.GATED_OURS if v[f"ours_{a}_verdict"] != "none"]
    if not parts:
        return {"ours": t["gated.ours.none"]}
    return {"ours": content.fill(t["gated.ours"], n=said["ours_n"], gaps=content.join(parts, lang))}


@functools.cache
def _figures(lang):
    t = _t(lang)
    x = theory.grid(-4.0, 4.0, 0.01)
    gates = iv.gate_curves(x)
    gate = figs.lines_figure(
        x, {k: g["y"] for k, g in gates.items()}, {k: content.fill(t[f"fig.gate.{k}"], c=f"{g['c']:.6f}") for k, g in gates.items()},
        {"title": t["fig.gate.title"], "x": "x", "y": t["fig.gate.y"]},
    )
    xc = theory.grid(-12.0, 0.0, 0.02)
    cancel = figs.lines_figure(
        xc, iv.cancellation_curves(xc), {k: t[f"fig.cancel.{k}"] for k in ("naive_float32", "naive_float64", "erfc_float32", "erfc_float64")},
        {"title": t["fig.cancel.title"], "x": "x", "y": t["fig.cancel.y"]}, log_y=True,
    )
    return {"gate": gate, "cancel": cancel}


def result_table(rows: list[dict], t: dict) -> html.Div:
    """The Check result: quantity, stated figure, computed value, and whether they agree
    (in a box that scrolls sideways on a narrow screen)."""
    mark = {True: t["agree.yes"], False: t["agree.no"], None: "—"}
    code = lambda v: html.Code(v) if isinstance(v, str) and v != "—" else v  # noqa: E731  (a name or version: code, not prose)
    head = html.Tr([html.Th(t[f"col.{c}"]) for c in ("quantity", "stated", "computed", "agree")])
    body = [
        html.Tr([
            html.Td(md(t[f"k.{r['key']}"]) if any(c in t[f"k.{r['key']}"] for c in "$`") else t[f"k.{r['key']}"]),
            html.Td(code(r["stated"] if r["stated"] is not None else "—") if r["fmt"] == "s" else (r["stated"] if r["stated"] is not None else "—"),
                    id=f"interview-s-{r['key']}"),
            html.Td(code(show(r["value"], r["fmt"])) if r["fmt"] == "s" else show(r["value"], r["fmt"]), id=f"interview-v-{r['key']}"),
            html.Td(mark[r["agrees"]], id=f"interview-ok-{r['key']}", className=f"agree-{r['agrees']}".lower()),
        ])
        for r in rows
    ]
    return scrolling(html.Table([html.Thead(head), html.Tbody(body)], className="values check-table"))


def _question(i: int, qid: str, t: dict, lang: str, quiz: bool):
    q = iv.QUESTIONS[qid]
    key = {"q": qid}
    answer = [md(content.fill(t[f"a.{qid}"], n=f"{iv.DROPOUT_N:,}", **_said(qid), **_ours(qid, t, lang)))]
    if q.figure:
        answer.append(graph(f"interview-fig-{q.figure}", _figures(lang)[q.figure]))
    if q.quantities:
        answer.append(html.Div([
            html.Button(t["check"], id={"type": "interview-check", **key}, n_clicks=0, className="check-button"),
            html.Span(t["check.note"], className="control-label"),
        ], className="presets"))
        answer.append(dcc.Loading(html.Div(id={"type": "interview-result", **key}, className="check-result"), type="dot"))
    bar = html.Div([
        html.Button(t["reveal"], id={"type": "interview-reveal", **key}, n_clicks=0),
        html.Button(t["knew"], id={"type": "interview-knew", **key}, n_clicks=0, disabled=True),
        html.Button(t["didnt"], id={"type": "interview-didnt", **key}, n_clicks=0, disabled=True),
        html.Span("", id={"type": "interview-mark", **key}, className="quiz-mark"),
    ], id={"type": "interview-bar", **key}, className="presets quiz-bar", style=SHOWN if quiz else HIDDEN)
    return section(
        html.H2(f"{i}. {t[f'q.{qid}']}"),
        bar,
        html.Div(answer, id={"type": "interview-answer", **key}, className="answer", style=HIDDEN if quiz else SHOWN),
        id=f"interview-q-{qid}",
    )
