"""All 2^32 float32 inputs for every native kernel variant, and an oracle that shares no code with them.

- test_every_float32_input_every_variant: each native variant this machine runs against
  the numba kernel on all 2^32 inputs, bit for bit. Each side's undecided inputs are
  settled by gelu_lab.reference, the one thing the two sides share, so that comparison
  alone would pass a wrong reference: every input any kernel lists as undecided in the
  sweep (7e4 to 8e4 of them) is then checked against mpmath (tests/mp_truth.py, which
  imports no gelu_lab code).
- test_a_stratified_sample_of_every_binade_against_mpmath: every kernel this machine
  runs, numba and scalar-libm included, against mpmath on a seeded sample of each binade
  of both signs (its ends and random significands; densely where |x| is in [2^-30, 16),
  where the kernels compute rather than return a limit or x/2).

"scalar-libm" (the same C as "scalar", fma() by libm: the same results, fma being
correctly rounded) would more than double the sweep's time, which make test cannot
spare: it is left to the sample here, the dense slices of tests/test_native_kernel.py
and bench/exhaustive_native.py (which prints each variant's seconds; docs/decisions.md,
"The exhaustive float32 test", has the test's time).
"""

from __future__ import annotations

import numpy as np
import pytest

from gelu_lab import kernels
from gelu_lab.core import _float32
from mp_truth import correct_float32

VARIANTS = [v for v in ("avx512", "avx2", "scalar") if v in kernels.available()]
CHUNK = 1 << 24
BITS = np.arange(CHUNK, dtype=np.uint32)  # a chunk's bit patterns are lo + BITS (a tenth of the time of an arange per chunk)


def settled(name, x, v, out, monkeypatch):
    """gelu_lab's float32 path (kernel v, its undecided inputs settled by the reference) into
    out, reused from chunk to chunk: a fresh 64 MB array per call is paged in again each time."""
    monkeypatch.setenv(kernels.KERNEL_ENV, v)
    return _float32(name, x, out).view(np.uint32)


def listing_undecided(monkeypatch) -> dict[str, list]:
    """{kernel: [bit patterns it left undecided, call by call]}, recorded from kernels.raw_f32
    (which core._float32 looks up at each call) without changing what it returns."""
    seen, raw_f32 = {}, kernels.raw_f32

    def listed(name, x, out=None):
        y, idx = raw_f32(name, x, out)
        seen.setdefault(kernels.variant(), []).append(x[idx].view(np.uint32))  # a copy (fancy indexing)
        return y, idx

    monkeypatch.setattr(kernels, "raw_f32", listed)
    return seen


def against_mpmath(name, x, variants, monkeypatch) -> dict:
    """{kernel: (inputs where gelu_lab's float32 result differs from mpmath's, its results there)}
    for the kernels that got any wrong."""
    want = correct_float32(name, x).view(np.uint32)
    wrong = {}
    for v in variants:
        got = settled(name, x, v, np.empty(x.size, np.float32), monkeypatch)
        bad = np.flatnonzero(got != want)
        if bad.size:
            wrong[v] = (x[bad[:5]], got[bad[:5]].view(np.float32), want[bad[:5]].view(np.float32), bad.size)
    return wrong


@pytest.mark.parametrize("name", ["gelu", "gelu_grad"])
def test_every_float32_input_every_variant(name, monkeypatch):
    assert VARIANTS, "gelu_lab._native was not built"
    undecided = listing_undecided(monkeypatch)
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
    # the reference both sides trusted, on every input a kernel could not decide, against mpmath
    listed = {v: sum(b.size for b in calls) for v, calls in undecided.items()}
    assert set(listed) == {"numba", *VARIANTS} and all(listed.values()), listed  # each kernel's own list, none empty
    hard = np.unique(np.concatenate([b for calls in undecided.values() for b in calls])).view(np.float32)
    assert not against_mpmath(name, hard, ["numba", *VARIANTS], monkeypatch), listed


def binade_sample(rng, dense: int = 1024, sparse: int = 64) -> np.ndarray:
    """float32 inputs from every binade of each sign (exponent field 0, the subnormals and
    zero, to 254): its first two and last significands and `sparse` random ones, `dense`
    where |x| is in [2^-30, 16)."""
    out = []
    for sign in (0, 1 << 31):
        for e in range(255):
            k = dense if 127 - 30 <= e < 127 + 4 else sparse
            m = np.concatenate([rng.integers(0, 1 << 23, k, dtype=np.uint32), np.uint32([0, 1, (1 << 23) - 1])])
            out.append(np.uint32(sign | e << 23) | m)
    return np.unique(np.concatenate(out)).view(np.float32)


@pytest.mark.parametrize("name", ["gelu", "gelu_grad"])
def test_a_stratified_sample_of_every_binade_against_mpmath(name, monkeypatch):
    x = binade_sample(np.random.default_rng(40))
    assert x.size > 50_000 and np.isfinite(x).all()
    assert not against_mpmath(name, x, kernels.available(), monkeypatch)
