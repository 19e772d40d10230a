"""The Python demo page's parts that only say things: the example script with its line notes,
the left tail where its 1 + erf(x/√2) cancels, what the approximations' errors do in the 16-bit
formats, and the library functions behind the table (their code, and what each does)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from dash import dcc, html

from .... import core, numerics
from ....analysis import demo_table as T
from ....analysis import forms, seed_demo
from ....figures import demo as figs
from ... import content, source_code
from ...components import full, graph, md, more, section, sig, superscript, values_table

# the code behind each column, shown as it is (inspect), so the page cannot drift from it
SOURCES = (T.comparison_table, core.gelu, numerics.gelu_exact, numerics.gelu_tanh, numerics.gelu_sigmoid)
TOL = 1e-6  # the relative error the tail section asks about


def code_block(id: str, code: str) -> html.Div:
    return html.Div([dcc.Clipboard(target_id=id, className="copy", title="copy"), html.Pre(code, id=id, className="code")], className="code-box", id=f"{id}-box")


@functools.cache
def seed_source() -> str:
    """The seed demo exactly as the file the tests run."""
    return Path(seed_demo.__file__).read_text(encoding="utf-8")


def seed_section(t: dict) -> html.Section:
    agree, at = T.seed_agreement()
    return section(
        html.H2(t["seed.h"]),
        md(t["seed.text"]),
        code_block("demo-seed", seed_source()),
        md(t["seed.notes"], id="demo-seed-notes"),
        md(content.fill(t["seed.agree"], agree=sig(agree), at=sig(at))),
    )


def tail_section(t: dict) -> html.Section:
    rows = T.tail_table()
    cols = T.TAIL_COLUMNS
    body = [html.Tr([html.Td([full(100 * r[c]), "%"] if c.endswith("rel_err") else full(r[c])) for c in cols]) for r in rows]
    zero, rel = T.seed_zero_edge(), T.seed_rel_edge(TOL)
    first0 = next(r for r in rows if r["seed"] == 0)  # the example the text explains relative error with
    fill = {"zero_edge": sig(zero), "rel_edge": sig(rel), "tol": "10" + superscript(round(np.log10(TOL))), "step": f"1/{round(1 / T.SCAN_STEP)}",
            "gap": sig(1 - np.nextafter(1.0, 0.0)), "x0": sig(first0["x"]), "true0": sig(first0["true"]), "abs0": sig(abs(first0["seed"] - first0["true"]))}
    labels = {k: t[f"tail.fig.{k}"] for k in ("title", "x", "y", "err", "seed", "gelu_lab")}
    return section(
        html.H2(t["tail.h"]),
        md(content.fill(t["tail.text"], **fill)),
        md(content.fill(t["tail.relerr"], **fill)),
        values_table([t[f"tcol.{c}"] for c in cols], body, id="demo-tail-el"),
        md(content.fill(t["tail.edges"], **fill)),
        graph("demo-tail-fig", figs.tail_figure(T.seed_tail_curve(), zero, rel, TOL, labels)),
        more(t["tail.more.h"], md(t["tail.more"]), id="demo-more-tail"),
    )


def sixteen_bit(lang: str) -> dict:
    """What each approximation's error does in bfloat16 and float16 (analysis.forms: its peak in
    steps of the format and the inputs it rounds differently on; the default table's x where it shows)."""
    a = forms.apart()
    v = {f"{f}_at": sig(a[g]["at"], 3) for f, g in (("tanh", "gelu_tanh"), ("sig", "gelu_sigmoid"))}
    for f, g in (("tanh", "gelu_tanh"), ("sig", "gelu_sigmoid")):
        for d, short in (("bfloat16", "bf16"), ("float16", "f16")):
            shown = T.visible_errors(d)["tanh" if f == "tanh" else "sigmoid"]
            v |= {f"{f}_{short}": sig(a[g]["steps"][d], 2), f"{f}_n_{short}": sig(a[g]["differ"][d]),
                  f"{f}_x_{short}": content.join((f"{x:g}" for x in shown), lang) if shown else "–"}
    t = content.text(lang, "demo")
    for f in ("tanh", "sig"):  # one list when both formats show the error at the same inputs
        bf, f16 = v[f"{f}_x_bf16"], v[f"{f}_x_f16"]
        v[f"{f}_shows"] = content.fill(t["table.shows.both"], both=bf) if bf == f16 else content.fill(t["table.shows.each"], bf16=bf, f16=f16)
    return v


def sources(lang: str) -> list:
    """Each function behind the table: its name, what it does, its code (source_code.bare)."""
    return [html.Details([html.Summary(html.Code(source_code.name(f))), md(source_code.caption(f, lang)),
                          code_block(f"demo-src-{i}", source_code.bare(f))]) for i, f in enumerate(SOURCES)]
