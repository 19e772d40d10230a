"""How the AVX2 ratios against torch should move from this CPU to a Zen 1: a static estimate, not a measurement.

    .venv/bin/python bench/zen1_estimate.py [--mca llvm-mca-19]

No Zen 1 has been lent to time the avx2 variant on, so this asks LLVM's machine
model instead (llvm-mca; Debian: `apt-get install llvm-19`). For each kernel's
hot loop it takes the cycles of 300 iterations on the znver1 model (Zen 1:
256-bit operations as two 128-bit halves) and on the znver4 model (this CPU
class), and from them the factor by which the ratio "ours / torch" changes
from Zen 4 to Zen 1: (torch's Zen 1 / Zen 4 cycles) / (ours' Zen 1 / Zen 4
cycles). The loops, read with objdump from the code that actually runs:

- gelu_lab's avx2 variant: main_gelu_avx2 / main_grad_avx2 in the built
  extension, pass 1 (the loop with vpermps) and pass 2 (the loop with the
  prefetch), per 8 inputs; plus the settling of the inputs they list
  (settle_*_avx2v, its loop with vdivpd, 4 inputs an iteration) weighted by
  the share listed, which bench/native_split.py measures on 2^20 inputs from
  N(0, 4) (the same arithmetic on any AVX2 CPU, so the same share on a Zen 1);
- numba's kernel compiled for AVX2 (the innermost loop with a division), the
  one kernel also measured on a real Zen 1, as the check of the method;
- torch's: oneDNN's `jit:avx2` GELU forward and backward (torch sends float32
  exact GELU there), their code dumped by ONEDNN_JIT_DUMP, the main loop.

Two model figures are printed: "total" (llvm-mca's simulated cycles, with the
dependencies and the scheduler) and "rthr" (the block's reciprocal throughput,
resources only). Calibrate on numba's line: its measured change, Zen 4 stand-in
(bench/bench_gelu.py --avx2) to the real Zen 1 runs of 2026-11-30, was 0.73-0.78
(gelu) and 0.80-0.83 (gelu_grad). Multiply a stand-in ratio by a factor to get
the estimate (docs/decisions.md, "The AVX2 stand-in").
Writes bench/results/zen1_estimate.json.
"""

from __future__ import annotations

import argparse
import functools
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import record  # noqa: E402
from bench_gelu import held_to_avx2_env  # noqa: E402  (the one stand-in environment: numba, ATen and oneDNN held to AVX2)
ITER = 300
CPUS = ("znver1", "znver4")


def objdump(args: list[str]) -> list[tuple[int, str]]:
    """(address, instruction) of objdump -d output, comments and symbol names dropped."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", *args], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S.*)$", line)
        if m:
            rows.append((int(m.group(1), 16), re.sub(r"\s*<[^>]*>", "", re.sub(r"\s*#.*$", "", m.group(2))).strip()))
    return rows


_NOT_RUN = re.compile(r"(j\w+|nop\w*|call\w*|ret\w*|cs|data16)\b")  # branches, padding, calls: not in a model's loop


def innermost_first(found: list[tuple[int, list[str]]]) -> list[list[str]]:
    """Loop bodies (their length in the listing, their instructions) shortest first, with only what a model can run."""
    return [[i for i in body if not _NOT_RUN.match(i)] for _, body in sorted(found, key=lambda f: f[0])]


def loops(rows: list[tuple[int, str]]) -> list[list[str]]:
    """The loops of an objdump listing (a jump back to an address inside it), innermost first."""
    found = []
    for a, ins in rows:
        m = re.match(r"j\w+\s+(?:0x)?([0-9a-f]+)$", ins)
        if m and int(m.group(1), 16) < a:
            lo = int(m.group(1), 16)
            found.append((a - lo, [i for b, i in rows if lo <= b <= a]))
    return innermost_first(found)


def first(found: list[list[str]], mark: str) -> list[str]:
    for body in found:
        if any(mark in i for i in body):
            return body
    raise SystemExit(f"no loop with {mark} found")


def symbol(name: str) -> list[str]:
    """objdump's arguments for one function of the built extension (from its address to the next symbol's)."""
    from gelu_lab import _native

    so = _native.__file__
    syms = subprocess.run(["nm", so], capture_output=True, text=True, check=True).stdout.split("\n")
    addr = sorted(int(s.split()[0], 16) for s in syms if s.strip() and len(s.split()) == 3)
    start = next(int(s.split()[0], 16) for s in syms if s.endswith(f" {name}"))
    stop = next(a for a in addr if a > start)
    return [f"--start-address={start:#x}", f"--stop-address={stop:#x}", so]


def ours(fn: str) -> list[list[str]]:
    """gelu_lab's avx2 main pass for fn ("gelu" or "grad"): pass 1 and pass 2."""
    found = loops(objdump(symbol(f"main_{fn}_avx2")))
    return [first(found, "vpermps"), first(found, "prefetcht0")]


def settle(fn: str) -> list[str]:
    """gelu_lab's avx2 settling loop for fn: the vector TIGHT tier, 4 listed inputs an iteration."""
    return first(loops(objdump(symbol(f"settle_{fn}_avx2v"))), "vdivpd")


def listed_share() -> dict[str, float]:
    """{"gelu": share, "grad": share} of inputs the avx2 main pass lists, from bench/native_split.py."""
    with tempfile.TemporaryDirectory() as d:  # its JSON aside: a short run must not replace bench/results/native_split.json
        out = subprocess.run([sys.executable, str(ROOT / "bench" / "native_split.py"), "--n", str(1 << 20), "--repeats", "1",
                              "--out", str(pathlib.Path(d) / "native_split.json")], capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines() if not line.startswith("#")]
    col = next(r for r in rows if r[:1] == ["variant"]).index("listed%")  # the header names the columns
    share = {"grad" if r[1] == "gelu_grad" else "gelu": float(r[col]) / 100 for r in rows if r[:1] == ["avx2"]}
    if set(share) != {"gelu", "grad"}:
        raise SystemExit("bench/native_split.py printed no avx2 rows (is the avx2 variant built and runnable here?)")
    return share


def onednn(tmp: pathlib.Path) -> dict[str, list[list[str]]]:
    """oneDNN's jit:avx2 GELU forward and backward main loops, dumped by a torch run each."""
    code = {"fwd": "torch._C._nn.gelu(x, approximate='none', out=o)",
            "bwd": "torch.ops.aten.gelu_backward.grad_input(torch.ones_like(x), x, approximate='none', grad_input=o)"}
    out = {}
    for k, call in code.items():
        d = tmp / k
        d.mkdir()
        env = {**held_to_avx2_env(), "ONEDNN_JIT_DUMP": "1"}
        subprocess.run([sys.executable, "-c", f"import torch; x = torch.randn(1 << 16); o = torch.empty_like(x); {call}"],
                       cwd=d, env=env, check=True)
        (dump,) = d.glob("*.bin")
        out[k] = [first(loops(objdump(["-b", "binary", "-m", "i386:x86-64", "-D", str(dump)])), "vdivps")]
    return out


NUMBA = (("gelu", "gelu", "_gelu_f32"), ("grad", "gelu_grad", "_gelu_grad_f32"))  # (key, gelu_lab name, kernel)


def numba_loops(tmp: pathlib.Path, keys=("gelu", "grad")) -> dict[str, list[list[str]]]:
    """numba's kernels compiled for AVX2 (bench_gelu's stand-in environment): the innermost loop with a division."""
    env = {**held_to_avx2_env(), "GELU_LAB_KERNEL": "numba", "NUMBA_CACHE_DIR": str(tmp / "numba")}
    out = {}
    for k, name, fn in (n for n in NUMBA if n[0] in keys):
        code = (f"import numpy as np; from gelu_lab import kernels; kernels.raw_f32('{name}', np.ones(100, np.float32)); "
                f"f = kernels.{fn}; print(f.inspect_asm(f.signatures[0]))")
        asm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.splitlines()
        labels = {m.group(1): i for i, l in enumerate(asm) if (m := re.match(r"^(\.LBB\d+_\d+):", l))}
        found = []
        for i, line in enumerate(asm):
            m = re.match(r"^\s+j\w+\s+(\.LBB\d+_\d+)", line)
            if m and labels.get(m.group(1), i) < i:
                body = [re.sub(r"\s*#.*$", "", x).strip() for x in asm[labels[m.group(1)]:i]]
                found.append((i - labels[m.group(1)], [x for x in body if x and not x.startswith((".", "#")) and not x.endswith(":")]))
        out[k] = [first(innermost_first(found), "vdivpd")]
    return out


@functools.cache  # a loop stands in more than one sum (the main passes: with the settling and alone)
def cycles(mca: str, body: tuple[str, ...], cpu: str) -> tuple[float, float]:
    """(simulated cycles per iteration, block reciprocal throughput) of one loop on one model."""
    r = subprocess.run([mca, f"-mcpu={cpu}", f"-iterations={ITER}"], input="\n".join(body) + "\n", capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"{mca} failed: {r.stderr.strip().splitlines()[0] if r.stderr.strip() else r.returncode}")
    total = int(re.search(r"Total Cycles:\s+(\d+)", r.stdout).group(1)) / ITER
    return total, float(re.search(r"Block RThroughput:\s+([\d.]+)", r.stdout).group(1))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mca", default="llvm-mca-19", help="llvm-mca with znver1 and znver4 models (LLVM 16 or newer)")
    a = p.parse_args(argv)
    if shutil.which(a.mca) is None:
        print(f"{a.mca} not found: apt-get install llvm-19 (or pass --mca)", file=sys.stderr)
        return 2
    with record.recording("zen1_estimate", timed=False) as figures:
        estimate(a, figures)
    return 0


def estimate(a, figures) -> None:
    with tempfile.TemporaryDirectory() as t:
        tmp = pathlib.Path(t)
        dnnl, nb, share = onednn(tmp), numba_loops(tmp), listed_share()
        # (weight, loop): per 8 inputs, 2 * share iterations of the settling loop (4 listed inputs each)
        main_ = {fn: [(1, body) for body in ours(fn)] for fn in ("gelu", "grad")}
        kern = {("gelu_lab avx2", fn): main_[fn] + [(2 * share[fn], settle(fn))] for fn in ("gelu", "grad")}
        kern |= {("gelu_lab avx2 main only", fn): main_[fn] for fn in ("gelu", "grad")}
        kern |= {("numba", fn): [(1, nb[fn][0])] for fn in ("gelu", "grad")}
        kern |= {("torch (oneDNN jit:avx2)", fn): [(1, dnnl[d][0])] for fn, d in (("gelu", "fwd"), ("grad", "bwd"))}
        model = {(k, cpu): [sum(w * cycles(a.mca, tuple(body), cpu)[i] for w, body in loops_) for i in (0, 1)]
                 for k, loops_ in kern.items() for cpu in CPUS}
    print(f"# {a.mca}, {ITER} iterations; cycles per loop iteration, total / rthr (per 8 inputs for gelu_lab, per loop for the others)")
    print(f"# avx2 inputs listed (bench/native_split.py, 2^20 from N(0, 4)): gelu {100 * share['gelu']:.2f} %, "
          f"gelu_grad {100 * share['grad']:.2f} %")
    for k in kern:
        z1, z4 = model[k, "znver1"], model[k, "znver4"]
        print(f"{k[0]:>24} {k[1]:4}  znver1 {z1[0]:6.1f} / {z1[1]:6.1f}   znver4 {z4[0]:6.1f} / {z4[1]:6.1f}   "
              f"Zen1/Zen4 {z1[0] / z4[0]:.2f} / {z1[1] / z4[1]:.2f}")
    print("# factor by which 'ours / torch' changes from Zen 4 to Zen 1, total / rthr "
          "(numba measured: gelu 0.73-0.78, grad 0.80-0.83)")
    torch_ = "torch (oneDNN jit:avx2)"
    for who in ("numba", "gelu_lab avx2", "gelu_lab avx2 main only"):
        for fn in ("gelu", "grad"):
            f = [(model[(torch_, fn), "znver1"][i] / model[(torch_, fn), "znver4"][i])
                 / (model[(who, fn), "znver1"][i] / model[(who, fn), "znver4"][i]) for i in (0, 1)]
            print(f"{who:>24} {fn:4}  {f[0]:.2f} / {f[1]:.2f}")
            figures[f"{who} {fn}: factor of ours / torch from Zen 4 to Zen 1 (simulated cycles)"] = round(f[0], 2)


if __name__ == "__main__":
    sys.exit(main())
