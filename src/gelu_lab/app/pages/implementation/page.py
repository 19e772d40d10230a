"""Implementation: from formula to engineering. First the main idea: the three forms with their
code, how far apart they are in steps of each float format (the "three translators"), the error
curves on the reader's interval, and which framework uses which form. Then, folded behind "more
detail" (components.more): the constants on sliders, and fitted (``gelu-lab fit``); ULP precision
per dtype; throughput against the memory roofline; the reader's own activation. The views:
:mod:`.view`; the float32 sweep and the bench run as background jobs
(:mod:`gelu_lab.app.job_box`), never in a request.
"""

from __future__ import annotations

from dash import dcc, html

from .... import numerics as nm
from ....analysis import accuracy as acc
from ....analysis import fits
from ....analysis import implementation as data
from ... import content, custom_box, framework_table, job_box, source_code
from . import view as parts
from ...components import dropdown, graph, md, message, more, number, radio, readout, readouts, section, slider
from ...state import Param, inputs

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
IMPLS = data.IMPLS
ERROR_IDS = [f"implementation-e-{f}-{k}" for f in data.FORMS for k in ("max", "at", "rel", "relat")]
CONST_IDS = [f"implementation-k-{f}-{k}" for f in ("tanh", "sigmoid") for k in ("max", "at", "classic")]


def _acc_what(st, lang):
    t = content.text(lang, "jobs")
    return content.fill(t["what.accuracy"], impl=parts.impl_name(st["impl"], content.text(lang, "implementation")), mode=t[f"mode.{st['mode']}"])


def _cli(args: list[str]) -> str:
    return "gelu-lab " + " ".join(args)


ACC = job_box.register(job_box.Job("implementation-acc", data.ACC_JOB, lambda path, a: data.start_accuracy(path, a.get("impl")),
                                   "implementation", "job.acc.idle", describe=_acc_what,
                                   command=lambda a: _cli(data.accuracy_args(a.get("impl")))))
BENCH = job_box.register(job_box.Job("implementation-bench", data.BENCH_JOB, lambda path, _: data.start_bench(path),
                                     "implementation", "job.bench.idle", describe=lambda _st, lang: content.text(lang, "jobs")["what.bench"],
                                     command=lambda _a: _cli(data.bench_args())))


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


def layout(state, lang):
    t = content.text(lang, "implementation")
    iv, msg = interval(state["lo"], state["hi"], lang)
    a, b = iv or (LO.default, HI.default)
    efig, evals = parts.error_view(a, b, state["scale"], state["log"], lang, t)
    kfig, kvals = parts.constants_view(state["c"], state["k"], state["beta"], a, b, lang, t)
    ptable, pfig, pnote = parts.precision_view(state["dtype"], a, b, lang, t)
    cfig, ctext = parts.cost_view(lang, t)
    gtext, gtable = parts.gpu_view(t)
    gist, gist_table = parts.gist(lang, t)
    err_labels = [f"{content.label(f, lang)} · {t['read.' + k]}" for f in data.FORMS for k in ("max", "at", "rel", "relat")]
    const_labels = [f"{t['fit.form.' + f]} · {t['read.' + k]}" for f in ("tanh", "sigmoid") for k in ("max", "at", "classic")]
    impl = dropdown("implementation-acc-impl", t["label.impl"], [{"label": parts.impl_name(i, t), "value": i} for i in data.runnable()], IMPLS[0])
    # the library's own float64 code, each function with what it does in the reader's language
    code = [c for f in (nm.gelu_exact, nm.gelu_tanh, nm.gelu_sigmoid) for c in (md(source_code.caption(f, lang)), html.Pre(html.Code(source_code.bare(f)), className="code"))]
    return html.Div([
        html.H1(t["title"]),
        md(t["intro"]),
        section(html.H2(t["forms.h"]), md(t["forms.text"]), more(t["forms.library"], *code),
                html.H3(t["gist.h"]), md(gist, id="implementation-gist"), gist_table, id="implementation-forms"),
        section(
            html.H2(t["err.h"]), md(t["err.text"]),
            html.Div([number("implementation-lo", LO, state["lo"], t["label.lo"]), number("implementation-hi", HI, state["hi"], t["label.hi"]),
                      radio("implementation-scale", t["label.scale"], SCALE.choices, state["scale"], lambda s: t[f"scale.{s}"]),
                      radio("implementation-log", t["label.log"], LOG.choices, state["log"], lambda s: t[f"log.{s}"])], className="controls"),
            message("implementation-msg", msg),
            readouts(*[readout(i, lab, v) for i, lab, v in zip(ERROR_IDS, err_labels, evals)]),
            graph("implementation-errors", efig)),
        section(html.H2(t["fw.h"]), md(t["fw.text"]), parts.frameworks_table(lang, t), md(t["fw.after"])),
        section(more(t["fw.more"], framework_table.table(lang, id="implementation-frameworks-table"),
                     id="implementation-more-frameworks")),
        section(more(
            t["const.h"], md(t["const.text"]),
            html.Div([slider("implementation-c", C, state["c"], t["label.c"]), slider("implementation-k", K, state["k"], t["label.k"]),
                      slider("implementation-beta", BETA, state["beta"], t["label.beta"])], className="controls"),
            message("implementation-kmsg"),
            readouts(*[readout(i, lab, v) for i, lab, v in zip(CONST_IDS, const_labels, kvals)]),
            graph("implementation-constants", kfig),
            html.Div([radio("implementation-norm", t["label.norm"], NORM.choices, state["norm"], lambda n: t[f"norm.{n}"]),
                      html.Button(t["fit.button"], id="implementation-fit-go", n_clicks=0, className="run-button")], className="controls"),
            dcc.Loading(html.Div(t["fit.idle"], id="implementation-fit"), type="dot"), id="implementation-more-const")),
        section(more(
            t["prec.h"], md(t["prec.text"]),
            radio("implementation-dtype", t["label.dtype"], DTYPE.choices, state["dtype"]),
            html.Div(ptable, id="implementation-prec"),
            html.P(pnote, id="implementation-prec-note", className="muted"),
            graph("implementation-ulp", pfig),
            md(content.fill(t["prec.job"], command="gelu-lab accuracy --impl IMPL --dtype float32 " + " ".join(data.f32_args()))),
            job_box.box(ACC.name, lang, t["job.acc.button"], [impl], {"impl": IMPLS[0]}),
            id="implementation-more-prec", open=job_box.running(ACC.name))),  # a running job stays in view
        section(more(
            t["cost.h"], md(t["cost.intro"]),
            md(ctext, id="implementation-cost-text"),
            graph("implementation-cost", cfig),
            md(content.fill(t["cost.job"], command=_cli(data.bench_args()))),
            job_box.box(BENCH.name, lang, t["job.bench.button"]),
            html.H3(t["gpu.h"]), md(gtext, id="implementation-gpu-text"), gtable,
            id="implementation-more-cost", open=job_box.running(BENCH.name))),
        section(more(t["custom.summary"], custom_box.box("implementation", state, lang), id="implementation-more-custom",
                     open=custom_box.asked(state))),  # a shared link to a formula shows it
    ])
