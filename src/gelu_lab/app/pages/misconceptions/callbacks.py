"""The Misconceptions page's callbacks: a card checks its claim when it appears, on "check
again", and when a training run the claim needs has finished."""

from __future__ import annotations

from dash import MATCH, Input, Output, State, callback
from dash.exceptions import PreventUpdate

from ....analysis import claims as C
from ....figures import misconceptions as figs
from ... import content, job_box
from . import view
from .page import JOBS, TRAINING, _id


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
        got = C.checked(cid)
    except Exception as e:  # one card says it could not be checked; the page goes on
        msg = content.fill(t["error"], error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200])
        return t["verdict.error"], "verdict-tag verdict-untested", msg, "", "", figs.placeholder_figure(msg), ""
    return view.evidence(got, lang, t)


def _recheck_when_done(cid: str):
    @callback(Output(_id("refresh", cid), "data"), Input(job_box.seen(JOBS[cid].name), "data"), prevent_initial_call=True)
    def _done(seen):
        """The claim's run ended (done, failed or interrupted): check the claim again."""
        if not seen or seen.endswith(":running"):
            raise PreventUpdate
        return seen


for _cid in TRAINING:
    _recheck_when_done(_cid)
