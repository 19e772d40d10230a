"""Other frameworks' GELU as implementations for :mod:`gelu_lab.analysis.accuracy`.

    SPECS                        spec -> Spec: every framework GELU `gelu-lab accuracy --impl` knows
    spec_of(text) -> str | None  the canonical spec of `text` ("onnxruntime:gelu" -> "onnxruntime:Gelu"), None if not one
    function(spec) -> fn         NumPy array -> array; ValueError naming the package when it is not installed
    default_form(framework)      the form the installed framework computes by default, asked now (None if absent)
    installed(framework)         its version, or None

Each spec is one framework and one form: the exact form (erf) is judged against the
correctly rounded GELU, the tanh form against the correctly rounded tanh form (see
accuracy's module text). Inputs are handed to the framework in their own format where it
has that format (``dtypes``); a format it lacks is refused (ValueError), not converted.

    jax:gelu, jax:gelu_tanh                     jax.nn.gelu(x, approximate=False / True)
    tensorflow:gelu, tensorflow:gelu_tanh       tf.nn.gelu(x, approximate=False / True)
    onnxruntime:Gelu, onnxruntime:Gelu_tanh     the ONNX operator Gelu (opset 20), approximate "none" / "tanh",
                                                a one-node model built in memory with onnx.helper, run by onnxruntime's CPU provider
    numpy:naive                                 the seed's 0.5 * x * (1 + erf(x / sqrt(2))) on float32 arrays,
                                                erf = scipy.special.erf's float32 loop, the arithmetic NumPy float32
    scipy                                       x * scipy.special.ndtr(x) on float32 arrays (SciPy has no GELU; ndtr is its Φ)
    torch:gelu, torch:gelu_tanh                 listed for the table; accuracy.resolve builds them from gelu_lab.torch.NATIVE

Importing this module imports none of the frameworks.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import math
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Spec:
    spec: str
    framework: str  # display name
    package: str  # the module to import (and the pip name in the message)
    form: str  # registry name: gelu or gelu_tanh
    call: str  # how it is called, as code
    dtypes: tuple  # formats the framework computes in


ALL = ("float16", "bfloat16", "float32")
SPECS = {s.spec: s for s in (
    Spec("torch:gelu", "PyTorch", "torch", "gelu", "torch.nn.functional.gelu(x, approximate='none')", ALL),
    Spec("torch:gelu_tanh", "PyTorch", "torch", "gelu_tanh", "torch.nn.functional.gelu(x, approximate='tanh')", ALL),
    Spec("jax:gelu", "JAX", "jax", "gelu", "jax.nn.gelu(x, approximate=False)", ALL),
    Spec("jax:gelu_tanh", "JAX", "jax", "gelu_tanh", "jax.nn.gelu(x, approximate=True)", ALL),
    Spec("tensorflow:gelu", "TensorFlow", "tensorflow", "gelu", "tf.nn.gelu(x, approximate=False)", ALL),
    Spec("tensorflow:gelu_tanh", "TensorFlow", "tensorflow", "gelu_tanh", "tf.nn.gelu(x, approximate=True)", ALL),
    Spec("onnxruntime:Gelu", "ONNX Runtime", "onnxruntime", "gelu", "Gelu(approximate='none')", ("float16", "float32")),
    Spec("onnxruntime:Gelu_tanh", "ONNX Runtime", "onnxruntime", "gelu_tanh", "Gelu(approximate='tanh')", ("float16", "float32")),
    Spec("numpy:naive", "NumPy + SciPy erf", "scipy", "gelu", "0.5 * x * (1 + scipy.special.erf(x / math.sqrt(2)))", ("float32",)),
    Spec("scipy", "SciPy", "scipy", "gelu", "x * scipy.special.ndtr(x)", ("float32",)),
)}
FRAMEWORKS = ("torch", "jax", "tensorflow", "onnxruntime")  # the ones with a default form to ask
PIP = {"torch": "torch", "jax": "jax", "tensorflow": "tensorflow-cpu", "onnxruntime": "onnxruntime onnx", "scipy": "scipy"}
ONNX_OPSET = 20  # the first opset with the Gelu operator


def spec_of(text: str) -> str | None:
    """The canonical spec for `text`, or None when it names no framework GELU here."""
    s = str(text).strip()
    fw, _, name = s.partition(":")
    low = name.lower()
    if fw == "onnxruntime" and low in ("gelu", "gelu_tanh"):
        s = "onnxruntime:" + ("Gelu" if low == "gelu" else "Gelu_tanh")
    elif s == "scipy:gelu":
        s = "scipy"
    return s if s in SPECS else None


def _need(package: str, spec: str):
    if package == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # its C++ start-up notices, not errors
    try:
        return importlib.import_module(package)
    except ImportError:
        raise ValueError(f"impl {spec!r} needs {package}, which is not installed "
                         f"(pip install {PIP.get(package, package)}, or pip install -e \".[frameworks]\")") from None


def _jax(approximate: bool):
    jax = _need("jax", "jax:gelu")
    jax.config.update("jax_platforms", "cpu")
    f = jax.jit(lambda v: jax.nn.gelu(v, approximate=approximate))
    return lambda x: np.asarray(f(x))


def _tensorflow(approximate: bool):
    tf = _need("tensorflow", "tensorflow:gelu")
    return lambda x: tf.nn.gelu(tf.constant(x), approximate=approximate).numpy()


def _onnx_model(approximate: str, elem_type: int):
    from onnx import helper

    node = helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)
    graph = helper.make_graph([node], "gelu", [helper.make_tensor_value_info("x", elem_type, [None])],
                              [helper.make_tensor_value_info("y", elem_type, [None])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", ONNX_OPSET)]).SerializeToString()


def _onnxruntime(approximate: str):
    ort = _need("onnxruntime", "onnxruntime:Gelu")
    onnx = _need("onnx", "onnxruntime:Gelu")
    sessions = {}

    def f(x):
        key = x.dtype.name
        if key not in sessions:
            elem = {"float16": onnx.TensorProto.FLOAT16, "float32": onnx.TensorProto.FLOAT}[key]
            opts = ort.SessionOptions()
            opts.log_severity_level = 3
            sessions[key] = ort.InferenceSession(_onnx_model(approximate, elem), opts, providers=["CPUExecutionProvider"])
        return sessions[key].run(None, {"x": np.ascontiguousarray(x).ravel()})[0].reshape(x.shape)

    return f


def _naive():
    from scipy import special

    def f(x):  # float32 in, float32 throughout: Python floats do not widen a float32 array (NEP 50)
        with np.errstate(all="ignore"):
            return 0.5 * x * (1 + special.erf(x / math.sqrt(2)))

    return f


def _scipy():
    from scipy import special

    def f(x):
        with np.errstate(all="ignore"):
            return x * special.ndtr(x)

    return f


_MAKERS = {
    "jax:gelu": lambda: _jax(False), "jax:gelu_tanh": lambda: _jax(True),
    "tensorflow:gelu": lambda: _tensorflow(False), "tensorflow:gelu_tanh": lambda: _tensorflow(True),
    "onnxruntime:Gelu": lambda: _onnxruntime("none"), "onnxruntime:Gelu_tanh": lambda: _onnxruntime("tanh"),
    "numpy:naive": _naive, "scipy": _scipy,
}


@functools.cache
def _made(spec: str):
    return _MAKERS[spec]()


def function(spec: str):
    """NumPy array -> array of `spec` (a key of SPECS but torch's); ValueError if its package is
    missing or the array's format is not one the framework computes in."""
    s = SPECS[spec]
    _need(s.package, spec)
    f = _made(spec)

    def g(x):
        if x.dtype.name not in s.dtypes:
            raise ValueError(f"impl {spec!r} computes in {', '.join(s.dtypes)}, not {x.dtype.name}")
        return f(x)

    return g


def installed(framework: str) -> str | None:
    """The installed version of `framework` (a distribution's module name), or None; imports nothing."""
    dist = {"tensorflow": ("tensorflow", "tensorflow-cpu")}.get(framework, (framework,))
    for d in dist:
        try:
            return metadata.version(d)
        except metadata.PackageNotFoundError:
            continue
    return None


SOURCES = {"jax": "_src/nn/functions.py", "tensorflow": "python/ops/nn_ops.py"}  # where gelu(..., approximate=...) is defined


def _signature_default(package: str):
    """The default of `approximate` in the package's own `def gelu(...)`, read from its installed
    source with ast (importing TensorFlow into the app's server would cost seconds and memory)."""
    spec = importlib.util.find_spec(package)
    path = Path(spec.origin).parent / SOURCES[package]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name == "gelu":
            args = node.args.args
            defaults = dict(zip([a.arg for a in args[len(args) - len(node.args.defaults):]], node.args.defaults))
            return ast.literal_eval(defaults["approximate"])
    raise ValueError(f"no gelu in {package}'s {SOURCES[package]}")


@functools.cache
def default_form(framework: str) -> str | None:
    """The registry form `framework`'s GELU computes when called without `approximate`, read
    from the installed package now: torch's signature, JAX's and TensorFlow's `def gelu` in
    their installed source, the ONNX operator's schema; None if it is not installed."""
    if installed(framework) is None:
        return None
    if framework == "torch":
        import torch

        d = inspect.signature(torch.nn.GELU.__init__).parameters["approximate"].default
        return {"none": "gelu", "tanh": "gelu_tanh"}.get(d)
    if framework in SOURCES:
        d = _signature_default(framework)
    elif framework == "onnxruntime":
        import onnx

        d = onnx.defs.get_schema("Gelu").attributes["approximate"].default_value.s.decode() == "tanh"
    else:
        return None
    return "gelu_tanh" if d else "gelu"
