"""Transformer FFN: the block live, stored training runs per activation, the init sweep, a run control.

Data: the runs of the user's runs store (``gelu_lab.results.store``) together with the
result set shipped in ``gelu_lab/data/ffn_results.json``; a background job
(:mod:`gelu_lab.nn.train_job`) adds runs to the store, and the page picks them up
when the job is done. No training and no torch in a request.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from dash import Input, Output, State, callback, dcc, html, no_update

from ... import activations
from ...results import latest
from ...figures import ffn as figs
from ...nn import ffn as block
from ...nn import train_job as jobs
from ...nn import runs as R
from ...results.store import default_path
from .. import content
from ..components import fmt, graph, md, message, prose, readout, readouts, section, slider
from ..state import Param, inputs

ACT = Param("act", "gelu", choices=tuple(activations.names()))
SIGMA = Param("sigma", 0.16, 0.05, 3.0, 0.01)
LIVE = True  # the layout shows the training job's progress and the runs store: the shell renders it anew for every load
PARAMS = [ACT, SIGMA]
UNIT_METRICS = ("dead", "near_dead", "const", "pre_std", "pre_mean", "pre_neg")
RUN_STEPS = (100, 300, 600, 1500)
RUN_PRESETS = ("quick", "tiny")
RUN_ACTS = ("gelu", "gelu_tanh", "relu", "sigmoid", "silu")


def _dropdown(id, label, options, value):
    return html.Div([html.Label(label, htmlFor=id, className="control-label"),
                     dcc.Dropdown(id=id, options=options, value=value, clearable=False)], className="control")


def _names(lang):
    return {n: activations.get(n).label(lang) for n in activations.names()}


# --- data -------------------------------------------------------------------------


def _shipped() -> tuple[list[dict], dict]:
    """(runs, provenance) of the shipped result set, each run with its "source"."""
    r = latest("train", store=False)
    return (r.value, r.provenance) if r else ([], {})


def pool() -> tuple[list[dict], dict]:
    """(runs, shipped provenance): the shipped result set plus the finished runs of the user's
    store (each with its "source"), read through gelu_lab.results.latest."""
    r = latest("train")
    return (r.value, r.provenance) if r else ([], {})


def _group_options(runs, lang, t):
    out = []
    for key, members in R.groups(runs).items():
        srcs = sorted({m["source"] for m in members})
        label = content.fill(t["group.option"], label=R.group_label(members[0]["config"]), n=str(len(members)),
                             src=" + ".join(t[f"src.{s}"] for s in srcs))
        out.append({"label": label, "value": key, "_n": len(members), "_fc": R.fc_value(members[0]["config"])})
    # the default: the largest group at the small (nanoGPT) init
    out.sort(key=lambda o: (-o["_n"], o["_fc"]))
    return [{"label": o["label"], "value": o["value"]} for o in out]


# --- the live block -----------------------------------------------------------------


def live(act, sigma, lang, t):
    b = block.block(act, sigma)
    lim = max(3.0, 4.5 * sigma)
    xs = np.linspace(-lim, lim, 401)
    a = activations.get(act)
    density, edges = np.histogram(b["h"], bins=80, range=(-lim, lim), density=True)
    fig = figs.block_figure(
        np.round(0.5 * (edges[1:] + edges[:-1]), 5), np.round(density, 5), xs, a.fn(xs),
        {"title": t["fig.block.title"], "hist": t["fig.hist"], "act": a.label(lang), "x": t["fig.pre"], "density": t["fig.density"], "y": t["fig.act_y"]},
        color=figs.COLORS.get(act, figs.NEUTRAL),
    )
    vals = [f"{100 * b['dead']:.1f} %", f"{100 * b['near_dead']:.1f} %", f"{100 * b['pre_neg']:.1f} %", fmt(b["linearity"], 4), fmt(b["pre_std"], 3)]
    return fig, vals


# --- stored results -----------------------------------------------------------------------


def _val(bands, act, i=-1, scale=1.0, digits=3):
    if act not in bands:
        return "–"
    return fmt(bands[act]["mean"][i] * scale, digits)


def results(group, lang, t, metric="dead"):
    """Figures, table, verdict, provenance and the explanation for one group of runs."""
    runs, prov = pool()
    gruns = R.groups(runs).get(group) if group else None
    if not gruns:
        return None
    names = _names(lang)
    step = t["fig.step"]
    loss = R.bands(gruns, "val_loss")
    nl = R.n_layers(gruns)
    out = {
        "loss": figs.band_figure(loss, names, {"title": t["fig.loss.title"], "x": step, "y": t["fig.loss.y"]}),
        "gap": figs.gap_figure(loss, "gelu", names, {"title": t["fig.gap.title"], "x": step, "y": t["fig.gap.y"]}),
        "units": figs.band_figure(R.bands(gruns, metric), names,
                                  {"title": t[f"metric.{metric}"] + " · " + t["fig.units.mean"], "x": step, "y": t[f"metric.{metric}"]}),
        "grad": figs.layers_figure([R.bands(gruns, "grad_fc", i) for i in range(nl)], names,
                                   {"title": t["fig.grad.title"], "x": step, "y": t["fig.grad.y"], "layer": t["fig.layer"]}),
    }
    rows = R.compare_group(gruns)
    out["table"] = _table(rows, names, t)
    out["verdict"] = R.verdict(rows, lang)
    out["prov"] = _provenance(gruns, prov, t)
    # the explanation, with this group's numbers
    pre = R.bands(gruns, "pre_std")
    mean = R.bands(gruns, "pre_mean")
    dead = R.bands(gruns, "dead")
    grad = R.bands(gruns, "grad_fc")
    s0 = pre["gelu"]["mean"][0] if "gelu" in pre else None
    s1 = pre["gelu"]["mean"][-1] if "gelu" in pre else None
    lin = {k: fmt(_gauss_linearity("gelu", s), 3) if s else "–" for k, s in (("r0", s0), ("r1", s1))}
    out["explain"] = content.fill(
        t["depends.text"], s0=fmt(s0, 2) if s0 else "–", s1=fmt(s1, 2) if s1 else "–", **lin,
        best=names.get(rows[0]["activation"], rows[0]["activation"]) if rows else "–",
        fc=str(gruns[0]["config"]["fc_init_std"]), steps=str(gruns[0]["config"]["steps"]),
        sig_mean=_val(mean, "sigmoid", digits=2), sig_grad=_val(grad, "sigmoid", digits=3), gelu_grad=_val(grad, "gelu", digits=3),
        relu_dead=_val(dead, "relu", scale=100, digits=2), relu_dead0=_val(dead, "relu", i=0, scale=100, digits=2),
    )
    return out


@functools.lru_cache(maxsize=64)
def _gauss_linearity(act, sigma):
    h = np.random.default_rng(0).normal(0.0, sigma, 20000)
    return block.linearity(h, np.asarray(activations.get(act).fn(h)))


def _table(rows, names, t):
    head = html.Tr([html.Th(t[f"table.{k}"]) for k in ("rank", "act", "n", "mean", "gap", "sep", "behind", "seeds")])
    body = []
    for r in rows:
        std = "" if not math.isfinite(r["std"]) else f" ± {r['std']:.3f}"
        sep = "–" if r["rank"] == 1 else (t["table.yes"] if r["separated"] else t["table.no"])
        body.append(html.Tr([
            html.Td(str(r["rank"])), html.Td(names.get(r["activation"], r["activation"])), html.Td(str(r["n"])),
            html.Td(f"{r['mean']:.3f}{std}"), html.Td(f"{r['gap']:+.3f}"), html.Td(sep), html.Td(r["behind"] or "–"),
            html.Td(", ".join(f"{v:.3f}" for v in r["seeds"])),
        ]))
    return html.Table([html.Thead(head), html.Tbody(body)], className="values", id="ffn-table-el")


def _provenance(gruns, prov, t):
    srcs = sorted({r["source"] for r in gruns})
    items = []
    for src in srcs:
        p = prov if src == "shipped" and prov else next(r for r in gruns if r["source"] == src)["provenance"]
        cmds = p.get("train_commands") or [p.get("command", "")]
        items.append(html.Div([
            html.Strong(t[f"src.{src}"] + ": "),
            html.Span(content.fill(t["prov.line"], date=str(p.get("date", "?")), machine=f"{p.get('processor', '?')} ({p.get('cpus', '?')} CPUs)",
                                   versions=f"python {p.get('python', '?')}, torch {p.get('torch', '?')}, gelu-lab {p.get('gelu_lab', '?')}")),
            html.Pre("\n".join(c for c in cmds if c), className="prov-cmd"),
        ]))
    return html.Div(items, id="ffn-prov-el")


def sweep_block(runs, lang, t):
    sw = R.sweep(runs)
    if not sw:
        return html.P(t["sweep.none"]), None
    fig = figs.sweep_figure(sw, _names(lang), {"title": t["fig.sweep.title"], "x": t["fig.sweep.x"], "y": t["fig.sweep.y"]})
    order = []
    for i, fc in enumerate(sw["fc"]):
        ranked = sorted((a["mean"][i], act) for act, a in sw["acts"].items() if a["mean"][i] is not None)
        order.append(content.fill(t["sweep.order"], pre=fmt(sw["pre_std"][i], 2), order=" < ".join(_names(lang).get(a, a) for _, a in ranked)))
    return md(content.fill(t["sweep.text"], label=sw["label"]) + "\n\n" + "\n".join(f"- {o}" for o in order)), fig


# --- the run control ----------------------------------------------------------------------


def _run_text(t):
    """The run control's text, with the time the shipped runs took (measured, not promised)."""
    runs, _ = _shipped()
    walls = sorted(r["final"]["wall_s"] for r in runs if r.get("final", {}).get("wall_s"))
    if not walls:
        return content.fill(t["run.text"], wall="–", steps="–", machine="–")
    p = runs[0]["provenance"]
    return content.fill(t["run.text"], wall=f"{walls[len(walls) // 2]:.0f}", steps=str(runs[0]["config"]["steps"]),
                        machine=f"{p.get('processor', '?')}, {p.get('cpus', '?')} CPUs, {runs[0]['final'].get('threads', '?')} thread(s)")


def job_view(t):
    st = jobs.status(default_path())
    if not st:
        return 0, 1, t["run.idle"]
    total = max(1, st["steps"])
    name = f"{st['activation']} · {st['preset']} · seed {st['seed']} · fc_init_std {st['fc_init_std']} · {st['steps']} steps"
    if st["state"] == "running":
        return st["step"], total, content.fill(t["run.running"], job=name, step=str(st["step"]), steps=str(total))
    if st["state"] == "done":
        return total, total, content.fill(t["run.done"], job=name, run=str(st["run_id"]))
    return st["step"], total, content.fill(t["run.failed"], job=name, error=st.get("error", ""))


def layout(state, lang):
    t = content.text(lang, "ffn")
    bfig, bvals = live(state["act"], state["sigma"], lang, t)
    runs, _ = pool()
    opts = _group_options(runs, lang, t)
    group = opts[0]["value"] if opts else None
    res = results(group, lang, t) if group else None
    sw_text, sw_fig = sweep_block(runs, lang, t)
    done, total, jtext = job_view(t)
    act_opts = [{"label": activations.get(n).label(lang), "value": n} for n in activations.names()]
    if res is None:  # no results anywhere: the same components, empty, so the callbacks keep their targets
        import plotly.graph_objects as go

        res = {k: go.Figure() for k in ("loss", "gap", "units", "grad")}
        res.update(table="", verdict=t["results.none"], prov="", explain="")
    stored = [
        _dropdown("ffn-group", t["label.group"], opts, group),
        graph("ffn-loss", res["loss"]),
        graph("ffn-gap", res["gap"]),
        _dropdown("ffn-metric", t["label.metric"], [{"label": t[f"metric.{m}"], "value": m} for m in UNIT_METRICS], "dead"),
        graph("ffn-units", res["units"]),
        graph("ffn-grad", res["grad"]),
        html.H3(t["table.h"]),
        html.Div(res["table"], id="ffn-table"),
        html.P(res["verdict"], id="ffn-verdict", className="verdict"),
        html.H3(t["prov.h"]),
        html.Div(res["prov"], id="ffn-prov"),
        html.H3(t["depends.h"]),
        md(res["explain"], id="ffn-explain"),
    ]
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(
                html.H2(t["block.h"]),
                md(t["block.text"]),
                html.Div(
                    [_dropdown("ffn-act", t["label.act"], act_opts, state["act"]),
                     slider("ffn-sigma", SIGMA, state["sigma"], t["label.sigma"], marks={v: f"{v:g}" for v in (0.05, 0.5, 1, 2, 3)})],
                    className="controls",
                ),
                message("ffn-msg"),
                readouts(*(readout(f"ffn-r-{k}", t[f"read.{k}"], v) for k, v in zip(("dead", "near", "neg", "lin", "std"), bvals))),
                graph("ffn-block", bfig),
                md(t["block.after"]),
            ),
            section(html.H2(t["results.h"]), md(t["results.text"]), *stored, id="ffn-results"),
            section(html.H2(t["sweep.h"]), html.Div(sw_text, id="ffn-sweep-text"),
                    graph("ffn-sweep", sw_fig) if sw_fig is not None else html.Div(id="ffn-sweep")),
            section(
                html.H2(t["run.h"]),
                md(_run_text(t)),
                html.Div(
                    [_dropdown("ffn-run-act", t["label.run_act"], [{"label": activations.get(n).label(lang), "value": n} for n in RUN_ACTS], "gelu"),
                     _dropdown("ffn-run-fc", t["label.run_fc"], [{"label": "0.02", "value": "0.02"}, {"label": t["fc.unit"], "value": "unit"}], "0.02"),
                     _dropdown("ffn-run-preset", t["label.run_preset"], [{"label": t[f"preset.{p}"], "value": p} for p in RUN_PRESETS], "quick"),
                     _dropdown("ffn-run-steps", t["label.run_steps"], [{"label": str(s), "value": s} for s in RUN_STEPS], 600)],
                    className="controls",
                ),
                html.Button(t["run.button"], id="ffn-run-go", n_clicks=0, className="run-button"),
                html.Div([html.Progress(id="ffn-run-progress", value=str(done), max=str(total))]),
                html.Div(jtext, id="ffn-run-status", role="status"),
                dcc.Interval(id="ffn-run-tick", interval=1500),
                dcc.Store(id="ffn-run-seen", data=None),
            ),
        ]
    )


# --- callbacks --------------------------------------------------------------------------


@callback(
    Output("ffn-block", "figure"),
    *(Output(f"ffn-r-{k}", "children") for k in ("dead", "near", "neg", "lin", "std")),
    Output("ffn-msg", "children"),
    Input("ffn-act", "value"),
    Input("ffn-sigma", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _live(act, sigma, lang):
    vals, msg = inputs([(ACT, act), (SIGMA, sigma)], lang)
    if vals is None:
        return (no_update,) * 6 + (msg,)
    fig, r = live(*vals, lang, content.text(lang, "ffn"))
    return (fig, *r, msg)


@callback(
    Output("ffn-loss", "figure"),
    Output("ffn-gap", "figure"),
    Output("ffn-units", "figure"),
    Output("ffn-grad", "figure"),
    Output("ffn-table", "children"),
    Output("ffn-verdict", "children"),
    Output("ffn-prov", "children"),
    Output("ffn-explain", "children"),
    Input("ffn-group", "value"),
    Input("ffn-metric", "value"),
    Input("ffn-run-seen", "data"),  # a finished job: redraw with its run
    State("lang", "data"),
    prevent_initial_call=True,
)
def _results(group, metric, _seen, lang):
    metric = metric if metric in UNIT_METRICS else "dead"
    res = results(group, lang, content.text(lang, "ffn"), metric)
    if res is None:
        return (no_update,) * 8
    return res["loss"], res["gap"], res["units"], res["grad"], res["table"], res["verdict"], res["prov"], prose(res["explain"])


@callback(
    Output("ffn-run-status", "children", allow_duplicate=True),
    Input("ffn-run-go", "n_clicks"),
    State("ffn-run-act", "value"),
    State("ffn-run-fc", "value"),
    State("ffn-run-steps", "value"),
    State("ffn-run-preset", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _start(n, act, fc, steps, preset, lang):
    t = content.text(lang, "ffn")
    if not n:
        return no_update
    if act not in RUN_ACTS or fc not in ("0.02", "unit") or steps not in RUN_STEPS or preset not in RUN_PRESETS:
        return t["run.bad"]
    fc_value = 0.02 if fc == "0.02" else "unit"
    try:
        job = start_next_seed(default_path(), act, preset, steps, fc_value)
    except ValueError as e:
        return str(e)
    return content.fill(t["run.started"], act=act, seed=str(job["seed"]))


def start_next_seed(path, act: str, preset: str, steps: int, fc_init_std) -> dict:
    """Start, as a background job, the next free seed of this experiment for `act`, so the
    run adds a seed to its bands; the job (ValueError while another one runs)."""
    from ...nn.train import TrainConfig  # torch: only on a click that starts training anyway

    full = TrainConfig.make(preset, steps=steps, fc_init_std=fc_init_std, activation=act).to_dict()
    full["text_sha256"] = _corpus_sha()
    seed = jobs.next_seed(pool()[0], full)
    return jobs.start(path, act, seed, steps, fc_init_std, preset=preset, eval_interval=max(10, steps // 12))


def _corpus_sha():
    from ...nn.corpus import corpus_info

    try:
        return corpus_info()["sha256"]
    except OSError:
        return ""


@callback(
    Output("ffn-run-progress", "value"),
    Output("ffn-run-progress", "max"),
    Output("ffn-run-status", "children"),
    Output("ffn-run-seen", "data"),
    Output("ffn-group", "options"),
    Input("ffn-run-tick", "n_intervals"),
    State("ffn-run-seen", "data"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _tick(_, seen, lang):
    t = content.text(lang, "ffn")
    done, total, text = job_view(t)
    st = jobs.status(default_path())
    key = f"{st['pid']}:{st['state']}" if st else None
    opts = no_update
    if st and st["state"] == "done" and key != seen:  # a run finished since this page last looked: show it
        opts = _group_options(pool()[0], lang, t)
    # "seen" changes only when the job does: every change redraws the results (a slow callback)
    return str(done), str(total), text, key if key != seen else no_update, opts
