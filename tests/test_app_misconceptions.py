"""The Misconceptions page in Chromium: one card per claim with the verdict check()
returns, said where its evidence came from, evidence numbers that agree with mpmath,
and a training claim that starts its run in the background, shows progress and is
checked again against the new run."""

from __future__ import annotations

import mpmath
import pytest

from app_browser import own_store, app_url, browser, check_basics, check_placed, context, open_page, page  # noqa: F401
from gelu_lab.analysis import claim_figures
from gelu_lab.analysis import claims as C
from gelu_lab.app import content
from gelu_lab.app.claim_words import words
from gelu_lab.app.components import sig, typeset
from gelu_lab.app.pages.misconceptions import view
from gelu_lab.figures import misconceptions as figs

pytestmark = [pytest.mark.xdist_group("app"), pytest.mark.usefixtures("own_store"), pytest.mark.mpmath_dps(40)]  # mpmath: see tests/conftest.py
BENCH = "tanh_much_faster"  # its evidence is a bench run: the reader's newest, else the shipped one


@pytest.fixture(autouse=True)
def patient(page):
    page.set_default_timeout(120_000)  # twelve checks on a shared two-core machine


def cards(page) -> dict[str, dict]:
    """{claim id: {claim, verdict (from the tag's class), label, note, numbers {name: text}, traces}} of every card."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('section.claim')].map(s => {
            const tag = s.querySelector('.verdict-tag'), plot = s.querySelector('.js-plotly-plot');
            return [s.dataset.claim, {
                claim: s.querySelector('h3').innerText.trim(),
                verdict: [...tag.classList].find(c => c.startsWith('verdict-') && c !== 'verdict-tag').slice(8),
                label: tag.innerText.trim(),
                note: s.querySelector('.evidence').innerText.trim(),
                source: s.querySelector('.evidence-source').innerText.trim(),
                // every evidence row by its key (nested rows too): its text, and the full value on hover
                numbers: Object.fromEntries([...s.querySelectorAll('tr[data-key]')].map(r => [r.dataset.key,
                    {text: r.cells[1].textContent.trim(), title: (r.cells[1].querySelector('.full-value') || {title: ''}).title}])),
                traces: plot && plot.data ? plot.data.length : 0,
                how: (s.querySelector('.how-cmd') || {innerText: ''}).innerText.trim(),
            }];
        }))"""
    )


def wait_checked(page):
    page.wait_for_function("document.querySelectorAll('section.claim').length > 0 && !document.querySelector('.verdict-checking')")


def test_every_card_shows_the_verdict_check_returns(page, app_url):
    open_page(page, f"{app_url}/misconceptions")  # Chinese, the default
    check_basics(page, "misconceptions", "zh")
    t = content.text("zh", "misconceptions")
    wait_checked(page)
    check_placed(page)  # again with every card's figure drawn (check_basics saw those drawn by then)
    got = cards(page)
    assert list(got) == list(C.CLAIMS)
    for cid, card in got.items():
        res = C.check(cid)  # this test's own (empty) store: measurements are the shipped ones
        said = words(res, "zh")
        assert card["claim"] == t[f"claim.{cid}"] == said["text"]
        assert card["verdict"] == res["verdict"], cid
        assert card["label"] == t[f"verdict.{res['verdict']}"]
        # a version or argument is shown as code; the prose around it typeset (a computed minus is U+2212)
        assert card["note"] == "".join(typeset(p) if i % 2 == 0 else p for i, p in enumerate(said["note"].split("`"))), cid
        assert card["source"] == said["source"], cid
    # a fresh install: the claims with shipped evidence have their verdict, labelled as shipped (date, CPU)
    shipped = C.check(BENCH)["provenance"]
    assert got[BENCH]["verdict"] == "depends" and got["relu_half_dead"]["verdict"] in ("true", "depends", "false")
    assert got[BENCH]["source"] == content.fill(t["source.shipped"], date=shipped["date"][:10], cpu=shipped["processor"])
    assert t["source.shipped"].split("{")[0] in got["relu_half_dead"]["source"]
    # evidence against independent ground truth: GELU's minimum is the root of Phi(x) + x phi(x)
    x0 = mpmath.findroot(lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x), -0.75)
    # (shown to 4 significant figures, the full value on hover)
    for cid, key, want in (("monotonic", "argmin", x0), ("monotonic", "min", x0 * mpmath.ncdf(x0)), ("values", "gelu(2)", 2 * mpmath.ncdf(2))):
        cell = got[cid]["numbers"][key]
        assert float(cell["title"]) == pytest.approx(float(want), abs=1e-12) and cell["text"] == sig(float(want)), (key, cell)
    # tanh vs erf throughput: one bar per measured pair, the ratios in the numbers by backend, and how to measure it here
    ratios = C.check(BENCH)["figures"]["ratios"]
    assert got[BENCH]["traces"] == 1 and "NumPy" in got[BENCH]["numbers"]["ratios"]["text"]
    assert got[BENCH]["numbers"]["numpy:tanh / numpy:erf"]["text"] == sig(ratios["numpy:tanh / numpy:erf"])
    assert got[BENCH]["how"] == C.BENCH_HOW
    # every tested claim with a figure draws it; an untested one says what to run
    for cid, card in got.items():
        if card["verdict"] != "untested" and cid not in ("torch_default_tanh", "jax_default_tanh"):
            assert card["traces"] >= 1, cid
    assert got["jax_default_tanh"]["verdict"] != "untested" or got["jax_default_tanh"]["how"].startswith("pip install jax")
    assert got["relu_half_dead"]["how"] == C.TRAIN_HOW
    page.log.check()


def test_a_training_claim_runs_its_training_and_is_checked_again(page, app_url, own_store, monkeypatch):
    from gelu_lab.app.pages.misconceptions import page as M
    from gelu_lab.results.store import Store

    monkeypatch.setattr(M, "RUN", {"preset": "tiny", "steps": 20, "fc_init_std": 0.02})  # seconds, not minutes
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the job inherits it: one torch thread is fastest on a busy machine
    # only this claim's card: the other eleven are the test above
    monkeypatch.setattr(C, "CLAIMS", {"relu_half_dead": C.CLAIMS["relu_half_dead"]})
    open_page(page, f"{app_url}/misconceptions?lang=en")
    check_basics(page, "misconceptions", "en")
    wait_checked(page)
    card = page.locator("section.claim[data-claim=relu_half_dead]")
    t = content.text("en", "misconceptions")
    assert card.locator(".evidence-source").inner_text().strip() == words(C.check("relu_half_dead"), "en")["source"]  # shipped
    assert card.locator("[role=status]").inner_text().strip() == t["run.idle"]
    card.locator("button.run-button").click()
    page.wait_for_function("s => s.innerText.startsWith('Done')", arg=card.locator("[role=status]").element_handle(), timeout=240_000)
    assert card.locator("progress").get_attribute("value") == card.locator("progress").get_attribute("max") == "20"
    # the finished run is in the store, and the card was checked again against it: the reader's run comes first
    with Store(own_store) as s:
        res = C.check("relu_half_dead", s)
    said = words(res, "en")
    assert res["source"] == "store" and res["verdict"] in ("true", "false") and len(res["figures"]["runs"]) == 1
    page.wait_for_function("([c, want]) => c.querySelector('.evidence-source').innerText.trim() === want",
                           arg=[card.element_handle(), said["source"]])
    assert "verdict-" + res["verdict"] in card.locator(".verdict-tag").get_attribute("class")
    assert card.locator(".evidence").inner_text().strip() == said["note"].replace("`", "")
    assert page.evaluate("c => c.querySelector('.js-plotly-plot').data[0].y.length", card.element_handle()) == 1  # one bar: the run
    page.log.check()


def test_card_figures_draw_what_they_are_given():
    fig = figs.curves_figure([1, 2, 3], [("a", [4, 5, 6], "gelu"), ("b", [7, 8, 9], "relu")], {"title": "T", "x": "X", "y": "Y"},
                             points=[(2, 5, "p")], threshold=(0.5, "half"), log_y=True)
    assert [tr.name for tr in fig.data[:2]] == ["a", "b"] and list(fig.data[1].y) == [7, 8, 9]
    assert list(fig.data[2].x) == [2] and list(fig.data[2].text) == ["p"]
    assert fig.layout.shapes[0].y0 == fig.layout.shapes[0].y1 == 0.5 and fig.layout.shapes[0].label.text == "half"
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis.type == "linear" and fig.layout.xaxis.title.text == "X"
    bars = figs.bars_figure(["u", "v"], [1.25, 2.0], {"title": "T", "y": "Y"}, threshold=(1.5, "1.5x"))
    assert list(bars.data[0].x) == ["u", "v"] and list(bars.data[0].y) == [1.25, 2.0] and bars.layout.shapes[0].y0 == 1.5
    assert figs.placeholder_figure("nothing yet").layout.annotations[0].text == "nothing yet"
    note = figs.placeholder_figure("word " * 30).layout.annotations[0]  # 150 characters: wrapped, centred in the frame, no arrow
    assert (note.xref, note.yref, note.x, note.y, note.showarrow) == ("paper", "paper", 0.5, 0.5, False)
    assert note.text.replace("<br>", " ") == ("word " * 30).strip() and all(len(line) <= 60 for line in note.text.split("<br>"))


def test_each_claim_draws_its_evidence():
    """A claim's record names its drawing (analysis.claim_figures); the page's view puts the words in."""
    t = content.text("en", "misconceptions")
    draw = lambda cid, f: view.figure(C.drawing({"id": cid, "verdict": "true", "figures": f}), "en", t)  # noqa: E731
    names = {n: content.label(n, "en") for n in claim_figures.QUICK}
    ratios = {"numpy:tanh / numpy:erf": 2.0, "torch:tanh:fwd+bwd / torch:erf:fwd+bwd": 0.5}
    speed = draw(BENCH, {"ratios": ratios, "threshold": 1.5})
    # a bar is named by its backend (and pass) in the page's words, as the page hands them; the axis says tanh / erf
    assert list(speed.data[0].x) == ["NumPy", content.fill(t["backend.pass"], name="PyTorch")] and list(speed.data[0].y) == [2.0, 0.5] and speed.layout.shapes[0].y0 == 1.5
    assert draw("jax_default_tanh", {}) is None and draw("torch_default_tanh", {}) is None
    res = C.check("quick_gelu_is_silu")
    quick = draw(res["id"], res["figures"])
    assert [tr.name for tr in quick.data] == [names[n] for n in claim_figures.QUICK]
