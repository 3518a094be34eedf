# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The coordinate sweep of the batch kernel logistic regression baseline DCD (Zhang, Jin, Chen, Bu & He, AAAI
2012, Figure 5; :mod:`olk.algorithms.klr_dcd`, whose docstring gives the algorithm and every reading): one call
per sweep over the n coordinates, each sub-problem's Newton loop and its O(n) update of f in C instead of
Python floats and a numpy call per coordinate.

The kernel column K[:, i] comes from the cached n x n matrix when there is one, else from the SV pool that holds
the training rows (:mod:`olk._core.svpool`, ``cimport``\\ ed through svpool.pxd: the same values and evaluation
count as ``KernelColumns.col``).  The arithmetic is the Python reading's, in C doubles with libm's log; results
agree with the Python version to rounding, within the learner's declared reproducibility.

PCD (:mod:`olk.algorithms.klr_pcd`) stays in numpy: its coordinate step is bound by its n expm1, log1p and exp
evaluations (the same work in C or numpy), and a C version of its sweep measured no faster at n = 1,950
(``olk bench klr --baseline``, 3 pairs: 0.94-1.00 of the numpy version's time).
"""
from libc.math cimport fabs, log
from libc.stdlib cimport free, malloc

from .svpool cimport RowSource, SVPool


cdef inline const double* _column(const double* K, SVPool pool, RowSource src, Py_ssize_t j, double* buf,
                                  Py_ssize_t n) noexcept nogil:
    """K[:, j] (= row j: K is symmetric): a row of the cache K (C-contiguous n x n), or, when K is NULL, computed
    by the pool into buf."""
    if K != NULL:
        return K + j * n
    pool._kernel_values(src, j, buf, n)
    return buf


def _check(SVPool pool, RowSource src, K, Py_ssize_t n):
    if K is None:
        if pool is None or src is None or pool.n_kernels != 1 or pool.n_sv != n or src.n_rows != n:
            raise ValueError("without a cached matrix the pool must hold the n training rows (one kernel)")
        pool._check_src(src, 0)
    elif K.shape[0] != n or K.shape[1] != n:
        raise ValueError("K must be n x n")


def dcd_sweep(K, SVPool pool, RowSource src, const double[::1] y, const double[::1] diag, double[::1] alpha,
              double[::1] alpha_c, double[::1] f, double C, double eps_in, double eta, int max_inner):
    """One DCD sweep (:meth:`olk.algorithms.klr_dcd.KLRDCD._solve`) over i = 0..n-1, in place: the one-variable
    sub-problem of alpha_i solved by Yu, Huang & Lin's safeguarded Newton loop on z (alpha_i, or C - alpha_i past
    C/2) until |g'| < eps_in (at most max_inner + 1 steps); a moved alpha_i updates alpha_c and f += d y_i K[:, i].
    K: the cached n x n matrix, or None (columns from the pool, computed only for a coordinate that moves).
    Returns (updates, Newton steps)."""
    cdef Py_ssize_t n = y.shape[0], i, r
    cdef long updates = 0, newton = 0
    cdef int inner
    cdef double a, yi, b, ai, aci, z0, sign, z, sb, gp, zn, d, dy, half_C = 0.5 * C
    cdef const double[:, ::1] Km
    cdef const double* Kp = NULL
    cdef const double* k
    _check(pool, src, K, n)
    if K is not None and n > 0:
        Km = K
        Kp = &Km[0, 0]
    cdef double* buf = <double*> malloc((n if n > 0 else 1) * sizeof(double))
    if buf == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            a = diag[i]
            yi = y[i]
            b = yi * f[i]
            ai = alpha[i]
            aci = alpha_c[i]
            if 0.5 * a * (aci - ai) + b < 0.0:            # optimum past C/2: move C - alpha_i instead
                z0 = aci
                sign = -1.0
            else:
                z0 = ai
                sign = 1.0
            z = 0.1 * z0 if C - z0 < half_C else z0
            sb = sign * b
            gp = a * (z - z0) + sb + log(z / (C - z))
            inner = 0
            while inner <= max_inner and fabs(gp) >= eps_in:
                zn = z - gp / (a + C / ((C - z) * z))
                z = zn if zn > 0.0 else eta * z
                gp = a * (z - z0) + sb + log(z / (C - z))
                inner += 1
            newton += inner
            if inner == 0:
                continue
            if sign > 0:
                alpha[i] = z
                alpha_c[i] = C - z
                d = z - ai
            else:
                alpha[i] = C - z
                alpha_c[i] = z
                d = aci - z                                # = new alpha_i - old alpha_i
            if d != 0.0:
                k = _column(Kp, pool, src, i, buf, n)
                dy = d * yi
                for r in range(n):
                    f[r] += dy * k[r]
                updates += 1
    free(buf)
    return updates, newton
