"""gelu_lab's Triton kernels on a GPU: checked over every float32 input, timed against torch, in one run.

    python3 setup.py build_ext --inplace && PYTHONPATH=src python3 bench/gpu_check.py --out DIR
    .venv/bin/python bench/gpu_check.py --quick          (here: CPU tensors under Triton's interpreter, small sizes)

Sections (each prints a line; the JSON gets them all, with the device, versions and date):
  exhaustive  every float32 bit pattern (2^32), gelu and gelu_grad: the GPU's values against the CPU
              kernel's (gelu_lab.core: the C extension, its undecided inputs settled by the reference), bit for bit
  checks      every float16/bfloat16 pattern and a float32 sample, every form and order, against the core;
              autograd and double backward; geglu against gelu(a) * b; torch.library.opcheck on the device's tensors
  throughput  2^28 elements (N(0, 1), and N(0, 9) for the listing's cost), float32 and bfloat16, forward and
              backward, ours against torch.nn.functional.gelu and aten.gelu_backward, interleaved, CUDA events;
              GEGLU's product, ours (geglu: one pass) against torch's gelu(a) * b (two), on contiguous a and b
              and on the two halves of one projection (h.chunk(2, -1): ours copies each half first)
  ffn         a compiled FFN block, x @ W1 -> GELU -> @ W2 in bfloat16, forward and backward, step time with
              torch's GELU and with ours
  small       the throughput cases at 2^16 elements, where launching counts most
  tune        our forward for a few block sizes of the kernels (the defaults are gelu_lab.gpu's BLOCK, WARPS, BLOCK16)
The JSON goes to DIR/gpu_check.json: bench/results/gpu_check.json is that file from the device machine, and
gelu_lab/data/gpu_check.json the same file shipped with the package (the Implementation page reads it).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="CPU tensors under Triton's interpreter, small sizes (a dry run)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results"), help="folder for gpu_check.json")
    p.add_argument("--repeats", type=int, default=25)
    p.add_argument("--skip", default="", help="comma-separated sections to leave out")
    return p.parse_args(argv)


A = _args(sys.argv[1:]) if __name__ == "__main__" else None
if A is not None and A.quick:
    os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

from gelu_lab import core, gpu  # noqa: E402
from gelu_lab import torch as gtorch  # noqa: E402

FORMS = ("none", "tanh", "sigmoid")
INT = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}


def same(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise: the same bits, or both nan."""
    return (a.view(INT[a.dtype]) == b.view(INT[b.dtype])) | (torch.isnan(a) & torch.isnan(b))


class Device:
    """Where the kernels run, and how a stretch of its work is timed."""

    def __init__(self, quick: bool):
        self.cuda = torch.cuda.is_available() and not quick
        self.dev = torch.device("cuda" if self.cuda else "cpu")
        gtorch.TRITON_ON_CPU = not self.cuda

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def timer(self):
        """start(), then stop() -> a callable giving seconds once the device is synchronized."""
        if self.cuda:
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            return lambda: (b.record(), lambda: a.elapsed_time(b) / 1e3)[1]
        t0 = time.perf_counter()
        return lambda: (lambda t=time.perf_counter() - t0: t)


def exhaustive(d: Device, chunk: int, chunks: int) -> dict:
    """gelu and gelu_grad at every float32 bit pattern (chunks x chunk of them), GPU against the core."""
    out = {}
    for order, name in ((0, "gelu"), (1, "gelu_grad")):
        wrong, examples, listed = 0, [], torch.zeros(1, dtype=torch.int32, device=d.dev)
        t0 = time.perf_counter()
        for c in range(chunks):
            bits = torch.arange(c * chunk, (c + 1) * chunk, dtype=torch.int64, device=d.dev).to(torch.int32)
            x = bits.view(torch.float32)
            y = gpu.apply(x, "none", order, count=listed).cpu()
            ref = torch.from_numpy(core._apply(x.cpu().numpy(), "none", order, None))
            bad = ~same(y, ref)
            n_bad = int(bad.sum())
            if n_bad:
                wrong += n_bad
                idx = torch.nonzero(bad).ravel()[: 10 - len(examples)]
                examples += [(float(x[i]), float(y[i]), float(ref[i])) for i in idx.tolist()]
        out[name] = {"inputs": chunks * chunk, "wrong": wrong, "examples": examples, "listed": int(listed),
                     "seconds": round(time.perf_counter() - t0, 1)}
        print(f"exhaustive {name}: {wrong} wrong of {chunks * chunk} ({int(listed)} listed by the pass)", flush=True)
    return out


def all16(dtype, dev):
    return torch.arange(-32768, 32768, dtype=torch.int32, device=dev).to(torch.int16).view(dtype)


def checks(d: Device) -> dict:
    """Every 16-bit pattern and a float32 sample, every form and order, against the core; autograd; opcheck."""
    res = {}
    rng = np.random.default_rng(7)
    f32 = np.concatenate([rng.integers(0, 2**32, 1 << 18, dtype=np.uint64).astype(np.uint32).view(np.float32),
                          (rng.standard_normal(1 << 18) * 4).astype(np.float32), rng.uniform(-16, -5, 1 << 14).astype(np.float32)])
    cases = [all16(torch.float16, d.dev), all16(torch.bfloat16, d.dev), torch.from_numpy(f32).to(d.dev)]
    bad = {}
    for x in cases:
        for a in FORMS:
            for order in range(3):
                want = gtorch._on_cpu(x.cpu(), order, a)
                got = gtorch._OPS[order](x, a).cpu()  # float32: list then settle (the sample is above FUSE_BELOW)
                n = int((~same(got, want)).sum())
                if x.dtype == torch.float32:  # and in slices below FUSE_BELOW: one launch
                    step = gpu.FUSE_BELOW // 2
                    parts = [gtorch._OPS[order](x[i:i + step], a).cpu() for i in range(0, x.numel(), step)]
                    n += int((~same(torch.cat(parts), want)).sum())
                if n:
                    bad[f"{x.dtype}:{a}:{order}"] = n
    res["values_wrong"] = bad
    # autograd: the fused backward and double backward against the CPU's two ops
    grad_bad = {}
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.from_numpy((rng.standard_normal(1 << 16) * 4).astype(np.float32)).to(dtype)
        up = torch.from_numpy(rng.standard_normal(1 << 16).astype(np.float32)).to(dtype)
        for a in FORMS:
            xr = x.to(d.dev).requires_grad_(True)
            (g,) = torch.autograd.grad(gtorch.gelu(xr, a), xr, up.to(d.dev), create_graph=True)
            (g2,) = torch.autograd.grad(g, xr, up.to(d.dev))
            n = int((~same(g.detach().cpu(), up * gtorch._on_cpu(x, 1, a))).sum())
            n += int((~same(g2.cpu(), (up * up) * gtorch._on_cpu(x, 2, a))).sum())
            if n:
                grad_bad[f"{dtype}:{a}"] = n
            # geglu: one pass, the bits of gelu(a) * b
            n = int((~same(gtorch.geglu(x.to(d.dev), up.to(d.dev), a).cpu(), gtorch._on_cpu(x, 0, a) * up)).sum())
            if n:
                bad[f"geglu:{dtype}:{a}"] = n
    res["autograd_wrong"] = grad_bad
    failures = []
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        x = (torch.randn(5, 3, generator=torch.Generator().manual_seed(0)) * 3).to(dtype).to(d.dev)
        try:
            torch.library.opcheck(gtorch._GEGLU, (x.detach().requires_grad_(True), torch.cos(x).requires_grad_(True), "none"))
        except Exception as e:  # noqa: BLE001
            failures.append(f"geglu:{dtype}: {e!r}"[:300])
        for op in gtorch._OPS:
            for a in FORMS:
                try:
                    torch.library.opcheck(op, (x.detach().requires_grad_(True), a))
                except Exception as e:  # noqa: BLE001 - recorded, and the run goes on
                    failures.append(f"{op}:{dtype}:{a}: {e!r}"[:300])
        xt = (torch.randn(6, 4, generator=torch.Generator().manual_seed(1)) * 3).to(dtype).to(d.dev).t()  # transposed too
        for v in (x, xt):
            for a in FORMS:
                for order in (0, 1):
                    try:
                        torch.library.opcheck(gtorch._BACKWARD, (torch.ones_like(v).t().contiguous().t() if v is xt else torch.ones_like(v),
                                                                 v.detach().requires_grad_(True), a, order))
                    except Exception as e:  # noqa: BLE001
                        failures.append(f"gelu_backward:{dtype}:{a}:{order}: {e!r}"[:300])
    res["opcheck_failures"] = failures
    print(f"checks: values wrong {bad or 0}, autograd wrong {grad_bad or 0}, opcheck failures {len(failures)}", flush=True)
    return res


def _torch_geglu(a, b):
    """GEGLU's product GELU(a) * b as a model writes it with torch's ops: two kernels."""
    return torch.nn.functional.gelu(a) * b


def _cases(d: Device, n: int) -> dict:
    """name -> (callable, bytes moved, (x, form, order, grad) for ours in float32, else None):
    torch's and ours, forward and backward, float32 and bfloat16."""
    gen = torch.Generator(device=d.dev).manual_seed(3)
    cases = {}
    for dtype, tag in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        x = torch.randn(n, device=d.dev, generator=gen).to(dtype)
        g = torch.randn(n, device=d.dev, generator=gen).to(dtype)
        e = x.element_size()
        f32 = dtype == torch.float32
        cases[f"torch:{tag}:fwd"] = (lambda x=x: torch.nn.functional.gelu(x), 2 * n * e, None)
        cases[f"ours:{tag}:fwd"] = (lambda x=x: gtorch.gelu(x), 2 * n * e, (x, "none", 0, None) if f32 else None)
        cases[f"torch:{tag}:bwd"] = (lambda x=x, g=g: torch.ops.aten.gelu_backward(g, x), 3 * n * e, None)
        cases[f"ours:{tag}:bwd"] = (lambda x=x, g=g: gtorch._BACKWARD(g, x, "none", 0), 3 * n * e, (x, "none", 1, g) if f32 else None)
        cases[f"torch:{tag}:geglu"] = (lambda x=x, g=g: _torch_geglu(x, g), 3 * n * e, None)
        cases[f"ours:{tag}:geglu"] = (lambda x=x, g=g: gtorch.geglu(x, g), 3 * n * e, (x, "none", 0, g) if f32 else None)
        # as a model has them: the two halves of one projection, rows of up to 8192 (strided: ours copies each first)
        h = torch.randn(2 * n, device=d.dev, generator=gen).to(dtype).view(-1, min(2 * n, 8192))
        cases[f"torch:{tag}:geglu-halves"] = (lambda h=h: _torch_geglu(*h.chunk(2, -1)), 3 * n * e, None)
        cases[f"ours:{tag}:geglu-halves"] = (lambda h=h: gtorch.geglu(*h.chunk(2, -1)), 3 * n * e, None)
        cases[f"torch:{tag}:tanh:fwd"] = (lambda x=x: torch.nn.functional.gelu(x, approximate="tanh"), 2 * n * e, None)
        cases[f"ours:{tag}:tanh:fwd"] = (lambda x=x: gtorch.gelu(x, "tanh"), 2 * n * e, (x, "tanh", 0, None) if f32 else None)
    wide = torch.randn(n, device=d.dev, generator=gen) * 3
    cases["torch:fp32:fwd:N(0,9)"] = (lambda: torch.nn.functional.gelu(wide), 8 * n, None)
    cases["ours:fp32:fwd:N(0,9)"] = (lambda: gtorch.gelu(wide), 8 * n, (wide, "none", 0, None))
    return cases


def timed(d: Device, cases: dict, repeats: int, calls: int = 1) -> dict:
    """Median seconds per call of each case, the cases taken in turn within each repeat (interleaved)."""
    for f, *_ in cases.values():  # warm up: compilation, allocator, tables
        f()
        f()
    d.sync()
    samples = {k: [] for k in cases}
    for _ in range(repeats):
        pending = []
        for k, (f, *_) in cases.items():
            stop = d.timer()
            for _ in range(calls):
                f()
            pending.append((k, stop()))
        d.sync()
        for k, read in pending:
            samples[k].append(read() / calls)
    return {k: statistics.median(v) for k, v in samples.items()}


def throughput(d: Device, n: int, repeats: int, calls: int = 1) -> list:
    cases = _cases(d, n)
    med = timed(d, cases, repeats, calls)
    rows = []
    for k, (_, nbytes, spec) in cases.items():
        rows.append({"case": k, "n": n, "median_us": med[k] * 1e6, "GB/s": nbytes / med[k] / 1e9})
        if spec is not None and n >= gpu.FUSE_BELOW:  # how many of the same inputs the pass listed for settle32
            count = torch.zeros(1, dtype=torch.int32, device=d.dev)
            x, form, order, grad = spec
            gpu.apply(x, form, order, grad=grad, count=count)
            rows[-1]["listed"] = int(count)
    for r in rows:
        if r["case"].startswith("ours:"):
            theirs = med["torch:" + r["case"][5:]]
            r["torch_over_ours"] = theirs / med[r["case"]]  # above 1: ours is faster
    print(f"throughput n={n}: " + ", ".join(f"{r['case'][5:]} {r['torch_over_ours']:.3f}x" + (f" ({r['listed']} listed)" if "listed" in r else "")
                                           for r in rows if "torch_over_ours" in r), flush=True)
    return rows


def tune(d: Device, n: int, repeats: int) -> dict:
    """Our forward at 2^28 for a few block sizes and warp counts of main32 and lookup16 (the module's defaults restored)."""
    gen = torch.Generator(device=d.dev).manual_seed(5)
    x32 = torch.randn(n, device=d.dev, generator=gen)
    x16 = x32.to(torch.bfloat16)
    saved = gpu.BLOCK, gpu.WARPS, gpu.BLOCK16
    cases = {"torch:fp32": (lambda: torch.nn.functional.gelu(x32), 0), "torch:bf16": (lambda: torch.nn.functional.gelu(x16), 0)}

    def with_(block, warps, block16, x):
        def f():
            gpu.BLOCK, gpu.WARPS, gpu.BLOCK16 = block, warps, block16
            return gtorch.gelu(x)
        return f

    for block, warps in ((256, 4), (512, 4), (1024, 4), (1024, 8), (2048, 8)):
        cases[f"fp32:{block}:{warps}"] = (with_(block, warps, saved[2], x32), 0)
    for block16 in (1024, 2048, 4096, 8192):
        cases[f"bf16:{block16}"] = (with_(*saved[:2], block16, x16), 0)
    try:
        med = timed(d, cases, repeats)
    finally:
        gpu.BLOCK, gpu.WARPS, gpu.BLOCK16 = saved
    out = {k: {"median_us": v * 1e6, "torch_over_ours": med["torch:" + k.split(":")[0]] / v} for k, v in med.items() if not k.startswith("torch")}
    print("tune: " + ", ".join(f"{k} {v['torch_over_ours']:.3f}x" for k, v in out.items()), flush=True)
    return out


def ffn(d: Device, tokens: int, dim: int, hidden: int, repeats: int) -> dict:
    """Step time (forward and backward) of a compiled x @ W1 -> GELU -> @ W2 in bfloat16, torch's GELU against ours."""
    gen = torch.Generator(device=d.dev).manual_seed(4)
    x = torch.randn(tokens, dim, device=d.dev, generator=gen, dtype=torch.bfloat16)
    w1 = (torch.randn(dim, hidden, device=d.dev, generator=gen) / dim**0.5).to(torch.bfloat16).requires_grad_(True)
    w2 = (torch.randn(hidden, dim, device=d.dev, generator=gen) / hidden**0.5).to(torch.bfloat16).requires_grad_(True)
    gout = torch.randn(tokens, dim, device=d.dev, generator=gen, dtype=torch.bfloat16)
    steps = {}
    for name, act in (("torch", torch.nn.functional.gelu), ("ours", gtorch.gelu)):
        block = torch.compile(lambda x, w1, w2, act=act: act(x @ w1) @ w2, fullgraph=True)

        def step(block=block):
            w1.grad = w2.grad = None
            block(x, w1, w2).backward(gout)

        steps[name] = (step, 0)
    med = timed(d, steps, repeats)
    grads = {}
    for name, (step, _) in steps.items():  # the weights' gradients of one step: ours against torch's
        step()
        grads[name] = (w1.grad.float().clone(), w2.grad.float().clone())
    rel = [float((a - b).norm() / b.norm()) for a, b in zip(grads["ours"], grads["torch"])]
    flops = 6 * 2 * tokens * dim * hidden
    out = {"tokens": tokens, "dim": dim, "hidden": hidden, "torch_ms": med["torch"] * 1e3, "ours_ms": med["ours"] * 1e3,
           "ours_over_torch": med["ours"] / med["torch"], "torch_tflops": flops / med["torch"] / 1e12,
           "grad_rel_diff_w1_w2": rel}
    print(f"ffn {tokens}x{dim}x{hidden} bf16 compiled: torch {out['torch_ms']:.3f} ms, ours {out['ours_ms']:.3f} ms "
          f"({out['ours_over_torch']:.4f}x); gradients' relative difference {rel[0]:.1e}, {rel[1]:.1e}", flush=True)
    return out


def provenance(d: Device) -> dict:
    info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join(["PYTHONPATH=src python3 bench/gpu_check.py", *(["--quick"] if A.quick else []), *(["--skip", A.skip] if A.skip else [])]),
            "python": platform.python_version(),
            "torch": torch.__version__, "numpy": np.__version__, "cpu": platform.processor() or platform.machine(),
            "cpus": os.cpu_count()}
    try:
        import triton

        info["triton"] = triton.__version__
    except ImportError:
        pass
    from gelu_lab import kernels

    info["cpu_kernel"] = kernels.variant()
    if d.cuda:
        p = torch.cuda.get_device_properties(d.dev)
        info.update(device=p.name, sms=p.multi_processor_count, memory_gib=round(p.total_memory / 2**30, 1),
                    cuda=torch.version.cuda)
    else:
        info["device"] = "CPU, Triton interpreter (--quick)"
    return info


def main() -> int:
    d = Device(A.quick)
    skip = set(filter(None, A.skip.split(",")))
    result = {"provenance": provenance(d)}
    print(f"# {result['provenance'].get('device')}; torch {torch.__version__}; triton {result['provenance'].get('triton')}", flush=True)
    reps = 3 if A.quick else A.repeats
    plan = [  # the timings first: a run cut short by its time limit still has them
        ("throughput", lambda: throughput(d, 1 << (14 if A.quick else 28), reps)),
        ("small", lambda: throughput(d, 1 << (10 if A.quick else 16), reps, calls=1 if A.quick else 20)),
        ("tune", lambda: tune(d, 1 << (14 if A.quick else 28), reps)),
        ("checks", lambda: checks(d)),
        ("exhaustive", lambda: exhaustive(d, *((1 << 16, 4) if A.quick else (1 << 28, 16)))),
        ("ffn", lambda: ffn(d, *((64, 32, 128) if A.quick else (8192, 2048, 8192)), reps)),
    ]
    for name, run in plan:
        if name in skip:
            continue
        t0 = time.perf_counter()
        try:
            result[name] = run()
        except Exception:  # noqa: BLE001 - one section's failure is reported; the others still run
            result[name] = {"error": traceback.format_exc()[-2000:]}
            print(f"{name}: FAILED\n{result[name]['error']}", flush=True)
        print(f"  ({name}: {time.perf_counter() - t0:.0f} s)", flush=True)
        os.makedirs(A.out, exist_ok=True)
        with open(os.path.join(A.out, "gpu_check.json"), "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
