# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""BOGD's whole step in C (Zhao, Wang, Wu, Jin & Hoi, ICML 2012; :class:`olk.algorithms.budget.bogd.BOGD`): the
Python step spends as much time between its calls into the pool (the hinge test, the removal draw, the purge,
the shrinkage, the add) as the pool spends on the kernel sum at this budget; here they are one call.

* :func:`bogd_step` (and :func:`bogd_steps`, a stretch of rows in one call) -- f_t(x_t), the hinge test, and when it fires at a full budget a uniformly random SV forgotten
  (its slot swap-removed) and the rest rescaled by B/(B-1); the (1 - eta lam) shrinkage every step; x_t stored with
  eta y.  The same IEEE operations in the same order as the Python reading (``pool.decision1``, ``hinge``,
  :func:`olk.algorithms.budget.core.bogd_scale`, :func:`~olk.algorithms.budget.core.discard_random` and
  :func:`~olk.algorithms.budget.core.purge`, ``pool.scale_col``, ``pool.add``), and the same draw from the
  learner's generator (:func:`olk._core.svpool.uniform_int`), so every bit of the model and every count is the
  one it gives (tests/test_bogd_core.py).
"""
from libc.stdint cimport int64_t

from .svpool cimport RowSource, SVPool

from .svpool import uniform_int


cdef int _bogd(SVPool pool, RowSource src, Py_ssize_t i, double y, double eta, double lam, Py_ssize_t budget,
               rng, long long tag, double* f) except -1:
    """One step (the pool's shape and row i checked by the caller): f_t into f[0]; returns 1 if x_i was stored."""
    cdef double shrink, coef
    cdef Py_ssize_t n, r
    cdef bint learns
    pool._decide(src, i, f)                           # pool.decision1: f_t(x_t), the kernel evaluations counted
    learns = 1.0 - y * f[0] > 0.0                     # hinge(y, f) > 0
    shrink = 1.0 - eta * lam                          # bogd_scale: the regulariser's factor every step ...
    if learns:
        n = pool.n_sv
        if n >= budget:                               # ... and at a full budget a uniformly random SV leaves
            r = uniform_int(rng, n)                   # discard_random: the one-column draw over n slots
            pool.coef[r, 0] = 0.0                     # forget: coefficient 0, owner bit cleared (set_coef) ...
            if pool.masked:
                pool.owners[r] &= ~(<unsigned long long> 1)
            pool._swap_remove(r)                      # ... and purge: the row is empty, swap-remove it
            shrink *= n / (n - 1.0)                   # the unbiased rescaling B/(B-1)
    if shrink != 1.0 and pool.n_sv:
        pool._scale_col(0, shrink)                   # pool.scale_col
    if learns:
        coef = eta * y
        pool._append(src, i, &coef, tag)
        return 1
    return 0


def bogd_step(SVPool pool, RowSource src, Py_ssize_t i, double y, double eta, double lam, Py_ssize_t budget,
              rng, long long tag):
    """One BOGD step on row i of `src` with label y, on a pool of one kernel and one coefficient column.
    Returns (f, 1 if x_i was stored else 0)."""
    cdef double f
    cdef int learned
    pool._check_src(src, i)
    pool._check_single("bogd_step")
    learned = _bogd(pool, src, i, y, eta, lam, budget, rng, tag, &f)
    return f, learned


def bogd_steps(SVPool pool, RowSource src, const int64_t[::1] rows, const double[::1] ys, double eta, double lam,
               Py_ssize_t budget, rng, long long t0, double[::1] out):
    """:func:`bogd_step` on rows[k] with label ys[k] and tag t0 + k + 1, for k = 0, 1, ... in order, f into out[k]
    (the engine's stretch of rows in one call: the same operations as step by step).  Returns how many rows were
    stored; every row index is checked before the first step."""
    cdef Py_ssize_t k, n = rows.shape[0]
    cdef long long learned = 0
    pool._check_single("bogd_steps")
    pool._check_rows(src, rows, ys, out, "bogd_steps")
    for k in range(n):
        learned += _bogd(pool, src, rows[k], ys[k], eta, lam, budget, rng, t0 + k + 1, &out[k])
    return learned
