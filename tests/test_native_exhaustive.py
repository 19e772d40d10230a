"""All 2^32 float32 inputs: every native kernel variant this machine runs against the numba kernel.

The numba kernel is the independent path (checked on all 2^32 inputs against
the libm+mpmath reference by bench/exhaustive_float32.sh). Each side's
undecided inputs are settled by the reference; the results must agree bit for
bit. "scalar-libm" (the same C as "scalar", fma() by libm: the same results,
fma being correctly rounded) would more than double the time, which make test
cannot spare: it is left to the dense slices of tests/test_native_kernel.py and
to bench/exhaustive_native.py (which prints each variant's seconds;
docs/decisions.md, "The exhaustive float32 test", has the test's time).
"""

from __future__ import annotations

import numpy as np
import pytest

from gelu_lab import kernels
from gelu_lab.core import _float32

VARIANTS = [v for v in ("avx512", "avx2", "scalar") if v in kernels.available()]
CHUNK = 1 << 24
BITS = np.arange(CHUNK, dtype=np.uint32)  # a chunk's bit patterns are lo + BITS (a tenth of the time of an arange per chunk)


def settled(name, x, v, out, monkeypatch):
    """gelu_lab's float32 path (kernel v, its undecided inputs settled by the reference) into
    out, reused from chunk to chunk: a fresh 64 MB array per call is paged in again each time."""
    monkeypatch.setenv(kernels.KERNEL_ENV, v)
    return _float32(name, x, out).view(np.uint32)


@pytest.mark.parametrize("name", ["gelu", "gelu_grad"])
def test_every_float32_input_every_variant(name, monkeypatch):
    assert VARIANTS, "gelu_lab._native was not built"
    wrong = {v: 0 for v in VARIANTS}
    first = {}
    bits, want, got = np.empty(CHUNK, np.uint32), np.empty(CHUNK, np.float32), np.empty(CHUNK, np.float32)
    differ = np.empty(CHUNK, np.bool_)
    for lo in range(0, 1 << 32, CHUNK):
        x = np.add(BITS, np.uint32(lo), out=bits).view(np.float32)
        expected = settled(name, x, "numba", want, monkeypatch)
        for v in VARIANTS:
            if not np.not_equal(settled(name, x, v, got, monkeypatch), expected, out=differ).any():
                continue
            bad = np.flatnonzero(differ)
            if v not in first:
                first[v] = x[bad[0]]
            wrong[v] += bad.size
    assert not any(wrong.values()), (wrong, first)
