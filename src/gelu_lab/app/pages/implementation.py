"""Implementation: from formula to engineering.

The three forms with their code; error curves on the reader's interval with the
maxima located (:mod:`gelu_lab.analysis.errors`); sliders for the constants with
the live max error and a fit button (:mod:`gelu_lab.analysis.fits`, the fit
``gelu-lab fit`` runs); ULP precision per dtype (:mod:`gelu_lab.analysis.accuracy`:
16-bit exhaustive on demand, float32 exhaustive read from the runs store and
computed by a background job); throughput against the memory roofline from
stored ``gelu-lab bench`` runs (or a short job); which framework uses which form.
No sweep and no benchmark runs in a request: the jobs are :mod:`gelu_lab.results.jobs`.
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np
from dash import Input, Output, State, callback, dcc, html, no_update

from ... import activations
from ...analysis import frameworks
from ... import results
from ...results import jobs
from ... import numerics as nm
from ...analysis import accuracy as acc
from ...analysis import bench, errors, fits
from ...figures import implementation as figs
from ...results.store import default_path
from .. import content, custom_box
from ..components import fmt, graph, md, message, number, prose, readout, readouts, section, slider
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
LIVE = True  # the layout shows the measurement store and the benchmark job: the shell renders it anew for every load
PARAMS = [LO, HI, SCALE, LOG, C, K, BETA, NORM, DTYPE, *custom_box.params()]
custom_box.register("implementation")

FORMS = ("gelu_tanh", "gelu_sigmoid")  # the approximations, against exact GELU
POINTS = 1201  # points of the drawn curves (the maxima are located, not read off them)
IMPLS = ("gelu", "gelu_tanh", "torch:gelu", "torch:gelu_tanh")  # rows of the precision table
F32_PLAN = {"mode": "exhaustive"}  # the float32 run the page reads and its job computes (tests use a small one)
F32_SAMPLE = 1 << 16  # stratified float32 sample shown until that run is stored
ULP_POINTS = 8001  # float32 inputs of the ULP-error chart
BACKENDS = ("numpy", "gelu_lab", "torch")
BENCH_CASES = ["copy", *(f"{b}:{f}" for b in BACKENDS for f in ("erf", "tanh", "sigmoid"))]  # forward float32
BENCH_ARGS = ["--sizes", "1e6", "--repeats", "3", "--threads", "1"]  # "measure now": a short run
JOB_KINDS = {"acc": "accuracy-float32", "bench": "bench"}

LEFT = {"textAlign": "left"}


def _names(lang):
    return {n: activations.get(n).label(lang) for n in ("gelu", *FORMS)}


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


# --- error curves ---------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _curves(a: float, b: float):
    return {f: errors.error_curves(f, "gelu", (a, b), n=POINTS) for f in FORMS}


def _finite(y):
    y = np.asarray(y, dtype=np.float64)
    return np.where(np.isfinite(y), y, np.nan)


def error_view(a, b, scale, log, lang, t):
    """(figure, readout texts) of the error curves on [a, b]."""
    res, names = _curves(a, b), _names(lang)
    if scale == "rel":
        curves = {f: _finite(r.rel_error) for f, r in res.items()}
        maxima = {f: [(r.argmax_rel, r.max_rel_error)] if math.isfinite(r.max_rel_error) else [] for f, r in res.items()}
    else:
        curves = {f: r.abs_error for f, r in res.items()}
        maxima = {f: list(r.argmax_pair) for f, r in res.items()}
    labels = {"title": t[f"err.fig.{scale}"], "x": "x", "y": t[f"err.y.{scale}"], "maxima": t["err.maxima"]}
    fig = figs.error_figure(res[FORMS[0]].x, curves, maxima, names, labels, log=log == "on")
    vals = []
    for f in FORMS:
        r = res[f]
        vals += [f"{r.max_abs_error:.4e}", " ".join(fmt(x, 4) for x, _ in r.argmax_pair) or "—", f"{r.max_rel_error:.4e}", fmt(r.argmax_rel, 4)]
    return fig, vals


def _error_ids():
    return [f"implementation-e-{f}-{k}" for f in FORMS for k in ("max", "at", "rel", "relat")]


# --- constants ------------------------------------------------------------------------


def constants_view(c, k, beta, a, b, lang, t):
    """(figure, readouts) of the two forms with the slider constants against the classic ones."""
    x = np.linspace(a, b, POINTS)
    mine = {"gelu_tanh": ("tanh", {"c": c, "k": k}), "gelu_sigmoid": ("sigmoid", {"beta": beta})}
    curves, maxima, names, vals = {}, {}, {}, []
    for key, (form, p) in mine.items():
        e = fits.error_of(form, p)[0]
        m, at = fits.sup_error(form, p, a, b)
        cm, cat = fits.sup_error(form, fits.CLASSIC[form], a, b)
        curves[key], curves[key + ".classic"] = e(x), fits.error_of(form, fits.CLASSIC[form])[0](x)
        maxima[key] = [(at, float(e(at)))]
        names[key] = content.fill(t[f"const.name.{form}"], **{n: f"{v:.6g}" for n, v in p.items()})
        names[key + ".classic"] = t[f"const.classic.{form}"]
        vals += [f"{m:.4e}", fmt(at, 4), f"{cm:.4e}"]
    labels = {"title": t["const.fig"], "x": "x", "y": t["const.y"], "maxima": t["err.maxima"]}
    fig = figs.error_figure(x, curves, maxima, names, labels, dashed=("gelu_tanh.classic", "gelu_sigmoid.classic"))
    return fig, vals


def _const_ids():
    return [f"implementation-k-{f}-{k}" for f in ("tanh", "sigmoid") for k in ("max", "at", "classic")]


@functools.lru_cache(maxsize=32)
def _fit(form, a, b, norm):
    return fits.fit(form, (a, b), norm)


def _params(p: dict) -> str:
    return " ".join(f"{k}={v:.10g}" for k, v in p.items())  # as `gelu-lab fit` prints them


def fit_table(a, b, norm, t):
    """The fitted constants of both forms on [a, b] (the fit `gelu-lab fit` runs), with the classic ones."""
    head = html.Tr([html.Th(t[f"fit.col.{c}"]) for c in ("form", "params", "max", "rms", "classic", "cmax", "crms")])
    rows, fitted = [], {}
    for form in fits.FORM_NAMES:
        f = _fit(form, a, b, norm)
        fitted[form] = f.params
        rows.append(html.Tr([
            html.Td(t[f"fit.form.{form}"]), html.Td(_params(f.params), id=f"implementation-fit-{form}"),
            html.Td(f"{f.max_error:.4e}", id=f"implementation-fit-{form}-max"), html.Td(f"{f.rms_error:.4e}"),
            html.Td(_params(f.classic["params"])), html.Td(f"{f.classic['max_error']:.4e}"), html.Td(f"{f.classic['rms_error']:.4e}"),
        ]))
    note = content.fill(t["fit.done"], norm=t[f"norm.{norm}"], a=f"{a:g}", b=f"{b:g}")
    return html.Div([html.P(note), html.Table([html.Thead(head), html.Tbody(rows)], className="values")]), fitted


# --- precision ------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _exhaustive16(impl, dtype):
    return acc.measure(impl, dtype, "exhaustive", progress=False)


@functools.lru_cache(maxsize=8)
def _sample32(impl, n):
    return acc.measure(impl, "float32", "sample", sample=n, progress=False)


def _f32_args() -> list[str]:
    """F32_PLAN as `gelu-lab accuracy` options."""
    mode = F32_PLAN["mode"]
    bits = ["--chunk-bits", str(F32_PLAN["chunk_bits"])] if "chunk_bits" in F32_PLAN else []
    if mode == "sample":
        return ["--sample", str(F32_PLAN["sample"]), *bits]
    if mode == "range":
        return ["--range", *(repr(float(v)) for v in F32_PLAN["interval"]), *bits]
    return ["--exhaustive", *bits]


def stored_f32(impl):
    """(summary, source) of `impl` for F32_PLAN: the reader's stored run ("stored"), else the
    shipped one ("shipped"), else (None, None); read through gelu_lab.results.latest."""
    got = results.latest("accuracy", acc.plan("float32", **F32_PLAN).key(acc.resolve(impl)))
    if got is None:
        return None, None
    return got.value, "stored" if got.source == "store" else "shipped"


def summaries(dtype) -> dict:
    """{impl: (summary, source)}: 16-bit exhaustive now; float32 the stored run or a sample."""
    out = {}
    for impl in IMPLS:
        if dtype != "float32":
            out[impl] = (_exhaustive16(impl, dtype), "exhaustive")
        else:
            s, src = stored_f32(impl)
            out[impl] = (s, src) if s is not None else (_sample32(impl, F32_SAMPLE), "sample")
    return out


def impl_name(impl, t):
    return t["impl." + impl.replace(":", "_")]


@functools.lru_cache(maxsize=16)
def _ulp_errors(impl, dtype, a=None, b=None):
    """(x, ulp error) of `impl` at the inputs it gets wrong: all 65 536 of a 16-bit format
    (a, b unused), or ULP_POINTS evenly spaced float32 inputs of [a, b]."""
    if dtype == "float32":
        x = np.unique(np.linspace(a, b, ULP_POINTS).astype(np.float32))
    else:
        x = acc.plan(dtype).chunk(0)  # all 65 536 bit patterns
    im = acc.resolve(impl)
    got, _ = acc.evaluate(im, x)
    u = acc.ulp_distance(got, acc.reference_values(im.reference, x))
    bad = u > 0
    with np.errstate(invalid="ignore"):
        return x[bad].astype(np.float64), u[bad]


def ulp_points(impl, dtype, a, b):
    """(x, ulp error) of the inputs of `dtype` in [a, b] that `impl` gets wrong."""
    x, u = _ulp_errors(impl, dtype, a, b) if dtype == "float32" else _ulp_errors(impl, dtype)
    keep = (x >= a) & (x <= b)
    return x[keep], u[keep]


def precision_view(dtype, a, b, lang, t):
    """(table, figure, note) for one dtype; the figure on [a, b]."""
    sums = summaries(dtype)
    head = html.Tr([html.Th(t[f"prec.col.{c}"]) for c in ("impl", "ref", "n", "max", "at", "wrong", "flush", "zsign", "over")])
    rows = []
    for impl, (s, src) in sums.items():
        w = s["worst"]
        src_text = content.fill(t[f"prec.src.{src}"], n=f"{s['n']:,}", run=str(s.get("run_id", "")))
        rows.append(html.Tr([
            html.Td(impl_name(impl, t)), html.Td(s["reference"]), html.Td(src_text),
            html.Td(str(s["max_ulp"]), id=f"implementation-p-{impl.replace(':', '_')}-max"),
            html.Td("—" if w is None else f"{w['x']:.6g}"),
            html.Td(f"{100 * s['frac_wrong']:.3f} %", id=f"implementation-p-{impl.replace(':', '_')}-wrong"),
            html.Td(str(s["counts"]["flush"]), id=f"implementation-p-{impl.replace(':', '_')}-flush"),
            html.Td(str(s["counts"]["zero_sign"]), id=f"implementation-p-{impl.replace(':', '_')}-zsign"),
            html.Td(str(s["counts"]["overflow"]), id=f"implementation-p-{impl.replace(':', '_')}-over"),
        ]))
    table = html.Table([html.Thead(head), html.Tbody(rows)], className="values", id="implementation-prec-table")
    fig = figs.ulp_figure({impl: ulp_points(impl, dtype, a, b) for impl in IMPLS}, {i: impl_name(i, t) for i in IMPLS},
                          {"title": content.fill(t["prec.fig"], dtype=dtype, a=f"{a:g}", b=f"{b:g}"), "x": "x", "y": t["prec.y"]})
    missing = [impl_name(i, t) for i, (_, src) in sums.items() if src == "sample"]
    note = content.fill(t["prec.missing"], impls=", ".join(missing)) if missing else ""
    return table, fig, note


# --- cost -----------------------------------------------------------------------------


def stored_bench():
    """(run, rows, machine) of the newest `gelu-lab bench` run in the reader's store, else the
    shipped one, else None; read through gelu_lab.results.latest."""
    got = results.latest("bench")
    return None if got is None else (got.run, got.value["rows"], got.value["machine"])


def cost_view(lang, t):
    """(figure, text) from the newest stored bench run: forward float32 at its largest size
    (an empty chart and a note when nothing is stored)."""
    labels = {"title": t["cost.none.fig"], "y": t["cost.y"], "roofline": t["cost.roofline"]}
    got = stored_bench()
    fwd = [r for r in got[1] if r["direction"] == "forward" and r["dtype"] == "float32"] if got else []
    if not fwd:
        return figs.cost_figure({}, None, [], {}, labels), t["cost.none"]
    run, rows, m = got
    n, threads = max(r["n"] for r in fwd), min(r["threads"] for r in fwd)
    at = {r["case"]: r["gelem_s"] for r in fwd if r["n"] == n and r["threads"] == threads}
    forms = ("erf", "tanh", "sigmoid")
    bars = {f: [at.get(f"{b}:{f}") for b in BACKENDS] for f in forms}
    fig = figs.cost_figure(bars, at.get("copy"), [t[f"backend.{b}"] for b in BACKENDS], {f: t[f"form.{f}"] for f in forms},
                           {**labels, "title": content.fill(t["cost.fig"], n=f"{n:.0e}", threads=str(threads))})
    ratios = [r for r in bench.tanh_vs_erf(rows) if r["n"] == n and r["threads"] == threads]
    ratio_text = ", ".join(f"{r['num'].split(':')[0]} {r['ratio']:.2f}×" for r in ratios) or "—"
    text = content.fill(t["cost.text"], cpu=str(m.get("processor", "?")), cpus=str(m.get("cpus", "?")), date=str(run.get("created", "?")),
                        command=str(run["provenance"].get("command", "")), ratios=ratio_text,
                        copy="—" if "copy" not in at else f"{at['copy']:.2f}")
    return fig, text


# --- framework defaults ---------------------------------------------------------------


def _td(*children, **kw):
    return html.Td(*children, style=LEFT, **kw)  # words and code read left-aligned


def frameworks_table(lang, t):
    """Which form each framework's GELU computes by default (PyTorch asked now: gelu_lab.analysis.frameworks)."""
    head = html.Tr([html.Th(t[f"fw.col.{c}"], style=LEFT) for c in ("fw", "call", "default", "form", "source")])
    rows = [
        html.Tr([_td(d.framework), _td(html.Code(d.call)), _td(d.default, **({"id": "implementation-fw-torch"} if d.asked else {})),
                 _td(activations.get(d.form).label(lang)), _td(content.fill(t["fw.asked"], how=d.source) if d.asked else html.Code(d.source))])
        for d in frameworks.defaults()
    ]
    return html.Table([html.Thead(head), html.Tbody(rows)], className="values", id="implementation-fw-table")


# --- background jobs ----------------------------------------------------------------


def job_view(key, t):
    """(progress value, max, status text, running, job) of the page's job `key` ("acc" or "bench")."""
    st = jobs.status(default_path(), JOB_KINDS[key])
    if not st:
        return 0, 1, t[f"job.{key}.idle"], False, None
    p = st.get("progress") or {}
    n, total = int(p.get("n") or 0), int(p.get("total") or 1)
    what = st.get("what", st["command"])
    if st["state"] == "running":
        return n, total, content.fill(t["job.running"], what=what, pct=f"{100 * n / max(total, 1):.0f}"), True, st
    if st["state"] == "done":
        return total, total, content.fill(t["job.done"], what=what), False, st
    return n, total, content.fill(t["job.failed"], what=what, error=st.get("error", "")), False, st


def job_controls(key, t, extra=()):
    done, total, text, running, _ = job_view(key, t)
    p = f"implementation-{key}"
    return html.Div([
        html.Div([*extra, html.Button(t[f"job.{key}.button"], id=f"{p}-go", n_clicks=0, className="run-button")], className="controls" if extra else None),
        html.Div([html.Progress(id=f"{p}-progress", value=str(done), max=str(total))]),
        html.Div(text, id=f"{p}-status", role="status"),
        dcc.Interval(id=f"{p}-tick", interval=1000, disabled=not running),
        dcc.Store(id=f"{p}-seen", data=None),
    ])


def start_job(key, impl=None):
    """Start the page's job `key`; ValueError if it is running or the request is bad."""
    path = default_path()
    if key == "acc":
        if impl not in IMPLS:
            raise ValueError(f"unknown implementation {impl!r}")
        args = ["accuracy", "--impl", impl, "--dtype", "float32", *_f32_args(), "--store", str(path)]
        return jobs.start(path, JOB_KINDS[key], args, {"what": f"{impl} float32 {F32_PLAN['mode']}"})
    args = ["bench", "--cases", ",".join(BENCH_CASES), *BENCH_ARGS, "--store", str(path)]
    return jobs.start(path, JOB_KINDS[key], args, {"what": "bench " + " ".join(BENCH_ARGS)})


# --- layout ---------------------------------------------------------------------------


def _radio(id, label, options, value):
    return html.Div([html.Label(label, htmlFor=id, className="control-label"),
                     dcc.RadioItems(id=id, options=options, value=value, inline=True, className="checklist")], className="control")


def _library_code():
    """The float64 evaluation of each form in gelu_lab, read from the library itself."""
    return html.Pre(html.Code("\n\n".join(inspect.getsource(f) for f in (nm.gelu_exact, nm.gelu_tanh, nm.gelu_sigmoid))), className="code")


def layout(state, lang):
    t = content.text(lang, "implementation")
    iv, msg = interval(state["lo"], state["hi"], lang)
    a, b = iv or (LO.default, HI.default)
    efig, evals = error_view(a, b, state["scale"], state["log"], lang, t)
    kfig, kvals = constants_view(state["c"], state["k"], state["beta"], a, b, lang, t)
    ptable, pfig, pnote = precision_view(state["dtype"], a, b, lang, t)
    cfig, ctext = cost_view(lang, t)
    names = _names(lang)
    err_labels = [f"{names[f]} · {t['read.' + k]}" for f in FORMS for k in ("max", "at", "rel", "relat")]
    const_labels = [f"{t['fit.form.' + f]} · {t['read.' + k]}" for f in ("tanh", "sigmoid") for k in ("max", "at", "classic")]
    impl_opts = [{"label": impl_name(i, t), "value": i} for i in IMPLS]
    return html.Div(
        [
            html.H1(t["title"]),
            md(t["intro"]),
            section(html.H2(t["forms.h"]), md(t["forms.text"]),
                    html.Details([html.Summary(t["forms.library"]), _library_code()])),
            section(
                html.H2(t["err.h"]),
                md(t["err.text"]),
                html.Div([number("implementation-lo", LO, state["lo"], t["label.lo"]), number("implementation-hi", HI, state["hi"], t["label.hi"]),
                          _radio("implementation-scale", t["label.scale"], [{"label": t[f"scale.{s}"], "value": s} for s in SCALE.choices], state["scale"]),
                          _radio("implementation-log", t["label.log"], [{"label": t[f"log.{s}"], "value": s} for s in LOG.choices], state["log"])],
                         className="controls"),
                message("implementation-msg", msg),
                readouts(*[readout(i, lab, v) for i, lab, v in zip(_error_ids(), err_labels, evals)]),
                graph("implementation-errors", efig),
            ),
            section(
                html.H2(t["const.h"]),
                md(t["const.text"]),
                html.Div([slider("implementation-c", C, state["c"], t["label.c"]), slider("implementation-k", K, state["k"], t["label.k"]),
                          slider("implementation-beta", BETA, state["beta"], t["label.beta"])], className="controls"),
                message("implementation-kmsg"),
                readouts(*[readout(i, lab, v) for i, lab, v in zip(_const_ids(), const_labels, kvals)]),
                graph("implementation-constants", kfig),
                html.Div([_radio("implementation-norm", t["label.norm"], [{"label": t[f"norm.{n}"], "value": n} for n in NORM.choices], state["norm"]),
                          html.Button(t["fit.button"], id="implementation-fit-go", n_clicks=0, className="run-button")], className="controls"),
                dcc.Loading(html.Div(t["fit.idle"], id="implementation-fit"), type="dot"),
            ),
            section(
                html.H2(t["prec.h"]),
                md(t["prec.text"]),
                _radio("implementation-dtype", t["label.dtype"], [{"label": d, "value": d} for d in DTYPE.choices], state["dtype"]),
                html.Div(ptable, id="implementation-prec"),
                html.P(pnote, id="implementation-prec-note", className="muted"),
                graph("implementation-ulp", pfig),
                md(content.fill(t["prec.job"], command="gelu-lab accuracy --impl IMPL --dtype float32 " + " ".join(_f32_args()))),
                job_controls("acc", t, [html.Div([html.Label(t["label.impl"], htmlFor="implementation-acc-impl", className="control-label"),
                                                  dcc.Dropdown(id="implementation-acc-impl", options=impl_opts, value=IMPLS[0], clearable=False)],
                                                 className="control")]),
            ),
            section(
                html.H2(t["cost.h"]),
                md(t["cost.intro"]),
                md(ctext, id="implementation-cost-text"),
                graph("implementation-cost", cfig),
                md(content.fill(t["cost.job"], command="gelu-lab bench --cases " + ",".join(BENCH_CASES) + " " + " ".join(BENCH_ARGS))),
                job_controls("bench", t),
            ),
            section(html.H2(t["fw.h"]), md(t["fw.text"]), frameworks_table(lang, t), md(t["fw.after"])),
            section(custom_box.box("implementation", state, lang)),
        ]
    )


# --- callbacks --------------------------------------------------------------------------


@callback(
    Output("implementation-errors", "figure"),
    [Output(i, "children") for i in _error_ids()],
    Output("implementation-constants", "figure"),
    [Output(i, "children") for i in _const_ids()],
    Output("implementation-msg", "children"),
    Input("implementation-lo", "value"),
    Input("implementation-hi", "value"),
    Input("implementation-scale", "value"),
    Input("implementation-log", "value"),
    Input("implementation-c", "value"),
    Input("implementation-k", "value"),
    Input("implementation-beta", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _update(lo, hi, scale, log, c, k, beta, lang):
    t = content.text(lang, "implementation")
    n_out = 2 + len(_error_ids()) + len(_const_ids())
    iv, msg = interval(lo, hi, lang)
    vals, kmsg = inputs([(SCALE, scale), (LOG, log), (C, c), (K, k), (BETA, beta)], lang)
    msg = " ".join(m for m in (msg, kmsg) if m)
    if iv is None or vals is None:
        return (no_update,) * n_out + (msg,)
    scale, log, c, k, beta = vals
    efig, evals = error_view(*iv, scale, log, lang, t)
    kfig, kvals = constants_view(c, k, beta, *iv, lang, t)
    return (efig, *evals, kfig, *kvals, msg)


@callback(
    Output("implementation-fit", "children"),
    Output("implementation-c", "value"),
    Output("implementation-k", "value"),
    Output("implementation-beta", "value"),
    Input("implementation-fit-go", "n_clicks"),
    State("implementation-lo", "value"),
    State("implementation-hi", "value"),
    State("implementation-norm", "value"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _fit_click(n, lo, hi, norm, lang):
    t = content.text(lang, "implementation")
    if not n:
        return (no_update,) * 4
    iv, msg = interval(lo, hi, lang)
    if iv is None:
        return (msg,) + (no_update,) * 3
    norm = norm if norm in fits.NORMS else NORM.default
    table, fitted = fit_table(*iv, norm, t)
    # the sliders move to the fitted constants (on their grid), so the live readouts show them
    c = C.coerce(fitted["tanh"]["c"])[0]
    beta = BETA.coerce(fitted["sigmoid"]["beta"])[0]
    return table, c, nm.SQRT_2_OVER_PI, beta


@callback(
    Output("implementation-prec", "children"),
    Output("implementation-ulp", "figure"),
    Output("implementation-prec-note", "children"),
    Input("implementation-dtype", "value"),
    Input("implementation-lo", "value"),
    Input("implementation-hi", "value"),
    Input("implementation-acc-seen", "data"),  # a finished float32 job: read its result
    State("lang", "data"),
    prevent_initial_call=True,
)
def _precision(dtype, lo, hi, _seen, lang):
    dtype = dtype if dtype in acc.DTYPES else DTYPE.default
    iv, _ = interval(lo, hi, lang)  # a bad interval is reported by the error-curve callback
    if iv is None:
        return no_update, no_update, no_update
    return precision_view(dtype, *iv, lang, content.text(lang, "implementation"))


@callback(
    Output("implementation-cost", "figure"),
    Output("implementation-cost-text", "children"),
    Input("implementation-bench-seen", "data"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _cost(_seen, lang):
    fig, text = cost_view(lang, content.text(lang, "implementation"))
    return fig, prose(text)


def _register_job(key, states=()):
    p = f"implementation-{key}"

    @callback(
        Output(f"{p}-status", "children", allow_duplicate=True),
        Output(f"{p}-tick", "disabled", allow_duplicate=True),
        Input(f"{p}-go", "n_clicks"),
        *states,
        State("lang", "data"),
        prevent_initial_call=True,
    )
    def _start(n, *rest):
        *args, lang = rest
        t = content.text(lang, "implementation")
        if not n:
            return no_update, no_update
        try:
            job = start_job(key, *args)
        except ValueError as e:  # one job of a kind at a time (or a forged request): say so, keep ticking
            return content.fill(t["job.busy"], reason=str(e)), False
        return content.fill(t["job.started"], what=job["what"]), False

    @callback(
        Output(f"{p}-progress", "value"),
        Output(f"{p}-progress", "max"),
        Output(f"{p}-status", "children"),
        Output(f"{p}-seen", "data"),
        Output(f"{p}-tick", "disabled"),
        Input(f"{p}-tick", "n_intervals"),
        State(f"{p}-seen", "data"),
        State("lang", "data"),
        prevent_initial_call=True,
    )
    def _tick(_, seen, lang):
        done, total, text, running, st = job_view(key, content.text(lang, "implementation"))
        now = f"{st['pid']}:{st['state']}" if st else None
        # "seen" changes when the job does: a finished job redraws its section
        return str(done), str(total), text, (now if now != seen else no_update), not running


_register_job("acc", [State("implementation-acc-impl", "value")])
_register_job("bench")
