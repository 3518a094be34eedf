/* olk's portable exp, scalar and over arrays (included by svpool.pyx; see the comment block there).
 *
 * olk_exp(x) is made of IEEE-754 additions, multiplications and integer bit operations only, so it gives the
 * same bits on every host (the build passes -ffp-contract=off: no FMA contraction).  olk_vexp(x, y, n) applies
 * it to an array: the same operations in the same order for every element, so y[i] == olk_exp(x[i]) bit for bit
 * (tests/test_exp.py), but written so the compiler vectorises the fast path over the elements (the table lookups
 * become gathers).  On x86-64 with GCC or clang the vector loop is compiled for AVX-512F, AVX2 and baseline
 * x86-64 and the CPU picks one at load time (target_clones); elsewhere it is compiled once for the baseline.
 * Vector width changes how many elements are done at once, never the arithmetic of one element.
 *
 * The fast path covers -708 < x < 709.  olk_vexp runs it on every element (an out-of-range x gives a
 * meaningless but harmless value: no traps, indices stay in 0..127), then redoes the out-of-range elements
 * with the scalar olk_exp, whose slow path is exp(x) = exp(x/2)^2 (sub-normal results, overflow to inf, NaN).
 */
#ifndef OLK_EXP_H
#define OLK_EXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* 2^(j/128) = hi_j (1 + tail_j): olk_exp_tail[j] = tail_j, olk_exp_sbits[j] = bits of hi_j minus (j << 45);
 * constants computed once with exact decimal arithmetic (tests/test_exp.py recomputes them) */
#include "olk_exp_table.h"
#include "olk_cpu.h"

#define OLK_EXP_INV_LN2_N (0x1.71547652b82fep0 * 128)
#define OLK_EXP_SHIFT 0x1.8p52
#define OLK_EXP_NEG_LN2_HI_N (-0x1.62e42fefa0000p-8)
#define OLK_EXP_NEG_LN2_LO_N (-0x1.cf79abc9e3b3ap-47)

/* exp(x) for -708 < x < 709 (2^e stays a normal number); r^6/720 <= 2^-60.7 relative: <= 1 ulp */
static inline double olk_exp_fast(double x) {
    double kd = x * OLK_EXP_INV_LN2_N + OLK_EXP_SHIFT;
    uint64_t ki, sb;
    double r, r2, tmp, scale;
    memcpy(&ki, &kd, 8);
    uint64_t idx = ki & 127;
    kd -= OLK_EXP_SHIFT;
    r = x + kd * OLK_EXP_NEG_LN2_HI_N + kd * OLK_EXP_NEG_LN2_LO_N;
    sb = olk_exp_sbits[idx] + (ki << 45);
    memcpy(&scale, &sb, 8);
    r2 = r * r;
    tmp = olk_exp_tail[idx] + r + r2 * (1.0 / 2.0 + r * (1.0 / 6.0)) + r2 * r2 * (1.0 / 24.0 + r * (1.0 / 120.0));
    return scale + scale * tmp;
}

static inline int olk_exp_in_fast_range(double x) {
    return x > -708.0 && x < 709.0;
}

/* exp(x) with the same bits on every host */
static inline double olk_exp(double x) {
    double h;
    if (olk_exp_in_fast_range(x))
        return olk_exp_fast(x);
    if (x != x)
        return x;
    if (x < -745.2)             /* exp(x) < 2^-1075: rounds to 0 (and x / 2 would leave the fast range) */
        return 0.0;
    if (x > 709.79)             /* exp(x) > DBL_MAX */
        return INFINITY;
    h = olk_exp_fast(0.5 * x);
    return h * h;
}

/* The fast path over an array, every element, in range or not.  On x86-64 (GCC/clang) the CPU picks at first
 * use between an AVX-512F loop (8 lanes), an AVX2 loop (4 lanes) and the plain scalar loop; the vector loops
 * are olk_exp_fast written with intrinsics: the same IEEE operations in the same order per lane (mul, add,
 * sub, and/shift/add on the 64-bit patterns, the two table lookups as gathers), so every lane gives the
 * scalar loop's bits (tests/test_exp.py checks all three where the CPU has them). */
static void olk_vexp_fast_scalar(const double *restrict x, double *restrict y, Py_ssize_t n) {
    Py_ssize_t i;
    for (i = 0; i < n; i++)
        y[i] = olk_exp_fast(x[i]);
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(OLK_NO_SIMD)
#include <immintrin.h>
#define OLK_EXP_X86 1

__attribute__((target("avx2")))
static void olk_vexp_fast_avx2(const double *restrict x, double *restrict y, Py_ssize_t n) {
    const __m256d inv = _mm256_set1_pd(OLK_EXP_INV_LN2_N), shift = _mm256_set1_pd(OLK_EXP_SHIFT);
    const __m256d nh = _mm256_set1_pd(OLK_EXP_NEG_LN2_HI_N), nl = _mm256_set1_pd(OLK_EXP_NEG_LN2_LO_N);
    const __m256d c2 = _mm256_set1_pd(1.0 / 2.0), c3 = _mm256_set1_pd(1.0 / 6.0);
    const __m256d c4 = _mm256_set1_pd(1.0 / 24.0), c5 = _mm256_set1_pd(1.0 / 120.0);
    const __m256i m127 = _mm256_set1_epi64x(127);
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d xv = _mm256_loadu_pd(x + i);
        __m256d kd = _mm256_add_pd(_mm256_mul_pd(xv, inv), shift);
        __m256i ki = _mm256_castpd_si256(kd);
        __m256i idx = _mm256_and_si256(ki, m127);
        kd = _mm256_sub_pd(kd, shift);
        __m256d r = _mm256_add_pd(_mm256_add_pd(xv, _mm256_mul_pd(kd, nh)), _mm256_mul_pd(kd, nl));
        __m256i sb = _mm256_add_epi64(_mm256_i64gather_epi64((const long long *)olk_exp_sbits, idx, 8),
                                      _mm256_slli_epi64(ki, 45));
        __m256d scale = _mm256_castsi256_pd(sb);
        __m256d r2 = _mm256_mul_pd(r, r);
        __m256d tail = _mm256_i64gather_pd(olk_exp_tail, idx, 8);
        /* tail + r + r2 * (c2 + r * c3) + r2 * r2 * (c4 + r * c5), left to right as in olk_exp_fast */
        __m256d tmp = _mm256_add_pd(tail, r);
        tmp = _mm256_add_pd(tmp, _mm256_mul_pd(r2, _mm256_add_pd(c2, _mm256_mul_pd(r, c3))));
        tmp = _mm256_add_pd(tmp, _mm256_mul_pd(_mm256_mul_pd(r2, r2), _mm256_add_pd(c4, _mm256_mul_pd(r, c5))));
        _mm256_storeu_pd(y + i, _mm256_add_pd(scale, _mm256_mul_pd(scale, tmp)));
    }
    for (; i < n; i++)
        y[i] = olk_exp_fast(x[i]);
}

__attribute__((target("avx512f")))
static void olk_vexp_fast_avx512(const double *restrict x, double *restrict y, Py_ssize_t n) {
    const __m512d inv = _mm512_set1_pd(OLK_EXP_INV_LN2_N), shift = _mm512_set1_pd(OLK_EXP_SHIFT);
    const __m512d nh = _mm512_set1_pd(OLK_EXP_NEG_LN2_HI_N), nl = _mm512_set1_pd(OLK_EXP_NEG_LN2_LO_N);
    const __m512d c2 = _mm512_set1_pd(1.0 / 2.0), c3 = _mm512_set1_pd(1.0 / 6.0);
    const __m512d c4 = _mm512_set1_pd(1.0 / 24.0), c5 = _mm512_set1_pd(1.0 / 120.0);
    const __m512i m127 = _mm512_set1_epi64(127);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512d xv = _mm512_loadu_pd(x + i);
        __m512d kd = _mm512_add_pd(_mm512_mul_pd(xv, inv), shift);
        __m512i ki = _mm512_castpd_si512(kd);
        __m512i idx = _mm512_and_si512(ki, m127);
        kd = _mm512_sub_pd(kd, shift);
        __m512d r = _mm512_add_pd(_mm512_add_pd(xv, _mm512_mul_pd(kd, nh)), _mm512_mul_pd(kd, nl));
        __m512i sb = _mm512_add_epi64(_mm512_i64gather_epi64(idx, (const long long *)olk_exp_sbits, 8),
                                      _mm512_slli_epi64(ki, 45));
        __m512d scale = _mm512_castsi512_pd(sb);
        __m512d r2 = _mm512_mul_pd(r, r);
        __m512d tail = _mm512_i64gather_pd(idx, olk_exp_tail, 8);
        __m512d tmp = _mm512_add_pd(tail, r);
        tmp = _mm512_add_pd(tmp, _mm512_mul_pd(r2, _mm512_add_pd(c2, _mm512_mul_pd(r, c3))));
        tmp = _mm512_add_pd(tmp, _mm512_mul_pd(_mm512_mul_pd(r2, r2), _mm512_add_pd(c4, _mm512_mul_pd(r, c5))));
        _mm512_storeu_pd(y + i, _mm512_add_pd(scale, _mm512_mul_pd(scale, tmp)));
    }
    for (; i < n; i++)
        y[i] = olk_exp_fast(x[i]);
}
#endif

/* which loop olk_vexp uses: 0 scalar, 1 AVX2, 2 AVX-512F (OLK_EXP_SIMD=scalar|avx2|avx512 in the environment
 * caps it, for tests and benchmarks); -1 until the first call decides */
static int olk_vexp_level = -1;


static void olk_vexp_fast(const double *restrict x, double *restrict y, Py_ssize_t n) {
#ifdef OLK_EXP_X86
    if (olk_vexp_level == 2) {
        olk_vexp_fast_avx512(x, y, n);
        return;
    }
    if (olk_vexp_level == 1) {
        olk_vexp_fast_avx2(x, y, n);
        return;
    }
#endif
    olk_vexp_fast_scalar(x, y, n);
}

/* y[i] = olk_exp(x[i]) for i < n (x and y must not overlap) */
static inline void olk_vexp(const double *restrict x, double *restrict y, Py_ssize_t n) {
    Py_ssize_t i;
    olk_vexp_fast(x, y, n);
    for (i = 0; i < n; i++)
        if (!olk_exp_in_fast_range(x[i]))
            y[i] = olk_exp(x[i]);
}

#endif
