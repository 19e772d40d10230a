"""Statements people make about GELU, each checked by computation or against a measurement.

    CLAIMS                                  id -> Claim: the one record of a claim (below)
    check(id, store=None, measure=False)    -> dict: id, verdict, figures, note, values, how, source, provenance
    check_all(store=None, ids=None, measure=False) -> list of those, in registry order
    checked(id, store=None, measure=False)  -> Checked(claim, result, drawing): what a card shows

A claim is one record, read by the Misconceptions page, the report (which renders the page),
the story and ``gelu-lab claims``: its computation (``evidence``, and ``reads``, the result
kind it is a measurement of), its words' keys (``words``: the statement's content block; the
note's block comes with each check), its figure (``figure``: evidence -> a drawing of
:mod:`.claim_figures`, None for numbers only), the training run that settles it (``trains``:
the activation; the page offers to start it), the table the card shows beside it
(``table``) and whether the story lists it among popular beliefs (``popular``).

A verdict is one of "true", "false", "depends" (on the machine or the setup: the
figures say what the measurement shows), "unsettled" (measured, but the effect is
within the noise of the measurement: our evidence cannot decide) and "untested"
(the evidence needs a run or a package that is not there; ``how`` says what to run).

Where the evidence comes from (``source``):

    computed   gelu_lab computes it. It depends only on gelu_lab and the installed
               packages, so it is computed once per process.
    store      a measurement read through :func:`gelu_lab.results.latest`: the newest in
    shipped    the reader's runs store, else the one shipped with gelu_lab. Read on every
               check (the store changes); ``provenance`` says when and on what CPU.
    measured   a timing of this machine, made now (``measure=True``; claims with ``reads``
               "bench" only).

``store`` is what ``results.latest`` takes: None for the reader's own, a path or an
open Store, False for none (the shipped results only).

No words here: a claim's statement is the content block ``claim.<id>`` and its note
the block named by ``note``, filled with ``values`` (``app/content/<lang>/misconceptions.md``).
A value is the number itself, not its text: :mod:`gelu_lab.app.claim_words` prints it (about
four significant figures, lists joined with the block ``and``; a ``Share`` as a percentage, a
``Signed`` difference with its sign: gelu_lab.analysis.evidence).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import numerics as nm
from . import claim_figures as draw
from . import ffn_claims, glu_paper, model_claims
from .evidence import SOURCES, VERDICTS, Share, Signed  # noqa: F401  (the claims' words: what a verdict and a source may be)
from .evidence import computed as _computed
from .evidence import ev as _ev


@dataclass(frozen=True)
class Claim:
    id: str
    evidence: Callable  # (store, measure) -> dict(verdict, figures, note, values, how, source, provenance)
    reads: str | None = None  # the result kind of gelu_lab.results.latest its evidence is; None: computed
    figure: Callable | None = None  # evidence figures -> a drawing (analysis.claim_figures); None: its numbers only
    trains: str | None = None  # the activation of the FFN training run that settles it (the page offers to start one)
    table: str | None = None  # a table the card shows beside its evidence ("frameworks": the measured frameworks table)
    popular: bool = False  # a popular belief: the story lists it when the check finds it false or not settled

    @property
    def words(self) -> str:
        """The content block of its statement (content/<lang>/misconceptions.md)."""
        return f"claim.{self.id}"


@dataclass(frozen=True)
class Checked:
    claim: Claim
    result: dict  # check()
    drawing: object | None  # the figure's data (analysis.claim_figures), None: numbers only, or untested


# --------------------------------------------------------------------------
# evidence computed by gelu_lab


def _values():
    import gelu_lab

    g2, g0, gm2 = (float(v) for v in gelu_lab.gelu(np.array([2.0, 0.0, -2.0])))
    d0 = float(gelu_lab.gelu_grad(0.0))
    ok = abs(g2 - 1.954) < 5e-4 and g0 == 0.0 and abs(gm2 + 0.046) < 5e-4 and d0 == 0.5
    f = {"gelu(2)": g2, "gelu(0)": g0, "gelu(-2)": gm2, "gelu'(0)": d0}
    return _ev("true" if ok else "false", f, "note.values", {"g2": g2, "g0": g0, "gm2": gm2, "d0": d0})


def gelu_minimum() -> tuple[float, float]:
    """(x, GELU(x)) at the minimum of GELU: the root of GELU' = Phi + x phi on [-2, 0]."""
    from scipy import optimize

    x0 = optimize.brentq(lambda t: float(nm.gelu_exact_grad(t)), -2.0, 0.0, xtol=1e-15)
    return x0, float(nm.gelu_exact(x0))


def _monotonic():
    x0, m = gelu_minimum()
    left, right = float(nm.gelu_exact_grad(x0 - 0.1)), float(nm.gelu_exact_grad(x0 + 0.1))
    mono = not (left < 0 < right)  # GELU' changes sign at x0: falls, then rises
    return _ev("true" if mono else "false", {"argmin": x0, "min": m, "grad_left": left, "grad_right": right}, "note.monotonic",
               {"x0": x0, "m": m, "xl": x0 - 0.1, "left": left})


def _random():
    import gelu_lab

    rng = np.random.default_rng(0)
    x = rng.normal(size=4096)
    same = bool(np.array_equal(gelu_lab.gelu(x), gelu_lab.gelu(x)))
    torch_same = None
    try:
        import torch

        m = torch.nn.GELU().train()
        t = torch.from_numpy(x)
        torch_same = bool(torch.equal(m(t), m(t)))
    except ImportError:
        pass
    # the stochastic reading: x * Bernoulli(Phi(x)) averages to x Phi(x) = GELU(x)
    xv, n = 1.0, 400_000
    draws = xv * (rng.random(n) < float(nm.Phi(xv)))
    mean, se = float(draws.mean()), float(draws.std() / math.sqrt(n))
    g = float(nm.gelu_exact(xv))
    deterministic = same and torch_same is not False
    f = {"identical_numpy": same, "identical_torch_train_mode": torch_same, "mc_mean_x1": mean, "mc_stderr": se,
         "gelu(1)": g, "mc_within_4se": abs(mean - g) < 4 * se}
    return _ev("false" if deterministic else "true", f, "note.random",
               {"torch_same": torch_same, "n": n, "mean": mean, "se": se, "g": g})


ERROR_BOUND = 0.003  # the bound of the two "max error below 0.003" claims


def _approx_error(form):
    def ev():
        from .errors import error_curves

        c = error_curves(form, interval=(-4.0, 4.0))
        below = c.max_abs_error < ERROR_BOUND
        return _ev("true" if below else "false", c.summary(), "note.approx_error",
                   {"err": c.max_abs_error, "xs": [x for x, _ in c.argmax_pair]})

    return ev


def _torch_default():
    try:
        import torch
    except ImportError:
        return _ev("untested", {}, "note.torch_missing", how="pip install 'gelu-lab[torch]'")
    m = torch.nn.GELU()
    y = float(m(torch.tensor(1.0, dtype=torch.float64)))
    exact, tanh = float(nm.gelu_exact(1.0)), float(nm.gelu_tanh(1.0))
    is_tanh = abs(y - tanh) < abs(y - exact)
    f = {"torch": torch.__version__, "approximate": m.approximate, "gelu(1)": y, "exact(1)": exact, "tanh_form(1)": tanh}
    return _ev("true" if is_tanh else "false", f, "note.torch_default_tanh",
               {"torch": torch.__version__, "approximate": repr(m.approximate), "y": y, "d_exact": abs(y - exact), "d_tanh": abs(y - tanh)})


JAX_HOW = 'pip install -e ".[frameworks]" && python bench/ship_frameworks.py'  # two commands, no comment: a page shows it in code


def _jax_measured(store):
    """The JAX rows of the measured frameworks table (float32, exhaustive), or None."""
    from . import frameworks

    rows = [r for r in frameworks.accuracy_rows(store) if r["framework"] == "JAX" and r["measured"] and r["dtype"] == "float32"]
    return rows or None


def _jax_asked():
    try:
        import inspect

        import jax
    except ImportError:
        return None
    default = inspect.signature(jax.nn.gelu).parameters["approximate"].default
    y = float(jax.nn.gelu(1.0))
    exact, tanh = float(nm.gelu_exact(1.0)), float(nm.gelu_tanh(1.0))
    is_tanh = abs(y - tanh) < abs(y - exact)
    f = {"jax": jax.__version__, "approximate_default": default, "gelu(1)": y, "exact(1)": exact, "tanh_form(1)": tanh}
    return _ev("true" if is_tanh else "false", f, "note.jax_default_tanh", {"jax": jax.__version__, "default": repr(default), "y": y, "d_exact": abs(y - exact), "d_tanh": abs(y - tanh)})


def _jax_default(store, measure):
    """A measurement of JAX when the frameworks table has one (the form jax.nn.gelu computes
    unasked, recorded with the run, and how well each form rounds); else JAX asked now; else untested."""
    rows = _jax_measured(store) or []
    default = next((r["form"] for r in rows if r["default"]), None)
    if default is None:  # no measurement, or none that knows the default
        asked = _jax_asked()
        return asked if asked is not None else _ev("untested", {}, "note.jax_missing", how=JAX_HOW)
    by_form = {r["form"]: r for r in rows}
    d = by_form[default]
    prov = d["provenance"]
    f = {"jax": d["version"], "default_form": default,
         **{f"frac_wrong.{form}": r["frac_wrong"] for form, r in by_form.items()},
         **{f"max_ulp.{form}": float(r["max_ulp"]) for form, r in by_form.items()}}
    tanh = default == "gelu_tanh"
    return _ev("true" if tanh else "false", f, "note.jax_default_tanh.measured." + ("tanh" if tanh else "exact"),
               {"jax": d["version"], "cpu": prov.get("processor", "?"), "default": f"approximate={tanh}",
                "share": Share(d["frac_wrong"], 2), "ulp": float(d["max_ulp"])},
               JAX_HOW, d["source"], prov)


def _relu_limit():
    from .errors import located_maxima

    scales = [1.0, 10.0, 100.0, 1000.0]
    sup = []
    for s in scales:
        err = lambda x, s=s: nm.gelu_exact(s * np.asarray(x)) / s - np.maximum(x, 0.0)  # noqa: E731
        derr = lambda x, s=s: nm.gelu_exact_grad(s * np.asarray(x)) - (np.asarray(x) > 0)  # noqa: E731
        sup.append(located_maxima(err, derr, -4.0, 4.0, n=400_001)[0][1])
    shrinking = all(b < a for a, b in zip(sup, sup[1:])) and sup[-1] < 1e-3
    f = {"scales": scales, "sup_abs_diff": sup, "sup_times_scale": [a * s for a, s in zip(sup, scales)]}
    return _ev("true" if shrinking else "false", f, "note.tends_to_relu",
               {"sups": dict(zip(scales, sup))})


def _relu_infinity():
    xs = np.array([2.0, 5.0, 10.0, 20.0, 30.0])  # 30·Phi(-30) ~ 1e-196; at 40 it underflows float64 and would show as 0
    # GELU(x) - x = -x·Phi(-x) for x > 0, computed as that product: GELU(x) - x in float64 rounds to 0 past x ~ 8,
    # which would show no gap where the maths has one
    pos = xs * nm.Phi(-xs)
    neg = np.abs(nm.gelu_exact(-xs))  # ReLU(-x) = 0
    agree = bool(np.all(np.diff(pos) < 0) and np.all(np.diff(neg) < 0) and np.allclose(pos, neg, rtol=1e-12, atol=0) and neg[-1] < 1e-150)
    f = {"x": xs, "abs_diff_at_+x": pos, "abs_diff_at_-x": neg}
    return _ev("true" if agree else "false", f, "note.relu_at_infinity", {"d5": float(neg[1]), "d10": float(neg[2]), "d20": float(neg[3])})


def _quick_gelu_silu():
    from .errors import error_curves

    vs_silu = error_curves("gelu_sigmoid", "silu", (-4.0, 4.0))
    vs_gelu = error_curves("gelu_sigmoid", "gelu", (-4.0, 4.0))
    same = vs_silu.max_abs_error < 1e-6
    f = {"max_diff_vs_silu": vs_silu.max_abs_error, "argmax_vs_silu": vs_silu.argmax,
         "max_diff_vs_gelu": vs_gelu.max_abs_error, "silu_beta": 1.0, "quick_gelu_beta": nm.SIGMOID_BETA}
    return _ev("true" if same else "false", f, "note.quick_gelu_is_silu",
               {"silu": vs_silu.max_abs_error, "at": vs_silu.argmax, "gelu": vs_gelu.max_abs_error})


# --------------------------------------------------------------------------
# evidence that is a measurement: read through gelu_lab.results.latest


MUCH_FASTER = 1.5  # "much faster": at least 1.5x the throughput
BENCH_HOW = "gelu-lab bench"
LIVE_CASES = ["numpy:erf", "numpy:tanh", "torch:erf", "torch:tanh", "torch:erf:fwd+bwd", "torch:tanh:fwd+bwd"]


def tanh_ratios(rows: list[dict]) -> tuple[dict, int, int]:
    """({"num / den": ratio}, n, threads) of tanh over erf for the framework cases (LIVE_CASES)
    in one bench run's rows, at its largest size and, there, its most threads."""
    from . import bench

    q = [r for r in bench.tanh_vs_erf(rows) if r["num"] in LIVE_CASES]
    if not q:
        return {}, 0, 0
    n = max(r["n"] for r in q)
    threads = max(r["threads"] for r in q if r["n"] == n)
    return {f"{r['num']} / {r['den']}": r["ratio"] for r in q if r["n"] == n and r["threads"] == threads}, n, threads


def _measure_now():
    """(rows, torch kernels, provenance) of a short bench of this machine: 2^20 float32, all of torch's threads."""
    from ..results.store import provenance
    from . import bench

    names = list(LIVE_CASES)
    try:
        import torch

        threads = torch.get_num_threads()
    except ImportError:
        names, threads = names[:2], 1
    rows = bench.run(names, sizes=[1 << 20], threads=(threads,), repeats=5, progress=False)
    return rows, bench.torch_kernels(names), provenance("gelu-lab claims --id tanh_much_faster --measure")


def _tanh_faster(store, measure):
    """The ratios say how much faster; torch's kernels say why: its two forms run different code
    (the exact form in oneDNN, the tanh form in ATen; analysis.bench.torch_kernels)."""
    from .. import results

    if measure:
        (rows, kernels, prov), source = _measure_now(), "measured"
    else:
        got = results.latest("bench", store=store)
        if got is None:
            return _ev("untested", {}, "note.tanh_much_faster.none", how=BENCH_HOW)
        rows, prov, source = got.value["rows"], got.provenance, got.source
        kernels = (got.value.get("machine") or {}).get("torch_kernels") or {}  # runs before it was recorded: none
    r, n, threads = tanh_ratios(rows)
    if not r:
        return _ev("untested", {}, "note.tanh_much_faster.none", how=BENCH_HOW, source=source, provenance=prov)
    every = all(v >= MUCH_FASTER for v in r.values())
    erf, tanh = kernels.get("torch:erf"), kernels.get("torch:tanh")
    return _ev("depends", {"ratios": r, "threshold": MUCH_FASTER, "holds_for_every_backend": every, "n": n, "threads": threads,
                           "torch_kernels": {"erf": erf, "tanh": tanh}},
               "note.tanh_much_faster." + ("holds" if every else "not") + (".kernels" if erf and tanh else ""),
               {"cpu": prov.get("processor", "?"), "n": n, "threads": threads, "ratios": r, "torch_erf": erf, "torch_tanh": tanh},
               BENCH_HOW, source, prov)


TRAIN_HOW = "gelu-lab train --activations gelu,relu --preset quick"
EXPERIMENT_HOW = ffn_claims.EXPERIMENT_HOW


def dead_relu_shares(runs: list[dict]) -> list[dict]:
    """Final dead-unit share of each finished ReLU training run among `runs` (run dicts of
    results.latest("train")): the metrics whose name holds "dead" (not "near_dead") at the
    run's last such step, averaged over layers (shares in [0, 1]), and the worst layer."""
    out = []
    for run in runs:
        if str(run["config"].get("activation", "")).lower() != "relu":
            continue
        pts = {name: [p for p in series if p[1] is not None] for name, series in run["metrics"].items()
               if "dead" in name and "near" not in name}
        pts = {k: v for k, v in pts.items() if v}
        if not pts:
            continue
        last = max(p[0] for v in pts.values() for p in v)
        vals = [p[1] for v in pts.values() for p in v if p[0] == last]
        c = run["config"]
        out.append({"run_id": run["id"], "key": run["key"], "step": last, "dead_share": float(np.mean(vals)), "max_layer_share": float(max(vals)),
                    "width": c.get("n_embd"), "fc_init_std": c.get("fc_init_std"), "lr": c.get("lr"), "seed": c.get("seed")})
    return out


def _relu_half_dead(store, measure):
    source, runs, exps = ffn_claims.train_runs(store)
    if exps:  # the decisive experiment: every ReLU run of it, at each rate, width and init
        runs = exps[0]["runs"]
    shares = dead_relu_shares(runs)
    if not shares:
        return _ev("untested", {"runs": []}, "note.relu_half_dead.none", how=TRAIN_HOW)
    worst = max(s["max_layer_share"] for s in shares)
    mean = float(np.mean([s["dead_share"] for s in shares]))
    ids = {s["run_id"] for s in shares}
    prov = next(r["provenance"] for r in runs if r["id"] in ids)
    f = {"runs": shares, "mean_dead_share": mean, "max_layer_dead_share": worst}
    # "more than half of the units": of a whole network (a run's mean over its layers); a single
    # layer past half, with every network below it, is the case where it depends on where you look
    verdict = "true" if max(s["dead_share"] for s in shares) > 0.5 else "depends" if worst > 0.5 else "false"
    return _ev(verdict, f, "note.relu_half_dead",
               {"runs": len(shares), "mean": Share(mean), "worst": Share(worst)}, TRAIN_HOW, source, prov)


def _gelu_lower_loss(store, measure):
    """GELU against ReLU in the main cell of the learning-rate experiment: the paired interval
    of the final val loss, and the same at every evaluation step (is GELU behind early and
    ahead late?)."""
    from ..stats.runsets import main_cell, pair_of, paired

    source, runs, exps = ffn_claims.train_runs(store)
    main = main_cell(exps)
    p = pair_of(main, "relu")
    if p is None or p["n"] < 2:
        return _ev("untested", {}, "note.gelu_lower_loss.none", how=EXPERIMENT_HOW)
    curves: dict[str, dict] = {}
    for r in main["runs"]:
        if r["config"]["activation"] in ("gelu", "relu"):
            curves.setdefault(r["config"]["activation"], {})[r["config"]["seed"]] = dict(map(tuple, r["metrics"].get("val_loss", [])))
    steps = sorted(set.intersection(*(set(v) for a in curves.values() for v in a.values())))
    over = [{"step": s, **{k: v for k, v in paired({sd: c[s] for sd, c in curves["gelu"].items()},
                                                   {sd: c[s] for sd, c in curves["relu"].items()}).items() if k in ("mean", "lo", "hi", "n")}}
            for s in steps]
    mid = min(over, key=lambda o: abs(o["step"] - steps[-1] / 2))
    verdict = "unsettled" if p["verdict"] != "larger" else ("true" if p["mean"] < 0 else "false")
    c = main["runs"][0]["config"]
    f = {"final": {k: p[k] for k in ("mean", "lo", "hi", "n", "diffs")}, "over_training": over, "width": c["n_embd"], "steps": c["steps"]}
    prov = main["runs"][0]["provenance"]
    return _ev(verdict, f, f"note.gelu_lower_loss.{verdict}",
               {"n": str(p["n"]), "width": str(c["n_embd"]), "steps": str(c["steps"]), "mean": Signed(p["mean"]), "lo": Signed(p["lo"]),
                "hi": Signed(p["hi"]), "mid_step": str(mid["step"]), "mid": Signed(mid["mean"]), "mid_lo": Signed(mid["lo"]),
                "mid_hi": Signed(mid["hi"]), **_paper_gelu_relu()}, EXPERIMENT_HOW, source, prov)


def _paper_gelu_relu() -> dict:
    """Shazeer 2020's GELU and ReLU log-perplexities (analysis.glu_paper.PAPER), as the notes quote them."""
    lp, steps = glu_paper.PAPER["log_ppl"], glu_paper.PAPER["steps"]
    return {"paper_gelu": lp["gelu"][0], "paper_relu": lp["relu"][0], "paper_gelu_long": lp["gelu"][1], "paper_relu_long": lp["relu"][1],
            "paper_steps": int(steps[0]), "paper_steps_long": int(steps[1])}  # counts: the words group them (1,000)


CLAIMS = {
    c.id: c
    for c in [
        Claim("values", _computed(_values), figure=draw.values),
        Claim("monotonic", _computed(_monotonic), figure=draw.monotonic, popular=True),
        Claim("random", _computed(_random), figure=draw.random, popular=True),
        Claim("tanh_error_below_0.003", _computed(_approx_error("tanh")), figure=draw.error("tanh", ERROR_BOUND)),
        Claim("sigmoid_error_below_0.003", _computed(_approx_error("sigmoid")), figure=draw.error("sigmoid", ERROR_BOUND)),
        Claim("torch_default_tanh", _computed(_torch_default), popular=True),
        Claim("jax_default_tanh", _jax_default, reads="accuracy", table="frameworks"),
        Claim("tanh_much_faster", _tanh_faster, reads="bench", figure=draw.speed, popular=True),
        Claim("tends_to_relu", _computed(_relu_limit), figure=draw.limit),
        Claim("relu_at_infinity", _computed(_relu_infinity), figure=draw.infinity),
        Claim("quick_gelu_is_silu", _computed(_quick_gelu_silu), figure=draw.quick, popular=True),
        Claim("relu_half_dead", _relu_half_dead, reads="train", figure=draw.dead, trains="relu", popular=True),
        Claim("gelu_lower_loss", _gelu_lower_loss, reads="train", figure=draw.lower_loss, popular=True),
        Claim("relu2_better", ffn_claims.relu2_better, reads="train", figure=draw.relu2, popular=True),
        Claim("t5_gelu", _computed(model_claims.t5_gelu), figure=draw.named("fig.t5", ("v1_0_activation", "v1_1_activation")), popular=True),
        Claim("llama_gelu", _computed(model_claims.llama_gelu), figure=draw.named("fig.llama", ("hidden_act",)), popular=True),
        Claim("inputs_standard_normal", model_claims.inputs_standard_normal, reads="probe", figure=draw.ks, popular=True),
        Claim("smooth_deep", _computed(model_claims.smooth_deep), figure=draw.deep, popular=True),
    ]
}


def check(claim_id: str, store=None, measure: bool = False) -> dict:
    """The claim's verdict and evidence (see the module's docstring for store and measure)."""
    if claim_id not in CLAIMS:
        raise ValueError(f"unknown claim {claim_id!r}; choose from {', '.join(CLAIMS)}")
    c = CLAIMS[claim_id]
    return {"id": c.id, **c.evidence(store, measure)}


def check_all(store=None, ids=None, measure: bool = False) -> list[dict]:
    return [check(i, store, measure) for i in (ids or CLAIMS)]


def drawing(res: dict):
    """The figure's data of check() result `res` (its claim's ``figure``), None when the claim
    shows its numbers only or was not tested."""
    c = CLAIMS[res["id"]]
    return None if c.figure is None or res["verdict"] == "untested" else c.figure(res["figures"])


def checked(claim_id: str, store=None, measure: bool = False) -> Checked:
    """What a claim's card shows: its record, its check() and its drawing, in one call."""
    res = check(claim_id, store, measure)
    return Checked(CLAIMS[claim_id], res, drawing(res))
