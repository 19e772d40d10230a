"""The Playground's trainer (app/assets/playground.js), run by node, against its NumPy twin
(gelu_lab.analysis.playground) and gelu_lab's activations; its URL state; its PyTorch export.

Same seed, data and steps give the same data, initial weights, losses after every step,
final weights and dead units, to 1e-9 in float64. The activations agree with the
registry's over a dense grid.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from gelu_lab import activations
from gelu_lab.analysis import playground as pg
from gelu_lab.app import state
from gelu_lab.app.pages.playground import page as page

JS = page.__file__.replace("/pages/playground/page.py", "/assets/playground.js")
DEFAULT = {p.name: p.default for p in page.PARAMS}
# enough to cover every dataset, feature, activation, and the L2 and batch paths
CONFIGS = [
    {**DEFAULT, "dataset": "spiral", "units": 8},
    {**DEFAULT, "dataset": "circle", "noise": 20, "split": 70, "features": list(pg.FEATURES), "layers": 3, "units": 5,
     "act_a": "gelu_tanh", "act_b": "silu", "lr": 0.01, "batch": 7, "l2": 0.003, "init": 1.5, "seed": 7, "wseed": 3},
    {**DEFAULT, "dataset": "xor", "noise": 0, "split": 30, "features": ["x1x2"], "layers": 1, "units": 3,
     "act_a": "mish", "act_b": "elu", "lr": 0.1, "batch": 1, "l2": 0.01, "init": 0.5, "seed": 42, "wseed": 9},
    {**DEFAULT, "dataset": "gauss", "noise": 50, "features": ["x1", "sin2"], "layers": 4, "units": 8,
     "act_a": "softplus", "act_b": "leaky_relu", "batch": 33, "l2": 0.001, "init": 2.0, "seed": 5, "wseed": 11},
    {**DEFAULT, "dataset": "spiral", "noise": 30, "split": 60, "features": ["x1", "x2", "sin1"], "units": 6,
     "act_a": "gelu_sigmoid", "act_b": "sigmoid", "lr": 0.3, "batch": 16, "seed": 3, "wseed": 4},
    {**DEFAULT, "dataset": "circle", "features": ["x1sq", "x2sq"], "units": 2, "lr": 0.01, "batch": 100, "seed": 0, "wseed": 0},
]
STEPS = 150


def node(script: str, data) -> object:
    """Run `script` under node with P = playground.js and D = data (JSON on stdin); its printed JSON."""
    prog = f"const P = require({json.dumps(JS)}); const D = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n{script}"
    out = subprocess.run(["node", "-e", prog], input=json.dumps(data), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def js_runs():
    return node("console.log(JSON.stringify(D.cfgs.map(c => P.simulate(c, D.steps))));", {"cfgs": CONFIGS, "steps": STEPS})


def test_mulberry32_and_gauss_are_the_same_stream():
    seeds = [0, 1, 42, 2**31 - 1, 2**32 - 1, 0x5BD1E995]
    got = node("console.log(JSON.stringify(D.map(s => { const r = P.mulberry32(s), g = P.mulberry32(s);"
               " return [Array.from({length: 500}, r), Array.from({length: 200}, () => P.gauss(g))]; })));", seeds)
    for s, (uniform, normal) in zip(seeds, got):
        r, g = pg.Mulberry32(s), pg.Mulberry32(s)
        assert uniform == [r() for _ in range(500)]  # exactly: integer arithmetic and one division by 2^32
        np.testing.assert_allclose(normal, [g.gauss() for _ in range(200)], rtol=0, atol=1e-14)
    assert 0 <= min(got[0][0]) and max(got[0][0]) < 1


@pytest.mark.parametrize("k", range(len(CONFIGS)), ids=[f"{c['dataset']}-{c['act_a']}-{c['act_b']}" for c in CONFIGS])
def test_js_training_is_the_numpy_training(js_runs, k):
    cfg, js = CONFIGS[k], js_runs[k]
    ref = pg.train(cfg, STEPS)
    assert js["ntrain"] == ref["ntrain"]
    np.testing.assert_allclose(js["points"], ref["points"], rtol=0, atol=1e-12)
    for (W, b), layer in zip(ref["initial"], zip(js["initial"][0]["W"], js["initial"][0]["b"])):
        np.testing.assert_allclose(np.reshape(layer[0], W.shape), W, rtol=0, atol=1e-12)
        assert layer[1] == list(b)
    assert js["initial"][0] == js["initial"][1]  # both networks start from the same weights
    np.testing.assert_allclose(js["losses"], ref["losses"], rtol=0, atol=1e-9)
    for net, layers in zip(js["exported"]["networks"], ref["weights"]):
        for got, (W, b) in zip(net["layers"], layers):
            np.testing.assert_allclose(got["weight"], W, rtol=0, atol=1e-9)
            np.testing.assert_allclose(got["bias"], b, rtol=0, atol=1e-9)
    assert js["dead"] == ref["dead"]
    assert ref["losses"][-1] != ref["losses"][0]  # it trained


def test_activations_match_gelu_lab_on_a_dense_grid():
    x = np.concatenate([np.linspace(-12, 12, 96_001), -np.logspace(-10, 2.5, 800), np.logspace(-10, 2.5, 800), [0.0, -0.0]])
    got = node("const o = {erf: D.map(P.erf), erfc: D.map(P.erfc)};"
               "for (const k in P.ACTS) { o[k] = D.map(P.ACTS[k][0]); o[k + \"'\"] = D.map(P.ACTS[k][1]); }"
               "console.log(JSON.stringify(o));", x.tolist())
    assert sorted(k for k in got if not k.endswith("'") and k not in ("erf", "erfc")) == sorted(activations.names())
    erf, erfc = np.array(got["erf"]), np.array(got["erfc"])
    assert np.max(np.abs(erf - np.array([math.erf(v) for v in x]))) <= 1e-15
    ref = np.array([math.erfc(v) for v in x])
    assert np.max(np.abs(erfc - ref) / np.maximum(ref, 1e-300)) <= 2e-14
    for name in activations.names():
        a = activations.get(name)
        f, df = np.array(got[name], dtype=float), np.array(got[name + "'"], dtype=float)
        fx, dfx = a.fn(x), a.grad(x)
        # values: relative (down to the subnormals, where gelu_lab's tanh form gives -0); slopes:
        # absolute (a slope crosses 0, where its relative error means nothing)
        assert np.all(np.abs(f - fx) <= 5e-13 * np.abs(fx) + 1e-300), name
        assert np.max(np.abs(df - dfx)) <= 2e-14, name
        near = np.abs(x) <= 5
        assert np.max(np.abs(f - fx)[near]) <= 1e-15 * 8, name


def test_relu_units_die_at_a_high_learning_rate_and_gelu_units_do_not():
    """XOR, 2 x 8 units, seed 1: at learning rate 3 half the ReLU units are dead after 100 steps, no GELU unit."""
    high = {**DEFAULT, "dataset": "xor", "units": 8, "lr": 3.0}
    low = {**high, "lr": 0.03}
    js = node("console.log(JSON.stringify(D.map(c => P.simulate(c, 100).dead)));", [high, low])
    for cfg, dead in zip((high, low), js):
        assert dead == pg.train(cfg, 100)["dead"]
    count = [[sum(map(sum, d)) for d in dead] for dead in js]
    assert count[0][0] == 0 and count[0][1] >= 6, count
    assert count[1][1] < count[0][1], count


def test_url_codec_reads_writes_and_repairs_the_playground_state():
    values = {**DEFAULT, "dataset": "spiral", "noise": 25, "features": ["x1", "x1sq", "sin2"], "layers": 3, "units": 6,
              "act_a": "silu", "act_b": "leaky_relu", "lr": 0.3, "batch": 17, "l2": 0.001, "init": 1.3, "seed": 123, "wseed": 77}
    query = state.encode({p.name: values[p.name] for p in page.PARAMS}, "en")
    assert "features=x1,x1sq,sin2" in query and "lr=0.3" in query and query.endswith("lang=en")
    read, notes = state.read(page.PARAMS, query)
    assert read == values and notes == []
    read, notes = state.read(page.PARAMS, "?dataset=moons&noise=99&units=0&lr=abc&features=x1,nope&layers=2.4&seed=-5")
    assert read["dataset"] == "circle" and read["noise"] == 50 and read["units"] == 1 and read["lr"] == 0.03
    assert read["features"] == ["x1"] and read["layers"] == 2 and read["seed"] == 0
    assert {n[1]["name"] for n in notes} == {"dataset", "noise", "units", "lr", "features", "seed"}
    cfg, empty = page.config({**DEFAULT, "features": []})
    assert empty and cfg["features"] == ["x1", "x2"]


def test_export_and_pytorch_code_reproduce_the_network(tmp_path):
    cfg = {**DEFAULT, "features": ["x1", "x2", "x1x2", "sin1"], "layers": 2, "units": 5, "act_a": "gelu_sigmoid", "act_b": "leaky_relu", "lr": 0.1}
    out = node("const r = P.simulate(D, 40); console.log(JSON.stringify({ex: r.exported, code: P.torchCode(r.exported)}));", cfg)
    ex = out["ex"]
    assert ex["format"] == "gelu-lab-playground/1" and ex["step"] == 40 and ex["features"] == cfg["features"]
    X = pg.feature_matrix(np.array([p + [0] for p in ex["check"]["inputs"]], dtype=float), ex["features"])
    for k, net in enumerate(ex["networks"]):
        assert net["sizes"] == [4, 5, 5, 1]
        layers = [[np.array(layer["weight"]), np.array(layer["bias"])] for layer in net["layers"]]
        assert [W.shape for W, _ in layers] == [(5, 4), (5, 5), (1, 5)]
        np.testing.assert_allclose(pg.logits(layers, net["activation"], X), [z[k] for z in ex["check"]["logits"]], rtol=0, atol=1e-12)
    code = tmp_path / "gelu_lab_playground.py"
    code.write_text(out["code"], encoding="utf-8")
    compile(out["code"], str(code), "exec")  # valid Python whether or not torch is here
    np.testing.assert_allclose(torch_logits(code, ex["check"]["inputs"]), ex["check"]["logits"], rtol=0, atol=1e-12)
    run = subprocess.run([sys.executable, str(code)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "network A" in run.stdout, run.stderr


def torch_logits(code, inputs) -> np.ndarray:
    """Both networks of an exported PyTorch file (torch, as make test installs it) on `inputs`: rows of (a, b)."""
    driver = (f"import runpy, json, torch; m = runpy.run_path({str(code)!r}); x = torch.tensor({inputs!r}, dtype=torch.float64)\n"
              "with torch.no_grad(): print(json.dumps([m[n](m['features'](x)).flatten().tolist() for n in ('net_a', 'net_b')]))")
    r = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return np.array(json.loads(r.stdout)).T
