"""The Playground page in Chromium: it loads clean in both languages; play, pause, one step,
reset and new weights do what they say; a URL with state gives the same run as the NumPy
twin (gelu_lab.analysis.playground); the exports download and reproduce the networks; ReLU
units die at a high learning rate and are marked; the phone layout stacks the networks."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from app_browser import app_url, browser, check_basics, context, open_page, page, tab, text_of  # noqa: F401
from gelu_lab.analysis import playground as pg
from gelu_lab.app import content, registry, state
from gelu_lab.app.pages.playground import page as mod
from test_playground import torch_logits

pytestmark = pytest.mark.xdist_group("app")
DEFAULT = {p.name: p.default for p in mod.PARAMS}
FRAMES = "n => new Promise(r => { const f = k => k ? requestAnimationFrame(() => f(k - 1)) : r(); f(n); })"


def url_of(app_url, values: dict, lang: str = "en") -> str:
    return f"{app_url}/playground" + state.encode({p.name: values[p.name] for p in mod.PARAMS}, lang)


def ready(tab, step: int = 0):
    """Wait until the script has a run at `step` (0: a new run) and return its state."""
    tab.wait_for_function("s => window.gelu_playground && gelu_playground.state() && gelu_playground.state().step === s", arg=step)
    return tab.evaluate("gelu_playground.state()")


def steps(tab, n: int):
    """Press "one step" n times (in one call: each press trains and redraws before the next)."""
    tab.evaluate("n => { for (let i = 0; i < n; i++) document.getElementById('playground-step').click(); }", n)


def weights(tab):
    return tab.evaluate("gelu_playground.exported().networks.map(n => n.layers.map(l => l.weight))")


@pytest.mark.parametrize("lang", content.LANGS)
def test_the_page_loads_clean_in_both_languages(tab, app_url, lang):
    open_page(tab, f"{app_url}/playground?lang={lang}")
    check_basics(tab, "playground", lang)
    s = ready(tab)
    assert s["cfg"] == mod.config(DEFAULT)[0]
    t = content.text(lang, "playground")
    assert text_of(tab, "playground-head-a") == content.fill(t["net.title"], which="A", act=content.label("gelu", lang))
    assert tab.locator("#playground-units-a canvas").count() == DEFAULT["layers"] * DEFAULT["units"]
    label = tab.get_attribute("#playground-view-a", "aria-label")  # the canvas's text alternative, written by the script
    assert content.label("gelu", lang) in label and "%" in label and "%act" not in label
    assert tab.get_attribute("#playground-readout", "aria-live") == "polite"
    tab.log.check()


def test_play_pause_step_reset_and_new_weights(tab, app_url):
    open_page(tab, f"{app_url}/playground?lang=en")
    ready(tab)
    w0 = weights(tab)
    assert w0[0] == w0[1]  # both networks start from the same weights
    tab.click("#playground-step")
    assert ready(tab, 1)["step"] == 1 and text_of(tab, "playground-r-step") == "1"
    assert weights(tab) != w0
    tab.click("#playground-play")
    tab.wait_for_function("gelu_playground.state().step >= 6")
    assert tab.get_attribute("#playground-readout", "aria-busy") == "true"  # no announcement per frame
    tab.click("#playground-pause")
    stopped = tab.evaluate("gelu_playground.state().step")
    tab.evaluate(FRAMES, 20)
    assert tab.evaluate("gelu_playground.state()")["step"] == stopped and not tab.evaluate("gelu_playground.state().playing")
    assert text_of(tab, "playground-r-step") == str(stopped) and tab.get_attribute("#playground-readout", "aria-busy") == "false"
    tab.focus("#playground-step")  # the keyboard: Enter on a focused button
    tab.keyboard.press("Enter")
    assert tab.evaluate("gelu_playground.state().step") == stopped + 1
    tab.click("#playground-reset")
    ready(tab)
    assert weights(tab) == w0 and text_of(tab, "playground-r-step") == "0"
    tab.click("#playground-new")
    tab.wait_for_function("gelu_playground.state().cfg.wseed === 2")
    assert "wseed=2" in tab.url and tab.input_value("#playground-wseed") == "2"
    assert ready(tab)["step"] == 0 and weights(tab) != w0
    tab.log.check()


def test_a_url_replays_the_numpy_run_step_for_step(tab, app_url):
    values = {**DEFAULT, "dataset": "spiral", "noise": 15, "split": 60, "features": ["x1", "x2", "sin1"], "layers": 2, "units": 5,
              "act_a": "gelu", "act_b": "relu", "lr": 0.1, "batch": 8, "l2": 0.001, "init": 1.2, "seed": 7, "wseed": 3}
    open_page(tab, url_of(app_url, values))
    assert ready(tab)["cfg"] == values
    steps(tab, 25)
    got = ready(tab, 25)
    ref = pg.train(values, 25)
    np.testing.assert_allclose([[e["train"], e["test"]] for e in got["eval"]], ref["losses"][-1], rtol=0, atol=1e-9)
    for net, layers in zip(weights(tab), ref["weights"]):
        for w, (W, _) in zip(net, layers):
            np.testing.assert_allclose(w, W, rtol=0, atol=1e-9)
    shown = float(f"{ref['losses'][-1][0][0]:.4g}")  # four significant figures, as the readout prints them
    assert text_of(tab, "playground-r-train-a") == f"{shown:g}"
    open_page(tab, url_of(app_url, values, "zh"))  # the same link in the other language: the same run
    steps(tab, 25)
    np.testing.assert_allclose([[e["train"], e["test"]] for e in ready(tab, 25)["eval"]], ref["losses"][-1], rtol=0, atol=1e-9)
    tab.log.check()


def test_a_changed_setting_is_in_the_url_and_restarts_the_run(tab, app_url):
    open_page(tab, f"{app_url}/playground?lang=en")
    ready(tab)
    steps(tab, 3)
    box = tab.locator("#playground-lr")
    box.fill("0.5")
    box.press("Enter")
    tab.wait_for_function("gelu_playground.state().cfg.lr === 0.5 && gelu_playground.state().step === 0")
    assert state.query_dict(tab.url.partition("?")[2])["lr"] == "0.5"
    box.fill("99")
    box.press("Enter")  # clamped to the range, and said
    tab.wait_for_function("gelu_playground.state().cfg.lr === 10")
    assert "99" in text_of(tab, "playground-msg")
    tab.log.check()


def test_exports_download_and_reproduce_the_networks(page, app_url, tmp_path):
    values = {**DEFAULT, "features": ["x1", "x2", "x1sq"], "units": 3, "act_a": "gelu_tanh", "act_b": "mish"}
    open_page(page, url_of(app_url, values))
    ready(page)
    steps(page, 10)
    ready(page, 10)
    with page.expect_download() as dl:
        page.click("#playground-export-json")
    path = tmp_path / "weights.json"
    dl.value.save_as(path)
    ex = json.loads(path.read_text(encoding="utf-8"))
    assert ex["step"] == 10 and ex["config"] == values and ex["features"] == ["x1", "x2", "x1sq"]
    assert [n["activation"] for n in ex["networks"]] == ["gelu_tanh", "mish"]
    X = pg.feature_matrix(np.array([p + [0] for p in ex["check"]["inputs"]], dtype=float), ex["features"])
    for k, net in enumerate(ex["networks"]):
        assert [np.shape(layer["weight"]) for layer in net["layers"]] == [(3, 3), (3, 3), (1, 3)]
        assert [len(layer["bias"]) for layer in net["layers"]] == [3, 3, 1]
        layers = [[np.array(layer["weight"]), np.array(layer["bias"])] for layer in net["layers"]]
        np.testing.assert_allclose(pg.logits(layers, net["activation"], X), [z[k] for z in ex["check"]["logits"]], rtol=0, atol=1e-12)
    with page.expect_download() as dl:
        page.click("#playground-export-torch")
    code = tmp_path / "gelu_lab_playground.py"
    dl.value.save_as(code)
    compile(code.read_text(encoding="utf-8"), str(code), "exec")
    page.log.check()
    np.testing.assert_allclose(torch_logits(code, ex["check"]["inputs"]), ex["check"]["logits"], rtol=0, atol=1e-12)


def test_relu_units_die_at_a_high_learning_rate_and_are_marked(tab, app_url):
    values = {**DEFAULT, "dataset": "xor", "units": 8, "lr": 3.0}
    open_page(tab, url_of(app_url, values))
    ready(tab)
    steps(tab, 100)
    got = ready(tab, 100)
    dead = pg.train(values, 100)["dead"]
    assert [e["dead"] for e in got["eval"]] == dead
    n_gelu, n_relu = (sum(map(sum, d)) for d in dead)
    assert n_gelu == 0 and n_relu >= 6
    assert text_of(tab, "playground-r-dead-b") == str(n_relu) and text_of(tab, "playground-r-dead-a") == "0"
    assert tab.locator("#playground-units-b .pg-unit.is-dead").count() == n_relu
    assert tab.locator("#playground-units-a .pg-unit.is-dead").count() == 0
    assert tab.locator("#playground-units-b .pg-dead:visible").count() == n_relu
    assert f": {n_relu} (" in tab.get_attribute("#playground-units-b", "aria-label")
    tab.log.check()


def test_the_phone_layout_stacks_the_networks(page, app_url):
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, f"{app_url}/playground?lang=zh")
    ready(page)
    a, b = (page.locator(f"#playground-view-{k}").bounding_box() for k in "ab")
    assert b["y"] >= a["y"] + a["height"]  # one above the other
    assert a["width"] > 250 and a["x"] >= 0 and a["x"] + a["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling
    page.log.check()


def test_the_overview_map_and_the_route_lead_to_the_page(tab, app_url):
    open_page(tab, f"{app_url}/?lang=en")
    link = tab.locator(".pagemap a[href='/playground?lang=en']")
    assert link.count() == 1 and link.inner_text() == content.text("en", "shell")["nav.playground"]
    open_page(tab, f"{app_url}/playground?lang=en")
    assert tab.get_attribute("#pager-prev", "href").startswith("/bert") and tab.get_attribute("#pager-next", "href").startswith("/demo")
    tab.log.check()


def test_junk_urls_and_random_actions_never_break_the_page(tab, app_url):
    """The app's fuzzer (tests/app_fuzz.py) on this page alone: junk in every setting of the URL,
    then random clicks (play, step, exports ...), junk typed into the boxes, keys on the sliders."""
    from app_browser import ServerLog
    from app_fuzz import Tally, _settle, act, goto, junk_query

    rng, tally, row = random.Random(23), Tally(), registry.by_route("/playground")
    tab.set_default_timeout(3_000)  # as fuzz_session: an action the page refuses (a disabled box) is skipped, not waited for
    with ServerLog() as log:
        for _ in range(2):
            goto(tab, app_url, "/playground" + junk_query(rng, mod.PARAMS), full=False)
            assert tab.locator("main h1").count() == 1
            for _ in range(8):
                act(tab, app_url, rng, [(row, mod)], tally)
            _settle(tab)
    tab.evaluate(FRAMES, 5)
    assert tally.errors == [] and log.records == [], tally.errors + log.records
    tab.log.check()
