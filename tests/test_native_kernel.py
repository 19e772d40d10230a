"""The native float32 kernel (gelu_lab._native): every variant this machine runs
against the numba kernel, on dense slices of the hardest ranges; the forced
numba path; the 16-bit gathers; threads.

All 2^32 inputs per variant: bench/exhaustive_native.py (minutes per variant,
so not here). Each side's undecided inputs are settled by the reference, the
one thing the two paths share; the results must agree bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

import gelu_lab
from gelu_lab import kernels
from gelu_lab.floats import bfloat16
from gelu_lab.reference import correctly_rounded

NATIVE = [v for v in kernels.available() if v != "numba"]
NAMES = ("gelu", "gelu_grad")


def settled(name, x, v, monkeypatch):
    monkeypatch.setenv(kernels.KERNEL_ENV, v)
    y, idx = kernels.raw_f32(name, x)
    assert np.all(np.diff(idx) > 0)
    if idx.size:
        y[idx] = correctly_rounded(name, x[idx])
    return y


def around(v: float, half: int) -> np.ndarray:
    """The 2*half float32 bit patterns nearest v (same sign)."""
    b = int(np.float32(v).view(np.uint32))
    return np.arange(b - half, b + half, dtype=np.int64).astype(np.uint32).view(np.float32)


def hard_inputs() -> np.ndarray:
    """Sub-range ends, thresholds, GELU's root, the tail, tiny and subnormal inputs, specials, random bits."""
    nt = {}
    for line in open(kernels.__file__.replace("kernels.py", "native_tables.h")):
        if line.startswith("#define NT_"):
            _, key, val = line.split(maxsplit=2)
            nt[key] = float(val)
    parts = []
    for fn in ("GELU", "GRAD"):
        w = nt[f"NT_{fn}_W"]
        parts += [around((k + 0.5) * w, 2048) for k in range(-8, 9) if k + 0.5 != 0]
        parts += [around(nt[f"NT_{fn}_{t}"], 4096) for t in ("LO", "SAT", "ZERO")]
    parts.append(around(nt["NT_X0_HI"], 1 << 15))
    parts += [around(v, 4096) for v in (15.0, -15.0, 2.0**-30, -(2.0**-30), 1.0, -1.0)]
    rng = np.random.default_rng(21)
    parts.append(rng.uniform(-14.6, -5.0, 1 << 17).astype(np.float32))
    parts.append((rng.standard_normal(1 << 17) * 2).astype(np.float32))
    parts.append(rng.integers(0, 2**32, 1 << 17, dtype=np.uint64).astype(np.uint32).view(np.float32))
    tiny = np.arange(1 << 14, dtype=np.uint32)
    parts += [tiny.view(np.float32), (tiny | np.uint32(0x80000000)).view(np.float32)]
    parts.append(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1e-45, -1e-45], np.float32))
    return np.concatenate(parts)


@pytest.fixture(scope="module")
def x_hard():
    return hard_inputs()


@pytest.mark.skipif(not NATIVE, reason="gelu_lab._native was not built")
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("variant", NATIVE)
def test_variant_matches_numba_on_hard_slices(name, variant, x_hard, monkeypatch):
    want = settled(name, x_hard, "numba", monkeypatch)
    got = settled(name, x_hard, variant, monkeypatch)
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert bad.size == 0, f"{bad.size} differ, e.g. x={x_hard[bad[:4]]} got={got[bad[:4]]} want={want[bad[:4]]}"


@pytest.mark.skipif(not NATIVE, reason="gelu_lab._native was not built")
def test_forced_numba_path_and_missing_extension(monkeypatch):
    """GELU_LAB_KERNEL=numba runs the numba kernels; without the extension they run by default."""
    x = (np.random.default_rng(5).standard_normal(50_000) * 3).astype(np.float32)
    native = gelu_lab.gelu(x), gelu_lab.gelu_grad(x)
    monkeypatch.setenv(kernels.KERNEL_ENV, "numba")
    assert kernels.variant() == "numba"
    assert np.array_equal(gelu_lab.gelu(x).view(np.uint32), native[0].view(np.uint32))
    assert np.array_equal(gelu_lab.gelu_grad(x).view(np.uint32), native[1].view(np.uint32))
    monkeypatch.delenv(kernels.KERNEL_ENV)
    monkeypatch.setattr(kernels, "_native", None)  # as if the C build had failed
    assert kernels.available() == ["numba"] and kernels.variant() == "numba"
    assert np.array_equal(gelu_lab.gelu(x).view(np.uint32), native[0].view(np.uint32))
    monkeypatch.setenv(kernels.KERNEL_ENV, "avx512")
    with pytest.raises(ValueError, match="cannot run here"):
        kernels.variant()


def test_unknown_kernel_name_is_refused(monkeypatch):
    monkeypatch.setenv(kernels.KERNEL_ENV, "cuda")
    with pytest.raises(ValueError, match="available"):
        gelu_lab.gelu(np.float32([1.0]))


@pytest.mark.parametrize("variant", kernels.available())
@pytest.mark.parametrize("dtype", [np.float16, bfloat16], ids=["float16", "bfloat16"])
def test_16bit_gather_every_pattern_into_out(variant, dtype, monkeypatch):
    """Every 16-bit pattern, written straight into out= (and into a strided out through a copy)."""
    monkeypatch.setenv(kernels.KERNEL_ENV, variant)
    x = np.arange(65536, dtype=np.uint16).view(dtype)
    want = correctly_rounded("gelu", x)
    out = np.empty_like(x)
    assert gelu_lab.gelu(x, out=out) is out
    assert np.array_equal(out.view(np.uint16), want.view(np.uint16))
    strided = np.empty(2 * x.size, dtype)[::2]
    gelu_lab.gelu(x, out=strided)
    assert np.array_equal(strided.view(np.uint16), want.view(np.uint16))


@pytest.mark.skipif(not NATIVE, reason="gelu_lab._native was not built")
@pytest.mark.parametrize("name", NAMES)
def test_threads_split_the_array_alike(name, monkeypatch):
    """One thread or two: the same values and the same sorted undecided indices."""
    x = np.random.default_rng(9).uniform(-14.5, 8, 3 * kernels.BLOCK * 8 + 77).astype(np.float32)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        y1, i1 = kernels.raw_f32(name, x)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        y2, i2 = kernels.raw_f32(name, x)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(y1.view(np.uint32), y2.view(np.uint32)) and np.array_equal(i1, i2)
    assert i1.size > 0


@pytest.mark.skipif(not NATIVE, reason="gelu_lab._native was not built")
def test_out_aliasing_the_input_and_empty_arrays():
    x = np.linspace(-6, 6, 1001, dtype=np.float32)
    want = gelu_lab.gelu(x)
    y = x.copy()
    assert gelu_lab.gelu(y, out=y) is y and np.array_equal(y, want)  # in place
    assert gelu_lab.gelu(np.empty(0, np.float32)).shape == (0,)


@pytest.mark.parametrize("forced", ["numba", None])
def test_bench_says_which_kernel_runs(forced, capsys, monkeypatch):
    from gelu_lab.cli import main

    if forced:
        monkeypatch.setenv(kernels.KERNEL_ENV, forced)
    assert main(["bench", "--cases", "gelu_lab:erf", "--sizes", "1000", "--repeats", "1", "--no-store"]) == 0
    out = capsys.readouterr().out
    assert f"float32 kernel: {forced or kernels.available()[0]} " in out
    assert "ISA: " in out
