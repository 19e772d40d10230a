"""The "your own activation" box, for any page: a formula in the URL, compared with GELU.

A page that shows the box (Implementation, in a "more detail" fold) does three things:

    PARAMS = [..., *custom_box.params()]           # f, f_lo, f_hi in the query string
    custom_box.box("<slug>", state, lang)          # in its layout (custom_box.asked(state): the URL sets it)
    custom_box.register("<slug>")                  # once, at import, for the callbacks

Ids are "<slug>-f", "<slug>-f_lo", "<slug>-f_hi" (so the shell mirrors them into the
URL like any control) and "<slug>-custom-*". The formula is parsed by the whitelist
grammar of :mod:`gelu_lab.analysis.user_formula` (never eval); a refused formula or interval
shows one line in the box and leaves the figure as it was; so does a formula over a public
server's budget (:mod:`gelu_lab.budget`: its fit takes the most CPU a visitor can ask for).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update

from .. import budget
from ..analysis import custom
from ..figures.custom import custom_figure
from ..analysis.user_formula import MAX_LENGTH, FormulaError
from . import content, public
from .components import full, graph, md, message, number, readout, readouts, sig
from .state import Param, inputs

DEFAULT = "x*sigmoid(a*x)"
EXAMPLES = ("x*sigmoid(a*x)", "0.5*x*(1+tanh(a*(x+0.044715*x**3)))", "x*Phi(x)", "x*tanh(softplus(x))", "max(x, a*x)")
POINTS = 401


@dataclass(frozen=True)
class TextParam(Param):
    """A free-text query value, kept as typed (capped in length); the box validates it."""

    def coerce(self, raw):
        return str(raw)[: 4 * MAX_LENGTH], None

    def encode(self, value) -> str:
        return str(value)


F = TextParam("f", DEFAULT)
LO = Param("f_lo", -4.0, -100.0, 100.0)
HI = Param("f_hi", 4.0, -100.0, 100.0)


def params() -> list[Param]:
    return [F, LO, HI]


def asked(state: dict) -> bool:
    """Whether the URL sets the box (not its defaults): a shared link opens the fold that holds it."""
    return any(state[p.name] != p.default for p in params())


def _t(lang: str) -> dict:
    return content.text(lang, "custom")


@functools.lru_cache(maxsize=128)
def compare(text: str, lo: float, hi: float) -> custom.Comparison:
    """The comparison, cached: fitting a takes a second, and the same links are opened often."""
    return custom.compare_with_gelu(text, (lo, hi), n=POINTS)


def _labels(t: dict) -> dict:
    return {k: t[f"fig.{k}"] for k in ("f", "df", "gelu", "dgelu", "curve", "derivative")}


def _figure(c: custom.Comparison, t: dict):
    return custom_figure(c.x, c.y, c.dy, c.gelu, c.gelu_grad, {**_labels(t), "x": "x"})


def _numbers(c: custom.Comparison, t: dict, lang: str) -> tuple:
    """(err, at, gerr, gat, a, a label, derivative, message) as the reader sees them."""
    a = "—" if c.a is None else full(c.a)  # the fitted constant: four figures, all of them on hover
    note = ""
    if c.nonfinite:
        note = content.fill(t["msg.nonfinite"], n=c.nonfinite, m=custom.FINE, x=sig(c.argmax))
    return (
        sig(c.max_abs_error), sig(c.argmax), sig(c.max_grad_error), sig(c.argmax_grad),
        a, t["read.a"] if c.fitted else t["read.a_given"], c.derivative, note,
    )


def _result(text, lo, hi, lang):
    """(figure, numbers...) or (None, message) for one formula and interval."""
    t = _t(lang)
    vals, note = inputs([(LO, lo), (HI, hi)], lang)  # empty or out-of-range boxes, as every page
    if vals is None:
        return None, note
    lo, hi = vals
    if not lo < hi:
        return None, content.fill(t["msg.interval"], reason=f"need from < to, got {lo:g} and {hi:g}")
    try:
        c = compare(str(text or ""), float(lo), float(hi))
    except budget.OverBudget as e:  # a public server's budget: said in the box, as a refused formula is
        return None, public.refusal(e.kind, lang)
    except FormulaError as e:
        return None, content.fill(t["msg.error"], reason=str(e))
    except ValueError as e:
        return None, content.fill(t["msg.interval"], reason=str(e).splitlines()[0])
    return (_figure(c, t), *_numbers(c, t, lang)), note


def box(prefix: str, state: dict, lang: str) -> html.Div:
    """The box's layout, computed for the formula and interval in `state`."""
    t = _t(lang)
    lo, hi = state[LO.name], state[HI.name]
    res, msg = _result(state[F.name], lo, hi, lang)
    if res is None:  # a bad link: the message, GELU alone in the figure, no numbers
        c = compare(DEFAULT, LO.default, HI.default)
        fig = custom_figure(c.x, c.x * float("nan"), c.x * float("nan"), c.gelu, c.gelu_grad, {**_labels(t), "x": "x"})
        res = (fig, "—", "—", "—", "—", "—", t["read.a"], "", "")
    fig, err, at, gerr, gat, a, alabel, deriv, note = res
    examples = html.Div(
        [html.Span(t["examples"])]
        + [html.Button(html.Code(e), id={"type": f"{prefix}-custom-example", "value": e}, n_clicks=0, className="example") for e in EXAMPLES],
        className="presets",
    )
    return html.Div(
        [
            html.H2(t["h"]),
            md(t["text"]),
            html.Div(
                [
                    html.Label(t["label.f"], htmlFor=f"{prefix}-f", className="control-label"),
                    dcc.Input(
                        id=f"{prefix}-f", type="text", value=state[F.name], debounce=True, maxLength=4 * MAX_LENGTH,
                        spellCheck=False, autoComplete="off", className="formula", style={"width": "100%", "fontFamily": "monospace"},
                    ),
                ],
                className="control",
            ),
            examples,
            html.Div([number(f"{prefix}-f_lo", LO, lo, t["label.lo"]), number(f"{prefix}-f_hi", HI, hi, t["label.hi"])], className="controls"),
            message(f"{prefix}-custom-msg", " ".join(m for m in (msg, note) if m)),
            readouts(
                readout(f"{prefix}-custom-err", t["read.err"], err),
                readout(f"{prefix}-custom-at", t["read.at"], at),
                readout(f"{prefix}-custom-gerr", t["read.gerr"], gerr),
                readout(f"{prefix}-custom-gat", t["read.at"], gat),
                html.Div([html.Span(alabel, className="readout-label", id=f"{prefix}-custom-alabel"),
                          html.Span(a, id=f"{prefix}-custom-a", className="readout-value")], className="readout"),
            ),
            html.P([html.Span(t["deriv"] + " "), html.Code(deriv, id=f"{prefix}-custom-deriv")], className="derivative"),
            graph(f"{prefix}-custom-graph", fig),
        ],
        id=f"{prefix}-custom",
    )


@functools.cache
def register(prefix: str) -> None:
    """The box's callbacks for the page `prefix` (once per prefix)."""

    @callback(
        Output(f"{prefix}-f", "value"),
        Input({"type": f"{prefix}-custom-example", "value": ALL}, "n_clicks"),
        prevent_initial_call=True,
    )
    def _example(clicks):
        if not any(clicks or []) or not isinstance(ctx.triggered_id, dict):
            return no_update  # the buttons were just rendered
        return ctx.triggered_id["value"]

    @callback(
        Output(f"{prefix}-custom-graph", "figure"),
        Output(f"{prefix}-custom-err", "children"),
        Output(f"{prefix}-custom-at", "children"),
        Output(f"{prefix}-custom-gerr", "children"),
        Output(f"{prefix}-custom-gat", "children"),
        Output(f"{prefix}-custom-a", "children"),
        Output(f"{prefix}-custom-alabel", "children"),
        Output(f"{prefix}-custom-deriv", "children"),
        Output(f"{prefix}-custom-msg", "children"),
        Input(f"{prefix}-f", "value"),
        Input(f"{prefix}-f_lo", "value"),
        Input(f"{prefix}-f_hi", "value"),
        State("lang", "data"),
        prevent_initial_call=True,
    )
    def _update(text, lo, hi, lang):
        lang = lang if lang in content.LANGS else content.DEFAULT_LANG
        res, msg = _result(text, lo, hi, lang)
        if res is None:
            return (*[no_update] * 8, msg)
        *values, note = res
        return (*values, " ".join(m for m in (msg, note) if m))
