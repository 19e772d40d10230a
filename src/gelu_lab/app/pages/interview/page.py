"""Interview questions: answers that quote figures, a Check button that computes them, a quiz.

Each question is a card; its answer quotes figures (the stated values of
:mod:`gelu_lab.analysis.interview`, or values computed once per process) and,
where it has numbers, a Check button computes them now and shows them next to
the stated ones. Quiz mode (``?quiz=on``) hides the answers: reveal one, say
whether you knew it; the score is derived from the buttons' click times, in the browser
(assets/quiz.js), until reset.
"""

from __future__ import annotations


from dash import dcc, html

from ....analysis import interview as iv
from ...components import md, readout, readouts, section
from ...state import Param
from .view import HIDDEN, SHOWN, _question, _t

QUIZ = Param("quiz", "off", choices=("off", "on"))
PARAMS = [QUIZ]


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
