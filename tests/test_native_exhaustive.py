"""All 2^32 float32 inputs: every native kernel variant this machine runs against the numba kernel.

The numba kernel is the independent path (checked on all 2^32 inputs against
the libm+mpmath reference by bench/exhaustive_float32.sh). Each side's
undecided inputs are settled by the reference; the results must agree bit for
bit. About 35 s per function for avx512, avx2 and scalar together on the
2-core machine (bench/exhaustive_native.py prints the times). "scalar-libm"
(the same C as "scalar", fma() by libm: the same results, fma being correctly
rounded) adds about 30–40 s per function, which make test cannot spare: it is
left to the dense slices of tests/test_native_kernel.py and to
bench/exhaustive_native.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from gelu_lab import kernels
from gelu_lab.reference import correctly_rounded

VARIANTS = [v for v in ("avx512", "avx2", "scalar") if v in kernels.available()]
CHUNK = 1 << 24
BITS = np.arange(CHUNK, dtype=np.uint32)  # a chunk's bit patterns are lo + BITS (a tenth of the time of an arange per chunk)


def settled(name, x, v, monkeypatch):
    monkeypatch.setenv(kernels.KERNEL_ENV, v)
    y, idx = kernels.raw_f32(name, x)
    if idx.size:
        y[idx] = correctly_rounded(name, x[idx])
    return y.view(np.uint32)


@pytest.mark.parametrize("name", ["gelu", "gelu_grad"])
def test_every_float32_input_every_variant(name, monkeypatch):
    assert VARIANTS, "gelu_lab._native was not built"
    wrong = {v: 0 for v in VARIANTS}
    first = {}
    for lo in range(0, 1 << 32, CHUNK):
        x = (BITS + np.uint32(lo)).view(np.float32)
        want = settled(name, x, "numba", monkeypatch)
        for v in VARIANTS:
            bad = np.flatnonzero(settled(name, x, v, monkeypatch) != want)
            if bad.size and v not in first:
                first[v] = x[bad[0]]
            wrong[v] += bad.size
    assert not any(wrong.values()), (wrong, first)
