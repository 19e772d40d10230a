/* Where the native kernel's time goes, in C: bench/native_split.py builds this
 * as a shared library (Python's symbols come from the interpreter that loads
 * it) and calls native_split(n, repeats).
 *
 * n float32 inputs from N(0, 4) (a fixed xorshift stream, Box-Muller), one
 * thread, blocks of BLOCK as run_f32 takes them. For each variant this CPU
 * runs and each function, the best of `repeats` runs over all blocks: ns per
 * input in all and in the main pass (all less the settling of the listed
 * inputs, timed call by call); the share of inputs listed, the settling's cost
 * per listed input, how many were left to gelu_lab.reference, and where the
 * listed inputs lie (% of all inputs, by band of x; "tail" is x < -SAT,
 * beyond the main range).
 */
#include "native.c"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef GL_X86
#include <x86intrin.h>
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the settling is timed call by call, inside the timed loop: the time-stamp
 * counter where there is one (a few ns a read), else the monotonic clock */
static uint64_t ticks_now(void) {
#ifdef GL_X86
    return __rdtsc();
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

static double uniform01(uint64_t *rng) { /* xorshift64*, in (0, 1) */
    *rng ^= *rng >> 12, *rng ^= *rng << 25, *rng ^= *rng >> 27;
    return ((double)((*rng * 0x2545F4914F6CDD1DULL) >> 11) + 0.5) * 0x1p-53;
}

#define N_BANDS 7
static const char *BAND_NAMES[N_BANDS] = {"tail", "[-SAT,-4)", "[-4,-1)", "[-1,1)", "[1,4)", "[4,SAT)", ">=SAT"};
static int band(float x, double sat) {
    if (x < -sat) return 0;
    if (x < -4) return 1;
    if (x < -1) return 2;
    if (x < 1) return 3;
    if (x < 4) return 4;
    return x < sat ? 5 : 6;
}

int native_split(unsigned long long n_inputs, int repeats) {
    size_t n = ((size_t)n_inputs + BLOCK - 1) / BLOCK * BLOCK;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
    if (!x || !y) return 1;
    uint64_t rng = 0x9E3779B97F4A7C15ULL; /* the same inputs at every call */
    for (size_t i = 0; i < n; i += 2) {
        double r = 2.0 * sqrt(-2.0 * log(uniform01(&rng))), a = 6.283185307179586 * uniform01(&rng);
        x[i] = (float)(r * cos(a)), x[i + 1] = (float)(r * sin(a));
    }
#ifdef GL_X86
    fill_rows(); /* the avx2 variant's tables, as PyInit__native fills them */
#endif
    static uint32_t list[BLOCK + 16];
    static int64_t left[BLOCK];
    printf("# n = %zu from N(0, 4), one thread, best of %d\n", n, repeats);
    printf("%-11s %-9s %8s %8s %8s %9s %8s", "variant", "fn", "main_ns", "all_ns", "listed%", "ns/listed", "undec");
    for (int b = 0; b < N_BANDS; b++) printf(" %9s", BAND_NAMES[b]);
    printf("\n");
    for (size_t k = 0; k < sizeof VARIANT_ORDER / sizeof VARIANT_ORDER[0]; k++) {
        int v = VARIANT_ORDER[k];
        if (!supported(v)) continue;
        for (int fn = 0; fn < 2; fn++) {
            main_fn mf;
            settle_fn sf;
            kernels_of(fn, v, &mf, &sf); /* as run_f32 takes them */
            double best = 1e30, settle_share = 0, sat = fn == FN_GELU ? NT_GELU_SAT : NT_GRAD_SAT;
            size_t listed = 0, undecided = 0, by_band[N_BANDS] = {0};
            for (int r = 0; r < repeats; r++) {
                uint64_t ticks = 0, tick0 = ticks_now();
                double t0 = now();
                listed = undecided = 0;
                for (size_t b = 0; b < n; b += BLOCK) {
                    size_t c = mf(x + b, y + b, BLOCK, list);
                    uint64_t s0 = ticks_now();
                    undecided += sf(x + b, y + b, list, c, left, (int64_t)b);
                    ticks += ticks_now() - s0;
                    listed += c;
                }
                double t = now() - t0;
                uint64_t all_ticks = ticks_now() - tick0;
                if (t < best) best = t, settle_share = all_ticks ? (double)ticks / (double)all_ticks : 0.0;
            }
            for (size_t b = 0; b < n; b += BLOCK) { /* where the listed inputs lie, untimed */
                size_t c = mf(x + b, y + b, BLOCK, list);
                for (size_t j = 0; j < c; j++) by_band[band(x[b + list[j]], sat)]++;
            }
            double all_ns = 1e9 * best / (double)n, settle_ns = settle_share * all_ns;
            printf("%-11s %-9s %8.3f %8.3f %8.4f %9.1f %8zu", VARIANT_NAMES[v], fn == FN_GELU ? "gelu" : "gelu_grad",
                   all_ns - settle_ns, all_ns, 100.0 * (double)listed / (double)n,
                   listed ? settle_ns * (double)n / (double)listed : 0.0, undecided);
            for (int b = 0; b < N_BANDS; b++) printf(" %9.4f", 100.0 * (double)by_band[b] / (double)n);
            printf("\n");
            fflush(stdout);
        }
    }
    free(x), free(y);
    return 0;
}
