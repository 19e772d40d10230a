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

    The inverse of :func:`read` for valid values; an empty value (None, "") is left
    out, a whole float is written as an integer (as JavaScript's ``String`` does), and
    the characters are escaped as the browser's URLSearchParams does (but for ``~``).
    """
    q = {k: _text(v) for k, v in values.items() if v is not None and v != ""}
    q["lang"] = lang
    return "?" + urlencode(q, safe=",*")


def href(route: str, lang: str) -> str:
    """The link to a page in `lang`, its controls at their defaults: ``/relu?lang=en``."""
    return route + encode({}, lang)


def _text(v) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(str(i) for i in v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


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
