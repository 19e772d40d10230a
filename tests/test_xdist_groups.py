"""make test runs `pytest -n 2 --dist loadgroup`: the tests of one xdist group share a worker,
so the browser tests (group "app") start one app server and one Chromium, and group "bert"
loads the model once. pytest-xdist 3.8 marks a test's group by a suffix on its node id, which
pytest 9.2 no longer takes (pytest-xdist#1386): the groups are then lost without a word, every
test goes to either worker. This runs the installed pytest and pytest-xdist on two small
grouped modules and checks they still group; pyproject.toml holds pytest below 9.2 until a
pytest-xdist release groups tests another way."""

from __future__ import annotations

import re
import subprocess
import sys

GROUPED = """import pytest

pytestmark = pytest.mark.xdist_group("g")


@pytest.mark.parametrize("i", range(4))
def test_grouped(i):
    pass
"""
FREE = """import pytest


@pytest.mark.parametrize("i", range(4))
def test_free(i):
    pass
"""


def test_loadgroup_keeps_a_group_on_one_worker(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    for name, text in (("test_a.py", GROUPED), ("test_b.py", GROUPED), ("test_c.py", FREE)):
        (tmp_path / name).write_text(text)
    run = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider",
                          "-c", str(tmp_path / "pytest.ini"), str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    passed = re.findall(r"\[(gw\d+)\] \[\s*\d+%\] PASSED (\S+)", run.stdout)
    assert len(passed) == 12, run.stdout[-2000:]
    grouped = [(w, t) for w, t in passed if "test_grouped" in t]
    assert all(t.endswith("@g") for _, t in grouped), f"the group suffix was lost: {grouped}"
    assert len({w for w, _ in grouped}) == 1, f"group g ran on several workers: {grouped}"
