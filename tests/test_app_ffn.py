"""The Transformer FFN page in Chromium: the live block, the shipped results, a background run.
The hidden-unit statistics, gradient norms, provenance and run control are in folds
(components.more): a test opens a fold before it uses what the fold holds."""

from __future__ import annotations

import json
import math
import statistics
from importlib import resources

import pytest

from app_browser import app_url, browser, check_basics, context, open_page, page, set_slider, text_of, wait_text  # noqa: F401
from app_folds import unfold
from gelu_lab.app import content

pytestmark = pytest.mark.xdist_group("app")


@pytest.fixture(scope="module", autouse=True)
def own_store(tmp_path_factory):
    """This module's runs store: the page reads $GELU_LAB_STORE on every request."""
    import os

    old = os.environ.get("GELU_LAB_STORE")
    os.environ["GELU_LAB_STORE"] = str(tmp_path_factory.mktemp("ffnstore") / "runs.sqlite")
    yield os.environ["GELU_LAB_STORE"]
    if old is None:
        del os.environ["GELU_LAB_STORE"]
    else:
        os.environ["GELU_LAB_STORE"] = old


@pytest.fixture(autouse=True)
def patient(page):
    page.set_default_timeout(60_000)  # six figures on a shared two-core machine


def choose(page, dropdown: str, label: str):
    """Pick the option `label` of Dash 4's dropdown `dropdown`."""
    page.click(f"#{dropdown}")
    page.get_by_role("option", name=label, exact=True).click()


STATUS = "#ffn-run .job-status"  # the run control's status line (a job box, gelu_lab.app.job_box)


def shipped():
    return json.loads(resources.files("gelu_lab").joinpath("data", "ffn_results.json").read_text())


def test_live_block_readouts(page, app_url):
    open_page(page, f"{app_url}/ffn?act=relu&sigma=1&lang=en")
    check_basics(page, "ffn", "en")
    # ReLU on symmetric Gaussian pre-activations: R^2 of the best line is 1/(2 - 2/pi), whatever the scale
    assert abs(float(text_of(page, "ffn-r-lin")) - 1 / (2 - 2 / math.pi)) < 0.01
    assert abs(float(text_of(page, "ffn-r-std")) - 1.0) < 0.03
    set_slider(page, "ffn-sigma", 0.05)
    assert wait_text(page, "ffn-r-std", "0.050") == "0.050"
    assert "sigma=0.05" in page.url
    # a gated FFN: ReLU's outputs are never negative; ReGLU's product relu(xW)·xV is, where the gate is open (half the
    # units) and xV < 0 (half of those): a quarter, for independent symmetric xW and xV
    assert text_of(page, "ffn-r-yneg") == "0.0%"
    choose(page, "ffn-act", "ReGLU")
    page.wait_for_function("document.querySelector('#ffn-w2in .js-plotly-plot').layout.title.text.includes('⊙')")
    assert 20 < float(text_of(page, "ffn-r-yneg").rstrip("%")) < 30 and "act=reglu" in page.url
    page.log.check()


def main_cell(doc):
    """The shipped experiment's main cell, found here from the file alone: the width and init
    at which seed 0 was trained at several rates; in it, each activation at the rate with its
    lowest final loss there (one not swept: the rate its runs use)."""
    sweep = {}
    for r in doc["runs"]:
        c = r["config"]
        if c["seed"] == 0:
            sweep.setdefault((c["preset"], c["n_embd"], c["fc_init_std"], c["activation"]), {})[c["lr"]] = r["final"]["val_loss_full"]
    swept = {k: v for k, v in sweep.items() if len(v) > 1}
    preset, width, fc, _ = next(iter(swept))
    lr = {k[3]: min(v, key=v.get) for k, v in swept.items() if k[:3] == (preset, width, fc)}
    cell = [r for r in doc["runs"] if (r["config"]["preset"], r["config"]["n_embd"], r["config"]["fc_init_std"]) == (preset, width, fc)]
    return [r for r in cell if r["config"]["lr"] == lr.get(r["config"]["activation"], r["config"]["lr"])], lr


def test_decision_opens_the_training_section(page, app_url):
    """GELU against ReLU, paired by seed, with the paired-t interval scipy gives for the shipped numbers."""
    from scipy import stats

    from gelu_lab.app.components import typeset
    from gelu_lab.app.pages.ffn.decision import nats

    open_page(page, f"{app_url}/ffn?lang=en")
    cell, lr = main_cell(shipped())
    final = {(r["config"]["activation"], r["config"]["seed"]): r["final"]["val_loss_full"] for r in cell}
    seeds = sorted(s for a, s in final if a == "gelu" and ("relu", s) in final)
    g, r = [final[("gelu", s)] for s in seeds], [final[("relu", s)] for s in seeds]
    ci = stats.ttest_rel(g, r).confidence_interval(0.95)
    mean = statistics.mean(g) - statistics.mean(r)
    said = page.inner_text("#ffn-decision")
    if ci.low > 0 or ci.high < 0:
        assert typeset(f"{nats(abs(mean))} ± {nats((ci.high - ci.low) / 2)} nats/char {'lower' if mean < 0 else 'higher'}") in said, said
        assert "larger than the seed-to-seed noise" in said
    else:
        assert typeset(f"{nats(mean)} nats/char, 95% interval [{nats(ci.low)}, {nats(ci.high)}]") in said and "within the seed-to-seed noise" in said, said
    assert f"{len(seeds)} seeds" in said
    # its place: the first thing of the training section, before the curves
    assert page.evaluate("() => { const s = document.querySelector('#ffn-results'); const d = s.querySelector('#ffn-decision'); "
                         "return !!d && !!(d.compareDocumentPosition(s.querySelector('#ffn-loss')) & Node.DOCUMENT_POSITION_FOLLOWING); }")
    acts = {a for a, _ in final}
    assert page.locator("#ffn-pairs-el tbody tr").count() == len(acts) - 1
    # the sweep: a line per swept activation, its chosen rate ringed; the trend: a line per init scale
    swept = page.evaluate("document.querySelector('#ffn-lr .js-plotly-plot').data.filter(t => t.mode === 'lines+markers').length")
    assert swept == len(lr)
    inits = {r["config"]["fc_init_std"] for r in shipped()["runs"] if r["config"]["preset"] == cell[0]["config"]["preset"]}
    assert page.evaluate("document.querySelector('#ffn-trend .js-plotly-plot').data.length") == len(inits)
    page.log.check()


def test_stored_results_table_matches_the_shipped_file(page, app_url):
    open_page(page, f"{app_url}/ffn?lang=en")
    doc = shipped()
    assert doc["provenance"].get("train_commands")
    # the default experiment: the learning-rate experiment's main cell; its final losses, averaged here
    runs, _ = main_cell(doc)
    by_act = {}
    for r in runs:
        by_act.setdefault(r["config"]["activation"], []).append(r["final"]["val_loss_full"])
    means = sorted((statistics.mean(v), a) for a, v in by_act.items())
    rows = page.locator("#ffn-table-el tbody tr")
    assert rows.count() == len(means)
    for i, (m, act) in enumerate(means):
        cells = rows.nth(i).locator("td")
        assert cells.nth(0).inner_text() == str(i + 1)
        assert cells.nth(3).inner_text().startswith(f"{m:.3f}")
    assert page.locator("#ffn-verdict").inner_text().strip()
    # the experiment's one command (its runs' own train commands are in the file), and its day
    unfold(page, "ffn-more-prov")
    prov = doc["provenance"]
    assert f"{prov['date'][:10]} · " in page.inner_text("#ffn-prov") and prov["date"] not in page.inner_text("#ffn-prov")
    assert (prov["command"] if "experiment" in prov else prov["train_commands"][0]) in page.inner_text("#ffn-prov")
    # charts: one val-loss line per activation; the sweep has each activation too
    n_lines = page.evaluate("document.querySelector('#ffn-loss .js-plotly-plot').data.filter(t => t.fill !== 'toself').length")
    assert n_lines == len(means)
    # the unit-statistic picker redraws the chart
    unfold(page, "ffn-more-units")
    choose(page, "ffn-metric", "pre-activation std")
    page.wait_for_function("document.querySelector('#ffn-units .js-plotly-plot').layout.title.text.startsWith('pre-activation std')")
    page.log.check()


def test_background_run_progress_survives_reload(page, app_url, own_store):
    from gelu_lab.nn import train_job as jobs

    open_page(page, f"{app_url}/ffn?lang=en")
    unfold(page, "ffn-more-run")
    assert page.inner_text(STATUS).strip() == content.text("en", "ffn")["run.idle"]
    choose(page, "ffn-run-preset", content.text("en", "ffn")["preset.tiny"])
    choose(page, "ffn-run-steps", "100")
    page.click("#ffn-run .run-button")
    page.wait_for_function(f"/^(Started|Running)/.test(document.querySelector('{STATUS}').innerText)")
    page.reload()  # the job is a separate process: a reload finds it, running (its fold open) or done
    page.wait_for_selector("#ffn-more-run")
    unfold(page, "ffn-more-run")
    page.wait_for_selector(STATUS)
    st = page.inner_text(STATUS)
    assert st.startswith("Running") or st.startswith("Done"), st
    page.wait_for_function(f"document.querySelector('{STATUS}').innerText.startsWith('Done')", timeout=180_000)
    job = jobs.status(own_store)
    assert job["state"] == "done" and job["step"] == 100
    assert page.get_attribute("#ffn-run progress", "value") == page.get_attribute("#ffn-run progress", "max") == "100"
    # the finished run joins the experiments: its group appears, and a reload still says done
    page.reload()
    page.wait_for_selector("#ffn-more-run")
    unfold(page, "ffn-more-run")
    assert page.inner_text(STATUS).startswith("Done")
    page.click("#ffn-group")
    assert page.get_by_role("option").filter(has_text="your runs store").count() == 1
    page.log.check()


def test_chinese_page_and_bad_url_values(page, app_url):
    open_page(page, f"{app_url}/ffn?act=nope&sigma=abc&lang=zh")
    check_basics(page, "ffn", "zh")
    assert text_of(page, "ffn-r-std") == "0.160"  # both repaired to the defaults, and said so
    assert page.inner_text("#url-notes").strip()
    page.log.check()


def test_an_interrupted_run_is_listed_with_the_command_that_resumes_it(page, app_url, own_store):
    import subprocess
    import sys

    # a run whose process ended before the run did (here: at once), as a killed `gelu-lab train` leaves it
    config = {"activation": "relu", "seed": 3, "preset": "quick", "steps": 600}
    run = subprocess.run([sys.executable, "-c", "import sys, json; from gelu_lab.results.store import Store; "
                          "print(Store(sys.argv[1]).start_run('train', 'relu/test', json.loads(sys.argv[2])))", own_store, json.dumps(config)],
                         check=True, capture_output=True, text=True).stdout.strip()
    open_page(page, f"{app_url}/ffn?lang=en")
    unfold(page, "ffn-more-run")
    t = content.text("en", "ffn")
    listed = page.inner_text("#ffn-unfinished")
    assert t["unfinished.h"] in listed
    what = content.fill(t["unfinished.what"], act="ReLU", preset=t["preset.quick"], seed="3", steps="600")  # in words: no registry names
    assert content.fill(t["unfinished.interrupted"], run=run, what=what, step="0", steps="600") in listed
    assert page.inner_text("#ffn-unfinished .job-cmd") == f"gelu-lab train --resume {run}"  # the reader's own store: no --store
    page.log.check()


def test_the_page_fits_a_1366_px_window(page, app_url):
    """The provenance command lines wrap inside their box: nothing is wider than the window."""
    page.set_viewport_size({"width": 1366, "height": 900})
    open_page(page, f"{app_url}/ffn?lang=en")
    for fold in page.evaluate("[...document.querySelectorAll('details.more')].map(d => d.id)"):  # everything laid out
        unfold(page, fold)
    assert page.locator(".prov-cmd").count() > 0 and page.locator(".prov-cmd").first.is_visible()
    wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], f"the page is {wide[0]} px wide in a {wide[1]} px window"
    page.log.check()


def test_the_verdict_under_the_table_names_activations_in_words():
    """The sentence under the results table says what gelu_lab.commands.run_words.verdict says (the CLI's),
    with the activations as the page calls them, not their registry names."""
    from gelu_lab.app.pages.ffn import decision as ffn_decision
    from gelu_lab.commands import run_words as W
    from gelu_lab.stats import runsets as S

    def run(act, seed, loss):
        return {"config": {"activation": act, "seed": seed}, "final": {"val_loss_full": loss}}

    # GELU and ReLU behind GELU-tanh in both seeds, but by differences too uneven for the paired interval to exclude 0
    close = S.compare_group([run("gelu_tanh", 0, 1.80), run("gelu_tanh", 1, 1.81), run("gelu", 0, 1.805), run("gelu", 1, 1.8105),
                             run("relu", 0, 1.806), run("relu", 1, 1.812), run("sigmoid", 0, 2.4), run("sigmoid", 1, 2.41)])
    one = S.compare_group([run("relu", 0, 1.9), run("gelu", 0, 2.0)])
    wins = S.compare_group([run("relu", 0, 1.9), run("relu", 1, 1.901), run("gelu", 0, 2.0), run("gelu", 1, 2.001)])
    zh, en = content.text("zh", "ffn"), content.text("en", "ffn")
    said = ffn_decision.rows_verdict(close, zh, "zh")
    assert said.startswith("损失最低的是 GELU（tanh 形式）") and "GELU（精确形式）、ReLU" in said and "Sigmoid" not in said  # ranked by mean: GELU 1.80775 < ReLU 1.809
    assert "每个种子上都领先" in said  # ahead of both in both seeds, paired
    assert not any(n in said for n in ("gelu_tanh", "gelu,", "relu"))
    for rows, cli in ((close, "within the seed-to-seed noise"), (one, "one seed"), (wins, "wins")):
        assert cli in W.verdict(rows) and cli in ffn_decision.rows_verdict(rows, en, "en")
    assert ffn_decision.rows_verdict([], zh, "zh") == ""
