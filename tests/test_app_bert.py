"""The Real BERT page in Chromium: stored probe results, the drift chart, the sentence box."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from app_browser import own_store, app_url, browser, check_basics, context, open_page, page, text_of  # noqa: F401
from gelu_lab import activations
from gelu_lab.app import content
from gelu_lab.app.components import sig

pytestmark = [pytest.mark.xdist_group("app"), pytest.mark.usefixtures("own_store")]


def shipped():
    return json.loads(resources.files("gelu_lab").joinpath("data", "bert_probe.json").read_text())


@pytest.fixture(autouse=True)
def patient(page):
    page.set_default_timeout(90_000)  # the sentence box loads the model on a shared two-core machine


def test_shipped_results_without_a_store(page, app_url):
    res = shipped()["result"]
    open_page(page, f"{app_url}/bert?lang=en")
    check_basics(page, "bert", "en")
    t = content.text("en", "bert")
    assert t["src.shipped"] in page.text_content("#bert-provenance")  # folded into "technical details"
    assert f"{res['tokens']:,} tokens" in page.inner_text("main")
    # one stats row per layer, the layer means as stored
    rows = page.locator("#bert-stats tbody tr")
    assert rows.count() == len(res["layers"]) == 6
    for i, L in enumerate(res["layers"]):
        assert rows.nth(i).locator("td").nth(1).inner_text().strip() == f"{L['mean']:.3f}"
    relu = next(w for w in res["swaps"] if w["activation"] == "relu" and w["layer"] == "all")
    # the table shows 1 - cosine to 4 figures, the full value on hover
    gap = page.locator("#bert-swap-relu td").nth(1).locator(".full-value")
    assert gap.inner_text().strip() == sig(1 - relu["cos_mean"]) and float(gap.get_attribute("title")) == pytest.approx(1 - relu["cos_mean"], abs=1e-15)
    page.log.check()


def test_stored_run_wins_and_metric_comes_from_the_url(page, app_url, own_store):
    from gelu_lab.results.store import Store

    doc = shipped()
    res = copy.deepcopy(doc["result"])
    res["tokens"] = 424242  # a value no shipped set has
    res["layers"][0]["mean"] = -0.123456
    with Store(own_store) as s:
        rid = s.start_run("probe", "test", {}, command="gelu-lab probe --test-marker")
        s.put_result(rid, "probe", res)
        s.set_status(rid, "done")
    open_page(page, f"{app_url}/bert?lang=en&metric=nn_top1")
    assert "424,242 tokens" in page.inner_text("main")
    assert "--test-marker" in page.text_content("#bert-provenance")
    assert page.locator("#bert-stats tbody tr").nth(0).locator("td").nth(1).inner_text().strip() == "-0.123"
    # the drift chart plots 1 - nn_top1 for ReLU's "all layers" point
    relu = next(w for w in res["swaps"] if w["activation"] == "relu" and w["layer"] == "all")
    pts = page.evaluate("() => document.getElementById('bert-drift').querySelector('.js-plotly-plot').data"
                        ".filter(tr => tr.mode === 'markers').map(tr => [tr.name, tr.x[0], tr.y[0]])")
    got = {name: (x, y) for name, x, y in pts}[content.label("relu", "en")]
    assert got[0] == content.text("en", "bert")["drift.all"] and got[1] == pytest.approx(1 - relu["nn_top1"])
    page.log.check()


def test_sentence_box_bad_input_and_a_sentence(page, app_url):
    t = content.text("en", "bert")
    open_page(page, f"{app_url}/bert?lang=en")
    page.click("#bert-go")
    page.wait_for_function("t => document.getElementById('bert-msg').innerText.trim() === t", arg=t["box.empty"])
    page.fill("#bert-sentence", "x" * 100000)
    page.press("#bert-sentence", "Enter")
    want = content.fill(t["box.long"], n=sig(100000), limit=sig(2000))
    page.wait_for_function("t => document.getElementById('bert-msg').innerText.trim() === t", arg=want)
    page.fill("#bert-sentence", "The quality of mercy is not strained.")
    page.press("#bert-sentence", "Enter")
    page.wait_for_selector("#bert-neighbours", timeout=240_000)
    assert text_of(page, "bert-msg") == ""
    assert text_of(page, "bert-tokens").startswith(content.fill(t["box.tokens"], tokens="[CLS] the quality of mercy"))
    assert page.locator("#bert-neighbours tbody tr").count() == 5  # GELU and the four swaps
    assert page.locator("#bert-nn-gelu li").count() == 3
    page.log.check()
