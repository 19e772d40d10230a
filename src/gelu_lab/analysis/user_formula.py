"""Your own activation: a formula in x (and one free constant a), parsed safely.

    f = parse("x*sigmoid(a*x)")           -> Expr (a small tree; FormulaError on bad input)
    f.eval(x, a=1.702)                     float64 array, NumPy, warnings off
    diff(f)                                the exact derivative d/dx, again an Expr
    to_text(f)                             the tree printed back (parse(to_text(f)) evaluates the same)

Grammar (a whitelist; nothing typed is ever given to eval/exec/compile or to a
parser that uses them):

    expr  := term (("+" | "-") term)*
    term  := unary (("*" | "/") unary)*
    unary := ("+" | "-") unary | power
    power := atom (("**" | "^") unary)?              right-associative: 2**3**2 = 2**9
    atom  := NUMBER | x | a | pi | e | NAME "(" expr ("," expr)? ")" | "(" expr ")"

with NAME one of FUNCTIONS. The input is checked before anything is computed:
ASCII only (a full-width or Cyrillic lookalike of x is named, not guessed at),
at most MAX_LENGTH characters, MAX_DEPTH levels of nesting, MAX_NODES nodes, and
every exponent that does not depend on x or a must satisfy |p| <= MAX_EXPONENT
(so 9**9**9 is refused at parse time, not evaluated). There are no loops, calls
by name or attributes in the grammar, so evaluation costs one NumPy operation per
node per array, and arrays are capped at MAX_POINTS: time is bounded.

The derivative is symbolic, micrograd-style: each node type knows the rule for
its own derivative (chain rule), the result is another tree built from the same
node types, so it is exact up to float64 rounding, not a finite difference.
Subtrees are shared between a tree and its derivative, and evaluation memoises
by node, so the derivative costs a small multiple of the function.
Conventions at kinks: relu'(0) = 0 and abs'(0) = 0 (as PyTorch), and max/min
pass the whole derivative to their first argument on a tie.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

import numpy as np
from scipy import special

from .. import budget
from .. import numerics as nm

MAX_LENGTH = 500
MAX_DEPTH = 50
MAX_NODES = 200
MAX_EXPONENT = 1000.0
MAX_POINTS = 1_000_000
VARIABLES = ("x", "a")
CONSTANTS = {"pi": math.pi, "e": math.e}

# name -> number of arguments; evaluation and derivative rules are below
FUNCTIONS = {
    "exp": 1, "log": 1, "tanh": 1, "sigmoid": 1, "erf": 1, "erfc": 1, "Phi": 1, "phi": 1,
    "sqrt": 1, "abs": 1, "relu": 1, "softplus": 1, "max": 2, "min": 2,
    "sign": 1, "step": 1,  # needed to write the derivatives of abs, relu, max, min
}


class FormulaError(ValueError):
    """A formula the grammar refuses, with a one-line reason."""


# --------------------------------------------------------------------------
# the tree


@dataclass(frozen=True, eq=False)
class Expr:
    """One node: op is "num", "x", "a", "+", "-", "*", "/", "**", "neg" or a function name."""

    op: str
    args: tuple = ()
    value: float = 0.0  # for "num"

    def eval(self, x, a: float | None = None) -> np.ndarray:
        """The formula on float64 x (any shape, at most MAX_POINTS values); a is the free constant."""
        x = np.asarray(x, dtype=np.float64)
        if x.size > MAX_POINTS:
            raise FormulaError(f"at most {MAX_POINTS} points per evaluation, got {x.size}")
        if uses(self, "a") and a is None:
            raise FormulaError("the formula has a free constant a: give its value (or fit it)")
        env = {"x": x, "a": np.float64(0.0 if a is None else a)}
        # a visitor's formula on a public server: one float64 array per node while it is evaluated
        with budget.holding(8 * x.size * (size(self) + 1)), np.errstate(all="ignore"):
            return np.broadcast_to(_eval(self, env, {}), x.shape).astype(np.float64)

    def __str__(self) -> str:
        return to_text(self)

    def __repr__(self) -> str:
        return f"parse({to_text(self)!r})"


def num(v: float) -> Expr:
    return Expr("num", (), float(v))


X, A = Expr("x"), Expr("a")
ZERO, ONE = num(0.0), num(1.0)


def walk(e: Expr):
    """Every node of e once (shared subtrees once), children before parents."""
    seen, order, stack = set(), [], [(e, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((c, False) for c in node.args)
    return order


def uses(e: Expr, var: str) -> bool:
    return any(n.op == var for n in walk(e))


def size(e: Expr) -> int:
    """Number of distinct nodes."""
    return len(walk(e))


# --------------------------------------------------------------------------
# evaluation (float64, NumPy; overflow gives inf, log(-1) gives nan: no warnings)


def _step(u):
    return (u > 0).astype(np.float64)


_FN = {
    "exp": np.exp, "log": np.log, "tanh": np.tanh, "sigmoid": nm.sigmoid, "erf": special.erf, "erfc": special.erfc,
    "Phi": nm.Phi, "phi": nm.phi, "sqrt": np.sqrt, "abs": np.abs, "relu": lambda u: np.maximum(u, 0.0),
    "softplus": lambda u: np.logaddexp(0.0, u), "sign": np.sign, "step": _step,
    "max": np.maximum, "min": np.minimum,
}
_BIN = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "**": np.power}


def _eval(e: Expr, env: dict, memo: dict):
    # iterative over the memoised node order: no Python recursion, shared nodes once
    for n in walk(e):
        if n.op == "num":
            v = np.float64(n.value)
        elif n.op in env:
            v = env[n.op]
        elif n.op == "neg":
            v = -memo[id(n.args[0])]
        elif n.op in _BIN:
            v = _BIN[n.op](memo[id(n.args[0])], memo[id(n.args[1])])
        else:
            v = _FN[n.op](*(np.asarray(memo[id(c)], dtype=np.float64) for c in n.args))
        memo[id(n)] = v
    return memo[id(e)]


def constant_value(e: Expr) -> float | None:
    """The value of a subtree free of x and a, else None."""
    if uses(e, "x") or uses(e, "a"):
        return None
    with np.errstate(all="ignore"):
        return float(_eval(e, {}, {}))


# --------------------------------------------------------------------------
# building nodes, folding only the trivial cases (0 + u, 1 * u, ...) so that a
# derivative reads like one written by hand


def _is(e, v):
    return e.op == "num" and e.value == v


def add(u, v):
    if _is(u, 0):
        return v
    if _is(v, 0):
        return u
    if u.op == v.op == "num":
        return num(u.value + v.value)
    return Expr("+", (u, v))


def sub(u, v):
    if _is(v, 0):
        return u
    if _is(u, 0):
        return neg(v)
    if u.op == v.op == "num":
        return num(u.value - v.value)
    return Expr("-", (u, v))


def mul(u, v):
    if _is(u, 0) or _is(v, 0):
        return ZERO
    if _is(u, 1):
        return v
    if _is(v, 1):
        return u
    if _is(u, -1):
        return neg(v)
    if _is(v, -1):
        return neg(u)
    if u.op == v.op == "num":
        return num(u.value * v.value)
    return Expr("*", (u, v))


def div(u, v):
    if _is(u, 0):
        return ZERO
    if _is(v, 1):
        return u
    return Expr("/", (u, v))


def power(u, v):
    if _is(v, 1):
        return u
    return Expr("**", (u, v))


def neg(u):
    if u.op == "num":
        return num(-u.value)
    if u.op == "neg":
        return u.args[0]
    return Expr("neg", (u,))


def fn(name, *args):
    return Expr(name, tuple(args))


# --------------------------------------------------------------------------
# the derivative: one rule per node type, chain rule through the arguments


def _fn_grad(name: str, u: Expr) -> Expr:
    """f'(u) for the one-argument functions, as a tree in u."""
    if name == "exp":
        return fn("exp", u)
    if name == "log":
        return div(ONE, u)
    if name == "tanh":
        return sub(ONE, power(fn("tanh", u), num(2)))
    if name == "sigmoid":  # s(u) s(-u): no cancellation where s -> 1
        return mul(fn("sigmoid", u), fn("sigmoid", neg(u)))
    if name in ("erf", "erfc"):
        g = mul(num(2 / math.sqrt(math.pi)), fn("exp", neg(power(u, num(2)))))
        return g if name == "erf" else neg(g)
    if name == "Phi":
        return fn("phi", u)
    if name == "phi":
        return neg(mul(u, fn("phi", u)))
    if name == "sqrt":
        return div(num(0.5), fn("sqrt", u))
    if name == "abs":
        return fn("sign", u)
    if name == "relu":
        return fn("step", u)
    if name == "softplus":
        return fn("sigmoid", u)
    if name in ("sign", "step"):
        return ZERO  # almost everywhere
    raise FormulaError(f"no derivative rule for {name}")


def diff(e: Expr, var: str = "x") -> Expr:
    """d e / d var as a new tree (shares subtrees with e). var is "x" or "a"."""
    memo: dict[int, Expr] = {}
    for n in walk(e):  # children first, so each rule finds its arguments' derivatives
        d = [memo[id(c)] for c in n.args]
        op = n.op
        if op == "num" or op in VARIABLES:
            r = ONE if op == var else ZERO
        elif op == "neg":
            r = neg(d[0])
        elif op == "+":
            r = add(d[0], d[1])
        elif op == "-":
            r = sub(d[0], d[1])
        elif op == "*":
            u, v = n.args
            r = add(mul(d[0], v), mul(u, d[1]))
        elif op == "/":
            u, v = n.args
            r = sub(div(d[0], v), div(mul(u, d[1]), power(v, num(2))))
        elif op == "**":
            u, v = n.args
            p = constant_value(v) if _is(d[1], 0) else None
            if p is not None:  # u**p: p u**(p-1) u', valid for u < 0 too
                r = mul(mul(num(p), power(u, num(p - 1))), d[0])
            else:  # u**v = exp(v log u): u**v (v' log u + v u'/u)
                r = mul(n, add(mul(d[1], fn("log", u)), div(mul(v, d[0]), u)))
        elif op in ("max", "min"):
            u, v = n.args
            # g = 1 where the first argument is the one picked (ties included):
            # 1 - step(v - u) for max, 1 - step(u - v) for min
            g = sub(ONE, fn("step", sub(v, u) if op == "max" else sub(u, v)))
            r = add(mul(g, d[0]), mul(sub(ONE, g), d[1]))
        else:
            r = mul(_fn_grad(op, n.args[0]), d[0])
        memo[id(n)] = r
    return memo[id(e)]


# --------------------------------------------------------------------------
# printing (the tree back to text in the same grammar, parentheses only where needed)

_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "neg": 3, "**": 4}


def _prec(e: Expr) -> int:
    if e.op == "num" and (e.value < 0 or math.copysign(1.0, e.value) < 0):
        return 3  # prints with a leading minus
    return _PREC.get(e.op, 5)


def _number(v: float) -> str:
    s = repr(float(v))
    return s[:-2] if s.endswith(".0") and "e" not in s else s


def to_text(e: Expr) -> str:
    """e in the formula grammar; parse(to_text(e)) has the same tree."""

    def go(n: Expr) -> str:
        if n.op == "num":
            return _number(n.value)
        if n.op in VARIABLES:
            return n.op
        if n.op == "neg":
            c = n.args[0]
            return f"-{go(c)}" if _prec(c) >= 3 else f"-({go(c)})"
        if n.op in _BIN:
            p = _PREC[n.op]
            u, v = n.args
            su, sv = go(u), go(v)
            if n.op == "**":  # atom ** unary
                su = su if _prec(u) == 5 else f"({su})"
                sv = sv if _prec(v) >= 3 else f"({sv})"
                return f"{su}**{sv}"
            su = su if _prec(u) >= p else f"({su})"
            sv = sv if _prec(v) > p else f"({sv})"
            sep = f" {n.op} " if p == 1 else n.op
            return f"{su}{sep}{sv}"
        return f"{n.op}({', '.join(go(c) for c in n.args)})"

    return go(e)


# --------------------------------------------------------------------------
# tokenizer and parser

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/^(),]))"
)
_HINTS = {
    ".": "attribute access is not part of the grammar",
    "'": "strings are not part of the grammar",
    '"': "strings are not part of the grammar",
    ":": "lambdas and slices are not part of the grammar",
    "[": "indexing is not part of the grammar",
    "=": "assignment and comparison are not part of the grammar",
    ";": "one expression only",
}


def _allowed() -> str:
    return ", ".join(list(VARIABLES) + list(CONSTANTS) + list(FUNCTIONS))


def _check_chars(text: str) -> None:
    for i, ch in enumerate(text):
        if not ch.isascii():
            name = unicodedata.name(ch, "unnamed character")
            raise FormulaError(f"character {ch!r} (U+{ord(ch):04X} {name}) at position {i} is not allowed: use plain ASCII")
        if not (ch.isprintable() or ch in " \t\r\n"):
            raise FormulaError(f"control character U+{ord(ch):04X} at position {i} is not allowed")


def tokenize(text: str):
    """Yield (kind, text, position), kind in num, name, op; FormulaError on anything else.

    A generator, so the parser reports the first problem in reading order."""
    if not isinstance(text, str):
        raise FormulaError("the formula must be text")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"formula too long: {len(text)} characters (at most {MAX_LENGTH})")
    _check_chars(text)
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m or m.end() == i:
            j = len(text) - len(text[i:].lstrip())
            if j >= len(text):
                break
            ch = text[j]
            hint = _HINTS.get(ch, "")
            raise FormulaError(f"unexpected {ch!r} at position {j}" + (f" ({hint})" if hint else ""))
        kind = m.lastgroup
        yield kind, m.group(kind), m.start(kind)
        i = m.end()


class _Parser:
    def __init__(self, text: str):
        self.stream = tokenize(text)
        self.toks = []
        self.i = 0
        self.depth = 0

    def peek(self):
        if self.i == len(self.toks):
            self.toks.append(next(self.stream, ("end", "", -1)))
        return self.toks[self.i]

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, op: str):
        kind, s, pos = self.take()
        if s != op or kind != "op":
            where = f"at position {pos}" if pos >= 0 else "at the end"
            raise FormulaError(f"expected {op!r} {where}, found {s!r}" if s else f"expected {op!r} {where}")

    def nest(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError(f"formula nested too deeply (at most {MAX_DEPTH} levels)")

    def expr(self):
        self.nest()
        e = self.term()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.take()[1]
            e = Expr(op, (e, self.term()))
        self.depth -= 1
        return e

    def term(self):
        e = self.unary()
        while self.peek()[1] in ("*", "/") and self.peek()[0] == "op":
            op = self.take()[1]
            e = Expr(op, (e, self.unary()))
        return e

    def unary(self):
        kind, s, _ = self.peek()
        if kind == "op" and s in ("+", "-"):
            self.take()
            self.nest()
            u = self.unary()
            self.depth -= 1
            return u if s == "+" else Expr("neg", (u,))
        return self.power()

    def power(self):
        base = self.atom()
        kind, s, pos = self.peek()
        if kind == "op" and s in ("**", "^"):
            self.take()
            self.nest()
            p = self.unary()
            self.depth -= 1
            v = constant_value(p)
            if v is not None and not (abs(v) <= MAX_EXPONENT):
                shown = f"{v:.6g}" if math.isfinite(v) else "not a finite number"
                raise FormulaError(f"exponent at position {pos} is {shown}: |exponent| must be at most {MAX_EXPONENT:g}")
            return Expr("**", (base, p))
        return base

    def atom(self):
        kind, s, pos = self.take()
        if kind == "num":
            v = float(s)
            if not math.isfinite(v):
                raise FormulaError(f"number {s} at position {pos} is too large")
            e = num(v)
        elif kind == "name":
            if s in VARIABLES:
                e = Expr(s)
            elif s in CONSTANTS:
                e = num(CONSTANTS[s])
            elif s in FUNCTIONS:
                e = self.call(s, pos)
            else:
                raise FormulaError(f"unknown name {s!r} at position {pos}; allowed: {_allowed()}")
        elif kind == "op" and s == "(":
            e = self.expr()
            self.expect(")")
        elif kind == "end":
            raise FormulaError("the formula ends too early" if len(self.toks) > 1 else "the formula is empty")
        else:
            raise FormulaError(f"unexpected {s!r} at position {pos}")
        kind, s, pos = self.peek()
        if kind in ("num", "name") or (kind == "op" and s == "("):
            raise FormulaError(f"unexpected {s!r} at position {pos}: write * for a product")
        return e

    def call(self, name: str, pos: int):
        kind, s, p = self.peek()
        if not (kind == "op" and s == "("):
            raise FormulaError(f"function {name} at position {pos} needs parentheses: {name}(...)")
        self.take()
        args = [self.expr()]
        while self.peek()[1] == "," and self.peek()[0] == "op":
            self.take()
            args.append(self.expr())
        self.expect(")")
        n = FUNCTIONS[name]
        if len(args) != n:
            raise FormulaError(f"{name} takes {n} argument{'s' if n > 1 else ''}, got {len(args)} (at position {pos})")
        return Expr(name, tuple(args))

    def parse(self) -> Expr:
        e = self.expr()
        kind, s, pos = self.peek()
        if kind != "end":
            hint = " (commas separate the arguments of max and min only)" if s == "," else ""
            raise FormulaError(f"unexpected {s!r} at position {pos}{hint}")
        return e


def parse(text: str) -> Expr:
    """The tree of a formula in x (and a); FormulaError with a one-line reason otherwise."""
    e = _Parser(text).parse()
    if size(e) > MAX_NODES:
        raise FormulaError(f"formula too large: {size(e)} nodes (at most {MAX_NODES})")
    return e
