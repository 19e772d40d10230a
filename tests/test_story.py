"""The story page "Why BERT uses GELU": every step ends in links to pages that exist, and the
numbers it quotes are the library's, the shipped experiment's and the probe's (checked here
against mpmath and against a paired t interval computed by scipy from the shipped runs)."""

from __future__ import annotations

import json
from importlib import resources

import mpmath
import numpy as np
import pytest
from scipy import stats

from gelu_lab.app import content, page_module, registry, shell
from gelu_lab.app.pages import story
from dash_tree import as_json

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)

ROUTES = {p.route for p in registry.PAGES}


@pytest.fixture(scope="module", autouse=True)
def fresh_install(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("GELU_LAB_STORE", str(tmp_path_factory.mktemp("fresh") / "runs.sqlite"))  # the shipped results
    yield
    mp.undo()


def _tree(lang):
    pages = {p.slug: page_module(p.slug) for p in registry.PAGES}
    return shell.render("/story", f"?lang={lang}", pages).to_plotly_json()


def _walk(node):
    if hasattr(node, "to_plotly_json"):
        node = as_json(node)  # static markup read back into components
    if isinstance(node, dict):
        yield node
        for v in (node.get("props") or {}).values():
            yield from _walk(v)
    elif isinstance(node, (list, tuple)):
        for v in node:
            yield from _walk(v)


def _text(node) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, (list, tuple)):
        return "".join(_text(v) for v in node)
    if isinstance(node, dict):
        return _text((node.get("props") or {}).get("children"))
    return ""


@pytest.mark.parametrize("lang", content.LANGS)
def test_every_step_links_to_the_pages_that_check_it(lang):
    tree = _tree(lang)
    main = next(n for n in _walk(tree) if n.get("type") == "Main")
    sections = [n for n in _walk(main) if n.get("type") == "Section"]
    steps = [s for s in sections if any(c.get("props", {}).get("className") == "story-check" for c in _walk(s))]
    assert len(steps) == len(story.STEPS)
    for s, (step, slugs) in zip(steps, story.STEPS):
        links = [n["props"]["href"].partition("?")[0] for n in _walk(s) if n.get("type") == "Link"]
        assert links and set(links) <= ROUTES, step
        assert links == [next(p.route for p in registry.PAGES if p.slug == x) for x in slugs]
        assert all(n["props"]["href"].endswith(f"lang={lang}") for n in _walk(s) if n.get("type") == "Link")


def test_the_gate_shares_and_the_shape_are_mpmath_s():
    t = content.text("en", "story")
    v = story.numbers("en", t)
    phi = lambda x: mpmath.ncdf(x)  # noqa: E731
    assert v["phi1"] == f"{float(100 * phi(1)):.1f} %" and v["phim1"] == f"{float(100 * phi(-1)):.1f} %"
    g1 = lambda x: phi(x) + x * mpmath.npdf(x)  # noqa: E731
    root = mpmath.findroot(g1, -0.75)
    assert v["min_x"] == f"{float(root):.4f}" and v["min"] == f"{float(root * phi(root)):.4f}"
    assert v["dip_x"] == f"{-float(mpmath.sqrt(2)):.3f}" and v["slope0"] == "0.5"
    assert float(v["dip"]) == pytest.approx(float(g1(-mpmath.sqrt(2))), abs=5e-5)
    xs = np.linspace(-4, 4, 80001)
    exact = np.array([float(x * phi(x)) for x in xs[::100]])
    tanh = 0.5 * xs[::100] * (1 + np.tanh(np.sqrt(2 / np.pi) * (xs[::100] + 0.044715 * xs[::100] ** 3)))
    assert float(v["tanh_err"]) == pytest.approx(np.max(np.abs(tanh - exact)), rel=0.02)


def test_the_ffn_result_is_the_shipped_experiment_s_paired_interval():
    runs = json.loads(resources.files("gelu_lab").joinpath("data/ffn_results.json").read_text())["runs"]
    main = {"preset": "decide", "n_embd": 128, "fc_init_std": 0.02}

    def final(act, lr):
        rs = [r for r in runs if r["config"]["activation"] == act and r["config"]["lr"] == lr and r["status"] == "done"
              and all(r["config"].get(k) == v for k, v in main.items())]
        return {r["config"]["seed"]: r["final"].get("val_loss_full", r["final"]["val_loss"]) for r in rs}  # the full validation pass where there is one

    from gelu_lab.nn import ffn_view
    lr = ffn_view.decision(ffn_view.pool()[0])["lr"]
    g, r = final("gelu", lr["gelu"]), final("relu", lr["relu"])
    seeds = sorted(set(g) & set(r))
    d = np.array([g[s] - r[s] for s in seeds])
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    text = story.numbers("en", content.text("en", "story"))["ffn"]
    lo, hi = d.mean() - half, d.mean() + half
    assert f"[{lo:+.2g}, {hi:+.2g}]" in text, text
    assert f"over {len(seeds)} seeds" in text
    assert ("within" in text) == (lo < 0 < hi)
