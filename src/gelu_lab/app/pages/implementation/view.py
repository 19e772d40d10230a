"""The views of the Implementation page (``gelu_lab.app.pages.implementation``): each one a
figure, a table or a text made from :mod:`gelu_lab.analysis.implementation` and
:mod:`gelu_lab.analysis.forms`, in the page language. Numbers show about four significant
figures (components.sig); a located maximum shows its full value on hover (components.full).
"""

from __future__ import annotations

from dash import html

from ....analysis import forms, frameworks
from ....analysis import implementation as data
from ....figures import implementation as figs
from ....printing import pct
from ... import content
from ...components import full, sig, superscript, values_table

FORMS, IMPLS = data.FORMS, data.IMPLS


def _at(xs) -> str:
    return " ".join(sig(x) for x in xs) or "—"


def error_numbers(a, b) -> list:
    """Per form: max |error| (full value on hover), where, max relative error, where: the
    maxima errors_on located (abs and rel), not its printed readouts."""
    out = []
    for f, m in data.error_maxima(a, b).items():
        out += [full(m["max"]) if m["max"] is not None else "—", _at(m["at"]), full(m["rel"]) if m["rel"] is not None else "—",
                sig(m["rel_at"]) if m["rel"] is not None else "—"]
    return out


def error_view(a, b, scale, log, lang, t):
    """(figure, readouts) of the error curves on [a, b]."""
    d = data.errors_on(a, b, scale)
    labels = {"title": t[f"err.fig.{scale}"], "x": "x", "y": t[f"err.y.{scale}"], "maxima": t["err.maxima"]}
    names = {n: content.label(n, lang) for n in FORMS}
    return figs.error_figure(d["x"], d["curves"], d["maxima"], names, labels, log=log == "on"), error_numbers(a, b)


def constants_view(c, k, beta, a, b, lang, t):
    """(figure, readouts) of the two forms with the slider constants against the classic ones."""
    curves, maxima, names, vals = {}, {}, {}, []
    classic = error_numbers(a, b)  # the classic constants are the forms of the error curves above
    for (form, d), cmax in zip(data.constants_on(c, k, beta, a, b).items(), classic[::4]):
        key = f"gelu_{form}"
        curves[key], curves[key + ".classic"], maxima[key] = d["error"], d["classic_error"], [(d["at"], d["at_error"])]
        names[key] = content.fill(t[f"const.name.{form}"], **{n: f"{v:.6g}" for n, v in d["params"].items()})  # the slider value, as set
        names[key + ".classic"] = t[f"const.classic.{form}"]
        vals += [full(abs(d["at_error"])), sig(d["at"]), cmax]
    labels = {"title": t["const.fig"], "x": "x", "y": t["const.y"], "maxima": t["err.maxima"]}
    return figs.error_figure(d["x"], curves, maxima, names, labels, dashed=("gelu_tanh.classic", "gelu_sigmoid.classic")), vals


def _params(p: dict, **kw) -> list:
    """Constants as `k = v` pairs, each value to four figures with its full value on hover."""
    out = []
    for i, (k, v) in enumerate(p.items()):
        out += [" " if i else "", f"{k} = ", full(v, **({"id": f"{kw['id']}-{k}"} if "id" in kw else {}))]
    return out


def fit_table(a, b, norm, t):
    """The fitted constants of both forms on [a, b] (the fit `gelu-lab fit` runs), with the classic ones; and the constants."""
    rows = data.fit_rows(a, b, norm)
    body = [html.Tr([html.Td(t[f"fit.form.{r['form']}"]), html.Td(_params(r["params"], id=f"implementation-fit-{r['form']}"), id=f"implementation-fit-{r['form']}"),
                     html.Td(full(r["max"]), id=f"implementation-fit-{r['form']}-max"), html.Td(full(r["rms"])),
                     html.Td(_params(r["classic"])), html.Td(full(r["cmax"])), html.Td(full(r["crms"]))])
            for r in rows]
    note = content.fill(t["fit.done"], norm=t[f"norm.{norm}"], a=f"{a:g}", b=f"{b:g}")
    head = [t[f"fit.col.{c}"] for c in ("form", "params", "max", "rms", "classic", "cmax", "crms")]
    return html.Div([html.P(note), values_table(head, body)]), {r["form"]: r["params"] for r in rows}


def impl_name(impl, t):
    return t["impl." + impl.replace(":", "_")]


def precision_cell(row, col) -> str:
    """One cell of the precision table as shown: the worst input to 6 figures ("—": none wrong),
    the share not correctly rounded as a percentage, the rest as counts."""
    v = row[col]
    if col == "at":
        return "—" if v is None else f"{v:.6g}"
    return pct(v, 3) if col == "wrong" else str(v)


def precision_view(dtype, a, b, lang, t, cols=("max", "wrong", "flush", "zsign", "over")):
    """(table, figure, note) for one dtype; the figure on [a, b]; the cells of `cols` with ids (tests read them)."""
    rows = data.precision_rows(dtype)
    body = [html.Tr([html.Td(impl_name(r["impl"], t)), html.Td(content.label(r["reference"], lang)),
                     html.Td(content.fill(t[f"prec.src.{r['source']}"], n=f"{r['n']:,}", run=str(r["run_id"]))),
                     *(html.Td(precision_cell(r, c), **({"id": f"implementation-p-{r['impl'].replace(':', '_')}-{c}"} if c in cols else {}))
                       for c in ("max", "at", "wrong", "flush", "zsign", "over"))])
            for r in rows]
    head = [t[f"prec.col.{c}"] for c in ("impl", "ref", "n", "max", "at", "wrong", "flush", "zsign", "over")]
    shown = data.runnable()
    fig = figs.ulp_figure({impl: data.ulp_points(impl, dtype, a, b) for impl in shown}, {i: impl_name(i, t) for i in shown},
                          {"title": content.fill(t["prec.fig"], dtype=dtype, a=f"{a:g}", b=f"{b:g}"), "x": "x", "y": t["prec.y"]})
    missing = [impl_name(r["impl"], t) for r in rows if r["source"] == "sample"]
    notes = [content.fill(t["prec.missing"], impls=", ".join(missing)) if missing else "", t["prec.no_torch"] if shown != IMPLS else ""]
    return values_table(head, body, id="implementation-prec-table"), fig, " ".join(n for n in notes if n)


def speed(t, lang) -> str:
    """The tanh form's speed over erf's per backend, forward, at the size and threads the cost
    chart shows, as words ("—" with no bench run)."""
    rows = data.tanh_speedups()
    return content.join((content.fill(t["speed.item"], backend=t["backend." + r["backend"]], ratio=sig(r["ratio"], 3)) for r in rows), lang) or "—"


def threads(n, t) -> str:
    return content.fill(t["unit.thread" if n == 1 else "unit.threads"], n=str(n))


def cost_view(lang, t):
    """(figure, text) of the newest bench run (an empty chart and a note when there is none)."""
    labels = {"title": t["cost.none.fig"], "y": t["cost.y"], "roofline": t["cost.roofline"]}
    d = data.cost()
    if d is None:
        return figs.cost_figure({}, None, [], {}, labels), t["cost.none"]
    fig = figs.cost_figure(d["bars"], d["copy"], [t[f"backend.{b}"] for b in data.BACKENDS], {f: t[f"form.{f}"] for f in data.COST_FORMS},
                           {**labels, "title": content.fill(t["cost.fig"], n=f"{d['n']:.0e}", threads=threads(d["threads"], t))})
    m, run = d["machine"], d["run"]
    return fig, content.fill(t["cost.text"], cpu=str(m.get("processor", "?")), cpus=str(m.get("cpus", "?")), date=str(run.get("created", "?"))[:10],  # ISO time: its date
                             command=str(run.get("provenance", {}).get("command", "")), ratios=speed(t, lang),
                             copy="—" if d["copy"] is None else sig(d["copy"], 3))


def gpu_view(t):
    """(text, table) of the shipped check of the GPU kernels (gelu_lab/data/gpu_check.json), or (a note, None);
    a part the check did not finish shows as "—"."""
    d = data.gpu_cost()
    if d is None:
        return t["gpu.none"], None
    p, ex, f = d["provenance"], d["exhaustive"], d["ffn"]
    power = lambda n: "—" if n is None else "2" + superscript(int(n).bit_length() - 1)  # noqa: E731 - powers of two
    text = content.fill(t["gpu.text"], device=p.get("device", "?"), date=str(p.get("date", "?"))[:10], torch=p.get("torch", "?"),
                        triton=p.get("triton", "?"), inputs=power(ex["gelu"]["inputs"]) if ex else "—",
                        wrong_gelu=sig(ex["gelu"]["wrong"]) if ex else "—", wrong_grad=sig(ex["gelu_grad"]["wrong"]) if ex else "—",
                        n=power(d["n"]), small_n=power(d["small_n"]), ffn=sig(f["ours_over_torch"], 3) if f else "—",
                        shape=f"{f['tokens']} × {f['dim']} → {f['hidden']}" if f else "—", command=p.get("command", ""))
    head = [t["gpu.col.case"], t["gpu.col.torch"], t["gpu.col.ours"], content.fill(t["gpu.col.ratio"], n=power(d["n"])),
            content.fill(t["gpu.col.ratio"], n=power(d["small_n"]))]
    rows = [html.Tr([html.Td(t["gpu.case." + r["case"].replace(":", "-")]), html.Td(sig(r["torch_us"], 3)), html.Td(sig(r["ours_us"], 3)),
                     html.Td(sig(r["ratio"], 3)), html.Td(sig(r["small"], 2) if r["small"] else "—")]) for r in d["rows"]]
    return text, values_table(head, rows, id="implementation-gpu-table")


def gist(lang, t) -> tuple[str, html.Table]:
    """The page's main idea: the translators paragraph, with its numbers, and the table of how far
    each approximation is from exact GELU, in steps of each format ("—": float32's 2^32 inputs are not counted)."""
    d = forms.apart()
    tanh, sgm = d["gelu_tanh"], d["gelu_sigmoid"]
    text = content.fill(t["gist.text"], tanh_max=sig(tanh["max"]), tanh_x=sig(abs(tanh["at"])), n16=sig(forms.ALL16), speed=speed(t, lang),
                        tanh_bf16=sig(tanh["steps"]["bfloat16"]), tanh_f16=sig(tanh["steps"]["float16"]), tanh_f32=sig(tanh["steps"]["float32"]),
                        tanh_differ=sig(tanh["differ"]["bfloat16"]), sig_max=sig(sgm["max"]), sig_bf16=sig(sgm["steps"]["bfloat16"]))
    rows = [html.Tr([html.Td(dt), *(html.Td(v) for f in forms.FORMS for v in (sig(d[f]["steps"][dt]), sig(d[f]["differ"][dt]) if dt in d[f]["differ"] else "—"))],
                    id=f"implementation-gist-{dt}") for dt in forms.DTYPES]
    head = [t["gist.col.dtype"], *(content.fill(t[f"gist.col.{c}"], form=content.label(f, lang)) for f in forms.FORMS for c in ("steps", "differ"))]
    return text, values_table(head, rows, id="implementation-gist-table")


def frameworks_table(lang, t):
    """Which form each framework's GELU computes by default (PyTorch asked now: gelu_lab.analysis.frameworks)."""
    left = {"textAlign": "left"}  # words and code read left-aligned

    def td(*children, **kw):
        return html.Td(*children, style=left, **kw)

    def name(fw):  # "PyTorch 2.13.0+cpu", "Hugging Face transformers": the version or package as code
        head, _, tail = fw.rpartition(" ")
        return [head + " ", html.Code(tail)] if head and (tail[:1].islower() or "+" in tail) else fw

    rows = [html.Tr([td(name(d.framework)), td(html.Code(d.call)), td(html.Code(d.default), **({"id": "implementation-fw-torch"} if d.asked else {})),
                     td(content.label(d.form, lang)), td([content.fill(t["fw.asked"], how=""), html.Code(d.source)] if d.asked else html.Code(d.source))])
            for d in frameworks.defaults()]
    head = [t[f"fw.col.{c}"] for c in ("fw", "call", "default", "form", "source")]
    return values_table(head, rows, id="implementation-fw-table", head_style=left)
