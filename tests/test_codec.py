"""The URL codec is one codec in two languages: state.encode / state.read (Python) and
gelu_lab.query / gelu_lab.pairs (assets/gelu_lab.js). For every page's state, what Python
writes, JavaScript reads and writes back character for character, and what JavaScript writes
for the controls' values, Python reads back as those values, in Chromium."""

from __future__ import annotations

import random
import struct

import pytest

from app_browser import app_url, browser, context, open_page, page  # noqa: F401
from gelu_lab.app import content, page_module, registry, state

# a few float shapes where Python's repr and JavaScript's String differ (7e-06 / 0.000007)
TRICKY = [7e-06, 1e-06, 1e-07, 1.5e-07, 0.1 + 0.2, 123456.789, 1e20, 1e21, 1.5e21, -0.5, 2.0, 0.044715, 5e-324, 1.7976931348623157e308]


def _states():
    """(page slug, params, [state]) for every page: its defaults, each control at its ends and
    at a point between on its grid, each choice, a subset of a multi, an odd text."""
    out = []
    for p in registry.PAGES:
        params = page_module(p.slug).PARAMS
        defaults, _ = state.read(params, "")
        states = [defaults]
        for q in params:
            if q.multi:
                states += [{**defaults, q.name: list(q.choices[:2])}, {**defaults, q.name: list(q.choices)}]
            elif q.choices:
                states += [{**defaults, q.name: c} for c in q.choices]
            elif q.lo is None:  # free text
                states.append({**defaults, q.name: "0.5*x*(1+erf(x/sqrt(2))) ~ gelu & ä"})
            else:
                for raw in (q.lo, q.hi, q.lo + (q.hi - q.lo) * 0.37, q.lo + 7 * (q.step or 1e-6)):
                    states.append({**defaults, q.name: q.coerce(raw)[0]})
        out.append((p.slug, params, states))
    return out


STATES = _states()


@pytest.fixture(scope="module")
def js(context, app_url):  # noqa: F811
    from app_browser import _new_tab

    tab = _new_tab(context)
    open_page(tab, f"{app_url}/?lang=en", full=True)
    yield tab
    tab.close()


def _js_values(values):  # what a control gives the clientside sync_url: numbers as numbers
    return [[k, v] for k, v in values.items()]


@pytest.mark.parametrize("slug, params, states", STATES, ids=[s[0] for s in STATES])
def test_python_and_javascript_write_and_read_the_same_url(js, slug, params, states):
    for lang in content.LANGS:
        for values in states:
            py = state.encode(values, lang)
            # JavaScript writes the same for the same values
            assert js.evaluate("([p, l]) => window.gelu_lab.query(p, l)", [_js_values(values), lang]) == py, (slug, values)
            # Python's URL read by JavaScript and written back: the same URL
            back = js.evaluate("([s, l]) => window.gelu_lab.query(window.gelu_lab.pairs(s), l)", [py, lang])
            assert back == py, (slug, values)
            # and read by Python: the same values (on the controls' grids: a default off its grid
            # reads as its grid point), no note
            on_grid = {q.name: q.coerce(values[q.name])[0] for q in params}
            assert state.read(params, back) == (on_grid, []), (slug, values)
            assert state.lang_of(back) == lang


def test_numbers_are_written_as_javascript_writes_them(js):
    rng = random.Random(43)
    floats = TRICKY + [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(3000)]
    floats += [rng.uniform(-10, 10) * 10.0 ** rng.randint(-12, 25) for _ in range(3000)]
    floats = [f for f in floats if f == f and abs(f) != float("inf")]
    got = js.evaluate("xs => xs.map(String)", floats)
    bad = [(f, state.js_number(f), g) for f, g in zip(floats, got) if state.js_number(f) != g]
    assert not bad, bad[:10]
    assert state.encode({"c": 7e-06}, "en") == "?c=0.000007&lang=en"
