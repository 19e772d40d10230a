"""Mutation testing on a scratch copy: each mutant is one edit the tests named for it must catch.

    .venv/bin/python bench/mutants.py [--only ID,ID] [--list] [--no-baseline] [--timeout 900]

The mutants are written out below (the training recipe, the numerics, the app's callbacks,
the test harness itself), each with the tests that should fail on it. The copy is this
checkout's files as they are (tracked and untracked, not ignored) plus the built extension
in a temporary directory; its tests run there, with PYTHONPATH=<copy>/src ahead of the
editable install, one mutant at a time, the file restored after each. This checkout is
never edited. First each set of tests runs on the unmutated copy (it must pass: a mutant
"killed" by a test that fails anyway proves nothing).

Prints one line per mutant, KILLED with the first test that failed, or SURVIVED, and the
count of survivors; exits 1 if any survived or a baseline failed.

A run of the whole list writes its counts to bench/results/mutants.json.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import record

ROOT = Path(__file__).resolve().parents[1]

TRAIN_TESTS = ("tests/test_ffn_recipe.py", "tests/test_ffn_model.py", "tests/test_ffn_runs.py", "tests/test_ffn_train.py")
FLOAT32_TESTS = ("tests/test_native_exhaustive.py", "tests/test_core_accuracy.py")
HARNESS_TESTS = ("tests/test_server_fuzz.py::test_a_planted_raising_callback_fails_the_harness",
                 "tests/test_server_fuzz.py::test_conftest_fails_a_browser_test_on_a_server_error_it_never_checked")


@dataclass(frozen=True)
class Mutant:
    id: str
    path: str  # relative to the repository
    old: str  # must occur exactly once in the file
    new: str
    tests: tuple[str, ...]
    what: str


MUTANTS = [
    # --- training: the three of issue 40, and their neighbours
    Mutant("lr-constant", "src/gelu_lab/nn/train.py", 'g["lr"] = lr_at(cfg, step)', 'g["lr"] = cfg.lr', TRAIN_TESTS,
           "the optimiser stepped at a constant learning rate"),
    Mutant("lr-schedule-flat", "src/gelu_lab/nn/train.py", "    if step < cfg.warmup:\n        return cfg.lr * (step + 1) / cfg.warmup\n",
           "    return cfg.lr\n", TRAIN_TESTS, "lr_at: no warm-up, no decay"),
    Mutant("lr-no-floor", "src/gelu_lab/nn/train.py", "cfg.lr * (cfg.min_lr_frac + (1 - cfg.min_lr_frac) * 0.5",
           "cfg.lr * (0 + (1 - 0) * 0.5", TRAIN_TESTS, "the cosine decays to 0, not to min_lr_frac"),
    Mutant("no-clipping", "src/gelu_lab/nn/train.py", "        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)\n", "",
           TRAIN_TESTS, "no gradient clipping"),
    Mutant("clip-per-tensor", "src/gelu_lab/nn/train.py", "        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)\n",
           "        for p in model.parameters():\n            torch.nn.utils.clip_grad_norm_([p], cfg.grad_clip)\n",
           TRAIN_TESTS, "each tensor clipped alone: the global norm is not bounded"),
    Mutant("val-on-train", "src/gelu_lab/nn/train.py", 'x, y = data.batch("val", 0, i, cfg.batch_size, cfg.block_size)',
           'x, y = data.batch("train", 0, i, cfg.batch_size, cfg.block_size)', TRAIN_TESTS,
           "the validation loss computed on training batches"),
    Mutant("full-val-on-train", "src/gelu_lab/nn/train.py", 'x, y = data.windows("val", cfg.block_size)',
           'x, y = data.windows("train", cfg.block_size)', TRAIN_TESTS, "the final validation loss over the training text"),
    Mutant("train-reads-val", "src/gelu_lab/nn/data.py", "        self.train = torch.from_numpy(ids[:cut])\n",
           "        self.train = torch.from_numpy(ids)\n", TRAIN_TESTS, "the training split runs into the held-out tail"),
    Mutant("decay-everything", "src/gelu_lab/nn/train.py", '{"params": rest, "weight_decay": 0.0}',
           '{"params": rest, "weight_decay": cfg.weight_decay}', TRAIN_TESTS, "weight decay on biases and LayerNorm too"),
    Mutant("decay-nothing", "src/gelu_lab/nn/train.py", '{"params": decay, "weight_decay": cfg.weight_decay}',
           '{"params": decay, "weight_decay": 0.0}', TRAIN_TESTS, "no weight decay at all"),
    # --- float32 numerics: the shared reference, the shared rounding test, a kernel's own bound
    Mutant("reference-sqrt-half", "src/gelu_lab/reference.py", "u = a * 0.7071067811865476", "u = a * 0.7071067811865",
           FLOAT32_TESTS, "the reference's 1/sqrt2 cut to 13 digits: both sides of the exhaustive comparison settle with it"),
    Mutant("settle-at-8-digits", "src/gelu_lab/reference.py", "    with mp_context(40) as c:",
           "    with mp_context(8) as c:", FLOAT32_TESTS,
           "the reference's last resort, mpmath, at 8 digits: what it settles every kernel leaves undecided, so the sides agree"),
    Mutant("tiny-ties-down", "src/gelu_lab/rounding.py", "out[i] = max(lo32, hi32) if undecided and tiny",
           "out[i] = min(lo32, hi32) if undecided and tiny", FLOAT32_TESTS, "near 0 the tie at x/2 rounds down"),
    Mutant("tight-tier-overconfident", "src/gelu_lab/kernels.py", "TIGHT = Fit(2.8, 13, 9, 6e-12)", "TIGHT = Fit(2.8, 13, 9, 6e-15)",
           FLOAT32_TESTS, "the numba kernel's TIGHT tier claims 1000x the accuracy it has"),
    # --- the app's callbacks and the harness that watches them
    Mutant("bernoulli-raises", "src/gelu_lab/app/pages/definition/callbacks.py", "    fig, out = bernoulli(*vals, _t(lang))\n",
           '    raise RuntimeError("mutant")\n', ("tests/test_app_keyboard.py",),
           "issue 40's planted raising callback: /definition's Bernoulli readouts"),
    Mutant("check-ignores-server", "tests/app_browser.py",
           '        assert self.server() == [], f"server errors (a failing callback is answered 204): {self.server()}"\n', "",
           HARNESS_TESTS, "Log.check() no longer reads the server's log"),
    Mutant("server-log-detached", "tests/app_browser.py", "SERVER_LOG = ServerLog().attach()", "SERVER_LOG = ServerLog()",
           HARNESS_TESTS, "the process-wide server log never attached"),
    Mutant("teardown-no-server-check", "tests/conftest.py",
           '    if harness is not None and "browser" in request.fixturenames:\n        harness.check_server_log()\n', "",
           HARNESS_TESTS, "conftest's after-test check of the server log removed"),
    # --- order independence
    Mutant("mpmath-global-dps", "tests/test_interview.py",
           "pytestmark = pytest.mark.mpmath_dps(40)", "mpmath.mp.dps = 40", ("tests/test_interview.py",),
           "mpmath's precision set at import again"),
]


def scratch_copy(dst: Path) -> Path:
    """This checkout's files (tracked and untracked, not ignored; edits included) and the
    built extension, copied to dst."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)
    for so in (ROOT / "src" / "gelu_lab").glob("_native*.so"):
        shutil.copy2(so, dst / "src" / "gelu_lab" / so.name)
    return dst


def run_tests(copy: Path, tests, timeout: int) -> tuple[int, str]:
    """(pytest's exit status, the first failing test or the reason) for `tests` in the copy.

    numba's cache is fresh for each run: it keys a compiled kernel by its own file, so a
    mutant of a function inlined into it from another file (rounding.round_flag) would
    run the unmutated machine code cached by the previous run."""
    numba_cache = tempfile.mkdtemp(prefix="numba-", dir=copy)
    env = {**os.environ, "PYTHONPATH": str(copy / "src"), "GELU_LAB_DATA": str(copy / ".data"), "PYTHONDONTWRITEBYTECODE": "1",
           "NUMBA_CACHE_DIR": numba_cache}
    argv = [sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider", *tests]
    try:
        r = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout} s"
    finally:
        shutil.rmtree(numba_cache, ignore_errors=True)
    first = re.search(r"^(?:FAILED|ERROR) (\S+)", r.stdout, re.M)
    said = re.search(r"^E +(.+)$", r.stdout, re.M)  # the first line of the failing assertion: which check caught it
    if first:
        return r.returncode, first.group(1) + (f"\n    {said.group(1)[:160]}" if said else "")
    return r.returncode, r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-300:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated runs")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per pytest run")
    args = ap.parse_args()
    chosen = MUTANTS if not args.only else [m for m in MUTANTS if m.id in args.only.split(",")]
    if args.list or not chosen:
        for m in MUTANTS:
            print(f"{m.id:26} {m.path}: {m.what}")
        return 0 if args.list else 2
    with tempfile.TemporaryDirectory(prefix="gelu-lab-mutants-") as tmp:
        copy = scratch_copy(Path(tmp))
        where = subprocess.run([sys.executable, "-c", "import gelu_lab, sys; print(gelu_lab.__file__)"], cwd=copy,
                               env={**os.environ, "PYTHONPATH": str(copy / "src")}, capture_output=True, text=True, check=True).stdout.strip()
        assert Path(where).is_relative_to(copy), f"the copy imports gelu_lab from {where}, not from itself"
        failed_baseline = []
        if not args.no_baseline:
            for tests in dict.fromkeys(m.tests for m in chosen):
                t0 = time.time()
                rc, why = run_tests(copy, tests, args.timeout)
                print(f"baseline {' '.join(tests)}: {'pass' if rc == 0 else 'FAIL ' + why} ({time.time() - t0:.0f} s)", flush=True)
                if rc != 0:
                    failed_baseline.append(tests)
        survivors = []
        for m in chosen:
            path = copy / m.path
            text = path.read_text()
            assert text.count(m.old) == 1, f"{m.id}: its text occurs {text.count(m.old)} times in {m.path}"
            path.write_text(text.replace(m.old, m.new))
            t0 = time.time()
            try:
                rc, why = run_tests(copy, m.tests, args.timeout)
            finally:
                path.write_text(text)
            verdict = "KILLED by " + why if rc not in (0, 5) else "SURVIVED"
            if rc in (0, 5):
                survivors.append(m.id)
            print(f"{m.id:26} {verdict} ({time.time() - t0:.0f} s): {m.what}", flush=True)
    print(f"\n{len(chosen)} mutants, {len(chosen) - len(survivors)} killed, {len(survivors)} survived" + (f": {', '.join(survivors)}" if survivors else ""))
    if failed_baseline:
        print(f"baseline failures: {failed_baseline}")
    elif not args.only:  # the whole list: bench/results/mutants.json
        record.write("mutants", {"mutants": len(chosen), "killed": len(chosen) - len(survivors), "survived": len(survivors)},
                     survivors=survivors)
    return 1 if survivors or failed_baseline else 0


if __name__ == "__main__":
    sys.exit(main())
