"""Which GELU form each framework computes by default, and how well it computes it.

    defaults() -> [Default]        each installed framework asked live, the others documented
    accuracy_rows(store=None) -> [dict]   the measured table: per framework, form and format,
                                   the ULP accuracy against the correctly rounded value

The installed frameworks are asked: the default of ``torch.nn.GELU(approximate=...)``
(``F.gelu`` is a builtin without a signature; the module calls it with its own
``approximate``), of ``jax.nn.gelu`` and ``tf.nn.gelu`` read from their installed source,
of the ONNX operator Gelu read from its schema (:func:`.framework_impls.default_form`).
A framework that is not installed is a row of data, with the source file that defines
it (paths in the frameworks' repositories), so it can be checked by reading that file.
``form`` is a name of the activation registry; the Hugging Face ``ACT2FN`` names map
through :func:`gelu_lab.activations.canonical`.

The accuracy table reads ``results.latest("accuracy")`` for each implementation (:data:`TABLE`)
in each format it computes in: the newest run (exhaustive before a sample stratified over the
binades made at the same time); the reader's store, else the set shipped in ``gelu_lab/data/frameworks.json``
(``bench/ship_frameworks.py``) and ``measured.json``; a run never made is a row saying so.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import results
from ..activations import canonical
from . import accuracy as acc
from . import framework_impls as fi

@dataclass(frozen=True)
class Default:
    framework: str
    call: str  # how the function is called, with its default spelled out
    default: str  # the default argument, or the class an ACT2FN name builds
    form: str  # registry name: gelu, gelu_tanh, gelu_sigmoid
    source: str  # where it is defined ("asked" for a live answer)
    asked: bool = False


HF_NAMES = (("gelu", "GELUActivation"), ("gelu_new", "NewGELUActivation"),
            ("gelu_pytorch_tanh", "GELUTanh"), ("quick_gelu", "QuickGELUActivation"))

def _as_bool(form: str) -> str:
    return f"approximate={form == 'gelu_tanh'}"


def _as_text(form: str) -> str:
    return f"approximate='{'tanh' if form == 'gelu_tanh' else 'none'}'"


ASKED = {  # package -> (name in the table, the call, how the default reads, where the live answer comes from)
    "torch": ("PyTorch", "torch.nn.GELU() · F.gelu(x)", _as_text, "inspect.signature(torch.nn.GELU)"),
    **{p: (name, call, _as_bool, f"def gelu in {p}/{fi.SOURCES[p]}")
       for p, name, call in (("jax", "JAX", "jax.nn.gelu(x)"), ("tensorflow", "TensorFlow", "tf.nn.gelu(features)"))},
    "onnxruntime": ("ONNX", "Gelu(X)", _as_text, "onnx.defs.get_schema('Gelu')"),
}
DOCUMENTED = (
    Default("JAX", "jax.nn.gelu(x, approximate=True)", "approximate=True", "gelu_tanh", "jax/_src/nn/functions.py"),
    Default("TensorFlow", "tf.nn.gelu(features, approximate=False)", "approximate=False", "gelu", "tensorflow/python/ops/nn_ops.py"),
    Default("ONNX", "Gelu(X, approximate='none')", "approximate='none'", "gelu", "onnx/defs/math/defs.cc"),
    Default("Keras 3", "keras.ops.gelu(x, approximate=True)", "approximate=True", "gelu_tanh", "keras/src/ops/nn.py"),
    Default("Keras 3", "keras.activations.gelu(x, approximate=False)", "approximate=False", "gelu", "keras/src/activations/activations.py"),
    *(Default("Hugging Face transformers", f'ACT2FN["{name}"]', cls, canonical(name), "src/transformers/activations.py") for name, cls in HF_NAMES),
)


def defaults() -> list[Default]:
    """Every row: PyTorch, JAX, TensorFlow and ONNX, each asked when installed (else its documented
    row, if it has one), then the documented ones (Keras, transformers)."""
    asked = {}
    for package, (name, call, says, how) in ASKED.items():
        form = fi.default_form(package)
        if form is not None:
            shown = "ONNX Runtime" if package == "onnxruntime" else name  # the ONNX operator as the runtime installed here has it
            asked[name] = Default(f"{shown} {fi.installed(package)}", call, says(form), form, how, asked=True)
    order = [name for name, *_ in ASKED.values()]
    rows = [asked[name] for name in order if name in asked]
    # the documented rows of the ones not installed, in that order, then the rest
    rows += sorted((d for d in DOCUMENTED if d.framework in order and d.framework not in asked), key=lambda d: order.index(d.framework))
    return rows + [d for d in DOCUMENTED if d.framework not in order]


# --- how well each computes it ---------------------------------------------------------

OURS = {"gelu": "gelu_lab.gelu(x)", "gelu_tanh": "gelu_lab.gelu(x, approximate='tanh')"}
TABLE = (*OURS, *fi.SPECS)  # the rows' implementations, gelu_lab first
ONLY_FORM = ("numpy:naive", "scipy")  # one formula, nothing to choose


def _impl_info(spec: str) -> dict:
    """framework, form, call, formats and package of a TABLE entry."""
    if spec in OURS:
        return {"framework": "GELU Lab", "form": spec, "call": OURS[spec], "dtypes": acc.DTYPES, "package": "gelu_lab"}
    s = fi.SPECS[spec]
    return {"framework": s.framework, "form": s.form, "call": s.call, "dtypes": s.dtypes, "package": s.package}


def is_default(spec: str, recorded: str | None = None) -> bool | None:
    """Whether `spec` is its framework's default form: the installed framework asked now, else
    the default recorded with the measurement (`recorded`), else None (not known here)."""
    info = _impl_info(spec)
    if spec in OURS:
        return spec == "gelu"  # gelu_lab.gelu(x): approximate="none"
    if spec in ONLY_FORM:
        return True
    form = fi.default_form(info["package"]) or recorded
    return None if form is None else form == info["form"]


def _runs(store) -> dict:
    """{(impl, dtype): summary}: the newest run (one machine's rows stay together: torch's float32
    results depend on the CPU's vector code); of runs made at the same time, the exhaustive one,
    else the largest stratified sample."""
    got = results.latest("accuracy", store=store)
    best = {}
    for s in [] if got is None else got.value:
        mode = s.get("mode")
        if mode not in ("exhaustive", "sample"):
            continue
        k = (s["impl"], s["dtype"])
        rank = (str(s.get("provenance", {}).get("date", "")), mode == "exhaustive", s["n"])
        if k not in best or rank > best[k][0]:
            best[k] = (rank, s)
    return {k: v for k, (_, v) in best.items()}


def accuracy_rows(store=None) -> list[dict]:
    """One row per implementation of TABLE and format it computes in: the run's inputs (all of
    them, else a sample stratified over the binades: ``mode``), share not correctly rounded,
    largest ulp error and its x, zeros of the wrong sign or flushed, nan/inf where the value is
    finite; ``measured`` False for a run never made."""
    runs = _runs(store)
    rows = []
    for spec in TABLE:
        info = _impl_info(spec)
        for dtype in info["dtypes"]:
            s = runs.get((spec, dtype))
            if s is not None and s.get("reference") != info["form"]:
                s = None
            row = {"impl": spec, "framework": info["framework"], "form": info["form"], "call": info["call"], "dtype": dtype,
                   "measured": s is not None}
            if s is not None:
                c = s["counts"]
                row.update({
                    "mode": s["mode"], "n": s["n"], "wrong": s["wrong"], "frac_wrong": s["frac_wrong"], "max_ulp": s["max_ulp"],
                    "worst_x": (s["worst"] or {}).get("x"), "zero_sign": c["zero_sign"], "flush": c["flush"],
                    "nonfinite": c["overflow"] + c["spurious_nan"], "nonfinite_x": _first_x(s, ("overflow", "spurious_nan")),
                    "source": s["source"], "provenance": s["provenance"], "version": _version(info["package"], s["provenance"]),
                })
            row["default"] = is_default(spec, s.get("framework_default") if s is not None else None)
            rows.append(row)
    return rows


def _first_x(s: dict, cats) -> float | None:
    for c in cats:
        e = (s.get("examples") or {}).get(c)
        if e:
            return float(e["x"])  # -inf may come back from JSON as text
    return None


def _version(package: str, prov: dict) -> str | None:
    if package == "gelu_lab":
        return prov.get("gelu_lab")
    return prov.get(package)
