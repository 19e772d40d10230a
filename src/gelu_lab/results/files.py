"""Files written whole or not at all, and read back only when intact.

    atomic_write(path, write)    write(tmp) next to path, fsync, rename over path;
                                 on any failure (full disk, Ctrl+C) tmp is removed
    write_checked(path, data)    bytes behind a sha256 header, atomically
    read_checked(path) -> bytes  the bytes, or CorruptFile if they do not match their sha256

A reader of `path` sees the old file or the new one, never half of one: a
killed or failed writer leaves at most its own tmp file (removed when it can
still run, e.g. on ENOSPC). The checksum catches what renaming cannot: bytes
damaged later, on disk or by hand.
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import Callable

import numpy as np

MAGIC = b"gelu-lab sha256 "


class CorruptFile(OSError):
    """A checked file whose bytes do not match its recorded sha256 (or that has none)."""


def atomic_write(path, write: Callable[[Path], object]) -> Path:
    """Call write(tmp) on a temporary path beside `path`, then rename it over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        with open(tmp, "rb+") as f:  # on disk before the rename, so a power cut cannot leave an empty file
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_checked(path, data: bytes) -> Path:
    """Write `data` behind a header line holding its sha256, atomically."""
    header = MAGIC + hashlib.sha256(data).hexdigest().encode("ascii") + b"\n"
    return atomic_write(path, lambda p: p.write_bytes(header + data))


def read_checked(path) -> bytes:
    """The data written by write_checked; CorruptFile if the header is missing or the sha256 differs."""
    raw = Path(path).read_bytes()
    head, sep, data = raw.partition(b"\n")
    if not (head.startswith(MAGIC) and sep):
        raise CorruptFile(f"{path} has no sha256 header")
    if hashlib.sha256(data).hexdigest().encode("ascii") != head[len(MAGIC):]:
        raise CorruptFile(f"{path} does not match its sha256")
    return data


def plain(v):
    """JSON-safe Python value (NumPy scalars unwrapped, nan/inf as strings)."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v
