"""The Interview questions page in Chromium: loads clean in zh and en with every
question, each Check shows the figures computed independently here (mpmath, SciPy,
brute force), the quiz counts a scripted sequence of clicks, and a bad quiz value in
the URL is repaired with a note."""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from scipy import optimize, special

from app_browser import app_url, browser, check_basics, context, open_page, tab, text_of, wait_text  # noqa: F401
from gelu_lab.analysis import interview as iv
from gelu_lab.app.pages.interview.view import show
from gelu_lab.app import content

pytestmark = pytest.mark.xdist_group("app")


@pytest.fixture(scope="module", autouse=True)
def rendered_once():
    """Render the page once in this process (the test server runs here too): its first
    render fills the key-point caches, seconds of work that on a busy machine outlast
    a navigation's wait."""
    from gelu_lab.app import page_module, shell

    shell.render("/interview", "?lang=en", {"interview": page_module("interview")})


def pid(type_: str, q: str) -> str:
    """CSS selector of a pattern-matching component (Dash writes the id as sorted JSON)."""
    return "[id='" + json.dumps({"q": q, "type": f"interview-{type_}"}, sort_keys=True, separators=(",", ":")) + "']"


def visible(page, type_: str, q: str) -> bool:
    return page.locator(pid(type_, q)).is_visible()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_loads_clean_with_every_question(tab, app_url, lang):
    open_page(tab, f"{app_url}/interview?lang={lang}")
    check_basics(tab, "interview", lang)
    t = content.text(lang, "interview")
    titles = tab.locator("main section h2").all_inner_texts()
    assert len(iv.QUESTIONS) >= 12
    for i, qid in enumerate(iv.QUESTIONS, 1):
        assert f"{i}. {t[f'q.{qid}']}" in titles
        assert visible(tab, "answer", qid) and not visible(tab, "bar", qid)  # quiz off: answers shown
    # the answers quote the stated figures: e.g. the dip
    assert "\u22120.7518" in tab.inner_text("#interview-q-dip") and "\u22120.1700" in tab.inner_text("#interview-q-dip")  # typeset: U+2212
    assert tab.locator("button", has_text=t["check"]).count() == sum(1 for q in iv.QUESTIONS.values() if q.quantities)
    tab.log.check()


def _independent() -> dict:
    """Figures computed here without gelu_lab: mpmath, SciPy special functions, torch."""
    import torch

    grad = lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x)  # noqa: E731
    with mpmath.workdps(30):
        x0 = mpmath.findroot(grad, -0.75)
        mp_figures = {"grad2_0": float(mpmath.sqrt(2 / mpmath.pi)), "min_x": float(x0), "min_y": float(x0 * mpmath.ncdf(x0)),
                      "gap": float(-x0 * mpmath.ncdf(x0)), "gap_x": float(-x0), "gmax": float(grad(mpmath.sqrt(2))),
                      "true_m10": float(-10 * mpmath.ncdf(-10))}
    xg = np.linspace(0, 6, 60001)
    Phi = special.ndtr(xg)
    c_obj = lambda c: np.max(np.abs(0.5 * (1 + np.tanh(math.sqrt(2 / math.pi) * (xg + c * xg**3))) - Phi))  # noqa: E731
    c = optimize.minimize_scalar(c_obj, bounds=(0.03, 0.06), method="bounded", options={"xatol": 1e-10}).x
    return {
        "grad0": 0.5, **mp_figures, "c_gate": c, "c_series": 2 / (3 * math.pi) - 1 / 6, "naive_m10": 0.0,
        "torch_default": torch.nn.GELU().approximate, "sig_grad_max": 0.25, "p_dead": 0.5,
        # Hugging Face transformers' activations.py: gelu is the erf form, gelu_new and gelu_pytorch_tanh
        # the tanh form, quick_gelu x sigmoid(1.702 x)
        "hf_gelu": "gelu", "hf_gelu_new": "gelu_tanh", "hf_pytorch_tanh": "gelu_tanh", "hf_quick": "gelu_sigmoid",
        "torch_version": torch.__version__,
    }


def test_every_check_shows_the_computed_figures(tab, app_url):
    open_page(tab, f"{app_url}/interview?lang=en")
    t = content.text("en", "interview")
    truth = _independent()
    seen = set()
    for qid, q in iv.QUESTIONS.items():
        if not q.quantities:
            continue
        tab.click(pid("check", qid))
        tab.wait_for_selector(f"{pid('result', qid)} table", timeout=60_000)
        quick = iv.values(qid)  # the page's own cache; the slow figures are checked in test_interview.py
        for s in q.quantities:
            shown = text_of(tab, f"interview-v-{s.key}")
            if s.key in quick:
                assert shown == show(quick[s.key], s.fmt), (qid, s.key)
            else:
                assert shown and shown != "—", (qid, s.key)
            assert text_of(tab, f"interview-s-{s.key}") == (s.stated if s.stated is not None else "—")
            if s.key in truth:  # the figure against the independent value, and the stated one against it too
                assert shown == show(truth[s.key], s.fmt), (s.key, shown, truth[s.key])
                seen.add(s.key)
                if s.stated is not None:
                    ok = truth[s.key] == s.stated if isinstance(truth[s.key], str) else (
                        abs(truth[s.key] - float(s.stated)) <= 0.5 * 10.0 ** -len((s.stated + ".").split(".")[1]) + 1e-12)
                    assert text_of(tab, f"interview-ok-{s.key}") == (t["agree.yes"] if ok else t["agree.no"]), s.key
    assert seen == set(truth)
    tab.log.check()


def _score(page):
    return [text_of(page, i) for i in ("interview-knew-n", "interview-didnt-n", "interview-left-n")]


def test_quiz_counts_a_scripted_sequence(tab, app_url):
    n = len(iv.QUESTIONS)
    t = content.text("en", "interview")
    open_page(tab, f"{app_url}/interview?quiz=on&lang=en")
    assert all(not visible(tab, "answer", q) and visible(tab, "bar", q) for q in iv.QUESTIONS)
    assert _score(tab) == ["0", "0", str(n)]
    assert tab.locator(pid("knew", "grad0")).is_disabled()  # mark only after revealing
    tab.click(pid("reveal", "grad0"))
    tab.wait_for_selector(pid("answer", "grad0"), state="visible")
    assert not visible(tab, "answer", "dip")
    tab.click(pid("knew", "grad0"))
    assert wait_text(tab, "interview-knew-n", "1") == "1"
    tab.click(pid("reveal", "dip"))
    tab.wait_for_selector(f"{pid('didnt', 'dip')}:not([disabled])")
    tab.click(pid("reveal", "bf16"))
    tab.wait_for_selector(f"{pid('knew', 'bf16')}:not([disabled])")
    # three marks 4 ms apart, inside one round trip: the state comes from the click times,
    # so none is lost; bf16 changed its mind and counts once, as "didn't"
    tab.evaluate("""ids => ids.forEach((id, i) => setTimeout(() => document.getElementById(id).click(), 4 * i))""",
                 [json.dumps({"q": q, "type": f"interview-{a}"}, separators=(",", ":"))
                  for a, q in (("didnt", "dip"), ("knew", "bf16"), ("didnt", "bf16"))])
    assert wait_text(tab, "interview-didnt-n", "2") == "2"
    assert _score(tab) == ["1", "2", str(n - 3)]
    assert tab.inner_text(pid("mark", "bf16")).strip() == t["mark.didnt"]
    assert tab.inner_text(pid("mark", "grad0")).strip() == t["mark.knew"]
    # quiz off shows every answer and keeps the score; back on, the unrevealed hide again
    tab.click("#interview-quiz label:has-text('off')")
    tab.wait_for_selector(pid("answer", "silu"), state="visible")
    assert "quiz=off" in tab.url and not tab.locator("#interview-score").is_visible()
    tab.click("#interview-quiz label:has-text('on')")
    tab.wait_for_selector(pid("answer", "silu"), state="hidden")
    assert visible(tab, "answer", "dip") and _score(tab) == ["1", "2", str(n - 3)]
    tab.click("#interview-reset")
    assert wait_text(tab, "interview-left-n", str(n)) == str(n)
    assert _score(tab) == ["0", "0", str(n)]
    tab.wait_for_selector(pid("answer", "grad0"), state="hidden")
    assert tab.inner_text(pid("mark", "bf16")).strip() == ""
    tab.log.check()


def test_bad_quiz_value_in_the_url_is_repaired(tab, app_url):
    open_page(tab, f"{app_url}/interview?quiz=%3Cscript%3E&lang=en")
    assert "quiz" in text_of(tab, "url-notes")
    assert visible(tab, "answer", "why") and not visible(tab, "bar", "why")
    tab.log.check()
