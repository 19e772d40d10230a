"""Every `gelu-lab` command against bad input and a hostile machine.

One table of bad arguments covering every registered command (wrong types,
out-of-range values, missing, unreadable or wrong-kind files); then the
stores and disks a user may have: a corrupt runs store (garbage bytes, a
damaged page, a truncated file), a store path that is a folder, a read-only
data directory, a full disk (a real file-size limit from the kernel in a
subprocess, and ENOSPC injected mid-write in-process). Each must end in
exactly one line on stderr, exit 2 (usage) or 1 (runtime), no traceback, and
nothing half-written: no partial output file, no temporary left behind, and
the store byte-identical or passing PRAGMA integrity_check.

Most runs are in-process through gelu_lab.cli.main (fast); a few go through
`python -m gelu_lab` to prove no traceback reaches a real stderr.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gelu_lab import cli
from gelu_lab.results.store import Store

PY = sys.executable
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}

# (argv, a word the message must contain); {tmp} is a scratch folder holding
# missing.txt (absent), folder/ (a folder), binary.txt (not UTF-8), empty.txt
USAGE = [
    (["nope"], "invalid choice"),
    (["table", "--x", "abc"], "abc"),
    (["table", "--x", ""], "at least one"),
    (["table", "--x", ",".join(["1"] * 10001)], "10000"),
    (["table", "--dtype", "float8"], "float8"),
    (["table", "--format", "xml"], "xml"),
    (["table", "--bogus"], "--bogus"),
    (["train", "--seeds", "0"], "positive"),
    (["train", "--steps", "ten"], "ten"),
    (["train", "--lr", "5"], "--lr"),
    (["train", "--lr", "nan"], "--lr"),
    (["train", "--preset", "huge"], "huge"),
    (["train", "--activations", "nope"], "nope"),
    (["train", "--fc-init-std", "-1"], "fc-init-std"),
    (["train", "--seed-start", "-1"], "seed-start"),
    (["train", "--resume", "abc"], "abc"),
    (["train", "--batch-size", "0"], "batch-size"),
    (["train", "--width", "0"], "width"),
    (["train", "--width", "30"], "multiple"),
    (["experiment", "--plan", "huge"], "huge"),
    (["experiment", "--workers", "0"], "workers"),
    (["experiment", "--workers", "two"], "two"),
    (["train", "--text", "{tmp}/missing.txt"], "no such file"),
    (["train", "--text", "{tmp}/folder"], "no such file"),
    (["train", "--text", "{tmp}/binary.txt", "--preset", "tiny"], "binary.txt"),
    (["runs"], "action"),
    (["runs", "show", "x"], "x"),
    (["runs", "list", "--store", "{tmp}/missing.sqlite"], "no runs store"),
    (["runs", "compare", "--format", "xml"], "xml"),
    (["runs", "merge"], "SOURCE"),
    (["runs", "merge", "{tmp}/missing.sqlite", "--store", "{tmp}/m.sqlite"], "no runs store or result set"),
    (["runs", "merge", "{tmp}/binary.txt", "--store", "{tmp}/m.sqlite"], "neither a runs store nor a result set"),
    (["experiment", "--reuse", "{tmp}/missing.json", "--store", "{tmp}/m.sqlite"], "no runs store or result set"),
    (["train", "--activations", "swiglu2"], "swiglu2"),
    (["errors", "--approx", "nope"], "nope"),
    (["errors", "--interval", "4", "-4"], "A < B"),
    (["errors", "--interval", "nan", "1"], "finite"),
    (["errors", "--interval", "-1e308", "-inf"], "finite"),
    (["errors", "--points", "0"], "points"),
    (["errors", "--points", "1000000000"], "points"),
    (["fit", "--form", "cubic"], "cubic"),
    (["fit", "--interval", "1", "1"], "A < B"),
    (["fit", "--norm", "l3"], "l3"),
    (["accuracy"], "--impl"),
    (["accuracy", "--impl", "nope", "--no-store"], "nope"),
    (["accuracy", "--impl", "no_such_module:f", "--no-store"], "no_such_module"),
    (["accuracy", "--impl", "gelu", "--dtype", "float8", "--no-store"], "float8"),
    (["accuracy", "--impl", "gelu", "--sample", "0", "--no-store"], "--sample"),
    (["accuracy", "--impl", "gelu", "--sample", "10000000000", "--no-store"], "--sample"),
    (["accuracy", "--impl", "gelu", "--range", "1", "0", "--no-store"], "A < B"),
    (["accuracy", "--impl", "gelu", "--exhaustive", "--chunk-bits", "99", "--no-store"], "chunk"),
    (["accuracy", "--impl", "gelu", "--dtype", "float16", "--sample", "10", "--no-store"], "exhaustively"),
    (["bench", "--cases", "nope", "--no-store"], "nope"),
    (["bench", "--sizes", "abc", "--no-store"], "abc"),
    (["bench", "--sizes", "1.5", "--no-store"], "whole"),
    (["bench", "--sizes", "1e12", "--no-store"], "sizes"),
    (["bench", "--threads", "0", "--no-store"], "threads"),
    (["bench", "--repeats", "0", "--no-store"], "repeats"),
    (["claims", "--id", "nope"], "nope"),
    (["claims", "--lang", "fr"], "fr"),
    (["serve", "--port", "99999"], "port"),
    (["serve", "--port", "abc"], "abc"),
    (["serve", "--threads", "0"], "threads"),
    (["serve", "--public", "--rate", "-5"], "rate"),
    (["serve", "--budget-mb", "10"], "--public"),
    (["deploy", "{tmp}/d", "--replicas", "0"], "--replicas"),
    (["deploy", "{tmp}/d", "--port", "8051"], "replicas' ports"),
    (["deploy", "{tmp}/d", "--port", "70000"], "--port"),
    (["deploy", "{tmp}/d", "--listen", "a b"], "--listen"),
    (["deploy", "{tmp}/binary.txt"], "is a file"),
    (["deploy", "{tmp}/d", "--serve-args", "--rate x"], "--serve-args"),
    (["deploy", "{tmp}/d", "--serve-args", "--port 1"], "set by deploy"),
    (["custom"], "formula"),
    (["custom", "__import__('os').system('true')"], "__import__"),
    (["custom", "x+"], "ends"),
    (["custom", ""], "empty"),
    (["custom", "x" * 100_000], "too long"),
    (["custom", "x", "--interval", "1", "0"], "A < B"),
    (["custom", "x*a", "--a", "nan"], "finite"),
    (["report", "--out", "{tmp}/missing/r.html"], "does not exist"),
    (["report", "--out", "{tmp}/folder"], "folder"),
    (["report", "--lang", "fr"], "fr"),
    (["probe", "--sentences", "abc"], "abc"),
    (["probe", "--sentences", "2"], "3..20000"),
    (["probe", "--threads", "0"], "threads"),
    (["doctor", "--format", "xml"], "xml"),
    (["doctor", "--bogus"], "--bogus"),
    (["probe", "--precision", "float8"], "float8"),
    (["probe", "--text", "{tmp}/missing.txt"], "no such file"),
    (["probe", "--text", "{tmp}/binary.txt"], "UTF-8"),
    (["probe", "--text", "{tmp}/empty.txt"], "no sentences"),
]


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "binary.txt").write_bytes(bytes(range(128, 256)) * 20)
    (tmp_path / "empty.txt").write_text("\n \n")
    return tmp_path


def _fill(argv, tmp):
    return [a.replace("{tmp}", str(tmp)) for a in argv]


def one_line_error(capsys, argv, code):
    """Run the CLI in-process; assert the exit code, one stderr line, no traceback, no stdout."""
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    assert rc == code, (argv[:4], rc, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gelu-lab") and "Traceback" not in err, err
    assert out == "", out[:200]  # nothing printed half-way
    return lines[0]


@pytest.mark.parametrize("argv,word", USAGE, ids=[" ".join(a)[:50] for a, _ in USAGE])
def test_bad_usage_is_one_line_and_exit_2(argv, word, scratch, capsys, monkeypatch):
    monkeypatch.setenv("GELU_LAB_DATA", str(scratch / "data"))
    line = one_line_error(capsys, _fill(argv, scratch), 2)
    assert word.lower() in line.lower(), line
    assert not (scratch / "data" / "runs.sqlite").exists() or argv[0] == "train"  # usage errors create no store


def test_the_table_covers_every_command():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) <= {argv[0] for argv, _ in USAGE}


def test_a_command_imports_its_own_module_alone():
    """`gelu-lab table` does not import the other commands' modules (and what they import);
    a word that is no command gets the whole parser, so argparse's error can list them all."""
    code = ("import sys; from gelu_lab import cli; cli.build_parser('table'); "
            "print(sorted(m for m in sys.modules if m.startswith('gelu_lab.commands.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['gelu_lab.commands.table']"
    sub = next(a for a in cli.build_parser("tabel")._actions if a.dest == "command")
    assert set(sub.choices) == set(next(a for a in cli.build_parser()._actions if a.dest == "command").choices)


def test_negative_numbers_with_exponents_are_values_not_options(capsys):
    # argparse alone reads "-1e3" as an unknown option ("expected 2 arguments")
    assert cli.main(["errors", "--interval", "-1e1", "1e1", "--format", "json"]) == 0
    assert '"interval": [\n    -10.0' in capsys.readouterr().out


# --- stores that are not what they should be ------------------------------------------


def _real_store(path: Path) -> Path:
    with Store(path) as s:
        for i in range(40):  # a few pages of runs, metrics and results
            r = s.start_run("train", f"k{i}", {"activation": "gelu", "seed": i, "preset": "tiny", "steps": 5, "fc_init_std": 0.02})
            s.log_metrics(r, 0, {"val_loss": 1.0 + i})
            s.put_result(r, "final", {"val_loss_full": 1.0, "pad": "y" * 3000})
            s.set_status(r, "done")
        s.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def _corrupt(kind: str, folder: Path) -> Path:
    path = folder / "runs.sqlite"
    if kind == "garbage":
        path.write_bytes(os.urandom(8192))
        return path
    raw = bytearray(_real_store(path).read_bytes())
    for p in folder.glob("runs.sqlite-*"):
        p.unlink()
    if kind == "damaged page":  # header intact, every later page scribbled on
        for i in range(8192, len(raw), 509):
            raw[i] ^= 0xFF
    else:  # truncated mid-file
        raw = raw[: len(raw) // 2]
    path.write_bytes(bytes(raw))
    return path


def _snapshot(folder: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def store_commands(text: str) -> list[list[str]]:
    """Every command that reads or writes the runs store, cheapest options."""
    return [
        ["train", "--preset", "tiny", "--steps", "5", "--text", text, "--threads", "1", "--no-progress"],
        ["runs", "list"], ["runs", "show", "1"], ["runs", "export"], ["runs", "compare"],
        ["accuracy", "--impl", "gelu", "--dtype", "float16"],
        ["bench", "--cases", "copy", "--sizes", "10", "--repeats", "1"],
        ["claims"],
        ["report", "--out", "{tmp}/r.html", "--no-progress"],
        ["probe", "--text", text, "--no-layer-sweep", "--precision", "none", "--no-progress"],
    ]


@pytest.fixture(scope="module")
def text_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("text") / "t.txt"
    p.write_text("The cat sat on the mat.\nA dog barked at night.\nRain fell on the quiet town.\n" * 200)
    return str(p)


@pytest.mark.parametrize("kind", ["garbage", "damaged page", "truncated"])
def test_a_corrupt_store_is_one_line_exit_1_and_left_as_it_was(kind, tmp_path, text_file, capsys):
    store_dir = tmp_path / "data"
    store_dir.mkdir()
    path = _corrupt(kind, store_dir)
    before = _snapshot(store_dir)
    for argv in store_commands(text_file):
        line = one_line_error(capsys, [*_fill(argv, tmp_path), "--store", str(path)], 1)
        assert "Error" in line  # the kind of failure is named
        assert _snapshot(store_dir) == before, argv  # not a byte written into the broken store
    assert not (tmp_path / "r.html").exists()


def test_a_folder_given_as_the_store_is_one_line_exit_1(tmp_path, capsys):
    for argv in (["runs", "list"], ["claims"], ["accuracy", "--impl", "gelu", "--dtype", "float16"]):
        one_line_error(capsys, [*argv, "--store", str(tmp_path)], 1)
    assert list(tmp_path.iterdir()) == []


# --- a read-only data directory ------------------------------------------------------


@pytest.fixture
def readonly_data(tmp_path):
    """A data directory holding a good store, then made read-only for real.

    Not root: chmod. Root ignores permissions, so there the folder is a small
    tmpfs remounted read-only (writes fail with EROFS, as on a read-only share).
    """
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        _real_store(folder / "runs.sqlite")
        for p in folder.glob("runs.sqlite-*"):
            p.unlink()
        (folder / "runs.sqlite").chmod(0o444)
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], check=True, capture_output=True)
    try:
        _real_store(folder / "runs.sqlite")
        for p in folder.glob("runs.sqlite-*"):
            p.unlink()
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


READS = ("runs", "claims")  # commands that only read the store


def test_a_read_only_data_directory_is_read_and_writes_are_one_line_exit_1(readonly_data, tmp_path, text_file, capsys, monkeypatch):
    """The store in a folder we cannot write to is still listed and read; every write is refused in one line."""
    monkeypatch.setenv("GELU_LAB_DATA", str(readonly_data))
    monkeypatch.delenv("GELU_LAB_STORE", raising=False)
    before = _snapshot(readonly_data)
    for argv in store_commands(text_file):
        if argv[0] in READS:
            assert cli.main(_fill(argv, tmp_path)) == 0, argv
            capsys.readouterr()
    assert cli.main(["runs", "list", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed["rows"]) == 40  # every run of _real_store, read from the read-only folder
    writes = [a for a in store_commands(text_file) if a[0] not in READS and a[0] != "report"]
    for argv in writes + [["report", "--out", str(readonly_data / "r.html"), "--no-progress"]]:
        line = one_line_error(capsys, _fill(argv, tmp_path), 1)
        if argv[0] != "report":
            assert "read-only" in line and "not writable" in line, line
    assert _snapshot(readonly_data) == before


# --- a full disk ------------------------------------------------------------------------


def _train_argv(text, store, *extra):
    return ["train", "--preset", "tiny", "--text", text, "--store", str(store), "--threads", "1", "--no-progress",
            "--activations", "silu", "--steps", "60", "--ckpt-every", "10", "--eval-interval", "20", *extra]


def test_full_disk_for_real_file_size_limit_then_resume(tmp_path, text_file, capsys):
    """The kernel refuses to grow any file past 80 kB (RLIMIT_FSIZE, EFBIG): the store's log hits it mid-run
    (after the first checkpoint; a store write is one transaction, so the log grows in few, larger steps)."""
    store = tmp_path / "s.sqlite"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (80_000, 80_000))

    r = subprocess.run([PY, "-m", "gelu_lab", *_train_argv(text_file, store)], env=ENV, preexec_fn=limit,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "disk is full" in r.stderr or "too large" in r.stderr, r.stderr
    with Store(store) as s:
        assert s.integrity_ok()
        (run,) = s.runs("train")
        assert run["status"] == "interrupted"  # its process ended before the run did: resumable
    assert not list(tmp_path.rglob("*.tmp*"))
    assert cli.main(_train_argv(text_file, store, "--resume", str(run["id"]))) == 0
    capsys.readouterr()
    with Store(store) as s:
        assert s.integrity_ok() and s.runs("train")[0]["status"] == "done"


def _enospc_on(monkeypatch, name_start: str, nth: int = 1):
    """Path.write_bytes/write_text of files named name_start* write half, then fail with ENOSPC (from the nth call on)."""
    calls = {"n": 0}
    for meth in ("write_bytes", "write_text"):
        real = getattr(Path, meth)

        def fake(self, data, *a, _real=real, **kw):
            if self.name.startswith(name_start):
                calls["n"] += 1
                if calls["n"] >= nth:
                    _real(self, data[: len(data) // 2], *a, **kw)
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
            return _real(self, data, *a, **kw)

        monkeypatch.setattr(Path, meth, fake)
    return calls


def test_disk_full_while_writing_a_checkpoint_keeps_the_last_good_one(tmp_path, text_file, capsys, monkeypatch):
    from gelu_lab.results.files import read_checked
    from gelu_lab.nn.train import checkpoint_path

    store = tmp_path / "s.sqlite"
    calls = _enospc_on(monkeypatch, "train-", nth=2)  # the step-10 checkpoint is written, the step-20 one fails
    line = one_line_error(capsys, _train_argv(text_file, store), 1)
    assert "No space left" in line and calls["n"] == 2
    monkeypatch.undo()
    with Store(store) as s:
        assert s.integrity_ok()
        (run,) = s.runs("train")
        ckpt = checkpoint_path(s, run["id"])
    assert read_checked(ckpt)  # the step-10 checkpoint, whole and verified
    assert not list(tmp_path.rglob("*.tmp*"))  # the half-written step-20 one is gone
    assert cli.main(_train_argv(text_file, store, "--resume", str(run["id"]))) == 0
    capsys.readouterr()


def test_disk_full_while_writing_the_report_leaves_no_file(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.html"
    _enospc_on(monkeypatch, "r.html")
    line = one_line_error(capsys, ["report", "--out", str(out), "--no-progress", "--store", str(tmp_path / "s.sqlite")], 1)
    assert "No space left" in line
    assert not out.exists() and not list(tmp_path.glob("r.html*"))


# --- the real stderr --------------------------------------------------------------------


def test_through_a_real_process_no_traceback_reaches_stderr(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(os.urandom(4096))
    for argv, code in ((["runs", "list", "--store", str(bad)], 1), (["table", "--x", "1,zz"], 2),
                       (["errors", "--interval", "-1e308", "-inf"], 2), (["custom", "x**"], 2)):
        r = subprocess.run([PY, "-m", "gelu_lab", *argv], env=ENV, capture_output=True, text=True, timeout=120)
        assert r.returncode == code and r.stdout == "", (argv, r.stdout[:200])
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr


def test_a_write_is_one_transaction_all_rows_or_none(tmp_path):
    """Each store write is one transaction: a failure half-way leaves none of its rows."""
    path = tmp_path / "runs.sqlite"
    with Store(path) as s:
        r = s.start_run("train", "k", {"activation": "gelu"})
        s.log_metrics(r, 0, {"a": 1.0, "b": 2.0})
        with pytest.raises(RuntimeError):
            with s._writing():
                s.db.execute("INSERT INTO metrics(run_id, step, name, value) VALUES (?,?,?,?)", (r, 1, "a", 3.0))
                raise RuntimeError("killed half-way")
        assert [(m["step"], m["name"]) for m in s.metrics(r)] == [(0, "a"), (0, "b")]
        assert not s.db.in_transaction and s.integrity_ok()
    with Store(path) as s:  # and what a second connection sees
        assert len(s.metrics(r)) == 2
