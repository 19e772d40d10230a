"""The ULP accuracy checker, checked by independent brute force.

ULP distances are recomputed by ranking every finite float of the format
(searchsorted on the sorted values), categories by plain comparisons, and the
reference at the worst inputs by mpmath (tests/mp_truth.py).
"""

import json
import sys
import textwrap

import numpy as np
import pytest
import torch

from gelu_lab.analysis import accuracy as acc
from gelu_lab.cli import main
from gelu_lab.floats import bfloat16
from gelu_lab.reference import correctly_rounded
from gelu_lab.results.store import Store

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from mp_truth import correct  # noqa: E402


def _all16(dtype):
    return np.arange(65536, dtype=np.uint16).view(dtype)


def _rank_table(dtype):
    """Sorted float64 values of every finite float of dtype, -0 dropped (it ranks as +0)."""
    v = _all16(dtype).astype(np.float64)
    v = v[np.isfinite(v)]
    return np.unique(v)  # unique merges -0 and +0


def _brute_ulp(a, b, table):
    return np.abs(np.searchsorted(table, a.astype(np.float64)) - np.searchsorted(table, b.astype(np.float64)))


@pytest.mark.parametrize("dtype", [np.float16, bfloat16])
def test_ulp_distance_equals_rank_difference(dtype):
    x = _all16(dtype)
    fin = x[np.isfinite(x.astype(np.float64))]
    rng = np.random.default_rng(1)
    a, b = rng.choice(fin, 20000), rng.choice(fin, 20000)
    table = _rank_table(dtype)
    np.testing.assert_array_equal(acc.ulp_distance(a, b), _brute_ulp(a, b, table))


def test_ordered_roundtrip_float32():
    x = np.array([0.0, -0.0, 1e-45, -1e-45, 1.0, -1.0, 3.4028235e38, -np.inf, np.inf], dtype=np.float32)
    o = acc.ordered(x)
    assert list(o[:4]) == [0, 0, 1, -1]
    assert o[4] == 0x3F800000 and o[5] == -0x3F800000
    np.testing.assert_array_equal(acc.from_ordered(o, acc.FORMATS["float32"]).view(np.uint32)[[0, 2, 3, 4, 5, 6, 7, 8]],
                                  x.view(np.uint32)[[0, 2, 3, 4, 5, 6, 7, 8]])


def test_tally_of_known_perturbations():
    x = _all16(np.float16)
    want = correctly_rounded("gelu", x)
    got = want.copy()
    bits = got.view(np.uint16)
    wf = want.astype(np.float64)
    normal = np.flatnonzero(np.isfinite(wf) & (np.abs(wf) > 1e-3) & (np.abs(wf) < 100))
    rng = np.random.default_rng(0)
    picks = rng.choice(normal, 40, replace=False)
    off = {int(i): k for i, k in zip(picks[:30], [1] * 10 + [2] * 10 + [7] * 9 + [300])}
    for i, k in off.items():  # k ulp away from zero-ward: magnitude bits + k
        bits[i] += k
    flush_i, over_i, nan_i = picks[30:33], picks[33:35], picks[35:36]
    got[flush_i] = 0
    got[over_i] = np.inf
    got[nan_i] = np.nan
    zero = np.flatnonzero((wf == 0) & ~np.signbit(wf))[:5]
    assert zero.size >= 1
    got[zero] = -0.0
    t = acc.tally(x, got, want)
    assert t["n"] == 65536
    assert t["wrong"] == 30 + 3 + 2 + 1 + zero.size
    assert t["counts"]["flush"] == 3 and t["counts"]["overflow"] == 2 and t["counts"]["spurious_nan"] == 1
    assert t["counts"]["zero_sign"] == zero.size
    assert t["max_ulp"] == 300 and t["worst"]["x"] == float(x[picks[29]])
    h = t["hist"]
    assert h[1] == 10 and h[2] == 10 and h[4] == 9 and h[10] == 1  # 7 in 5-8, 300 in 257-512
    # every finite-reference input lands in exactly one place
    finite_ref = int(np.count_nonzero(np.isfinite(wf)))
    assert sum(h) + t["counts"]["flush"] + t["counts"]["overflow"] + t["counts"]["zero_sign"] + t["counts"]["spurious_nan"] == finite_ref
    assert sum(t["regions"]["n"]) == 65536 and sum(t["regions"]["wrong"]) == t["wrong"]


def test_merge_equals_one_tally():
    x = _all16(bfloat16)
    got = torch.nn.functional.gelu(torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)).view(torch.int16).numpy().view(bfloat16)
    want = correctly_rounded("gelu", x)
    whole = acc.tally(x, got, want)
    parts = acc.empty_tally()
    for s in np.array_split(np.arange(65536), 7):
        parts = acc.merge(parts, acc.tally(x[s], got[s], want[s]))
    assert json.dumps(parts, sort_keys=True) == json.dumps(whole, sort_keys=True)  # nan examples compare as text


@pytest.mark.parametrize("spec,dtype", [("torch:gelu", np.float16), ("torch:gelu_tanh", bfloat16)])
def test_torch_16bit_by_brute_force(spec, dtype):
    s = acc.measure(spec, np.dtype(dtype).name)
    x = _all16(dtype)
    t = torch.from_numpy(x.view(np.int16)).view(torch.float16 if dtype == np.float16 else torch.bfloat16)
    approx = "none" if spec == "torch:gelu" else "tanh"
    got = torch.nn.functional.gelu(t, approximate=approx).view(torch.int16).numpy().view(dtype)
    want = correctly_rounded("gelu" if approx == "none" else "gelu_tanh", x)
    g, w = got.astype(np.float64), want.astype(np.float64)
    same = (g == w) & (np.signbit(g) == np.signbit(w)) | (np.isnan(g) & np.isnan(w))
    flush = (g == 0) & (w != 0) & np.isfinite(w)
    zsign = (g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))
    snan = np.isnan(g) & ~np.isnan(w)
    ulp_ok = np.isfinite(g) & np.isfinite(w) & ~flush & ~zsign
    u = _brute_ulp(g[ulp_ok], w[ulp_ok], _rank_table(dtype))
    assert s["n"] == 65536
    assert s["wrong"] == int(np.count_nonzero(~same))
    assert s["counts"]["flush"] == int(flush.sum()) and s["counts"]["zero_sign"] == int(zsign.sum())
    assert s["counts"]["spurious_nan"] == int(snan.sum())
    assert s["max_ulp"] == int(u.max()) and s["histogram"]["counts"][0] == int((u == 0).sum())
    # the reference itself at the worst input, by mpmath
    xw = s["worst"]["x"]
    name = "gelu" if approx == "none" else "gelu_tanh"
    assert float(np.float64(correct(name, np.array([xw], dtype=dtype)[0], dtype))) == s["worst"]["want"]


def test_torch_grad_is_autograd():
    s = acc.measure("torch:gelu_grad", "bfloat16")
    assert s["reference"] == "gelu_grad"
    x = _all16(bfloat16)
    t = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16).clone().requires_grad_(True)
    torch.nn.functional.gelu(t).sum().backward()
    got = t.grad.view(torch.int16).numpy().view(bfloat16)
    want = correctly_rounded("gelu_grad", x)
    fin = np.isfinite(want.astype(np.float64)) & np.isfinite(got.astype(np.float64))
    fin &= ~((got.astype(np.float64) == 0) | (want.astype(np.float64) == 0))
    assert s["max_ulp"] == int(_brute_ulp(got[fin], want[fin], _rank_table(bfloat16)).max())


def test_builtin_exact_gelu_is_correctly_rounded_16bit():
    for dt in ("float16", "bfloat16"):
        s = acc.measure("gelu", dt)
        assert s["wrong"] == 0 and s["max_ulp"] == 0


def test_user_module_function(tmp_path, monkeypatch):
    (tmp_path / "mykern.py").write_text(textwrap.dedent("""
        import numpy as np, torch
        import gelu_lab

        def off_by_one(x):
            y = gelu_lab.gelu(x).copy()
            y.view(np.uint16)[:: 1000] += 1          # every 1000th input one ulp off
            return y

        def torch_only(t):
            return torch.nn.functional.gelu(t)       # refuses NumPy arrays

        def wide(x):
            return gelu_lab.gelu(x.astype(np.float64))  # answers in float64
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    s = acc.measure(acc.resolve("mykern:off_by_one"), "float16")
    x = _all16(np.float16)
    w = correctly_rounded("gelu", x).astype(np.float64)[::1000]
    hit = np.isfinite(w) & (w != np.inf)
    assert s["wrong"] == int(hit.sum()) and s["max_ulp"] == 1
    t = acc.measure(acc.resolve("mykern:torch_only"), "float16")
    assert t["wrong"] == acc.measure("torch:gelu", "float16")["wrong"]
    wide = acc.measure(acc.resolve("mykern:wide"), "float16")
    assert wide["returned_dtype"] == "float64" and wide["wrong"] == 0


def test_float32_sample_covers_every_binade():
    x = acc.stratified_sample(51000, seed=3)
    b = x.view(np.uint32)
    exps = (b >> 23) & 0xFF
    for sign in (0, 1):
        got = np.bincount(exps[(b >> 31) == sign], minlength=256)
        assert np.all(got[:255] >= 100)  # 51000 / 510 per binade and sign


def test_range_plan_counts_every_float32():
    p = acc.plan("float32", "range", interval=(1.0, 1.0 + 2**-10))
    assert p.size == 2**13 + 1  # spacing 2^-23 on [1, 2)
    p = acc.plan("float32", "range", interval=(-1e-44, 1e-44))
    x = p.chunk(0)
    assert x.size == p.size == 15  # 7 negative, 0, 7 positive subnormals (1e-44 ~ 7.006 min subnormals)
    assert np.all(np.diff(x.astype(np.float64)) > 0)


def test_float32_range_against_brute_force():
    s = acc.measure("torch:gelu", "float32", "range", interval=(-5.6, -5.5))
    x = acc.plan("float32", "range", interval=(-5.6, -5.5)).chunk(0)
    got = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    want = correctly_rounded("gelu", x)
    ok = (got != 0) & (want != 0)
    u = np.abs(got[ok].view(np.int32).astype(np.int64) - want[ok].view(np.int32).astype(np.int64))  # same sign here
    assert s["n"] == x.size and s["max_ulp"] == int(u.max())
    assert s["counts"]["flush"] == int(np.count_nonzero((got == 0) & (want != 0)))


class _Boom(Exception):
    pass


def test_store_and_resume(tmp_path):
    interval = (2.0, 2.0 + 2**-12)  # 2^10 + 1 float32, 9 chunks of 2^7
    plain = acc.measure("gelu_tanh", "float32", "range", interval=interval, chunk_bits=10 - 3)
    calls = {"n": 0}
    base = acc.resolve("gelu_tanh")

    def dies(x):
        calls["n"] += 1
        if calls["n"] == 4:
            raise _Boom
        return base(x)

    killed = acc.Impl("gelu_tanh", dies, "gelu_tanh")
    with Store(tmp_path / "s.sqlite") as st:
        with pytest.raises(_Boom):
            acc.measure(killed, "float32", "range", interval=interval, chunk_bits=7, store=st)
        run = st.runs(kind="accuracy")[0]
        assert run["status"] == "running" and len(st.results(run["id"])) == 3
        resumed = acc.measure(killed, "float32", "range", interval=interval, chunk_bits=7, store=st)
        assert calls["n"] == 4 + 6  # only the 6 chunks not stored are computed again
        assert resumed["run_id"] == run["id"]
        assert acc.stored("gelu_tanh", "float32", "range", store=st, interval=interval, chunk_bits=7)["n"] == plain["n"]
    resumed.pop("run_id")
    plain["plan"], resumed["plan"] = None, None
    assert resumed == plain


def _cli(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_json(capsys, tmp_path):
    rc, out, _ = _cli(capsys, "accuracy", "--impl", "torch:gelu", "--dtype", "bfloat16", "--store", str(tmp_path / "a.sqlite"), "--format", "json")
    assert rc == 0
    d = json.loads(out)
    assert d["n"] == 65536 and d["dtype"] == "bfloat16" and len(d["regions"]) == len(acc.REGIONS)
    with Store(tmp_path / "a.sqlite") as st:
        run, value = st.latest_result("accuracy", "summary")
        assert value["max_ulp"] == d["max_ulp"] and run["status"] == "done"


@pytest.mark.parametrize(
    "argv",
    [
        ["accuracy", "--impl", "nosuchmodule_xyz:f"],
        ["accuracy", "--impl", "numpy:no_such_function"],
        ["accuracy", "--impl", "math:pi"],
        ["accuracy", "--impl", "torch:relu"],
        ["accuracy", "--impl", "bogus"],
        ["accuracy", "--impl", "gelu", "--dtype", "float16", "--sample", "100"],
        ["accuracy", "--impl", "gelu", "--range", "1", "-1"],
        ["accuracy", "--impl", "gelu", "--sample", "0"],
        ["accuracy", "--impl", "gelu", "--dtype", "float64"],
        ["accuracy", "--impl", "gelu", "--reference", "relu"],
    ],
)
def test_cli_bad_args(capsys, argv):
    rc, out, err = _cli(capsys, *argv, "--no-store")
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("gelu-lab")
