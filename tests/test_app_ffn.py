"""The Transformer FFN page in Chromium: the live block, the shipped results, a background run."""

from __future__ import annotations

import json
import math
import statistics
from importlib import resources

import pytest

from app_browser import app_url, browser, check_basics, context, open_page, page, set_slider, text_of, wait_text  # noqa: F401
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
    page.log.check()


def test_stored_results_table_matches_the_shipped_file(page, app_url):
    open_page(page, f"{app_url}/ffn?lang=en")
    doc = shipped()
    assert doc["provenance"].get("train_commands")
    # the default experiment: the largest group at the smallest init; its final losses, averaged here
    runs = [r for r in doc["runs"] if r["config"]["fc_init_std"] == 0.02]
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
    assert doc["provenance"]["train_commands"][0] in page.inner_text("#ffn-prov")
    # charts: one val-loss line per activation; the sweep has each activation too
    n_lines = page.evaluate("document.querySelector('#ffn-loss .js-plotly-plot').data.filter(t => t.fill !== 'toself').length")
    assert n_lines == len(means)
    # the unit-statistic picker redraws the chart
    choose(page, "ffn-metric", "pre-activation std")
    page.wait_for_function("document.querySelector('#ffn-units .js-plotly-plot').layout.title.text.startsWith('pre-activation std')")
    page.log.check()


def test_background_run_progress_survives_reload(page, app_url, own_store):
    from gelu_lab.nn import train_job as jobs

    open_page(page, f"{app_url}/ffn?lang=en")
    assert text_of(page, "ffn-run-status") == content.text("en", "ffn")["run.idle"]
    choose(page, "ffn-run-preset", content.text("en", "ffn")["preset.tiny"])
    choose(page, "ffn-run-steps", "100")
    page.click("#ffn-run-go")
    page.wait_for_function("document.getElementById('ffn-run-status').innerText.startsWith('Started') || "
                           "document.getElementById('ffn-run-status').innerText.startsWith('Training')")
    page.reload()  # the job is a separate process: a reload finds it, running or done
    page.wait_for_selector("#ffn-run-status")
    st = text_of(page, "ffn-run-status")
    assert st.startswith("Training") or st.startswith("Done"), st
    page.wait_for_function("document.getElementById('ffn-run-status').innerText.startsWith('Done')", timeout=180_000)
    job = jobs.status(own_store)
    assert job["state"] == "done" and job["step"] == 100
    assert page.get_attribute("#ffn-run-progress", "value") == page.get_attribute("#ffn-run-progress", "max") == "100"
    # the finished run joins the experiments: its group appears, and a reload still says done
    page.reload()
    page.wait_for_selector("#ffn-run-status")
    assert text_of(page, "ffn-run-status").startswith("Done")
    page.click("#ffn-group")
    assert page.get_by_role("option").filter(has_text="your runs store").count() == 1
    page.log.check()


def test_chinese_page_and_bad_url_values(page, app_url):
    open_page(page, f"{app_url}/ffn?act=nope&sigma=abc&lang=zh")
    check_basics(page, "ffn", "zh")
    assert text_of(page, "ffn-r-std") == "0.160"  # both repaired to the defaults, and said so
    assert page.inner_text("#url-notes").strip()
    page.log.check()
