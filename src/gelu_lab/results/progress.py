"""A progress bar that another process can read: tqdm on stderr, mirrored to a file.

    with bar(total=n, desc="...") as b:      # exactly tqdm's arguments
        ... b.update(k) ...

When ``$GELU_LAB_JOB_PROGRESS`` names a file (a background job started by
:mod:`gelu_lab.results.jobs` sets it), every update also writes ``{"n", "total", "desc",
"time"}`` there, atomically (write + rename), so the app can show how far a job
got whatever state its stderr is in (a job's stderr is a log file, where tqdm
stays silent). Without the variable it is plain tqdm; without tqdm (the library installed
without extras) the bar is silent and the file is still written.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from .files import atomic_write

try:
    from tqdm import tqdm
except ModuleNotFoundError:  # `pip install gelu-lab` alone: no bar on stderr

    class tqdm:  # noqa: N801 (tqdm's name and the part of its interface gelu_lab uses)
        def __init__(self, *args, total=None, initial=0, **kw):
            self.total, self.n = total, initial

        def update(self, n=1):
            self.n += n

        def close(self):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

ENV = "GELU_LAB_JOB_PROGRESS"
MIN_INTERVAL_S = 0.2  # at most five writes a second; the last update is always written


def read(path) -> dict | None:
    """The last progress written to `path`, or None (no file yet, or unreadable)."""
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


class _Mirrored(tqdm):
    def __init__(self, *args, path: str, **kw):
        self._path, self._count, self._last = Path(path), 0, 0.0
        self._desc = kw.get("desc") or ""  # a disabled tqdm keeps neither desc nor count
        super().__init__(*args, **kw)
        self._count = int(kw.get("initial", 0) or 0)
        self._write(force=True)

    def _write(self, force: bool = False):
        now = time.monotonic()
        if not force and now - self._last < MIN_INTERVAL_S and (self.total is None or self._count < self.total):
            return
        self._last = now
        state = json.dumps({"n": self._count, "total": self.total, "desc": self._desc, "time": time.time()})
        try:
            atomic_write(self._path, lambda tmp: tmp.write_text(state))
        except OSError:  # progress is a courtesy: never fail the job over it
            pass

    def update(self, n=1):
        # counted here: a disabled tqdm (stderr not a terminal) does not count
        self._count += n
        self._write()
        return super().update(n)

    def close(self):
        if not getattr(self, "_closed_mirror", False):
            self._closed_mirror = True
            self._write(force=True)
        super().close()


def bar(*args, **kw) -> tqdm:
    """A tqdm bar (same arguments), mirrored to ``$GELU_LAB_JOB_PROGRESS`` when that is set."""
    path = os.environ.get(ENV)
    if not path:
        return tqdm(*args, **kw)
    return _Mirrored(*args, path=path, **kw)
