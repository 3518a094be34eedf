# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Reference loops for ``olk bench``: what one core can do, measured in the same run as olk.

The kernel Perceptron with a Gaussian kernel, written as the tightest plain C loop we know for the same data
layout as olk's pool (sparse: the SVs' (index, value) runs in one flat buffer and the query scattered into a
dense work vector; dense: the SVs' rows in one C-contiguous block), the same arithmetic (the products summed
in column order from 0.0, d2 = (|x|^2 + |sv|^2) - 2<x,sv> clipped at 0, olk's portable exp, the sum over
SVs in slot order) and none of olk's machinery: no Python per example, no kernel sets, no coefficient
columns, no owner masks, no checks.  Two variants:

* ``scalar``: one SV at a time, the scalar exp (the classic loop);
* ``vector``: the SVs in blocks of 128, the block's exp arguments first, then one vectorised exp
  (olk_exp.h: AVX-512F / AVX2 gathers), then the sums;
* ``best``: ``vector`` with four products interleaved (four independent dependency chains; each product still
  summed in its own column order) and, on binary sparse data (every stored value 1.0), the product by 1.0
  skipped (w * 1.0 == w exactly): the fastest plain loop we know for this layout and this arithmetic.  Its
  products are the core's own (olk_dot.h), so "best" differs from olk only by what olk adds around the loop.

Both give the same bits as olk's Perceptron (same SVs, same mistakes), which ``olk bench`` checks.  The
fastest of them is the "single-core limit" the bench reports olk's evaluation rate against.  They are
benchmarks only: no learner uses this module.
"""
import time

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cdef extern from "olk_exp.h" nogil:
    int olk_vexp_level
    double olk_exp(double x)
    void olk_vexp(const double* x, double* y, Py_ssize_t n)

cdef extern from "olk_dot.h" nogil:
    void olk_sparse_dot4(const double* w, const int* ix, const double* vv, const Py_ssize_t* start,
                         const Py_ssize_t* length, Py_ssize_t s, int unit, double* p)
    void olk_dense_dot4(const double* x, const double* rows, Py_ssize_t ld, Py_ssize_t d, Py_ssize_t s, double* p)

cnp.import_array()


def _sync_level():
    """Use the SIMD level svpool uses now (olk.exp_simd / OLK_EXP_SIMD)."""
    global olk_vexp_level
    from .svpool import EXP_SIMD_LEVELS, exp_simd_now
    olk_vexp_level = EXP_SIMD_LEVELS.index(exp_simd_now())


cdef enum:
    BLOCK = 128


cdef inline double _arg(double gamma, double qn, double sn, double prod) noexcept nogil:
    cdef double d2 = qn + sn - 2.0 * prod
    if d2 < 0.0:
        d2 = 0.0
    return -gamma * d2


cdef long long _sparse(const cnp.int64_t* indptr, const cnp.int32_t* indices, const double* data,
                       const double* y, const Py_ssize_t* order, Py_ssize_t n, Py_ssize_t d, Py_ssize_t nnz,
                       double gamma, bint vector, bint best, Py_ssize_t* n_sv_out, long long* mistakes_out) noexcept nogil:
    # n: examples in `order`; nnz: their total non-zeros (the most the SV store can need)
    cdef Py_ssize_t* start = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
    cdef Py_ssize_t* length = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
    cdef int* sidx = <int*> malloc((nnz + 1) * sizeof(int))
    cdef double* sval = <double*> malloc((nnz + 1) * sizeof(double))
    cdef double* coef = <double*> malloc(n * sizeof(double))
    cdef double* norm = <double*> malloc(n * sizeof(double))
    cdef double* work = <double*> malloc((d + 1) * sizeof(double))
    cdef double* arg = <double*> malloc(BLOCK * sizeof(double))
    cdef double* val = <double*> malloc(BLOCK * sizeof(double))
    cdef Py_ssize_t t, i, j, a, e, s, s0, s1, nsv = 0, used = 0
    cdef long long evals = 0, mistakes = 0
    cdef double f, qn, acc, v
    cdef double prod4[4]
    cdef bint unit = True               # every stored value is 1.0 so far (binary data: skip the product by 1.0)
    memset(work, 0, (d + 1) * sizeof(double))
    for t in range(n):
        i = order[t]
        a = indptr[i]
        e = indptr[i + 1]
        qn = 0.0
        for j in range(a, e):
            v = data[j]
            work[indices[j]] = v
            qn += v * v
        f = 0.0
        if vector:
            s0 = 0
            while s0 < nsv:
                s1 = s0 + BLOCK if s0 + BLOCK < nsv else nsv
                s = s0
                if best:
                    while s + 4 <= s1:
                        olk_sparse_dot4(work, sidx, sval, start, length, s, unit, prod4)
                        for j in range(4):
                            arg[s - s0 + j] = _arg(gamma, qn, norm[s + j], prod4[j])
                        s += 4
                while s < s1:
                    acc = 0.0
                    for j in range(start[s], start[s] + length[s]):
                        acc += work[sidx[j]] * sval[j]
                    arg[s - s0] = _arg(gamma, qn, norm[s], acc)
                    s += 1
                olk_vexp(arg, val, s1 - s0)
                for s in range(s0, s1):
                    f += coef[s] * val[s - s0]
                s0 = s1
        else:
            for s in range(nsv):
                acc = 0.0
                for j in range(start[s], start[s] + length[s]):
                    acc += work[sidx[j]] * sval[j]
                f += coef[s] * olk_exp(_arg(gamma, qn, norm[s], acc))
        evals += nsv
        if (f >= 0.0) != (y[i] > 0.0):          # the online mistake: sign(f), sign(0) = +1
            mistakes += 1
        if y[i] * f <= 0.0:                     # the Perceptron's update (olk/algorithms/single/perceptron.py)
            start[nsv] = used
            length[nsv] = e - a
            for j in range(a, e):
                sidx[used] = indices[j]
                sval[used] = data[j]
                if data[j] != 1.0:
                    unit = False
                used += 1
            coef[nsv] = y[i]
            norm[nsv] = qn
            nsv += 1
        for j in range(a, e):
            work[indices[j]] = 0.0
    free(start); free(length); free(sidx); free(sval); free(coef); free(norm); free(work); free(arg); free(val)
    n_sv_out[0] = nsv
    mistakes_out[0] = mistakes
    return evals


cdef long long _dense(const double* X, const double* y, const Py_ssize_t* order, Py_ssize_t n, Py_ssize_t d,
                      double gamma, bint vector, bint best, Py_ssize_t* n_sv_out, long long* mistakes_out) noexcept nogil:
    # n: examples in `order` (the most SVs the store can need)
    cdef double* rows = <double*> malloc((n * d + 1) * sizeof(double))
    cdef double* coef = <double*> malloc(n * sizeof(double))
    cdef double* norm = <double*> malloc(n * sizeof(double))
    cdef double* arg = <double*> malloc(BLOCK * sizeof(double))
    cdef double* val = <double*> malloc(BLOCK * sizeof(double))
    cdef Py_ssize_t t, i, j, s, s0, s1, nsv = 0
    cdef long long evals = 0, mistakes = 0
    cdef double f, qn, acc, v
    cdef const double* x
    cdef const double* r
    cdef double prod4[4]
    for t in range(n):
        i = order[t]
        x = &X[i * d]
        qn = 0.0
        for j in range(d):
            qn += x[j] * x[j]
        f = 0.0
        if vector:
            s0 = 0
            while s0 < nsv:
                s1 = s0 + BLOCK if s0 + BLOCK < nsv else nsv
                s = s0
                if best:
                    while s + 4 <= s1:
                        olk_dense_dot4(x, rows, d, d, s, prod4)
                        for j in range(4):
                            arg[s - s0 + j] = _arg(gamma, qn, norm[s + j], prod4[j])
                        s += 4
                while s < s1:
                    r = &rows[s * d]
                    acc = 0.0
                    for j in range(d):
                        acc += x[j] * r[j]
                    arg[s - s0] = _arg(gamma, qn, norm[s], acc)
                    s += 1
                olk_vexp(arg, val, s1 - s0)
                for s in range(s0, s1):
                    f += coef[s] * val[s - s0]
                s0 = s1
        else:
            for s in range(nsv):
                r = &rows[s * d]
                acc = 0.0
                for j in range(d):
                    acc += x[j] * r[j]
                f += coef[s] * olk_exp(_arg(gamma, qn, norm[s], acc))
        evals += nsv
        if (f >= 0.0) != (y[i] > 0.0):          # the online mistake: sign(f), sign(0) = +1
            mistakes += 1
        if y[i] * f <= 0.0:                     # the Perceptron's update (olk/algorithms/single/perceptron.py)
            for j in range(d):
                rows[nsv * d + j] = x[j]
            coef[nsv] = y[i]
            norm[nsv] = qn
            nsv += 1
    free(rows); free(coef); free(norm); free(arg); free(val)
    n_sv_out[0] = nsv
    mistakes_out[0] = mistakes
    return evals


VARIANTS = ("scalar", "vector", "best")


def perceptron_pass(X, y, order, double gamma, str variant="best"):
    """One online pass of the Gaussian-kernel Perceptron over the rows of X (scipy CSR or dense) in `order`,
    labels y in {-1, +1}.  Returns a dict: n_sv, mistakes, kernel_evals, time_s (the loop alone)."""
    import scipy.sparse as sp
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    _sync_level()
    cdef bint vec = variant != "scalar"
    cdef bint best = variant == "best"
    cdef const double[::1] yy = np.ascontiguousarray(y, dtype=np.float64)
    cdef const Py_ssize_t[::1] oo = np.ascontiguousarray(order, dtype=np.intp)
    cdef Py_ssize_t n = oo.shape[0], nsv = 0, total, d
    cdef long long mistakes = 0, evals
    cdef const cnp.int64_t[::1] ip
    cdef const cnp.int32_t[::1] ix
    cdef const double[::1] dv
    cdef const double[:, ::1] Xd
    if sp.issparse(X):
        A = sp.csr_matrix(X)
        A.sort_indices()
        ip = np.ascontiguousarray(A.indptr, dtype=np.int64)
        ix = np.ascontiguousarray(A.indices, dtype=np.int32)
        dv = np.ascontiguousarray(A.data, dtype=np.float64)
        if n and (np.min(order) < 0 or np.max(order) >= A.shape[0]):
            raise IndexError("order holds a row index out of range")
        total = int(np.diff(A.indptr)[np.asarray(oo)].sum())
        d = A.shape[1]
        t0 = time.perf_counter()
        with nogil:
            evals = _sparse(&ip[0], &ix[0], &dv[0] if dv.shape[0] else NULL, &yy[0], &oo[0], n, d, total,
                            gamma, vec, best, &nsv, &mistakes)
    else:
        Xd = np.ascontiguousarray(X, dtype=np.float64)
        if n and (np.min(order) < 0 or np.max(order) >= Xd.shape[0]):
            raise IndexError("order holds a row index out of range")
        t0 = time.perf_counter()
        with nogil:
            evals = _dense(&Xd[0, 0], &yy[0], &oo[0], n, Xd.shape[1], gamma, vec, best, &nsv, &mistakes)
    elapsed = time.perf_counter() - t0
    return {"n_sv": int(nsv), "mistakes": int(mistakes), "kernel_evals": int(evals), "time_s": elapsed}
