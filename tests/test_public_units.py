"""The parts of public mode, each alone (no server process): the per-request budget, the
per-client buckets, the read-only switch of the runs store, serve's policy, the hand-written
Dash answer, and the on_error path that turns a callback over its budget into the notice."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from gelu_lab import budget
from gelu_lab.results import jobs, store_state, writes
from gelu_lab.results.store import Store


# --- the budget ------------------------------------------------------------------------------


def test_outside_a_budget_nothing_is_checked():
    budget.check()
    budget.reserve(10**15)
    assert budget.used() is None


def test_memory_is_what_a_request_holds_at_once():
    with budget.limits(megabytes=1):
        with budget.holding(600_000):
            with pytest.raises(budget.OverBudget, match="memory budget \\(1 MB\\)") as e:
                budget.reserve(600_000)
        assert e.value.kind == "memory" and e.value.limit == 2**20
        budget.reserve(600_000)  # the block's arrays were given back
        assert budget.used()[1] == 600_000


def test_time_is_the_request_threads_cpu_time():
    with budget.limits(seconds=0.0005):
        with pytest.raises(budget.OverBudget) as e:
            while True:  # CPU work until the check says the budget is spent
                sum(range(1000))
                budget.check()
    assert e.value.kind == "time" and "CPU time" in str(e.value)


def test_a_formula_and_a_grid_are_budgeted_where_a_visitor_sets_their_size():
    from gelu_lab.analysis import theory, user_formula

    f = user_formula.parse("x*sigmoid(x)+" + "+".join(["x"] * 30))
    with budget.limits(megabytes=0.05):
        with pytest.raises(budget.OverBudget, match="memory"):
            f.eval(theory.grid(-4, 4, 0.02))  # 401 points x ~35 nodes
        with pytest.raises(budget.OverBudget, match="memory"):
            theory.grid(-100, 100, 0.01)


# --- the buckets -----------------------------------------------------------------------------


def test_a_bucket_lets_a_burst_in_then_refills_at_its_rate():
    from gelu_lab.app.ratelimit import Buckets

    now = [0.0]
    b = Buckets(per_minute=60, burst=3, clock=lambda: now[0])
    for _ in range(3):
        assert b.wait("a") == 0
        b.charge("a", 1)
    assert b.wait("a") == pytest.approx(1.0, abs=1e-6)  # one a second
    assert b.wait("b") == 0  # another client has its own bucket
    now[0] = 1.5
    assert b.wait("a") == 0
    b.charge("a", 5.0)  # a costly request is let in, then the client waits off the debt
    assert b.wait("a", need=1e-3) == pytest.approx(3.5 + 1e-3, abs=1e-6)  # 1.5 held, 5 taken


def test_the_table_of_clients_is_bounded():
    from gelu_lab.app.ratelimit import Buckets

    b = Buckets(per_minute=60, burst=1, max_clients=100)
    for i in range(1000):
        b.charge(f"10.0.{i // 256}.{i % 256}", 1)
    assert len(b) == 100
    with pytest.raises(ValueError):
        Buckets(per_minute=0, burst=1)


# --- the store of a process that only reads ----------------------------------------------------


@pytest.fixture
def reading_only():
    writes.forbid("a public server only reads")
    yield
    writes.allow()


def _store_with_a_run(path: Path) -> int:
    with Store(path) as s:
        run = s.start_run("bench", "k", {"n": 1})
        s.put_result(run, "rows", [])
        s.set_status(run, "done")
    return run


def test_a_reading_process_neither_creates_nor_changes_a_store(tmp_path, reading_only):
    with pytest.raises(OSError, match="no runs store"):
        Store(tmp_path / "new" / "runs.sqlite")
    assert not (tmp_path / "new").exists()
    writes.allow()
    path = tmp_path / "runs.sqlite"
    run = _store_with_a_run(path)
    before = path.read_bytes()
    writes.forbid("a public server only reads")
    with Store(path) as s:
        assert s.read_only and [r["id"] for r in s.runs("bench")] == [run]
        with pytest.raises(writes.WritesForbidden, match="a public server only reads"):
            s.start_run("bench", "k2", {})
    assert store_state(path) == {"store": "readable", "runs": 1}
    with pytest.raises(writes.WritesForbidden):
        jobs.start(path, "bench", ["bench"])
    with pytest.raises(writes.WritesForbidden):
        jobs.cancel(path, "bench")
    assert path.read_bytes() == before and not jobs.jobs_dir(path).exists()


def test_store_state_says_none_readable_or_why_not(tmp_path):
    assert store_state(tmp_path / "nothing.sqlite") == {"store": "none"}
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not sqlite at all" * 100)
    st = store_state(bad)
    assert st["store"] == "unreadable" and "not a readable SQLite file" in st["error"]


# --- serve's policy ----------------------------------------------------------------------------


def _args(**kw):
    base = {"host": "127.0.0.1", "public": False, "allow_jobs": False, "budget_seconds": None, "budget_mb": None, "rate": None, "cpu_rate": None}
    return SimpleNamespace(**{**base, **kw})


def test_public_off_loopback_or_when_asked_jobs_only_when_allowed():
    from gelu_lab.app.public import LOCAL
    from gelu_lab.commands.serve import policy_of

    assert policy_of(_args()) is LOCAL and policy_of(_args(host="::1")) is LOCAL
    for kw in ({"host": "0.0.0.0"}, {"host": "192.168.1.5"}, {"public": True}):
        p = policy_of(_args(**kw))
        assert p.public and not p.jobs
    p = policy_of(_args(host="0.0.0.0", allow_jobs=True, rate=10))
    assert p.public and p.jobs and p.rate == 10
    with pytest.raises(ValueError, match="only a public server has limits"):
        policy_of(_args(rate=10))


@pytest.mark.parametrize("bad, word", [(["--rate", "-1"], "rate"), (["--budget-seconds", "0"], "budget"), (["--budget-mb", "nan"], "megabytes"),
                                       (["--cpu-rate", "x"], "cpu-rate")])
def test_a_bad_limit_is_one_line_and_exit_2(bad, word):
    r = subprocess.run([sys.executable, "-m", "gelu_lab", "serve", "--public", *bad], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and word in r.stderr, r.stderr


# --- what the app says ----------------------------------------------------------------------


def test_the_hand_written_answer_is_what_dash_reads(tmp_path):
    """refusal.check() names the part of Dash's wire format that changed (a copy of Dash's files, one edited)."""
    import dash

    from gelu_lab.app.compat import refusal
    from gelu_lab.app.compat.speed import DashChanged

    refusal.check()
    body = json.loads(refusal.answer("wait").get_data())
    assert body == {"multi": True, "response": {}, "sideUpdate": {"live-notice": {"children": "wait", "className": "message live-notice"}}}
    src = Path(dash.__file__).parent
    for file, text, what in refusal.DEPENDS:
        for f, _, _ in refusal.DEPENDS:
            (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / f, tmp_path / f)
        (tmp_path / file).write_text((src / file).read_text(encoding="utf-8").replace(text, "changed"), encoding="utf-8")
        with pytest.raises(DashChanged, match=re.escape(f"{what} is gone from dash/{file}")):
            refusal.check(tmp_path)


def test_a_callback_over_its_budget_shows_the_notice_and_changes_nothing(monkeypatch):
    """Dash's on_error (guard.over_budget): the answer sets the notice, in the page's language,
    and no output; another error still goes to the log and answers 204 (test_server_fuzz)."""
    from gelu_lab.app import content, get_app, public
    from gelu_lab.app.pages.definition import callbacks as definition
    from servers import callback_request

    def over(*args):
        raise budget.OverBudget("time", 3.0)

    client = get_app().server.test_client()
    deps = json.loads(client.get("/_dash-dependencies").data)
    body = callback_request(deps, "definition-n", "value", {("definition-x", "value"): 1.0, ("definition-n", "value"): 300,
                                                             ("definition-seed", "value"): 0, ("lang", "data"): "zh"})
    monkeypatch.setattr(definition, "bernoulli", over)
    r = client.post("/_dash-update-component", json=body, headers={"Referer": "http://localhost/definition?n=300&lang=zh"})
    assert r.status_code == 200, r.data[:300]
    got = json.loads(r.data)
    want = content.fill(content.text("zh", "public")["time"], **public.current().limits())
    assert got["sideUpdate"] == {"live-notice": {"children": want, "className": "message live-notice"}}
    assert got["response"] == {}  # no output of the callback changes
