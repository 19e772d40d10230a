"""The house rules of DESIGN.md that a machine can check: one-way layers, no import cycle, short pages.

The layers contract itself is in pyproject.toml ([tool.importlinter]); `lint-imports`
checks it (make test runs it too). Here also: no cycle among gelu_lab's modules at
all (within a layer too, function-level imports included), every page a folder
(app/pages/<page>/: page.py, callbacks.py, view.py, ...) of modules at most 250 lines
each, and figures/ pure.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "src" / "gelu_lab" / "app" / "pages"


def test_layers_contract_is_kept():
    exe = Path(sys.executable).with_name("lint-imports")
    r = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True)  # its cache would be written into the tree
    assert r.returncode == 0 and "1 kept, 0 broken" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    succ = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter[0]
                counter[0] += 1
                stack.append(v)
                on.add(v)
            for j in range(i, len(succ[v])):
                w = succ[v][j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
    return out


def test_cycle_finder_finds_a_cycle():
    class G:  # a -> b -> c -> a, d alone
        modules = {"a", "b", "c", "d"}

        @staticmethod
        def find_modules_directly_imported_by(m):
            return {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}[m]

    assert _cycles(G) == [["a", "b", "c"]]


def test_no_import_cycle():
    graph = grimp.build_graph("gelu_lab", include_external_packages=False, cache_dir=None)  # no .grimp_cache/ in the tree
    # a package's __init__ is imported whenever one of its modules is: an edge from a
    # submodule to its own package is not a dependency on the package's code unless the
    # package imports it back, which the cycle finder then reports
    assert _cycles(graph) == []


def test_page_modules_are_short():
    long = {str(p.relative_to(PAGES)): n for p in PAGES.rglob("*.py") if (n := len(p.read_text().splitlines())) > 250}
    assert long == {}, f"page modules over 250 lines (layout and callbacks only; data functions belong in analysis/, nn/ or results/): {long}"


def test_figures_are_pure():
    """figures/ takes data and words, never claim ids: it imports nothing of gelu_lab outside itself
    (what a claim draws is its record's, analysis.claim_figures; the page's view puts the words in)."""
    graph = grimp.build_graph("gelu_lab", include_external_packages=False, cache_dir=None)
    figures = {m for m in graph.modules if m == "gelu_lab.figures" or m.startswith("gelu_lab.figures.")}
    outside = {(m, i) for m in figures for i in graph.find_modules_directly_imported_by(m) if i not in figures}
    assert outside == set()


def test_every_page_is_a_folder_with_its_files_together():
    """app/pages/<page>/ holds a page's layout (page.py) and the modules beside it; nothing of a page
    spills into app/pages/ itself, and the shell finds every page of the registry there."""
    from gelu_lab.app import registry

    assert sorted(p.name for p in PAGES.glob("*.py")) == ["__init__.py"]
    for p in registry.PAGES:
        assert (PAGES / p.slug / "page.py").is_file() and (PAGES / p.slug / "__init__.py").is_file(), p.slug
