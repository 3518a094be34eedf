# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Merging two support vectors of a Gaussian-kernel expansion into one (BSGD's budget maintenance: Wang, Crammer &
Vucetic, JMLR 13, 2012, Section 6.3; used by :mod:`olk.algorithms.budget.bsgd`).

For k(x, x') = exp(-gamma ||x - x'||^2) and a merged point z = h x_m + (1 - h) x_n on the line through x_m and x_n,
||x_m - z||^2 = (1 - h)^2 d2 and ||x_n - z||^2 = h^2 d2 with d2 = ||x_m - x_n||^2, so

    k(x_m, z) = exp(-gamma d2 (1 - h)^2),      k(x_n, z) = exp(-gamma d2 h^2),

and the best coefficient of z (the projection of a_m phi(x_m) + a_n phi(x_n) onto phi(z), k(z, z) = 1) is
a_z = a_m k(x_m, z) + a_n k(x_n, z), which leaves the weight degradation

    ||a_m phi(x_m) + a_n phi(x_n) - a_z phi(z)||^2 = a_m^2 + a_n^2 + 2 a_m a_n k(x_m, x_n) - a_z^2.

So the best h maximises |a_z(h)|: a 1-d problem, solved by golden-section search.  Everything here is plain C
loops in a fixed order with olk's portable exp (olk_exp.h, the pool's own): the same bits on every host, like the
pool (no libm pow/log, no BLAS).

>>> import numpy as np
>>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 4.0]])
>>> sq_dists(X, 0).tolist()                          # ||x_0 - x_j||^2
[0.0, 1.0, 25.0]
>>> h, kmz, knz, wd = merge_search(1.0, np.array([1.0]), np.array([1.0]), 1.0, 1e-4)
>>> round(float(h[0]), 3)                            # equal weights: z half-way
0.5
"""
import numpy as np
from libc.math cimport sqrt

cdef extern from "olk_exp.h" nogil:
    double olk_exp(double x)


def sq_dists(X, Py_ssize_t m):
    """||x_m - x_j||^2 for every row j of X (a float64 array, or a scipy CSR matrix with sorted indices), as
    |x_m|^2 + |x_j|^2 - 2 <x_m, x_j> clipped at 0 (the pool's formula), each sum taken left to right."""
    import sys
    sp = sys.modules.get("scipy.sparse")
    cdef Py_ssize_t n, d, j, c, a
    cdef double acc, sq_m, v
    if sp is not None and sp.issparse(X):
        return _sq_dists_csr(np.ascontiguousarray(X.indptr, dtype=np.int64),
                             np.ascontiguousarray(X.indices, dtype=np.int64),
                             np.ascontiguousarray(X.data, dtype=np.float64), X.shape[1], m)
    cdef const double[:, ::1] A = np.ascontiguousarray(X, dtype=np.float64)
    n, d = A.shape[0], A.shape[1]
    if m < 0 or m >= n:
        raise IndexError(f"row {m} out of range ({n} rows)")
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    sq_m = 0.0
    for c in range(d):
        sq_m += A[m, c] * A[m, c]
    for j in range(n):
        acc = 0.0
        v = 0.0
        for c in range(d):
            acc += A[j, c] * A[m, c]
            v += A[j, c] * A[j, c]
        v = sq_m + v - 2.0 * acc
        o[j] = v if v > 0.0 else 0.0
    return out


def _sq_dists_csr(const long long[::1] indptr, const long long[::1] indices, const double[::1] data,
                  Py_ssize_t n_features, Py_ssize_t m):
    cdef Py_ssize_t n = indptr.shape[0] - 1, j, a
    cdef double acc, sq, sq_m = 0.0, v
    if m < 0 or m >= n:
        raise IndexError(f"row {m} out of range ({n} rows)")
    work_arr = np.zeros(n_features, dtype=np.float64)
    cdef double[::1] w = work_arr
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    for a in range(indptr[m], indptr[m + 1]):
        w[indices[a]] = data[a]
        sq_m += data[a] * data[a]
    for j in range(n):
        acc = 0.0
        sq = 0.0
        for a in range(indptr[j], indptr[j + 1]):
            v = data[a]
            acc += v * w[indices[a]]
            sq += v * v
        v = sq_m + sq - 2.0 * acc
        o[j] = v if v > 0.0 else 0.0
    return out


cdef inline double _objective(double am, double an, double gd2, double h) noexcept nogil:
    """The merged coefficient a_z(h) = a_m exp(-gamma d2 (1-h)^2) + a_n exp(-gamma d2 h^2) (gd2 = gamma d2)."""
    return am * olk_exp(-gd2 * (1.0 - h) * (1.0 - h)) + an * olk_exp(-gd2 * h * h)


cdef double _golden(double am, double an, double sgn, double gd2, double a, double b, double tol) noexcept nogil:
    """Golden-section search for the h in [a, b] maximising sgn * a_z(h) (a unimodal function there), until the
    bracket is shorter than 2 tol; returns its midpoint (the search of BudgetedSVM's goldenSectionSearch)."""
    cdef double g = (sqrt(5.0) - 1.0) / 2.0
    cdef double p = b - g * (b - a), q = a + g * (b - a)
    cdef double fp = -sgn * _objective(am, an, gd2, p), fq = -sgn * _objective(am, an, gd2, q)
    while (b - a) >= 2.0 * tol:
        if fp <= fq:
            b = q
            q = p
            fq = fp
            p = b - g * (b - a)
            fp = -sgn * _objective(am, an, gd2, p)
        else:
            a = p
            p = q
            fp = fq
            q = a + g * (b - a)
            fq = -sgn * _objective(am, an, gd2, q)
    return (a + b) / 2.0


def merge_search(double a_m, const double[::1] a_n, const double[::1] d2, double gamma, double tol):
    """For SV m (coefficient a_m) and each candidate partner j (coefficient a_n[j], squared distance d2[j]): the
    merging position h[j] by golden-section search, k(x_m, z) and k(x_n, z) there, and the weight degradation
    wd[j] = a_m^2 + a_n^2 + 2 a_m a_n k(x_m, x_n) - a_z^2.  Returns (h, kmz, knz, wd), numpy arrays.

    The bracket (as BudgetedSVM's computeKmax): [0, 1] when a_m and a_n have the same sign (z between the two
    points); otherwise z lies beyond the point of the larger |a|: [1, 6] beyond x_m, [-5, 0] beyond x_n.  The
    search maximises s a_z(h), s the sign of a_m + a_n (+1 when it is 0), i.e. |a_z| on the side of the
    dominant coefficient."""
    cdef Py_ssize_t n = a_n.shape[0], j
    cdef double an, s, lo, hi, hh, kz1, kz2, az, k12
    if d2.shape[0] != n:
        raise ValueError("a_n and d2 need the same length")
    h = np.empty(n, dtype=np.float64)
    kmz = np.empty(n, dtype=np.float64)
    knz = np.empty(n, dtype=np.float64)
    wd = np.empty(n, dtype=np.float64)
    cdef double[::1] oh = h, om = kmz, on = knz, ow = wd
    with nogil:
        for j in range(n):
            an = a_n[j]
            s = -1.0 if a_m + an < 0.0 else 1.0
            if a_m * an > 0.0:
                lo, hi = 0.0, 1.0
            elif s * a_m > 0.0:
                lo, hi = 1.0, 6.0
            else:
                lo, hi = -5.0, 0.0
            hh = _golden(a_m, an, s, gamma * d2[j], lo, hi, tol)
            kz1 = olk_exp(-gamma * d2[j] * (1.0 - hh) * (1.0 - hh))
            kz2 = olk_exp(-gamma * d2[j] * hh * hh)
            k12 = olk_exp(-gamma * d2[j])
            az = a_m * kz1 + an * kz2
            oh[j] = hh
            om[j] = kz1
            on[j] = kz2
            ow[j] = a_m * a_m + an * an + 2.0 * a_m * an * k12 - az * az
    return h, kmz, knz, wd
