"""Interview questions: answers that quote figures, a Check button that computes them, a quiz.

Each question is a card; its answer quotes figures (the stated values of
:mod:`gelu_lab.analysis.interview`, or values computed once per process) and,
where it has numbers, a Check button computes them now and shows them next to
the stated ones. Quiz mode (``?quiz=on``) hides the answers: reveal one, say
whether you knew it; the score is derived from the buttons' click times, in the browser
(assets/quiz.js), until reset.
"""

from __future__ import annotations

import functools

from dash import dcc, html

from ....analysis import interview as iv
from ....analysis import theory
from ....figures import interview as figs
from ... import content
from . import view
from ...components import graph, md, readout, readouts, scrolling, section
from ...state import Param

QUIZ = Param("quiz", "off", choices=("off", "on"))
PARAMS = [QUIZ]
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
    return {s.key: s.stated if s.stated is not None else view.show(v[s.key], s.fmt) for s in q.quantities if s.stated is not None or s.key in v}


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
            html.Td(code(view.show(r["value"], r["fmt"])) if r["fmt"] == "s" else view.show(r["value"], r["fmt"]), id=f"interview-v-{r['key']}"),
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


# --------------------------------------------------------------------------
# the quiz: derived in the browser from the buttons' last-click times (assets/quiz.js), so no
# mark waits on a round trip


def layout(state, lang):
    t = _t(lang)
    quiz = state["quiz"] == "on"
    s = {"knew": 0, "didnt": 0, "left": len(iv.QUESTIONS)}  # a fresh page: nothing clicked
    words = {"questions": list(iv.QUESTIONS), "knew": t["mark.knew"], "didnt": t["mark.didnt"], "shown": SHOWN, "hidden": HIDDEN}
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(
                html.Div([
                    html.Label(t["quiz.label"], htmlFor="interview-quiz", className="control-label"),
                    dcc.RadioItems(id="interview-quiz", options=[{"label": t[f"quiz.{v}"], "value": v} for v in QUIZ.choices],
                                   value=state["quiz"], inline=True, className="quiz-toggle"),
                ], className="control"),
                html.Div([
                    readouts(readout("interview-knew-n", t["score.knew"], str(s["knew"])), readout("interview-didnt-n", t["score.didnt"], str(s["didnt"])),
                             readout("interview-left-n", t["score.left"], str(s["left"]))),
                    html.Button(t["reset"], id="interview-reset", n_clicks=0),
                ], id="interview-score", className="presets", style=SHOWN if quiz else HIDDEN),
                md(t["quiz.text"]),
                dcc.Store(id="interview-quiz-words", data=words),  # for assets/quiz.js
            ),
            *[_question(i, qid, t, lang, quiz) for i, qid in enumerate(iv.QUESTIONS, 1)],
            section(html.H2(t["sources.h"]), md(t["sources"])),
        ]
    )
