"""Misconceptions: one card per claim of :mod:`gelu_lab.analysis.claims`, checked now.

A card shows the claim (its text comes from the claims registry, in both
languages: one source), the verdict ``check()`` computes, the evidence as
numbers and a small figure. Verdicts are computed per card after the page is
drawn (one request each, so a slow one does not hold up the rest), again on
"check again", and again when a background run a claim needs has finished. A
claim whose evidence is a timing of this machine (ON_DEMAND) is measured only
when the reader asks: a benchmark is not work to repeat on every page view. A claim that needs an FFN training run offers
to start it (:mod:`gelu_lab.nn.train_job`, a separate process) and shows its progress.
"""

from __future__ import annotations

import time

import numpy as np
from dash import MATCH, Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate
from flask import has_request_context

from ... import activations
from ...analysis import claims as C
from ...analysis.errors import error_curves
from ...figures import misconceptions as figs
from ...nn import train_job as jobs
from ...results.printing import fmt_number
from ...results.store import default_path
from .. import content
from ..components import graph, md

LIVE = True  # the layout shows the measurement store and the on-demand benchmark: the shell renders it anew for every load
PARAMS = []
# claims whose evidence is FFN training runs in the runs store: the activation a run needs
TRAINING = {"relu_half_dead": "relu"}
RUN = {"preset": "quick", "steps": 600, "fc_init_std": 0.02}  # the shipped experiment (FFN page), one more seed
TICK_MS = 1500
CACHE_S = 300.0
_CACHE: dict[str, tuple] = {}  # claim id -> (store signature, monotonic time, result)
ON_DEMAND = ("tanh_much_faster",)  # its evidence is a benchmark (seconds, both cores): run on a click


def _id(kind: str, cid: str) -> dict:
    return {"type": f"misc-{kind}", "claim": cid}


def _slug(cid: str) -> str:
    return cid.replace(".", "_")


def _store_signature(path) -> tuple:
    """What a stored result depends on: the store file and its write-ahead log (WAL mode), as they are now."""
    out = [str(path)]
    for p in (path, path.with_name(path.name + "-wal")):
        try:
            out.append(p.stat().st_mtime_ns)
        except OSError:
            out.append(None)
    return tuple(out)


def check(cid: str, fresh: bool = True) -> dict:
    """check(cid) against the reader's runs store (None when there is none: reading never creates one).

    fresh=False may answer from the last computation if it is under CACHE_S old and the
    store has not changed since: a page opened twice, or warmed at server start, need not
    recompute twelve claims; "check again" and a finished run always do.
    """
    from ...results.store import Store

    path = default_path()
    sig, hit = _store_signature(path), _CACHE.get(cid)
    if not fresh and hit and hit[0] == sig and time.monotonic() - hit[1] < CACHE_S:
        return hit[2]
    if not path.exists():
        res = C.check(cid, None)
    else:
        with Store(path) as s:
            res = C.check(cid, s)
    _CACHE[cid] = (sig, time.monotonic(), res)
    return res


# --- evidence -> figure --------------------------------------------------------------


def _gelu_curve(lo, hi, n=301):
    x = np.linspace(lo, hi, n)
    return x, activations.get("gelu").fn(x)


def _fig_values(f, t):
    x, y = _gelu_curve(-3, 3)
    pts = [(2.0, f["gelu(2)"], f"{f['gelu(2)']:.4f}"), (0.0, f["gelu(0)"], "0"), (-2.0, f["gelu(-2)"], f"{f['gelu(-2)']:.4f}")]
    slope = f["gelu'(0)"]
    return figs.curves_figure(x, [("GELU(x)", y, "gelu"), (f"{slope:g}·x", slope * x, "relu")],
                              {"title": t["fig.values"], "x": "x", "y": "y"}, points=pts)


def _fig_monotonic(f, t):
    x, y = _gelu_curve(-4, 1)
    return figs.curves_figure(x, [("GELU(x)", y, "gelu"), ("GELU′(x)", activations.get("gelu").grad(x), "relu")],
                              {"title": t["fig.monotonic"], "x": "x", "y": "y"}, points=[(f["argmin"], f["min"], f"({f['argmin']:.3f}, {f['min']:.3f})")])


def _fig_random(f, t):
    return figs.bars_figure([t["fig.mc"], "GELU(1)"], [f["mc_mean_x1"], f["gelu(1)"]], {"title": t["fig.random"], "y": "y"})


def _fig_error(form):
    def fig(f, t):
        c = error_curves(form, interval=tuple(f["interval"]))
        step = max(1, len(c.x) // 800)  # a card's figure needs no more points than pixels
        return figs.curves_figure(
            c.x[::step], [(f"|{activations.get(c.approx).label(t['lang'])} − GELU|", c.abs_error[::step], c.approx)],
            {"title": t["fig.error"], "x": "x", "y": "|error|"},
            points=[(m["x"], m["abs_error"], f"{m['abs_error']:.2e}") for m in f["maxima"]], threshold=(C.ERROR_BOUND, f"{C.ERROR_BOUND:g}"))

    return fig


def _fig_speed(f, t):
    return figs.bars_figure(list(f["ratios"]), list(f["ratios"].values()), {"title": t["fig.speed"], "y": t["fig.speed.y"]},
                            threshold=(f["threshold"], f"{f['threshold']:g}×"), color="gelu_tanh")


def _fig_limit(f, t):
    return figs.curves_figure(f["scales"], [("max |GELU(s·x)/s − ReLU(x)|", f["sup_abs_diff"], "gelu")],
                              {"title": t["fig.limit"], "x": "s", "y": ""}, log_x=True, log_y=True)


def _fig_infinity(f, t):
    return figs.curves_figure(list(f["x"]), [("|GELU(−x) − ReLU(−x)|", list(f["abs_diff_at_-x"]), "gelu")],
                              {"title": t["fig.infinity"], "x": "x", "y": ""}, log_y=True)


def _fig_quick(f, t):
    x = np.linspace(-4, 4, 321)
    return figs.curves_figure(x, [(activations.get(n).label(t["lang"]), activations.get(n).fn(x), n) for n in ("gelu_sigmoid", "silu", "gelu")],
                              {"title": t["fig.quick"], "x": "x", "y": "y"})


def _fig_dead(f, t):
    runs = f.get("runs") or []
    return figs.bars_figure([f"run {r['run_id']}" for r in runs], [r["max_layer_share"] for r in runs],
                            {"title": t["fig.dead"], "y": t["fig.dead.y"]}, threshold=(0.5, "1/2"), color="relu")


FIGURES = {
    "values": _fig_values, "monotonic": _fig_monotonic, "random": _fig_random,
    "tanh_error_below_0.003": _fig_error("tanh"), "sigmoid_error_below_0.003": _fig_error("sigmoid"),
    "tanh_much_faster": _fig_speed, "tends_to_relu": _fig_limit, "relu_at_infinity": _fig_infinity,
    "quick_gelu_is_silu": _fig_quick, "relu_half_dead": _fig_dead,
}


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
    """(verdict text, verdict class, note, numbers, figure, how) for one check() result."""
    v = res["verdict"]
    fig_fn = FIGURES.get(res["id"])
    if v == "untested" or fig_fn is None:
        fig = figs.placeholder_figure(t["fig.none." + ("untested" if v == "untested" else "numbers")])
    else:
        fig = fig_fn(res["figures"], {**t, "lang": lang})
    how = ""
    if v == "untested" and res.get("how"):
        how = html.Div([html.Span(t["how"] + " "), html.Code(res["how"], className="how-cmd")])
    return t[f"verdict.{v}"], f"verdict-tag verdict-{v}", res["note"][lang], numbers(res["figures"]) if res["figures"] else "", fig, how


def _job_text(st, t) -> tuple[int, int, str, bool]:
    """(done, total, text, running) of the last training job (any page may have started it)."""
    if not st:
        return 0, 1, t["run.idle"], False
    total = max(1, int(st["steps"]))
    name = f"{st['activation']} · {st['preset']} · seed {st['seed']} · {st['steps']} steps"
    if st["state"] == "running":
        return st["step"], total, content.fill(t["run.running"], job=name, step=str(st["step"]), steps=str(total)), True
    if st["state"] == "done":
        return total, total, content.fill(t["run.done"], job=name, run=str(st["run_id"])), False
    return st["step"], total, content.fill(t["run.failed"], job=name, error=st.get("error", "")), False


def run_box(cid: str, t: dict):
    done, total, text, running = _job_text(jobs.status(default_path()), t)
    act = TRAINING[cid]
    cmd = (f"gelu-lab train --activations {act} --preset {RUN['preset']} --steps {RUN['steps']} "
           f"--fc-init-std {RUN['fc_init_std']}")
    return html.Div(
        [
            md(content.fill(t["run.text"], act=act, steps=str(RUN["steps"]), preset=RUN["preset"], cmd=cmd)),
            html.Button(content.fill(t["run.button"], act=act), id=_id("run", cid), n_clicks=0, className="run-button"),
            html.Progress(id=_id("progress", cid), value=str(done), max=str(total)),
            html.Div(text, id=_id("status", cid), role="status"),
            dcc.Interval(id=_id("tick", cid), interval=TICK_MS, disabled=not running),
        ],
        className="run-box",
    )


def card(cid: str, lang: str, t: dict, res: dict | None = None):
    """A claim's card: filled from `res` (a check() result), or waiting for its callback."""
    claim = C.CLAIMS[cid]
    state = "idle" if cid in ON_DEMAND else "checking"
    if res is None:
        label, cls, note, nums, figure, how = t[f"verdict.{state}"], f"verdict-tag verdict-{state}", "", "", figs.placeholder_figure(t[f"fig.{state}"]), ""
    else:
        label, cls, note, nums, figure, how = evidence(res, lang, t)
    fig = graph(f"misc-fig-{_slug(cid)}", figure)
    fig.id = _id("fig", cid)  # a pattern id for the callbacks; the PNG keeps the readable file name
    return html.Section(
        [
        html.H3(claim.text[lang]),
        html.Div([html.Span(label, id=_id("verdict", cid), className=cls),
                  html.Button(t["measure" if cid in ON_DEMAND else "recheck"], id=_id("recheck", cid), n_clicks=0, className="recheck")]),
        html.P(note, id=_id("note", cid), className="evidence"),
        html.Div(nums, id=_id("numbers", cid)),
        fig,
        html.Div(how, id=_id("how", cid)),
        run_box(cid, t) if cid in TRAINING else None,
        dcc.Store(id=_id("refresh", cid), data=0),
        ],
        className="card claim",
        **{"data-claim": cid},
    )


def layout(state, lang):
    """The cards. In the app they are filled by their callbacks, one request each, once the
    page is drawn; rendered outside a request (the static report, the server's warm-up)
    they are computed here, so the report has its verdicts and the first visit its cache."""
    t = content.text(lang, "misconceptions")
    static = not has_request_context()
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            html.Div([card(cid, lang, t, check(cid, fresh=False) if static and cid not in ON_DEMAND else None) for cid in C.CLAIMS],
                     className="claims"),
        ]
    )


# --- callbacks --------------------------------------------------------------------------


def _text(lang):
    return content.text(lang if lang in content.LANGS else content.DEFAULT_LANG, "misconceptions")


@callback(
    Output(_id("verdict", MATCH), "children"),
    Output(_id("verdict", MATCH), "className"),
    Output(_id("note", MATCH), "children"),
    Output(_id("numbers", MATCH), "children"),
    Output(_id("fig", MATCH), "figure"),
    Output(_id("how", MATCH), "children"),
    Input(_id("refresh", MATCH), "data"),
    Input(_id("recheck", MATCH), "n_clicks"),
    State(_id("refresh", MATCH), "id"),
    State("lang", "data"),
)
def _check(_refresh, _again, id_, lang):
    """Runs when the card appears (no prevent_initial_call: computing is the point), on
    "check again" and when a run the claim needs has finished."""
    cid = (id_ or {}).get("claim")
    if cid not in C.CLAIMS or (cid in ON_DEMAND and ctx.triggered_id is None):  # not asked for yet
        raise PreventUpdate
    t = _text(lang)
    lang = lang if lang in content.LANGS else content.DEFAULT_LANG
    try:
        res = check(cid, fresh=ctx.triggered_id is not None)  # on first draw a recent result will do
    except Exception as e:  # one card says it could not be checked; the page goes on
        msg = content.fill(t["error"], error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200])
        return t["verdict.error"], "verdict-tag verdict-untested", msg, "", figs.placeholder_figure(msg), ""
    return evidence(res, lang, t)


@callback(
    Output(_id("progress", MATCH), "value"),
    Output(_id("progress", MATCH), "max"),
    Output(_id("status", MATCH), "children"),
    Output(_id("tick", MATCH), "disabled"),
    Output(_id("refresh", MATCH), "data"),
    Input(_id("run", MATCH), "n_clicks"),
    Input(_id("tick", MATCH), "n_intervals"),
    State(_id("refresh", MATCH), "id"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _job(n, _tick, id_, lang):
    """Start the run (button), or follow it (tick); when it ends, recheck the claim."""
    cid = (id_ or {}).get("claim")
    if cid not in TRAINING:
        raise PreventUpdate
    t = _text(lang)
    path = default_path()
    if isinstance(ctx.triggered_id, dict) and ctx.triggered_id.get("type") == "misc-run":
        if not n:
            raise PreventUpdate
        try:
            job = _start(path, TRAINING[cid])
        except ValueError as e:  # a job is already running (this page's or the FFN page's)
            return no_update, no_update, str(e), False, no_update
        return 0, str(RUN["steps"]), content.fill(t["run.started"], act=job["activation"], seed=str(job["seed"])), False, no_update
    st = jobs.status(path)
    done, total, text, running = _job_text(st, t)
    refresh = no_update if running or not st else f"{st['pid']}:{st['state']}"
    return str(done), str(total), text, not running, refresh


def _start(path, act: str) -> dict:
    """Start one more seed of the FFN page's shipped experiment for `act` (the next free seed)."""
    from . import ffn

    return ffn.start_next_seed(path, act, RUN["preset"], RUN["steps"], RUN["fc_init_std"])
