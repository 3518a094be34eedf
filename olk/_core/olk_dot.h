/* Four inner products at once (included by svpool.pyx and refloop.pyx).
 *
 * Each product <x, sv_s> is summed exactly as one SV at a time sums it: from 0.0, one term per stored column in
 * column order.  Four of them are interleaved so the CPU works on four independent dependency chains instead of
 * one (a sum's additions must stay in order, so one product alone is latency-bound); the bits do not change.
 */
#ifndef OLK_DOT_H
#define OLK_DOT_H

/* always inlined: called from several loops of one module, the compiler would otherwise keep one out-of-line copy
 * (a call per four SVs, and `unit` no longer a constant of the loop around it) */
#if defined(__GNUC__) || defined(__clang__)
#define OLK_DOT_INLINE static inline __attribute__((always_inline))
#else
#define OLK_DOT_INLINE static inline
#endif

/* p[b] = <x, sv_{s+b}>, b < 4, for SVs stored as (index, value) runs: run b starts at start[s+b] and has
 * len[s+b] entries of ix / vv; the query x is scattered into the dense vector w.  unit != 0: every stored value
 * is 1.0, and w * 1.0 == w exactly, so the product is skipped (binary features). */
OLK_DOT_INLINE void olk_sparse_dot4(const double *w, const int *ix, const double *vv, const Py_ssize_t *start,
                                   const Py_ssize_t *len, Py_ssize_t s, int unit, double *p) {
    Py_ssize_t j, n, p0 = start[s], p1 = start[s + 1], p2 = start[s + 2], p3 = start[s + 3];
    Py_ssize_t n0 = len[s], n1 = len[s + 1], n2 = len[s + 2], n3 = len[s + 3];
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    n = n0;
    if (n1 < n) n = n1;
    if (n2 < n) n = n2;
    if (n3 < n) n = n3;
    if (unit) {
        for (j = 0; j < n; j++) {
            a0 += w[ix[p0 + j]];
            a1 += w[ix[p1 + j]];
            a2 += w[ix[p2 + j]];
            a3 += w[ix[p3 + j]];
        }
    } else {
        for (j = 0; j < n; j++) {
            a0 += w[ix[p0 + j]] * vv[p0 + j];
            a1 += w[ix[p1 + j]] * vv[p1 + j];
            a2 += w[ix[p2 + j]] * vv[p2 + j];
            a3 += w[ix[p3 + j]] * vv[p3 + j];
        }
    }
    for (j = n; j < n0; j++) a0 += w[ix[p0 + j]] * vv[p0 + j];
    for (j = n; j < n1; j++) a1 += w[ix[p1 + j]] * vv[p1 + j];
    for (j = n; j < n2; j++) a2 += w[ix[p2 + j]] * vv[p2 + j];
    for (j = n; j < n3; j++) a3 += w[ix[p3 + j]] * vv[p3 + j];
    p[0] = a0;
    p[1] = a1;
    p[2] = a2;
    p[3] = a3;
}

/* p[b] = <x, sv_{s+b}>, b < 4, over the first d columns, for SVs stored as dense rows of leading dimension ld */
OLK_DOT_INLINE void olk_dense_dot4(const double *x, const double *rows, Py_ssize_t ld, Py_ssize_t d, Py_ssize_t s,
                                  double *p) {
    Py_ssize_t j;
    const double *r0 = rows + s * ld, *r1 = r0 + ld, *r2 = r1 + ld, *r3 = r2 + ld;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, xj;
    for (j = 0; j < d; j++) {
        xj = x[j];
        a0 += xj * r0[j];
        a1 += xj * r1[j];
        a2 += xj * r2[j];
        a3 += xj * r3[j];
    }
    p[0] = a0;
    p[1] = a1;
    p[2] = a2;
    p[3] = a3;
}

#endif
