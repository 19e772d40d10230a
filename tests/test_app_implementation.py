"""The Implementation page in Chromium: the main idea (the forms in steps of each format) against
SciPy, error curves, constant sliders against a brute-force maximum, the fit button against
`gelu-lab fit`, the precision table against analysis.accuracy, the two background jobs (with
small plans), the framework table, and junk in the URL or the boxes (a message, never an HTTP 500).
The constants, the precision tables, the cost and the jobs are in folds (components.more): a
test opens a fold before it uses what the fold holds. Numbers show four figures; the tests
compare the full value on hover (components.full)."""

from __future__ import annotations

import re
import urllib.request

import numpy as np
import pytest
from scipy import special

from app_browser import own_store, app_url, browser, check_basics, context, open_page, set_slider, tab, text_of, wait_text  # noqa: F401
from app_folds import FULL, full_of, unfold
from gelu_lab.app import content

pytestmark = pytest.mark.xdist_group("app")
SQRT_2_OVER_PI = float(np.sqrt(2 / np.pi))
JOB_STATUS = "document.querySelector('#implementation-%s .job-status')"  # the status line of a job box (gelu_lab.app.job_box)


def job_status(page, key: str) -> str:
    return page.inner_text(f"#implementation-{key} .job-status").strip()


@pytest.fixture
def page(tab):
    """The shared tab (the app's JavaScript is parsed once), patient: fits and exhaustive
    16-bit tallies run on a shared two-core machine."""
    tab.set_default_timeout(60_000)
    return tab


def brute_max(f, a, b, n=2_000_001) -> float:
    """max |f(x) - x Phi(x)| on a dense grid (the grid's error at a smooth peak is O(h^2))."""
    x = np.linspace(a, b, n)
    return float(np.max(np.abs(f(x) - x * special.ndtr(x))))


def tanh_form(c, k=SQRT_2_OVER_PI):
    return lambda x: 0.5 * x * (1 + np.tanh(k * (x + c * x**3)))


def sigmoid_form(beta):
    return lambda x: x * special.expit(beta * x)


def close(text: str, want: float, rel: float = 2e-4) -> bool:
    return abs(float(text) - want) <= rel * abs(want)


def test_loads_with_located_maxima_and_framework_defaults(page, app_url):
    import torch

    open_page(page, f"{app_url}/implementation?lang=en")
    check_basics(page, "implementation", "en")
    # the located maxima of the two forms on the default [-4, 4]
    assert close(full_of(page, "implementation-e-gelu_tanh-max"), brute_max(tanh_form(0.044715), -4, 4))
    assert close(full_of(page, "implementation-e-gelu_sigmoid-max"), brute_max(sigmoid_form(1.702), -4, 4))
    # the error is even: the tanh form's maximum is a +- pair
    xs = [float(v) for v in text_of(page, "implementation-e-gelu_tanh-at").split()]
    assert len(xs) == 2 and abs(xs[0] + xs[1]) < 1e-3
    # torch's default, asked here as the page asks it
    assert text_of(page, "implementation-fw-torch") == f"approximate='{torch.nn.GELU().approximate}'"
    table = page.inner_text("#implementation-fw-table")
    for name in ("gelu_new", "gelu_pytorch_tanh", "quick_gelu", "jax.nn.gelu", "tf.nn.gelu", "keras.ops.gelu"):
        assert name in table
    # relative error, log scale: the figure follows
    page.click("#implementation-scale input[value=rel]")
    page.click("#implementation-log input[value=on]")
    page.wait_for_function("document.querySelector('#implementation-errors .js-plotly-plot').layout.yaxis.type === 'log'")
    assert "scale=rel" in page.url and "log=on" in page.url
    page.log.check()  # in Chinese: tests/test_app_pages.py


def steps_and_differ(f, dtype):
    """(largest error of form f on [-4, 4] in steps of `dtype` there, inputs of float16 it rounds differently than
    exact GELU): SciPy in float64 on a dense grid, the spacing from the format's 8 or 11 significant bits."""
    x = np.linspace(-4, 4, 2_000_001)
    e = np.abs(f(x) - x * special.ndtr(x))
    at = x[np.argmax(e)]
    y = at * special.ndtr(at)
    bits = {"bfloat16": 8, "float16": 11, "float32": 24}[dtype]
    steps = e.max() / 2.0 ** (np.floor(np.log2(abs(y))) - bits + 1)
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h)].astype(np.float64)
    with np.errstate(all="ignore"):  # NumPy rounds float64 to float16 once, to nearest
        differ = int(np.count_nonzero((h * special.ndtr(h)).astype(np.float16) != f(h).astype(np.float16)))
    return steps, differ


def test_the_main_idea_counts_each_form_in_steps_of_each_format(page, app_url):
    """The first table: the forms' largest error in steps of bfloat16, float16 and float32, and (float16)
    the inputs that round differently, against SciPy; the translators paragraph quotes the same numbers."""
    open_page(page, f"{app_url}/implementation?lang=en", full=True)  # the URL the shell routed last: load it afresh
    cells = lambda dt: [c.strip().replace(",", "") for c in page.inner_text(f"#implementation-gist-{dt}").split("\t")]
    for i, f in enumerate((tanh_form(0.044715), sigmoid_form(1.702))):
        for dt in ("bfloat16", "float16", "float32"):
            steps, differ = steps_and_differ(f, dt)
            row = cells(dt)
            assert close(row[1 + 2 * i], steps, 1e-3), (i, dt, row)
            if dt == "float16":
                assert int(row[2 + 2 * i]) == differ, (i, row)
    text = page.inner_text("#implementation-gist")
    assert cells("bfloat16")[1] in text and cells("float32")[1] in text and cells("bfloat16")[3] in text
    assert "faithful" in text and "paraphrase" in text
    page.log.check()


def test_constant_sliders_give_the_brute_force_max_error(page, app_url):
    open_page(page, f"{app_url}/implementation?lo=-3&hi=2&lang=en")
    unfold(page, "implementation-more-const")
    set_slider(page, "implementation-c", 0.05)
    want = brute_max(tanh_form(0.05), -3, 2)
    page.wait_for_function(f"Math.abs({FULL % 'implementation-k-tanh-max'} - {want}) < {2e-4 * want}")
    # the classic column stays at 0.044715
    assert close(full_of(page, "implementation-k-tanh-classic"), brute_max(tanh_form(0.044715), -3, 2))
    set_slider(page, "implementation-beta", 1.8)
    want = brute_max(sigmoid_form(1.8), -3, 2)
    page.wait_for_function(f"Math.abs({FULL % 'implementation-k-sigmoid-max'} - {want}) < {2e-4 * want}")
    assert "c=0.05" in page.url and "beta=1.8" in page.url
    page.log.check()


def cli_fit(form, a, b, norm, capsys) -> tuple[str, float]:
    """(fitted params, max error) as `gelu-lab fit` prints them."""
    from gelu_lab import cli

    capsys.readouterr()
    assert cli.main(["fit", "--form", form, "--interval", str(a), str(b), "--norm", norm]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("fitted"))
    params = " ".join(re.findall(r"\w+=[-0-9.eE+]+", row))
    return params, float(row.split()[-3])


def test_fit_button_reproduces_the_cli(page, app_url, capsys):
    # L2: the page passes the norm to the same fit as the CLI; minimax takes seconds per form
    open_page(page, f"{app_url}/implementation?lo=-3&hi=2&norm=l2&lang=en")
    unfold(page, "implementation-more-const")
    page.click("#implementation-fit-go")
    page.wait_for_selector("#implementation-fit-tanh")
    for form in ("tanh", "sigmoid"):
        params, max_error = cli_fit(form, -3, 2, "l2", capsys)
        names = [p.split("=")[0] for p in params.split()]  # the page's full values, printed as the CLI prints them
        assert " ".join(f"{k}={float(full_of(page, f'implementation-fit-{form}-{k}')):.10g}" for k in names) == params
        assert close(full_of(page, f"implementation-fit-{form}-max"), max_error)
        if form == "tanh":
            c = float(params.split("=")[1])
    # the sliders moved to the fitted c: the live readout is the fitted maximum
    want = brute_max(tanh_form(round(c, 6)), -3, 2)
    page.wait_for_function(f"Math.abs({FULL % 'implementation-k-tanh-max'} - {want}) < {2e-4 * want}")
    page.log.check()


def wrong_in(dtype, impl, a, b) -> int:
    """How many inputs of `dtype` in [a, b] `impl` gets wrong (±0 for ±0 not counted), by brute force:
    the value itself against the correctly rounded reference of its formula."""
    import torch
    import torch.nn.functional as F

    import gelu_lab
    from gelu_lab.floats import FORMATS
    from gelu_lab.reference import correctly_rounded
    from gelu_lab.torch import from_numpy, to_numpy

    x = np.arange(1 << 16, dtype=np.uint16).view(FORMATS[dtype].dtype)
    x = x[(x.astype(np.float64) >= a) & (x.astype(np.float64) <= b)]
    approx = "tanh" if impl.endswith("tanh") else "none"
    if impl.startswith("torch:"):
        got = to_numpy(F.gelu(from_numpy(x, torch.empty(0)), approximate=approx))
    else:
        got = gelu_lab.gelu(x, approx)
    want = correctly_rounded("gelu_tanh" if approx == "tanh" else "gelu", x)
    return int(np.sum(got.astype(np.float64) != want.astype(np.float64)))


def test_precision_table_is_the_exhaustive_tally(page, app_url):
    from gelu_lab.analysis import accuracy as acc
    from gelu_lab.app.pages.implementation import page as P

    open_page(page, f"{app_url}/implementation?dtype=float16&lang=en")
    unfold(page, "implementation-more-prec")
    for dtype in ("float16", "bfloat16"):
        if dtype == "bfloat16":
            page.click("#implementation-dtype input[value=bfloat16]")
            page.wait_for_function("document.querySelector('#implementation-ulp .js-plotly-plot').layout.title.text.endsWith('bfloat16')")
        for impl in P.IMPLS:
            s = acc.measure(impl, dtype, progress=False)  # all 65 536 inputs, against the correctly rounded reference
            i = impl.replace(":", "_")
            assert text_of(page, f"implementation-p-{i}-max") == str(s["max_ulp"]), (impl, dtype)
            assert text_of(page, f"implementation-p-{i}-wrong") == f"{100 * s['frac_wrong']:.3f}%"
            assert text_of(page, f"implementation-p-{i}-flush") == str(s["counts"]["flush"])
            assert text_of(page, f"implementation-p-{i}-over") == str(s["counts"]["overflow"])
        # the chart: a marker for each input in [-4, 4] that an implementation rounds wrongly
        drawn = page.evaluate("document.querySelector('#implementation-ulp .js-plotly-plot')._fullData.map(t => t._length)")
        assert drawn == [wrong_in(dtype, impl, -4, 4) for impl in P.IMPLS]
    page.log.check()


def test_background_jobs_survive_a_reload_and_their_results_are_read(page, app_url, own_store, monkeypatch):
    from gelu_lab.results import jobs, shipped
    from gelu_lab.analysis import accuracy as acc
    from gelu_lab.analysis import implementation as D
    from gelu_lab.results.store import Store

    # small plans, never the 2^32 sweep in a test: every float32 in [1, 1.125] (2^20 + 1 inputs, 9 chunks);
    # one size, one repeat of the bench
    monkeypatch.setattr(D, "F32_PLAN", {"mode": "range", "interval": (1.0, 1.125), "chunk_bits": 17})
    monkeypatch.setattr(D, "BENCH_ARGS", ["--sizes", "1e4", "--repeats", "1", "--threads", "1"])
    monkeypatch.setattr(D, "F32_SAMPLE", 1 << 12)  # the float32 rows shown until a run is stored
    ship = shipped.result
    monkeypatch.setattr(shipped, "result", lambda kind, key=None: None if kind == "bench" else ship(kind, key))  # as if nothing were shipped either
    open_page(page, f"{app_url}/implementation?dtype=float32&lang=en")
    unfold(page, "implementation-more-prec")
    unfold(page, "implementation-more-cost")
    t = content.text("en", "implementation")
    assert job_status(page, "acc") == t["job.acc.idle"]
    assert job_status(page, "bench") == t["job.bench.idle"]
    assert "sample of" in page.inner_text("#implementation-prec-table")  # nothing stored yet
    assert text_of(page, "implementation-cost-text") == t["cost.none"].replace("`", "")
    page.click("#implementation-acc .run-button")
    page.click("#implementation-bench .run-button")
    for key in ("acc", "bench"):
        page.wait_for_function(f"/^(Started|Running|Done)/.test({JOB_STATUS % key}.innerText)")
    # the jobs are separate processes: a fresh render of the page (what a reload asks the server for) finds them
    open_page(page, f"{app_url}/implementation?dtype=float32&lang=en&again=1")
    unfold(page, "implementation-more-prec")  # open already while its job runs; a job done: closed
    unfold(page, "implementation-more-cost")
    for key in ("acc", "bench"):
        page.wait_for_selector(f"#implementation-{key} .job-status")
        assert re.match(r"(Running|Done)", job_status(page, key)), job_status(page, key)
    for key in ("acc", "bench"):
        page.wait_for_function(f"{JOB_STATUS % key}.innerText.startsWith('Done')", timeout=120_000)

    # float32: progress full, and the row reads the stored run, whose numbers are those of the same measurement made here
    size = acc.plan("float32", "range", interval=(1.0, 1.125)).size  # 2^20 + 1: both ends count
    assert page.get_attribute("#implementation-acc progress", "value") == page.get_attribute("#implementation-acc progress", "max") == str(size)
    st = jobs.status(own_store, "accuracy-float32")
    assert st["state"] == "done" and st["progress"]["n"] == size
    page.wait_for_function("document.getElementById('implementation-prec-table').innerText.includes('stored run')")
    s = acc.measure("gelu", "float32", "range", interval=(1.0, 1.125), progress=False)
    assert text_of(page, "implementation-p-gelu-max") == str(s["max_ulp"])
    assert text_of(page, "implementation-p-gelu-wrong") == f"{100 * s['frac_wrong']:.3f}%"

    # bench: the chart is the stored run, bars per form and the copy roofline
    page.wait_for_function("document.querySelector('#implementation-cost .js-plotly-plot').data.length === 3")
    with Store(own_store) as store:
        _, rows = store.latest_result("bench", "rows")
    by_case = {r["case"]: r["gelem_s"] for r in rows}
    fig = page.evaluate("(() => { const g = document.querySelector('#implementation-cost .js-plotly-plot'); return {data: g.data.map(t => t.y), line: g.layout.shapes[0].y0}; })()")
    assert fig["line"] == pytest.approx(by_case["copy"])
    for form, ys in zip(("erf", "tanh", "sigmoid"), fig["data"]):
        assert ys == pytest.approx([by_case[f"{b}:{form}"] for b in D.BACKENDS])
    assert "--sizes 1e4" in text_of(page, "implementation-cost-text")
    page.log.check()


def test_junk_in_the_url_and_the_boxes_gives_a_message(page, app_url):
    t = content.text("en", "implementation")
    for q in ("lo=abc&hi=1e400&c=xyz&dtype=float64", "lo=1e400&hi=-1e400&beta=-5"):
        with urllib.request.urlopen(f"{app_url}/implementation?{q}") as r:
            assert r.status == 200
    open_page(page, f"{app_url}/implementation?lo=abc&hi=1e400&c=xyz&dtype=float64&lang=en")
    notes = text_of(page, "url-notes")
    assert "abc" in notes and "1e400" in notes and "float64" in notes
    default = full_of(page, "implementation-e-gelu_tanh-max")
    assert close(default, brute_max(tanh_form(0.044715), -4, 4))
    # a reversed interval is swapped, and said so
    open_page(page, f"{app_url}/implementation?lo=3&hi=-2&lang=en")
    assert text_of(page, "implementation-msg") == content.fill(t["msg.swapped"], a="-2", b="3")
    assert close(full_of(page, "implementation-e-gelu_sigmoid-max"), brute_max(sigmoid_form(1.702), -2, 3))
    # typed junk: an empty box and an equal pair leave the figures and say why
    box = page.locator("#implementation-lo")
    box.fill("-2")
    box.press("Enter")
    assert wait_text(page, "implementation-msg", content.fill(t["msg.empty_interval"], a="-2")) == content.fill(t["msg.empty_interval"], a="-2")
    box.fill("")
    box.press("Enter")
    empty = content.fill(content.text("en", "shell")["msg.empty"], name="lo", lo="-50", hi="50")
    assert wait_text(page, "implementation-msg", empty) == empty
    page.log.check()


def test_a_fresh_install_shows_the_shipped_float32_sweeps_and_bench(tmp_path, monkeypatch):
    """With an empty store the float32 rows are the shipped exhaustive runs (all 2^32 inputs),
    and gelu_lab's own row says what the library promises: correctly rounded everywhere."""
    from gelu_lab import results
    from gelu_lab.analysis import implementation as D

    monkeypatch.setenv("GELU_LAB_STORE", str(tmp_path / "empty.sqlite"))
    sums = D.summaries("float32")
    assert sums["gelu"][1] == sums["torch:gelu"][1] == "shipped"
    for s, src in sums.values():  # a row not shipped is a labelled sample, never empty
        assert (src, s["n"]) == ("shipped", 2**32) or (src == "sample" and 0.99 * D.F32_SAMPLE < s["n"] <= D.F32_SAMPLE)
    gelu = sums["gelu"][0]
    assert gelu["max_ulp"] == 0 and gelu["frac_wrong"] == 0 and gelu["worst"] is None
    assert sums["torch:gelu"][0]["max_ulp"] > 0  # torch's 1 + erf(x/sqrt2) cancels in the negative tail
    got = results.latest("bench", store=False)
    rows, machine = got.value["rows"], got.value["machine"]
    assert {"copy", "gelu_lab:erf", "torch:erf"} <= {r["case"] for r in rows} and machine["processor"]
    assert D.stored_bench()[1] is rows


def test_a_cancelled_job_says_so_with_the_command_that_resumes_it(page, app_url, own_store, monkeypatch):
    from gelu_lab.analysis import implementation as D
    from gelu_lab.results import jobs

    monkeypatch.setattr(D, "F32_PLAN", {"mode": "range", "interval": (1.0, 64.0), "chunk_bits": 16})  # long enough to stop
    open_page(page, f"{app_url}/implementation?dtype=float32&lang=en")
    unfold(page, "implementation-more-prec")
    assert page.locator("#implementation-acc .job-cancel").is_hidden()  # nothing runs: nothing to cancel
    page.click("#implementation-acc .run-button")
    page.locator("#implementation-acc .job-cancel").wait_for(state="visible")
    page.click("#implementation-acc .job-cancel")
    page.wait_for_function(f"{JOB_STATUS % 'acc'}.innerText.startsWith('Cancelled')")
    st = jobs.status(own_store, D.ACC_JOB)
    assert st["state"] == "interrupted" and st["cancelled"]
    assert page.inner_text("#implementation-acc .job-cmd") == st["resume"] == st["command"]  # run again, it resumes its stored run
    assert page.locator("#implementation-acc .job-cancel").is_hidden()
    page.log.check()
