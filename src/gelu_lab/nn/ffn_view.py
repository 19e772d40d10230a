"""What the Transformer FFN page shows, as data: runs grouped into experiments, the
statistics of a group, the init sweep, and the unfinished runs of the reader's store.

The page (``gelu_lab.app.pages.ffn``) turns these into figures, tables and text; no
Dash and no torch here.
"""

from __future__ import annotations

from pathlib import Path

from . import runs as R
from .train_job import resume_command


def unfinished(store_path) -> list[dict]:
    """The training runs of the store at `store_path` that have not finished, oldest first:
    {"id", "status" ("running" or "interrupted"), "what", "step", "steps", "resume"}.
    ``resume``: the command that continues an interrupted run (``--store`` when the
    store is not the reader's default one); "" while its process still runs it."""
    from ..results.store import Store, default_path

    path = Path(store_path)
    if not path.exists():
        return []
    store_arg = None if path == default_path() else str(path)
    out = []
    with Store(path) as s:
        for r in s.runs("train"):
            if r["status"] not in ("running", "interrupted"):
                continue
            c = r["config"]
            step = max((m["step"] for m in s.metrics(r["id"], "val_loss")), default=0)
            out.append({"id": r["id"], "status": r["status"], "step": step, "steps": c.get("steps"),
                        "what": f"{c.get('activation')} · {c.get('preset')} · seed {c.get('seed')} · {c.get('steps')} steps",
                        "resume": resume_command(r["id"], store_arg) if r["status"] == "interrupted" else ""})
    return out
