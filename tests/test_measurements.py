"""Measurements are data: docs/measurements.md and the README's headline table are what
tools/render_measurements.py renders from bench/results/*.json and src/gelu_lab/data/*.json
(`make docs` writes them), and every bench script writes its result file."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("render_measurements", ROOT / "tools" / "render_measurements.py")
render = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # dataclasses look their module up
spec.loader.exec_module(render)


def test_rendered_files_are_up_to_date_with_the_json():
    for path, text in render.render().items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is out of date with the JSON: run `make docs`"


def test_a_changed_figure_shows_in_the_rendered_files(monkeypatch, tmp_path):
    """The check can fail: a result file with another figure renders another README and document."""
    fake = tmp_path / "results"
    fake.mkdir()
    for p in render.RESULTS.glob("*.json"):
        (fake / p.name).write_text(p.read_text())
    doc = json.loads((fake / "gpu_check.json").read_text())
    doc["ffn"]["ours_over_torch"] = 1.5
    (fake / "gpu_check.json").write_text(json.dumps(doc))
    monkeypatch.setattr(render, "RESULTS", fake)
    rendered = render.render()
    assert "| GPU, compiled bfloat16 FFN block, step time ours / torch | 1.500 |" in rendered[render.README]
    assert rendered[render.README] != render.README.read_text() and rendered[render.MEASUREMENTS] != render.MEASUREMENTS.read_text()


def test_every_bench_script_writes_its_result_file():
    """Each script records through bench/record.py (or writes its own JSON with provenance:
    gpu_check, gpu_main_pass, ffn_gpu; ship_* write the package data)."""
    own = {"gpu_check.py", "gpu_main_pass.py", "ffn_gpu.py", "ship_measured.py", "ship_frameworks.py", "exhaustive_float32.sh"}
    for script in sorted((ROOT / "bench").iterdir()):
        if script.suffix not in (".py", ".sh") or script.name in render.HELPERS:
            continue
        text = script.read_text()
        assert "record.recording(" in text or "record.write(" in text or script.name in own, f"bench/{script.name} writes no bench/results file"
        assert "bench/results/" in text or script.name in own, f"bench/{script.name}: its docstring names no result file"


def test_readme_is_for_users():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    assert readme.count("UTC") == 0 and not re.search(r"\b\d{1,2}:\d{2} UTC", readme)
    for section in ("## Two commands", "## The library", "## The app", "## Command line", "## Headline figures", "## Architecture"):
        assert section in readme


def test_every_mutant_still_applies_to_the_tree():
    """bench/mutants.py edits one exact text per mutant: after code moves, each must still occur
    exactly once in its file, and the tests named to kill it must exist (else the run stops)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("mutants", ROOT / "bench" / "mutants.py")
        mutants = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # dataclasses look their module up
        spec.loader.exec_module(mutants)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    for m in mutants.MUTANTS:
        path = ROOT / m.path
        assert path.is_file(), f"{m.id}: {m.path} is gone"
        assert path.read_text().count(m.old) == 1, f"{m.id}: its text is not in {m.path} exactly once"
        for t in m.tests:
            assert (ROOT / t.split("::")[0]).is_file(), f"{m.id}: {t} is gone"
