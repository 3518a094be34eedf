# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""BPA-S's removal choice in C (Wang & Vucetic, AISTATS 2010; :class:`olk.algorithms.bpas.BPAS` and the bounded
multi-kernel learners of :mod:`olk.algorithms.bomkc_dd`): among a classifier's SVs, the one whose removal
(with the new SV's coefficient re-optimised) costs the PA objective least,

    r = argmin_r alpha_r^2 (k_rr - k_rt^2 / k_tt)        (alpha_r^2 k_rr when k_tt <= 0),

and the coefficient alpha_r k_rt / k_tt it hands to the new SV.  The Python reading is
:func:`olk.algorithms.budget.bpas_choice`; these loops compute the same IEEE operations in the same order (numpy's
element-wise products and quotients are correctly rounded whatever its SIMD width, ``argmin`` takes the first
minimum, or the first NaN), so every choice and coefficient is bit for bit the one it gives.  k_rr comes from the
pool's per-SV cache (``SVPool.kself``, computed when the SV was stored) and every k_rt from the pool itself
(:mod:`olk._core.svpool`, ``cimport``\\ ed through svpool.pxd): the exp stays in one module.

* :func:`bpas_step` -- one whole step of single-kernel BPA-S at a full budget: the kernel row, f_t(x_t), the
  hinge loss, and when it is positive the removal and the new SV, in one call (no numpy temporaries, no
  Python between the kernel sums and the scoring: the scoring costs a fraction of the kernel row).
* :func:`bpas_choose` -- the choice for several columns of a shared pool in one pass (bounded OMKC).
"""
import numpy as np

from libc.stdlib cimport free, malloc

from .svpool cimport RowSource, SVPool


cdef inline Py_ssize_t _argmin(const double* v, Py_ssize_t n) noexcept nogil:
    """numpy.argmin of v[:n] (n >= 1): the first minimum; the first NaN if there is one.

    Four lanes (s = 0, 1, 2, 3 mod 4, the tail joining lane 0) each keep the first minimum of their own
    values, scanned in slot order: four independent compare chains instead of one.  Without NaN the first
    minimum of all is the smallest slot among the lanes that hold the overall minimum (equal under ==, as
    numpy's ``not v >= best`` test treats -0.0 and 0.0).  Whether any value is NaN is tracked on the side;
    if one is, a second scan returns the first NaN, as numpy does."""
    cdef Py_ssize_t j0 = 0, j1 = 1, j2 = 2, j3 = 3, s, j
    cdef double b0, b1, b2, b3, x0, x1, x2, x3, best
    cdef bint nan
    if n < 8:
        j = 0
        best = v[0]
        nan = best != best
        for s in range(1, n):
            x0 = v[s]
            nan |= x0 != x0
            if x0 < best:
                best = x0
                j = s
    else:
        b0 = v[0]; b1 = v[1]; b2 = v[2]; b3 = v[3]
        nan = (b0 != b0) | (b1 != b1) | (b2 != b2) | (b3 != b3)
        s = 4
        while s + 4 <= n:
            x0 = v[s]; x1 = v[s + 1]; x2 = v[s + 2]; x3 = v[s + 3]
            nan |= (x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3)
            if x0 < b0:
                b0 = x0; j0 = s
            if x1 < b1:
                b1 = x1; j1 = s + 1
            if x2 < b2:
                b2 = x2; j2 = s + 2
            if x3 < b3:
                b3 = x3; j3 = s + 3
            s += 4
        while s < n:
            x0 = v[s]
            nan |= x0 != x0
            if x0 < b0:
                b0 = x0; j0 = s
            s += 1
        best = b0; j = j0
        if b1 < best or (b1 == best and j1 < j):
            best = b1; j = j1
        if b2 < best or (b2 == best and j2 < j):
            best = b2; j = j2
        if b3 < best or (b3 == best and j3 < j):
            best = b3; j = j3
    if nan:
        for s in range(n):
            if v[s] != v[s]:
                return s
    return j


def _argmin_for_tests(const double[::1] v):
    """:func:`_argmin` from Python (tests: it must be numpy.argmin)."""
    if v.shape[0] < 1:
        raise ValueError("empty")
    return _argmin(&v[0], v.shape[0])


def bpas_step(SVPool pool, RowSource src, Py_ssize_t i, double y, double C, long long tag):
    """One BPA-S step (:meth:`olk.algorithms.bpas.BPAS.step`) on row i of `src` with label y when the one-kernel,
    one-column pool holds its budget of SVs (n_sv >= 1): the kernel row k_s = k(x_i, sv_s),
    f = sum_s alpha_s k_s in slot order, the hinge loss l = [1 - y f]_+; if l > 0, with k_tt = k(x_i, x_i) and
    tau = min(C, l / k_tt) (C when k_tt <= 0), the SV r of :func:`olk.algorithms.budget.bpas_choice` is removed
    (swap-remove) and x_i is stored with coefficient tau y + alpha_r k_rt / k_tt and the given tag.

    Bit for bit the Python step (kernel_values, coef_dot, hinge, self_kernel, bpas_choice, purge, add), the
    kernel evaluations counted as it counts them (n_sv).  Returns (f, 1 if x_i was stored else 0)."""
    cdef Py_ssize_t n = pool.n_sv, s, r
    cdef double f = 0.0, m, loss, ktt, tau, coef, a, carry
    cdef double* score
    cdef double* kr
    cdef const double* al
    cdef const double* ks
    pool._check_src(src, i)
    if pool.n_kernels != 1 or pool.n_cols != 1:
        raise ValueError("bpas_step needs a pool of one kernel and one coefficient column")
    if n < 1:
        raise ValueError("bpas_step needs a pool with at least one SV (the budget is full)")
    kr = <double*> malloc(2 * n * sizeof(double))   # the kernel row, then the removal scores
    if kr == NULL:
        raise MemoryError()
    score = kr + n
    f = pool._values_decide1(src, i, kr)              # the kernel row and f_t(x_t) (coef_dot's sum)
    al = &pool.coef[0, 0]                             # one column: coef[s, 0] = al[s]
    m = 1.0 - y * f                                   # hinge
    loss = m if m > 0.0 else 0.0
    if not loss > 0.0:
        free(kr)
        return f, 0
    ktt = pool._self_kernel(src, i, 0)
    if ktt > 0.0:
        tau = loss / ktt
        if not tau < C:                               # Python's min(C, l / k_tt)
            tau = C
    else:
        tau = C
    coef = tau * y
    ks = &pool.kself[0, 0]                            # one kernel: kself[s, 0] = ks[s]
    if ktt > 0.0:
        for s in range(n):
            a = al[s]
            score[s] = a * a * (ks[s] - kr[s] * kr[s] / ktt)
    else:
        for s in range(n):
            a = al[s]
            score[s] = a * a * ks[s]
    r = _argmin(score, n)
    carry = al[r] * kr[r] / ktt if ktt > 0.0 else 0.0
    free(kr)
    coef += carry
    pool._swap_remove(r)                              # forget r; its row is empty: purge = remove
    pool._append(src, i, &coef, tag)
    return f, 1


def bpas_choose(SVPool pool, RowSource src, Py_ssize_t i, const Py_ssize_t[::1] cols, const double[::1] ktt):
    """BPA-S's removal choice (:func:`olk.algorithms.budget.bpas_choice`) for several distinct columns of `pool`
    at once, against the query row i: for column c = cols[j] (its kernel col_kernel[c], k_tt = ktt[j]), among the
    SVs c owns (coef[s, c] != 0), the slot r minimising alpha_r^2 (k_rr - k_rt^2 / k_tt) (alpha_r^2 k_rr when
    k_tt <= 0), the first in slot order on ties, and the coefficient alpha_r k_rt / k_tt it hands to the new
    SV (0 when k_tt <= 0).  Each SV's product with x_i is computed once for every column (one pass over the
    pool instead of one per column); every value and comparison is bit-identical to bpas_choice on
    ``kernel_row`` and ``self_kernels``, and the kernel evaluations are counted as those calls count them.
    Forgets nothing.  Returns (slots, carries) as numpy arrays; a column that owns no SV gets slot -1."""
    cdef Py_ssize_t nc = cols.shape[0], j, s, c, k
    cdef long long evals = 0
    cdef double a, kr, krr, score
    cdef const double* q
    if ktt.shape[0] != nc:
        raise ValueError("ktt needs one value per column")
    pool._check_src(src, i)
    for j in range(nc):
        if cols[j] < 0 or cols[j] >= pool.n_cols:
            raise IndexError(f"coefficient column {cols[j]} out of range (n_cols={pool.n_cols})")
    slots = np.full(nc, -1, dtype=np.intp)
    carries = np.zeros(nc, dtype=np.float64)
    best = np.full(nc, np.inf, dtype=np.float64)
    bkr = np.zeros(nc, dtype=np.float64)
    balpha = np.zeros(nc, dtype=np.float64)
    cdef Py_ssize_t[::1] sl = slots
    cdef double[::1] ca = carries, bs = best, bk = bkr, ba = balpha
    if nc == 0 or pool.n_sv == 0:
        return slots, carries
    q = pool._begin_query(src, i)
    for s in range(pool.n_sv):
        for j in range(nc):
            c = cols[j]
            a = pool.coef[s, c]
            if a == 0.0:
                continue
            k = pool.col_kernel[c]
            kr = pool._kernel_at(k, q, src.n_features, s)
            krr = pool.kself[s, k]
            evals += 1
            if ktt[j] > 0.0:
                score = a * a * (krr - kr * kr / ktt[j])
            else:
                score = a * a * krr
            if sl[j] < 0 or score < bs[j]:
                bs[j] = score
                sl[j] = s
                bk[j] = kr
                ba[j] = a
    pool._end_query(src, i)
    pool.n_kernel_evals += evals
    for j in range(nc):
        if sl[j] >= 0 and ktt[j] > 0.0:
            ca[j] = ba[j] * bk[j] / ktt[j]
    return slots, carries
