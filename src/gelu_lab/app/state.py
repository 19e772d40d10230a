"""Page state in the URL query string: the app's one URL codec (parse, clamp, report; write).

The query string is ``?x=2&show=gelu,relu&lang=en``: one key per control, a list
written ``a,b``, the language last. Each page declares its controls as
:class:`Param` rows. ``read(params, query)`` turns a (possibly hand-edited) query
string into valid values: a value that is not a number falls back to the default,
an out-of-range one is clamped, and each such repair yields a one-line note for the
reader. Nothing is ever evaluated; unknown keys are ignored. :func:`encode` and
:func:`href` write it on the server; in the browser ``gelu_lab.query``
(assets/gelu_lab.js) writes the same for the controls' current values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

from .content import DEFAULT_LANG, LANGS


@dataclass(frozen=True)
class Param:
    """One control: query key `name`, default, range [lo, hi] and step (numbers) or choices."""

    name: str
    default: object
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    choices: tuple = ()
    integer: bool = False
    multi: bool = False  # a comma-separated subset of choices

    def coerce(self, raw) -> tuple[object, str | None]:
        """(valid value, None) or (repaired value, note key + args) for a raw value."""
        if self.multi:
            items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
            kept = [c for c in self.choices if c in {str(i).strip() for i in items}]
            bad = [str(i) for i in items if str(i).strip() not in self.choices and str(i).strip()]
            return kept, (("bad_choice", {"name": self.name, "raw": ",".join(bad)}) if bad else None)
        if self.choices:
            s = str(raw).strip()
            if s in self.choices:
                return s, None
            return self.default, ("bad_choice", {"name": self.name, "raw": s[:40], "value": self.default})
        try:
            v = float(raw)
        except (TypeError, ValueError):
            return self.default, ("bad_number", {"name": self.name, "raw": str(raw)[:40], "value": self.default})
        if not math.isfinite(v):
            return self.default, ("bad_number", {"name": self.name, "raw": str(raw)[:40], "value": self.default})
        c = min(max(v, self.lo), self.hi)
        if self.step:  # snap to the control's grid, so the slider and the lookup tables agree
            c = self.lo + round((c - self.lo) / self.step) * self.step
            c = round(min(max(c, self.lo), self.hi), 10)
        c = int(round(c)) if self.integer else c
        if v < self.lo or v > self.hi:
            return c, ("clamped", {"name": self.name, "raw": str(raw)[:40], "lo": f"{self.lo:g}", "hi": f"{self.hi:g}", "value": c})
        return c, None


def encode(values: dict, lang: str) -> str:
    """The query string of page state {name: value} in `lang`: ``"?x=2&show=a,b&lang=en"``.

    The inverse of :func:`read` for valid values, and character for character what
    ``gelu_lab.query`` (assets/gelu_lab.js) writes for the same values
    (tests/test_codec.py): an empty value (None, "") is left out, a number is written
    as JavaScript's ``String`` writes it (:func:`js_number`: 0.000007, not 7e-06), and
    the characters are escaped as the browser's URLSearchParams does (``~`` too).
    """
    q = {k: _text(v) for k, v in values.items() if v is not None and v != ""}
    q["lang"] = lang
    return "?" + urlencode(q, safe=",*").replace("~", "%7E")


def href(route: str, lang: str) -> str:
    """The link to a page in `lang`, its controls at their defaults: ``/relu?lang=en``."""
    return route + encode({}, lang)


def _text(v) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(_text(i) for i in v)
    if isinstance(v, float):
        return js_number(v)
    return str(v)


def js_number(v: float) -> str:
    """A float as JavaScript's ``String(v)`` writes it (ECMAScript Number::toString): the
    shortest digits that read back as v (Python's repr finds the same), in decimal notation
    from 1e-7 up to 1e21, else as ``1.5e-7`` / ``1e+21``."""
    if v != v:
        return "NaN"
    if v in (math.inf, -math.inf):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "0"
    sign = "-" if v < 0 else ""
    mantissa, _, exp = repr(abs(v)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac.rstrip("0")).lstrip("0") if whole == "0" else (whole + frac).rstrip("0")
    lead = len(whole) if whole != "0" else -(len(frac) - len(frac.lstrip("0")))
    n, k = lead + int(exp or 0), len(digits)  # v = 0.digits x 10^n, k digits
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


def query_dict(search: str | None) -> dict[str, str]:
    """'?a=1&b=2' -> {'a': '1', 'b': '2'} (last value wins, blanks kept)."""
    q = parse_qs((search or "").lstrip("?"), keep_blank_values=True)
    return {k: v[-1] for k, v in q.items()}


def lang_of(search: str | None) -> str:
    lang = query_dict(search).get("lang", DEFAULT_LANG)
    return lang if lang in LANGS else DEFAULT_LANG


def read(params, search: str | None) -> tuple[dict, list]:
    """({name: value}, [(note key, args)]) for the page's params from a query string."""
    q = query_dict(search)
    state, notes = {}, []
    for p in params:
        if p.name in q:
            state[p.name], note = p.coerce(q[p.name])
            if note:
                notes.append(note)
        else:
            state[p.name] = p.default
    if "lang" in q and q["lang"] not in LANGS:
        notes.append(("bad_choice", {"name": "lang", "raw": q["lang"][:40], "value": DEFAULT_LANG}))
    return state, notes


def inputs(pairs, lang: str) -> tuple[list | None, str]:
    """Callback inputs checked: ([values], message) for [(Param, raw value)].

    Bad values are repaired as in :func:`read` and the message says so; an
    empty box gives (None, "enter a number ...") and the callback changes nothing.
    """
    from . import content

    t = content.text(lang if lang in LANGS else DEFAULT_LANG, "shell")
    values, notes = [], []
    for p, raw in pairs:
        if p.multi:
            raw = raw if isinstance(raw, list) else []
        elif raw is None or raw == "":
            return None, content.fill(t["msg.empty"], name=p.name, lo=f"{p.lo:g}", hi=f"{p.hi:g}")
        v, note = p.coerce(raw)
        values.append(v)
        if note:
            notes.append(content.fill(t[f"msg.{note[0]}"], **note[1]))
    return values, " ".join(notes)
