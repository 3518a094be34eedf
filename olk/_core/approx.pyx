# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The per-example loops of the functional-approximation learners (``olk.algorithms.approximation``: FOGD's
random features [sin(U x); cos(U x)], NOGD's Nystrom map M k_S(x) (``project``), and w'z): one core, one fixed
summation order.

BLAS's matrix-vector product picks its kernel and its threads per host and per call: on a busy machine a
threaded product of a few thousand rows costs milliseconds per example, and its sums are ordered differently on
different CPUs.  These plain loops run on the calling thread, skip a row's zero features (a sparse row costs its
nonzeros) and sum in one order everywhere, so a learner's step and its ``decision_function`` see the same bits.

>>> import numpy as np
>>> from olk._core.approx import dot, fourier_map, project
>>> UT = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])          # U' (d = 2 features, D = 3 rows of U)
>>> out = np.empty(3); project(UT, np.array([0.0, 2.0]), out); out.tolist()    # U x = 2 * U[:, 1]
[8.0, 10.0, 12.0]
>>> z = np.empty(2); project(UT.T.copy(), np.array([1.0, 1.0, 1.0]), z); z.tolist(), dot(z, z)   # U' 1
([6.0, 15.0], 261.0)
>>> z = np.empty(6); fourier_map(UT, np.array([0.0, 0.0]), 0.5, z); z.tolist()     # sin 0 = 0, cos 0 = 1
[0.0, 0.0, 0.0, 0.5, 0.5, 0.5]
"""
from libc.math cimport cos, sin


def project(const double[:, ::1] UT, const double[::1] x, double[::1] out):
    """out = U x for U given as its transpose UT (d x D), x of length d, out of length D: one scaled row of UT
    added per nonzero x_j, in feature order (zeros are skipped, which changes no bit of a finite sum from 0.0).
    Each out[r] is the sum over j of x_j U[r, j] from 0.0 in j order, as a dot product of row r would sum it;
    the D independent sums are what the compiler vectorises (no reassociation, so the bits do not depend on it)."""
    cdef Py_ssize_t d = UT.shape[0], D = UT.shape[1]
    if x.shape[0] != d or out.shape[0] != D:
        raise ValueError(f"project: UT is {d} x {D}, x has {x.shape[0]} entries, out {out.shape[0]}")
    if D:
        _project(UT, x, &out[0])


cdef void _project(const double[:, ::1] UT, const double[::1] x, double* o) noexcept:
    cdef Py_ssize_t d = UT.shape[0], D = UT.shape[1], j, r
    cdef double v
    cdef const double* u
    for r in range(D):
        o[r] = 0.0
    for j in range(d):
        v = x[j]
        if v != 0.0:
            u = &UT[j, 0]
            for r in range(D):
                o[r] += v * u[r]


def fourier_map(const double[:, ::1] UT, const double[::1] x, double scale, double[::1] z):
    """z = [sin(U x); cos(U x)] * scale (z of length 2D; U given as UT, d x D): the projection of
    :func:`project`, then libm's sin and cos of each entry, in one pass over D."""
    cdef Py_ssize_t d = UT.shape[0], D = UT.shape[1], r
    cdef double p
    if x.shape[0] != d or z.shape[0] != 2 * D:
        raise ValueError(f"fourier_map: UT is {d} x {D}, x has {x.shape[0]} entries, z {z.shape[0]}")
    if D == 0:
        return
    _project(UT, x, &z[0])
    for r in range(D):
        p = z[r]
        z[r] = sin(p) * scale
        z[D + r] = cos(p) * scale


def dot(const double[::1] a, const double[::1] b):
    """sum_i a[i] b[i], summed left to right from 0.0."""
    cdef Py_ssize_t i, n = a.shape[0]
    cdef double acc = 0.0
    if b.shape[0] != n:
        raise ValueError(f"dot: lengths {n} and {b.shape[0]} differ")
    for i in range(n):
        acc += a[i] * b[i]
    return acc
