"""The suite's own guards, run as pytest runs them: a run whose tests write into the source tree
fails (naming the file), however well its tests passed; one that writes in its temporary folder
passes. The checkout is a throwaway git repository holding this suite's conftest.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLANT = '''
from pathlib import Path

def test_writes(tmp_path):
    {where}.joinpath("{name}").write_text("{{}}")
'''


def _run(tmp_path: Path, where: str, name: str) -> subprocess.CompletedProcess:
    repo = tmp_path / "checkout"
    (repo / "tests").mkdir(parents=True)
    shutil.copy(Path(__file__).with_name("conftest.py"), repo / "tests" / "conftest.py")
    (repo / "tests" / "test_plant.py").write_text(PLANT.format(where=where, name=name))
    (repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")  # as the project's: Python's and pytest's own files
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "suite"], check=True)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/test_plant.py"],
                          cwd=repo, capture_output=True, text=True, timeout=300)


def test_a_test_that_writes_into_the_tree_fails_the_run(tmp_path):
    r = _run(tmp_path, "Path(__file__).resolve().parents[1]", "result.json")
    assert "1 passed" in r.stdout and r.returncode == pytest.ExitCode.TESTS_FAILED, r.stdout + r.stderr
    assert "the source tree changed during the run" in r.stdout and "result.json" in r.stdout


def test_a_test_that_writes_in_its_temporary_folder_passes(tmp_path):
    r = _run(tmp_path, "tmp_path", "result.json")
    assert r.returncode == 0 and "source tree changed" not in r.stdout, r.stdout + r.stderr
