"""Implementation: from formula to engineering. The three forms with their code; error
curves on the reader's interval, maxima located; the constants on sliders, and fitted
(``gelu-lab fit``); ULP precision per dtype; throughput against the memory roofline; which
framework uses which form. The numbers: :mod:`gelu_lab.analysis.implementation`; the float32
sweep and the bench run as background jobs (:mod:`gelu_lab.app.job_box`), never in a request.
"""

from __future__ import annotations

import inspect

from dash import Input, Output, State, callback, dcc, html, no_update

from ... import activations
from ... import numerics as nm
from ...analysis import accuracy as acc
from ...analysis import fits, frameworks
from ...analysis import implementation as data
from ...figures import implementation as figs
from .. import content, custom_box, job_box
from ..components import dropdown, graph, md, message, number, prose, radio, readout, readouts, section, slider, values_table
from ..state import Param, inputs

LO = Param("lo", -4.0, -50.0, 50.0)
HI = Param("hi", 4.0, -50.0, 50.0)
SCALE = Param("scale", "abs", choices=("abs", "rel"))
LOG = Param("log", "off", choices=("off", "on"))
C = Param("c", nm.TANH_CUBIC, 0.0, 0.1, 1e-6)
K = Param("k", nm.SQRT_2_OVER_PI, 0.7, 0.9, 1e-6)
BETA = Param("beta", nm.SIGMOID_BETA, 1.0, 2.5, 1e-3)
NORM = Param("norm", "max", choices=fits.NORMS)
DTYPE = Param("dtype", "bfloat16", choices=acc.DTYPES)
LIVE = True  # the layout shows the measurement store and the jobs: the shell renders it anew for every load
PARAMS = [LO, HI, SCALE, LOG, C, K, BETA, NORM, DTYPE, *custom_box.params()]
custom_box.register("implementation")
FORMS, IMPLS = data.FORMS, data.IMPLS
ERROR_IDS = [f"implementation-e-{f}-{k}" for f in FORMS for k in ("max", "at", "rel", "relat")]
CONST_IDS = [f"implementation-k-{f}-{k}" for f in ("tanh", "sigmoid") for k in ("max", "at", "classic")]
PREC_COLS = ("max", "wrong", "flush", "zsign", "over")  # the precision cells with ids (tests read them)
ACC = job_box.register(job_box.Job("implementation-acc", data.ACC_JOB, lambda path, a: data.start_accuracy(path, a.get("impl")),
                                   "implementation", "job.acc.idle"))
BENCH = job_box.register(job_box.Job("implementation-bench", data.BENCH_JOB, lambda path, _: data.start_bench(path),
                                     "implementation", "job.bench.idle"))


def interval(lo, hi, lang) -> tuple[tuple | None, str]:
    """((a, b), message) from the two boxes: repaired as every box, a reversed interval swapped."""
    t = content.text(lang, "implementation")
    vals, msg = inputs([(LO, lo), (HI, hi)], lang)
    if vals is None:
        return None, msg
    a, b = vals
    if a == b:
        return None, " ".join(m for m in (msg, content.fill(t["msg.empty_interval"], a=f"{a:g}")) if m)
    if a > b:
        a, b = b, a
        msg = " ".join(m for m in (msg, content.fill(t["msg.swapped"], a=f"{a:g}", b=f"{b:g}")) if m)
    return (a, b), msg


def error_view(a, b, scale, log, lang, t):
    """(figure, readout texts) of the error curves on [a, b]."""
    d = data.errors_on(a, b, scale)
    labels = {"title": t[f"err.fig.{scale}"], "x": "x", "y": t[f"err.y.{scale}"], "maxima": t["err.maxima"]}
    names = {n: content.label(n, lang) for n in FORMS}
    return figs.error_figure(d["x"], d["curves"], d["maxima"], names, labels, log=log == "on"), d["readouts"]


def constants_view(c, k, beta, a, b, lang, t):
    """(figure, readouts) of the two forms with the slider constants against the classic ones."""
    curves, maxima, names, vals = {}, {}, {}, []
    for form, d in data.constants_on(c, k, beta, a, b).items():
        key = f"gelu_{form}"
        curves[key], curves[key + ".classic"], maxima[key] = d["error"], d["classic_error"], [(d["at"], d["at_error"])]
        names[key] = content.fill(t[f"const.name.{form}"], **{n: f"{v:.6g}" for n, v in d["params"].items()})
        names[key + ".classic"] = t[f"const.classic.{form}"]
        vals += d["readouts"]
    labels = {"title": t["const.fig"], "x": "x", "y": t["const.y"], "maxima": t["err.maxima"]}
    return figs.error_figure(d["x"], curves, maxima, names, labels, dashed=("gelu_tanh.classic", "gelu_sigmoid.classic")), vals


def fit_table(a, b, norm, t):
    """The fitted constants of both forms on [a, b] (the fit `gelu-lab fit` runs), with the classic ones; and the constants."""
    rows = data.fit_rows(a, b, norm)
    body = [html.Tr([html.Td(t[f"fit.form.{r['form']}"]), html.Td(r["fitted"], id=f"implementation-fit-{r['form']}"),
                     html.Td(r["max"], id=f"implementation-fit-{r['form']}-max"), *(html.Td(r[k]) for k in ("rms", "classic", "cmax", "crms"))])
            for r in rows]
    note = content.fill(t["fit.done"], norm=t[f"norm.{norm}"], a=f"{a:g}", b=f"{b:g}")
    head = [t[f"fit.col.{c}"] for c in ("form", "params", "max", "rms", "classic", "cmax", "crms")]
    return html.Div([html.P(note), values_table(head, body)]), {r["form"]: r["params"] for r in rows}


def impl_name(impl, t):
    return t["impl." + impl.replace(":", "_")]


def precision_view(dtype, a, b, lang, t):
    """(table, figure, note) for one dtype; the figure on [a, b]."""
    rows = data.precision_rows(dtype)
    body = [html.Tr([html.Td(impl_name(r["impl"], t)), html.Td(r["reference"]),
                     html.Td(content.fill(t[f"prec.src.{r['source']}"], n=f"{r['n']:,}", run=str(r["run_id"]))),
                     *(html.Td(r[c], **({"id": f"implementation-p-{r['impl'].replace(':', '_')}-{c}"} if c in PREC_COLS else {}))
                       for c in ("max", "at", "wrong", "flush", "zsign", "over"))])
            for r in rows]
    head = [t[f"prec.col.{c}"] for c in ("impl", "ref", "n", "max", "at", "wrong", "flush", "zsign", "over")]
    fig = figs.ulp_figure({impl: data.ulp_points(impl, dtype, a, b) for impl in IMPLS}, {i: impl_name(i, t) for i in IMPLS},
                          {"title": content.fill(t["prec.fig"], dtype=dtype, a=f"{a:g}", b=f"{b:g}"), "x": "x", "y": t["prec.y"]})
    missing = [impl_name(r["impl"], t) for r in rows if r["source"] == "sample"]
    return values_table(head, body, id="implementation-prec-table"), fig, content.fill(t["prec.missing"], impls=", ".join(missing)) if missing else ""


def cost_view(lang, t):
    """(figure, text) of the newest bench run (an empty chart and a note when there is none)."""
    labels = {"title": t["cost.none.fig"], "y": t["cost.y"], "roofline": t["cost.roofline"]}
    d = data.cost()
    if d is None:
        return figs.cost_figure({}, None, [], {}, labels), t["cost.none"]
    fig = figs.cost_figure(d["bars"], d["copy"], [t[f"backend.{b}"] for b in data.BACKENDS], {f: t[f"form.{f}"] for f in data.COST_FORMS},
                           {**labels, "title": content.fill(t["cost.fig"], n=f"{d['n']:.0e}", threads=str(d["threads"]))})
    m, run = d["machine"], d["run"]
    return fig, content.fill(t["cost.text"], cpu=str(m.get("processor", "?")), cpus=str(m.get("cpus", "?")), date=str(run.get("created", "?")),
                             command=str(run.get("provenance", {}).get("command", "")), ratios=d["ratios"],
                             copy="—" if d["copy"] is None else f"{d['copy']:.2f}")


def frameworks_table(lang, t):
    """Which form each framework's GELU computes by default (PyTorch asked now: gelu_lab.analysis.frameworks)."""
    left = {"textAlign": "left"}  # words and code read left-aligned

    def td(*children, **kw):
        return html.Td(*children, style=left, **kw)

    rows = [html.Tr([td(d.framework), td(html.Code(d.call)), td(d.default, **({"id": "implementation-fw-torch"} if d.asked else {})),
                     td(content.label(d.form, lang)), td(content.fill(t["fw.asked"], how=d.source) if d.asked else html.Code(d.source))])
            for d in frameworks.defaults()]
    head = [t[f"fw.col.{c}"] for c in ("fw", "call", "default", "form", "source")]
    return values_table(head, rows, id="implementation-fw-table", head_style=left)


def layout(state, lang):
    t = content.text(lang, "implementation")
    iv, msg = interval(state["lo"], state["hi"], lang)
    a, b = iv or (LO.default, HI.default)
    efig, evals = error_view(a, b, state["scale"], state["log"], lang, t)
    kfig, kvals = constants_view(state["c"], state["k"], state["beta"], a, b, lang, t)
    ptable, pfig, pnote = precision_view(state["dtype"], a, b, lang, t)
    cfig, ctext = cost_view(lang, t)
    err_labels = [f"{content.label(f, lang)} · {t['read.' + k]}" for f in FORMS for k in ("max", "at", "rel", "relat")]
    const_labels = [f"{t['fit.form.' + f]} · {t['read.' + k]}" for f in ("tanh", "sigmoid") for k in ("max", "at", "classic")]
    impl = dropdown("implementation-acc-impl", t["label.impl"], [{"label": impl_name(i, t), "value": i} for i in IMPLS], IMPLS[0])
    code = "\n\n".join(inspect.getsource(f) for f in (nm.gelu_exact, nm.gelu_tanh, nm.gelu_sigmoid))  # the library's own float64 code
    return html.Div([
        html.H1(t["title"]),
        md(t["intro"]),
        section(html.H2(t["forms.h"]), md(t["forms.text"]), html.Details([html.Summary(t["forms.library"]), html.Pre(html.Code(code), className="code")])),
        section(
            html.H2(t["err.h"]), md(t["err.text"]),
            html.Div([number("implementation-lo", LO, state["lo"], t["label.lo"]), number("implementation-hi", HI, state["hi"], t["label.hi"]),
                      radio("implementation-scale", t["label.scale"], SCALE.choices, state["scale"], lambda s: t[f"scale.{s}"]),
                      radio("implementation-log", t["label.log"], LOG.choices, state["log"], lambda s: t[f"log.{s}"])], className="controls"),
            message("implementation-msg", msg),
            readouts(*[readout(i, lab, v) for i, lab, v in zip(ERROR_IDS, err_labels, evals)]),
            graph("implementation-errors", efig)),
        section(
            html.H2(t["const.h"]), md(t["const.text"]),
            html.Div([slider("implementation-c", C, state["c"], t["label.c"]), slider("implementation-k", K, state["k"], t["label.k"]),
                      slider("implementation-beta", BETA, state["beta"], t["label.beta"])], className="controls"),
            message("implementation-kmsg"),
            readouts(*[readout(i, lab, v) for i, lab, v in zip(CONST_IDS, const_labels, kvals)]),
            graph("implementation-constants", kfig),
            html.Div([radio("implementation-norm", t["label.norm"], NORM.choices, state["norm"], lambda n: t[f"norm.{n}"]),
                      html.Button(t["fit.button"], id="implementation-fit-go", n_clicks=0, className="run-button")], className="controls"),
            dcc.Loading(html.Div(t["fit.idle"], id="implementation-fit"), type="dot")),
        section(
            html.H2(t["prec.h"]), md(t["prec.text"]),
            radio("implementation-dtype", t["label.dtype"], DTYPE.choices, state["dtype"]),
            html.Div(ptable, id="implementation-prec"),
            html.P(pnote, id="implementation-prec-note", className="muted"),
            graph("implementation-ulp", pfig),
            md(content.fill(t["prec.job"], command="gelu-lab accuracy --impl IMPL --dtype float32 " + " ".join(data.f32_args()))),
            job_box.box(ACC.name, lang, t["job.acc.button"], [impl], {"impl": IMPLS[0]})),
        section(
            html.H2(t["cost.h"]), md(t["cost.intro"]),
            md(ctext, id="implementation-cost-text"),
            graph("implementation-cost", cfig),
            md(content.fill(t["cost.job"], command="gelu-lab bench --cases " + ",".join(data.BENCH_CASES) + " " + " ".join(data.BENCH_ARGS))),
            job_box.box(BENCH.name, lang, t["job.bench.button"])),
        section(html.H2(t["fw.h"]), md(t["fw.text"]), frameworks_table(lang, t), md(t["fw.after"])),
        section(custom_box.box("implementation", state, lang)),
    ])


@callback(Output("implementation-errors", "figure"), [Output(i, "children") for i in ERROR_IDS],
          Output("implementation-constants", "figure"), [Output(i, "children") for i in CONST_IDS], Output("implementation-msg", "children"),
          *(Input(f"implementation-{n}", "value") for n in ("lo", "hi", "scale", "log", "c", "k", "beta")),
          State("lang", "data"), prevent_initial_call=True)
def _update(lo, hi, scale, log, c, k, beta, lang):
    t = content.text(lang, "implementation")
    iv, msg = interval(lo, hi, lang)
    vals, kmsg = inputs([(SCALE, scale), (LOG, log), (C, c), (K, k), (BETA, beta)], lang)
    msg = " ".join(m for m in (msg, kmsg) if m)
    if iv is None or vals is None:
        return (no_update,) * (2 + len(ERROR_IDS) + len(CONST_IDS)) + (msg,)
    scale, log, c, k, beta = vals
    efig, evals = error_view(*iv, scale, log, lang, t)
    kfig, kvals = constants_view(c, k, beta, *iv, lang, t)
    return (efig, *evals, kfig, *kvals, msg)


@callback(Output("implementation-fit", "children"), *(Output(f"implementation-{n}", "value") for n in ("c", "k", "beta")),
          Input("implementation-fit-go", "n_clicks"), *(State(f"implementation-{n}", "value") for n in ("lo", "hi", "norm")),
          State("lang", "data"), prevent_initial_call=True)
def _fit_click(_n, lo, hi, norm, lang):
    t = content.text(lang, "implementation")
    iv, msg = interval(lo, hi, lang)
    if iv is None:
        return (msg,) + (no_update,) * 3
    table, fitted = fit_table(*iv, norm if norm in fits.NORMS else NORM.default, t)
    # the sliders move to the fitted constants (on their grid), so the live readouts show them
    return table, C.coerce(fitted["tanh"]["c"])[0], nm.SQRT_2_OVER_PI, BETA.coerce(fitted["sigmoid"]["beta"])[0]


@callback(Output("implementation-prec", "children"), Output("implementation-ulp", "figure"), Output("implementation-prec-note", "children"),
          *(Input(f"implementation-{n}", "value") for n in ("dtype", "lo", "hi")),
          Input(job_box.seen(ACC.name), "data"),  # a finished float32 job: read its result
          State("lang", "data"), prevent_initial_call=True)
def _precision(dtype, lo, hi, _seen, lang):
    dtype = dtype if dtype in acc.DTYPES else DTYPE.default
    iv, _ = interval(lo, hi, lang)  # a bad interval is reported by the error-curve callback
    if iv is None:
        return no_update, no_update, no_update
    return precision_view(dtype, *iv, lang, content.text(lang, "implementation"))


@callback(Output("implementation-cost", "figure"), Output("implementation-cost-text", "children"),
          Input(job_box.seen(BENCH.name), "data"), State("lang", "data"), prevent_initial_call=True)
def _cost(_seen, lang):
    fig, text = cost_view(lang, content.text(lang, "implementation"))
    return fig, prose(text)


@callback(Output(job_box.args(ACC.name), "data"), Input("implementation-acc-impl", "value"), prevent_initial_call=True)
def _acc_impl(impl):
    return {"impl": impl}
