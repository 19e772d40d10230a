"""The implementation page's callbacks (its layout: :mod:`.page`)."""

from __future__ import annotations

from dash import Input, Output, State, callback, no_update

from .... import numerics as nm
from ....analysis import accuracy as acc, fits
from ... import content, job_box
from ...components import prose
from ...state import inputs
from . import view as parts
from .page import ACC, BENCH, BETA, C, CONST_IDS, DTYPE, ERROR_IDS, K, LOG, NORM, SCALE, interval


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
    efig, evals = parts.error_view(*iv, scale, log, lang, t)
    kfig, kvals = parts.constants_view(c, k, beta, *iv, lang, t)
    return (efig, *evals, kfig, *kvals, msg)


@callback(Output("implementation-fit", "children"), *(Output(f"implementation-{n}", "value") for n in ("c", "k", "beta")),
          Input("implementation-fit-go", "n_clicks"), *(State(f"implementation-{n}", "value") for n in ("lo", "hi", "norm")),
          State("lang", "data"), prevent_initial_call=True)
def _fit_click(_n, lo, hi, norm, lang):
    t = content.text(lang, "implementation")
    iv, msg = interval(lo, hi, lang)
    if iv is None:
        return (msg,) + (no_update,) * 3
    table, fitted = parts.fit_table(*iv, norm if norm in fits.NORMS else NORM.default, t)
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
    return parts.precision_view(dtype, *iv, lang, content.text(lang, "implementation"))


@callback(Output("implementation-cost", "figure"), Output("implementation-cost-text", "children"),
          Input(job_box.seen(BENCH.name), "data"), State("lang", "data"), prevent_initial_call=True)
def _cost(_seen, lang):
    fig, text = parts.cost_view(lang, content.text(lang, "implementation"))
    return fig, prose(text)


@callback(Output(job_box.args(ACC.name), "data"), Input("implementation-acc-impl", "value"), prevent_initial_call=True)
def _acc_impl(impl):
    return {"impl": impl}
