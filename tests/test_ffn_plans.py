"""The experiment's schedule: a learning-rate sweep that grows its log grid until the best rate
has a worse neighbour on both sides, checked on synthetic loss curves; the seeds that follow."""

import math

import pytest

from gelu_lab.nn import plans
from gelu_lab.stats.runsets import bracket, experiments

PLAN = plans.Plan(preset="decide", lrs=(2e-3, 4e-3, 8e-3), sweep=("gelu", "relu", "silu", "swiglu", "sigmoid"),
                  seeds={"gelu": 3, "relu": 3, "silu": 2, "swiglu": 2, "sigmoid": 2, "gelu_tanh": 2}, lr_from={"gelu_tanh": "gelu"},
                  small=(("quick", 600, (0.02,), ("gelu",), 1),))


def parabola(best):
    return lambda lr: math.log(lr / best) ** 2


CURVES = {
    "gelu": parabola(0.0045),  # inside the first grid
    "relu": parabola(0.02),  # beyond its top: two more rates
    "silu": parabola(0.0007),  # beyond its bottom
    "swiglu": lambda lr: -lr if lr < 0.01 else float("nan"),  # better and better, then diverges
    "sigmoid": lambda lr: -lr,  # better and better up to the end of lr_range
}


def simulate(plan, curves):
    """The experiment's loop with a loss curve for a training run: run every sweep run wanted, ask again."""
    losses, rounds = {}, 0
    while True:
        runs, lr = plans.wanted(plan, losses)
        new = [r for r in runs if r["seed"] == 0 and r["activation"] in plan.sweep and r["width"] is None and r["preset"] == plan.preset
               and r["lr"] not in losses.get(r["activation"], {})]
        if not new:
            return losses, lr, runs, rounds
        rounds += 1
        for r in new:
            losses.setdefault(r["activation"], {})[r["lr"]] = curves[r["activation"]](r["lr"])


def grid_in_range(plan):
    """Every rate of the plan's log grid inside its lr_range (0.002 * 2^k)."""
    return [2e-3 * 2.0**k for k in range(-6, 6) if plan.lr_range[0] <= 2e-3 * 2.0**k <= plan.lr_range[1]]


def test_the_sweep_grows_until_the_best_rate_is_bracketed():
    losses, lr, runs, rounds = simulate(PLAN, CURVES)
    grid = grid_in_range(PLAN)
    for act, f in CURVES.items():
        best = min(grid, key=lambda r: f(r) if not math.isnan(f(r)) else math.inf)  # the whole grid, by brute force
        assert lr[act] == pytest.approx(best), act
        tried = sorted(losses[act])
        assert all(b / a == pytest.approx(2.0) for a, b in zip(tried, tried[1:])), tried  # a log grid, no gaps
    for act in ("gelu", "relu", "silu", "swiglu"):  # a worse (or diverged) neighbour on both sides
        b = bracket(losses[act])
        assert b["bracketed"] and b["below"] < lr[act] < b["above"]
    assert sorted(losses["gelu"]) == [2e-3, 4e-3, 8e-3]  # nothing added where nothing was needed
    assert sorted(losses["relu"]) == pytest.approx([2e-3, 4e-3, 8e-3, 0.016, 0.032])
    assert sorted(losses["silu"]) == pytest.approx([2.5e-4, 5e-4, 1e-3, 2e-3, 4e-3, 8e-3])
    # sigmoid keeps improving: the grid stops at lr_range, the rate is the best there, and the sweep says it is not bracketed
    assert lr["sigmoid"] == pytest.approx(0.032) and not bracket(losses["sigmoid"])["bracketed"]
    assert rounds == 4  # the first grid, then one rate per round at the edge that needs it
    assert lr["gelu_tanh"] == lr["gelu"]


def test_seeds_wait_for_their_rate_and_run_round_by_round():
    first, lr = plans.wanted(PLAN, {})
    assert lr == {} and {r["seed"] for r in first if r["preset"] == "decide"} == {0}
    assert [r["preset"] for r in first][-1] == "quick"  # the small runs need no rate
    losses, lr, runs, _ = simulate(PLAN, CURVES)
    seeds = [(r["activation"], r["seed"]) for r in runs if r["seed"] > 0 and r["preset"] == "decide"]
    # seed 1 of the variants the comparison is about, then seed 2 of them, then the others'
    assert seeds[:4] == [("gelu", 1), ("relu", 1), ("silu", 1), ("swiglu", 1)]
    assert seeds.index(("gelu", 2)) < seeds.index(("sigmoid", 1))
    assert all(r["lr"] == lr[r["activation"]] for r in runs if r["seed"] > 0 and r["preset"] == "decide")
    assert len({tuple(sorted(r.items())) for r in runs}) == len(runs)  # seed 0 at its rate once: it is the sweep's run


def test_next_rate_only_at_an_edge_and_within_range():
    assert plans.next_rate(PLAN, {2e-3: 2.0, 4e-3: 1.0, 8e-3: 1.5}) is None
    assert plans.next_rate(PLAN, {2e-3: 2.0, 4e-3: 1.0, 8e-3: 0.5}) == 0.016
    assert plans.next_rate(PLAN, {2e-3: 0.5, 4e-3: 1.0}) == 1e-3
    assert plans.next_rate(PLAN, {0.032: 1.0, 0.016: 2.0}) is None  # 0.064 is beyond lr_range
    tied = {2e-3: 2.0, 4e-3: 1.0, 8e-3: 1.0}  # a tie inside the grid: nothing to add, and not bracketed
    assert plans.next_rate(PLAN, tied) is None and not bracket(tied)["bracketed"]


def test_the_experiments_of_the_runs_say_which_sweeps_are_bracketed():
    def run(act, seed, lr, loss):
        cfg = {"activation": act, "seed": seed, "lr": lr, "n_embd": 128, "fc_init_std": 0.02, "preset": "decide", "steps": 1000, "n_layer": 4}
        return {"id": hash((act, seed, lr)) % 10**6, "config": cfg, "final": {"val_loss_full": loss}, "metrics": {}}

    runs = [run("gelu", 0, 2e-3, 1.9), run("gelu", 0, 4e-3, 1.8), run("gelu", 0, 8e-3, 1.85),
            run("relu", 0, 2e-3, 1.9), run("relu", 0, 4e-3, 1.8), run("relu", 0, 8e-3, float("nan"))]
    (e,) = experiments(runs)
    assert e["bracket"]["gelu"]["bracketed"] and e["bracket"]["relu"]["bracketed"] and e["lr"] == {"gelu": 4e-3, "relu": 4e-3}
    (e,) = experiments(runs[:2] + runs[3:5])
    assert not e["bracket"]["gelu"]["bracketed"] and e["bracket"]["gelu"]["above"] is None
