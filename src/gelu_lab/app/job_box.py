"""The job box: start a background job from a page, follow it, cancel it.

    register(Job(name, kind, start, ...))      once per box, when its page is imported
    box(name, lang, button, controls=(), start_args=None) -> html.Div    the box, as the job is now
    seen(name), args(name)                      ids a page's own callbacks use
    running(name)                               whether its job runs now

One box per job a page offers (Implementation: the float32 sweep and the bench;
FFN: a training run; Misconceptions: the run a claim needs). Its parts have
pattern-matching ids ``{"type": "job-…", "box": name}``, so one callback serves
every box: it starts the job (the Go button), stops it (Cancel), and while the job
runs polls its status with a dcc.Interval, showing the progress, an error line, or
for an interrupted job the command that resumes it. The jobs themselves are
:mod:`gelu_lab.results.jobs`: separate processes, so a reload or another tab sees
the same job.

A page's controls that shape the job (an activation, a number of steps) keep their
own ids; the page copies their values into the box's ``args`` store, and
``Job.start(store_path, args)`` gets them. ``seen(name)`` changes when the job
changes state (a page redraws its results from it when the job is done).

On a public server (:mod:`.public`: ``jobs`` off) no box starts or cancels anything: its
buttons are off, a forged click is answered with the refusal, and the box shows
``Job.command(args)``, the command that computes the same on the reader's own machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dash import MATCH, Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from ..results import jobs
from ..results.store import default_path
from . import content, public


@dataclass(frozen=True)
class Job:
    """One box: its `name` (unique in the app; the box's DOM id), the job `kind` it runs
    (boxes may share one: the FFN and Misconceptions pages both train), how to start it
    (``start(store_path, args) -> job``; jobs.AlreadyRunning, or ValueError for a bad
    request), how to ask for its status (default ``jobs.status(store_path, kind)``),
    the content block that says no job has run (`page`'s `idle`), and how to say in words
    what a job computes (``describe(job, lang)``; default: the job's own "what", else its
    command: a registry name or an option is no word for a reader)."""

    name: str
    kind: str
    start: Callable[[Path, dict], dict]
    page: str
    idle: str
    status: Callable[[Path], dict | None] | None = None
    describe: Callable[[dict, str], str] | None = None
    command: Callable[[dict], str] | None = None

    def yourself(self, start_args: dict | None) -> str | None:
        """The command that computes the box's job on a reader's own machine, for these start
        arguments (the box's defaults when they are not ones the page offers); None if unknown."""
        if self.command is None:
            return None
        try:
            return self.command(start_args if isinstance(start_args, dict) else {})
        except (KeyError, TypeError, ValueError):
            return self.command(self.defaults) if self.defaults is not None else None

    @property
    def defaults(self) -> dict | None:
        return _DEFAULTS.get(self.name)

    def state(self) -> dict | None:
        path = default_path()
        return self.status(path) if self.status else jobs.status(path, self.kind)

    def what(self, st: dict, lang: str) -> str:
        """What job `st` (of this box's kind) computes, in `lang`."""
        if self.describe is not None:
            try:
                return self.describe(st, lang)
            except (KeyError, TypeError, ValueError):  # a job file from another version: say its own words
                pass
        return _own_words(st)


JOBS: dict[str, Job] = {}
_DEFAULTS: dict[str, dict] = {}  # box name -> the start arguments its page shows first (box())


def register(job: Job) -> Job:
    JOBS[job.name] = job
    return job


def _id(part: str, name: str) -> dict:
    return {"type": f"job-{part}", "box": name}


def seen(name: str) -> dict:
    """The id of the box's store that changes when its job does ("pid:state")."""
    return _id("seen", name)


def args(name: str) -> dict:
    """The id of the box's store of start arguments (a page's callback keeps it current)."""
    return _id("args", name)


def _own_words(st: dict) -> str:
    """What a job file says it computes: its "what", else its command."""
    return st.get("what") or st["command"]


def running(name: str) -> bool:
    """Whether the job of box `name` runs now (a page then shows the fold that holds the box open)."""
    st = JOBS[name].state()
    return bool(st) and st["state"] == "running"


def _key(st: dict | None) -> str | None:
    return f"{st['pid']}:{st['state']}" if st else None


def training_what(st: dict, lang: str) -> str:
    """A training job (gelu_lab.nn.train_job) in words: activation, seed, steps, FFN init."""
    t = content.text(lang, "jobs")
    fc = t["fc.unit"] if str(st["fc_init_std"]) == "unit" else str(st["fc_init_std"])
    return content.fill(t["what.train"], act=content.label(st["activation"], lang), seed=str(int(st["seed"])), steps=f"{int(st['steps']):,}", fc=fc)


def view(st: dict | None, lang: str, idle: str, what: str | None = None) -> tuple[int, int, object, bool]:
    """(progress value, progress max, status children, running) of a job's status; `what`:
    the job in words (default: its own "what", else its command)."""
    if not st:
        return 0, 1, idle, False
    t = content.text(lang, "jobs")
    p = st.get("progress") or {}
    total = max(1, int(p.get("total") or 1))
    n = min(total, int(p.get("n") or 0))
    what = what or _own_words(st)
    state = st["state"]
    if state == "running":
        return n, total, content.fill(t["running"], what=what, n=f"{n:,}", total=f"{total:,}", pct=f"{100 * n / total:.0f}"), True
    if state == "done":
        return total, total, content.fill(t["done"], what=what), False
    if state == "failed":
        return n, total, content.fill(t["failed"], what=what, error=st.get("error", "")), False
    text = content.fill(t["cancelled" if st.get("cancelled") else "interrupted"], what=what)
    return n, total, [text, " ", html.Code(st["resume"], className="job-cmd")], False


def refused(job: Job, start_args: dict | None, lang: str, why: str = "jobs.off") -> list:
    """What a public server's box says instead of starting a job: why, and the command."""
    cmd = job.yourself(start_args)
    return [public.refusal(why, lang), " ", html.Code(cmd, className="job-cmd")] if cmd else [public.refusal(why, lang)]


def box(name: str, lang: str, button: str, controls=(), start_args: dict | None = None) -> html.Div:
    """The box of job `name` as its job is now: `controls` (the page's, before the
    buttons), Go (labelled `button`), Cancel, a progress bar and the status line. On a
    public server (:mod:`.public`) Go and Cancel are off, and the box says why and shows
    the command that computes it on the reader's own machine (a job the server's owner
    started shows as it runs)."""
    job = JOBS[name]
    _DEFAULTS.setdefault(name, dict(start_args or {}))
    st = job.state()
    n, total, text, running = view(st, lang, content.text(lang, job.page)[job.idle], job.what(st, lang) if st else None)
    t = content.text(lang, "jobs")
    off = not public.current().jobs
    if off and not running:
        text = refused(job, start_args, lang)
    return html.Div(
        [
            html.Div(list(controls), className="controls") if controls else None,
            html.Div([html.Button(button, id=_id("go", name), n_clicks=0, className="run-button", disabled=off),
                      html.Button(t["cancel"], id=_id("cancel", name), n_clicks=0, className="job-cancel", hidden=off or not running)],
                     className="job-buttons"),
            html.Progress(id=_id("progress", name), value=str(n), max=str(total)),
            html.Div(text, id=_id("status", name), role="status", className="job-status"),
            dcc.Interval(id=_id("tick", name), interval=1000, disabled=not running),
            dcc.Store(id=seen(name), data=_key(st)),
            dcc.Store(id=args(name), data=start_args or {}),
        ],
        id=name,
        className="job-box",
    )


@callback(
    Output(_id("progress", MATCH), "value"),
    Output(_id("progress", MATCH), "max"),
    Output(_id("status", MATCH), "children"),
    Output(_id("tick", MATCH), "disabled"),
    Output(_id("cancel", MATCH), "hidden"),
    Output(seen(MATCH), "data"),
    Input(_id("go", MATCH), "n_clicks"),
    Input(_id("cancel", MATCH), "n_clicks"),
    Input(_id("tick", MATCH), "n_intervals"),
    State(args(MATCH), "data"),
    State(seen(MATCH), "data"),
    State(_id("go", MATCH), "id"),
    State("lang", "data"),
    prevent_initial_call=True,
)
def _act(go, cancel, _tick, start_args, last, id_, lang):
    """Go starts the job, Cancel stops it, the interval follows it; each answers with the job's status."""
    job = JOBS.get((id_ or {}).get("box"))
    if job is None:
        raise PreventUpdate
    lang = lang if lang in content.LANGS else content.DEFAULT_LANG
    t = content.text(lang, "jobs")
    part = ctx.triggered_id.get("type") if isinstance(ctx.triggered_id, dict) else None
    note = None
    if part in ("job-go", "job-cancel") and not public.current().jobs:  # a forged click on a public server: never run
        note = refused(job, start_args, lang, "jobs.refused")
    elif part == "job-go" and go:
        try:
            started = job.start(default_path(), start_args if isinstance(start_args, dict) else {})
            note = content.fill(t["started"], what=job.what(started, lang))
        except jobs.AlreadyRunning as e:
            note = content.fill(t["busy"], what=job.what(e.job, lang))
        except (ValueError, OSError, ImportError) as e:  # a request the page does not offer, a store it cannot write, no torch
            note = content.fill(t["bad"], reason=str(e).splitlines()[0] if str(e) else type(e).__name__)
    elif part == "job-cancel" and cancel:
        jobs.cancel(default_path(), job.kind)
    st = job.state()
    n, total, text, running = view(st, lang, content.text(lang, job.page)[job.idle], job.what(st, lang) if st else None)
    key = _key(st)
    hide_cancel = not running or not public.current().jobs
    return str(n), str(total), note or text, not running, hide_cancel, (key if key != last else no_update)
