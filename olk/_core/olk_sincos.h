/* olk's portable sin and cos, scalar and over arrays (included by approx.pyx: FOGD's random Fourier features).
 *
 * Like olk_exp.h for exp: made of IEEE-754 additions, multiplications, exact integer/bit operations and fmod
 * (whose result is exact by definition) only, so it gives the same bits on every host (the build passes
 * -ffp-contract=off: no FMA contraction).  libm's sin and cos differ between C libraries and, in glibc, between
 * the FMA and the plain code paths of one library; one last-bit flip can flip a hinge test (y f < 1), so FOGD
 * uses these instead and is bit-identical on every machine.
 *
 * Algorithm (the classic scheme of Sun's fdlibm, whose published minimax coefficients are used below; the code
 * is olk's own):
 *
 *   n = round(x 2/pi),  r = x - n pi/2 as a double-double (r, e): pi/2 is split into P1 + P2 + P3 (33 bits
 *       each, so n Pk is exact for |n| < 2^20) + P4 (the rest to double precision: pi/2 to 152 bits); x - n P1
 *       is exact (Sterbenz), the other subtractions are exact two-sums whose errors go into e;
 *   sin(r + e), cos(r + e) on |r| <= pi/4 by fdlibm's kernels (degree 13 and 14 polynomials with the first-
 *       order correction for e);
 *   the quadrant q = n mod 4 picks and signs them: sin x = (S, C, -S, -C)[q], cos x = (C, -S, -C, S)[q].
 *
 * The fast path covers |x| <= 2^20 (tests/test_sincos.py: <= 1 ulp against the C library there).  Beyond it (and
 * for inf / NaN) the scalar slow path first subtracts multiples of pi/2 whose multiplier keeps 20 significant
 * bits (every product with P1..P3 exact, the first subtraction exact), carrying the remainder as a double-double,
 * until it is within 2^20: still <= 1 ulp up to |x| = 2^60 (tested); the rounding of the carried remainder then
 * grows (~20 ulp at 2^80), and far beyond the result is deterministic but meaningless, as any feature argument
 * that large is (beyond 2^55 the spacing of doubles exceeds 2 pi).
 *
 * olk_vsincos(x, s, c, n, scale) applies it to an array: s[i] = sin(x[i]) * scale, c[i] = cos(x[i]) * scale.  The
 * loop is plain C written branch-free so the compiler vectorises it; on x86-64 with GCC or clang it is compiled
 * for AVX-512F, AVX2 and baseline x86-64 and the level in olk_vsincos_level picks one (the same knob as the exp:
 * OLK_EXP_SIMD).  Vector width changes how many elements are done at once, never the arithmetic of one element:
 * every level gives the scalar olk_sincos's bits (tests/test_sincos.py).
 */
#ifndef OLK_SINCOS_H
#define OLK_SINCOS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "olk_cpu.h"

#if defined(__GNUC__) || defined(__clang__)
#define OLK_SC_INLINE static inline __attribute__((always_inline))
#else
#define OLK_SC_INLINE static inline
#endif

#define OLK_SC_INV_PIO2 0x1.45f306dc9c883p-1     /* 2/pi */
#define OLK_SC_SHIFT 0x1.8p52                    /* round to nearest integer by adding and subtracting 1.5 2^52 */
#define OLK_SC_P1 0x1.921fb544p0                 /* pi/2 = P1 + P2 + P3 + P4: 33 + 33 + 33 + 53 bits */
#define OLK_SC_P2 0x1.0b4611a6p-34
#define OLK_SC_P3 0x1.3198a2ep-69
#define OLK_SC_P4 0x1.b839a252049c1p-104
#define OLK_SC_FAST 0x1p20

/* fdlibm's kernel coefficients (k_sin.c, k_cos.c; Copyright (C) 1993 by Sun Microsystems, Inc.: "Permission to
 * use, copy, modify, and distribute this software is freely granted, provided that this notice is preserved.") */
#define OLK_S1 -1.66666666666666324348e-01
#define OLK_S2 8.33333333332248946124e-03
#define OLK_S3 -1.98412698298579493134e-04
#define OLK_S4 2.75573137070700676789e-06
#define OLK_S5 -2.50507602534068634195e-08
#define OLK_S6 1.58969099521155010221e-10
#define OLK_C1 4.16666666666666019037e-02
#define OLK_C2 -1.38888888888741095749e-03
#define OLK_C3 2.48015872894767294178e-05
#define OLK_C4 -2.75573143513906633035e-07
#define OLK_C5 2.08757232129817482790e-09
#define OLK_C6 -1.13596475577881948265e-11

/* a + b = s + *err exactly (Knuth's two-sum: no condition on the magnitudes) */
OLK_SC_INLINE double olk_two_sum(double a, double b, double *err) {
    double s = a + b, bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    return s;
}

/* sin and cos of x + xlo for |x| <= 2^20 (xlo: a tail far below x's last bit, 0 but on the slow path), plus
 * `quad` quarter turns (the slow path's count); branch-free */
OLK_SC_INLINE void olk_sincos_fast(double x, double xlo, int64_t quad, double *s, double *c) {
    double kd = x * OLK_SC_INV_PIO2 + OLK_SC_SHIFT;
    int64_t ki;
    memcpy(&ki, &kd, 8);
    double n = kd - OLK_SC_SHIFT;
    int64_t q = (ki + quad) & 3;
    /* r + e = x + xlo - n (P1 + P2 + P3 + P4) */
    double e1, e2;
    double t = x - n * OLK_SC_P1;                /* exact */
    double r1 = olk_two_sum(t, -(n * OLK_SC_P2), &e1);
    double r2 = olk_two_sum(r1, -(n * OLK_SC_P3), &e2);
    double e0 = ((e1 + e2) - n * OLK_SC_P4) + xlo;
    double r = r2 + e0;
    double e = e0 - (r - r2);
    /* the kernels on |r| <= pi/4 */
    double z = r * r, v = z * r, zz = z * z;
    double ps = OLK_S2 + z * (OLK_S3 + z * (OLK_S4 + z * (OLK_S5 + z * OLK_S6)));
    double sk = r - ((z * (0.5 * e - v * ps) - e) - v * OLK_S1);
    double pc = z * (OLK_C1 + z * (OLK_C2 + z * OLK_C3)) + zz * zz * (OLK_C4 + z * (OLK_C5 + z * OLK_C6));
    double hz = 0.5 * z, one_hz = 1.0 - hz;
    double ck = one_hz + (((1.0 - one_hz) - hz) + (z * pc - r * e));
    /* the quadrant: sin x = (S, C, -S, -C)[q], cos x = (C, -S, -C, S)[q]: a swap and two sign flips as bit
     * operations (exact, and branch-free so that every SIMD level vectorises it) */
    uint64_t sb, cb, swap = (uint64_t)0 - (uint64_t)(q & 1), t0;
    memcpy(&sb, &sk, 8);
    memcpy(&cb, &ck, 8);
    t0 = (sb ^ cb) & swap;
    sb ^= t0;
    cb ^= t0;
    sb ^= ((uint64_t)(q & 2)) << 62;
    cb ^= ((uint64_t)((q + 1) & 2)) << 62;
    memcpy(s, &sb, 8);
    memcpy(c, &cb, 8);
}

OLK_SC_INLINE int olk_sincos_in_fast_range(double x) {
    return fabs(x) <= OLK_SC_FAST;
}

/* sin(x) and cos(x) for any double, the same bits on every host */
static void olk_sincos(double x, double *s, double *c) {
    int64_t quad = 0;
    double lo = 0.0, e1, e2;
    if (olk_sincos_in_fast_range(x)) {
        olk_sincos_fast(x, 0.0, 0, s, c);
        return;
    }
    if (!(x - x == 0.0)) {                       /* inf or NaN */
        *s = *c = x - x;
        return;
    }
    while (!olk_sincos_in_fast_range(x)) {
        /* nt = round(x 2/pi) cut to 20 significant bits: nt P1..P3 exact, x - nt P1 exact (within a factor 2) */
        double n = nearbyint(x * OLK_SC_INV_PIO2), nt;
        uint64_t b;
        memcpy(&b, &n, 8);
        b &= ~((((uint64_t)1) << 33) - 1);       /* keep sign, exponent and the top 19 stored bits */
        memcpy(&nt, &b, 8);
        quad += (int64_t)fmod(nt, 4.0);          /* exact: nt is an integer (a multiple of 4 once above 2^21) */
        double t = x - nt * OLK_SC_P1;
        double s1 = olk_two_sum(t, -(nt * OLK_SC_P2), &e1);
        double s2 = olk_two_sum(s1, -(nt * OLK_SC_P3), &e2);
        lo += (e1 + e2) - nt * OLK_SC_P4;
        x = olk_two_sum(s2, lo, &lo);            /* the remainder x + lo, renormalised */
    }
    olk_sincos_fast(x, lo, quad & 3, s, c);
}

/* the fast path over an array, every element in range or not (an out-of-range x gives a meaningless but harmless
 * value: no traps); returns whether any element was out of range (or NaN).  x must not overlap s or c.
 * STORE_SIN is the sine's store (``s[i] = si * scale;``), or nothing for the one-cosine map (cos only). */
#define OLK_VSC_BODY(STORE_SIN)                                                                \
    Py_ssize_t i;                                                                              \
    int bad = 0;                                                                               \
    double si, ci;                                                                             \
    for (i = 0; i < n; i++) {                                                                  \
        olk_sincos_fast(x[i], 0.0, 0, &si, &ci);                                               \
        bad |= !(fabs(x[i]) <= OLK_SC_FAST);                                                   \
        STORE_SIN                                                                              \
        c[i] = ci * scale;                                                                     \
    }                                                                                          \
    return bad;

/* s[i] = sin(x[i]) * scale, c[i] = cos(x[i]) * scale */
#define OLK_VSINCOS_BODY OLK_VSC_BODY(s[i] = si * scale;)

/* cos only (the one-cosine map): c[i] = cos(x[i]) * scale */
#define OLK_VCOS_BODY OLK_VSC_BODY()

static int olk_vsincos_fast_scalar(const double *restrict x, double *restrict s, double *restrict c, Py_ssize_t n,
                                   double scale) {
    OLK_VSINCOS_BODY
}

static int olk_vcos_fast_scalar(const double *restrict x, double *restrict c, Py_ssize_t n, double scale) {
    OLK_VCOS_BODY
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(OLK_NO_SIMD)
#define OLK_SC_X86 1
__attribute__((target("avx2")))
static int olk_vsincos_fast_avx2(const double *restrict x, double *restrict s, double *restrict c, Py_ssize_t n,
                                 double scale) {
    OLK_VSINCOS_BODY
}

__attribute__((target("avx512f")))
static int olk_vsincos_fast_avx512(const double *restrict x, double *restrict s, double *restrict c, Py_ssize_t n,
                                   double scale) {
    OLK_VSINCOS_BODY
}

__attribute__((target("avx2")))
static int olk_vcos_fast_avx2(const double *restrict x, double *restrict c, Py_ssize_t n, double scale) {
    OLK_VCOS_BODY
}

__attribute__((target("avx512f")))
static int olk_vcos_fast_avx512(const double *restrict x, double *restrict c, Py_ssize_t n, double scale) {
    OLK_VCOS_BODY
}
#endif

/* which loop: 0 scalar, 1 AVX2, 2 AVX-512F (set by approx.pyx from OLK_EXP_SIMD and the CPU) */
static int olk_vsincos_level = 0;


/* s[i] = sin(x[i]) * scale, c[i] = cos(x[i]) * scale for i < n: the same bits as olk_sincos on every level */
static void olk_vsincos(const double *restrict x, double *restrict s, double *restrict c, Py_ssize_t n,
                        double scale) {
    Py_ssize_t i;
    int bad;
    double si, ci;
#ifdef OLK_SC_X86
    if (olk_vsincos_level == 2)
        bad = olk_vsincos_fast_avx512(x, s, c, n, scale);
    else if (olk_vsincos_level == 1)
        bad = olk_vsincos_fast_avx2(x, s, c, n, scale);
    else
#endif
        bad = olk_vsincos_fast_scalar(x, s, c, n, scale);
    if (bad)
        for (i = 0; i < n; i++)
            if (!olk_sincos_in_fast_range(x[i])) {
                olk_sincos(x[i], &si, &ci);
                s[i] = si * scale;
                c[i] = ci * scale;
            }
}

/* c[i] = cos(x[i]) * scale for i < n */
static void olk_vcos(const double *restrict x, double *restrict c, Py_ssize_t n, double scale) {
    Py_ssize_t i;
    int bad;
    double si, ci;
#ifdef OLK_SC_X86
    if (olk_vsincos_level == 2)
        bad = olk_vcos_fast_avx512(x, c, n, scale);
    else if (olk_vsincos_level == 1)
        bad = olk_vcos_fast_avx2(x, c, n, scale);
    else
#endif
        bad = olk_vcos_fast_scalar(x, c, n, scale);
    if (bad)
        for (i = 0; i < n; i++)
            if (!olk_sincos_in_fast_range(x[i])) {
                olk_sincos(x[i], &si, &ci);
                c[i] = ci * scale;
            }
}

#endif
