# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The per-example loops of the functional-approximation learners (``olk.algorithms.approximation``: FOGD's
random features, NOGD's Nystrom map M k_S(x) (``project``), and w'z): one core, one fixed summation order.

BLAS's matrix-vector product picks its kernel and its threads per host and per call: on a busy machine a
threaded product of a few thousand rows costs milliseconds per example, and its sums are ordered differently on
different CPUs.  These plain loops run on the calling thread, skip a row's zero features (a sparse row costs its
nonzeros) and sum in one order everywhere, so a learner's step and its ``decision_function`` see the same bits:

* ``project``: U x, each entry summed from 0.0 over x's non-zeros in column order (olk_proj.h: 32 entries at a
  time kept in registers; the order of each sum is unchanged);
* ``fourier_map`` / ``FourierFeatures``: FOGD's z(x) = [sin(U x); cos(U x)] * scale with olk's own vectorised sin
  and cos (olk_sincos.h: IEEE operations only, the same bits on every host and every SIMD level), or the one-
  cosine map cos(U x + b) * scale; ``FourierFeatures.score`` also returns w'z in the fixed blocked order of
  ``dot8``, and ``update`` does FOGD's w += c z;
* ``project_dot``: NOGD's f(x) = w'M k_S(x) (the projection, then ``dot``'s order);
* ``NystromScreen``: NOGD's step after the map, the exact f of ``project_dot`` computed only on the rows where a
  bounded cheaper value cannot decide the hinge step (the derivation is in its docstring);
* ``dot`` (left to right from 0.0: NOGD's w'z), ``dot8`` (eight interleaved partial sums, a fixed order: FOGD's),
  ``axpy`` (y += a x, the bits of numpy's ``y += a * x``).

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

import numpy as np
from libc.math cimport NAN, fabs
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from .svpool cimport RowSource, SVPool

cdef extern from "olk_sincos.h" nogil:
    int olk_vsincos_level
    void olk_sincos(double x, double* s, double* c)
    void olk_vsincos(const double* x, double* s, double* c, Py_ssize_t n, double scale)
    void olk_vcos(const double* x, double* c, Py_ssize_t n, double scale)

cdef extern from "olk_cpu.h" nogil:
    int olk_simd_detect()

cdef extern from "olk_proj.h" nogil:
    int olk_proj_level
    void olk_project(const double* UT, Py_ssize_t D, const Py_ssize_t* idx, const double* val, Py_ssize_t m,
                     double* out)
    double olk_dot8(const double* a, const double* b, Py_ssize_t n)
    void olk_axpy(double* y, double a, const double* x, Py_ssize_t n)

from olk._core import SIMD_LEVELS, simd_level


def simd(level=None):
    """The vector loops of this module (sin/cos, projection, dot8): "scalar", "avx2" or "avx512" (the best this
    CPU has, capped by OLK_EXP_SIMD, the knob of olk's exp).  With `level`, switch to it (capped by the CPU) and
    return the level now in use.  Every level gives the same bits (tests/test_sincos.py); only speed differs."""
    global olk_vsincos_level, olk_proj_level
    olk_vsincos_level = olk_proj_level = simd_level(olk_simd_detect(), level)
    return SIMD_LEVELS[olk_vsincos_level]


simd()


def sincos_array(x):
    """(sin x, cos x) element-wise with olk's portable sin/cos (the vector loop; float64 arrays)."""
    cdef const double[::1] a = np.ascontiguousarray(x, dtype=np.float64).ravel()
    s, c = np.empty(a.shape[0]), np.empty(a.shape[0])
    cdef double[::1] so = s, co = c
    if a.shape[0]:
        olk_vsincos(&a[0], &so[0], &co[0], a.shape[0], 1.0)
    return s.reshape(np.shape(x)), c.reshape(np.shape(x))


def sincos_array_scalar(x):
    """:func:`sincos_array` one element at a time through the scalar olk_sincos (tests: the vector loop's bits)."""
    cdef const double[::1] a = np.ascontiguousarray(x, dtype=np.float64).ravel()
    s, c = np.empty(a.shape[0]), np.empty(a.shape[0])
    cdef double[::1] so = s, co = c
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        olk_sincos(a[i], &so[i], &co[i])
    return s.reshape(np.shape(x)), c.reshape(np.shape(x))


cdef Py_ssize_t _nonzeros(const double* x, Py_ssize_t d, Py_ssize_t* idx, double* val) noexcept nogil:
    """The non-zero entries of x[:d] in column order (zeros skipped: adding 0.0 changes no bit of a sum from 0.0)."""
    cdef Py_ssize_t j, m = 0
    cdef double v
    for j in range(d):
        v = x[j]
        if v != 0.0:
            idx[m] = j
            val[m] = v
            m += 1
    return m


cdef void _features(const double* UT, Py_ssize_t d, Py_ssize_t D, const double* x, double scale, const double* phase,
                    double* z, double* p, Py_ssize_t* idx, double* val) noexcept nogil:
    """z = [sin(U x); cos(U x)] * scale (2D entries; phase NULL) or cos(U x + phase) * scale (D entries), with the
    scratch p (D), idx and val (d)."""
    cdef Py_ssize_t r, m = _nonzeros(x, d, idx, val)
    olk_project(UT, D, idx, val, m, p)
    if phase != NULL:
        for r in range(D):
            p[r] = p[r] + phase[r]
        olk_vcos(p, z, D, scale)
    else:
        olk_vsincos(p, z, z + D, D, scale)


cdef class _Scratch:
    """Work buffers of the projection: the row's non-zeros (d of each) and U x (D)."""
    cdef Py_ssize_t* idx
    cdef double* val
    cdef double* p

    def __cinit__(self, Py_ssize_t d, Py_ssize_t D):
        self.idx = <Py_ssize_t*> malloc((d + 1) * sizeof(Py_ssize_t))
        self.val = <double*> malloc((d + 1) * sizeof(double))
        self.p = <double*> malloc((D + 1) * sizeof(double))
        if self.idx == NULL or self.val == NULL or self.p == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.idx)
        free(self.val)
        free(self.p)


cdef double _project_dot(const double[:, ::1] UT, const double[::1] x, double* z, const double* w, bint blocked,
                         _Scratch sc) noexcept:
    """z = U x, then w'z (w NULL: 0) summed left to right or (blocked) as dot8."""
    cdef Py_ssize_t i, d = UT.shape[0], k = UT.shape[1], m
    cdef double acc = 0.0
    m = _nonzeros(&x[0] if d else NULL, d, sc.idx, sc.val)
    olk_project(&UT[0, 0] if d else NULL, k, sc.idx, sc.val, m, z)
    if w == NULL:
        return 0.0
    if blocked:
        return olk_dot8(w, z, k)
    for i in range(k):
        acc += w[i] * z[i]
    return acc


def project(const double[:, ::1] UT, const double[::1] x, double[::1] out):
    """out = U x for U given as its transpose UT (d x D), x of length d, out of length D.  Each out[r] is the sum
    over j of x_j U[r, j] from 0.0 in j order, zeros skipped (which changes no bit of a finite sum from 0.0), as a
    dot product of row r would sum it; the D independent sums are what the loop vectorises (olk_proj.h; no
    reassociation, so the bits do not depend on it)."""
    cdef Py_ssize_t d = UT.shape[0], D = UT.shape[1]
    if x.shape[0] != d or out.shape[0] != D:
        raise ValueError(f"project: UT is {d} x {D}, x has {x.shape[0]} entries, out {out.shape[0]}")
    if D:
        _project_dot(UT, x, &out[0], NULL, False, _Scratch(d, 0))


def project_dot(const double[:, ::1] UT, const double[::1] x, const double[::1] w, double[::1] z):
    """z = U x (:func:`project`), then w'z summed left to right (:func:`dot`): NOGD's f(x) = w'M k_S(x) in one
    call, with U = M given as M' (B x k)."""
    cdef Py_ssize_t d = UT.shape[0], k = UT.shape[1]
    if x.shape[0] != d or z.shape[0] != k or w.shape[0] != k:
        raise ValueError(f"project_dot: UT is {d} x {k}, x has {x.shape[0]} entries, w {w.shape[0]}, z {z.shape[0]}")
    if k == 0:
        return 0.0
    return _project_dot(UT, x, &z[0], &w[0], False, _Scratch(d, 0))


def fourier_map(const double[:, ::1] UT, const double[::1] x, double scale, double[::1] z, phase=None):
    """z = [sin(U x); cos(U x)] * scale (z of length 2D; U given as UT, d x D): the projection of :func:`project`,
    then olk's sin and cos of each entry.  With ``phase`` (length D): the one-cosine map z = cos(U x + phase) *
    scale (z of length D)."""
    cdef Py_ssize_t d = UT.shape[0], D = UT.shape[1]
    cdef const double[::1] ph
    cdef _Scratch sc
    if phase is not None:
        ph = phase
    if x.shape[0] != d or z.shape[0] != (D if phase is not None else 2 * D) or (phase is not None and
                                                                                 ph.shape[0] != D):
        raise ValueError(f"fourier_map: UT is {d} x {D}, x has {x.shape[0]} entries, z {z.shape[0]}"
                         + (f", phase {ph.shape[0]}" if phase is not None else ""))
    if D == 0:
        return
    sc = _Scratch(d, D)
    _features(&UT[0, 0] if d else NULL, d, D, &x[0] if d else NULL, scale, &ph[0] if phase is not None else NULL,
              &z[0], sc.p, sc.idx, sc.val)


cdef class FourierFeatures:
    """FOGD's map and linear model in one object, so that a step is two calls: ``score(X, i)`` computes z = z(X[i])
    into the buffer z (:func:`fourier_map`'s map: [sin(U x); cos(U x)] * scale, or cos(U x + phase) * scale) and
    returns w'z summed as :func:`dot8` sums it; ``update(c)`` does w += c z (:func:`axpy`).  It holds views of the
    learner's arrays U' (d x D), w and z (not copies: the learner owns and pickles them) and its own scratch."""
    cdef const double[:, ::1] UT
    cdef double[::1] w
    cdef double[::1] z
    cdef const double[::1] phase
    cdef bint one_cos
    cdef double scale
    cdef Py_ssize_t d, D
    cdef _Scratch sc

    def __cinit__(self, const double[:, ::1] UT, double[::1] w, double[::1] z, double scale, phase=None):
        self.d, self.D = UT.shape[0], UT.shape[1]
        self.one_cos = phase is not None
        if self.one_cos:
            self.phase = phase
        width = self.D if self.one_cos else 2 * self.D
        if w.shape[0] != width or z.shape[0] != width or (self.one_cos and self.phase.shape[0] != self.D):
            raise ValueError(f"FourierFeatures: UT is {self.d} x {self.D}, w has {w.shape[0]} entries, z "
                             f"{z.shape[0]} (want {width})")
        self.UT, self.w, self.z, self.scale = UT, w, z, scale
        self.sc = _Scratch(self.d, self.D)

    def score(self, const double[:, ::1] X, Py_ssize_t i):
        """z = z(X[i]) into the buffer; returns f = w'z."""
        if i < 0 or i >= X.shape[0] or X.shape[1] != self.d:
            raise IndexError(f"FourierFeatures.score: row {i} of a {X.shape[0]} x {X.shape[1]} matrix (width "
                             f"{self.d})")
        if self.D == 0:
            return 0.0
        _features(&self.UT[0, 0] if self.d else NULL, self.d, self.D, &X[i, 0] if self.d else NULL, self.scale,
                  &self.phase[0] if self.one_cos else NULL, &self.z[0], self.sc.p, self.sc.idx, self.sc.val)
        return olk_dot8(&self.w[0], &self.z[0], self.z.shape[0])

    def update(self, double c):
        """w += c z (the z of the last :meth:`score`)."""
        if self.z.shape[0]:
            olk_axpy(&self.w[0], c, &self.z[0], self.z.shape[0])


def dot(const double[::1] a, const double[::1] b):
    """sum_i a[i] b[i], summed left to right from 0.0."""
    cdef Py_ssize_t i, n = a.shape[0]
    cdef double acc = 0.0
    if b.shape[0] != n:
        raise ValueError(f"dot: lengths {n} and {b.shape[0]} differ")
    for i in range(n):
        acc += a[i] * b[i]
    return acc


def dot8(const double[::1] a, const double[::1] b):
    """sum_i a[i] b[i] in a fixed blocked order: eight partial sums (term i into sum i mod 8, each left to right
    from 0.0), then ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)) (olk_proj.h)."""
    if b.shape[0] != a.shape[0]:
        raise ValueError(f"dot8: lengths {a.shape[0]} and {b.shape[0]} differ")
    return olk_dot8(&a[0], &b[0], a.shape[0]) if a.shape[0] else 0.0


def axpy(double[::1] y, double a, const double[::1] x):
    """y += a * x element-wise (each y[i] + (a x[i]) rounded once per operation: numpy's ``y += a * x``)."""
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"axpy: lengths {y.shape[0]} and {x.shape[0]} differ")
    if y.shape[0]:
        olk_axpy(&y[0], a, &x[0], y.shape[0])


# ------------------------------------------------------------------------------------------ NOGD's screened step
cdef double _U = 1.1102230246251565e-16          # the unit roundoff of float64, 2^-53


cdef inline double _gamma(Py_ssize_t n) noexcept nogil:
    """gamma_n = n u / (1 - n u): |fl(a'b) - a'b| <= gamma_n |a|'|b| for an inner product of n terms summed in any
    order (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5 and Sec. 3.1)."""
    cdef double nu = n * _U
    return nu / (1.0 - nu)


cdef class NystromScreen:
    """NOGD's step after the map (hinge loss), exact and cheaper: the same decisions, updates and w as computing
    f = w'z, z = M k_S(x), on every row, with the O(kB) projection done only where it can matter.

    The exact score (the bits of :func:`project_dot`, what ``decision_function`` returns) is f = fl(w' fl(M k)),
    with k = k_S(x) (B entries), M = L^-1/2 V' given as M' (B x k).  Its real-arithmetic value is
    F = w'M k = beta*' k with beta* = M'w (B entries).  Keep beta = fl(M'w) (each entry a k-term inner product,
    recomputed whenever w changes) and compute g = fl(beta' k) (a B-term inner product: O(B), no projection).
    With kappa = max_t |k_t|, c_r = sum_t |M'[t, r]| and S = sum_r |w_r| c_r, the standard inner-product bound
    (see ``_gamma``) gives

        |f - F| <= kappa S (gamma_B + gamma_k (1 + gamma_B))      (z_r within gamma_B kappa c_r, then w'z)
        |beta' k - F| <= kappa ||beta - beta*||_1 <= kappa gamma_k S
        |g - beta' k| <= gamma_B kappa ||beta||_1

    so |g - f| <= kappa E, E = gamma_B ||beta||_1 + S (2 gamma_k + gamma_B + gamma_k gamma_B); the code uses 2E
    (and adds 1e-300 against underflow) so that the rounding of E itself needs no further care.  If
    y g >= 1 + |y| kappa 2E, then y f >= 1: the hinge slope is 0 (no update) and sign(f) = y (no mistake), exactly
    what the exact score would have given; only then is g returned instead of f (a value within kappa E of f; the
    engine reads only its sign).  Every other row (an update, or a score within the bound of the margin) gets the
    exact f, and an update w += a z (:func:`axpy`'s bits) recomputes beta.  Kernel values are computed once per
    row either way (the same kernel-evaluation count).

    It holds views of the learner's M' and w (not copies: the learner owns and pickles them), and its own beta,
    z and k_S(x) buffers."""
    cdef const double[:, ::1] Mt
    cdef double[::1] w
    cdef double[::1] zv, kv, bv, colsum   # z = M k_S(x), k_S(x), beta = M'w, c_r = sum_t |M'[t, r]|
    cdef readonly double bound        # 2E: |g - f| <= kappa * bound (see above)
    cdef Py_ssize_t B, k
    cdef _Scratch sc
    cdef readonly bint updated        # the last step() changed w

    def __cinit__(self, const double[:, ::1] Mt, double[::1] w):
        cdef Py_ssize_t t, r
        self.B, self.k = Mt.shape[0], Mt.shape[1]
        if w.shape[0] != self.k or self.B == 0 or self.k == 0:
            raise ValueError(f"NystromScreen: M' is {self.B} x {self.k}, w has {w.shape[0]} entries")
        self.Mt, self.w = Mt, w
        self.zv, self.kv, self.bv = np.empty(self.k), np.empty(self.B), np.empty(self.B)
        self.colsum = np.zeros(self.k)
        for t in range(self.B):
            for r in range(self.k):
                self.colsum[r] += fabs(Mt[t, r])
        self.sc = _Scratch(self.B, 0)
        self._refresh()

    cdef void _refresh(self) noexcept:
        """beta = fl(M'w) (each entry a k-term inner product over a row of M', :func:`dot8`'s order) and the
        bound's E (times 2, see the class docstring) for the current w."""
        cdef Py_ssize_t t, r
        cdef double l1 = 0.0, S = 0.0, gb = _gamma(self.B), gk = _gamma(self.k)
        for t in range(self.B):
            self.bv[t] = olk_dot8(&self.Mt[t, 0], &self.w[0], self.k)
            l1 += fabs(self.bv[t])
        for r in range(self.k):
            S += fabs(self.w[r]) * self.colsum[r]
        self.bound = 2.0 * (gb * l1 + S * (2.0 * gk + gb + gk * gb)) + 1e-300

    cdef int _check(self, SVPool pool) except -1:
        if pool.n_sv != self.B or pool.n_kernels != 1:
            raise ValueError(f"NystromScreen: the pool holds {pool.n_sv} SVs of {pool.n_kernels} kernel(s), the map "
                             f"{self.B} SVs of one kernel")
        return 0

    cdef double _screen(self, SVPool pool, RowSource src, Py_ssize_t i, double y) noexcept:
        """:meth:`screen` without the checks (the caller made them)."""
        cdef Py_ssize_t t
        cdef double g, kappa = 0.0
        pool._kernel_values(src, i, &self.kv[0], self.B)
        g = olk_dot8(&self.bv[0], &self.kv[0], self.B)
        for t in range(self.B):
            if fabs(self.kv[t]) > kappa:
                kappa = fabs(self.kv[t])
        if y * g - fabs(y) * kappa * self.bound >= 1.0:
            return g
        return NAN

    cdef double _step(self, SVPool pool, RowSource src, Py_ssize_t i, double y, double eta) noexcept:
        """:meth:`step` without the checks (the caller made them): sets ``updated``."""
        cdef double f = self._screen(pool, src, i, y)
        self.updated = False
        if f == f:
            return f
        f = _project_dot(self.Mt, self.kv, &self.zv[0], &self.w[0], False, self.sc)
        if y * f < 1.0:
            olk_axpy(&self.w[0], eta * y, &self.zv[0], self.k)
            self._refresh()
            self.updated = True
        return f

    def screen(self, SVPool pool, RowSource src, Py_ssize_t i, double y):
        """k_S(x_i) into the buffer (the pool's kernel values); g = beta'k_S(x_i) if y g >= 1 + |y| kappa 2E (the
        exact score would give no hinge update and no mistake), else NaN (:meth:`step` then computes it)."""
        pool._check_src(src, i)
        self._check(pool)
        return self._screen(pool, src, i, y)

    def step(self, SVPool pool, RowSource src, Py_ssize_t i, double y, double eta):
        """NOGD's hinge step after the map in one call: :meth:`screen`; where it cannot decide, the exact
        f = w'z, z = M k_S(x) (:func:`project_dot`'s bits) and, if y f < 1 (the hinge slope s = y,
        :func:`olk.algorithms.approximation.core.loss_slope`'s test), w += eta s z (:func:`axpy`'s bits) and beta
        and E for the new w.  Returns f; ``updated`` says whether w changed."""
        pool._check_src(src, i)
        self._check(pool)
        return self._step(pool, src, i, y, eta)

    def steps(self, SVPool pool, RowSource src, const int64_t[::1] rows, const double[::1] ys, double eta,
              double[::1] out):
        """:meth:`step` on rows[k] with label ys[k] for k = 0, 1, ... in order, its score into out[k] (the engine's
        stretch of rows in one call: the same operations as step by step).  Returns the number of updates; every
        row index is checked before the first step."""
        cdef Py_ssize_t k, n = rows.shape[0]
        cdef long long updates = 0
        self._check(pool)
        pool._check_rows(src, rows, ys, out, "NystromScreen.steps")
        for k in range(n):
            out[k] = self._step(pool, src, rows[k], ys[k], eta)
            updates += self.updated
        return updates
