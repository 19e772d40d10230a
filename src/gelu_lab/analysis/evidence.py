"""The shape of a claim's evidence (gelu_lab.analysis.claims and the modules that check claims for it).

    ev(verdict, figures, note, values=None, how=None, source="computed", provenance=None) -> dict
    computed(fn)   evidence only gelu_lab and the installed packages decide: computed once per process

A verdict is one of VERDICTS, a source one of SOURCES (claims' module text says what each means).
"""

from __future__ import annotations

import functools

VERDICTS = ("true", "false", "depends", "unsettled", "untested")
SOURCES = ("computed", "store", "shipped", "measured")


def ev(verdict, figures, note, values=None, how=None, source="computed", provenance=None) -> dict:
    assert verdict in VERDICTS and source in SOURCES
    return {"verdict": verdict, "figures": figures, "note": note, "values": values or {}, "how": how,
            "source": source, "provenance": provenance}


def computed(fn):
    """Evidence that only gelu_lab and the installed packages decide: computed once per process."""
    once = functools.cache(fn)
    return lambda store, measure: once()
