"""The "more detail" folds (components.more) of the Implementation and FFN pages, in Chromium: the
page first shows its main idea with every fold closed; a fold opens with a click and with the
keyboard (Enter on its summary, which shows a disclosure marker and a focus ring); what it holds
then works: its figure takes the width of the page, its controls update it."""

from __future__ import annotations

import pytest

from app_browser import app_url, browser, context, open_page, tab  # noqa: F401
from app_folds import unfold
from gelu_lab.app import content

pytestmark = pytest.mark.xdist_group("app")

FOLDS = {
    "implementation": ["implementation-more-const", "implementation-more-frameworks", "implementation-more-prec", "implementation-more-cost", "implementation-more-custom"],
    "ffn": ["ffn-more-units", "ffn-more-grad", "ffn-more-prov", "ffn-more-run"],
}
OPEN, CLOSED = "id => document.getElementById(id).open", "id => !document.getElementById(id).open"


@pytest.fixture
def page(tab):
    tab.set_default_timeout(60_000)  # exhaustive 16-bit tallies on a shared two-core machine
    return tab


@pytest.mark.parametrize("slug", list(FOLDS))
def test_folds_start_closed_and_open_with_a_click_and_with_enter(page, app_url, slug):
    open_page(page, f"{app_url}/{slug}?lang=zh")
    folds = page.evaluate("[...document.querySelectorAll('main details.more')].map(d => [d.id, d.open])")
    assert sorted(f for f, _ in folds if f) == sorted(FOLDS[slug]) and not any(o for _, o in folds)
    first, second = FOLDS[slug][0], FOLDS[slug][1]
    # closed: the summary shows (with its marker), what it holds does not
    summary = page.locator(f"#{first} > summary")
    assert summary.is_visible() and summary.inner_text().startswith("更多细节")
    assert page.evaluate(f"getComputedStyle(document.querySelector('#{first} > summary'), '::before').content") == '"▸"'
    assert not page.locator(f"#{first} .figure").first.is_visible()
    # a click opens it, a second one closes it
    summary.click()
    page.wait_for_function(OPEN, arg=first)
    assert page.locator(f"#{first} .figure").first.is_visible()
    summary.click()
    page.wait_for_function(CLOSED, arg=first)
    # the keyboard: Enter on the focused summary opens it, and the summary shows a focus ring
    page.focus(f"#{second} > summary")
    page.keyboard.press("Enter")
    page.wait_for_function(OPEN, arg=second)
    ring = page.evaluate(f"(() => {{ const s = getComputedStyle(document.querySelector('#{second} > summary')); return [s.outlineStyle, s.outlineWidth]; }})()")
    assert ring[0] == "solid" and ring[1] != "0px", ring
    page.keyboard.press("Enter")
    page.wait_for_function(CLOSED, arg=second)
    page.log.check()


def width(page, graph: str) -> float:
    return page.evaluate(f"document.querySelector('#{graph} .main-svg').getBoundingClientRect().width")


def test_what_a_fold_holds_works_once_opened(page, app_url):
    """The ULP fold of /implementation: its figure is drawn at full width once opened, and its format control
    updates the table and the figure; the unit-statistics fold of /ffn: its picker redraws its chart."""
    from gelu_lab.analysis import accuracy as acc

    open_page(page, f"{app_url}/implementation?lang=en")
    errors = width(page, "implementation-errors")  # a figure outside any fold
    unfold(page, "implementation-more-prec")
    page.wait_for_function(f"document.querySelector('#implementation-ulp .main-svg').getBoundingClientRect().width > {0.9 * errors}")
    page.click("#implementation-dtype input[value=float16]")
    page.wait_for_function("document.querySelector('#implementation-ulp .js-plotly-plot').layout.title.text.endsWith('float16')")
    s = acc.measure("torch:gelu", "float16", progress=False)  # all 65 536 inputs, against the correctly rounded reference
    page.wait_for_function("t => document.getElementById('implementation-p-torch_gelu-max').innerText.trim() === t", arg=str(s["max_ulp"]))
    assert "dtype=float16" in page.url

    open_page(page, f"{app_url}/ffn?lang=en")
    unfold(page, "ffn-more-units")
    assert width(page, "ffn-units") > 0.9 * width(page, "ffn-loss")
    page.click("#ffn-metric")
    page.get_by_role("option", name=content.text("en", "ffn")["metric.pre_std"], exact=True).click()
    page.wait_for_function("document.querySelector('#ffn-units .js-plotly-plot').layout.title.text.startsWith('pre-activation std')")
    page.log.check()
