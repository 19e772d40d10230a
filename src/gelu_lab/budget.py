"""A live request's budget of CPU time and memory (the public server sets one per request).

    with budget.limits(seconds=3.0, megabytes=256):    # around one request
        budget.check()                  # past the CPU time: OverBudget("time")
        budget.reserve(8 * n)           # an array whose size the visitor decides: OverBudget("memory") past the cap
        with budget.holding(8 * n): ... # the same, for arrays freed when the block ends

Outside :func:`limits` both are no-ops: the CLI, the tests and a server on loopback compute
without a budget. The computations whose cost a visitor's input decides call them (a
formula's evaluation per node, the fit of its constant, a grid of points), so a request
stops at its next check once it is over, and the server answers it with a message instead
of its result.

Time is the request thread's CPU time (``time.thread_time``), not the wall clock: on a busy
machine a request waiting for a core is not charged for the wait, so the budget says how
much work a visitor may ask for, the same on a quiet and a loaded server. Memory is what the
request holds reserved at once (its arrays are reserved before they are made): it bounds
what a visitor's input can make the server allocate, not the process's size. A MemoryError is the same refusal (the server maps it).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from dataclasses import dataclass, field


class OverBudget(Exception):
    """A request asked for more than its budget: ``kind`` is "time" or "memory", ``limit``
    the budget (CPU seconds, or bytes)."""

    def __init__(self, kind: str, limit: float):
        unit = f"{limit:g} s of CPU time" if kind == "time" else f"{limit / 2**20:g} MB"
        super().__init__(f"over the request's {kind} budget ({unit})")
        self.kind, self.limit = kind, limit


@dataclass
class _Limits:
    seconds: float | None
    nbytes: int | None
    started: float = field(default_factory=time.thread_time)
    reserved: int = 0


_NOW: contextvars.ContextVar[_Limits | None] = contextvars.ContextVar("gelu_lab_budget", default=None)


@contextlib.contextmanager
def limits(seconds: float | None = None, megabytes: float | None = None):
    """Budget the code in the block (this thread, this context): `seconds` of CPU time and
    `megabytes` of reserved arrays; None for no limit of that kind."""
    token = _NOW.set(_Limits(seconds, None if megabytes is None else int(megabytes * 2**20)))
    try:
        yield
    finally:
        _NOW.reset(token)


def check() -> None:
    """Raise OverBudget("time") if the running request has used its CPU time."""
    lim = _NOW.get()
    if lim is not None and lim.seconds is not None and time.thread_time() - lim.started > lim.seconds:
        raise OverBudget("time", lim.seconds)


def reserve(nbytes: int) -> None:
    """Count `nbytes` against the running request's memory (and check its time): OverBudget
    before the array is made when it would pass the cap."""
    lim = _NOW.get()
    if lim is None:
        return
    if lim.nbytes is not None and lim.reserved + nbytes > lim.nbytes:
        raise OverBudget("memory", lim.nbytes)
    lim.reserved += int(nbytes)
    check()


@contextlib.contextmanager
def holding(nbytes: int):
    """`nbytes` reserved while the block runs (its arrays are freed after it), given back after."""
    reserve(nbytes)
    try:
        yield
    finally:
        lim = _NOW.get()
        if lim is not None:
            lim.reserved -= int(nbytes)


def used() -> tuple[float, int] | None:
    """(CPU seconds, bytes reserved) of the running request; None outside :func:`limits`."""
    lim = _NOW.get()
    return None if lim is None else (time.thread_time() - lim.started, lim.reserved)
