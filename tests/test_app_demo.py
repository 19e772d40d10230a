"""The Python demo page in Chromium: its table is `gelu-lab table` (json, csv, text),
its values agree with mpmath, its code runs and prints the same table, and bad x
lists give a one-line message, never an HTTP error. The seed demo is shown as its
file with its notes (both languages), and its left-tail numbers agree with mpmath."""

from __future__ import annotations

import contextlib
import io
import json

import mpmath
import numpy as np
import pytest

from app_browser import app_url, browser, check_basics, context, open_page, tab, text_of  # noqa: F401
from gelu_lab import cli
from gelu_lab.analysis import demo_table as T
from gelu_lab.app import content
from gelu_lab.app.components import sig, typeset
from gelu_lab.figures.demo import ERRORS, VALUES, table_figure, tail_figure

pytestmark = [pytest.mark.xdist_group("app"), pytest.mark.mpmath_dps(40)]  # mpmath: the precision of its oracles, test by test (tests/conftest.py)
COLUMNS = ["x", "gelu", "gelu_tanh", "tanh_abs_err", "gelu_sigmoid", "sigmoid_abs_err", "relu"]


def run_cli(capsys, *args) -> str:
    assert cli.main(["table", *args]) == 0
    return capsys.readouterr().out


def page_cells(page, table: str = "demo-table-el") -> tuple[list[str], list[list[str]], list[list[str]]]:
    """(header, shown texts, full values from the hover titles) of one of the page's tables."""
    head = page.eval_on_selector_all(f"#{table} thead th", "els => els.map(e => e.innerText.trim())")
    shown = page.eval_on_selector_all(f"#{table} tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))")
    full = page.eval_on_selector_all(f"#{table} tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.querySelector('[title]').title))")
    return head, shown, full


def submit(page, text: str):
    box = page.locator("#demo-x")
    box.fill(text)
    box.press("Enter")


def wait_message(page, expected: str) -> str:
    try:
        page.wait_for_function("t => document.getElementById('demo-msg').innerText.trim() === t", arg=expected, timeout=15_000)
    except Exception:
        pass
    return text_of(page, "demo-msg")


def mp_round(v: mpmath.mpf, dtype) -> float:
    """Nearest value of dtype to v (ties can't occur for these x)."""
    f = np.dtype(dtype).type(float(v))
    cands = [np.nextafter(f, np.dtype(dtype).type(-np.inf)), f, np.nextafter(f, np.dtype(dtype).type(np.inf))]
    return float(min(cands, key=lambda c: abs(mpmath.mpf(float(c)) - v)))


def test_table_is_the_cli_json_and_agrees_with_mpmath(tab, app_url, capsys):
    xs = "-3,-0.5,0.1,1e-8,2.5,7"
    open_page(tab, f"{app_url}/demo?x={xs}&dtype=float32&lang=en")
    check_basics(tab, "demo", "en")
    doc = json.loads(run_cli(capsys, "--x", xs, "--dtype", "float32", "--format", "json"))
    head, shown, full = page_cells(tab)
    t = content.text("en", "demo")
    assert doc["columns"] == COLUMNS and head == [t[f"col.{c}"] for c in COLUMNS] and len(shown) == len(doc["rows"]) == 6
    for row, texts, titles in zip(doc["rows"], shown, full):
        assert titles == [repr(float(row[c])) for c in COLUMNS]  # every digit, as the CLI's json has it
        assert texts == [sig(float(row[c])) for c in COLUMNS]  # about 4 significant figures shown
    # ground truth: the exact product x*Phi(x) and the two approximations in mpmath, at the float32 x
    for texts, titles in zip(shown, full):
        with mpmath.workprec(120):
            x = mpmath.mpf(float(titles[0]))
            exact = x * mpmath.ncdf(x)
            tanh = x / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x**3)))
            sgm = x / (1 + mpmath.exp(-mpmath.mpf("1.702") * x))
        assert float(titles[1]) == mp_round(exact, np.float32)  # gelu_lab's float32 GELU is correctly rounded
        assert abs(float(titles[2]) - float(tanh)) <= 0.5 * float(np.spacing(np.float32(abs(float(tanh))))) * 1.001
        assert abs(float(titles[4]) - float(sgm)) <= 0.5 * float(np.spacing(np.float32(abs(float(sgm))))) * 1.001
        assert float(titles[6]) == max(float(x), 0.0)
    tab.log.check()


def test_typing_and_dtype_move_table_url_and_code(tab, app_url, capsys):
    open_page(tab, f"{app_url}/demo?lang=en")
    submit(tab, "-2; 0.1, 3")
    tab.wait_for_function("document.querySelectorAll('#demo-table-el tbody tr').length === 3")
    tab.click("#demo-dtype")
    tab.get_by_role("option", name="bfloat16", exact=True).click()
    tab.wait_for_function("document.getElementById('demo-cli').innerText.includes('bfloat16')")
    assert "dtype=bfloat16" in tab.url and "x=-2;" in tab.url.replace("%3B", ";")
    _, shown, full = page_cells(tab)
    # bfloat16 keeps 8 significant bits: 0.1 is stored as 0.10009765625
    assert full[1][0] == repr(0.10009765625)
    doc = json.loads(run_cli(capsys, "--x", "-2,0.1,3", "--dtype", "bfloat16", "--format", "json"))
    assert full == [[repr(float(r[c])) for c in COLUMNS] for r in doc["rows"]]
    assert text_of(tab, "demo-cli") == 'gelu-lab table --x="-2.0,0.1,3.0" --dtype bfloat16'
    tab.log.check()


def test_csv_download_is_the_cli_csv(tab, app_url, capsys):
    xs = "-4,-1.5,0,0.25,60000,1e5"
    open_page(tab, f"{app_url}/demo?x={xs}&dtype=float16&lang=en")
    # 1e5 is beyond float16's 65504: stored as inf, and the page says so
    assert "x = 100000" in text_of(tab, "demo-msg") and "inf" in text_of(tab, "demo-msg")
    with tab.expect_download() as dl:
        tab.click("#demo-csv-go")
    assert dl.value.suggested_filename == "gelu-table-float16.csv"
    got = open(dl.value.path(), encoding="utf-8").read()
    assert got == run_cli(capsys, "--x", xs, "--dtype", "float16", "--format", "csv")
    assert got.splitlines()[0] == ",".join(COLUMNS) and len(got.splitlines()) == 7
    tab.log.check()


def test_copied_code_prints_the_table(tab, app_url, context, capsys):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    open_page(tab, f"{app_url}/demo?x=-1,0.5,2&dtype=float32&lang=en")
    tab.click("#demo-snippet-box .copy")
    code = tab.evaluate("navigator.clipboard.readText()")
    assert code.strip() == text_of(tab, "demo-snippet")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):  # the page's own snippet, run as a reader would run it
        exec(compile(code, "<copied from /demo>", "exec"), {})
    out = buf.getvalue()
    assert out == run_cli(capsys, "--x", "-1,0.5,2", "--dtype", "float32")
    # the implementing functions are shown as their source
    from gelu_lab.analysis import demo_table as table

    from gelu_lab.app import source_code

    tab.click("summary:has-text('gelu_lab.analysis.demo_table.comparison_table')")
    shown = text_of(tab, "demo-src-0")
    assert "def comparison_table(" in shown and shown == source_code.bare(table.comparison_table).strip()
    # the code as written, its docstring and comments left out (the caption above it says what it does)
    file = open(table.__file__, encoding="utf-8").read()
    assert all(line in file for line in shown.splitlines()) and '"""' not in shown and "#" not in shown
    tab.log.check()


BAD = [  # (typed text, message key, fill-ins)
    ("", "empty", {}),
    ("1, abc, 2", "not_number", {"raw": "abc"}),
    ("10^400", "not_number", {"raw": "10^400"}),
    ("1e400", "overflow", {"raw": "1e400", "max": f"{np.finfo(np.float64).max:.4g}"}),
    ("0, nan", "non_finite", {"raw": "nan"}),
    ("-inf", "non_finite", {"raw": "-inf"}),
    (",".join(["0.5"] * 10_000), "too_many", {"n": "10000", "max": "100"}),
]


def test_bad_lists_give_a_message_and_keep_the_table(tab, app_url):
    open_page(tab, f"{app_url}/demo?x=1,2&lang=en")
    t = content.text("en", "demo")
    before = page_cells(tab)
    for text, key, args in BAD:
        submit(tab, text)
        expected = content.fill(t[f"msg.{key}"], **args)
        assert wait_message(tab, expected) == expected, text[:20]
        assert page_cells(tab) == before
        submit(tab, "1,2")  # a good list between the bad ones clears the message
        assert wait_message(tab, "") == ""
    tab.log.check()


def test_bad_url_in_chinese_shows_the_default_table(tab, app_url, capsys):
    open_page(tab, f"{app_url}/demo?x=abc&dtype=float8&lang=zh")
    check_basics(tab, "demo", "zh")
    t = content.text("zh", "demo")
    assert content.fill(t["msg.not_number"], raw="abc") in text_of(tab, "demo-msg")
    assert "dtype" in tab.inner_text("#url-notes")  # the unknown dtype was repaired, and said so
    doc = json.loads(run_cli(capsys, "--format", "json"))  # the default x list, float64
    assert page_cells(tab)[2] == [[repr(float(r[c])) for c in COLUMNS] for r in doc["rows"]]
    tab.log.check()


def test_table_figure_draws_the_rows_in_x_order_with_gaps():
    rows = [  # hand-made rows: the figure arranges what it is given
        {"x": 1.0, "gelu": 0.8, "gelu_tanh": 0.7, "tanh_abs_err": 0.1, "gelu_sigmoid": 0.6, "sigmoid_abs_err": 0.2, "relu": 1.0},
        {"x": -1.0, "gelu": -0.2, "gelu_tanh": -0.3, "tanh_abs_err": 0.1, "gelu_sigmoid": -0.4, "sigmoid_abs_err": 0.2, "relu": 0.0},
        {"x": 0.0, "gelu": 0.0, "gelu_tanh": 0.0, "tanh_abs_err": 0.0, "gelu_sigmoid": 0.0, "sigmoid_abs_err": 0.0, "relu": 0.0},
        {"x": float("inf"), "gelu": float("inf"), "gelu_tanh": float("inf"), "tanh_abs_err": float("nan"),
         "gelu_sigmoid": float("inf"), "sigmoid_abs_err": 0.0, "relu": float("inf")},
    ]
    labels = {k: f"<{k}>" for k in ("title", "x", "y", "err", *VALUES, *(c for c, _ in ERRORS))}
    fig = table_figure(rows, labels)
    assert [tr.name for tr in fig.data] == [f"<{c}>" for c in VALUES] + [f"<{c}>" for c, _ in ERRORS]
    assert list(fig.data[0].x) == [-1.0, 0.0, 1.0, None]  # sorted; inf is not drawn
    assert list(fig.data[0].y) == [-0.2, 0.0, 0.8, None]
    assert list(fig.data[4].y) == [0.1, None, 0.1, None]  # a zero error has no place on the log axis
    assert fig.layout.yaxis2.type == "log" and fig.layout.title.text == "<title>"


def mp_gelu(x: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        t = mpmath.mpf(x)
        return t * mpmath.ncdf(t)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_seed_demo_is_shown_as_its_file_with_its_notes(tab, app_url, lang):
    from gelu_lab.analysis import seed_demo

    open_page(tab, f"{app_url}/demo?lang={lang}")
    check_basics(tab, "demo", lang)
    t = content.text(lang, "demo")
    source = open(seed_demo.__file__, encoding="utf-8").read()
    assert text_of(tab, "demo-seed") == source.strip()  # the file the tests run, as it is
    notes = tab.eval_on_selector_all("#demo-seed-notes ol > li", "els => els.map(e => e.innerText.trim())")
    assert len(notes) == 5 and all(f"# ({i})" in source for i in range(1, 6))  # one note per numbered line
    assert notes[0] and notes == [line.split(". ", 1)[1] for line in t["seed.notes"].splitlines()]
    # table headers are the content file's words, not the CLI's column keys
    head = page_cells(tab)[0]
    assert head == [t[f"col.{c}"] for c in COLUMNS]
    if lang == "zh":  # the prose and tables name no code identifiers (the code blocks are code)
        prose = tab.evaluate("() => { const m = document.querySelector('main').cloneNode(true);"
                             " m.querySelectorAll('pre, code, .js-plotly-plot').forEach(e => e.remove()); return m.textContent; }")
        assert "示例脚本" in prose and "种子示例" not in prose and "相对误差" in prose  # "种子" is the random seed
        for raw in ("gelu_exact", "gelu_tanh", "abs_err", "rel_err", "relu", "seed", "true"):
            assert raw not in prose, raw
    tab.log.check()


def test_tail_numbers_agree_with_mpmath(tab, app_url):
    open_page(tab, f"{app_url}/demo?lang=en")
    t = content.text("en", "demo")
    head, shown, full = page_cells(tab, "demo-tail-el")
    assert head == [t[f"tcol.{c}"] for c in T.TAIL_COLUMNS] and len(full) == len(T.TAIL_X)
    for texts, titles in zip(shown, full):
        x, seed, ours, true, seed_rel, ours_rel = map(float, titles)
        exact = mp_gelu(x)
        assert true == float(exact)  # the reference column is x*Phi(x) correctly rounded (mpmath rounds to nearest)
        assert abs(ours - true) <= 2 * float(np.spacing(abs(true)))  # gelu_lab: within 2 ulp
        assert ours_rel == pytest.approx(100 * float(abs(mpmath.mpf(ours) - exact) / abs(exact)), abs=1e-12)
        assert seed_rel == pytest.approx(100 * float(abs(mpmath.mpf(seed) - exact) / abs(exact)), rel=1e-9)
        assert texts[4] == f"{sig(seed_rel)}%" and texts[0] == sig(x)
    # the seed demo gets 100 % wrong at the tail's far end: it returns 0
    assert float(full[-1][1]) == 0 and float(full[-1][4]) == 100
    # the edges the text names are the library's, at 4 significant figures
    page = tab.inner_text("main")
    assert f"x = {typeset(sig(T.seed_zero_edge()))}" in page and f"x = {typeset(sig(T.seed_rel_edge(1e-6)))}" in page  # running text: U+2212
    tab.log.check()


def test_tail_figure_leaves_gaps_at_the_seed_zeros():
    curve = {"x": [-9.0, -8.0, -7.0], "seed": [0.0, 4.9e-15, 9e-12], "gelu_lab": [1e-18, 5e-15, 9e-12], "rel": [1.0, 0.02, 0.0]}
    labels = {k: f"<{k}>" for k in ("title", "x", "y", "err", "seed", "gelu_lab")}
    fig = tail_figure(curve, -8.37, -6.56, 1e-6, labels)
    assert [tr.name for tr in fig.data] == ["<gelu_lab>", "<seed>", "<err>"]
    assert list(fig.data[1].y) == [None, 4.9e-15, 9e-12]  # a zero has no place on the log axis
    assert list(fig.data[2].y) == [1.0, 0.02, None]
    assert sorted(s.y0 for s in fig.layout.shapes if s.xref == "x2" and s.yref == "y2") == [1e-6, 1.0]
    assert sorted(s.x0 for s in fig.layout.shapes if s.yref == "paper") == [-8.37, -6.56]
