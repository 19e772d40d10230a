"""Transformer FFN: the block live (ungated or gated, block.py) and the experiment that
decides first, beside Shazeer 2020 (paper.py); the training runs per FFN variant, with the hidden-unit statistics, gradient norms, provenance and a run control folded
behind "more detail" (components.more).

The numbers come from :mod:`gelu_lab.nn.ffn_view`: the runs of the reader's runs store
together with the result set shipped in ``gelu_lab/data/ffn_results.json``. The run
control is a job box (:mod:`gelu_lab.app.job_box`) starting ``gelu-lab train`` in a
separate process; the page picks its run up when it is done, and lists the store's
unfinished runs with the command that resumes them. No training and no torch in a request.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from dash import html

from .... import activations
from ....figures import ffn as figs
from ....nn import ffn_view as data
from ....nn import train_job, variants
from ....results.store import default_path
from ... import content, job_box
from . import block as ffn_block, paper as ffn_paper
from . import decision, view
from ...components import dropdown, graph, md, more, section, values_table

ACT, SIGMA = ffn_block.ACT, ffn_block.SIGMA
LIVE = True  # the layout shows the training job's progress and the runs store: the shell renders it anew for every load
PARAMS = [ACT, SIGMA]
RUN = job_box.register(job_box.Job("ffn-run", train_job.KIND, data.start_run, "ffn", "run.idle", status=train_job.status, describe=job_box.training_what,
                                   command=data.run_command))
RUN_DEFAULT = {"act": "gelu", "fc": "0.02", "preset": "quick", "steps": 600}
FIGS = ("loss", "gap", "units", "grad")


def _names(lang):
    return {n: content.label(n, lang) for n in (*activations.names(every=True), *variants.GATED)}


def group_label(c: dict, t) -> str:
    """A group of runs in words: its model, steps, learning rate (none for a cell: each activation has its own) and FFN init."""
    lr = "" if c.get("lr") is None else content.fill(t["group.lr"], lr=f"{c['lr']:g}")
    fc = t["fc.unit"] if c.get("fc_init_std") == "unit" else str(c.get("fc_init_std"))
    return content.fill(t["group.label"], layers=str(c.get("n_layer")), width=str(c.get("n_embd")), steps=str(c.get("steps")), lr=lr, fc=fc)


def group_options(runs, t):
    return [{"label": content.fill(t["group.option.best" if g["best_lr"] else "group.option"], label=group_label(g["config"], t), n=str(g["n"]),
                                   src=" + ".join(t[f"src.{s}"] for s in g["sources"])), "value": g["key"]} for g in data.group_options(runs)]


def results(key, lang, t, metric="dead", pool=None):
    """Figures, table, verdict, provenance and the explanation for one group of runs (None if there is no such group)."""
    runs, prov = pool or data.pool()  # the layout passes the pool it has read already
    g = data.group(runs, key, metric)
    if g is None:
        return None
    names, step = _names(lang), t["fig.step"]
    units = {"title": t[f"metric.{metric}"] + " · " + t["fig.units.mean"], "x": step, "y": t[f"metric.{metric}"]}
    return {
        "loss": figs.band_figure(g["loss"], names, {"title": t["fig.loss.title"], "x": step, "y": t["fig.loss.y"]}),
        "gap": figs.gap_figure(g["loss"], "gelu", names, {"title": t["fig.gap.title"], "x": step, "y": t["fig.gap.y"]}),
        "units": figs.band_figure(g["metric"], names, units),
        "grad": figs.layers_figure(g["grad"], names, {"title": t["fig.grad.title"], "x": step, "y": t["fig.grad.y"], "layer": t["fig.layer"]}),
        "table": _table(g["rows"], names, t), "verdict": decision.rows_verdict(g["rows"], t, lang), "prov": _provenance(data.provenance(g["runs"], prov), t),
        "explain": content.fill(t["depends.text"], best=names.get(g["best"], g["best"] or view.NONE), **view.quoted(g["quoted"])),
    }


def _table(rows, names, t):
    body = []
    for r in rows:
        std = "" if not math.isfinite(r["std"]) else f" ± {r['std']:.3f}"
        sep = "–" if r["rank"] == 1 else (t["table.yes"] if r["separated"] else t["table.no"])
        body.append(html.Tr([html.Td(str(r["rank"])), html.Td(names.get(r["activation"], r["activation"])), html.Td(str(r["n"])),
                             html.Td(f"{r['mean']:.3f}{std}"), html.Td(f"{r['gap']:+.3f}"), html.Td(sep), html.Td(r["behind"] or "–"),
                             html.Td(", ".join(f"{v:.3f}" for v in r["seeds"]))]))
    head = [t[f"table.{k}"] for k in ("rank", "act", "n", "mean", "gap", "sep", "behind", "seeds")]
    return values_table(head, body, id="ffn-table-el")


def _prov_line(p, t) -> list:
    """The date, machine and versions of a result set; the versions ("PyTorch 2.13.0+cpu") as code."""
    before, _, after = content.fill(t["prov.line"], date=p["date"], versions="\0",
                                    machine=content.fill(t["prov.machine"], cpu=p["processor"], cpus=p["cpus"])).partition("\0")
    return [before, html.Code(p["versions"]), after]


def _provenance(sources, t):
    return html.Div([html.Div([html.Strong(t[f"src.{p['source']}"] + t["prov.colon"] + (" " if t["prov.colon"].isascii() else "")), html.Span(_prov_line(p, t)),
                               html.Pre("\n".join(p["commands"]), className="prov-cmd")]) for p in sources], id="ffn-prov-el")


def run_text(t):
    """What one run takes, measured: the shipped quick runs' median time and their machine, in words."""
    d = view.run_time(data.run_time())
    threads = content.fill(t["unit.thread" if d["threads"] == "1" else "unit.threads"], n=d["threads"])
    return content.fill(t["run.text"], wall=d["wall"], steps=d["steps"], machine=content.fill(t["run.machine"], cpu=d["cpu"], cpus=d["cpus"], threads=threads))


def _what(u, lang, t) -> str:
    return content.fill(t["unfinished.what"], act=content.label(u["activation"], lang), preset=t.get(f"preset.{u['preset']}", u["preset"]),
                        seed=str(u["seed"]), steps=str(u["steps"]))


def unfinished(lang, t):
    """The store's unfinished runs: each with its step, and the command that resumes an interrupted one."""
    items = [html.Li([content.fill(t[f"unfinished.{u['status']}"], run=str(u["id"]), what=_what(u, lang, t), step=str(u["step"]), steps=str(u["steps"])),
                      *([" ", html.Code(u["resume"], className="job-cmd")] if u["resume"] else [])])
             for u in data.unfinished(default_path())]
    return [html.P(t["unfinished.h"]), html.Ul(items)] if items else []


def layout(state, lang):
    t = content.text(lang, "ffn")
    pool = data.pool()
    runs = pool[0]
    opts = group_options(runs, t)
    group = opts[0]["value"] if opts else None
    res = results(group, lang, t, pool=pool) if group else None
    if res is None:  # no results anywhere: the same components, empty, so the callbacks keep their targets
        res = {**{k: go.Figure() for k in FIGS}, "table": "", "verdict": t["results.none"], "prov": "", "explain": ""}
    d = data.decision(runs)
    head, tail = decision.block(d, lang, t)
    run_controls = [
        dropdown("ffn-run-act", t["label.run_act"], [{"label": content.label(n, lang), "value": n} for n in data.RUN_ACTS], RUN_DEFAULT["act"]),
        dropdown("ffn-run-fc", t["label.run_fc"], [{"label": "0.02", "value": "0.02"}, {"label": t["fc.unit"], "value": "unit"}], RUN_DEFAULT["fc"]),
        dropdown("ffn-run-preset", t["label.run_preset"], [{"label": t[f"preset.{p}"], "value": p} for p in data.RUN_PRESETS], RUN_DEFAULT["preset"]),
        dropdown("ffn-run-steps", t["label.run_steps"], [{"label": str(s), "value": s} for s in data.RUN_STEPS], RUN_DEFAULT["steps"]),
    ]
    return html.Div([
        html.H1(t["title"]),
        md(t["intro"]),
        section(*ffn_block.section_children(state, lang, t, d["c"]["n_embd"] if d else 64)),
        section(
            html.H2(t["results.h"]), *head,
            html.H3(t["curves.h"]), md(t["results.text"]),
            dropdown("ffn-group", t["label.group"], opts, group),
            graph("ffn-loss", res["loss"]),
            graph("ffn-gap", res["gap"]),
            more(t["units.h"], dropdown("ffn-metric", t["label.metric"], [{"label": t[f"metric.{m}"], "value": m} for m in data.UNIT_METRICS], "dead"),
                 graph("ffn-units", res["units"]), id="ffn-more-units"),
            more(t["grad.h"], graph("ffn-grad", res["grad"]), id="ffn-more-grad"),
            html.H3(t["table.h"]), html.Div(res["table"], id="ffn-table"),
            html.P(res["verdict"], id="ffn-verdict", className="verdict"),
            html.H3(t["depends.h"]), md(res["explain"], id="ffn-explain"),
            *tail,
            *ffn_paper.block(d, lang, t, pool[1]),
            more(t["prov.h"], html.Div(res["prov"], id="ffn-prov"), id="ffn-more-prov"),
            id="ffn-results"),
        section(more(
            t["run.h"], md(run_text(t)),
            job_box.box(RUN.name, lang, t["run.button"], run_controls, RUN_DEFAULT),
            html.Div(unfinished(lang, t), id="ffn-unfinished"),
            id="ffn-more-run", open=job_box.running(RUN.name))),  # a running job stays in view
    ])
