"""Generate src/gelu_lab/native_tables.h, the constants of the native float32 kernel (native.c),
and src/gelu_lab/data/native_tables.json, the same main-pass tables and tiers for the GPU kernel
(gelu_lab.gpu, which reads no C header and imports no numba).

    .venv/bin/python tools/gen_native_tables.py              (~2.5 min; both files are committed)
    .venv/bin/python tools/gen_native_tables.py --json-only  (the JSON from the committed header)

The fits are not reproducible to the last bit across NumPy/BLAS builds, and
the header's bounds were checked exhaustively (bench/exhaustive_native.py):
a new header needs that check again, so --json-only rebuilds the JSON from
the header as it is.

Main range |x| < SAT. Both functions are fitted on the negative half only and
the positive half comes from a symmetry, so 16 sub-ranges cover half the width
(and so allow a lower degree) that they would cover on the whole range:

    gelu:       GELU(x)  = x + GELU(-x)         (x Phi(x) - x = -x Phi(-x))
    gelu_grad:  GELU'(x) = 1 - GELU'(-x)        (Phi + x phi: Phi(-x) = 1 - Phi(x), x phi even*odd)

With a = |x| and na = -a, sub-range k = round(a / W) in 0..15 (W a multiple
of 2^-10 just above SAT / 15.5), read off the low bits of a/W + 1.5*2^52, so
the table index is the low four bits of that double (one vpermt2pd per
coefficient in the AVX-512 kernel). On each, with t = na + k W (exact: W has
few bits),

    gelu:       Phi(na)                ~ P_k(t),   GELU  = xpos + na P_k(t)
    gelu_grad:  GELU'(na)/(na - x0)    ~ P_k(t),   GELU' = x <= 0 ? d P_k(t) : 1 - d P_k(t),
                                                   d = (na - x0_hi) - x0_lo

(xpos = max(x, 0); x0 = -0.75179..., GELU's root: dividing it out leaves a
smooth function, so the relative error holds through the root). On the
positive half the symmetry's sum is at least as large as the fitted term, so
the fit's relative error bounds the result's. P_k has degree DEG, a minimax fit
to relative error (Lawson's iteratively reweighted least squares on Chebyshev
points, mpmath values). EPS[k] bounds P_k's relative error: twice the largest
error measured against mpmath on 3000 float32 points of the sub-range (plus
its ends), plus 1e-14 for the float64 roundings of the evaluation. The
kernel's rounding test uses EPS[k] (the AVX-512 one as EBITS[k] =
ceil(EPS[k] 2^53) + 1 units in the last place of the float64 value); an input
whose interval does not decide is settled by the general path (the FAST/TIGHT
tiers of gelu_lab.kernels, ported to C).

The AVX2 kernel has tables of its own (fine_tables): FINE_N = 1024 sub-ranges
of width FW (a multiple of 2^-15, so that t is exact in float32 as well) on the
signed x, k = round(x / FW) in -511..511, row k mod 1024, degree FINE_DEG = 3
(row 512 is NaN: the kernel takes x beyond the table there, so that those
inputs are undecided).
AVX2 has no permute across 16 doubles: a lane loads its sub-range's row, and
each instruction saved per lane counts (native.c, main_avx2_body), so these
fit the function itself, with no symmetry and no factor to apply afterwards:
GELU(x) ~ P_k(t) and GELU'(x) ~ P_k(t), t = x - k FW, to an absolute error
(GELU' has a root and GELU a zero: a relative bound fails there, an absolute
one leaves only the inputs nearest them undecided). Sub-range 0 of GELU is
t R(t), R ~ Phi of degree 2, with a bound relative to x (FE0 |x|), so that
inputs down to 2^-100 are decided. The bounds FE[g], one for each of
FINE_GROUPS groups of FINE_N / FINE_GROUPS consecutive rows (the largest of
theirs: eps_of of the measured error), are float32, rounded up.

Saturation thresholds (proved with mpmath, Q(a) = Phi(-a)):
    gelu       x >= SAT:  x Q(x) < ulp(x)/2       -> GELU = x
               x <  ZERO: |x Q(-x)|... < 2^-150   -> GELU = -0
    gelu_grad  x >= SAT:  x phi - Q < 2^-24      -> GELU' = 1
               x <  ZERO: |GELU'(x)| < 2^-150     -> GELU' = -0
"""

from __future__ import annotations

import json
import pathlib
import sys

import mpmath
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from gelu_lab import kernels, numerics as nm  # noqa: E402

mpmath.mp.dps = 40
DEG = 8  # native.c's Estrin scheme is written out for it
N_SUB = 16
FINE_DEG = 3  # the AVX2 kernel's tables: many narrow sub-ranges, a low degree
FINE_N = 1024  # k in -511..511, row k mod FINE_N
FINE_GROUPS = 8  # its bounds: one for each run of FINE_N / FINE_GROUPS sub-ranges
X0 = mpmath.findroot(lambda t: mpmath.ncdf(t) + t * mpmath.npdf(t), mpmath.mpf("-0.7517915"))
X0_HI, X0_LO = nm.grad_root_series()[:2]


def gelu_phi(na):
    return mpmath.ncdf(na)


def gelu(x):
    return x * mpmath.ncdf(x)


def grad(x):
    return mpmath.ncdf(x) + x * mpmath.npdf(x)


def grad_ratio(na):
    if abs(na - X0) < mpmath.mpf("1e-25"):
        na = X0 + mpmath.mpf("1e-25")
    return grad(na) / (na - X0)


FUNCS = {"gelu": gelu_phi, "grad": grad_ratio}


def width(sat: float, n: int = N_SUB, bits: int = 10) -> float:
    """W: the multiple of 2^-bits (so k W and t = na + k W are exact) that puts SAT just inside sub-range n - 1."""
    w = float(np.ceil(sat / (n - 0.5 - 1e-3) * 2.0**bits) / 2.0**bits)
    assert sat / w < n - 0.5
    return w


def fit(f, lo, hi, e, deg=DEG, npts=160, rounds=25, nchk=3000, rel=True):
    """Coefficients in t = na - e (low first) of P on na in [lo, hi], and its measured max
    relative error (rel=False: absolute)."""
    pad = (hi - lo) * 2e-3  # a rounded k may miss its sub-range by a hair: fit a little wider
    lo, hi = lo - pad, hi + pad
    u = np.cos(np.pi * (np.arange(npts) + 0.5) / npts)
    na = (lo + hi) / 2 + u * (hi - lo) / 2
    y = np.array([float(f(mpmath.mpf(float(v)))) for v in na])
    scale = max(abs(lo - e), abs(hi - e))
    a = np.vander((na - e) / scale, deg + 1, increasing=True)
    a, b = (a / y[:, None], np.ones(npts)) if rel else (a, y)
    wt = np.ones(npts)
    for _ in range(rounds):  # Lawson: weights follow the error, towards equal ripple
        c, *_ = np.linalg.lstsq(a * np.sqrt(wt)[:, None], b * np.sqrt(wt), rcond=None)
        r = np.abs(a @ c - b)
        if not np.sum(wt * r) > 0:  # exact at every point (GELU = x to the last bit): done
            break
        # a floor: a point fitted exactly (GELU near SAT is x in float64) keeps a say
        wt = np.maximum(wt * r / np.sum(wt * r), 1e-9 / npts)
    coef = c / scale ** np.arange(deg + 1)
    rng = np.random.default_rng(int(1000 * (lo + 20)))
    xs = np.concatenate([rng.uniform(lo, hi, nchk), [lo, hi, (lo + hi) / 2]]).astype(np.float32).astype(np.float64)
    t = xs - e
    p = np.zeros_like(t)
    for cj in coef[::-1]:
        p = p * t + cj
    err = 0.0
    for pv, xv in zip(p, xs):
        fx = f(mpmath.mpf(float(xv)))
        err = max(err, abs(float((mpmath.mpf(float(pv)) - fx) / (fx if rel else 1))))
    return coef, err


def f32_threshold(pred, lo, hi):
    """Smallest float32 x in [lo, hi] with pred(x) (pred monotone: false below, true above)."""
    a, b = np.float32(lo), np.float32(hi)
    assert not pred(a) and pred(b)
    while np.nextafter(a, b) != b:
        m = np.float32((float(a) + float(b)) / 2)
        if m == a or m == b:
            break
        a, b = (m, b) if not pred(m) else (a, m)
    return float(b)


def largest_f32_below(pred, lo, hi):
    """Largest float32 x in [lo, hi] with pred(x) (pred true below, false above)."""
    a, b = np.float32(lo), np.float32(hi)
    assert pred(a) and not pred(b)
    while True:
        m = np.float32((float(a) + float(b)) / 2)
        if m == a or m == b:
            return float(a)
        a, b = (m, b) if pred(m) else (a, m)


def q(x):
    return mpmath.ncdf(-mpmath.mpf(float(x)))


def thresholds():
    tiny = mpmath.mpf(2) ** -150
    # gelu: x Q(x) < ulp(x)/2 = 2^-22 for x in [4, 8): x(1 - Q) rounds to x
    g_sat = f32_threshold(lambda x: float(x) * q(x) < mpmath.mpf(2) ** -22, 4.5, 7.5)
    # gelu: |x Phi(x)| < 2^-150 for x < ZERO: rounds to -0 (x Phi(x) decreases in |x| there)
    g_zero = largest_f32_below(lambda x: abs(mpmath.mpf(float(x)) * mpmath.ncdf(float(x))) < tiny, -20, -10)
    d_sat = f32_threshold(lambda x: float(x) * mpmath.npdf(float(x)) - q(x) < mpmath.mpf(2) ** -24, 4.5, 7.5)
    d_zero = largest_f32_below(lambda x: abs(mpmath.ncdf(float(x)) + float(x) * mpmath.npdf(float(x))) < tiny, -20, -10)
    return {"gelu": (g_sat, g_zero), "grad": (d_sat, d_zero)}


def c_array(name, vals, fmt="{!r}"):
    body = ", ".join(fmt.format(float(v)) for v in vals)
    return f"static const double {name}[{len(vals)}] = {{{body}}};\n"


def eps_of(err: float) -> float:
    """A fit's bound from its measured maximum relative error: twice it, plus the evaluation's roundings."""
    return 2 * err + 1e-14


def ebits_of(eps: float) -> int:
    """The same bound in units of the last place of the float64 value g: |error| <= eps |g|
    <= eps 2^53 ulp(g); the kernels compare g's 29 discarded bits with the midpoint, as int32."""
    b = int(np.ceil(eps * 2.0**53)) + 1
    assert b < 2**31
    return b


def f32_up(v: float) -> float:
    """The smallest float32 >= v."""
    f = np.float32(v)
    return float(f if float(f) >= v else np.nextafter(f, np.float32(np.inf)))


def fine_tables(name, sat):
    """The AVX2 kernel's tables (module docstring): FINE_N rows of FINE_DEG + 1 coefficients
    on sub-ranges of width FW of the signed x, and their bounds."""
    up = name.upper()
    w = width(sat, FINE_N // 2, 15)
    coefs = np.zeros((FINE_DEG + 1, FINE_N))
    coefs[:, FINE_N // 2] = np.nan  # the row beyond the table (k = +-512): its inputs undecided
    bound = np.zeros(FINE_N)  # absolute
    fe0 = None
    for r in range(FINE_N):
        k = r if r < FINE_N // 2 else r - FINE_N
        lo, hi = (k - 0.5) * w, (k + 0.5) * w
        if k == -FINE_N // 2:  # the NaN row above
            continue
        if name == "gelu" and k == 0:  # t R(t), R ~ Phi: relative to GELU(t) down to t = 0
            c, err = fit(gelu_phi, lo, hi, 0.0, deg=FINE_DEG - 1, npts=40, nchk=1000)
            coefs[1:, r] = c
            phi_max = float(mpmath.ncdf(hi * 1.01))
            fe0 = f32_up(eps_of(err) * phi_max * (1 + 2.0**-18))  # |error| <= FE0 |x|, float32 product rounding included
        else:
            c, err = fit(gelu if name == "gelu" else grad, lo, hi, k * w, deg=FINE_DEG, npts=40, nchk=1000, rel=False)
            coefs[:, r] = c
            bound[r] = eps_of(err)
    group = FINE_N // FINE_GROUPS
    fe = [f32_up(max(bound[g * group:(g + 1) * group])) for g in range(FINE_GROUPS)]
    out = [f"#define NT_{up}_FW {w!r}\n#define NT_{up}_FINVW {1 / w!r}\n",
           f"static const double NT_{up}_FC[{FINE_DEG + 1}][{FINE_N}] = {{\n"]
    out += ["  {" + ", ".join("NAN" if np.isnan(v) else repr(float(v)) for v in coefs[j]) + "},\n" for j in range(FINE_DEG + 1)]
    out.append("};\n")
    out.append(f"static const float NT_{up}_FE[{FINE_GROUPS}] = {{{', '.join(repr(v) + 'f' for v in fe)}}};\n")
    if fe0 is not None:
        out.append(f"#define NT_{up}_FE0 {fe0!r}\n")  # a float32 value
    print(f"{name} fine: {FINE_N} sub-ranges of {w}, absolute group bounds 2^"
          + " ".join(f"{np.log2(e):.1f}" for e in fe) + (f", sub-range 0: 2^{np.log2(fe0):.1f} |x|" if fe0 else ""),
          file=sys.stderr)
    return out


def main():
    th = thresholds()
    out = ["/* Generated by tools/gen_native_tables.py: do not edit. */\n",
           "#define NT_DEG %d\n#define NT_N_SUB %d\n" % (DEG, N_SUB),
           "#define NT_FINE_DEG %d\n#define NT_FINE_N %d\n#define NT_FINE_GROUPS %d\n" % (FINE_DEG, FINE_N, FINE_GROUPS)]
    for name, f in FUNCS.items():
        sat, zero = th[name]
        w = width(sat)
        coefs = np.zeros((DEG + 1, N_SUB))  # [j][k]
        eps = np.zeros(N_SUB)
        for k in range(N_SUB):  # |x| in [(k - 1/2) W, (k + 1/2) W), the first from 0
            lo, hi = max(k - 0.5, 0.0) * w, (k + 0.5) * w
            c, err = fit(f, -hi, -lo, -k * w)
            coefs[:, k] = c
            eps[k] = eps_of(err)
            print(f"{name} k={k:2d} |x| in [{lo:.4f}, {hi:.4f}) max rel err {err:.2e}", file=sys.stderr)
        up = name.upper()
        out.append(f"#define NT_{up}_W {w!r}\n#define NT_{up}_INVW {1 / w!r}\n")
        out.append(f"#define NT_{up}_SAT {sat!r}\n#define NT_{up}_ZERO {zero!r}\n")
        out.append(f"static const double NT_{up}_C[{DEG + 1}][{N_SUB}] = {{\n")
        for j in range(DEG + 1):
            out.append("  {" + ", ".join(repr(float(v)) for v in coefs[j]) + "},\n")
        out.append("};\n")
        out.append(c_array(f"NT_{up}_EPS", eps))
        ebits = [ebits_of(e) for e in eps]
        out.append(f"static const int32_t NT_{up}_EBITS[{N_SUB}] = {{{', '.join(str(b) for b in ebits)}}};\n")
        out += fine_tables(name, sat)
    out.append(f"#define NT_X0_HI {X0_HI!r}\n#define NT_X0_LO {X0_LO!r}\n")
    # the general path: kernels.FAST and kernels.TIGHT, two Horner chains each
    for tier in ("FAST", "TIGHT"):
        fit_ = getattr(kernels, tier)
        out.append(f"#define NT_{tier}_MAPC {fit_.map_c!r}\n#define NT_{tier}_REL {fit_.rel_err!r}\n")
        out.append(f"#define NT_{tier}_HM {fit_.h.shape[1]}\n#define NT_{tier}_EM {fit_.exp.shape[1]}\n")
        out.append(c_array(f"NT_{tier}_H0", fit_.h[0]) + c_array(f"NT_{tier}_H1", fit_.h[1]))
        out.append(c_array(f"NT_{tier}_E0", fit_.exp[0]) + c_array(f"NT_{tier}_E1", fit_.exp[1]))
    rc = kernels._ROOT_C
    out.append(f"#define NT_ROOT_M {rc.shape[1]}\n#define NT_ROOT_RADIUS {nm.GRAD_ROOT_RADIUS!r}\n")
    out.append(c_array("NT_ROOT0", rc[0]) + c_array("NT_ROOT1", rc[1]))
    out.append(f"#define NT_A_CUT {kernels.A_CUT!r}\n#define NT_TINY {nm.TINY!r}\n#define NT_INV_SQRT_2PI {nm.INV_SQRT_2PI!r}\n")
    path = ROOT / "src" / "gelu_lab" / "native_tables.h"
    path.write_text("".join(out))
    write_json()
    print(f"wrote {path} and native_tables.json; thresholds {th}", file=sys.stderr)


def json_from_header() -> dict:
    """The JSON read back from the committed header: what the C kernel runs, the GPU kernel runs."""
    import re

    text = (ROOT / "src" / "gelu_lab" / "native_tables.h").read_text()

    def define(name):
        return float(re.search(rf"#define NT_{name} (\S+)", text).group(1))

    def array(name):
        body = re.search(rf"NT_{name}\[[^=]*= \{{(.*?)\}};", text, re.S).group(1)
        rows = re.findall(r"\{([^{}]*)\}", body) or [body]
        vals = [[float(v) for v in r.split(",")] for r in rows]
        return vals if len(vals) > 1 else vals[0]

    data = {}
    for name in ("gelu", "grad"):
        up = name.upper()
        data[name] = {"w": define(f"{up}_W"), "invw": define(f"{up}_INVW"), "sat": define(f"{up}_SAT"),
                      "zero": define(f"{up}_ZERO"), "c": array(f"{up}_C"), "eps": array(f"{up}_EPS"),
                      "ebits": [int(v) for v in array(f"{up}_EBITS")]}
    for tier in ("FAST", "TIGHT"):
        data[tier.lower()] = {"map_c": define(f"{tier}_MAPC"), "rel": define(f"{tier}_REL"),
                              "h": [array(f"{tier}_H0"), array(f"{tier}_H1")], "exp": [array(f"{tier}_E0"), array(f"{tier}_E1")]}
    data.update(deg=DEG, n_sub=N_SUB, x0=[define("X0_HI"), define("X0_LO")],
                root={"radius": define("ROOT_RADIUS"), "c": [array("ROOT0"), array("ROOT1")]},
                a_cut=define("A_CUT"), tiny=define("TINY"), inv_sqrt_2pi=define("INV_SQRT_2PI"))
    return data


def write_json() -> None:
    (ROOT / "src" / "gelu_lab" / "data" / "native_tables.json").write_text(json.dumps(json_from_header(), indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--json-only"]:
        write_json()
    else:
        main()
