"""A callback request the server refuses before running it, answered in Dash's own words.

    answer(message) -> flask.Response     HTTP 200: no output changes, the notice shows `message`
    check()                               DashChanged if Dash no longer reads such an answer

A public server refuses a client over its rate (:mod:`.guard`) before any callback runs,
so no callback can say so with ``dash.set_props`` (the public way, used for a request over
its budget). The answer is then written here as Dash writes the answer of a callback that
changes none of its outputs and sets another component's props: ``{"multi": true,
"response": {}, "sideUpdate": {id: props}}``. An HTTP error status would be no better:
the renderer logs it to the console and shows the reader nothing. This relies on Dash's
wire format, which is not a public API: Dash is pinned exactly (pyproject.toml), and
:func:`check` (tests/test_public.py) names what changed; tests/test_public_browser.py sees
the notice drawn in Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import dash
from flask import Response

from .speed import DashChanged

NOTICE = "live-notice"  # the shell's element for a refused request (shell.render)
# what the answer counts on: (file in the dash package, text in it, what it is)
DEPENDS = [
    ("_callback.py", 'response["sideUpdate"] = ', "a callback answer's sideUpdate, written by dash/_callback.py"),
    ("_callback.py", 'response: CallbackExecutionResponse = {"multi": True}', 'a callback answer as {"multi": true, ...}'),
    ("dash-renderer/build/dash_renderer.min.js", "e.sideUpdate&&", "the renderer applying an answer's sideUpdate"),
]


def notice_props(message: str) -> dict:
    """The notice's props showing `message` (the class the shell gives a message that is shown)."""
    return {"children": message, "className": "message live-notice"}


def answer(message: str) -> Response:
    body = {"multi": True, "response": {}, "sideUpdate": {NOTICE: notice_props(message)}}
    return Response(json.dumps(body, ensure_ascii=False), status=200, mimetype="application/json")


def check(dash_dir: Path | None = None) -> None:
    """Raise DashChanged, naming it, if Dash (its files in `dash_dir`, default the installed
    package) no longer has what :func:`answer` counts on."""
    root = Path(dash_dir or Path(dash.__file__).parent)
    for file, text, what in DEPENDS:
        path = root / file
        if not path.is_file() or text not in path.read_text(encoding="utf-8", errors="replace"):
            raise DashChanged(f"{what} is gone from dash/{file}: gelu_lab/app/refusal.py must be updated for Dash {dash.__version__}")
