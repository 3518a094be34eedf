# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The self-tuned Forgetron's rows in C (Dekel, Shalev-Shwartz & Singer, SIAM J. Computing 2008;
:class:`olk.algorithms.budget.forgetron.Forgetron`): at B = 822 on cod-rna one row in eight is a mistake, and the
Python update on a mistake (the add, the oldest SV, f'_t(x_r), phi_t, the shrinking, the forgetting) cost as much
again as the kernel sums around it; here the decisions and the updates of a stretch of rows are one call.

* :func:`forgetron_steps` -- f_t(x_t) for each row and, on y_t f_t(x_t) <= 0, the update: x_t stored with
  sigma_t y_t = y_t; at |I'| > B, r the oldest SV (smallest tag), delta = |coef_r|, mu'_t = y_r f'_t(x_r) at the
  stored SV, phi_t the smallest positive root of a phi^2 + b phi + c (or 1), every coefficient scaled by phi_t,
  Q charged Psi(delta phi_t, phi_t mu'_t), r forgotten (coefficient 0, slot swap-removed).
* :func:`forgetron_step` -- one row.

The same IEEE operations in the same order as the Python reading (:meth:`Forgetron.reading_step`: ``pool.decision1``,
``pool.add``, :meth:`ForgetronState.shrink_and_forget` with ``pool.oldest``, ``pool.decision_sv``,
:meth:`ForgetronState.phi` and ``charge``, :func:`~olk.algorithms.budget.core.forget` and ``purge``): every bit of
the model, of M, Q and phi_last, of the labels' queue and of every count is the one it gives
(tests/test_forgetron_core.py).  Only a pool of one kernel and one coefficient column (the learner checks).
"""
from libc.math cimport fabs, sqrt
from libc.stdint cimport int64_t

from .svpool cimport RowSource, SVPool


cdef struct Book:
    long long M             # mistakes so far (ForgetronState.M)
    double Q                # accumulated removal damage (ForgetronState.Q)
    double phi_last         # last shrinking coefficient (ForgetronState.phi_last)


cdef double _phi(double delta, double mu, double Q, long long M) noexcept nogil:
    """ForgetronState.phi: max { phi in (0, 1] : Psi(delta phi, phi mu) + Q <= 15/32 M } (the same operations)."""
    cdef double a = delta * delta - 2.0 * delta * mu
    cdef double b = 2.0 * delta
    cdef double c = Q - 15.0 / 32.0 * <double> M
    cdef double disc, phi
    if a + b + c <= 0.0:
        return 1.0
    disc = b * b - 4.0 * a * c
    if 0.0 > disc:                                   # Python's max(disc, 0.0)
        disc = 0.0
    phi = -2.0 * c / (b + sqrt(disc))               # the smallest positive root, free of cancellation
    if 0.0 > phi:                                    # min(1.0, max(phi, 0.0)), NaN as Python's max/min leave it
        phi = 0.0
    if not phi < 1.0:
        phi = 1.0
    return phi


cdef int _mistake(SVPool pool, RowSource src, Py_ssize_t i, double y, long long tag, Py_ssize_t budget,
                  Book* book, object fifo) except -1:
    """The update on a mistake at row i (label y, tag t): Forgetron._mistake's steps (1)-(3)."""
    cdef double coef = y, y_r, delta, mu, phi, lam
    cdef Py_ssize_t r
    book.M += 1
    pool._append(src, i, &coef, tag)                 # (1) sigma_t = 1: pool.add(src, i, y, t)
    fifo.append(y)
    if pool.n_sv > budget:
        y_r = <double> fifo.popleft()                # r = min I_t, the oldest SV, and its label
        r = pool._oldest(0)
        delta = fabs(pool.coef[r, 0])                # sigma_r
        mu = y_r * pool._decision_sv1(r)             # mu'_t = y_r f'_t(x_r), the new SV included
        phi = _phi(delta, mu, book.Q, book.M)        # (2) shrink every coefficient by phi_t ...
        if phi != 1.0:
            pool._scale_col(0, phi)
        lam = delta * phi                            # ... and charge Q_{t+1} = Q_t + Psi(delta phi, phi mu)
        book.Q += lam * lam + 2.0 * lam - 2.0 * lam * (phi * mu)
        book.phi_last = phi
        pool.coef[r, 0] = 0.0                        # (3) forget r (set_coef: coefficient 0, owner bit cleared) ...
        if pool.masked:
            pool.owners[r] &= ~(<unsigned long long> 1)
        pool._swap_remove(r)                         # ... and purge: the row is empty, swap-remove it
    return 0


cdef Book _book(state):
    cdef Book book
    book.M = state.M
    book.Q = state.Q
    book.phi_last = state.phi_last
    return book


cdef void _keep(Book* book, state):
    state.M = book.M
    state.Q = book.Q
    state.phi_last = book.phi_last


def forgetron_step(SVPool pool, RowSource src, Py_ssize_t i, double y, Py_ssize_t budget, long long tag, state):
    """One row of the self-tuned Forgetron (row i of `src`, label y, tag t) on `state` (a ForgetronState: M, Q,
    phi_last and the labels' queue ``fifo``, updated in place).  Returns (f_t(x_t), 1 on a mistake else 0)."""
    cdef double f
    cdef Book book
    pool._check_src(src, i)
    pool._check_single("forgetron_step")
    pool._decide(src, i, &f)                         # pool.decision1
    if not y * f <= 0.0:                             # no mistake (a NaN f is none either, as in Python)
        return f, 0
    book = _book(state)
    try:
        _mistake(pool, src, i, y, tag, budget, &book, state.fifo)
    finally:
        _keep(&book, state)
    return f, 1


def forgetron_steps(SVPool pool, RowSource src, const int64_t[::1] rows, const double[::1] ys, Py_ssize_t budget,
                    long long t0, state, double[::1] out):
    """:func:`forgetron_step` on rows[k] with label ys[k] and tag t0 + k + 1, for k = 0, 1, ... in order, f into
    out[k] (the engine's stretch of rows in one call: the same operations as row by row).  Returns the number of
    mistakes; every row index is checked before the first row."""
    cdef Py_ssize_t k, n = rows.shape[0]
    cdef long long mistakes = 0
    cdef Book book
    pool._check_single("forgetron_steps")
    pool._check_rows(src, rows, ys, out, "forgetron_steps")
    fifo = state.fifo
    book = _book(state)
    try:
        for k in range(n):
            pool._decide(src, rows[k], &out[k])
            if ys[k] * out[k] <= 0.0:
                _mistake(pool, src, rows[k], ys[k], t0 + k + 1, budget, &book, fifo)
                mistakes += 1
    finally:
        _keep(&book, state)
    return mistakes
