"""Claims: each verdict and figure recomputed independently (mpmath, brute-force grids, a fake
store, the shipped files read directly); the words of every check in both languages."""

import json
import math
import re

import mpmath
import numpy as np
import pytest
import torch
from scipy import special

from gelu_lab.analysis import claims
from gelu_lab.app import content
from gelu_lab.app.claim_words import words
from gelu_lab.cli import main
from gelu_lab.results import shipped
from gelu_lab.results.store import Store

pytestmark = pytest.mark.mpmath_dps(40)  # the precision of every mpmath oracle here, test by test (tests/conftest.py)


def test_values_by_mpmath():
    r = claims.check("values")
    f = r["figures"]
    assert f["gelu(2)"] == pytest.approx(float(2 * mpmath.ncdf(2)), rel=1e-15)
    assert f["gelu(-2)"] == pytest.approx(float(-2 * mpmath.ncdf(-2)), rel=1e-15)
    assert round(float(2 * mpmath.ncdf(2)), 3) == 1.954 and round(float(-2 * mpmath.ncdf(-2)), 3) == -0.046
    assert r["verdict"] == "true"


def test_monotonic_false_with_the_minimum():
    with mpmath.workdps(30):
        x0 = mpmath.findroot(lambda t: mpmath.ncdf(t) + t * mpmath.npdf(t), -0.75)
        m = x0 * mpmath.ncdf(x0)
    r = claims.check("monotonic")
    assert r["verdict"] == "false"
    assert r["figures"]["argmin"] == pytest.approx(float(x0), abs=1e-12)
    assert r["figures"]["min"] == pytest.approx(float(m), rel=1e-14)
    assert round(float(m), 5) == -0.16997 and round(float(x0), 5) == -0.75179


def test_random_is_false():
    r = claims.check("random")
    assert r["verdict"] == "false"
    f = r["figures"]
    assert f["identical_numpy"] and f["identical_torch_train_mode"]
    assert abs(f["mc_mean_x1"] - float(mpmath.ncdf(1))) < 5 * f["mc_stderr"]


def _grid_max(f, a=-4, b=4, n=800_001):
    x = np.linspace(a, b, n)
    return float(np.max(np.abs(f(x))))


def test_approximation_claims_by_grid():
    exact = lambda x: 0.5 * x * special.erfc(-x / math.sqrt(2))  # noqa: E731
    tanh = _grid_max(lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))) - exact(x))
    sig = _grid_max(lambda x: x * special.expit(1.702 * x) - exact(x))
    rt, rs = claims.check("tanh_error_below_0.003"), claims.check("sigmoid_error_below_0.003")
    assert rt["verdict"] == ("true" if tanh < 0.003 else "false") == "true"
    assert rs["verdict"] == ("true" if sig < 0.003 else "false") == "false"
    assert rt["figures"]["max_abs_error"] == pytest.approx(tanh, rel=1e-8)
    assert rs["figures"]["max_abs_error"] == pytest.approx(sig, rel=1e-8)


def test_quick_gelu_is_not_silu():
    r = claims.check("quick_gelu_is_silu")
    brute = _grid_max(lambda x: x * special.expit(1.702 * x) - x * special.expit(x))
    assert r["verdict"] == "false"
    assert r["figures"]["max_diff_vs_silu"] == pytest.approx(brute, rel=1e-8)


def test_torch_default_asks_torch():
    r = claims.check("torch_default_tanh")
    assert r["verdict"] == ("true" if torch.nn.GELU().approximate == "tanh" else "false")
    assert r["figures"]["gelu(1)"] == pytest.approx(float(mpmath.ncdf(1)), rel=1e-15)


def test_jax_default_measured_asked_or_untested(monkeypatch):
    """The frameworks table's JAX rows when it has them (tests/test_frameworks_accuracy.py), else JAX asked, else untested."""
    from gelu_lab.analysis import frameworks

    monkeypatch.setattr(frameworks, "accuracy_rows", lambda store=None: [])
    try:
        import jax  # noqa: F401
    except ImportError:
        r = claims.check("jax_default_tanh")
        assert r["verdict"] == "untested" and "frameworks" in r["how"]
    else:
        assert claims.check("jax_default_tanh")["verdict"] in ("true", "false")


def test_limits_towards_relu():
    # sup_x |GELU(s x)/s - ReLU(x)| = max |GELU(t) - ReLU(t)| / s = |min GELU| / s (by mpmath)
    with mpmath.workdps(20):
        x0 = mpmath.findroot(lambda t: mpmath.ncdf(t) + t * mpmath.npdf(t), -0.75)
        peak = -float(x0 * mpmath.ncdf(x0))
    r = claims.check("tends_to_relu")
    assert r["verdict"] == "true"
    for s, v in zip(r["figures"]["scales"], r["figures"]["sup_abs_diff"]):
        assert v * s == pytest.approx(peak, rel=1e-6)
    inf = claims.check("relu_at_infinity")
    assert inf["verdict"] == "true"
    assert inf["figures"]["abs_diff_at_-x"][2] == pytest.approx(float(10 * mpmath.ncdf(-10)), rel=1e-12)
    for x, at_pos, at_neg in zip(inf["figures"]["x"], inf["figures"]["abs_diff_at_+x"], inf["figures"]["abs_diff_at_-x"]):
        truth = float(x * mpmath.ncdf(-x))  # |x|·Phi(-|x|) at both x and -x: no column may show a rounded-away 0
        assert truth > 0 and at_pos == pytest.approx(truth, rel=1e-12) and at_neg == pytest.approx(truth, rel=1e-12)


def _fake_train_run(st, activation, shares):
    rid = st.start_run("train", f"{activation}/seed0", {"activation": activation})
    st.log_metrics(rid, 10, {f"L{i}.dead": 0.0 for i in range(len(shares))})
    st.log_metrics(rid, 100, {**{f"L{i}.dead": v for i, v in enumerate(shares)}, "L0.near_dead": 0.9})
    st.set_status(rid, "done")


def _no_shipped(monkeypatch, kind):
    real = shipped.result
    monkeypatch.setattr(shipped, "result", lambda k, key=None: None if k == kind else real(k, key))


def _shipped_dead_shares(worst_run: bool = False):
    """(mean, worst layer) of the last-step dead shares of the shipped experiment's ReLU runs (the
    preset whose seed 0 was trained at several learning rates; every shipped ReLU run when there
    is no such preset), from the file itself; with worst_run, the worst run's mean over its layers."""
    runs = shipped.doc("ffn_results.json")["runs"]
    rates: dict = {}
    for run in runs:
        c = run["config"]
        if c["seed"] == 0:
            rates.setdefault((c["preset"], c["activation"]), set()).add(c["lr"])
    swept = {preset for (preset, _), lrs in rates.items() if len(lrs) > 1}
    per_run = []
    for run in runs:
        if run["config"]["activation"] != "relu" or (swept and run["config"]["preset"] not in swept):
            continue
        layers = {k: v for k, v in run["metrics"].items() if k.endswith(".dead")}
        last = max(s for v in layers.values() for s, _ in v)
        per_run.append([x for v in layers.values() for s, x in v if s == last])
    if worst_run:  # the worst network: the largest mean over one run's layers
        return max(float(np.mean(v)) for v in per_run)
    return float(np.mean([np.mean(v) for v in per_run])), max(max(v) for v in per_run)


def test_relu_half_dead_reads_the_store_else_the_shipped_runs(tmp_path, monkeypatch):
    # a fresh install: the shipped FFN runs have dead-unit metrics, so the claim has a verdict
    # (it read "untested" before results.latest), labelled as shipped with the run's provenance
    mean, worst = _shipped_dead_shares()
    r = claims.check("relu_half_dead", False)
    assert r["source"] == "shipped" and r["provenance"]["processor"] and r["provenance"]["date"]
    network = _shipped_dead_shares(worst_run=True)
    assert r["verdict"] == ("true" if network > 0.5 else "depends" if worst > 0.5 else "false")
    assert r["figures"]["mean_dead_share"] == pytest.approx(mean) and r["figures"]["max_layer_dead_share"] == pytest.approx(worst)
    assert r["how"] == claims.TRAIN_HOW  # how to measure it here
    with Store(tmp_path / "s.sqlite") as st:
        assert claims.check("relu_half_dead", st)["source"] == "shipped"  # an empty store: still the shipped runs
        _fake_train_run(st, "gelu", [0.9, 0.9])  # not ReLU: ignored
        _fake_train_run(st, "relu", [0.01, 0.03])
        r = claims.check("relu_half_dead", st)  # the reader's own runs come first
        assert r["verdict"] == "false" and r["source"] == "store"
        assert r["figures"]["mean_dead_share"] == pytest.approx(0.02)
        assert r["figures"]["max_layer_dead_share"] == pytest.approx(0.03)
        _fake_train_run(st, "relu", [0.2, 0.7])  # one layer past half, the network (mean 0.45) not
        assert claims.check("relu_half_dead", st)["verdict"] == "depends"
        _fake_train_run(st, "relu", [0.6, 0.7])  # a network with more than half of its units dead
        assert claims.check("relu_half_dead", st)["verdict"] == "true"
    _no_shipped(monkeypatch, "train")
    r = claims.check("relu_half_dead", False)
    assert r["verdict"] == "untested" and r["how"].startswith("gelu-lab train")


def _bench_rows(ratios: dict, n=1 << 20, threads=2):
    rows = []
    for name, ratio in ratios.items():
        rows += [{"case": f"{name}:erf", "n": n, "threads": threads, "gelem_s": 1.0},
                 {"case": f"{name}:tanh", "n": n, "threads": threads, "gelem_s": ratio}]
    return rows + [{"case": "numpy:tanh", "n": 10, "threads": 1, "gelem_s": 99.0}, {"case": "numpy:erf", "n": 10, "threads": 1, "gelem_s": 1.0}]


def test_tanh_speed_claim_reads_the_newest_bench_run(tmp_path, monkeypatch):
    # shipped: the ratios of the shipped run at its largest size and most threads, from the file itself
    b = shipped.doc("measured.json")["bench"]
    n = max(r["n"] for r in b["rows"])
    t = max(r["threads"] for r in b["rows"] if r["n"] == n)
    at = {r["case"]: r["gelem_s"] for r in b["rows"] if r["n"] == n and r["threads"] == t}
    r = claims.check("tanh_much_faster", False)
    assert (r["verdict"], r["source"], r["figures"]["n"], r["figures"]["threads"]) == ("depends", "shipped", n, t)
    assert r["provenance"] == b["run"]["provenance"]
    for pair, ratio in r["figures"]["ratios"].items():
        num, den = pair.split(" / ")
        assert ratio == pytest.approx(at[num] / at[den]) and num in claims.LIVE_CASES
    assert r["how"] == "gelu-lab bench"
    with Store(tmp_path / "s.sqlite") as st:  # the reader's newest run comes first
        rid = st.start_run("bench", "k", {})
        st.put_result(rid, "rows", _bench_rows({"numpy": 3.0, "torch": 1.6}))
        st.set_status(rid, "done")
        r = claims.check("tanh_much_faster", st)
        assert r["source"] == "store" and r["figures"]["ratios"] == {"numpy:tanh / numpy:erf": 3.0, "torch:tanh / torch:erf": 1.6}
        assert r["figures"]["holds_for_every_backend"] and r["note"] == "note.tanh_much_faster.holds"
        assert r["figures"]["torch_kernels"] == {"erf": None, "tanh": None}  # a run that did not record them
        st.put_result(rid, "machine", {"torch_kernels": {"torch:erf": "oneDNN jit:x", "torch:tanh": "ATen Y"}})
        r = claims.check("tanh_much_faster", st)
        assert r["figures"]["torch_kernels"] == {"erf": "oneDNN jit:x", "tanh": "ATen Y"}
        assert (r["values"]["torch_erf"], r["values"]["torch_tanh"]) == ("oneDNN jit:x", "ATen Y")
        assert r["note"] == "note.tanh_much_faster.holds.kernels"  # the note that names them
    _no_shipped(monkeypatch, "bench")
    r = claims.check("tanh_much_faster", False)
    assert r["verdict"] == "untested" and r["how"] == "gelu-lab bench"


def test_tanh_speed_claim_measured_now():
    r = claims.check("tanh_much_faster", measure=True)
    assert r["verdict"] == "depends" and r["source"] == "measured" and r["provenance"]["processor"]
    ratios = r["figures"]["ratios"]
    assert "torch:tanh / torch:erf" in ratios and all(v > 0 for v in ratios.values())
    assert r["figures"]["holds_for_every_backend"] == all(v >= claims.MUCH_FASTER for v in ratios.values())
    # why torch's two forms differ in speed: different code (torch 2.13: oneDNN for the exact form, ATen for tanh)
    k = r["figures"]["torch_kernels"]
    assert k["erf"].startswith("oneDNN jit:") and k["tanh"].startswith("ATen "), k
    assert r["note"].endswith(".kernels")


def test_computed_verdicts_are_computed_once_per_process(tmp_path):
    a, b = claims.check("monotonic"), claims.check("monotonic", tmp_path / "none.sqlite")
    assert a == b and a["figures"] is b["figures"] and a["source"] == "computed" and a["provenance"] is None
    assert all(claims.CLAIMS[c].reads is None for c in ("values", "random", "tanh_error_below_0.003", "quick_gelu_is_silu"))


def test_every_claim_has_both_languages():
    assert len(claims.CLAIMS) >= 12
    zh, en = content.text("zh", "misconceptions"), content.text("en", "misconceptions")
    for cid in claims.CLAIMS:
        assert zh[f"claim.{cid}"] and en[f"claim.{cid}"] and zh[f"claim.{cid}"] != en[f"claim.{cid}"]


@pytest.mark.parametrize("lang", content.LANGS)
def test_every_check_is_said_with_no_unfilled_placeholder(lang, monkeypatch):
    results = claims.check_all(False)
    for kind in ("train", "bench"):  # the notes of the untested measurements too
        _no_shipped(monkeypatch, kind)
    results += [claims.check(c, False) for c in ("relu_half_dead", "tanh_much_faster")]
    for res in results:
        said = words(res, lang)
        for part in ("text", "note", "source"):
            assert said[part] and not re.search(r"\{\w+\}", said[part]), (res["id"], part, said[part])
    computed = words(claims.check("values"), lang)  # no run to name
    assert computed["source"] == content.text(lang, "misconceptions")["source.computed"]


def test_cli_json_and_text(capsys, tmp_path):
    assert main(["claims", "--id", "values", "--id", "relu_half_dead", "--store", str(tmp_path / "none.sqlite"), "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in d["claims"]] == ["values", "relu_half_dead"]
    assert d["claims"][1]["source"] == "shipped" and d["claims"][1]["verdict"] == claims.check("relu_half_dead", False)["verdict"]
    assert d["claims"][0]["text"]["en"] == content.text("en", "misconceptions")["claim.values"] and d["claims"][0]["note"]["zh"]
    assert not (tmp_path / "none.sqlite").exists()  # reading claims never creates a store
    assert main(["claims", "--id", "monotonic", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "单调" in out and "false" in out
    assert main(["claims", "--id", "tanh_much_faster", "--store", str(tmp_path / "none.sqlite")]) == 0
    out = capsys.readouterr().out
    m = shipped.doc("measured.json")["bench"]["machine"]  # the shipped run's own date and CPU
    assert "depends" in out and content.fill(content.text("en", "misconceptions")["source.shipped"], date=m["date"][:10], cpu=m["processor"]) in out


@pytest.mark.parametrize("argv", [["claims", "--id", "nope"], ["claims", "--lang", "fr"], ["claims", "--format", "xml"]])
def test_cli_bad_args(capsys, argv):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and err.startswith("gelu-lab")


# --- the claims about models around GELU (analysis.model_claims) ------------------------------


def test_t5_and_llama_do_not_use_bert_s_gelu_ffn():
    """Ground truth from the models' own descriptions: T5 (Raffel et al. 2020) uses ReLU, T5
    v1.1 "GEGLU activation in feed-forward hidden layer, rather than ReLU" (its checkpoints'
    feed_forward_proj "gated-gelu"), LLaMA SwiGLU (Touvron et al. 2023). The config is read
    again here, and the structure read from the model code is checked against what the FFN
    computes (a forward pass of a tiny T5 on the CPU, below)."""
    import transformers

    t5, llama = claims.check("t5_gelu"), claims.check("llama_gelu")
    assert t5["verdict"] == "false" and llama["verdict"] == "false"
    f = t5["figures"]
    assert (f["v1_0_proj"], f["v1_0_activation"], f["v1_0_gated"]) == ("relu", transformers.T5Config().dense_act_fn, False) == ("relu", "relu", False)
    assert (f["v1_1_proj"], f["v1_1_gated"]) == ("gated-gelu", True) and f["v1_1_activation"] == transformers.T5Config(feed_forward_proj="gated-gelu").dense_act_fn
    assert llama["figures"]["hidden_act"] == transformers.LlamaConfig().hidden_act == "silu" and llama["figures"]["gated"] is True
    # gated or not, by what the FFN computes: with ReLU, a plain FFN is positively homogeneous,
    # FFN(2x) = 2 FFN(x) (biases off); a gated ReGLU one is quadratic, FFN(2x) = 4 FFN(x)
    torch.manual_seed(0)
    x = torch.randn(1, 3, 16)
    for proj, gated in (("relu", False), ("gated-relu", True)):
        cfg = transformers.T5Config(feed_forward_proj=proj, d_model=16, d_ff=24, num_layers=1, num_decoder_layers=1, num_heads=2, d_kv=8,
                                    dropout_rate=0.0)
        ff = transformers.T5ForConditionalGeneration(cfg).encoder.block[0].layer[-1].DenseReluDense.eval()
        with torch.no_grad():
            ratio = float((ff(2 * x).norm() / ff(x).norm()))
        assert ratio == pytest.approx(4.0 if gated else 2.0, rel=1e-5), proj
        assert (claims.model_claims.architectures.ffn_structure(transformers, cfg)["gated"]) is gated


def test_inputs_are_not_standard_normal_in_the_shipped_probe():
    """The shipped probe's layers read directly: every layer's KS distance to N(0, 1) is above
    the bound, and a layer's own normal fits far better (the histogram is close to normal,
    shifted). The KS distance is recomputed from the shipped histogram: it approximates the
    stored one to the histogram's bin width."""
    from scipy import stats

    doc = json.loads((shipped.DATA / shipped.FILES["probe"]).read_text(encoding="utf-8"))
    r = claims.check("inputs_standard_normal", store=False)
    assert r["verdict"] == "false" and r["source"] == "shipped"
    for L, got in zip(doc["result"]["layers"], r["figures"]["layers"]):
        assert got["ks_std_normal"] == L["ks_std_normal"] > claims.model_claims.KS_FAR > L["ks_fitted_normal"]
        h = L["hist"]
        edges = h["lo"] + h["step"] * np.arange(len(h["density"]) + 1)
        cdf = np.concatenate([[0.0], np.cumsum(np.asarray(h["density"]) * h["step"])])
        inside = edges <= 4.0
        ks = float(np.max(np.abs(cdf[inside] - stats.norm.cdf(edges[inside]))))
        assert abs(ks - L["ks_std_normal"]) < 0.03, ks
    v = r["values"]
    assert v["mean_lo"] == min(L["mean"] for L in doc["result"]["layers"]) < -0.5


def test_smoothness_is_not_what_carries_the_gradient():
    """The verdict from the first-layer gradients of torch autograd (tests/test_gradflow.py checks
    the stacks): ReLU keeps at least a tenth of it in every stack at depth 24, the sigmoid not a
    thousandth in the plain one."""
    r = claims.check("smooth_deep")
    first = {row["arch"]: row for row in r["figures"]["first_layer"]}
    assert r["verdict"] == "false" and r["figures"]["depth"] == 24
    assert all(first[a]["relu"] > 0.1 for a in ("mlp", "preln", "postln")) and first["mlp"]["sigmoid"] < 1e-3
    assert first["mlp"]["gelu"] < first["mlp"]["relu"]  # the smooth GELU keeps less than ReLU in the plain stack
