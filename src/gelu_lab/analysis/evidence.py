"""The shape of a claim's evidence (gelu_lab.analysis.claims and the modules that check claims for it).

    ev(verdict, figures, note, values=None, how=None, source="computed", provenance=None) -> dict
    computed(fn)   evidence only gelu_lab and the installed packages decide: computed once per process

A verdict is one of VERDICTS, a source one of SOURCES (claims' module text says what each means).

A value of a note is a number; two kinds of number a note says its own way are marked by
their type, still floats (JSON writes them as numbers), and the app's claim words say them:

    Share(0.421, digits=1)     a share in [0, 1], said as a percentage (42.1%)
    Signed(-0.0123, digits=4)  a difference, said with its sign and fixed decimals (-0.0123)
"""

from __future__ import annotations

import functools

class Share(float):
    """A share in [0, 1] that a note says as a percentage with `digits` decimals."""

    def __new__(cls, v, digits: int = 1):
        o = super().__new__(cls, v)
        o.digits = digits
        return o


class Signed(float):
    """A difference that a note says with its sign and `digits` fixed decimals."""

    def __new__(cls, v, digits: int = 4):
        o = super().__new__(cls, v)
        o.digits = digits
        return o


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
