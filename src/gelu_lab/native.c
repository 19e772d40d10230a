/* gelu_lab._native: correctly rounded float32 GELU and GELU' (and the 16-bit
 * table lookups) in C, one variant per instruction set, chosen at run time.
 *
 *   f32(fn, variant, x, y, undecided[, threads]) -> count  fn 0 = gelu, 1 = gelu_grad
 *   lookup16(table, bits, out, variant[, threads])       out[i] = table[bits[i]] (every variant: plain loads)
 *   variants() -> names this CPU runs                    ("avx512", "avx2", "scalar", "scalar-libm")
 *   VARIANT_NAMES                                        every variant's name, by its number (f32's variant)
 *   MIN_PART                                             the fewest inputs f32 gives a thread (fewer: one thread)
 *   openmp() -> whether `threads` runs OpenMP threads    (built without OpenMP: one thread)
 *
 * x, y: float32 buffers of one length; y receives the values. count: how many
 * inputs this module could not decide (gelu_lab.core settles them with
 * gelu_lab.reference); undecided, an int64 buffer, receives their positions,
 * in no order, as many as it holds (a count beyond its size: call again with
 * more room). The GIL is released.
 *
 * Method (constants in native_tables.h, made by tools/gen_native_tables.py),
 * per block of BLOCK inputs:
 *   1. the main pass, every variant: x >= SAT -> the limit (x or 1);
 *      x < ZERO -> -0; |x| < SAT -> a degree-8 polynomial in t on one of 16
 *      sub-ranges of |x| of width W picked by the low bits of |x|/W + 1.5*2^52
 *      (AVX-512: coefficients from registers by vpermt2pd), fitted on the
 *      negative half only: with na = -|x|, GELU = max(x, 0) + na P(t) and
 *      GELU' = d P(t) (x <= 0) or 1 - d P(t) (x > 0), d = na - x0; the value
 *      is rounded once to float32 and kept where a Ziv test with the
 *      sub-range's bound EPS[k] decides; every other input (the tail, nan,
 *      for GELU |x| < 2^-100, an undecided rounding) is listed. AVX2 instead:
 *      a degree-3 polynomial of x itself on one of 1024 sub-ranges of width
 *      FW of the signed x, coefficients from each lane's row of a table, with
 *      an absolute bound; x < ZERO listed, GELU' = 1 from the table
 *      (main_avx2_body).
 *   2. the listed inputs, gathered while the block is in cache: the FAST tier
 *      for GELU (TIGHT in avx2, whose main pass lists more), the TIGHT tier
 *      for GELU', vectorised (avx512, avx2); what is left by the scalar tiers
 *      (scalar: all of it; avx2: none, its vector tier being TIGHT already);
 *      what TIGHT cannot decide is returned as undecided.
 * Error bounds: EPS[k] (and the AVX2 tables' FE[g], FE0) is twice the fit's
 * measured maximum plus 1e-14; the tiers' are gelu_lab.kernels' (tested against mpmath). bench/exhaustive_native.py
 * checks every variant on all 2^32 float32 inputs against the numba kernel.
 *
 * "scalar" is portable C with fma(); where the CPU has FMA it is compiled a
 * second time with fma() as one instruction, and "scalar" runs that build
 * ("scalar-libm" the other: the same results, fma being correctly rounded).
 * Compiled without -ffast-math and with -ffp-contract=off: every fused
 * multiply-add is written as one (fma(), _mm*_fmadd_pd).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "native_tables.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define GL_X86 1
#include <immintrin.h>
#endif

#define BLOCK 2048
#define AI __attribute__((always_inline)) static inline

enum { FN_GELU = 0, FN_GRAD = 1 };
enum { V_SCALAR = 0, V_AVX2 = 1, V_AVX512 = 2, V_SCALAR_LIBM = 3 };

static const double MAGIC = 6755399441055744.0; /* 1.5 * 2^52 */
static const int64_t MAGIC_BITS = 0x4338000000000000LL;
static const double LN2 = 0.6931471805599453;

AI int64_t bits_of(double v) { int64_t b; memcpy(&b, &v, 8); return b; }
AI double from_bits(int64_t b) { double v; memcpy(&v, &b, 8); return v; }

/* ---- the general path: gelu_lab.kernels' tiers, one input at a time ---- */

/* sum c_j t^j from two Horner chains in t^2 (c0: even, c1: odd coefficients) */
AI double poly2(const double *c0, const double *c1, int m, double t) {
    double t2 = t * t, p0 = c0[m - 1], p1 = c1[m - 1];
#pragma GCC unroll 16
    for (int j = m - 2; j >= 0; j--) {
        p0 = fma(p0, t2, c0[j]);
        p1 = fma(p1, t2, c1[j]);
    }
    return fma(t, p1, p0);
}

/* exp(z) for z in [-708, 0]: k = round(z/ln2) from the bits of z/ln2 + 1.5*2^52 */
AI double exp_nonpos(double z, const double *e0, const double *e1, int m) {
    double t = fma(z, 1.4426950408889634, MAGIC);
    double k = t - MAGIC;
    double r = fma(-k, LN2, z);
    return poly2(e0, e1, m, r) * from_bits((bits_of(t) - MAGIC_BITS + 1023) << 52);
}

/* round y to float32 into *out knowing the truth lies in [lo, hi]; 1 if undecided
 * (gelu_lab.rounding.round_flag: below TINY an undecided value is a tie that rounds up) */
AI int round_flag(double x, double y, double lo, double hi, float *out) {
    float lo32 = (float)lo, hi32 = (float)hi;
    int undecided = (lo32 != hi32) && (y == y);
    int tiny = fabs(x) < NT_TINY;
    *out = (undecided && tiny) ? (lo32 > hi32 ? lo32 : hi32) : (float)y;
    return undecided && !tiny;
}

#define TIER(T) NT_##T##_H0, NT_##T##_H1, NT_##T##_HM, NT_##T##_E0, NT_##T##_E1, NT_##T##_EM, NT_##T##_MAPC

AI void half_erfcx_exp(double a, const double *h0, const double *h1, int hm, const double *e0,
                       const double *e1, int em, double c, double *h, double *e) {
    *h = poly2(h0, h1, hm, (a - c) / (a + c));
    *e = exp_nonpos(-0.5 * (a * a), e0, e1, em);
}

AI int gelu_tier(float xf, float *out, const double *h0, const double *h1, int hm, const double *e0,
                 const double *e1, int em, double c, double rel) {
    double x = xf, a = fabs(x), h, e;
    if (!(a < NT_A_CUT)) a = NT_A_CUT; /* nan too */
    half_erfcx_exp(a, h0, h1, hm, e0, e1, em, c, &h, &e);
    double xq = copysign(a, x) * (h * e);
    double g = x <= 0 ? xq : x - xq;
    return round_flag(x, g, g * (1.0 - rel), g * (1.0 + rel), out);
}

AI int grad_tight(float xf, float *out) {
    double x = xf, a = fabs(x), h, e;
    if (!(a < NT_A_CUT)) a = NT_A_CUT;
    half_erfcx_exp(a, TIER(TIGHT), &h, &e);
    double q = h * e, xphi = (x * NT_INV_SQRT_2PI) * e;
    double y = (x < 0 ? q : 1.0 - q) + xphi;
    double err = (q + fabs(xphi)) * NT_TIGHT_REL;
    double d = (x - NT_X0_HI) - NT_X0_LO;
    if (fabs(d) < NT_ROOT_RADIUS) {
        y = poly2(NT_ROOT0, NT_ROOT1, NT_ROOT_M, d);
        err = fabs(y) * 1e-14;
    }
    if (!(fabs(x) < NT_A_CUT)) { /* beyond A_CUT the float32 results are the limits, exactly */
        y = x > 0 ? 1.0 : (x < 0 ? -0.0 : x);
        err = 0.0;
    }
    return round_flag(x, y, y - err, y + err, out);
}

/* the listed positions of a block: values into y, the undecided as base + position */
AI size_t settle_body(int fn, const float *x, float *y, const uint32_t *list, size_t c, int64_t *und, int64_t base) {
    size_t nu = 0;
    for (size_t j = 0; j < c; j++) {
        uint32_t p = list[j];
        int left;
        if (fn == FN_GELU)
            left = gelu_tier(x[p], y + p, TIER(FAST), NT_FAST_REL) && gelu_tier(x[p], y + p, TIER(TIGHT), NT_TIGHT_REL);
        else
            left = grad_tight(x[p], y + p);
        if (left) und[nu++] = base + (int64_t)p;
    }
    return nu;
}

/* list[c...] = base + the positions of m's set bits, in order; returns the new count */
AI size_t push_bits(uint32_t *list, size_t c, size_t base, uint64_t m) {
    for (; m; m &= m - 1) list[c++] = (uint32_t)(base + (size_t)__builtin_ctzll(m));
    return c;
}

/* ---- the main pass, one input: 1 if it must be listed ---- */

/* P(t) of degree 8 by Estrin's scheme, its last coefficient folded in with t^2
 * (8 fma and 2 multiplications; a shorter dependency chain than Horner's 8 fma,
 * which the vector kernel, limited by latency more than by throughput, needs) */
_Static_assert(NT_DEG == 8, "estrin() is written out for degree 8");
#define ESTRIN8(FMA, MUL, c, t)                                                                         \
    do {                                                                                               \
        __typeof__(t) t2_ = MUL(t, t), t4_ = MUL(t2_, t2_);                                            \
        __typeof__(t) q0_ = FMA(c[1], t, c[0]), q1_ = FMA(c[3], t, c[2]), q2_ = FMA(c[5], t, c[4]);    \
        __typeof__(t) q3_ = FMA(c[8], t2_, FMA(c[7], t, c[6]));                                       \
        c[0] = FMA(FMA(q3_, t2_, q2_), t4_, FMA(q1_, t2_, q0_));                                       \
    } while (0)
#define MUL_D(a, b) ((a) * (b))
AI double estrin(double *c, double t) {
    ESTRIN8(fma, MUL_D, c, t);
    return c[0];
}

AI int main_one(int fn, float xf, float *out) {
    const double(*C)[NT_N_SUB] = fn == FN_GELU ? NT_GELU_C : NT_GRAD_C;
    const double *EPS = fn == FN_GELU ? NT_GELU_EPS : NT_GRAD_EPS;
    double w = fn == FN_GELU ? NT_GELU_W : NT_GRAD_W, invw = fn == FN_GELU ? NT_GELU_INVW : NT_GRAD_INVW;
    float sat = (float)(fn == FN_GELU ? NT_GELU_SAT : NT_GRAD_SAT);
    if (xf >= sat) {
        *out = fn == FN_GELU ? xf : 1.0f;
        return 0;
    }
    if (xf < (float)(fn == FN_GELU ? NT_GELU_ZERO : NT_GRAD_ZERO)) {
        *out = -0.0f;
        return 0;
    }
    if (!(fabsf(xf) < sat) || (fn == FN_GELU && fabsf(xf) < 0x1p-100f)) return 1; /* the tail, nan; GELU near 0 */
    double x = xf, na = -fabs(x);
    double s = fma(na, -invw, MAGIC); /* MAGIC + round(|x| / W) */
    double t = fma(s - MAGIC, w, na);
    int i = (int)(bits_of(s) & (NT_N_SUB - 1));
    double c[NT_DEG + 1];
    for (int j = 0; j <= NT_DEG; j++) c[j] = C[j][i];
    double p = estrin(c, t), g;
    if (fn == FN_GELU)
        g = fma(na, p, x > 0 ? x : 0.0); /* GELU(x) = xpos + GELU(-|x|) */
    else {
        g = ((na - NT_X0_HI) - NT_X0_LO) * p; /* GELU'(-|x|) */
        if (x > 0) g = 1.0 - g;
    }
    float lo32 = (float)fma(-fabs(g), EPS[i], g), hi32 = (float)fma(fabs(g), EPS[i], g);
    if (lo32 != hi32) return 1;
    *out = hi32;
    return 0;
}

AI size_t main_scalar_body(int fn, const float *x, float *y, size_t n, uint32_t *list) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (main_one(fn, x[i], y + i)) list[c++] = (uint32_t)i;
    return c;
}

typedef size_t (*main_fn)(const float *, float *, size_t, uint32_t *);
typedef size_t (*settle_fn)(const float *, float *, const uint32_t *, size_t, int64_t *, int64_t);

#define INSTANTIATE(SUFFIX, ATTR, MAIN_BODY)                                                                      \
    ATTR static size_t main_gelu_##SUFFIX(const float *x, float *y, size_t n, uint32_t *l) {                   \
        return MAIN_BODY(FN_GELU, x, y, n, l);                                                                   \
    }                                                                                                            \
    ATTR static size_t main_grad_##SUFFIX(const float *x, float *y, size_t n, uint32_t *l) {                   \
        return MAIN_BODY(FN_GRAD, x, y, n, l);                                                                   \
    }                                                                                                            \
    ATTR __attribute__((unused)) static size_t settle_gelu_##SUFFIX(const float *x, float *y, const uint32_t *l, size_t c, int64_t *u, \
                                            int64_t b) {                                                         \
        return settle_body(FN_GELU, x, y, l, c, u, b);                                                           \
    }                                                                                                            \
    ATTR __attribute__((unused)) static size_t settle_grad_##SUFFIX(const float *x, float *y, const uint32_t *l, size_t c, int64_t *u, \
                                            int64_t b) {                                                         \
        return settle_body(FN_GRAD, x, y, l, c, u, b);                                                           \
    }

INSTANTIATE(scalar, , main_scalar_body)

#ifdef GL_X86
/* the same scalar code where the CPU has FMA: fma() becomes one instruction (the
 * results are identical, fma being correctly rounded either way, only faster) */
#define T_FMA __attribute__((target("fma")))
INSTANTIATE(scalarfma, T_FMA, main_scalar_body)

/* ---- AVX2 + FMA: 4 lanes ----
 * The main pass and its settling as in the AVX-512 kernel below, at half the
 * width, bound by its float64 work (docs/measurements.md: its speed; docs/decisions.md: its form). */
#define T_AVX2 __attribute__((target("avx2,fma")))

T_AVX2 AI __m256d poly2_256(const double *c0, const double *c1, int m, __m256d t) {
    __m256d t2 = _mm256_mul_pd(t, t), p0 = _mm256_set1_pd(c0[m - 1]), p1 = _mm256_set1_pd(c1[m - 1]);
#pragma GCC unroll 16
    for (int j = m - 2; j >= 0; j--) {
        p0 = _mm256_fmadd_pd(p0, t2, _mm256_set1_pd(c0[j]));
        p1 = _mm256_fmadd_pd(p1, t2, _mm256_set1_pd(c1[j]));
    }
    return _mm256_fmadd_pd(t, p1, p0);
}

T_AVX2 AI __m256d exp_nonpos_256(__m256d z, const double *e0, const double *e1, int m) {
    const __m256d magic = _mm256_set1_pd(MAGIC);
    __m256d t = _mm256_fmadd_pd(z, _mm256_set1_pd(1.4426950408889634), magic);
    __m256d r = _mm256_fnmadd_pd(_mm256_sub_pd(t, magic), _mm256_set1_pd(LN2), z);
    __m256i b = _mm256_slli_epi64(_mm256_add_epi64(_mm256_castpd_si256(t), _mm256_set1_epi64x(1023 - MAGIC_BITS)), 52);
    return _mm256_mul_pd(poly2_256(e0, e1, m, r), _mm256_castsi256_pd(b));
}

/* 4 lanes of gelu_tier or grad_tight (its root series included), both with the
 * TIGHT tier: the AVX2 main pass lists inputs within its bound of a midpoint
 * (about 2^-36 to 2^-26 of the value), and FAST's bound (3.5e-10) would leave
 * many of them to the scalar tier; the absolute bound of GELU' there lists a share
 * of the inputs near its root, which the scalar tier would take one by one.
 * *flag: bits of the undecided lanes */
T_AVX2 AI __m128 tier_256(int fn, __m128 xf, unsigned *flag) {
    const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
    __m256d x = _mm256_cvtps_pd(xf), ax = _mm256_andnot_pd(sign, x);
    __m256d a = _mm256_min_pd(ax, _mm256_set1_pd(NT_A_CUT)); /* nan -> A_CUT */
    const double c = NT_TIGHT_MAPC, rel = NT_TIGHT_REL;
    __m256d y = _mm256_div_pd(_mm256_sub_pd(a, _mm256_set1_pd(c)), _mm256_add_pd(a, _mm256_set1_pd(c)));
    __m256d h = poly2_256(NT_TIGHT_H0, NT_TIGHT_H1, NT_TIGHT_HM, y);
    __m256d z = _mm256_mul_pd(_mm256_set1_pd(-0.5), _mm256_mul_pd(a, a));
    __m256d e = exp_nonpos_256(z, NT_TIGHT_E0, NT_TIGHT_E1, NT_TIGHT_EM);
    __m256d q = _mm256_mul_pd(h, e), v, lo, hi;
    if (fn == FN_GELU) {
        __m256d xq = _mm256_mul_pd(_mm256_or_pd(a, _mm256_and_pd(x, sign)), q);
        v = _mm256_blendv_pd(_mm256_sub_pd(x, xq), xq, _mm256_cmp_pd(x, zero, _CMP_LE_OQ));
        lo = _mm256_mul_pd(v, _mm256_set1_pd(1.0 - rel));
        hi = _mm256_mul_pd(v, _mm256_set1_pd(1.0 + rel));
    } else {
        __m256d xphi = _mm256_mul_pd(_mm256_mul_pd(x, _mm256_set1_pd(NT_INV_SQRT_2PI)), e);
        __m256d neg = _mm256_cmp_pd(x, zero, _CMP_LT_OQ);
        v = _mm256_add_pd(_mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(1.0), q), q, neg), xphi);
        __m256d err = _mm256_mul_pd(_mm256_add_pd(q, _mm256_andnot_pd(sign, xphi)), _mm256_set1_pd(NT_TIGHT_REL));
        __m256d d = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_set1_pd(NT_X0_HI)), _mm256_set1_pd(NT_X0_LO));
        __m256d root = _mm256_cmp_pd(_mm256_andnot_pd(sign, d), _mm256_set1_pd(NT_ROOT_RADIUS), _CMP_LT_OQ);
        /* every time, not under a branch: a quarter of GELU''s listed inputs lie
         * near the root, so most steps have one, and the branch mispredicted */
        __m256d yr = poly2_256(NT_ROOT0, NT_ROOT1, NT_ROOT_M, d);
        v = _mm256_blendv_pd(v, yr, root);
        err = _mm256_blendv_pd(err, _mm256_mul_pd(_mm256_andnot_pd(sign, yr), _mm256_set1_pd(1e-14)), root);
        __m256d far = _mm256_cmp_pd(ax, _mm256_set1_pd(NT_A_CUT), _CMP_NLT_UQ); /* |x| >= A_CUT or nan */
        __m256d lim = _mm256_blendv_pd(_mm256_set1_pd(1.0), sign, neg);
        lim = _mm256_blendv_pd(lim, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
        v = _mm256_blendv_pd(v, lim, far);
        err = _mm256_andnot_pd(far, err); /* the limits are exact */
        lo = _mm256_sub_pd(v, err);
        hi = _mm256_add_pd(v, err);
    }
    __m128 lo32 = _mm256_cvtpd_ps(lo), hi32 = _mm256_cvtpd_ps(hi);
    __m128 und = _mm_cmp_ps(lo32, hi32, _CMP_NEQ_OQ); /* nan: decided */
    __m128 tiny = _mm_cmp_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), xf), _mm_set1_ps((float)NT_TINY), _CMP_LT_OQ);
    *flag = (unsigned)_mm_movemask_ps(_mm_andnot_ps(tiny, und));
    return _mm_blendv_ps(_mm256_cvtpd_ps(v), _mm_max_ps(lo32, hi32), _mm_and_ps(und, tiny));
}

/* The AVX2 main pass has tables of its own (NT_*_FC: 1024 sub-ranges of width
 * FW of the signed x, degree 3; native_tables.h). AVX2 has no permute across
 * 16 doubles, so each lane's coefficients are loaded from its sub-range's row
 * (4 coefficients: 2 pairs of loads and in-lane shuffles; lane-crossing
 * permutes and gathers are slow on some AVX2 cores), and that fetch is most of
 * the work: the rows fit GELU and GELU' themselves, to an absolute error, so
 * nothing is applied after P(t) (no symmetry, no root factor). Two passes over
 * each chunk of CHUNK inputs:
 *   1. 8 float32 lanes: x clamped to [-512 FW, 512 FW] (nan to -512 FW; GELU'
 *      to 511.25 FW above, where it rounds to 1 as at every x >= SAT),
 *      k = round(x / FW) from the bits of x/FW + 1.5*2^23, row k mod 1024 (row
 *      512, beyond the table, is NaN: its inputs, x < ZERO too, are listed,
 *      and the tiers give the tail and -0); t = x - k FW (exact in
 *      float32: FW is a multiple of 2^-15 and |t| <= |x|); the row's byte
 *      offset and the bound e: its group's (8 values in a register, permuted by
 *      row / 128), in GELU's row 0 FE0 |x| + 2^-120 instead (relative: GELU(0)
 *      = 0; |x| < 2^-100 and 0 stay undecided);
 *   2. 4 float64 lanes: each lane's row through a scalar load of its offset (no
 *      transfer from vector to integer registers on the way to the loads), P(t);
 *      P - e and P + e rounded to float32: where the two agree, that is the
 *      correct rounding (an absolute bound holds through the root of GELU'), else the
 *      input is listed; GELU's x >= SAT by a blend.
 * k may differ from x / FW rounded by one where that is within a rounding of a
 * half-integer: the fits cover their sub-ranges with a margin. */
#define FROW 4 /* doubles a row: the coefficients */
#define CHUNK 512
_Static_assert(NT_FINE_DEG + 1 == FROW && NT_FINE_N == 1024 && NT_FINE_GROUPS == 8,
               "rows_poly_4 and main_avx2_body are written for 1024 rows of degree 3 in 8 groups");
static double ROWS[2][NT_FINE_N][FROW] __attribute__((aligned(32)));

static void fill_rows(void) {
    for (int k = 0; k < NT_FINE_N; k++)
        for (int j = 0; j < FROW; j++) {
            ROWS[FN_GELU][k][j] = NT_GELU_FC[j][k];
            ROWS[FN_GRAD][k][j] = NT_GRAD_FC[j][k];
        }
}

/* P(t) of 4 lanes, each on the row at its byte offset off[] */
T_AVX2 AI __m256d rows_poly_4(__m256d t, const char *rows, const uint32_t *off) {
    const double *r0 = (const double *)(rows + off[0]), *r1 = (const double *)(rows + off[1]);
    const double *r2 = (const double *)(rows + off[2]), *r3 = (const double *)(rows + off[3]);
    __m256d cf[FROW]; /* rows r0 | r2 and r1 | r3 loaded as halves, then interleaved */
#pragma GCC unroll 4
    for (int j = 0; j < FROW; j += 2) {
        __m256d a = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_load_pd(r0 + j)), _mm_load_pd(r2 + j), 1);
        __m256d b = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_load_pd(r1 + j)), _mm_load_pd(r3 + j), 1);
        cf[j] = _mm256_unpacklo_pd(a, b);
        cf[j + 1] = _mm256_unpackhi_pd(a, b);
    }
    __m256d t2 = _mm256_mul_pd(t, t);
    return _mm256_fmadd_pd(_mm256_fmadd_pd(cf[3], t, cf[2]), t2, _mm256_fmadd_pd(cf[1], t, cf[0]));
}

/* 8 float64 values rounded to float32 */
T_AVX2 AI __m256 f32_8(__m256d lo, __m256d hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
}

T_AVX2 AI size_t main_avx2_body(int fn, const float *x, float *y, size_t n, uint32_t *list) {
    const char *rows = (const char *)ROWS[fn];
    const float satf = (float)(fn == FN_GELU ? NT_GELU_SAT : NT_GRAD_SAT);
    const __m256 sat = _mm256_set1_ps(satf);
    const __m256i low10 = _mm256_set1_epi32(NT_FINE_N - 1), zeroi = _mm256_setzero_si256();
    const __m256 fe = _mm256_loadu_ps(fn == FN_GELU ? NT_GELU_FE : NT_GRAD_FE), fe0 = _mm256_set1_ps(NT_GELU_FE0);
    const __m256 efloor = _mm256_set1_ps(0x1p-120f); /* |x| < 2^-100 undecided: FE0 |x| loses its bits there */
    const __m256 negz = _mm256_set1_ps(-0.0f), magic = _mm256_set1_ps(12582912.0f); /* 1.5*2^23 */
    const __m256 invw = _mm256_set1_ps((float)(fn == FN_GELU ? NT_GELU_FINVW : NT_GRAD_FINVW));
    const double fwd = fn == FN_GELU ? NT_GELU_FW : NT_GRAD_FW;
    /* the clamps: below the table to row 512 (NaN: listed, the tiers give the tail and -0);
     * above it GELU to row 512 too (the blend of x >= SAT gives x), GELU' into row 511,
     * where it rounds to 1 (at 511.25 FW: 1 + 2^-24 - 1.0e-9; as at every x >= SAT) */
    const __m256 fw = _mm256_set1_ps((float)fwd), nlim = _mm256_set1_ps((float)(-512 * fwd));
    const __m256 lim = _mm256_set1_ps((float)((fn == FN_GELU ? 512 : 511.25) * fwd));
    float tb[CHUNK], eb[CHUNK]; /* t, the bound */
    uint32_t ob[CHUNK];
    uint8_t mk[BLOCK / 8 + 8]; /* each step's flags: bit j, input j listed */
    memset(mk, 0, sizeof mk);
    size_t c = 0, n8 = n & ~(size_t)7, i;
    for (size_t c0 = 0; c0 < n8; c0 += CHUNK) {
        size_t c1 = n8 - c0 < CHUNK ? n8 : c0 + CHUNK;
        for (i = c0; i < c1; i += 8) { /* pass 1 */
            __m256 xf = _mm256_loadu_ps(x + i);
            __m256 xc = _mm256_min_ps(_mm256_max_ps(xf, nlim), lim);
            __m256 s = _mm256_fmadd_ps(xc, invw, magic);
            __m256 t = _mm256_fnmadd_ps(_mm256_sub_ps(s, magic), fw, xc);
            __m256i k = _mm256_and_si256(_mm256_castps_si256(s), low10);
            __m256 e = _mm256_permutevar8x32_ps(fe, _mm256_srli_epi32(k, 7));
            if (fn == FN_GELU) /* row 0: FE0 |x| + 2^-120 */
                e = _mm256_blendv_ps(e, _mm256_fmadd_ps(_mm256_andnot_ps(negz, xc), fe0, efloor),
                                     _mm256_castsi256_ps(_mm256_cmpeq_epi32(k, zeroi)));
            _mm256_storeu_ps(tb + (i - c0), t);
            _mm256_storeu_si256((__m256i *)(ob + (i - c0)), _mm256_slli_epi32(k, 5)); /* row k at 32 k bytes */
            _mm256_storeu_ps(eb + (i - c0), e);
        }
        for (i = c0; i < c1; i += 8) { /* pass 2 */
            /* 4 KiB ahead, issued from this long pass, where they spread out: issued from pass 1
             * they come 32 in a burst, likely more misses than a core keeps in flight (docs/decisions.md, the AVX2 variant) */
            _mm_prefetch((const char *)(x + i + 1024), _MM_HINT_T0);
            const float *tp = tb + (i - c0); /* halves converted from memory: no extraction */
            const uint32_t *op = ob + (i - c0);
            __m256d glo = rows_poly_4(_mm256_cvtps_pd(_mm_loadu_ps(tp)), rows, op);
            __m256d ghi = rows_poly_4(_mm256_cvtps_pd(_mm_loadu_ps(tp + 4)), rows, op + 4);
            const float *ep = eb + (i - c0);
            __m256d elo = _mm256_cvtps_pd(_mm_loadu_ps(ep)), ehi = _mm256_cvtps_pd(_mm_loadu_ps(ep + 4));
            __m256 r = f32_8(_mm256_sub_pd(glo, elo), _mm256_sub_pd(ghi, ehi));
            __m256 r_hi = f32_8(_mm256_add_pd(glo, elo), _mm256_add_pd(ghi, ehi));
            __m256 dec = _mm256_cmp_ps(r, r_hi, _CMP_EQ_OQ); /* then both are P's rounding (nan: no) */
            if (fn == FN_GELU) { /* x >= SAT: x; GELU' gets its 1 from row 511 */
                __m256 xf = _mm256_loadu_ps(x + i), m_sat = _mm256_cmp_ps(xf, sat, _CMP_GE_OQ);
                r = _mm256_blendv_ps(r, xf, m_sat);
                dec = _mm256_or_ps(dec, m_sat);
            }
            _mm256_storeu_ps(y + i, r);
            unsigned done = (unsigned)_mm256_movemask_ps(dec);
            mk[i / 8] = (uint8_t)~done;
        }
    }
    /* the list from the flags, 64 inputs at a time, after the loop: a branch on
     * each step's flags there mispredicts often, and each time throws away the
     * loads the loop had started ahead (costly where x comes from memory) */
    for (size_t j = 0; j < n8 / 8; j += 8) {
        uint64_t wd;
        memcpy(&wd, mk + j, 8);
        c = push_bits(list, c, j * 8, wd);
    }
    for (i = n8; i < n; i++)
        if (main_one(fn, x[i], y + i)) list[c++] = (uint32_t)i;
    return c;
}
INSTANTIATE(avx2, T_AVX2, main_avx2_body)

/* the listed inputs of a block, gathered: the vector TIGHT tier, 4 lanes at a
 * time; what it leaves is undecided (the scalar TIGHT tier, the same operations
 * lane by lane, would decide none of it) */
T_AVX2 AI size_t settle_avx2v_body(int fn, const float *x, float *y, const uint32_t *list, size_t c, int64_t *und,
                                   int64_t base) {
    float xs[BLOCK + 4], ys[BLOCK + 4];
    uint32_t left[BLOCK + 4];
    size_t nl = 0, nu = 0;
    for (size_t j = 0; j < c; j++) xs[j] = x[list[j]];
    for (size_t j = c; j < c + 4; j++) xs[j] = 0.0f;
    for (size_t j = 0; j < c; j += 4) {
        unsigned m;
        __m128 xf = _mm_loadu_ps(xs + j);
        _mm_storeu_ps(ys + j, tier_256(fn, xf, &m));
        if (c - j < 4) m &= (1u << (c - j)) - 1;
        nl = push_bits(left, nl, j, m);
    }
    for (size_t j = 0; j < c; j++) y[list[j]] = ys[j];
    for (size_t k = 0; k < nl; k++) und[nu++] = base + (int64_t)list[left[k]];
    return nu;
}
T_AVX2 static size_t settle_gelu_avx2v(const float *x, float *y, const uint32_t *l, size_t c, int64_t *u, int64_t b) {
    return settle_avx2v_body(FN_GELU, x, y, l, c, u, b);
}
T_AVX2 static size_t settle_grad_avx2v(const float *x, float *y, const uint32_t *l, size_t c, int64_t *u, int64_t b) {
    return settle_avx2v_body(FN_GRAD, x, y, l, c, u, b);
}

/* ---- AVX-512: 8 lanes, coefficients from registers by vpermt2pd ---- */
#define T_AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))

T_AVX512 AI __m512d estrin_512(__m512d *c, __m512d t) {
    ESTRIN8(_mm512_fmadd_pd, _mm512_mul_pd, c, t);
    return c[0];
}

/* 8 lanes of the main range (main_one's steps): na = -|x| as doubles, pos: x > 0;
 * g, the value before its rounding, and in *idx the bits whose low four are the sub-range */
T_AVX512 AI __m512d main_8(int fn, __m512d na, __mmask8 pos, const __m512d *ca, const __m512d *cb, __m512i *idx) {
    const __m512d magic = _mm512_set1_pd(MAGIC), w = _mm512_set1_pd(fn == FN_GELU ? NT_GELU_W : NT_GRAD_W);
    __m512d s = _mm512_fmadd_pd(na, _mm512_set1_pd(fn == FN_GELU ? -NT_GELU_INVW : -NT_GRAD_INVW), magic);
    __m512d t = _mm512_fmadd_pd(_mm512_sub_pd(s, magic), w, na);
    *idx = _mm512_castpd_si512(s);
    __m512d cf[NT_DEG + 1];
#pragma GCC unroll 16
    for (int j = 0; j <= NT_DEG; j++) cf[j] = _mm512_permutex2var_pd(ca[j], *idx, cb[j]);
    __m512d p = estrin_512(cf, t);
    if (fn == FN_GELU)
        return _mm512_fmadd_pd(na, p, _mm512_maskz_sub_pd(pos, _mm512_setzero_pd(), na)); /* xpos + GELU(-|x|) */
    __m512d d = _mm512_sub_pd(_mm512_sub_pd(na, _mm512_set1_pd(NT_X0_HI)), _mm512_set1_pd(NT_X0_LO));
    __m512d g = _mm512_mul_pd(d, p);
    return _mm512_mask_sub_pd(g, pos, _mm512_set1_pd(1.0), g); /* 1 - GELU'(-|x|) */
}

/* Ziv's test on the bits of 16 values g (lo: inputs 0-7, hi: 8-15): |g - truth|
 * <= EBITS ulps of g, so the float32 rounding is decided unless the 29 bits it
 * drops lie within EBITS of the midpoint. Those bits and the sub-ranges are in
 * the low halves of the 64-bit lanes: one permute each packs them into 16
 * lanes of 32 bits, in input order; e: the 16 sub-ranges' EBITS (< 2^31) */
T_AVX512 AI __mmask16 decided_16(__m512d glo, __m512d ghi, __m512i ilo, __m512i ihi, __m512i e) {
    const __m512i lows = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    __m512i g = _mm512_permutex2var_epi32(_mm512_castpd_si512(glo), lows, _mm512_castpd_si512(ghi));
    __m512i k = _mm512_permutex2var_epi32(ilo, lows, ihi);
    __m512i mid = _mm512_abs_epi32(_mm512_sub_epi32(_mm512_and_si512(g, _mm512_set1_epi32((1 << 29) - 1)), _mm512_set1_epi32(1 << 28)));
    return _mm512_cmpgt_epi32_mask(mid, _mm512_permutexvar_epi32(k, e));
}

T_AVX512 AI size_t main_avx512_body(int fn, const float *x, float *y, size_t n, uint32_t *list) {
    const double(*C)[NT_N_SUB] = fn == FN_GELU ? NT_GELU_C : NT_GRAD_C;
    __m512d ca[NT_DEG + 1], cb[NT_DEG + 1];
#pragma GCC unroll 16
    for (int j = 0; j <= NT_DEG; j++) {
        ca[j] = _mm512_loadu_pd(&C[j][0]);
        cb[j] = _mm512_loadu_pd(&C[j][8]);
    }
    const __m512i ebits = _mm512_loadu_si512(fn == FN_GELU ? NT_GELU_EBITS : NT_GRAD_EBITS);
    const float satf = (float)(fn == FN_GELU ? NT_GELU_SAT : NT_GRAD_SAT);
    const __m512 sat = _mm512_set1_ps(satf), zero = _mm512_set1_ps((float)(fn == FN_GELU ? NT_GELU_ZERO : NT_GRAD_ZERO));
    const __m512i absf = _mm512_set1_epi32(0x7fffffff), tinyf = _mm512_set1_epi32(0x0d800000); /* 2^-100 */
    int32_t satb;
    memcpy(&satb, &satf, 4);
    const __m512i satbits = _mm512_set1_epi32(satb);
    const __m512 negz = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f);
    /* 16 inputs a step: the float32 work (compares, blends, store) once, the
     * double work in two halves of 8; a word of flags per step, the list built
     * after the loop (a compress and a running count per vector cost more here) */
    uint16_t mk[BLOCK / 16 + 4];
    memset(mk, 0, sizeof mk);
    size_t c = 0, i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm_prefetch((const char *)(x + i + 1024), _MM_HINT_T0); /* 4 KiB ahead: the loop is busy enough to stall on memory */
        __m512 xf = _mm512_loadu_ps(x + i);
        __m512i xb = _mm512_castps_si512(xf), ab = _mm512_and_si512(xb, absf);
        __mmask16 m_sat = _mm512_cmp_ps_mask(xf, sat, _CMP_GE_OQ), m_zero = _mm512_cmp_ps_mask(xf, zero, _CMP_LT_OQ);
        __mmask16 m_main = _mm512_cmplt_epu32_mask(ab, satbits); /* |x| < SAT (nan: no) */
        if (fn == FN_GELU) /* |x| < 2^-100 (zeros too) to the tiers: GELU = x/2 + ... may be subnormal, a tie */
            m_main &= _mm512_cmpge_epu32_mask(ab, tinyf);
        __mmask16 m_pos = _mm512_cmpgt_epi32_mask(xb, _mm512_setzero_si512()); /* x > 0 (or nan: not main) */
        __m512 nf = _mm512_castsi512_ps(_mm512_or_si512(xb, _mm512_castps_si512(negz))); /* -|x| */
        __m512d nlo = _mm512_cvtps_pd(_mm512_castps512_ps256(nf));
        __m512d nhi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(nf), 1)));
        __m512i ilo, ihi;
        __m512d glo = main_8(fn, nlo, (__mmask8)m_pos, ca, cb, &ilo), ghi = main_8(fn, nhi, (__mmask8)(m_pos >> 8), ca, cb, &ihi);
        __m512 r = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(glo))),
                                                       _mm256_castps_pd(_mm512_cvtpd_ps(ghi)), 1));
        r = _mm512_mask_blend_ps(m_sat, r, fn == FN_GELU ? xf : one);
        r = _mm512_mask_blend_ps(m_zero, r, negz);
        _mm512_storeu_ps(y + i, r);
        __mmask16 m_dec = decided_16(glo, ghi, ilo, ihi, ebits) & m_main;
        mk[i / 16] = (uint16_t)~(m_dec | m_sat | m_zero);
    }
    for (size_t j = 0; j < i / 16; j += 4) { /* the listed lanes, 64 inputs at a time */
        uint64_t wd;
        memcpy(&wd, mk + j, 8);
        c = push_bits(list, c, j * 16, wd);
    }
    for (; i < n; i++)
        if (main_one(fn, x[i], y + i)) list[c++] = (uint32_t)i;
    return c;
}
INSTANTIATE(avx512, T_AVX512, main_avx512_body)

/* The general path, 8 lanes: the FAST tier of GELU or the TIGHT tier of GELU'
 * (the scalar tiers above, lane by lane the same operations). *flag: lanes left
 * undecided, and for GELU' those near its root (the scalar tier has the series). */
T_AVX512 AI __m512d poly2_512(const double *c0, const double *c1, int m, __m512d t) {
    __m512d t2 = _mm512_mul_pd(t, t), p0 = _mm512_set1_pd(c0[m - 1]), p1 = _mm512_set1_pd(c1[m - 1]);
#pragma GCC unroll 16
    for (int j = m - 2; j >= 0; j--) {
        p0 = _mm512_fmadd_pd(p0, t2, _mm512_set1_pd(c0[j]));
        p1 = _mm512_fmadd_pd(p1, t2, _mm512_set1_pd(c1[j]));
    }
    return _mm512_fmadd_pd(t, p1, p0);
}

T_AVX512 AI __m512d exp_nonpos_512(__m512d z, const double *e0, const double *e1, int m) {
    const __m512d magic = _mm512_set1_pd(MAGIC);
    __m512d t = _mm512_fmadd_pd(z, _mm512_set1_pd(1.4426950408889634), magic);
    __m512d r = _mm512_fnmadd_pd(_mm512_sub_pd(t, magic), _mm512_set1_pd(LN2), z);
    __m512i b = _mm512_slli_epi64(_mm512_add_epi64(_mm512_castpd_si512(t), _mm512_set1_epi64(1023 - MAGIC_BITS)), 52);
    return _mm512_mul_pd(poly2_512(e0, e1, m, r), _mm512_castsi512_pd(b));
}

T_AVX512 AI __m256 tier_512(int fn, __m256 xf, __mmask8 *flag) {
    const __m512i sign = _mm512_set1_epi64(INT64_MIN);
    __m512d x = _mm512_cvtps_pd(xf), ax = _mm512_abs_pd(x);
    __m512d a = _mm512_min_pd(ax, _mm512_set1_pd(NT_A_CUT)); /* nan -> A_CUT */
    double c = fn == FN_GELU ? NT_FAST_MAPC : NT_TIGHT_MAPC;
    __m512d y = _mm512_div_pd(_mm512_sub_pd(a, _mm512_set1_pd(c)), _mm512_add_pd(a, _mm512_set1_pd(c)));
    __m512d h = fn == FN_GELU ? poly2_512(NT_FAST_H0, NT_FAST_H1, NT_FAST_HM, y) : poly2_512(NT_TIGHT_H0, NT_TIGHT_H1, NT_TIGHT_HM, y);
    __m512d z = _mm512_mul_pd(_mm512_set1_pd(-0.5), _mm512_mul_pd(a, a));
    __m512d e = fn == FN_GELU ? exp_nonpos_512(z, NT_FAST_E0, NT_FAST_E1, NT_FAST_EM)
                              : exp_nonpos_512(z, NT_TIGHT_E0, NT_TIGHT_E1, NT_TIGHT_EM);
    __m512d q = _mm512_mul_pd(h, e), v, lo, hi;
    if (fn == FN_GELU) {
        __m512d sa = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_and_si512(_mm512_castpd_si512(x), sign)));
        __m512d xq = _mm512_mul_pd(sa, q);
        v = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LE_OQ), _mm512_sub_pd(x, xq), xq);
        lo = _mm512_mul_pd(v, _mm512_set1_pd(1.0 - NT_FAST_REL));
        hi = _mm512_mul_pd(v, _mm512_set1_pd(1.0 + NT_FAST_REL));
    } else {
        __m512d xphi = _mm512_mul_pd(_mm512_mul_pd(x, _mm512_set1_pd(NT_INV_SQRT_2PI)), e);
        __mmask8 neg = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
        v = _mm512_add_pd(_mm512_mask_blend_pd(neg, _mm512_sub_pd(_mm512_set1_pd(1.0), q), q), xphi);
        __m512d err = _mm512_mul_pd(_mm512_add_pd(q, _mm512_abs_pd(xphi)), _mm512_set1_pd(NT_TIGHT_REL));
        __mmask8 far = _mm512_cmp_pd_mask(ax, _mm512_set1_pd(NT_A_CUT), _CMP_NLT_UQ); /* |x| >= A_CUT or nan */
        __m512d lim = _mm512_mask_blend_pd(neg, _mm512_set1_pd(1.0), _mm512_set1_pd(-0.0));
        lim = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), lim, x);
        v = _mm512_mask_blend_pd(far, v, lim);
        err = _mm512_mask_blend_pd(far, err, _mm512_setzero_pd()); /* the limits are exact */
        lo = _mm512_sub_pd(v, err);
        hi = _mm512_add_pd(v, err);
    }
    __m256 lo32 = _mm512_cvtpd_ps(lo), hi32 = _mm512_cvtpd_ps(hi);
    __mmask8 und = _mm256_cmp_ps_mask(lo32, hi32, _CMP_NEQ_OQ); /* nan: decided */
    __mmask8 tiny = _mm512_cmp_pd_mask(ax, _mm512_set1_pd(NT_TINY), _CMP_LT_OQ);
    *flag = und & ~tiny;
    if (fn == FN_GRAD) {
        __m512d d = _mm512_sub_pd(_mm512_sub_pd(x, _mm512_set1_pd(NT_X0_HI)), _mm512_set1_pd(NT_X0_LO));
        *flag |= _mm512_cmp_pd_mask(_mm512_abs_pd(d), _mm512_set1_pd(NT_ROOT_RADIUS), _CMP_LT_OQ);
    }
    return _mm256_mask_blend_ps(und & tiny, _mm512_cvtpd_ps(v), _mm256_max_ps(lo32, hi32));
}

/* the listed inputs of a block: gathered, the vector tier, scattered; what it
 * leaves goes to the scalar TIGHT tier */
T_AVX512 AI size_t settle_avx512v_body(int fn, const float *x, float *y, const uint32_t *list, size_t c, int64_t *und,
                                       int64_t base) {
    float xs[BLOCK + 8], ys[BLOCK + 8];
    uint32_t left[BLOCK + 8];
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    size_t nl = 0, nu = 0;
    for (size_t j = 0; j < c; j++) xs[j] = x[list[j]];
    for (size_t j = c; j < c + 8; j++) xs[j] = 0.0f;
    for (size_t j = 0; j < c; j += 8) {
        __mmask8 flag;
        _mm256_storeu_ps(ys + j, tier_512(fn, _mm256_loadu_ps(xs + j), &flag));
        if (c - j < 8) flag &= (__mmask8)((1u << (c - j)) - 1);
        _mm256_storeu_si256((__m256i *)(left + nl), _mm256_maskz_compress_epi32(flag, _mm256_add_epi32(iota, _mm256_set1_epi32((int)j))));
        nl += (size_t)__builtin_popcount(flag);
    }
    for (size_t j = 0; j < c; j++) y[list[j]] = ys[j];
    for (size_t k = 0; k < nl; k++) {
        uint32_t p = list[left[k]];
        int still = fn == FN_GELU ? gelu_tier(x[p], y + p, TIER(TIGHT), NT_TIGHT_REL) : grad_tight(x[p], y + p);
        if (still) und[nu++] = base + (int64_t)p;
    }
    return nu;
}
T_AVX512 static size_t settle_gelu_avx512v(const float *x, float *y, const uint32_t *l, size_t c, int64_t *u, int64_t b) {
    return settle_avx512v_body(FN_GELU, x, y, l, c, u, b);
}
T_AVX512 static size_t settle_grad_avx512v(const float *x, float *y, const uint32_t *l, size_t c, int64_t *u, int64_t b) {
    return settle_avx512v_body(FN_GRAD, x, y, l, c, u, b);
}

#endif

/* 16-bit lookups: plain loads, eight at a time (faster here than vpgatherdd).
 * stream: non-temporal stores (x86), for outputs too large to stay in cache: the
 * lines are not read before they are written, a third less memory traffic */
#define STREAM16 (1u << 23) /* outputs of 16 MiB and more (the L3 of the machines measured is 32 MiB) */
static void lookup16_scalar(const uint16_t *t, const uint16_t *b, uint16_t *o, size_t n, int stream) {
    size_t i = 0;
#ifdef GL_X86
    if (stream) {
        for (; i < n && ((uintptr_t)(o + i) & 15); i++) o[i] = t[b[i]];
        for (; i + 8 <= n; i += 8) {
            __m128i v = _mm_setr_epi16((short)t[b[i]], (short)t[b[i + 1]], (short)t[b[i + 2]], (short)t[b[i + 3]],
                                       (short)t[b[i + 4]], (short)t[b[i + 5]], (short)t[b[i + 6]], (short)t[b[i + 7]]);
            _mm_stream_si128((__m128i *)(o + i), v);
        }
        _mm_sfence();
    }
#else
    (void)stream;
#endif
    for (; i + 8 <= n; i += 8) {
        uint16_t a0 = t[b[i]], a1 = t[b[i + 1]], a2 = t[b[i + 2]], a3 = t[b[i + 3]];
        uint16_t a4 = t[b[i + 4]], a5 = t[b[i + 5]], a6 = t[b[i + 6]], a7 = t[b[i + 7]];
        o[i] = a0, o[i + 1] = a1, o[i + 2] = a2, o[i + 3] = a3;
        o[i + 4] = a4, o[i + 5] = a5, o[i + 6] = a6, o[i + 7] = a7;
    }
    for (; i < n; i++) o[i] = t[b[i]];
}

static int supported(int v) {
    if (v == V_SCALAR || v == V_SCALAR_LIBM) return 1;
#ifdef GL_X86
    __builtin_cpu_init();
    if (v == V_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (v == V_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return 0;
}

/* the variants by V_* number, and best first (variants(); bench/native_split.c) */
static const char *VARIANT_NAMES[] = {"scalar", "avx2", "avx512", "scalar-libm"};
static const int VARIANT_ORDER[] = {V_AVX512, V_AVX2, V_SCALAR, V_SCALAR_LIBM};
_Static_assert(sizeof VARIANT_NAMES / sizeof VARIANT_NAMES[0] == V_SCALAR_LIBM + 1, "a name for every V_*");

/* variant v's main pass and settling of function fn ("scalar": the build with
 * fma() as an instruction where the CPU has it) */
static void kernels_of(int fn, int v, main_fn *mf, settle_fn *sf) {
    *mf = fn == FN_GELU ? main_gelu_scalar : main_grad_scalar;
    *sf = fn == FN_GELU ? settle_gelu_scalar : settle_grad_scalar;
#ifdef GL_X86
    if (v == V_SCALAR && __builtin_cpu_supports("fma")) {
        *mf = fn == FN_GELU ? main_gelu_scalarfma : main_grad_scalarfma;
        *sf = fn == FN_GELU ? settle_gelu_scalarfma : settle_grad_scalarfma;
    } else if (v == V_AVX2) {
        *mf = fn == FN_GELU ? main_gelu_avx2 : main_grad_avx2;
        *sf = fn == FN_GELU ? settle_gelu_avx2v : settle_grad_avx2v;
    } else if (v == V_AVX512) {
        *mf = fn == FN_GELU ? main_gelu_avx512 : main_grad_avx512;
        *sf = fn == FN_GELU ? settle_gelu_avx512v : settle_grad_avx512v;
    }
#else
    (void)v;
#endif
}

/* one call of f32: the function, variant and buffers; the undecided go to und at
 * positions taken from *count (atomically: threads share it), as many as cap holds */
struct f32_call {
    int fn, v;
    const float *x;
    float *y;
    int64_t *und;
    size_t cap, count;
};

/* [lo, hi) of the call's x through its variant, block by block */
static void run_f32(void *arg, size_t lo, size_t hi) {
    struct f32_call *a = arg;
    const float *x = a->x;
    float *y = a->y;
    main_fn mf;
    settle_fn sf;
    kernels_of(a->fn, a->v, &mf, &sf);
    uint32_t list[BLOCK + 16];
    int64_t left[BLOCK];
    for (size_t b = lo; b < hi; b += BLOCK) {
        size_t m = hi - b < BLOCK ? hi - b : BLOCK;
        size_t c = mf(x + b, y + b, m, list);
        size_t k = sf(x + b, y + b, list, c, left, (int64_t)b);
        if (k == 0) continue;
        size_t at = __atomic_fetch_add(&a->count, k, __ATOMIC_RELAXED);
        for (size_t j = 0; j < k && at + j < a->cap; j++) a->und[at + j] = left[j];
    }
}

/* Threads: OpenMP's, where the extension was built with it. torch runs its
 * CPU kernels on the same runtime (libgomp.so.1, loaded once per process), so
 * gelu_lab's work goes to the threads torch keeps spinning after its own ops
 * instead of competing with them for the cores. The array is cut into about
 * 8 parts per thread (at least min_part inputs, whole blocks), handed out as
 * threads come free: a core shared with another process takes fewer. Built
 * without OpenMP, one thread: gelu_lab.kernels then splits the array over
 * Python threads itself. */
#define MIN_PART (16 * BLOCK)

static void for_parts(size_t n, size_t min_part, int threads, void (*task)(void *, size_t, size_t), void *arg) {
    size_t t = threads < 1 ? 1 : (size_t)threads;
#ifdef _OPENMP
    if (t > n / min_part) t = n / min_part;
#else
    t = 1;
#endif
    if (t <= 1) {
        task(arg, 0, n);
        return;
    }
    size_t part = (n / (t * 8) + BLOCK - 1) / BLOCK * BLOCK;
    if (part < min_part) part = min_part;
    long parts = (long)((n + part - 1) / part);
#pragma omp parallel for schedule(dynamic, 1) num_threads((int)t)
    for (long c = 0; c < parts; c++) {
        size_t lo = (size_t)c * part;
        task(arg, lo, lo + part < n ? lo + part : n);
    }
}

struct lookup16_call {
    const uint16_t *tab, *bits;
    uint16_t *out;
    int stream;
};

static void run_lookup16(void *arg, size_t lo, size_t hi) {
    const struct lookup16_call *a = arg;
    lookup16_scalar(a->tab, a->bits + lo, a->out + lo, hi - lo, a->stream);
}

/* ---- Python ---- */

static PyObject *py_f32(PyObject *self, PyObject *args) {
    int fn, v, threads = 1;
    Py_buffer bx, by, bu;
    if (!PyArg_ParseTuple(args, "iiy*w*w*|i", &fn, &v, &bx, &by, &bu, &threads)) return NULL;
    PyObject *res = NULL;
    size_t n = (size_t)bx.len / sizeof(float);
    if ((fn != FN_GELU && fn != FN_GRAD) || !supported(v))
        PyErr_SetString(PyExc_ValueError, "unknown function or variant not supported by this CPU");
    else if ((size_t)by.len / sizeof(float) != n)
        PyErr_SetString(PyExc_ValueError, "buffer sizes do not match");
    else {
        struct f32_call call = {fn, v, bx.buf, by.buf, bu.buf, (size_t)bu.len / sizeof(int64_t), 0};
        Py_BEGIN_ALLOW_THREADS for_parts(n, MIN_PART, threads, run_f32, &call);
        Py_END_ALLOW_THREADS res = PyLong_FromSize_t(call.count);
    }
    PyBuffer_Release(&bx);
    PyBuffer_Release(&by);
    PyBuffer_Release(&bu);
    return res;
}

static PyObject *py_lookup16(PyObject *self, PyObject *args) {
    Py_buffer bt, bb, bo;
    int v, threads = 1;
    if (!PyArg_ParseTuple(args, "y*y*w*i|i", &bt, &bb, &bo, &v, &threads)) return NULL;
    PyObject *res = NULL;
    size_t n = (size_t)bb.len / 2;
    if (bt.len < 2 * 65536 || (size_t)bo.len / 2 != n || !supported(v))
        PyErr_SetString(PyExc_ValueError, "table needs 65536 entries; bits and out one length; a supported variant");
    else {
        struct lookup16_call call = {bt.buf, bb.buf, bo.buf, n >= STREAM16};
        Py_BEGIN_ALLOW_THREADS
        for_parts(n, 4 * MIN_PART, threads, run_lookup16, &call); /* a lookup is cheap: parts of 4x the inputs */
        Py_END_ALLOW_THREADS
        Py_INCREF(Py_None);
        res = Py_None;
    }
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&bo);
    return res;
}

static PyObject *py_openmp(PyObject *self, PyObject *noargs) {
#ifdef _OPENMP
    Py_RETURN_TRUE;
#else
    Py_RETURN_FALSE;
#endif
}

static PyObject *py_variants(PyObject *self, PyObject *noargs) {
    PyObject *out = PyList_New(0);
    for (size_t j = 0; j < sizeof VARIANT_ORDER / sizeof VARIANT_ORDER[0]; j++)
        if (supported(VARIANT_ORDER[j])) {
            PyObject *s = PyUnicode_FromString(VARIANT_NAMES[VARIANT_ORDER[j]]);
            PyList_Append(out, s);
            Py_DECREF(s);
        }
    return out;
}

static PyMethodDef methods[] = {
    {"f32", py_f32, METH_VARARGS, "f32(fn, variant, x, y, undecided[, threads]) -> number of undecided inputs (as many listed, unsorted, as undecided holds)"},
    {"lookup16", py_lookup16, METH_VARARGS, "lookup16(table, bits, out, variant[, threads]): out[i] = table[bits[i]]"},
    {"openmp", py_openmp, METH_NOARGS, "whether the threads argument runs OpenMP threads (else one thread)"},
    {"variants", py_variants, METH_NOARGS, "names of the variants this CPU runs, best first"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", "gelu_lab's native float32 kernels", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
#ifdef GL_X86
    fill_rows();
#endif
    PyObject *m = PyModule_Create(&module), *names = PyTuple_New(sizeof VARIANT_NAMES / sizeof VARIANT_NAMES[0]);
    if (!m || !names) goto fail;
    for (Py_ssize_t v = 0; v < PyTuple_GET_SIZE(names); v++) {
        PyObject *s = PyUnicode_FromString(VARIANT_NAMES[v]);
        if (!s) goto fail;
        PyTuple_SET_ITEM(names, v, s);
    }
    if (PyModule_AddObject(m, "VARIANT_NAMES", names) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "MIN_PART", MIN_PART) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
fail:
    Py_XDECREF(names);
    Py_XDECREF(m);
    return NULL;
}
