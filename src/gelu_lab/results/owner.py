"""Who runs a run or a job: a process's identity, and whether it is still alive.

    me() -> owner               this process
    of(pid) -> owner            another process of this machine (a job just started)
    alive(owner) -> bool | None True: still running; False: gone; None: cannot tell

An owner is a plain dict ``{"host", "boot", "pid", "start"}``: the host name, the
kernel's boot id, the pid and the process's start time (clock ticks after boot,
``/proc/<pid>/stat`` field 22). A pid alone is not enough: after the process
ends, the pid may be given to another one, and after a reboot the count starts
again; the start time and the boot id tell those apart. Without ``/proc``
(not Linux) the check falls back to ``kill(pid, 0)``.

A process of another host (a store on a shared disk) cannot be checked from
here: ``alive`` answers None, and readers keep such a run as "running".
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

_PROC = Path("/proc")


def _boot_id() -> str | None:
    try:
        return (_PROC / "sys" / "kernel" / "random" / "boot_id").read_text().strip()
    except OSError:
        return None


def _stat(pid: int) -> tuple[str, str] | None:
    """(state letter, start time) of `pid` from /proc, or None when there is no such entry."""
    try:
        fields = (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], fields[19]  # after "pid (comm)": field 3 is the state, field 22 the start time


def of(pid: int) -> dict:
    """The owner record of process `pid` of this machine."""
    st = _stat(pid)
    return {"host": socket.gethostname(), "boot": _boot_id(), "pid": int(pid), "start": st[1] if st else None}


def me() -> dict:
    """The owner record of this process."""
    return of(os.getpid())


def alive(owner: dict | None) -> bool | None:
    """Is the process `owner` describes still running? None if it ran on another host
    (or `owner` is missing), where no check is possible."""
    if not owner or owner.get("host") != socket.gethostname():
        return None
    boot = _boot_id()
    if owner.get("boot") and boot and owner["boot"] != boot:
        return False  # the machine has restarted since
    pid = int(owner["pid"])
    st = _stat(pid)
    if st is None:
        if _PROC.joinpath("self").exists():
            return False  # /proc works, and has no such process
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # someone else's process: it exists
        return True
    state, start = st
    if state in ("Z", "X"):
        return False  # ended, not yet reaped by its parent
    return owner.get("start") is None or owner["start"] == start
