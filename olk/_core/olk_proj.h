/* The projection and the inner product of the approximation learners (included by approx.pyx).
 *
 * olk_project(UT, D, idx, val, m, out):  out[r] = sum_t val[t] UT[idx[t], r] for r < D, every out[r] summed from
 * 0.0 over t = 0..m-1 in order (idx ascending: the row's non-zero features in column order): U x for U given as its
 * transpose UT (row-major, D columns) and x given by its non-zeros.  Blocked: 4W of the D sums are kept in four
 * W-wide vector registers (W = 8 with AVX-512F, 4 with AVX2, 2 on baseline x86-64) while the row's non-zeros stream past (the unblocked loop loaded and stored every
 * out[r] once per non-zero); the order of each sum's terms is the same, so the bits do not change.
 *
 * olk_dot8(a, b, n):  sum_i a[i] b[i] in a fixed blocked order: eight partial sums (term i goes to sum i mod 8),
 * then ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)).  Eight independent dependency chains instead of one; the
 * order is part of the definition, so every host and every vector width gives the same bits.
 *
 * olk_axpy(y, a, x, n):  y[i] = y[i] + a x[i] (the bits of numpy's y += a * x).
 *
 * All are plain C the compiler vectorises; on x86-64 with GCC or clang they are compiled for AVX-512F, AVX2 and
 * baseline x86-64 and olk_proj_level picks one (set by approx.pyx with olk_sincos.h's level).  No FMA contraction
 * (-ffp-contract=off), no reassociation: every level gives the same bits.
 */
#ifndef OLK_PROJ_H
#define OLK_PROJ_H

#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
/* W doubles as one value (GCC/clang vector extensions): eight for AVX-512F (a zmm register), four for AVX2 (ymm),
 * two on baseline x86-64 (xmm); the operations are IEEE per element whatever the width */
typedef double olk_v8d __attribute__((vector_size(64)));
typedef double olk_v4d __attribute__((vector_size(32)));
typedef double olk_v2d __attribute__((vector_size(16)));

/* out[r0 .. r0 + 4W) kept in four vectors of type VT (W lanes) while the non-zeros stream past */
#define OLK_PROJECT_BLOCKS(VT, W)                                                              \
    for (; r0 + 4 * (W) <= D; r0 += 4 * (W)) {                                                 \
        VT a0 = {0.0}, a1 = {0.0}, a2 = {0.0}, a3 = {0.0};                                     \
        for (t = 0; t < m; t++) {                                                              \
            const double *u = UT + idx[t] * D + r0;                                            \
            VT v = (VT){0.0} + val[t], u0, u1, u2, u3;                                         \
            memcpy(&u0, u, sizeof u0);                                                         \
            memcpy(&u1, u + (W), sizeof u1);                                                   \
            memcpy(&u2, u + 2 * (W), sizeof u2);                                               \
            memcpy(&u3, u + 3 * (W), sizeof u3);                                               \
            a0 += v * u0;                                                                      \
            a1 += v * u1;                                                                      \
            a2 += v * u2;                                                                      \
            a3 += v * u3;                                                                      \
        }                                                                                      \
        memcpy(out + r0, &a0, sizeof a0);                                                      \
        memcpy(out + r0 + (W), &a1, sizeof a1);                                                \
        memcpy(out + r0 + 2 * (W), &a2, sizeof a2);                                            \
        memcpy(out + r0 + 3 * (W), &a3, sizeof a3);                                            \
    }

/* the last D - r0 < 4W entries in one pass over the non-zeros, every sum in a register of its own: up to three
 * W-wide vectors, then a 4-wide, a 2-wide and a scalar one as the remainder needs (a sum kept in memory would
 * wait for its own store every term: for D = 100 that loop cost as much as a whole 4W block) */
#define OLK_PROJECT_TAIL(VT, W)                                                                \
    if (r0 < D) {                                                                              \
        Py_ssize_t nv = (D - r0) / (W), rr = (D - r0) % (W);                                   \
        Py_ssize_t c4 = r0 + nv * (W), c2 = c4 + (rr & 4), c1 = c2 + (rr & 2);                 \
        VT a0 = {0.0}, a1 = {0.0}, a2 = {0.0};                                                 \
        olk_v4d h = {0.0};                                                                     \
        olk_v2d q = {0.0};                                                                     \
        double s = 0.0;                                                                        \
        for (t = 0; t < m; t++) {                                                              \
            const double *u = UT + idx[t] * D;                                                 \
            double v = val[t];                                                                 \
            VT vv = (VT){0.0} + v, x;                                                          \
            if (nv > 0) { memcpy(&x, u + r0, sizeof x); a0 += vv * x; }                        \
            if (nv > 1) { memcpy(&x, u + r0 + (W), sizeof x); a1 += vv * x; }                  \
            if (nv > 2) { memcpy(&x, u + r0 + 2 * (W), sizeof x); a2 += vv * x; }              \
            if (rr & 4) { olk_v4d x4; memcpy(&x4, u + c4, sizeof x4); h += ((olk_v4d){0.0} + v) * x4; } \
            if (rr & 2) { olk_v2d x2; memcpy(&x2, u + c2, sizeof x2); q += ((olk_v2d){0.0} + v) * x2; } \
            if (rr & 1) s += v * u[c1];                                                        \
        }                                                                                      \
        if (nv > 0) memcpy(out + r0, &a0, sizeof a0);                                          \
        if (nv > 1) memcpy(out + r0 + (W), &a1, sizeof a1);                                    \
        if (nv > 2) memcpy(out + r0 + 2 * (W), &a2, sizeof a2);                                \
        if (rr & 4) memcpy(out + c4, &h, sizeof h);                                            \
        if (rr & 2) memcpy(out + c2, &q, sizeof q);                                            \
        if (rr & 1) out[c1] = s;                                                               \
    }
#else
#define OLK_PROJECT_BLOCKS(VT, W)
/* the entries accumulated in memory (the unblocked loop) */
#define OLK_PROJECT_TAIL(VT, W)                                                                \
    for (r = r0; r < D; r++)                                                                   \
        out[r] = 0.0;                                                                          \
    for (t = 0; t < m && r0 < D; t++) {                                                        \
        const double *u = UT + idx[t] * D;                                                     \
        double v = val[t];                                                                     \
        for (r = r0; r < D; r++)                                                               \
            out[r] += v * u[r];                                                                \
    }
#endif

/* the 4W-wide blocks, then the last entries (fewer than a block) */
#define OLK_PROJECT_BODY(VT, W)                                                                \
    Py_ssize_t r0 = 0, r, t;                                                                   \
    (void)r;                                                                                   \
    OLK_PROJECT_BLOCKS(VT, W)                                                                  \
    OLK_PROJECT_TAIL(VT, W)

#define OLK_DOT8_BODY                                                                          \
    double acc[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};                                  \
    Py_ssize_t i = 0, k;                                                                       \
    for (; i + 8 <= n; i += 8)                                                                 \
        for (k = 0; k < 8; k++)                                                                \
            acc[k] += a[i + k] * b[i + k];                                                     \
    for (k = 0; i < n; i++, k++)                                                               \
        acc[k] += a[i] * b[i];                                                                 \
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));

/* y[i] += a x[i]: y[i] + (a x[i]), each operation rounded once (numpy's ``y += a * x``) */
#define OLK_AXPY_BODY                                                                          \
    Py_ssize_t i;                                                                              \
    for (i = 0; i < n; i++)                                                                    \
        y[i] = y[i] + a * x[i];

static void olk_axpy_scalar(double *restrict y, double a, const double *restrict x, Py_ssize_t n) {
    OLK_AXPY_BODY
}

static void olk_project_scalar(const double *restrict UT, Py_ssize_t D, const Py_ssize_t *restrict idx,
                               const double *restrict val, Py_ssize_t m, double *restrict out) {
    OLK_PROJECT_BODY(olk_v2d, 2)
}

static double olk_dot8_scalar(const double *restrict a, const double *restrict b, Py_ssize_t n) {
    OLK_DOT8_BODY
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(OLK_NO_SIMD)
#define OLK_PROJ_X86 1
__attribute__((target("avx2")))
static void olk_project_avx2(const double *restrict UT, Py_ssize_t D, const Py_ssize_t *restrict idx,
                             const double *restrict val, Py_ssize_t m, double *restrict out) {
    OLK_PROJECT_BODY(olk_v4d, 4)
}

__attribute__((target("avx512f")))
static void olk_project_avx512(const double *restrict UT, Py_ssize_t D, const Py_ssize_t *restrict idx,
                               const double *restrict val, Py_ssize_t m, double *restrict out) {
    OLK_PROJECT_BODY(olk_v8d, 8)
}

__attribute__((target("avx2")))
static void olk_axpy_avx2(double *restrict y, double a, const double *restrict x, Py_ssize_t n) {
    OLK_AXPY_BODY
}

__attribute__((target("avx512f")))
static void olk_axpy_avx512(double *restrict y, double a, const double *restrict x, Py_ssize_t n) {
    OLK_AXPY_BODY
}

__attribute__((target("avx2")))
static double olk_dot8_avx2(const double *restrict a, const double *restrict b, Py_ssize_t n) {
    OLK_DOT8_BODY
}

__attribute__((target("avx512f")))
static double olk_dot8_avx512(const double *restrict a, const double *restrict b, Py_ssize_t n) {
    OLK_DOT8_BODY
}
#endif

/* 0 scalar, 1 AVX2, 2 AVX-512F */
static int olk_proj_level = 0;

static void olk_project(const double *UT, Py_ssize_t D, const Py_ssize_t *idx, const double *val, Py_ssize_t m,
                        double *out) {
#ifdef OLK_PROJ_X86
    if (olk_proj_level == 2) {
        olk_project_avx512(UT, D, idx, val, m, out);
        return;
    }
    if (olk_proj_level == 1) {
        olk_project_avx2(UT, D, idx, val, m, out);
        return;
    }
#endif
    olk_project_scalar(UT, D, idx, val, m, out);
}

static void olk_axpy(double *y, double a, const double *x, Py_ssize_t n) {
#ifdef OLK_PROJ_X86
    if (olk_proj_level == 2) {
        olk_axpy_avx512(y, a, x, n);
        return;
    }
    if (olk_proj_level == 1) {
        olk_axpy_avx2(y, a, x, n);
        return;
    }
#endif
    olk_axpy_scalar(y, a, x, n);
}

static double olk_dot8(const double *a, const double *b, Py_ssize_t n) {
#ifdef OLK_PROJ_X86
    if (olk_proj_level == 2)
        return olk_dot8_avx512(a, b, n);
    if (olk_proj_level == 1)
        return olk_dot8_avx2(a, b, n);
#endif
    return olk_dot8_scalar(a, b, n);
}

#endif
