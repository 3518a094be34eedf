# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""BOGD's whole step in C (Zhao, Wang, Wu, Jin & Hoi, ICML 2012; :class:`olk.algorithms.budget.bogd.BOGD`): the
Python step spends as much time between its calls into the pool (the hinge test, the removal draw, the purge,
the shrinkage, the add) as the pool spends on the kernel sum at this budget; here they are one call.

* :func:`bogd_step` -- f_t(x_t), the hinge test, and when it fires at a full budget a uniformly random SV forgotten
  (its slot swap-removed) and the rest rescaled by B/(B-1); the (1 - eta lam) shrinkage every step; x_t stored with
  eta y.  The same IEEE operations in the same order as the Python reading (``pool.decision1``, ``hinge``,
  :func:`olk.algorithms.budget.core.bogd_scale`, :func:`~olk.algorithms.budget.core.discard_random` and
  :func:`~olk.algorithms.budget.core.purge`, ``pool.scale_col``, ``pool.add``), and the same draw from the
  learner's generator (:func:`olk._core.svpool.uniform_int`), so every bit of the model and every count is the
  one it gives (tests/test_bogd_core.py).
"""
from .svpool cimport RowSource, SVPool

from .svpool import uniform_int


def bogd_step(SVPool pool, RowSource src, Py_ssize_t i, double y, double eta, double lam, Py_ssize_t budget,
              rng, long long tag):
    """One BOGD step on row i of `src` with label y, on a pool of one kernel and one coefficient column.
    Returns (f, 1 if x_i was stored else 0)."""
    cdef double buf[1]
    cdef double f, shrink, coef
    cdef Py_ssize_t n, r
    cdef bint learns
    pool._check_src(src, i)
    if pool.n_kernels != 1 or pool.n_cols != 1:
        raise ValueError("bogd_step needs a pool of one kernel and one coefficient column")
    pool._decide(src, i, buf)                         # pool.decision1: f_t(x_t), the kernel evaluations counted
    f = buf[0]
    learns = 1.0 - y * f > 0.0                        # hinge(y, f) > 0
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
        pool.scale_col(0, shrink)
    if learns:
        coef = eta * y
        pool._append(src, i, &coef, tag)
        return f, 1
    return f, 0
