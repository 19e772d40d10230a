"""Misconceptions: one card per claim of :mod:`gelu_lab.analysis.claims`, checked when drawn.

A card shows the claim, the verdict ``check()`` gives, where its evidence comes
from (computed by gelu_lab, or a measurement: the reader's runs store, else the
one shipped with gelu_lab, with its date and CPU), the evidence as numbers and a
small figure (:func:`gelu_lab.figures.misconceptions.evidence_figure`); the words
are :mod:`gelu_lab.app.claim_words`. Verdicts are filled per card after the page is
drawn (one request each, so a slow one does not hold up the rest), again on "check
again", and again when a background run a claim needs has finished. A claim whose
evidence is a measurement says how to make it on this machine; one that needs an
FFN training run offers to start it (:mod:`gelu_lab.nn.train_job`, a separate
process) and shows its progress.
"""

from __future__ import annotations

import numpy as np
from dash import MATCH, Input, Output, State, callback, dcc, html
from dash.exceptions import PreventUpdate
from flask import has_request_context

from ...analysis import claims as C
from ...figures import misconceptions as figs
from ...nn import train_job
from ...results.printing import fmt_number
from .. import content, job_box
from ..claim_words import words
from ..components import graph, md

LIVE = True  # the layout shows the measurement store: the shell renders it anew for every load
PARAMS = []
# claims whose evidence is FFN training runs in the runs store: the activation a run needs
TRAINING = {"relu_half_dead": "relu"}
RUN = {"preset": "quick", "steps": 600, "fc_init_std": 0.02}  # the shipped experiment (FFN page), one more seed


def _id(kind: str, cid: str) -> dict:
    return {"type": f"misc-{kind}", "claim": cid}


def _slug(cid: str) -> str:
    return cid.replace(".", "_")


# --- a card ---------------------------------------------------------------------------


def _num(v, depth=0) -> str:
    """An evidence value as text: numbers to 6 digits, lists and dicts flattened (short)."""
    if isinstance(v, (bool, np.bool_)) or v is None or isinstance(v, str):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return fmt_number(float(v), 6)
    if isinstance(v, dict):  # a run's long store key says nothing to a reader
        inner = (", " if depth else "; ").join(f"{k}: {_num(x, depth + 1)}" for k, x in v.items() if k != "key")
        return f"({inner})" if depth else inner
    items = list(v)
    return ", ".join(_num(x, depth + 1) for x in items[:8]) + (" …" if len(items) > 8 else "")


def numbers(figures: dict) -> html.Table:
    rows = [html.Tr([html.Td(k), html.Td(_num(v)[:300])]) for k, v in figures.items()]
    return html.Table(html.Tbody(rows), className="values")


def evidence(res: dict, lang: str, t: dict):
    """(verdict text, verdict class, note, source, numbers, figure, how) for one check() result."""
    v, said = res["verdict"], words(res, lang)
    fig = None if v == "untested" else figs.evidence_figure(res["id"], res["figures"], {**t, "names": {n: content.label(n, lang) for n in figs.NAMED}})
    if fig is None:
        fig = figs.placeholder_figure(t["fig.none." + ("untested" if v == "untested" else "numbers")])
    how = ""
    if res.get("how") and (v == "untested" or C.CLAIMS[res["id"]].reads):  # a measurement: how to make one here
        how = html.Div([html.Span(t["how" if v == "untested" else "how.measured"] + " "), html.Code(res["how"], className="how-cmd")])
    nums = numbers(res["figures"]) if res["figures"] else ""
    return t[f"verdict.{v}"], f"verdict-tag verdict-{v}", said["note"], said["source"], nums, fig, how


def _train(act: str):
    def start(path, _args) -> dict:  # one more seed of the FFN page's shipped experiment for `act`
        return train_job.start_next_seed(path, act, RUN["preset"], RUN["steps"], RUN["fc_init_std"])

    return start


# the training job a claim needs, one job box per claim (the job itself is the FFN page's too)
JOBS = {cid: job_box.register(job_box.Job(f"misc-{cid}", train_job.KIND, _train(act), "misconceptions", "run.idle", status=train_job.status))
        for cid, act in TRAINING.items()}


def run_box(cid: str, t: dict, lang: str):
    act = TRAINING[cid]
    cmd = (f"gelu-lab train --activations {act} --preset {RUN['preset']} --steps {RUN['steps']} "
           f"--fc-init-std {RUN['fc_init_std']}")
    return html.Div([md(content.fill(t["run.text"], act=act, steps=str(RUN["steps"]), preset=RUN["preset"], cmd=cmd)),
                     job_box.box(JOBS[cid].name, lang, content.fill(t["run.button"], act=act))], className="run-box")


def card(cid: str, lang: str, t: dict, res: dict | None = None):
    """A claim's card: filled from `res` (a check() result), or waiting for its callback."""
    if res is None:
        label, cls, note, source, nums, figure, how = t["verdict.checking"], "verdict-tag verdict-checking", "", "", "", figs.placeholder_figure(t["fig.checking"]), ""
    else:
        label, cls, note, source, nums, figure, how = evidence(res, lang, t)
    fig = graph(f"misc-fig-{_slug(cid)}", figure)
    fig.id = _id("fig", cid)  # a pattern id for the callbacks; the PNG keeps the readable file name
    return html.Section(
        [
        html.H3(t[f"claim.{cid}"]),
        html.Div([html.Span(label, id=_id("verdict", cid), className=cls),
                  html.Button(t["recheck"], id=_id("recheck", cid), n_clicks=0, className="recheck")]),
        html.P(note, id=_id("note", cid), className="evidence"),
        html.P(source, id=_id("source", cid), className="evidence-source muted"),
        html.Div(nums, id=_id("numbers", cid)),
        fig,
        html.Div(how, id=_id("how", cid)),
        run_box(cid, t, lang) if cid in TRAINING else None,
        dcc.Store(id=_id("refresh", cid), data=0),
        ],
        className="card claim",
        **{"data-claim": cid},
    )


def layout(state, lang):
    """The cards. In the app they are filled by their callbacks, one request each, once the
    page is drawn; rendered outside a request (the static report, the server's warm-up)
    they are computed here."""
    t = content.text(lang, "misconceptions")
    static = not has_request_context()
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            html.Div([card(cid, lang, t, C.check(cid) if static else None) for cid in C.CLAIMS], className="claims"),
        ]
    )


# --- callbacks --------------------------------------------------------------------------


def _text(lang):
    return content.text(lang if lang in content.LANGS else content.DEFAULT_LANG, "misconceptions")


@callback(
    Output(_id("verdict", MATCH), "children"),
    Output(_id("verdict", MATCH), "className"),
    Output(_id("note", MATCH), "children"),
    Output(_id("source", MATCH), "children"),
    Output(_id("numbers", MATCH), "children"),
    Output(_id("fig", MATCH), "figure"),
    Output(_id("how", MATCH), "children"),
    Input(_id("refresh", MATCH), "data"),
    Input(_id("recheck", MATCH), "n_clicks"),
    State(_id("refresh", MATCH), "id"),
    State("lang", "data"),
)
def _check(_refresh, _again, id_, lang):
    """Runs when the card appears (no prevent_initial_call: checking is the point), on
    "check again" and when a run the claim needs has finished. A computed verdict is
    computed once per process (analysis.claims); a measurement is read anew."""
    cid = (id_ or {}).get("claim")
    if cid not in C.CLAIMS:
        raise PreventUpdate
    t = _text(lang)
    lang = lang if lang in content.LANGS else content.DEFAULT_LANG
    try:
        res = C.check(cid)
    except Exception as e:  # one card says it could not be checked; the page goes on
        msg = content.fill(t["error"], error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200])
        return t["verdict.error"], "verdict-tag verdict-untested", msg, "", "", figs.placeholder_figure(msg), ""
    return evidence(res, lang, t)


def _recheck_when_done(cid: str):
    @callback(Output(_id("refresh", cid), "data"), Input(job_box.seen(JOBS[cid].name), "data"), prevent_initial_call=True)
    def _done(seen):
        """The claim's run ended (done, failed or interrupted): check the claim again."""
        if not seen or seen.endswith(":running"):
            raise PreventUpdate
        return seen


for _cid in TRAINING:
    _recheck_when_done(_cid)
