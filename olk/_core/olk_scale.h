/* v[i] *= f over a contiguous run, reporting whether any product is zero (included by svpool.pyx: the one-column
 * pool's scale_col, e.g. BOGD's (1 - eta lambda) shrinkage at every step).
 *
 * The products are the plain loop's (one IEEE multiplication each: the same bits at every width).  A zero (a zero
 * coefficient, or an underflow) is found as the minimum of |product|'s bit pattern (|x| orders like its bits with
 * the sign cleared), an integer min the compiler vectorises; the caller then updates the owner bits.  Compiled for
 * AVX-512F, AVX2 and baseline x86-64, picked by the pool's SIMD level (olk_vexp_level of olk_exp.h, included
 * before this header).
 */
#ifndef OLK_SCALE_H
#define OLK_SCALE_H

#include <stdint.h>
#include <string.h>

#define OLK_SCALE_BODY                                                                         \
    Py_ssize_t i;                                                                              \
    int64_t mn = INT64_MAX;                                                                    \
    for (i = 0; i < n; i++) {                                                                  \
        double p = v[i] * f;                                                                   \
        int64_t b;                                                                             \
        v[i] = p;                                                                              \
        memcpy(&b, &p, 8);                                                                     \
        b &= INT64_MAX;                                                                        \
        mn = b < mn ? b : mn;                                                                  \
    }                                                                                          \
    return mn == 0;

static int olk_scale_scalar(double *restrict v, Py_ssize_t n, double f) {
    OLK_SCALE_BODY
}

#ifdef OLK_EXP_X86
__attribute__((target("avx2")))
static int olk_scale_avx2(double *restrict v, Py_ssize_t n, double f) {
    OLK_SCALE_BODY
}

__attribute__((target("avx512f")))
static int olk_scale_avx512(double *restrict v, Py_ssize_t n, double f) {
    OLK_SCALE_BODY
}
#endif

/* v[i] *= f for i < n; returns 1 if any v[i] is now zero */
static int olk_scale(double *v, Py_ssize_t n, double f) {
#ifdef OLK_EXP_X86
    if (olk_vexp_level == 2)
        return olk_scale_avx512(v, n, f);
    if (olk_vexp_level == 1)
        return olk_scale_avx2(v, n, f);
#endif
    return olk_scale_scalar(v, n, f);
}

#endif
