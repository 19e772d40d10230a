"""The native float32 kernel (gelu_lab._native): every variant this machine runs
against the numba kernel, on dense slices of the hardest ranges; the forced
numba path; the 16-bit gathers; threads.

Each side's undecided inputs are settled by the reference, the one thing the two
paths share; the results must agree bit for bit. All 2^32 inputs per variant:
tests/test_native_exhaustive.py (avx512, avx2 and scalar, with mpmath on every
input a kernel leaves undecided) and bench/exhaustive_native.py (scalar-libm too).
A variant this CPU cannot run is not collected, and the run's summary names it.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys

import numba
import numpy as np
import pytest

import gelu_lab
from gelu_lab import kernels
from gelu_lab.floats import bfloat16
from gelu_lab.reference import correctly_rounded

NATIVE = [v for v in kernels.available() if v != "numba"]


def test_the_native_kernel_was_built():
    """make test installs the package with pip, which compiles gelu_lab._native (gcc is on every
    machine this project runs on): a failed build would leave numba running silently."""
    assert kernels._native is not None and NATIVE, "gelu_lab._native was not built"
    assert kernels._native.openmp(), "gelu_lab._native was built without OpenMP"
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
        w = nt[f"NT_{fn}_W"]  # the sub-ranges' ends in |x|, (j + 1/2) W, on both sides of 0
        parts += [around(s * (j + 0.5) * w, 2048) for j in range(16) for s in (1, -1)]
        fw = nt[f"NT_{fn}_FW"]  # and the AVX2 tables' ends (its FINE_N rows are on the signed x)
        parts += [around(s * (j + 0.5) * fw, 64) for j in range(int(nt["NT_FINE_N"]) // 2) for s in (1, -1)]
        parts += [around(nt[f"NT_{fn}_{t}"], 4096) for t in ("SAT", "ZERO")] + [around(-nt[f"NT_{fn}_SAT"], 4096)]
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


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("variant", NATIVE)
def test_variant_matches_numba_on_hard_slices(name, variant, x_hard, monkeypatch):
    want = settled(name, x_hard, "numba", monkeypatch)
    got = settled(name, x_hard, variant, monkeypatch)
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert bad.size == 0, f"{bad.size} differ, e.g. x={x_hard[bad[:4]]} got={got[bad[:4]]} want={want[bad[:4]]}"


def test_each_variant_runs_its_own_kernel(monkeypatch):
    """The variants' main passes decide with different bounds (AVX-512: whole units of the float64
    value's last place; AVX2: absolute bounds on its own tables; scalar: relative ones) and settle
    with different tiers, so each leaves its own set of inputs undecided: a variant number that
    ran another variant's kernel (all of them give correct values) shows as two equal sets.
    "scalar" and "scalar-libm" are one method (fma as an instruction or as libm's call)."""
    x = (np.random.default_rng(5).standard_normal(1 << 21) * 2).astype(np.float32)
    for name in NAMES:
        left = {}
        for v in NATIVE:
            monkeypatch.setenv(kernels.KERNEL_ENV, v)
            left[v] = tuple(kernels.raw_f32(name, x)[1])
        assert left["scalar"] == left["scalar-libm"], name
        methods = [v for v in NATIVE if v != "scalar-libm"]
        assert len({left[v] for v in methods}) == len(methods), (name, {v: len(left[v]) for v in methods})


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


def test_a_variant_this_cpu_cannot_run_is_named_in_the_summary(monkeypatch):
    """The variant tests are collected from kernels.available(): on a CPU without AVX-512 the
    avx512 ones are not there at all, and the run's summary says so in one line (conftest)."""
    from conftest import untested_variants_line

    built = kernels._native

    class NoAvx512:  # the extension as built, on a CPU that runs all but AVX-512
        VARIANT_NAMES = built.VARIANT_NAMES

        @staticmethod
        def variants():
            return [v for v in built.variants() if v != "avx512"]

    monkeypatch.setattr(kernels, "_native", NoAvx512)
    assert kernels.unavailable() == ["avx512"] and "avx512" not in kernels.available()
    line = untested_variants_line()
    assert line.startswith("kernel variants not tested: avx512 (") and "\n" not in line
    monkeypatch.setattr(kernels, "_native", None)  # nothing built: no variant to miss (test_the_native_kernel_was_built fails instead)
    assert kernels.unavailable() == [] and untested_variants_line() is None


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


def test_16bit_lookups_run_native_where_numba_is_the_float32_default(monkeypatch):
    """On a CPU without AVX2 numba runs float32 by default; the 16-bit lookups still run in C
    (numba's gather is never called), unless GELU_LAB_KERNEL=numba asks for it."""
    monkeypatch.setattr(kernels, "_ORDER", ("numba", *NATIVE))  # as on such a CPU: numba first
    assert kernels.variant() == "numba" and kernels.lookup_variant() == NATIVE[0]
    x = np.arange(65536, dtype=np.uint16).view(bfloat16)
    monkeypatch.setenv(kernels.KERNEL_ENV, "numba")
    assert kernels.lookup_variant() == "numba"
    by_numba = gelu_lab.gelu(x)
    monkeypatch.delenv(kernels.KERNEL_ENV)

    def no_gather(*args):
        raise AssertionError("numba's gather ran")

    monkeypatch.setattr(kernels, "_gather16", no_gather)
    assert np.array_equal(gelu_lab.gelu(x).view(np.uint16), by_numba.view(np.uint16))
    assert np.array_equal(by_numba.view(np.uint16), correctly_rounded("gelu", x).view(np.uint16))


@pytest.mark.parametrize("dtype", [np.float16, bfloat16], ids=["float16", "bfloat16"])
def test_16bit_lookup_of_a_large_array_streams_into_an_unaligned_out(dtype):
    """Outputs of 2^23 and more go out by non-temporal stores from the first 16-byte boundary:
    the elements before it, the body and the tail all hold the table's values."""
    from gelu_lab.core import table16

    n = (1 << 23) + 37
    bits = np.random.default_rng(13).integers(0, 1 << 16, n, dtype=np.uint16)
    x = bits.view(dtype)
    out = np.empty(n + 1, dtype)[1:]  # 2 bytes past an allocation's alignment
    assert out.ctypes.data % 16 != 0
    assert gelu_lab.gelu(x, out=out) is out
    assert np.array_equal(out.view(np.uint16), table16("gelu", np.dtype(dtype).name).view(np.uint16)[bits])


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


class _NoOpenMP:
    """The extension as built without OpenMP: its threads argument runs one thread."""

    def __init__(self, native):
        self._native = native

    def __getattr__(self, name):
        return getattr(self._native, name)

    def openmp(self):
        return False


@pytest.mark.parametrize("name", NAMES)
def test_python_threads_where_the_extension_has_no_openmp(name, monkeypatch):
    """Without OpenMP the array is split over Python threads: the same values and undecided indices."""
    x = np.random.default_rng(10).uniform(-15, 8, 40 * kernels.BLOCK * 8 + 5).astype(np.float32)
    with kernels.threads(2):
        want = kernels.raw_f32(name, x)
        monkeypatch.setattr(kernels, "_native", _NoOpenMP(kernels._native))
        assert not kernels._native_threads()
        got = kernels.raw_f32(name, x)
        y16 = gelu_lab.gelu(x.astype(np.float16))
    assert np.array_equal(got[0].view(np.uint32), want[0].view(np.uint32)) and np.array_equal(got[1], want[1])
    assert np.array_equal(y16.view(np.uint16), correctly_rounded("gelu", x.astype(np.float16)).view(np.uint16))


FORK_SCRIPT = """
import os, select, sys
import numpy as np, numba, torch
import gelu_lab
from gelu_lab import kernels
numba.set_num_threads(2)
torch.set_num_threads(2)
x = np.random.default_rng(11).normal(0, 3, 1 << 20).astype(np.float32)
want = gelu_lab.gelu(x)  # the extension's OpenMP threads
torch.nn.functional.gelu(torch.from_numpy(x))  # torch's, on the same libgomp
r, w = os.pipe()
pid = os.fork()
if pid == 0:  # the child writes 1 only if it computed the same bits without OpenMP's threads
    ok = False
    try:
        y = gelu_lab.gelu(x)  # hangs if it enters an OpenMP parallel region
        ok = np.array_equal(y.view(np.uint32), want.view(np.uint32)) and not kernels._native_threads()
    finally:
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
os.close(w)
ready, _, _ = select.select([r], [], [], 60)
answer = os.read(r, 1) if ready else b"hung"
if not ready:
    os.kill(pid, 9)
os.waitpid(pid, 0)
print(answer.decode() or "died")
"""


def test_a_forked_child_computes_without_the_parents_openmp_threads():
    """GNU OpenMP's threads do not survive a fork: after the parent ran parallel regions (gelu_lab's and
    torch's), a child computes on Python threads, with the same results, and does not hang.

    In a fresh interpreter: a test process may have run numba's own OpenMP layer, which
    ends any forked child that enters a numba parallel region (its own guard, not gelu_lab's).
    """
    out = subprocess.run([sys.executable, "-c", FORK_SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1:] == ["1"], (out.stdout, out.stderr[-2000:])


def test_the_kernel_built_without_openmp(tmp_path):
    """setup.py's fallback where -fopenmp fails: the same source without it builds, runs one thread, agrees."""
    import sysconfig

    src = pathlib.Path(kernels.__file__).with_name("native.c")
    so = tmp_path / ("_native" + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = ["gcc", "-O2", "-fno-fast-math", "-ffp-contract=off", "-fno-strict-aliasing", "-shared", "-fPIC",
           f"-I{sysconfig.get_paths()['include']}", str(src), "-o", str(so), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True)
    spec = importlib.util.spec_from_file_location("_native", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.openmp() is False and kernels._native.openmp() is True
    x = np.random.default_rng(12).normal(0, 3, 300_000).astype(np.float32)
    for fn in (0, 1):
        ya, yb = np.empty_like(x), np.empty_like(x)
        ua, ub = np.empty(x.size, np.int64), np.empty(x.size, np.int64)
        ca = mod.f32(fn, kernels._VARIANTS[NATIVE[0]], x, ya, ua, 2)
        cb = kernels._native.f32(fn, kernels._VARIANTS[NATIVE[0]], x, yb, ub, 2)
        assert np.array_equal(ya.view(np.uint32), yb.view(np.uint32))
        assert np.array_equal(np.sort(ua[:ca]), np.sort(ub[:cb]))


@pytest.mark.parametrize("name", NAMES)
def test_threads_crowded_with_undecided_inputs(name):
    """An array of nothing but undecided inputs on two threads: more than the first buffer
    holds, so the kernel runs again with room for all; every index comes back, once, sorted."""
    x = np.random.default_rng(14).uniform(-14.5, 8, 1 << 21).astype(np.float32)
    _, idx = kernels.raw_f32(name, x)
    hard = x[idx]
    packed = hard[np.resize(np.arange(hard.size), 1 << 18)]
    with kernels.threads(2):
        y, left = kernels.raw_f32(name, packed)
    assert np.array_equal(left, np.arange(packed.size))
    y[left] = correctly_rounded(name, packed[left])
    assert np.array_equal(y.view(np.uint32), correctly_rounded(name, packed).view(np.uint32))


def test_out_aliasing_the_input_and_empty_arrays():
    x = np.linspace(-6, 6, 1001, dtype=np.float32)
    want = gelu_lab.gelu(x)
    y = x.copy()
    assert gelu_lab.gelu(y, out=y) is y and np.array_equal(y, want)  # in place
    assert gelu_lab.gelu(np.empty(0, np.float32)).shape == (0,)


@pytest.mark.parametrize("forced", ["numba", None])
def test_bench_says_which_kernel_runs(forced, capsys, monkeypatch):
    """The float32 kernel and the 16-bit lookups' (native unless numba is forced)."""
    from gelu_lab.cli import main

    if forced:
        monkeypatch.setenv(kernels.KERNEL_ENV, forced)
    assert main(["bench", "--cases", "gelu_lab:erf", "--sizes", "1000", "--repeats", "1", "--no-store"]) == 0
    out = capsys.readouterr().out
    best = kernels.available()[0]
    assert f"float32 kernel: {forced or best}, 16-bit lookups: {forced or best} " in out
    assert "ISA: " in out


def test_the_avx2_stand_in_compiles_numba_without_avx512(monkeypatch, tmp_path):
    """bench/bench_gelu.py --avx2's environment: numba's kernel has no AVX-512 register in it
    (NUMBA_CPU_NAME alone keeps the host's features: AVX-512 code under the name haswell),
    torch is told AVX2 and gelu_lab runs its avx2 variant unless GELU_LAB_KERNEL says otherwise."""
    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
    monkeypatch.delenv(kernels.KERNEL_ENV, raising=False)
    import bench_gelu

    env = bench_gelu.held_to_avx2_env()
    assert env["ATEN_CPU_CAPABILITY"] == "avx2" and env[kernels.KERNEL_ENV] == "avx2"
    code = ("import numpy as np; from gelu_lab import kernels; f = kernels._gelu_grad_f32; "
            "kernels.raw_f32('gelu_grad', np.ones(100, np.float32)); "
            "asm = f.inspect_asm(f.signatures[0]); print(asm.count('%zmm'), asm.count('%ymm'))")
    env = {**env, kernels.KERNEL_ENV: "numba", "NUMBA_CACHE_DIR": str(tmp_path)}  # compiled afresh: a cached kernel has no assembly to show
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    zmm, ymm = map(int, done.stdout.split())
    assert zmm == 0 and ymm > 0, (zmm, ymm)


def test_the_avx2_stand_in_holds_torch_to_avx2_in_aten_and_onednn(monkeypatch):
    """torch's exact GELU and its backward run in oneDNN, which picks its ISA itself: the stand-in's
    torch must run no AVX-512 kernel anywhere, or its ratios divide by a faster torch than an AVX2 CPU has."""
    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
    import bench_gelu

    from gelu_lab.analysis import bench

    for k, v in bench_gelu.held_to_avx2_env().items():
        monkeypatch.setenv(k, v)
    tk = bench.torch_kernels()
    assert tk["torch:erf"].startswith("oneDNN") and tk["torch:erf:grad"].startswith("oneDNN"), tk
    assert not [k for k in tk.values() if "avx512" in k.lower()], tk


def test_zen1_estimate_reads_the_loops_that_run(monkeypatch, tmp_path):
    """bench/zen1_estimate.py's loops (llvm-mca itself is not needed here): the avx2 variant's two passes
    and its settling loop, per function, and the share of inputs it lists; oneDNN's jit:avx2 GELU loops
    as dumped from a torch run; numba's AVX2 division loop."""
    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
    import zen1_estimate as z

    for fn in ("gelu", "grad"):
        p1, p2 = z.ours(fn)
        assert any("vpermps" in i for i in p1) and not any("prefetch" in i for i in p1)
        assert any("prefetcht0" in i for i in p2) and sum("vfmadd" in i for i in p2) >= 6
        assert not [i for i in p1 + p2 if i.startswith(("j", "call"))]
        st = z.settle(fn)
        assert any("vdivpd" in i and "ymm" in i for i in st) and not [i for i in st if i.startswith(("j", "call"))]
    share = z.listed_share()
    assert set(share) == {"gelu", "grad"} and all(0.001 < s < 0.05 for s in share.values()), share
    d = z.onednn(tmp_path)
    assert set(d) == {"fwd", "bwd"} and all(any("vdivps" in i and "ymm" in i for i in body) for (body,) in d.values())
    assert not [i for (body,) in d.values() for i in body if "zmm" in i]  # held to AVX2
    nb = z.numba_loops(tmp_path, keys=("grad",))  # one kernel: each compiles afresh (its assembly), seconds each
    assert set(nb) == {"grad"} and all(any("vdivpd" in i for i in body) and not any("zmm" in i for i in body) for (body,) in nb.values())


def test_native_split_lists_every_variant_and_its_bands_add_up(tmp_path):
    """bench/native_split.py builds and runs on this machine: a row per native variant and
    function; the listed inputs by band add up to the listed share; the main pass is part of
    the whole; "scalar" and "scalar-libm" (fma as an instruction or as libm's correctly rounded
    call) list and leave undecided exactly the same inputs."""
    root = pathlib.Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(root / "bench" / "native_split.py"), "--n", str(1 << 18), "--repeats", "1",
                           "--out", str(tmp_path / "native_split.json")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "native_split.json").read_text())["name"] == "native_split"  # not bench/results: a short run is no figure
    rows = {}
    for line in done.stdout.splitlines():
        if line.startswith("#") or line.startswith("variant"):
            continue
        v, fn, main_ns, all_ns, listed, per_listed, undecided, *bands = line.split()
        assert 0 < float(main_ns) <= float(all_ns), line
        assert sum(map(float, bands)) == pytest.approx(float(listed), abs=1e-3), line
        rows[v, fn] = (listed, undecided, bands)
    assert set(rows) == {(v, fn) for v in NATIVE for fn in ("gelu", "gelu_grad")}
    for fn in ("gelu", "gelu_grad"):
        assert rows["scalar", fn] == rows["scalar-libm", fn]
