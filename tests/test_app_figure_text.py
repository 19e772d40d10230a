"""Every figure's text alternative and its data (assets/compat/figure_text.js), in Chromium.

On every page in both languages, and in the offline report, each plot is a figure named by
one or two sentences in the page language that name every drawn trace and give its key
values; the numbers are checked against values computed here from the figure's data (the
base64 arrays plotly.py sent, decoded by NumPy; min, max and where, with NumPy). A control
that moves a curve (clientside, or through the server) changes the text to the new values,
computed here independently (mpmath/SciPy). The "data (CSV)" button downloads what is drawn,
by keyboard too; the CSV read back with the csv module holds gd.data exactly.
"""

from __future__ import annotations

import base64
import csv
import math
import re

import numpy as np
import pytest
from scipy import special

from app_browser import TEXT_ONLY, app_url, browser, context, fresh_reports, open_page, set_slider, tab  # noqa: F401
from gelu_lab.app import content, registry
from test_page_text import PLACEHOLDER, raw_identifiers, too_precise

pytestmark = pytest.mark.xdist_group("app")

# each plot as the test needs it: its text alternative, its CSV button and what it draws
FIGURES = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  const alt = document.getElementById(gd.getAttribute('aria-labelledby') || ''), b = gd.__figureBox && gd.__figureBox.querySelector('button');
  const r = b && b.getBoundingClientRect(), arr = a => (a && a.bdata === undefined ? Array.from(a) : a);
  const title = gd.layout.title, ax = gd.layout.xaxis || {};
  return {id: (gd.closest('.dash-graph') || gd).id, role: gd.getAttribute('role'), alt: alt ? alt.textContent : null,
          button: b && {text: b.textContent, label: b.getAttribute('aria-label'), hidden: b.hidden, tab: b.tabIndex, w: r.width, h: r.height},
          title: title && (title.text !== undefined ? title.text : title), x: {type: ax.type, range: ax.range, title: ax.title && ax.title.text},
          data: gd.data.map(t => ({name: t.name, type: t.type, visible: t.visible, opacity: t.opacity, orientation: t.orientation, x: arr(t.x), y: arr(t.y)}))};
})"""
# the number formats of the texts: -0.1700, 1.000e-18, 12,346
NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
CJK = re.compile(r"[\u4e00-\u9fff]")


def values(a) -> list | None:
    """A trace's array as plotly.py sent it: base64 typed array ({dtype, bdata}) or a list."""
    if a is None:
        return None
    if isinstance(a, dict):
        return np.frombuffer(base64.b64decode(a["bdata"]), dtype=np.dtype(a["dtype"]).newbyteorder("<")).tolist()
    return list(a)


def plain(s) -> str:
    return re.sub(r"<[^>]*>", "", re.sub(r"<br\s*/?>", " ", str(s or ""))).strip()


def drawn(fig) -> list[dict]:
    """The traces a reader sees, x and y decoded (a hidden one is not drawn: legendonly, transparent)."""
    out = []
    for t in fig["data"]:
        if t["visible"] in (False, "legendonly") or t["opacity"] == 0:
            continue
        x, y = values(t["x"]), values(t["y"])
        if t["orientation"] == "h":
            x, y = y, x
        y = y or []
        out.append({"name": plain(t["name"]), "x": x if x is not None else list(range(len(y))), "y": y, "bar": t["type"] == "bar"})
    return out


def in_order(template: str, **vals) -> list:
    """vals in the order the content template puts their {placeholders}."""
    return [vals[k] for k in sorted(vals, key=lambda k: template.index("{" + k + "}"))]


def key_values(t, lang: str) -> list:
    """What the text must say of a trace, in the order it says it: its bars' (or one point's)
    x and value, else its lowest and highest value and where (the first such x)."""
    w = content.text(lang, "shell")
    pts = [(x, y) for x, y in zip(t["x"], t["y"]) if isinstance(y, (int, float)) and math.isfinite(y)]
    if not pts:
        return []
    if len(pts) == 1 or (len(pts) <= 8 and (t["bar"] or isinstance(pts[0][0], str))):
        pair = w["fig.pair.cat" if isinstance(pts[0][0], str) else "fig.pair"]
        return [v for x, y in pts for v in in_order(pair, x=x, y=y)]
    ys = np.array([y for _, y in pts])
    lo, hi = pts[int(np.argmin(ys))], pts[int(np.argmax(ys))]
    if lo[1] == hi[1]:
        return in_order(w["fig.flat"], y=lo[1], x0=pts[0][0], x1=pts[-1][0])
    return in_order(w["fig.range"], min=lo[1], xmin=lo[0], max=hi[1], xmax=hi[0])


def numbers(text: str) -> list[float]:
    return [float(m.group().replace(",", "")) for m in NUMBER.finditer(text)]


def close(n: float, v: float) -> bool:
    """n is v rounded to the four significant figures the texts show (within half a unit of the 4th)."""
    if v == 0:
        return n == 0
    return abs(n - v) <= 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 3) * (1 + 1e-9)


def said(v, text: str) -> bool:
    """v is in text (a category as itself, a number to four significant figures)."""
    return plain(v) in text if isinstance(v, str) else any(close(n, v) for n in numbers(text))


def unsaid(expected: list, text: str) -> list:
    """The values of `expected` that text does not say in this order (a category: anywhere)."""
    nums, i, out = numbers(text), 0, []
    for v in expected:
        if isinstance(v, str):
            if not said(v, text):
                out.append(v)
            continue
        j = next((k for k in range(i, len(nums)) if close(nums[k], v)), None)
        if j is None:
            out.append(v)
        else:
            i = j + 1
    return out


def english_words() -> set[str]:
    """The words of the English templates that the Chinese ones do not have (CSV, x)."""
    def words(lang):
        t = content.text(lang, "shell")
        return {w.lower() for k, v in t.items() if k.startswith("fig.") for w in re.findall(r"[A-Za-z]{2,}", re.sub(r"\{\w+\}", "", v))}
    return words("en") - words("zh")


def wrong(fig, lang: str) -> list[str]:
    """What is wrong with one figure's text alternative, [] if nothing."""
    alt, out = fig["alt"], []
    if not alt or not alt.strip() or fig["role"] != "figure":
        return [f"no text alternative (role {fig['role']})"]
    if PLACEHOLDER.search(alt):
        out.append("an unfilled placeholder")
    out += too_precise([alt])
    traces = drawn(fig)
    if fig["title"] and plain(fig["title"]) not in alt:
        out.append(f"no title {plain(fig['title'])!r}")
    if lang == "zh":
        shown = alt
        for s in [plain(fig["title"]), plain(fig["x"]["title"])] + [t["name"] for t in traces] + [plain(x) for t in traces for x in t["x"] if isinstance(x, str)]:
            shown = shown.replace(s, " ") if s else shown
        shown = re.sub(r"“[^”]*”", " ", shown)  # the title, or the heading of an untitled figure
        if not CJK.search(alt):
            out.append("no Chinese")
        out += [f"English word {w!r}" for w in re.findall(r"[A-Za-z]+", shown) if w.lower() in english_words()]
        out += raw_identifiers([shown])
    if not traces:
        return out
    names = list(dict.fromkeys(t["name"] for t in traces if t["name"]))
    # the first sentence: kind, “title” (or the section's heading), the horizontal axis as drawn
    if "”" not in alt:
        return out + ["no “title”"]
    start = alt.index("”") + 1
    end = min(i for i in (alt.find(". ", start), alt.find("。", start), len(alt)) if i >= 0)
    if fig["x"]["type"] in ("linear", "-") and fig["x"]["range"]:
        out += [f"x axis end {v} not in {alt[start:end]!r}" for v in fig["x"]["range"] if not said(v, alt[start:end])]
    if not names:  # no trace has a name: each one's values, anywhere
        return out + [f"values {m}" for t in traces if (m := unsaid(key_values(t, lang), alt))]
    # then each named trace once, in order; its values in its part of the text (up to the next name)
    starts, pos = [], end
    for n in names:
        i = alt.find(n, pos)
        if i < 0:
            out.append(f"no trace name {n!r}")
            continue
        starts.append((i, n))
        pos = i + len(n)
    for k, (i, n) in enumerate(starts):
        part = alt[i + len(n): starts[k + 1][0] if k + 1 < len(starts) else len(alt)]
        t = next(t for t in traces if t["name"] == n)
        if missing := unsaid(key_values(t, lang), part):
            out.append(f"{n}: {missing} not in {part!r} in this order")
    return out


def check_figures(page, lang: str, tries: int = 20) -> list[dict]:
    """Every plot's text agrees with its data; the texts are written a frame after a draw and a
    page may still be drawing (a callback's figure), so look again a few times before failing."""
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].every(gd => gd.getAttribute('aria-labelledby'))")
    for _ in range(tries):
        figs = page.evaluate(FIGURES)
        bad = {f["id"]: w for f in figs if (w := wrong(f, lang))}
        if not bad:
            return figs
        page.wait_for_timeout(250)
    raise AssertionError(f"{page.url}: {bad}")


def check_buttons(figs, lang: str):
    """A figure with data has its CSV button: named, keyboard reachable, at least 24 x 24 px."""
    words = content.text(lang, "shell")
    for f in figs:
        b = f["button"]
        assert b is not None, f["id"]
        if not any(t["y"] for t in drawn(f)):
            assert b["hidden"], f["id"]  # an empty frame has nothing to download
            continue
        assert not b["hidden"] and b["text"] == words["fig.csv"] and b["label"].startswith(words["fig.csv"]), (f["id"], b)
        assert b["tab"] == 0 and b["w"] >= 24 and b["h"] >= 24, (f["id"], b)


CASES = [(p, lang) for p in registry.PAGES if p.slug not in TEXT_ONLY for lang in content.LANGS]  # a text-only page has no figure


@pytest.mark.parametrize("p,lang", CASES, ids=[f"{p.slug}-{lang}" for p, lang in CASES])
def test_every_figure_has_a_text_alternative_from_its_data(tab, app_url, p, lang):
    open_page(tab, f"{app_url}{p.route}?lang={lang}")
    figs = check_figures(tab, lang)
    assert len(figs) == tab.locator(".figure").count() >= 1
    check_buttons(figs, lang)
    tab.log.check()


def _alt(page, fid: str) -> str:
    return page.evaluate("id => document.getElementById(document.querySelector(`[id='${id}'] .js-plotly-plot`).getAttribute('aria-labelledby')).textContent", fid)


def _wait_alt(page, fid: str, has: str) -> str:
    page.wait_for_function("([id, s]) => { const gd = document.querySelector(`[id='${id}'] .js-plotly-plot`), p = gd && document.getElementById(gd.getAttribute('aria-labelledby'));"
                           " return p && p.textContent.includes(s); }", arg=[fid, has])
    return _alt(page, fid)


def test_the_text_follows_a_moved_curve(tab, app_url):
    # Definition: the x slider moves the input marker (gelu_lab.definition_x, Plotly.animate)
    open_page(tab, f"{app_url}/definition?lang=en")
    before = check_figures(tab, "en")
    set_slider(tab, "definition-x", 2.5)
    alt = _wait_alt(tab, "definition-gate", "input x: 2.500 at x = 2.500")
    assert alt != next(f["alt"] for f in before if f["id"] == "definition-gate")
    check_figures(tab, "en")
    # vs ReLU: s moves GELU(s x)/s (a precomputed family, animate) and renames it (restyle);
    # its lowest value is x Phi(s x) at its minimum, here from SciPy on the figure's own grid
    open_page(tab, f"{app_url}/relu?lang=en")
    set_slider(tab, "relu-s", 4)
    alt = _wait_alt(tab, "relu-scale", "s = 4:")
    grid = np.array(values(next(f for f in tab.evaluate(FIGURES) if f["id"] == "relu-scale")["data"][1]["x"]))
    low = grid * special.ndtr(4 * grid)
    part = alt.split("s = 4:")[1]
    assert said(float(low.min()), part.split(",")[0]) and said(float(grid[low.argmin()]), part.split(",")[0]), part
    # ... and mu moves the dead-unit histogram through the server (a new figure, Plotly.react)
    dead = _alt(tab, "relu-dead")
    set_slider(tab, "relu-mu", -1)
    tab.wait_for_function("([id, s]) => { const gd = document.querySelector(`[id='${id}'] .js-plotly-plot`);"
                          " return document.getElementById(gd.getAttribute('aria-labelledby')).textContent !== s; }", arg=["relu-dead", dead])
    check_figures(tab, "en")
    tab.log.check()


def download(page, button) -> tuple[str, list[list[str]]]:
    """(file name, rows) of the CSV that Enter on `button` downloads."""
    button.focus()
    with page.expect_download() as got:
        page.keyboard.press("Enter")
    d = got.value
    with open(d.path(), encoding="utf-8-sig", newline="") as f:
        return d.suggested_filename, list(csv.reader(f))


def check_csv(fig, rows):
    """One x and one y column per drawn trace, headed by its name; the values are gd.data's, exactly."""
    traces = drawn(fig)
    head, body = rows[0], rows[1:]
    assert len(head) == 2 * len(traces)
    assert len(body) == max(max(len(t["x"]), len(t["y"])) for t in traces)
    for j, t in enumerate(traces):
        for col, vals in ((2 * j, t["x"]), (2 * j + 1, t["y"])):
            if t["name"]:
                assert t["name"] in head[col]
            cells = [r[col] for r in body]
            assert cells[len(vals):] == [""] * (len(body) - len(vals))
            for cell, v in zip(cells, vals):
                assert (cell == plain(v)) if isinstance(v, str) else (cell == "" if v is None else float(cell) == v), (head[col], cell, v)


def test_the_csv_button_downloads_what_is_drawn(tab, app_url):
    open_page(tab, f"{app_url}/relu?s=3&lang=zh")
    figs = {f["id"]: f for f in check_figures(tab, "zh")}
    name = content.text("zh", "shell")["fig.csv"]
    for fid in ("relu-scale", "relu-dead"):  # curves, then bars on two subplots
        button = tab.locator(f"[id='{fid}']").get_by_role("button", name=name)
        filename, rows = download(tab, button)
        assert filename == f"gelu-lab-{fid}.csv"
        check_csv(figs[fid], rows)
    tab.log.check()  # a Blob URL: nothing left 127.0.0.1


@pytest.mark.parametrize("lang", content.LANGS)
def test_the_offline_report_has_them_too(fresh_reports, browser, lang):  # noqa: F811
    info = fresh_reports[lang]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"file://{info['path']}")
        page.wait_for_function("document.body.getAttribute('data-figures') !== null")
        figs = check_figures(page, lang)
        assert len(figs) == info["figures"]
        check_buttons(figs, lang)
        # a category axis's bars, downloaded from a file:// page with no network at all
        fig = next(f for f in figs if f["x"]["type"] == "category" and any(t["bar"] for t in drawn(f)))
        page.evaluate("id => { const d = document.getElementById(id).closest('details'); if (d) d.open = true; }", fig["id"])  # a folded part
        filename, rows = download(page, page.locator(f"#{fig['id']} + .figure-data button"))
        assert filename == f"gelu-lab-{fig['id']}.csv"
        check_csv(fig, rows)
    finally:
        page.close()
