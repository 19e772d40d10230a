"""The FFN experiment's plans, and the runs a plan wants given what is done (torch-free).

A plan is a set of training runs of ``gelu-lab train`` (:func:`train_args`), in phases:

1. **sweep** -- seed 0 of every FFN variant of ``sweep`` at every rate of ``lrs``, a log
   grid (consecutive rates ``factor`` apart). When a variant's best rate is at an edge of
   its grid, the grid grows by one rate beyond that edge, and again, until the best rate
   has a worse neighbour on both sides (:func:`gelu_lab.stats.runsets.bracket`) or the
   next rate would leave ``lr_range`` (then the sweep says it is not bracketed).
   ``lr_from`` lends one variant's rate to another (GELU-tanh differs from GELU by
   < 0.02 % of |x|, so it takes GELU's).
2. **seeds** -- ``seeds[v]`` seeds (0..n-1) of each variant at its rate, once its sweep is
   bracketed; seed 0 is the sweep's run. Runs with the same seed see the same batches
   (and, for the ungated variants, start from the same weights): the variants are
   compared seed by seed (:func:`gelu_lab.stats.runsets.paired`).
3. **scale** -- the same comparison at other widths and FFN init scales (``scale``:
   (width, fc_init_std, variants, seeds)) at the rates of the sweep; then the ``small``
   runs at their preset's own settings (the FFN page's "run one yourself" adds seeds).

:func:`wanted` is the whole schedule as a function of the sweep's losses so far: the
experiment (:mod:`gelu_lab.nn.experiment`) runs what it wants until it wants nothing
new, and ``gelu-lab experiment --commands`` prints what it still wants, for a scheduler
to run anywhere (then ``gelu-lab runs merge`` and ask again).

Selection bias: the rate is chosen on the validation loss that seed 0 then reports; the
other seeds are fresh, and the bias favours every variant alike, so the paired
differences are nearly free of it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..stats.runsets import bracket


@dataclass(frozen=True)
class Plan:
    preset: str
    lrs: tuple  # the first grid of every swept variant
    sweep: tuple  # variants whose rate is swept
    seeds: dict  # variant -> number of seeds at its rate
    lr_from: dict = field(default_factory=dict)  # variant -> the variant whose rate it takes
    scale: tuple = ()  # (width, fc_init_std, variants, seeds)
    steps: int | None = None  # None: the preset's
    fc_init_std: float | str = 0.02
    # small runs at a preset's own settings, for the FFN page's run control to add seeds to:
    # (preset, steps, fc_init_stds, variants, seeds)
    small: tuple = ()
    factor: float = 2.0  # the ratio of neighbouring rates of the grid
    lr_range: tuple = (1e-4, 0.05)  # the grid grows no further than this

    def to_dict(self) -> dict:
        return asdict(self)


_GATED_AND_FRIENDS = ("geglu", "swiglu", "reglu", "relu2", "glu", "bilinear")

PLANS = {
    # the shipped set (src/gelu_lab/data/ffn_results.json): the decide preset, width 128, 4 layers
    "ship": Plan(
        preset="decide", lrs=(2e-3, 4e-3, 8e-3), sweep=("gelu", "relu", "silu", "sigmoid", *_GATED_AND_FRIENDS),
        seeds={"gelu": 5, "relu": 5, "silu": 5, "geglu": 5, "swiglu": 5,
               "reglu": 3, "relu2": 3, "gelu_tanh": 3, "sigmoid": 3, "glu": 3, "bilinear": 3},
        lr_from={"gelu_tanh": "gelu"},
        scale=((128, "unit", ("gelu", "relu"), 4), (64, 0.02, ("gelu", "relu"), 4), (64, "unit", ("gelu", "relu"), 4)),
        small=(("quick", 600, (0.02, "unit"), ("gelu", "gelu_tanh", "relu", "sigmoid", "silu"), 2),),
    ),
    # the whole pipeline in seconds (tests)
    "tiny": Plan(
        preset="tiny", steps=30, lrs=(1e-2, 3e-2), factor=3.0, lr_range=(1e-3, 0.1), sweep=("gelu", "relu", "swiglu"),
        seeds={"gelu": 2, "relu": 2, "swiglu": 2}, scale=((8, "unit", ("gelu", "relu"), 2),),
    ),
}

# the order the seeds phase runs in: the variants the verdict and the paper's comparison are about first
FIRST = ("gelu", "relu", "silu", "geglu", "swiglu")


def config(plan: Plan, act: str, seed: int, lr: float | None, width: int | None = None, fc=None, preset=None, steps=None) -> dict:
    return {"activation": act, "seed": seed, "lr": lr, "width": width, "fc_init_std": plan.fc_init_std if fc is None else fc,
            "preset": preset or plan.preset, "steps": steps or plan.steps}


def next_rate(plan: Plan, losses: dict) -> float | None:
    """The rate a sweep {rate: loss} needs next: one grid step beyond its best rate when that
    rate is at an edge of the grid; None when it is bracketed or the next rate would leave
    lr_range. (Rates keep 6 significant digits, so a grown grid names its rates as typed.)"""
    b = bracket(losses)
    if b["bracketed"] or (b["below"] is not None and b["above"] is not None):
        return None
    lr = b["chosen"] / plan.factor if b["below"] is None else b["chosen"] * plan.factor
    lr = float(f"{lr:.6g}")
    return lr if plan.lr_range[0] <= lr <= plan.lr_range[1] else None


def _round_robin(plan: Plan, acts: list, lr: dict, **kw) -> list[dict]:
    """Seed 1 of each variant, then seed 2 of each, ...: an unfinished phase has every variant's first seeds."""
    n = max((plan.seeds[a] for a in acts), default=0)
    return [config(plan, a, s, lr[a], **kw) for s in range(n) for a in acts if s < plan.seeds[a]]


def later_runs(plan: Plan, lr: dict) -> list[dict]:
    """The seeds and scale phases for the variants whose rate is known (`lr`), in the order they
    run: the seeds of FIRST round by round, the other variants' seeds, the scale cells
    (when their variants' rates are known), then the small runs."""
    known = [a for a in plan.seeds if a in lr]
    first = [a for a in FIRST if a in known]
    out = _round_robin(plan, first, lr) + _round_robin(plan, [a for a in known if a not in first], lr)
    for width, fc, acts, n in plan.scale:
        if all(a in lr for a in acts):
            out += [config(plan, a, s, lr[a], width, fc) for s in range(n) for a in acts]
    for preset, steps, fcs, acts, n in plan.small:
        out += [config(plan, a, s, None, fc=fc, preset=preset, steps=steps) for fc in fcs for s in range(n) for a in acts]
    return out


def wanted(plan: Plan, losses: dict) -> tuple[list[dict], dict]:
    """(every run the plan wants, given the sweep's final losses so far, in the order to run them;
    the rates chosen so far). `losses` = {variant: {rate: final val loss of seed 0}} of the
    finished sweep runs. A variant's grid is its first one plus the rates already run; while
    a rate of it is missing, or its best is at an edge, it wants its sweep runs (and one more
    rate), and no seeds."""
    runs, lr = [], {}
    for act in plan.sweep:
        done = losses.get(act, {})
        grid = sorted(set(plan.lrs) | set(done))
        runs += [config(plan, act, 0, r) for r in grid]
        if any(r not in done for r in grid):
            continue
        nxt = next_rate(plan, done)
        if nxt is None:
            lr[act] = bracket(done)["chosen"]
        else:
            runs.append(config(plan, act, 0, nxt))
    for act, lender in plan.lr_from.items():
        if lender in lr:
            lr[act] = lr[lender]
    unique: dict = {}
    for r in runs + later_runs(plan, lr):  # seed 0 at its rate is the sweep's run: once, where the sweep has it
        unique.setdefault(tuple(sorted(r.items())), r)
    return list(unique.values()), lr


def train_args(plan: Plan, run: dict) -> list[str]:
    """The ``gelu-lab train`` arguments of one run of the plan (no --lr: the preset's)."""
    args = ["train", "--activations", run["activation"], "--seeds", "1", "--seed-start", str(run["seed"]),
            "--preset", run["preset"], "--fc-init-std", str(run["fc_init_std"]), "--threads", "1", "--no-progress"]
    if run["lr"] is not None:
        args += ["--lr", repr(run["lr"])]
    if run["steps"]:
        args += ["--steps", str(run["steps"])]
    if run["width"]:
        args += ["--width", str(run["width"])]
    return args


def train_config(plan: Plan, run: dict):
    """The run's TrainConfig (imports torch), its text checksum filled in: its key is the store's."""
    from .train import TrainConfig, text_sha256

    cfg = TrainConfig.make(run["preset"], activation=run["activation"], seed=run["seed"], lr=run["lr"], steps=run["steps"],
                           n_embd=run["width"], fc_init_std=run["fc_init_std"])
    cfg.text_sha256 = text_sha256(cfg)
    return cfg
