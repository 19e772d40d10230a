"""The bench harness: each case computes what its name says; the figures are well formed.

No timing is asserted here (timings belong in bench/); only that the timed
callables compute the right thing and that the rows and ratios are consistent.
"""

import json
import math

import numpy as np
import pytest
from scipy import special

from gelu_lab.analysis import bench
from gelu_lab.cli import main
from gelu_lab.results.store import Store


def _truth(form, x):
    x = x.astype(np.float64)
    if form == "erf":
        return 0.5 * x * special.erfc(-x / math.sqrt(2))
    if form == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return x * special.expit(1.702 * x)


def _as_np(y):
    if isinstance(y, tuple):
        y = y[0]
    if type(y).__module__.startswith("torch"):
        from gelu_lab.torch import to_numpy

        y = to_numpy(y)
    return np.asarray(y).astype(np.float64)


@pytest.mark.parametrize("name", [n for n, c in bench.CASES.items() if c.direction == "forward" and c.form != "copy"])
def test_forward_cases_compute_their_form(name):
    c = bench.CASES[name]
    n = 4096
    y = _as_np(c.setup(n)())
    x = bench._x(n, c.dtype).astype(np.float64)
    tol = {"float32": 1e-5, "bfloat16": 2e-2, "float16": 2e-3}[c.dtype]
    np.testing.assert_allclose(y, _truth(c.form, x), rtol=tol, atol=tol * 0.1)  # naive float32 forms cancel in the tail: absolute


@pytest.mark.parametrize("name", [n for n, c in bench.CASES.items() if c.direction == "grad"])
def test_grad_cases_compute_the_derivative(name):
    c = bench.CASES[name]
    y = _as_np(c.setup(2048)())
    x = bench._x(2048).astype(np.float64)
    h = 1e-6
    fd = (_truth(c.form, x + h) - _truth(c.form, x - h)) / (2 * h)
    np.testing.assert_allclose(y, fd, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", [n for n, c in bench.CASES.items() if c.direction == "fwd+bwd" and c.backend != "gelu_lab"])
def test_backward_cases_produce_the_derivative(name):
    import torch

    form = bench.CASES[name].form
    fn = bench.CASES[name].setup(512)
    fn()
    # the closure's leaf tensor holds d/dx sum(f(x)) = f'(x): check by central differences
    leaf = next(c.cell_contents for c in fn.__closure__ if isinstance(c.cell_contents, torch.Tensor) and c.cell_contents.requires_grad)
    x = leaf.detach().numpy().astype(np.float64)
    h = 1e-6
    fd = (_truth(form, x + h) - _truth(form, x - h)) / (2 * h)
    np.testing.assert_allclose(leaf.grad.numpy(), fd, rtol=1e-4, atol=1e-5)


def test_time_call_calls_and_reports():
    calls = {"n": 0}

    def f():
        calls["n"] += 1

    r = bench.time_call(f, repeats=3)
    assert calls["n"] == 2 + 3 * r["inner"]  # warm-up, calibration, then the samples
    assert r["min_s"] <= r["median_s"] <= r["max_s"]


def test_thread_clock_only_at_one_thread():
    r = bench.time_call(lambda: sum(range(1000)), repeats=2, clock="thread")
    assert 0 <= r["min_s"] <= r["median_s"]
    with pytest.raises(ValueError):
        bench.run(["copy"], sizes=[1000], threads=(2,), repeats=1, progress=False, clock="thread")
    with pytest.raises(ValueError):
        bench.run(["copy"], sizes=[1000], threads=(1,), repeats=1, progress=False, clock="cpu")


def test_rows_and_ratios_consistent():
    rows = bench.run(["numpy:erf", "numpy:tanh"], sizes=[1000, 2000], threads=(1,), repeats=1, progress=False)
    assert {r["case"] for r in rows} == {"copy", "numpy:erf", "numpy:tanh"}
    for r in rows:
        assert r["gelem_s"] == pytest.approx(r["n"] / r["median_s"] / 1e9)
    by = {(r["case"], r["n"]): r for r in rows}
    for q in bench.tanh_vs_erf(rows):
        assert q["ratio"] == pytest.approx(by[("numpy:tanh", q["n"])]["gelem_s"] / by[("numpy:erf", q["n"])]["gelem_s"])
        assert by[("numpy:tanh", q["n"])]["vs_copy"] == pytest.approx(by[("numpy:tanh", q["n"])]["gelem_s"] / by[("copy", q["n"])]["gelem_s"])


def test_cli_json_and_store(capsys, tmp_path):
    path = tmp_path / "b.sqlite"
    assert main(["bench", "--cases", "torch:erf,torch:tanh", "--sizes", "1000", "--repeats", "1", "--store", str(path), "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["rows"]) == 3 and d["machine"]["threads"] == [1] and "torch" in d["machine"]
    with Store(path) as st:
        run, rows = st.latest_result("bench", "rows")
        assert run["status"] == "done" and len(rows) == 3 and st.result(run["id"], "machine")["cpus"]


def test_torch_kernels_name_the_kernel_each_torch_case_runs(monkeypatch):
    """torch 2.13 sends contiguous float32 exact GELU, forward and backward, to oneDNN and the tanh
    form to ATen's own kernel; ONEDNN_MAX_CPU_ISA caps oneDNN's choice (read by the probe's fresh process)."""
    import torch

    tk = bench.torch_kernels()
    torch_cases = [n for n, c in bench.CASES.items() if c.backend == "torch" and c.direction in ("forward", "grad")]
    assert list(tk) == torch_cases
    aten = f"ATen {torch.backends.cpu.get_cpu_capability()}"
    assert all(k == aten or k.startswith("oneDNN jit:") for k in tk.values()), tk
    assert tk["torch:tanh"] == aten and tk["torch:tanh:grad"] == aten and tk["torch:sigmoid"] == aten
    assert tk["torch:erf"].startswith("oneDNN") and tk["torch:erf:grad"].startswith("oneDNN")
    assert bench.torch_kernels(["torch:erf", "gelu_lab:erf"]).keys() == {"torch:erf"}
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "SSE41")
    assert "sse41" in bench.torch_kernels(["torch:erf"])["torch:erf"], "oneDNN held to SSE4.1 names its kernel so"


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--cases", "nope"],
        ["bench", "--sizes", "0"],
        ["bench", "--sizes", "1e9"],
        ["bench", "--sizes", "abc"],
        ["bench", "--threads", "0"],
        ["bench", "--repeats", "0"],
    ],
)
def test_cli_bad_args(capsys, argv):
    assert main([*argv, "--no-store"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and err.startswith("gelu-lab")


def test_interleaved_samples_take_turns():
    """time_interleaved samples a, b, a, b, ...: each callable's samples are spread over the whole run."""
    order = []
    fns = {"a": lambda: order.append("a"), "b": lambda: order.append("b")}
    r = bench.time_interleaved(fns, repeats=4, min_sample_s=0.0)
    assert set(r) == {"a", "b"} and all(v["repeats"] == 4 and v["inner"] == 1 for v in r.values())
    assert order[4:] == ["a", "b"] * 4  # after two warm-up and calibration calls each
    rows = bench.run(["numpy:erf", "numpy:tanh"], sizes=[1000], threads=(1,), repeats=2, progress=False, interleave=True)
    assert [r["case"] for r in rows] == ["copy", "numpy:erf", "numpy:tanh"]
    assert all(r["gelem_s"] == pytest.approx(r["n"] / r["median_s"] / 1e9) for r in rows)
