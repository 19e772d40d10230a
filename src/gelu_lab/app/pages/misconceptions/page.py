"""Misconceptions: one card per claim of :mod:`gelu_lab.analysis.claims`, checked when drawn.

A card shows the claim, the verdict ``checked()`` gives, where its evidence comes
from (computed by gelu_lab, or a measurement: the reader's runs store, else the
one shipped with gelu_lab, with its date and CPU), the evidence as numbers and a
small figure: what each claim's record holds, said by this page's view (:mod:`.view`).
The callbacks are :mod:`.callbacks`. Verdicts are filled per card after the page is
drawn (one request each, so a slow one does not hold up the rest), again on "check
again", and again when a background run a claim needs has finished. A claim whose
evidence is a measurement says how to make it on this machine; one that needs an
FFN training run offers to start it (:mod:`gelu_lab.nn.train_job`, a separate
process) and shows its progress.
"""

from __future__ import annotations

from dash import dcc, html
from flask import has_request_context

from ....analysis import claims as C
from ....figures import misconceptions as figs
from ....nn import train_job
from ... import content, framework_table, job_box
from ...components import graph, md, more
from . import view

LIVE = True  # the layout shows the measurement store: the shell renders it anew for every load
PARAMS = []
# claims whose evidence is FFN training runs in the runs store: the activation a run needs (the claims' records)
TRAINING = {c.id: c.trains for c in C.CLAIMS.values() if c.trains}
RUN = {"preset": "quick", "steps": 600, "fc_init_std": 0.02}  # the shipped experiment (FFN page), one more seed


def _id(kind: str, cid: str) -> dict:
    return {"type": f"misc-{kind}", "claim": cid}


def _slug(cid: str) -> str:
    return cid.replace(".", "_")


# --- a card ---------------------------------------------------------------------------


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
    """A claim's card: filled from `res` (a claims.checked() result), or waiting for its callback."""
    if res is None:
        label, cls, note, source, nums, figure, how = t["verdict.checking"], "verdict-tag verdict-checking", "", "", "", figs.placeholder_figure(t["fig.checking"]), ""
    else:
        label, cls, note, source, nums, figure, how = view.evidence(res, lang, t)
    fig = graph(f"misc-fig-{_slug(cid)}", figure)
    fig.id = _id("fig", cid)  # a pattern id for the callbacks; the PNG keeps the readable file name
    return html.Section(
        [
        html.H3(t[C.CLAIMS[cid].words]),
        html.Div([html.Span(label, id=_id("verdict", cid), className=cls),
                  html.Button(t["recheck"], id=_id("recheck", cid), n_clicks=0, className="recheck")]),
        html.Div(note, id=_id("note", cid), className="evidence"),  # a paragraph (prose)
        html.P(source, id=_id("source", cid), className="evidence-source muted"),
        html.Div(nums, id=_id("numbers", cid)),
        fig,
        html.Div(how, id=_id("how", cid)),
        run_box(cid, t, lang) if cid in TRAINING else None,
        more(content.text(lang, "frameworks")["h"], framework_table.table(lang, id="misc-frameworks-table"), id="misc-more-frameworks")
        if C.CLAIMS[cid].table == "frameworks" else None,
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
            html.Div([card(cid, lang, t, C.checked(cid) if static else None) for cid in C.CLAIMS], className="claims"),
        ]
    )
