"""The words of a claim's check: :mod:`gelu_lab.analysis.claims` returns data, this says it.

    words(res, lang) -> {"text", "note", "source"}

From ``content/<lang>/misconceptions.md``: the statement is the block ``claim.<id>``,
the note the block ``res["note"]`` filled with ``res["values"]`` (a list joined by the
word of the block ``and``), the source line ``source.<source>`` filled with the date and CPU of
the evidence's provenance. The Misconceptions page, the report and ``gelu-lab claims``
all say a check this way.
"""

from __future__ import annotations

from . import content


def source_line(res: dict, t: dict) -> str:
    """Where the evidence of check() result `res` came from, with its run's date and CPU."""
    p = res.get("provenance") or {}
    return content.fill(t[f"source.{res['source']}"], date=str(p.get("date", "?"))[:10], cpu=p.get("processor", "?"))


def words(res: dict, lang: str) -> dict:
    """{"text", "note", "source"} of one claims.check() result in `lang`."""
    t = content.text(lang, "misconceptions")
    values = {k: f" {t['and']} ".join(v) if isinstance(v, list) else v for k, v in res["values"].items()}
    return {"text": t[f"claim.{res['id']}"], "note": content.fill(t[res["note"]], **values), "source": source_line(res, t)}
