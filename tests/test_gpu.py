"""The Triton kernels of gelu_lab.gpu, run by Triton's interpreter on CPU tensors, against the CPU kernel.

The kernels are the ones a CUDA tensor runs (gelu_lab.torch sends them there); the
interpreter executes the same Triton code with NumPy, so the arithmetic, the
listing and settling, the lookups and the fused backward are all exercised here.
bench/gpu_check.py runs them on a GPU, over every float32 input.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import mpmath
import numpy as np
import pytest
import torch

# Triton reads this when a kernel is defined: before gelu_lab.gpu.kernels is imported
os.environ["TRITON_INTERPRET"] = "1"
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from gelu_lab import gpu, kernels as cpu_kernels, torch as gtorch  # noqa: E402
from gelu_lab.gpu import dd, dd_gelu, kernels as K  # noqa: E402
from mp_truth import correct  # noqa: E402
from test_torch_op import all16, float32_cases, same  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
FORMS = ["none", "tanh", "sigmoid"]


@pytest.fixture
def triton_on_cpu(monkeypatch):
    monkeypatch.setattr(gtorch, "TRITON_ON_CPU", True)


def test_the_kernels_are_interpreted_here():
    assert isinstance(K.main32, triton.runtime.interpreter.InterpretedFunction)
    assert os.environ["TRITON_INTERPRET"] == "1" and gpu.available() is None


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_every_16_bit_pattern_is_the_cores(dtype, triton_on_cpu):
    x = all16(dtype)
    for a in FORMS:
        for order in range(3):
            assert same(gtorch._OPS[order](x, a), gtorch._on_cpu(x, order, a)), (a, order)


def float32_sample(thin: int):
    """float32_cases (every binade, runs at the hard places) thinned, the negative tail, and the
    inputs the CPU kernel leaves undecided (after its TIGHT tier) in 2^22 random ones."""
    rng = np.random.default_rng(44)
    cases = float32_cases().numpy()[::thin]
    tail = rng.uniform(-15.5, -5.0, 48000 // thin).astype(np.float32)
    wide = (rng.standard_normal(1 << 22) * 4).astype(np.float32)
    hard = [wide[cpu_kernels.raw_f32(name, wide)[1]] for name in ("gelu", "gelu_grad")]
    return torch.from_numpy(np.concatenate([cases, tail, *hard]))


@pytest.mark.parametrize("fused", [True, False], ids=["one-launch", "list-then-settle"])
def test_float32_sample_is_the_cores_for_every_form_and_order(fused, triton_on_cpu, monkeypatch):
    x = float32_sample(12)
    monkeypatch.setattr(gpu, "FUSE_BELOW", x.numel() + 1 if fused else 0)
    for a in FORMS:
        for order in range(3):
            assert same(gtorch._OPS[order](x, a), gtorch._on_cpu(x, order, a)), (a, order)


def test_float32_is_correctly_rounded_by_mpmath():
    """Against mpmath alone (tests/mp_truth.py), at points spread over the range and at the CPU kernel's hard inputs."""
    rng = np.random.default_rng(45)
    wide = (rng.standard_normal(1 << 20) * 4).astype(np.float32)
    x = np.concatenate([rng.uniform(-15, 15, 300).astype(np.float32), wide[cpu_kernels.raw_f32("gelu", wide)[1]][:60],
                        np.float32([-0.7517915, 1.4142135, -14.3, 2.0**-149, -(2.0**-149), 1e-30, -5.3475156])])
    for name, order in (("gelu", 0), ("gelu_grad", 1), ("gelu_grad2", 2)):
        got = gpu.apply(torch.from_numpy(x), "none", order).numpy()
        want = np.array([correct(name, v, np.float32) for v in x], dtype=np.float32)
        assert np.array_equal(got.view(np.int32), want.view(np.int32)), name


@triton.jit
def _dd_probe(x_ptr, h_ptr, l_ptr, qtab, inv, ddc, FORM: tl.constexpr, ORDER: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if FORM == 0:
        h, lo = dd_gelu.exact(x, ORDER, qtab, inv)
    else:
        h, lo = dd_gelu.forms(x, FORM, ORDER, ddc, inv)
    tl.store(h_ptr + offs, h)
    tl.store(l_ptr + offs, lo)


def _mp_form(form, order, t):
    if form == 0:
        return [t * mpmath.ncdf(t), mpmath.ncdf(t) + t * mpmath.npdf(t), (2 - t * t) * mpmath.npdf(t)][order]
    k, c = mpmath.sqrt(2 / mpmath.pi), mpmath.mpf("0.044715")
    z, dz, ddz = (2 * k * (t + c * t**3), 2 * k * (1 + 3 * c * t * t), 12 * k * c * t) if form == 1 else (mpmath.mpf("1.702") * t, mpmath.mpf("1.702"), 0)
    s, sn = 1 / (1 + mpmath.exp(-z)), 1 / (1 + mpmath.exp(z))
    return [t * s, s + t * dz * s * sn, s * sn * (2 * dz + t * ddz + t * dz * dz * (1 - 2 * s))][order]


@pytest.mark.parametrize("form", [0, 1, 2])
def test_double_double_tier_is_within_1e_28(form):
    """The last tier (gelu_lab.gpu.dd_gelu) against mpmath at 60 digits: relative to the sum of its terms' sizes."""
    n = 128
    rng = np.random.default_rng(46 + form)
    top = 15.0 if form == 0 else 30.0
    x = np.concatenate([rng.uniform(-top, top, n - 12), [1e-30, -1e-30, 2.0**-149, -(2.0**-149), -0.7517915, 1.4142135,
                                                         -1.4142135, 14.9, -14.9, 0.03, -5.0, 1e-8]])
    x = x.astype(np.float32).astype(np.float64)
    _, _, qtab, inv, ddc = gpu._device_tables("cpu")
    for order in range(3):
        h, lo = torch.empty(n, dtype=torch.float64), torch.empty(n, dtype=torch.float64)
        _dd_probe[(1,)](torch.from_numpy(x), h, lo, qtab, inv, ddc, FORM=form, ORDER=order, N=n)
        with mpmath.workdps(60):
            for xi, hi, low in zip(x, h.numpy(), lo.numpy()):
                t = _mp_form(form, order, mpmath.mpf(float(xi)))
                if abs(t) < mpmath.mpf(10) ** -80:  # far below float32: the kernel gives such a value its sign itself
                    continue
                scale = abs(t) if not (form == 0 and order == 1) else mpmath.mpf(1)  # GELU' cancels at its root
                err = abs(mpmath.mpf(float(hi)) + mpmath.mpf(float(low)) - t) / scale
                assert err < 1e-28, (form, order, xi, float(err))


def test_structured_data_past_the_list_is_settled_by_the_scan(monkeypatch):
    """A run of the negative tail lists every input, past the list's n/8 + 1024: the settling kernel goes over all of x."""
    monkeypatch.setattr(gpu, "FUSE_BELOW", 0)
    x = torch.linspace(-14.0, -6.0, 12000, dtype=torch.float32)  # below -SAT of both functions
    for order in (0, 1):
        count = torch.zeros(1, dtype=torch.int32)
        assert same(gpu.apply(x, "none", order, count=count), gtorch._on_cpu(x, order, "none")), order
        assert int(count) == x.numel()  # all listed: the list held n/8 + 1024 of them


def test_the_scan_settles_what_the_pass_listed_for_the_formula_forms(monkeypatch):
    """The tanh and sigmoid forms past the list: far in the negative tail every value underflows
    float64, so the bound cannot tell the sign of the zero and the pass lists every input; the
    settling kernel lists them again by the same arithmetic and settles them all."""
    monkeypatch.setattr(gpu, "FUSE_BELOW", 0)
    x = torch.linspace(-900.0, -500.0, 1600, dtype=torch.float32)  # past the list's 1600/8 + 1024
    for a in ("tanh", "sigmoid"):
        for order in range(3):
            count = torch.zeros(1, dtype=torch.int32)
            got = gpu.apply(x, a, order, count=count)
            assert int(count) == x.numel() and same(got, gtorch._on_cpu(x, order, a)), (a, order)


def test_shapes_strides_and_specials(triton_on_cpu):
    base = torch.tensor([[0.0, -0.0, float("inf"), float("-inf")], [float("nan"), 1e-40, -1e-40, 3.0]])
    for x in (base, base.t(), base[:, ::2], torch.tensor(-1.5), torch.empty(0, 3)):
        for a in FORMS:
            for order in range(3):
                got = gtorch._OPS[order](x, a)
                assert got.shape == x.shape and same(got, gtorch._on_cpu(x.contiguous(), order, a)), (a, order)


@pytest.mark.parametrize("dtype,fuse_below", [(torch.float32, 1 << 18), (torch.float32, 0), (torch.bfloat16, 0), (torch.float16, 0)],
                         ids=["float32-one-launch", "float32-list-then-settle", "bfloat16", "float16"])
def test_backward_is_one_pass_and_the_two_ops_bit_for_bit(dtype, fuse_below, triton_on_cpu, monkeypatch):
    """autograd through the Triton path: grad * derivative, each rounded as torch rounds the two
    separate ops; double backward too; the fused kernel is what runs (settle32 with grad included)."""
    monkeypatch.setattr(gpu, "FUSE_BELOW", fuse_below)
    rng = np.random.default_rng(47)
    x = torch.from_numpy((rng.standard_normal(5000) * 4).astype(np.float32)).to(dtype)
    up = torch.from_numpy(rng.standard_normal(5000).astype(np.float32)).to(dtype)
    calls = []
    real = gpu.apply
    monkeypatch.setattr(gpu, "apply", lambda *a, **k: calls.append(k.get("grad") is not None) or real(*a, **k))
    for a in FORMS:
        xr = x.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(gtorch.gelu(xr, a), xr, up, create_graph=True)
        (g2,) = torch.autograd.grad(g, xr, up)
        assert same(g, up * gtorch._on_cpu(x, 1, a)), a
        assert same(g2, (up * up) * gtorch._on_cpu(x, 2, a)), a
    assert calls.count(True) == 2 * len(FORMS)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_a_tensor_past_the_int32_offsets_goes_in_slices(dtype, triton_on_cpu, monkeypatch):
    """More than _MAX_N elements: each slice is launched on its own, its values and grad's alike (here
    _MAX_N is 1000, so that 2500 elements make three launches of the pass, the last a short one)."""
    monkeypatch.setattr(gpu, "_MAX_N", 1000)
    monkeypatch.setattr(gpu, "FUSE_BELOW", 0)
    sizes = []

    class Counted:  # kernel[grid](x, ...): the size of each launch's x
        def __init__(self, kernel):
            self.kernel = kernel

        def __getitem__(self, grid):
            return lambda x, *a, **k: sizes.append(x.numel()) or self.kernel[grid](x, *a, **k)

    monkeypatch.setattr(K, "main32", Counted(K.main32))
    monkeypatch.setattr(K, "lookup16", Counted(K.lookup16))
    rng = np.random.default_rng(50)
    x = torch.from_numpy((rng.standard_normal((50, 50)) * 4).astype(np.float32)).to(dtype)
    up = torch.from_numpy(rng.standard_normal((50, 50)).astype(np.float32)).to(dtype)
    assert same(gtorch.gelu(x), gtorch._on_cpu(x, 0, "none"))
    assert same(gtorch._BACKWARD(up, x, "none", 0), up * gtorch._on_cpu(x, 1, "none"))
    assert sizes == [1000, 1000, 500] * 2
    sizes.clear()
    assert gtorch.gelu(x[:0]).shape == (0, 50) and sizes == []  # an empty tensor launches nothing


def test_the_gathered_coefficients_of_the_device_benchs_candidate_give_the_same_values(triton_on_cpu, monkeypatch):
    """bench/gpu_main_pass.py's "gather" variant (each coefficient row loaded once per program, then
    tl.gather) computes the shipped pass's sums: the same values, bit for bit, here under the interpreter."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import gpu_main_pass
    finally:
        sys.path.remove(str(ROOT / "bench"))
    from gelu_lab.gpu import tiers

    x = float32_sample(24)
    monkeypatch.setattr(gpu, "FUSE_BELOW", 0)
    monkeypatch.setattr(tiers, "horner8", gpu_main_pass.gathered_horner8)
    for order in (0, 1):
        assert same(gtorch._OPS[order](x, "none"), gtorch._on_cpu(x, order, "none")), order


@pytest.mark.parametrize("dtype,fuse_below", [(torch.float32, 1 << 18), (torch.float32, 0), (torch.bfloat16, 0), (torch.float16, 0)],
                         ids=["float32-one-launch", "float32-list-then-settle", "bfloat16", "float16"])
def test_geglu_is_one_pass_and_gelu_times_b_bit_for_bit(dtype, fuse_below, triton_on_cpu, monkeypatch):
    """geglu(a, b) on the Triton path: the kernels' grad * value with b as the grad, one call of
    gpu.apply; the bits of gelu(a) * b (as the CPU kernel gives gelu), for every form."""
    monkeypatch.setattr(gpu, "FUSE_BELOW", fuse_below)
    rng = np.random.default_rng(51)
    a = torch.from_numpy(np.concatenate([rng.standard_normal(4000) * 4, rng.uniform(-15, -5, 1000)]).astype(np.float32)).to(dtype)
    b = torch.from_numpy(rng.standard_normal(5000).astype(np.float32)).to(dtype)
    calls = []
    real = gpu.apply
    monkeypatch.setattr(gpu, "apply", lambda *args, **k: calls.append(k.get("grad") is b) or real(*args, **k))
    for f in FORMS:
        assert same(gtorch.geglu(a, b, f), gtorch._on_cpu(a, 0, f) * b), f
    assert calls == [True] * len(FORMS)


@pytest.mark.parametrize("fuse_below", [1 << 18, 0], ids=["one-launch", "list-then-settle"])
def test_out_may_be_x_itself(fuse_below, triton_on_cpu, monkeypatch):
    """gelu(x, out=x): the settling kernel reads x again after the pass wrote out, so the two never share memory."""
    monkeypatch.setattr(gpu, "FUSE_BELOW", fuse_below)
    x = torch.cat([torch.from_numpy((np.random.default_rng(49).standard_normal(3000) * 4).astype(np.float32)),
                   torch.linspace(-14.0, -6.0, 500)])
    want = gtorch._on_cpu(x, 0, "none")
    assert gtorch.gelu(x, out=x) is x and same(x, want)


def test_out_is_written_by_the_kernel(triton_on_cpu, monkeypatch):
    x = torch.from_numpy((np.random.default_rng(48).standard_normal(3000) * 3).astype(np.float32))
    out = torch.full_like(x, float("nan"))
    seen = []
    real = gpu.apply
    monkeypatch.setattr(gpu, "apply", lambda *a, **k: seen.append(k.get("out") is out) or real(*a, **k))
    version = out._version
    assert gtorch.gelu(x, out=out) is out and seen == [True] and out._version > version
    assert same(out, gtorch._on_cpu(x, 0, "none"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_opcheck_on_the_triton_path(dtype, triton_on_cpu):
    x = (torch.randn(5, 3, generator=torch.Generator().manual_seed(1)) * 3).to(dtype)
    for op in gtorch._OPS:
        for a in FORMS:
            torch.library.opcheck(op, (x.requires_grad_(True), a))
    for a in FORMS:
        for order in (0, 1):
            torch.library.opcheck(gtorch._BACKWARD, (torch.ones_like(x), x.detach().requires_grad_(True), a, order))
    xt = (torch.randn(6, 4, generator=torch.Generator().manual_seed(2)) * 3).to(dtype).t()  # transposed grad and x
    torch.library.opcheck(gtorch._BACKWARD, (torch.randn(6, 4).to(dtype).t(), xt.requires_grad_(True), "none", 0))


def test_native_tables_json_is_the_headers():
    """The GPU's tables (native_tables.json) hold the committed C header's numbers: the whole file is
    what tools/gen_native_tables.py reads back from the header, and a few entries are read here again
    by a parser of this test's own."""
    header = (ROOT / "src/gelu_lab/native_tables.h").read_text()
    data = json.loads((ROOT / "src/gelu_lab/data/native_tables.json").read_text())
    sys.path.insert(0, str(ROOT / "tools"))
    prec = mpmath.mp.prec
    try:
        import gen_native_tables  # it sets mpmath's precision for its fits
    finally:
        sys.path.remove(str(ROOT / "tools"))
        mpmath.mp.prec = prec
    assert gen_native_tables.json_from_header() == data
    numbers = lambda text: [float(v) for v in re.findall(r"-?\d[\d.e+-]*", text)]  # noqa: E731
    for name in ("gelu", "grad"):
        up = name.upper()
        block = re.search(rf"NT_{up}_C\[9\]\[16\] = \{{(.*?)\}};", header, re.S).group(1)
        assert numbers(block) == [v for row in data[name]["c"] for v in row]
        assert numbers(re.search(rf"NT_{up}_EBITS\[16\] = \{{(.*?)\}}", header).group(1)) == data[name]["ebits"]
        for key in ("W", "INVW", "SAT", "ZERO"):
            assert float(re.search(rf"#define NT_{up}_{key} (\S+)", header).group(1)) == data[name][key.lower()]
    assert numbers(re.search(r"NT_TIGHT_H0\[\d+\] = \{(.*?)\}", header).group(1)) == data["tight"]["h"][0]


def test_without_triton_the_device_path_is_the_generic_one(monkeypatch):
    monkeypatch.setattr(gtorch, "_gpu", lambda: None)
    monkeypatch.setattr(gtorch, "TRITON_ON_CPU", True)
    assert not gtorch._triton_path(torch.ones(3))
    monkeypatch.setattr(gtorch, "_gpu", lambda: gpu)
    assert gtorch._triton_path(torch.ones(3)) and not gtorch._triton_path(torch.ones(3, dtype=torch.float64))


@triton.jit
def _two_prod_probe(a_ptr, b_ptr, p_ptr, e_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    p, e = dd.two_prod(tl.load(a_ptr + offs), tl.load(b_ptr + offs))
    tl.store(p_ptr + offs, p)
    tl.store(e_ptr + offs, e)


def test_two_prod_is_exact():
    """a b = p + e exactly (mpmath at 300 bits), over magnitudes from 1e-30 to 1e30 and both signs."""
    rng = np.random.default_rng(50)
    n = 4096
    a, b = (rng.standard_normal(n) * 10.0 ** rng.uniform(-30, 30, n) for _ in range(2))
    p, e = torch.empty(n, dtype=torch.float64), torch.empty(n, dtype=torch.float64)
    _two_prod_probe[(1,)](torch.from_numpy(a), torch.from_numpy(b), p, e, N=n)
    with mpmath.workprec(300):
        bad = [i for i in range(n) if mpmath.mpf(a[i]) * mpmath.mpf(b[i]) != mpmath.mpf(float(p[i])) + mpmath.mpf(float(e[i]))]
    assert bad == []


def test_importing_gelu_lab_needs_no_triton():
    code = "import sys, gelu_lab, gelu_lab.torch; gelu_lab.gelu([1.0]); assert 'triton' not in sys.modules, 'triton imported'"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_a_partial_device_check_shows_what_it_has(monkeypatch):
    """gpu_check.py writes after each section and keeps a failed one as {"error": ...}: the page shows the rest."""
    from gelu_lab.app import content
    from gelu_lab.app.pages.implementation import view as parts
    from gelu_lab.results import shipped

    full = json.loads((ROOT / "bench/results/gpu_check.json").read_text())
    partial = {"provenance": full["provenance"], "throughput": full["throughput"], "exhaustive": {"error": "Traceback ..."}}
    monkeypatch.setattr(shipped, "doc", lambda name: partial)
    text, table = parts.gpu_view(content.text("en", "implementation"))
    assert "of all — float32 inputs" in text and table is not None
    monkeypatch.setattr(shipped, "doc", lambda name: {"provenance": {}, "throughput": {"error": "..."}})
    assert parts.gpu_view(content.text("en", "implementation"))[1] is None


def test_the_device_check_is_shipped_and_shown():
    """bench/results/gpu_check.json ships as package data, and the Implementation page's GPU table
    shows its ratios (torch's median over ours, recomputed here from the medians)."""
    from gelu_lab.app import content
    from gelu_lab.app.pages.implementation import view as parts

    bench = json.loads((ROOT / "bench/results/gpu_check.json").read_text())
    assert bench == json.loads((ROOT / "src/gelu_lab/data/gpu_check.json").read_text())
    assert "/root" not in json.dumps(bench["provenance"])  # no machine path in package data
    median = {r["case"]: r["median_us"] for r in bench["throughput"]}
    for lang in ("en", "zh"):
        text, table = parts.gpu_view(content.text(lang, "implementation"))
        cells = re.findall(r"<td>(.*?)</td>", table.to_plotly_json()["props"]["data-html"])
        for case in ("fp32:fwd", "bf16:bwd"):
            assert f"{median['torch:' + case] / median['ours:' + case]:#.3g}" in cells, (lang, case)
        assert f"all 2³² float32" in text or "全部 2³² 个 float32" in text
        assert bench["provenance"]["device"] in text and f"{bench['exhaustive']['gelu']['wrong']:,}" in text


def test_a_device_check_with_geglu_rows_shows_them_in_both_languages(monkeypatch):
    """gpu_check.py times geglu (contiguous, and on the halves of one projection); once a device run has
    them, the Implementation page's table shows those rows with their own labels."""
    from gelu_lab.app import content
    from gelu_lab.app.pages.implementation import view as parts
    from gelu_lab.results import shipped

    full = json.loads((ROOT / "bench/results/gpu_check.json").read_text())
    extra = [{"case": f"{who}:{c}", "n": 1 << 28, "median_us": us, **({"torch_over_ours": 2.0} if who == "ours" else {})}
             for c in ("fp32:geglu", "bf16:geglu-halves") for who, us in (("torch", 200.0), ("ours", 100.0))]
    monkeypatch.setattr(shipped, "doc", lambda name: {**full, "throughput": full["throughput"] + extra})
    for lang in ("en", "zh"):
        t = content.text(lang, "implementation")
        _, table = parts.gpu_view(t)
        cells = re.findall(r"<td>(.*?)</td>", table.to_plotly_json()["props"]["data-html"])
        assert t["gpu.case.fp32-geglu"] in cells and t["gpu.case.bf16-geglu-halves"] in cells
        assert t["gpu.case.fp32-geglu-halves"] not in cells  # not timed: left out
