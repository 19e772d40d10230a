"""The report's measured results: each stored (else shipped) measurement as tables, in the
reader's language.

    measurements_html(measurements, store, lang) -> (html, [missing keys])
    measurement(kind, store=None) -> (value, [provenance], source) | None

A measurement is a JSON document; :func:`table_html` writes any such document as tables. A
key is shown by its label (the block ``key.<name>`` of content/<lang>/report.md), else as
code, which it is; a string value that names something in code (an implementation, a format,
an activation) is code too, and a truth value is the language's yes or no. The training
groups are said in the FFN page's words (its group label and ranking verdict), not the CLI's.
Values that are English prose written by the measuring command (PROSE) are left out.
"""

from __future__ import annotations

import html
import re

from . import content

_BIG = 24  # lists longer than this are summarised, not printed
PROSE = {"float16_note", "variant", "used_for", "about"}  # English sentences a command wrote into its result
class Words(str):
    """A value already in the reader's words (an activation's label, a verdict): shown as text, never as code."""


_CODE = re.compile(r"^[\w.:+\-/ ,()\[\]=*'\"]+$")  # an identifier, a version, a command, a range: code, not words


def _training(runs: list[dict], lang: str) -> list[dict]:
    """The groups of stats.runsets.comparisons() as the report's table shows them, in the FFN page's words."""
    from ..stats.runsets import comparisons
    from .pages.ffn import decision as ffn_decision, page as ffn

    t = content.text(lang, "ffn")
    name = lambda a: Words(content.label(a, lang))  # noqa: E731
    out = []
    for g in comparisons(runs):
        cell = "lr" in g  # a cell of the learning-rate experiment: each activation at its own rate
        label = ffn.group_label({**g["config"], "lr": None} if cell else g["config"], t)
        group = content.fill(t["group.option.best"], label=label, n=str(sum(r["n"] for r in g["rows"])), src="").rstrip(" ·") if cell else label
        out.append({"group": Words(group), "verdict": Words(ffn_decision.rows_verdict(g["rows"], t, lang)),
                    "rows": [{"rank": r["rank"], "activation": name(r["activation"]), "n": r["n"], "mean": r["mean"], "std": r["std"], "gap": r["gap"],
                              "separated": r["separated"]} for r in g["rows"]],
                    "paired": [{"pair": Words(f"{name(p['a'])} − {name(p['b'])}"), **{k: p[k] for k in ("n", "mean", "lo", "hi")},
                                "verdict": Words(t[f"pair.{p['verdict']}"])} for p in g["paired"]]})
    return out


def measurement(kind: str, store=None, lang: str = "en") -> tuple[object, list, str] | None:
    """(value, [provenance], source) of one measurement, or None when it was never made.

    source: "store", "shipped", or "both" (a list of sweeps or runs read from each).
    store: as :func:`gelu_lab.results.latest` takes it.
    """
    from .. import results

    got = results.latest(kind, store=store)
    if got is None:
        return None
    if kind not in ("accuracy", "train"):
        return (got.value["rows"] if kind == "bench" else got.value), [got.provenance], got.source
    items = got.value  # every sweep or run, each saying where it came from
    sources = {i["source"] for i in items}
    source = sources.pop() if len(sources) == 1 else "both"
    provs = [i["provenance"] for i in items]
    if kind == "train":
        value = _training(items, lang)
        return (value, provs, source) if value else None
    return [{k: v for k, v in i.items() if k not in ("source", "provenance", "key")} for i in items], provs, source


def _key(k, w: dict) -> str:
    """A document's key as the reader reads it: its label, else the key itself as code."""
    label = w.get(f"key.{k}")
    return html.escape(label) if label else f"<code>{html.escape(str(k))}</code>"


def _val(v, w: dict) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return html.escape(w["value.yes" if v else "value.no"])
    if isinstance(v, float):
        return "–" if v != v else html.escape(f"{v:.6g}")  # nan: one seed has no spread
    s = str(v)
    # a name, a version or a command (a processor's name, words with spaces, is not code)
    code = isinstance(v, str) and not isinstance(v, Words) and re.search(r"[a-z]", s) and _CODE.match(s) and (" " not in s or "--" in s)
    return f"<code>{html.escape(s)}</code>" if code else html.escape(s)


def _flat(v) -> bool:
    return not isinstance(v, (dict, list))


def table_html(value, w: dict, depth: int = 0) -> str:
    """Any JSON document as HTML: a list of flat dicts is one table; a list of dicts with
    nested parts is one block per item (its scalars on a line, then its parts); a dict is
    a key/value table. Long lists of numbers are counted, not printed; depth is capped."""
    if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
        cols = [k for k in dict.fromkeys(k for r in value for k in r) if k not in PROSE and all(_flat(r.get(k)) for r in value)]
        # rows with many numbers (per-layer statistics) are a table, their nested parts
        # (histograms) left out; rows that are mostly nested parts (groups) are blocks
        if len(cols) >= 4 or all(_flat(v) for r in value for v in r.values()):
            head = "".join(f'<th data-key="{html.escape(str(c))}">{_key(c, w)}</th>' for c in cols)
            body = "".join("<tr>" + "".join(f"<td>{_val(r.get(c, ''), w)}</td>" for c in cols) + "</tr>" for r in value[:200])
            more = f'<p class="muted">({len(value) - 200} {w["more"]})</p>' if len(value) > 200 else ""
            return f'<div class="wide"><table class="values"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{more}'
        blocks = []
        for r in value[:40]:
            line = " · ".join(f"<b>{_key(k, w)}</b>: {_val(v, w)}" for k, v in r.items() if _flat(v) and k not in PROSE)
            parts = table_html({k: v for k, v in r.items() if not _flat(v)}, w, depth + 1) if depth < 3 else ""
            blocks.append(f'<div class="item"><p>{line}</p>{parts}</div>')
        return "".join(blocks)
    if isinstance(value, dict):
        rows = []
        for k, v in value.items():
            if k in PROSE or (not _flat(v) and depth >= 3):
                continue
            if isinstance(v, list) and len(v) > _BIG and not all(isinstance(x, dict) for x in v):
                cell = f"({len(v)} {w['values']})"
            elif not _flat(v):
                cell = table_html(v, w, depth + 1)
            else:
                cell = _val(v, w)
            rows.append(f'<tr><th data-key="{html.escape(str(k))}">{_key(k, w)}</th><td>{cell}</td></tr>')
        return f'<table class="values kv">{"".join(rows)}</table>'
    if isinstance(value, list):
        return ", ".join(_val(x, w) for x in value[:_BIG])
    return _val(value, w)


def _provenance_html(provs: list, w: dict) -> str:
    seen, items = set(), []
    for p in provs:
        line = " · ".join(f"{_key(k, w)}: {_val(v, w)}" for k, v in p.items() if _flat(v)) if isinstance(p, dict) else html.escape(str(p))
        if line and line not in seen:
            seen.add(line)
            items.append(f"<li>{line}</li>")
    return f'<details class="provenance"><summary>{w["provenance"]}</summary><ul>{"".join(items[:20])}</ul></details>' if items else ""


def measurements_html(measurements, store, lang: str) -> tuple[str, list[str]]:
    """The measured-results part of the report: one section per (key, result kind, command)."""
    w = content.text(lang, "report")
    parts, missing = [], []
    for key, kind, command in measurements:
        got = measurement(kind, store, lang)
        head = f'<h2 id="m-{key}">{html.escape(w[key])}</h2>'
        if got is None:
            missing.append(key)
            parts.append(f'<section class="card measurement missing" data-key="{key}">{head}<p>{w["missing"]} <code>{html.escape(command)}</code></p></section>')
            continue
        value, provs, source = got
        parts.append(
            f'<section class="card measurement" data-key="{key}">{head}<p class="muted">{w["source." + source]}</p>'
            f"{table_html(value, w)}{_provenance_html(provs, w)}</section>"
        )
    return "".join(parts), missing
