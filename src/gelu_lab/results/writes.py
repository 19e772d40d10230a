"""Whether this process may write: the runs store and the background jobs' files.

    forbid(reason)     from now on this process only reads (a public server calls it at start)
    forbidden()        the reason, or None while writes are allowed
    check(what)        raise WritesForbidden (a PermissionError) naming `what` and the reason

A public server (``gelu-lab serve --public``) calls :func:`forbid` before it builds the
app, so no request can write, whatever a page's code does: :class:`.store.Store` then
opens the store read-only (and never creates one), :func:`.jobs.start` and
:func:`.jobs.cancel` refuse. It is a switch of the process, not of the environment: a job
that a server with ``--allow-jobs`` starts is a process of its own and writes as the CLI
does. Forked server processes inherit it.
"""

from __future__ import annotations

_REASON: list[str] = []


class WritesForbidden(PermissionError):
    """This process was told to only read (a public server)."""


def forbid(reason: str) -> None:
    """From now on this process writes nothing to the runs store and starts or stops no job."""
    _REASON[:] = [reason]


def forbidden() -> str | None:
    return _REASON[0] if _REASON else None


def allow() -> None:
    """Writes allowed again (tests that forbid them in their own process)."""
    _REASON.clear()


def check(what: str) -> None:
    if _REASON:
        raise WritesForbidden(f"{what}: not here ({_REASON[0]})")
