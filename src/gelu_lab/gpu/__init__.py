"""gelu_lab on GPU tensors: the Triton kernels behind gelu_lab.torch's ops (the ``[gpu]`` extra).

    available() -> str | None          why the kernels cannot run here (None: they can)
    apply(x, form, order, table16=None, grad=None, out=None) -> Tensor

What a call computes, for a float32, float16 or bfloat16 tensor x (form: "none",
"tanh" or "sigmoid"; order 0, 1 or 2), correctly rounded to x's format:

- float32: :func:`kernels.main32` in one pass over x, then :func:`kernels.settle32`
  over the inputs it listed (below FUSE_BELOW inputs, main32 settles them itself). For the exact form's value and first derivative the
  pass is the native CPU kernel's (gelu_lab/native.c's main_one: a degree-8
  polynomial on one of 16 sub-ranges, a Ziv test with that sub-range's bound,
  tables from native_tables.json); settling runs that kernel's TIGHT tier (the
  Q = Phi(-|x|) = h(|x|) exp(-x^2/2) formulation) and, for what it leaves, a
  double-double evaluation (:mod:`gelu_lab.gpu.dd_gelu`). For the other forms and
  orders the pass is the float64 formula with its error bound of
  ``gelu_lab.torch._f64``; settling is in double-double.
- float16 and bfloat16: :func:`kernels.lookup16`, ``table16[bits of x]`` for a table
  of all 65 536 values that the caller passes (gelu_lab.torch builds it from
  gelu_lab.core, so the values are the core's, bit for bit).

With ``grad`` the result is ``grad * value``, each rounded as the two ops would
round them (autograd's backward in one pass). A block of main32 that lists inputs
reserves their places in a list of n/8 + 1024 entries with one atomic add; where
a call lists more (structured data: wide runs of the negative tail), the settling
kernel goes over every input again, correct and slower. Nothing goes back to the
CPU, and no call waits on the GPU.

Without a GPU the kernels run under Triton's interpreter (``TRITON_INTERPRET=1``
before Triton is imported) on CPU tensors: that is how the tests check them.
Triton's interpreter computes ``tl.fma`` as a product then a sum; the bounds of
the float64 tiers hold either way, and the double-double tier uses no fma.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.resources
import json


from .. import numerics as nm
from ..floats import mp_context

FORMS = {"none": 0, "tanh": 1, "sigmoid": 2}
BLOCK, WARPS = 1024, 4  # inputs per program of main32, and its warps
BLOCK16 = 2048  # per program of lookup16
CHUNK = 128  # listed inputs per step of settle32
FUSE_BELOW = 1 << 18  # below, main32 settles its own listed inputs: one launch, no list
_MAX_N = 1 << 30  # a call's offsets are int32: longer tensors go in slices


def available() -> str | None:
    """None where the Triton kernels can run on this process's tensors; else why not, in words."""
    try:
        importlib.import_module("triton")
    except ImportError:
        return "Triton is not installed (pip install 'gelu-lab[gpu]')"
    return None


def _split(v) -> tuple[float, float]:
    hi = float(v)
    return hi, float(v - hi)


@functools.cache
def _host_tables():
    """The kernels' tables as flat lists, filled by the offsets gelu_lab.gpu.tiers defines."""
    from . import tiers as T

    data = json.loads(importlib.resources.files("gelu_lab").joinpath("data/native_tables.json").read_text())
    if data["inv_sqrt_2pi"] != nm.INV_SQRT_2PI:
        raise ValueError("native_tables.json does not match gelu_lab.numerics: regenerate it (tools/gen_native_tables.py)")

    def laid(length, *parts):  # (offset, values) -> one list
        out = [0.0] * length
        for at, values in parts:
            out[at:at + len(values)] = values
        return out

    main, ebits = {}, {}
    for order, name in enumerate(("gelu", "grad")):
        t = data[name]
        main[order] = laid(T.TAB_LEN.value, (T.C_AT.value, [v for row in t["c"] for v in row]),
                           (T.W_AT.value, [t["w"], t["invw"], t["sat"], t["zero"], *data["x0"]]))
        ebits[order] = t["ebits"]
    tight, root = data["tight"], data["root"]
    tt = laid(T.TT_LEN.value, (T.H_AT.value, tight["h"][0] + tight["h"][1]), (T.E_AT.value, tight["exp"][0] + tight["exp"][1]),
              (T.MAPC_AT.value, [tight["map_c"], tight["rel"]]), (T.ROOT_AT.value, root["c"][0] + root["c"][1]),
              (T.RADIUS_AT.value, [root["radius"], data["a_cut"], data["tiny"], data["inv_sqrt_2pi"], *data["x0"]]))
    with mp_context(40) as m:  # this thread's own (mpmath.workdps would set every thread's precision)
        qtab = [v for j in range(121) for f in (m.ncdf(-m.mpf(j) / 8), m.npdf(m.mpf(j) / 8)) for v in _split(f)]
        inv = [v for n in range(1, 33) for v in _split(1 / m.mpf(n))]
        k = m.sqrt(2 / m.pi)
        c = m.mpf("0.044715")
        ddc = [v for f in (2 * k, c, 3 * c, 12 * k * c, m.mpf("1.702"), m.log(2)) for v in _split(f)]
    return main, ebits, tt, qtab, inv, ddc


@functools.cache
def _device_tables(device: str):
    import torch

    main, ebits, tt, qtab, inv, ddc = _host_tables()
    f64 = functools.partial(torch.tensor, dtype=torch.float64, device=device)
    i32 = functools.partial(torch.tensor, dtype=torch.int32, device=device)
    return {o: (f64(main[o]), i32(ebits[o])) for o in (0, 1)}, f64(tt), f64(qtab), f64(inv), f64(ddc)


@functools.cache
def _programs(device) -> int:
    """settle32's programs: eight per multiprocessor on a GPU (they loop over the list)."""
    import torch

    if device.type == "cuda":
        return 8 * torch.cuda.get_device_properties(device).multi_processor_count
    return 2


def apply(x, form: str, order: int, table16=None, grad=None, out=None, count=None):
    """The form's order-th derivative of x (times grad, if given), correctly rounded to x's format.

    x: float16, bfloat16 or float32, any shape and strides; table16: for the 16-bit
    formats, the 65 536 values by bit pattern (an int16 tensor on x's device);
    grad: x's shape and dtype; out: a contiguous tensor of x's shape and dtype to
    write into (returned; it may be x itself), else a new one; count: a zeroed int32
    tensor of one element on x's device that receives how many inputs the float32 pass
    listed (for bench/).
    """
    import torch

    from . import kernels

    xc = x.detach().contiguous()
    g = grad.detach().contiguous() if grad is not None else xc
    if out is not None and any(t.untyped_storage().data_ptr() == out.untyped_storage().data_ptr() for t in (xc, g)):
        # the settling kernel reads x again after the pass wrote out: never the same memory
        return out.copy_(apply(x, form, order, table16, grad, None, count))
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device) if out is None else out
    n = xc.numel()
    if n == 0:
        return res
    # the kernels take flat, contiguous memory; a tensor of more than _MAX_N elements goes in slices
    parts = [(xc, g, res)] if n <= _MAX_N else [
        tuple(t.view(-1)[lo:lo + _MAX_N] for t in (xc, g, res)) for lo in range(0, n, _MAX_N)]
    guard = torch.cuda.device(x.device) if x.is_cuda else contextlib.nullcontext()  # Triton launches on the current device
    with guard:
        for xs, gs, outs in parts:
            if x.dtype == torch.float32:
                _float32(kernels, xs, gs, outs, FORMS[form], order, grad is not None, count)
            else:
                kernels.lookup16[(_cdiv(xs.numel(), BLOCK16),)](
                    xs.view(torch.int16), gs.view(torch.int16), outs.view(torch.int16), table16, xs.numel(),
                    HAS_GRAD=grad is not None, BF16=x.dtype == torch.bfloat16, BLOCK=BLOCK16)
    return res


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _float32(kernels, x, g, out, form: int, order: int, has_grad: bool, total=None) -> None:
    import torch

    n = x.numel()
    main, tt, qtab, inv, ddc = _device_tables(str(x.device))
    tab, ebits = main[order] if form == 0 and order < 2 else main[0]  # the formula pass reads no table
    fused = n < FUSE_BELOW and total is None
    count = x if fused else torch.zeros(1, dtype=torch.int32, device=x.device)
    cap = n // 8 + 1024
    listed = x if fused else torch.empty(cap, dtype=torch.int32, device=x.device)
    consts = dict(FORM=form, ORDER=order, HAS_GRAD=has_grad)
    # no a*b + c contracted into an fma, in any kernel: the double-double tier's error-free sums need
    # the arithmetic as written, and settle32's scan must list exactly what main32 listed (tiers.py)
    kernels.main32[(_cdiv(n, BLOCK),)](x, g, out, listed, count, n, cap, tab, ebits, tt, qtab, inv, ddc,
                                       BLOCK=BLOCK, EVEN=n % BLOCK == 0, FUSED=fused, num_warps=WARPS,
                                       enable_fp_fusion=False, **consts)
    if not fused:
        kernels.settle32[(_programs(x.device),)](x, g, out, listed, count, n, cap, tab, ebits, tt, qtab, inv, ddc,
                                                 CHUNK=CHUNK, enable_fp_fusion=False, **consts)
    if total is not None:
        total += count
