"""What every test gets, whatever ran before it in its process (tests pass in any order):

- hypothesis derandomized (profile "ci", the default: the same examples on every run and
  machine, no example database written into the tree); HYPOTHESIS_PROFILE=explore searches
  afresh each run, for a developer hunting new cases;
- random, NumPy's and torch's global generators seeded the same at the start of each test;
- mpmath at its default precision, or at the digits its module declares with
  ``pytestmark = pytest.mark.mpmath_dps(n)``; a test that leaves the precision changed fails
  (set it per computation with mpmath.workdps / workprec);
- a test that drives the browser fails on an error the app's server logged while it ran;
- the run's summary says which kernel variants this CPU could not run, so their tests were
  never collected;
- a run that changed the source tree fails, naming the files (a bench script writing
  bench/results, a file left beside the sources): git's view of the checkout, tracked files and
  the new files it would list, is compared before and after; ignored paths (.venv, build/) are
  not looked at.

The order-independence check: GELU_LAB_TEST_ORDER=reversed runs the tests in reverse order,
GELU_LAB_TEST_ORDER=shuffled:<seed> the modules in a seeded random order and each module's
tests shuffled (a module's tests stay together, so its fixtures are made once); the results
must be those of the normal order.
"""

import contextlib
import hashlib
import os
import random
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

# keep hypothesis deterministic and quick under CI's two cores
settings.register_profile("ci", max_examples=200, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
# what the tests keep between runs goes into pytest's own cache directory, not beside the sources
CACHE = os.path.join(os.path.dirname(__file__), "..", ".pytest_cache")
set_hypothesis_home_dir(os.path.join(CACHE, "hypothesis"))  # its constants cache (the example database is off)
os.environ.setdefault("GELU_LAB_DATA", os.path.join(CACHE, "gelu-lab-data"))

MP_PREC = mpmath.mp.prec  # mpmath's default (53 bits), before any test module is imported


def pytest_collection_modifyitems(config, items):
    order = os.environ.get("GELU_LAB_TEST_ORDER", "")
    if order == "reversed":
        items.reverse()
    elif order.startswith("shuffled:"):  # the same order in every xdist worker: they must collect alike
        rng = random.Random(order)
        modules = {}
        for item in items:
            modules.setdefault(item.module.__name__ if item.module else item.nodeid, []).append(item)
        groups = list(modules.values())
        rng.shuffle(groups)
        for group in groups:
            rng.shuffle(group)
        items[:] = [item for group in groups for item in group]
    elif order:
        raise pytest.UsageError(f"GELU_LAB_TEST_ORDER={order!r}: use reversed or shuffled:<seed>")


def pytest_configure(config):
    config.addinivalue_line("markers", "mpmath_dps(n): run each test of the module with mpmath at n digits (mpmath.workdps)")


@pytest.fixture(autouse=True)
def _seeded():
    """The global generators in a known state: a draw a test forgot to seed is the same in any order."""
    random.seed(0)
    np.random.seed(0)
    if "torch" in sys.modules:  # not imported for tests that do not use it
        sys.modules["torch"].manual_seed(0)


@pytest.fixture(autouse=True)
def _mpmath_precision(request):
    """The module's declared precision for the test, and mpmath as it was found afterwards."""
    found = mpmath.mp.prec
    mpmath.mp.prec = MP_PREC
    assert found == MP_PREC, f"mpmath was left at {found} bits before this test (at import?): use mpmath.workdps"
    marker = request.node.get_closest_marker("mpmath_dps")
    with mpmath.workdps(marker.args[0]) if marker else contextlib.nullcontext():
        inside = mpmath.mp.prec
        yield
        left = mpmath.mp.prec
    mpmath.mp.prec = MP_PREC
    assert left == inside, f"the test left mpmath at {left} bits (it began at {inside}): use mpmath.workdps / workprec"


@pytest.fixture(autouse=True)
def _server_errors_fail_browser_tests(request):
    """Every test that drives the browser fails on an error the app's server logged while it
    ran (a callback that raised is answered 204 and only logged: tests/app_browser.py), also
    when it never called log.check(). Tests that hit the server on purpose without a browser
    (junk requests) answer for their own log."""
    harness = sys.modules.get("app_browser")  # loaded by every module that uses the app's fixtures
    if harness is not None:
        harness.SERVER_LOG.test_start = len(harness.SERVER_LOG.records)
    yield
    if harness is not None and "browser" in request.fixturenames:
        harness.check_server_log()


def untested_variants_line() -> str | None:
    """One line for the summary when this CPU cannot run a kernel variant that was built
    (its tests are collected from kernels.available(), so they would vanish unsaid)."""
    from gelu_lab import kernels

    missing = kernels.unavailable()
    if missing:
        return f"kernel variants not tested: {', '.join(missing)} (this CPU lacks their instruction set; their tests were not collected)"
    return None


def pytest_terminal_summary(terminalreporter):
    line = untested_variants_line()
    if line:
        terminalreporter.write_line(line)
    changed = terminalreporter.config.stash.get(CHANGED, [])
    if changed:
        terminalreporter.write_line(f"FAILED: the source tree changed during the run (a test must write in a temporary folder; "
                                    f"or a file was edited meanwhile): {', '.join(changed[:20])}", red=True)


ROOT = Path(__file__).resolve().parents[1]
TREE, CHANGED = pytest.StashKey[dict | None](), pytest.StashKey[list]()  # the checkout before the run; what it changed


def tree_state() -> dict | None:
    """{path: content hash} of what git sees changed or new in the checkout (None: not a git
    checkout, nothing to compare)."""
    try:
        r = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "-z"], cwd=ROOT, capture_output=True, text=True, errors="surrogateescape", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode:
        return None
    out, entries = {}, iter(r.stdout.split("\0"))
    for entry in entries:
        if len(entry) > 3:
            f = ROOT / entry[3:]
            out[entry[3:]] = hashlib.sha256(f.read_bytes()).hexdigest() if f.is_file() else entry[:2]
            if entry[0] in "RC":  # a staged rename or copy: its old path follows, with no status
                next(entries, None)
    return out


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the controller: once per run
        session.config.stash[TREE] = tree_state()


def pytest_sessionfinish(session, exitstatus):
    before = session.config.stash.get(TREE, None)  # only the controller has one
    if before is None:
        return
    after = tree_state()
    if after is None:  # git did not answer this time: nothing to compare with
        return
    changed = sorted({p for p in before.keys() | after.keys() if before.get(p) != after.get(p)})
    session.config.stash[CHANGED] = changed
    if changed and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
