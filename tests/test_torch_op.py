"""gelu_lab's torch ops: opcheck, meta, compile, export, out=, and the generic (device) path on the CPU."""

import mpmath
import numba
import numpy as np
import pytest
import torch

import gelu_lab
from gelu_lab import kernels
from gelu_lab import torch as gtorch
from gelu_lab.floats import FORMATS, round_to_format, ulp_of
from mp_truth import MP_FUNCS

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
APPROX = ["none", "tanh", "sigmoid"]
INT = {2: torch.int16, 4: torch.int32, 8: torch.int64}


def bits(t):
    return t.view(INT[t.element_size()])


def same(a, b):
    """Bit for bit; a NaN matches any NaN (the core itself does not fix a NaN's sign and payload)."""
    return bool(torch.all((bits(a) == bits(b)) | (torch.isnan(a) & torch.isnan(b))))


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_opcheck(dtype, requires_grad):
    x = (torch.randn(5, 3, generator=torch.Generator().manual_seed(0)) * 3).to(dtype)
    for op in gtorch._OPS:
        for a in APPROX:
            for v in (x, x.t()) if dtype == torch.float32 else (x,):  # contiguous and not
                torch.library.opcheck(op, (v.detach().requires_grad_(requires_grad), a))


def test_the_ops_are_registered_with_their_schema():
    for name in ("gelu", "gelu_grad", "gelu_grad2"):
        op = getattr(torch.ops.gelu_lab, name).default
        assert str(op._schema).replace('"', "'") == f"gelu_lab::{name}(Tensor x, str approximate='none') -> Tensor"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_meta_tensors_give_shape_and_dtype(dtype):
    for shape in [(3, 4), (), (0, 5)]:
        x = torch.empty(shape, dtype=dtype, device="meta")
        for f in (gtorch.gelu, gtorch.gelu_grad, gtorch.gelu_grad2, gtorch.GELU("sigmoid")):
            y = f(x)
            assert y.device.type == "meta" and y.shape == x.shape and y.dtype == dtype
    with pytest.raises(ValueError, match="approximate"):
        gtorch.gelu(torch.empty(2, device="meta"), "fast")


def test_third_derivative_is_the_backward_of_gelu_grad2():
    x = torch.linspace(-7, 7, 57, dtype=torch.float64, requires_grad=True)
    for a in APPROX:
        assert torch.autograd.gradcheck(lambda t: gtorch.gelu_grad2(t, a), (x,))


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), gtorch.GELU(), torch.nn.Linear(16, 4), gtorch.GELU("tanh"))


def test_compile_fullgraph_is_the_eager_result_bit_for_bit():
    torch._dynamo.reset()
    m, x = _model(), torch.randn(5, 8)
    compiled = torch.compile(m, fullgraph=True)  # fullgraph: a graph break raises
    with torch.no_grad():
        assert torch.equal(compiled(x), m(x))
    # autograd through the registered backward (double backward included), traced by AOTAutograd
    m2 = torch.compile(lambda t: gtorch.gelu_grad(t, "sigmoid") * gtorch.gelu(t), fullgraph=True, backend="aot_eager")
    a, b = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    m2(a).sum().backward()
    (gtorch.gelu_grad(b, "sigmoid") * gtorch.gelu(b)).sum().backward()
    assert torch.equal(a.grad, b.grad)
    torch._dynamo.reset()


def test_export():
    m, x = _model(), torch.randn(3, 8)
    ep = torch.export.export(m, (x,))
    ops = [n.target for n in ep.graph.nodes if n.op == "call_function"]
    assert ops.count(torch.ops.gelu_lab.gelu.default) == 2
    assert torch.equal(ep.module()(x), m(x))


def test_repr_approximate_and_out_like_torch_nn_gelu():
    for a in ("none", "tanh"):
        assert repr(gtorch.GELU(a)) == repr(torch.nn.GELU(a)) == f"GELU(approximate='{a}')"
    assert repr(gtorch.GELU()) == "GELU(approximate='none')"
    assert gtorch.GELU("sigmoid").extra_repr() == "approximate='sigmoid'"
    x = torch.linspace(-4, 4, 9)
    out = torch.empty(9)
    assert gtorch.gelu(x, approximate="tanh", out=out) is out
    assert torch.equal(out, gtorch.gelu(x, "tanh"))
    wide = torch.empty(9, dtype=torch.float64)  # a wider out: cast, as torch's out= does
    assert torch.equal(gtorch.gelu(x, out=wide), gtorch.gelu(x).double())
    empty = torch.empty(0)  # an empty out is resized, as torch's out= does
    assert gtorch.gelu_grad(x, out=empty).shape == (9,) and torch.equal(empty, gtorch.gelu_grad(x))
    with pytest.raises(RuntimeError):
        gtorch.gelu(x, out=torch.empty(9, dtype=torch.int32))
    xg = x.clone().requires_grad_(True)
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        gtorch.gelu(xg, out=torch.empty(9))
    with pytest.raises(RuntimeError):  # torch's own op refuses the same
        torch._C._nn.gelu(xg, out=torch.empty(9))
    assert gelu_lab.gelu(x, "sigmoid", out=out) is out and torch.equal(out, gtorch.gelu(x, "sigmoid"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
def test_out_on_the_cpu_is_written_by_the_kernel_itself(dtype, monkeypatch):
    """An out= of x's shape and dtype on the CPU gets the op's values bit for bit (in place and
    from a strided x too) without the op: no result tensor allocated (page faults, for a large
    one) and copied into out."""
    x = (torch.randn(3000, 2, generator=torch.Generator().manual_seed(0)) * 4).to(dtype)
    x[0, 0], x[1, 0] = -0.0, -20.0  # signed zeros: -0 in, and -0 out of the far tail
    xs = x[:, 0]  # strided
    want = {f: f(xs) for f in (gtorch.gelu, gtorch.gelu_grad)}
    monkeypatch.setattr(gtorch, "_OPS", None)  # any call through the op fails
    for f, w in want.items():
        out = torch.empty(3000, dtype=dtype)
        assert f(xs, out=out) is out and torch.equal(bits(out), bits(w))
        same = xs.contiguous()
        assert f(same, out=same) is same and torch.equal(bits(same), bits(w))  # in place


def test_out_of_fake_tensors_keeps_the_op():
    """Under FakeTensorMode (shape propagation outside torch.compile) CPU tensors have no data: out=
    goes through the op's fake kernel, as a call without out= does. torch._subclasses is torch's
    internals (torch is pinned, 2.13.0): if this import fails, that module moved."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x, out = torch.empty(9), torch.empty(9)
        assert x.device.type == "cpu" and gtorch.gelu(x, out=out) is out
        assert type(gtorch.gelu_grad(x, out=out)) is type(x)


def test_out_into_an_inference_tensor_as_torchs_own():
    """Written inside inference mode; refused outside it, as torch's own out= refuses."""
    with torch.inference_mode():
        x, out = torch.randn(9), torch.empty(9)
        assert gtorch.gelu(x, out=out) is out and torch.equal(out, gtorch.gelu(x))
    for write in (lambda: gtorch.gelu(x, out=out), lambda: torch._C._nn.gelu(x, out=out)):
        with pytest.raises(RuntimeError, match="inference tensor"):
            write()


def test_out_written_by_the_kernel_is_seen_by_autograd():
    """A tensor saved for a backward and then used as out= fails that backward, as after torch's own out=."""
    a = torch.randn(5, requires_grad=True)
    for write in (lambda b: gtorch.gelu(torch.randn(5), out=b), lambda b: torch._C._nn.gelu(torch.randn(5), out=b)):
        b = torch.randn(5)
        y = (a * b).sum()  # saves b
        write(b)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def test_cpu_kernel_writes_through_numpy_views_without_copying_the_input(monkeypatch):
    seen = []
    real = gtorch._apply

    def spy(a, approximate, order, out):
        seen.append((a, out))
        return real(a, approximate, order, out)

    monkeypatch.setattr(gtorch, "_apply", spy)
    for dtype in DTYPES:
        x = torch.linspace(-3, 3, 12).to(dtype)
        y = gtorch.gelu(x)
        a, out = seen[-1]
        assert a.ctypes.data == x.data_ptr() and out.ctypes.data == y.data_ptr()  # views, both


@pytest.mark.parametrize("n_threads", [1, 2])
def test_cpu_kernel_runs_torchs_thread_count(n_threads, monkeypatch):
    """The op's CPU kernel takes torch.get_num_threads(), not numba's setting, as torch's own ops do;
    a call too small to cut into two parts runs on one thread (asking for the count costs as much as its kernel)."""
    calls = []
    native = kernels._native

    class Spy:
        def __getattr__(self, name):
            return getattr(native, name)

        def f32(self, *args):
            calls.append(args[5])
            return native.f32(*args)

        def lookup16(self, *args):
            calls.append(args[4])
            return native.lookup16(*args)

    monkeypatch.setattr(kernels, "_native", Spy())
    before = torch.get_num_threads()
    torch.set_num_threads(n_threads)
    try:
        for x in (torch.randn(1 << 19), torch.randn(1 << 10)):  # two parts' worth for every kernel; one part
            gtorch.gelu(x), gtorch.gelu(x.to(torch.bfloat16)), gelu_lab.gelu_grad(x)
    finally:
        torch.set_num_threads(before)
    assert calls == [n_threads] * 3 + [1] * 3
    assert kernels.thread_count() == numba.get_num_threads()  # outside the op: numba's, as before


# --- the generic (device) path, run on the CPU -------------------------------------------


def all16(dtype):
    return torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_generic_path_is_the_core_on_every_16_bit_pattern(dtype):
    x = all16(dtype)
    for a in APPROX:
        for order in range(3):
            assert same(gtorch.generic(x, a, order), gtorch._on_cpu(x, order, a)), (a, order)


def float32_cases():
    rng = np.random.default_rng(22)
    parts = [
        rng.integers(0, 2**32, 1 << 17, dtype=np.uint64).astype(np.uint32).view(np.float32),  # every binade, nan, inf
        (rng.standard_normal(1 << 17) * 4).astype(np.float32),
    ]
    # runs of consecutive floats at the hard places: 0, GELU's root, the tails, +-sqrt2, the float32 subnormals
    for c in (0.0, -0.7517915, -5.0, -10.0, -13.9, 1.4142135, -1.4142135, 1e-38, -1e-38, 3.0):
        b = np.array([c], np.float32).view(np.int32)[0]
        parts.append((b + np.arange(-2000, 2000, dtype=np.int64)).astype(np.int32).view(np.float32))
    return torch.from_numpy(np.concatenate(parts))


def test_generic_path_is_the_core_on_float32():
    x = float32_cases()
    for a in APPROX:
        for order in range(3):
            assert same(gtorch.generic(x, a, order), gtorch._on_cpu(x, order, a)), (a, order)


def test_generic_path_float64_within_its_bound():
    x = float32_cases().double() * 1.0000001
    for a in APPROX:
        for order in range(3):
            g, ref = gtorch.generic(x, a, order), gtorch._on_cpu(x, order, a)
            assert torch.equal(torch.isnan(g), torch.isnan(ref))
            ok = ~torch.isnan(g)
            assert torch.equal(torch.signbit(g[ok]), torch.signbit(ref[ok])), (a, order)
            ok &= torch.isfinite(g)
            _, bound = gtorch._f64(x, a, order)  # the core is within a few ulp of the truth
            assert torch.all((g - ref)[ok].abs() <= bound[ok] + 8 * 2.0**-52 * ref[ok].abs()), (a, order)


def test_generic_path_sends_few_elements_to_the_cpu(monkeypatch):
    n = []
    real = gtorch._on_cpu
    monkeypatch.setattr(gtorch, "_on_cpu", lambda x, order, a: n.append(x.numel()) or real(x, order, a))
    x = torch.from_numpy((np.random.default_rng(1).standard_normal(1 << 18) * 3).astype(np.float32))
    for a in APPROX:
        for order in range(3):
            gtorch.generic(x, a, order)
    assert sum(n) <= 9 * (1 << 18) * 1e-4


def test_the_bound_holds_against_mpmath():
    """|float64 formula - truth| <= bound, at points spread over the range where the value is a float64 normal."""
    xs = np.concatenate([np.linspace(-37, 37, 301), -0.7517915 + np.linspace(-1e-6, 1e-6, 21), [1e-300, -1e-200, 1.4142135623730951]])
    cases = [("none", 0, "gelu"), ("none", 1, "gelu_grad"), ("none", 2, "gelu_grad2"), ("tanh", 0, "gelu_tanh"), ("sigmoid", 0, "gelu_sigmoid")]
    x = torch.from_numpy(xs)
    with mpmath.workdps(60):
        for a, order, name in cases:
            y, bound = gtorch._f64(x, a, order)
            truth = [MP_FUNCS[name](mpmath.mpf(float(v))) for v in xs]
            err = [abs(mpmath.mpf(float(yi)) - t) for yi, t in zip(y, truth)]
            assert all(e <= b for e, b in zip(err, bound.tolist())), name


def test_round_is_a_single_rounding():
    """_round agrees with floats.round_to_format, also where float64 -> float32 -> float16 rounds twice."""
    rng = np.random.default_rng(5)
    for name in ("float16", "bfloat16", "float32"):
        fmt = FORMATS[name]
        y = rng.standard_normal(20000) * np.exp2(rng.integers(-40, 40, 20000))
        # just above a tie of fmt by less than half a float32 ulp: rounded to float32 first, it becomes the tie
        t = round_to_format(y, fmt).astype(np.float64)
        tie = t + ulp_of(t, fmt) / 2
        y = np.concatenate([y, tie * (1 + 2.0**-40), tie, [0.0, -0.0, 1e-300, -1e-300]])
        got = gtorch._round(torch.from_numpy(y), fmt).numpy()
        want = round_to_format(y, fmt).astype(np.float64)
        assert np.array_equal(got.view(np.int64), want.view(np.int64)), name


def test_forced_generic_path_through_the_op_and_autograd(monkeypatch):
    monkeypatch.setattr(gtorch, "GENERIC_ON_CPU", True)
    calls = []
    real = gtorch.generic
    monkeypatch.setattr(gtorch, "generic", lambda *a: calls.append(a[2]) or real(*a))
    x = all16(torch.bfloat16)[::7].clone().requires_grad_(True)
    y = gelu_lab.gelu(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), x)
    assert calls == [0, 1, 2]
    xd = x.detach()
    monkeypatch.setattr(gtorch, "GENERIC_ON_CPU", False)
    assert same(y.detach(), gtorch.gelu(xd)) and same(g, gtorch.gelu_grad(xd)) and same(g2, gtorch.gelu_grad2(xd))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_geglu_is_gelu_times_b_bit_for_bit_with_its_gradients(dtype):
    """geglu(a, b) rounds as gelu(a) * b does (GELU(a) to a's format, then the product); its gradients
    are torch's for that expression (d/da through gelu's backward, d/db = up * gelu(a)), double backward too."""
    gen = torch.Generator().manual_seed(7)
    a = (torch.randn(40, 30, generator=gen) * 4).to(dtype)
    b = torch.randn(40, 30, generator=gen).to(dtype)
    up = torch.randn(40, 30, generator=gen).to(dtype)
    for approx in APPROX:
        assert same(gtorch.geglu(a, b, approx), gtorch.gelu(a, approx) * b), approx
        a1, b1, a2, b2 = (t.clone().requires_grad_(True) for t in (a, b, a, b))
        got = torch.autograd.grad(gtorch.geglu(a1, b1, approx), (a1, b1), up, create_graph=True)
        want = torch.autograd.grad(gtorch.gelu(a2, approx) * b2, (a2, b2), up, create_graph=True)
        assert all(same(g, w) for g, w in zip(got, want)), approx
        got2 = torch.autograd.grad(got[0].sum() + got[1].sum(), (a1, b1))
        want2 = torch.autograd.grad(want[0].sum() + want[1].sum(), (a2, b2))
        assert all(same(g, w) for g, w in zip(got2, want2)), approx
    if dtype == torch.float64:
        x = torch.linspace(-5, 5, 23, dtype=torch.float64)
        assert torch.autograd.gradcheck(gtorch.geglu, (x.clone().requires_grad_(True), torch.cos(x).requires_grad_(True)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_geglu_opcheck_compile_export_and_meta(dtype):
    gen = torch.Generator().manual_seed(8)
    a, b = (torch.randn(6, 4, generator=gen) * 3).to(dtype), torch.randn(6, 4, generator=gen).to(dtype)
    for approx in APPROX:
        torch.library.opcheck(gtorch._GEGLU, (a.clone().requires_grad_(True), b.clone().requires_grad_(True), approx))
    torch.library.opcheck(gtorch._GEGLU, (a.t(), b.t(), "none"))  # strided halves
    torch._dynamo.reset()
    f = torch.compile(lambda h: gtorch.geglu(*h.chunk(2, -1)), fullgraph=True)
    h = torch.cat([a, b], -1)
    assert same(f(h), gtorch.gelu(a) * b)
    torch._dynamo.reset()

    class M(torch.nn.Module):
        def forward(self, u, v):
            return gtorch.geglu(u, v, "tanh")

    ep = torch.export.export(M(), (a, b))
    assert [n.target for n in ep.graph.nodes if n.op == "call_function"] == [torch.ops.gelu_lab.geglu.default]
    m = gtorch.geglu(a.to("meta"), b.to("meta"))
    assert m.device.type == "meta" and m.shape == a.shape and m.dtype == dtype


def test_geglu_says_what_is_wrong_with_its_inputs():
    a = torch.randn(3, 4)
    for b, words in ((torch.randn(4, 3), r"same shape.*\(3, 4\).*\(4, 3\)"), (torch.randn(3, 4, dtype=torch.float64), "float64")):
        with pytest.raises(RuntimeError, match=words):
            gtorch.geglu(a, b)
    with pytest.raises(ValueError, match="approximate"):
        gtorch.geglu(a, a, "fast")
    with pytest.raises(TypeError, match="real numbers"):
        gtorch.geglu(a.to(torch.complex64), a.to(torch.complex64))
    i = torch.arange(-3, 3)
    assert same(gtorch.geglu(i, i), gtorch.gelu(i) * i.double())  # integers as float64, as gelu takes them
