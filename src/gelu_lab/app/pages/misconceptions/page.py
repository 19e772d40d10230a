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

import re

import numpy as np
from dash import MATCH, Input, Output, State, callback, dcc, html
from dash.exceptions import PreventUpdate
from flask import has_request_context

from .... import activations
from ....analysis import claims as C
from ....figures import misconceptions as figs
from ....nn import train_job
from ... import content, framework_table, job_box
from ...claim_words import case, exact, value, words
from ...components import full, graph, md, more, prose, scrolling, sig, static, values_table

LIVE = True  # the layout shows the measurement store: the shell renders it anew for every load
PARAMS = []
# claims whose evidence is FFN training runs in the runs store: the activation a run needs
TRAINING = {"relu_half_dead": "relu"}
NAMES = set(activations.names())
FRAMEWORKS_TABLE = ("jax_default_tanh",)  # cards whose evidence the measured frameworks table holds
RUN = {"preset": "quick", "steps": 600, "fc_init_std": 0.02}  # the shipped experiment (FFN page), one more seed


def _id(kind: str, cid: str) -> dict:
    return {"type": f"misc-{kind}", "claim": cid}


def _slug(cid: str) -> str:
    return cid.replace(".", "_")


# --- a card ---------------------------------------------------------------------------


def _key(k, t: dict) -> str:
    """An evidence key as the reader reads it: its content label (num.<key>), a bench pair by its backend."""
    if " / " in str(k):
        return case(k, t)
    return t.get("num." + re.sub(r"[^\w.\-]", "_", str(k)), str(k))


def _cell(v, t: dict, lang: str):
    """An evidence value in the numbers table: a number to 4 figures with its full value on
    hover, an activation by its name, a list of rows as a small table of its own."""
    if v is None or isinstance(v, (bool, np.bool_)):
        return value(v, t, lang)
    if isinstance(v, str):
        return content.label(v, lang) if v in NAMES else t.get(f"str.{v}") or html.Code(v)  # a version, an argument: code
    if isinstance(v, (int, np.integer)):
        return sig(int(v))
    if isinstance(v, (float, np.floating)):  # exact in 4 figures (0.5, -4): as it is; else 4 figures, the rest on hover
        return exact(float(v)) or full(float(v))
    if isinstance(v, dict):
        return numbers({k: x for k, x in v.items() if k != "key"}, t, lang)  # a run's long store key says nothing to a reader
    items = list(v)
    if items and all(isinstance(x, dict) for x in items):
        cols = [k for k in items[0] if k != "key"]
        return values_table([_key(k, t) for k in cols], [html.Tr([html.Td(_cell(x.get(k), t, lang)) for k in cols]) for x in items])
    cells = [_cell(x, t, lang) for x in items[:8]]
    return [c for i, x in enumerate(cells) for c in ((", ", x) if i else (x,))] + ([" …"] if len(items) > 8 else [])


def numbers(figures: dict, t: dict, lang: str) -> html.Div:
    """The evidence as a table of labelled numbers (each row carries its key for the tests), in its own sideways-scrolling box."""
    rows = [html.Tr([html.Td(_key(k, t)), html.Td(_cell(v, t, lang))], **{"data-key": str(k)}) for k, v in figures.items()]
    return static(scrolling(html.Table(html.Tbody(rows), className="values")))


def evidence(res: dict, lang: str, t: dict):
    """(verdict text, verdict class, note, source, numbers, figure, how) for one check() result."""
    v, said = res["verdict"], words(res, lang)
    fig = None if v == "untested" else figs.evidence_figure(res["id"], res["figures"], {
        **t, "names": {n: content.label(n, lang) for n in figs.NAMED}, "cases": {k: case(k, t) for k in res["figures"].get("ratios") or {}}})
    if fig is None:
        fig = figs.placeholder_figure(t["fig.none." + ("untested" if v == "untested" else "numbers")])
    how = ""
    if res.get("how") and (v == "untested" or C.CLAIMS[res["id"]].reads):  # a measurement: how to make one here
        how = html.Div([html.Span(t["how" if v == "untested" else "how.measured"] + " "), html.Code(res["how"], className="how-cmd")])
    nums = more(t["numbers.more"], numbers(res["figures"], t, lang)) if res["figures"] else ""
    return t[f"verdict.{v}"], f"verdict-tag verdict-{v}", prose(said["note"]), said["source"], nums, fig, how  # a version or argument in `code`


def _train(act: str):
    def start(path, _args) -> dict:  # one more seed of the FFN page's shipped experiment for `act`
        return train_job.start_next_seed(path, act, RUN["preset"], RUN["steps"], RUN["fc_init_std"])

    return start


# the training job a claim needs, one job box per claim (the job itself is the FFN page's too)
def _command(act: str) -> str:
    return train_job.command(act, RUN["preset"], RUN["steps"], RUN["fc_init_std"])


JOBS = {cid: job_box.register(job_box.Job(f"misc-{cid}", train_job.KIND, _train(act), "misconceptions", "run.idle", status=train_job.status,
                                         describe=job_box.training_what, command=lambda _a, act=act: _command(act)))
        for cid, act in TRAINING.items()}


def run_box(cid: str, t: dict, lang: str):
    act = TRAINING[cid]
    name = content.label(act, lang)
    return html.Div([md(content.fill(t["run.text"], act=name, steps=str(RUN["steps"]), preset=RUN["preset"], cmd=_command(act))),
                     job_box.box(JOBS[cid].name, lang, content.fill(t["run.button"], act=name))], className="run-box")


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
        html.Div(note, id=_id("note", cid), className="evidence"),  # a paragraph (prose)
        html.P(source, id=_id("source", cid), className="evidence-source muted"),
        html.Div(nums, id=_id("numbers", cid)),
        fig,
        html.Div(how, id=_id("how", cid)),
        run_box(cid, t, lang) if cid in TRAINING else None,
        more(content.text(lang, "frameworks")["h"], framework_table.table(lang, id="misc-frameworks-table"), id="misc-more-frameworks")
        if cid in FRAMEWORKS_TABLE else None,
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
