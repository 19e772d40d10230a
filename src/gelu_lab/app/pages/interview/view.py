"""The Interview page's view: a computed value as the page shows it."""

from __future__ import annotations

import math


def show(value, fmt: str) -> str:
    """A computed value as the page shows it: `fmt` applied, no '-0.000'."""
    if isinstance(value, str) or fmt == "s":
        return str(value)
    if isinstance(value, float) and math.isnan(value):  # not measured in this installation's shipped results
        return "–"
    whole = fmt.endswith("d")  # "d" or ",d": an integer, with or without thousands separators
    s = format(int(value) if whole else float(value), fmt)
    return s[1:] if s.startswith("-") and not whole and float(s) == 0 else s
