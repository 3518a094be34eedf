# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Shared support-vector core: one pool of SVs, several kernels, several coefficient columns.

Every kernel olk supports is a function of the inner product <x, x'> and the two squared norms:

* linear      k(x, x') = <x, x'>
* gaussian    k(x, x') = exp(-gamma ||x - x'||^2) = exp(-gamma (|x|^2 + |x'|^2 - 2 <x, x'>))
* polynomial  k(x, x') = (gamma <x, x'> + coef0) ** degree

so the pool computes <x, sv_i> once per SV and derives every kernel's value from it.  Each
coefficient column c belongs to one kernel (``col_kernel[c]``); the decision values are

    out[c] = sum_i coef[i, c] * k_{col_kernel[c]}(sv_i, x)

This serves one plain classifier (1 kernel, 1 column), SPA's exact averaged classifier (1 kernel,
2 columns: a_s and a_s * s), and multiple-kernel learners that share one SV set over m kernels.

SVs are copied rows (so the pool does not depend on the data matrix it came from), stored densely
(C-contiguous, ``cap x d``) for dense data, or as (indices, values) runs in one flat buffer for
sparse data.  Sparse kernel evaluations scatter the query into a dense work vector once, then cost
one gather per non-zero of the SV: the cost scales with the SVs' non-zeros, not with d.

Removal is O(1) swap-remove: the last SV moves into the freed slot (its ``tag`` moves with it).
Rows are read from a :class:`RowSource`, a typed view of a CSR matrix or a dense array.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, pow, sqrt
from libc.string cimport memcpy, memset

cnp.import_array()

cdef enum:
    K_LINEAR = 0
    K_GAUSSIAN = 1
    K_POLY = 2

KERNEL_CODES = {"linear": K_LINEAR, "gaussian": K_GAUSSIAN, "rbf": K_GAUSSIAN,
                "polynomial": K_POLY, "poly": K_POLY}


cdef class RowSource:
    """Typed, read-only view of a data matrix's rows (CSR or dense float64) with cached squared norms."""
    cdef readonly bint sparse
    cdef readonly Py_ssize_t n_rows, n_features
    cdef const double[:, ::1] dense
    cdef const cnp.int64_t[::1] indptr
    cdef const cnp.int32_t[::1] indices
    cdef const double[::1] data
    cdef readonly object sqnorms           # numpy array, |x_i|^2
    cdef const double[::1] _sqn
    cdef object _keep                      # keeps converted arrays alive

    def __init__(self, X):
        import scipy.sparse as sp
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            if not X.has_sorted_indices:
                X = X.sorted_indices()
            indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
            indices = np.ascontiguousarray(X.indices, dtype=np.int32)
            data = np.ascontiguousarray(X.data, dtype=np.float64)
            self.sparse = True
            self.n_rows, self.n_features = X.shape
            self.indptr = indptr
            self.indices = indices
            self.data = data
            self._keep = (indptr, indices, data)
            sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
        else:
            A = np.ascontiguousarray(X, dtype=np.float64)
            if A.ndim == 1:
                A = A.reshape(1, -1)
            if A.ndim != 2:
                raise ValueError("RowSource needs a 2-d array")
            self.sparse = False
            self.n_rows, self.n_features = A.shape[0], A.shape[1]
            self.dense = A
            self._keep = (A,)
            sq = np.einsum("ij,ij->i", A, A)
        self.sqnorms = np.ascontiguousarray(sq, dtype=np.float64)
        self._sqn = self.sqnorms

    def row_nnz(self, Py_ssize_t i):
        if self.sparse:
            return int(self.indptr[i + 1] - self.indptr[i])
        return int(self.n_features)


cdef class SVPool:
    """A growable set of support vectors shared by ``n_kernels`` kernels and ``n_cols`` coefficient columns.

    Parameters
    ----------
    n_features : int
    sparse : bool — store SVs sparsely (must match the RowSource's layout)
    kinds : sequence of str — kernel kind per kernel ('gaussian', 'polynomial', 'linear')
    gammas, coef0s, degrees : sequences of float — kernel parameters per kernel
    col_kernel : sequence of int — kernel index of each coefficient column (default: column c -> kernel 0)
    capacity : int — initial slot capacity (grows by doubling)
    """
    cdef readonly Py_ssize_t n_features, n_kernels, n_cols, n_sv, capacity
    cdef readonly bint sparse
    cdef readonly long long n_kernel_evals
    cdef int[::1] kind
    cdef double[::1] gamma, coef0, degree
    cdef int[::1] col_kernel
    cdef double[:, ::1] coef
    cdef double[::1] sqnorm
    cdef cnp.int64_t[::1] tag
    cdef double[:, ::1] dense
    cdef Py_ssize_t[::1] sp_start
    cdef Py_ssize_t[::1] sp_len
    cdef int[::1] sp_idx
    cdef double[::1] sp_val
    cdef Py_ssize_t sp_used, sp_garbage
    cdef double[::1] work        # dense scatter buffer (sparse mode)
    cdef double[::1] kv          # per-kernel values of one SV

    def __init__(self, Py_ssize_t n_features, bint sparse, kinds=("gaussian",), gammas=(1.0,),
                 coef0s=None, degrees=None, col_kernel=None, Py_ssize_t capacity=256):
        cdef Py_ssize_t k
        self.n_features = n_features
        self.sparse = sparse
        self.n_kernels = len(kinds)
        if self.n_kernels < 1:
            raise ValueError("SVPool needs at least one kernel")
        try:
            self.kind = np.array([KERNEL_CODES[str(s).lower()] for s in kinds], dtype=np.intc)
        except KeyError as e:
            raise ValueError(f"unknown kernel kind {e.args[0]!r}; expected one of {sorted(KERNEL_CODES)}")
        self.gamma = np.broadcast_to(np.asarray(gammas, dtype=np.float64), (self.n_kernels,)).copy()
        self.coef0 = np.broadcast_to(np.asarray(0.0 if coef0s is None else coef0s, dtype=np.float64), (self.n_kernels,)).copy()
        self.degree = np.broadcast_to(np.asarray(1.0 if degrees is None else degrees, dtype=np.float64), (self.n_kernels,)).copy()
        if col_kernel is None:
            col_kernel = [0]
        ck = np.asarray(col_kernel, dtype=np.intc)
        if ck.ndim != 1 or ck.size < 1 or ck.min() < 0 or ck.max() >= self.n_kernels:
            raise ValueError("col_kernel must list kernel indices in [0, n_kernels)")
        self.col_kernel = ck.copy()
        self.n_cols = ck.size
        self.n_sv = 0
        self.n_kernel_evals = 0
        self.capacity = max(capacity, 4)
        self.coef = np.zeros((self.capacity, self.n_cols), dtype=np.float64)
        self.sqnorm = np.zeros(self.capacity, dtype=np.float64)
        self.tag = np.zeros(self.capacity, dtype=np.int64)
        self.kv = np.zeros(self.n_kernels, dtype=np.float64)
        if sparse:
            self.sp_start = np.zeros(self.capacity, dtype=np.intp)
            self.sp_len = np.zeros(self.capacity, dtype=np.intp)
            self.sp_idx = np.zeros(self.capacity * 16, dtype=np.intc)
            self.sp_val = np.zeros(self.capacity * 16, dtype=np.float64)
            self.sp_used = 0
            self.sp_garbage = 0
            self.work = np.zeros(n_features, dtype=np.float64)
        else:
            self.dense = np.zeros((self.capacity, n_features), dtype=np.float64)

    # ------------------------------------------------------------------ storage
    cdef void _grow_slots(self):
        cdef Py_ssize_t new = self.capacity * 2
        c = np.zeros((new, self.n_cols), dtype=np.float64); c[:self.n_sv] = np.asarray(self.coef)[:self.n_sv]
        s = np.zeros(new, dtype=np.float64); s[:self.n_sv] = np.asarray(self.sqnorm)[:self.n_sv]
        t = np.zeros(new, dtype=np.int64); t[:self.n_sv] = np.asarray(self.tag)[:self.n_sv]
        self.coef = c; self.sqnorm = s; self.tag = t
        if self.sparse:
            a = np.zeros(new, dtype=np.intp); a[:self.n_sv] = np.asarray(self.sp_start)[:self.n_sv]
            b = np.zeros(new, dtype=np.intp); b[:self.n_sv] = np.asarray(self.sp_len)[:self.n_sv]
            self.sp_start = a; self.sp_len = b
        else:
            d = np.zeros((new, self.n_features), dtype=np.float64); d[:self.n_sv] = np.asarray(self.dense)[:self.n_sv]
            self.dense = d
        self.capacity = new

    cdef void _reserve_flat(self, Py_ssize_t need):
        """Make room for `need` more sparse entries, compacting away removed SVs' runs when worthwhile."""
        cdef Py_ssize_t s, j, pos, start, ln
        if self.sp_used + need <= self.sp_val.shape[0]:
            return
        if self.sp_garbage > self.sp_used // 2:
            idx = np.empty(self.sp_val.shape[0], dtype=np.intc)
            val = np.empty(self.sp_val.shape[0], dtype=np.float64)
            pos = 0
            for s in range(self.n_sv):
                start = self.sp_start[s]; ln = self.sp_len[s]
                idx[pos:pos + ln] = np.asarray(self.sp_idx)[start:start + ln]
                val[pos:pos + ln] = np.asarray(self.sp_val)[start:start + ln]
                self.sp_start[s] = pos
                pos += ln
            self.sp_idx = idx; self.sp_val = val
            self.sp_used = pos; self.sp_garbage = 0
        if self.sp_used + need > self.sp_val.shape[0]:
            new = max(2 * self.sp_val.shape[0], self.sp_used + need)
            idx = np.zeros(new, dtype=np.intc); idx[:self.sp_used] = np.asarray(self.sp_idx)[:self.sp_used]
            val = np.zeros(new, dtype=np.float64); val[:self.sp_used] = np.asarray(self.sp_val)[:self.sp_used]
            self.sp_idx = idx; self.sp_val = val

    def add(self, RowSource src, Py_ssize_t i, coefs, long long tag=0):
        """Append row i of `src` as a new SV with the given coefficients (one per column). Returns its slot."""
        cdef Py_ssize_t s, j, a, b, ln
        cdef double[::1] cv = np.array(np.broadcast_to(np.asarray(coefs, dtype=np.float64), (self.n_cols,)), dtype=np.float64)
        if src.sparse != self.sparse or src.n_features > self.n_features:
            raise ValueError("RowSource layout/width does not match the pool")
        if self.n_sv == self.capacity:
            self._grow_slots()
        s = self.n_sv
        for j in range(self.n_cols):
            self.coef[s, j] = cv[j]
        self.sqnorm[s] = src._sqn[i]
        self.tag[s] = tag
        if self.sparse:
            a = src.indptr[i]; b = src.indptr[i + 1]; ln = b - a
            self._reserve_flat(ln)
            self.sp_start[s] = self.sp_used
            self.sp_len[s] = ln
            for j in range(ln):
                self.sp_idx[self.sp_used + j] = src.indices[a + j]
                self.sp_val[self.sp_used + j] = src.data[a + j]
            self.sp_used += ln
        else:
            for j in range(src.n_features):
                self.dense[s, j] = src.dense[i, j]
            for j in range(src.n_features, self.n_features):
                self.dense[s, j] = 0.0
        self.n_sv += 1
        return s

    def remove(self, Py_ssize_t s):
        """Swap-remove slot s in O(1): the last SV moves into slot s. Returns the slot that moved (or -1)."""
        cdef Py_ssize_t last = self.n_sv - 1, j
        if s < 0 or s > last:
            raise IndexError(f"SV slot {s} out of range (n_sv={self.n_sv})")
        if self.sparse:
            self.sp_garbage += self.sp_len[s]
        if s != last:
            for j in range(self.n_cols):
                self.coef[s, j] = self.coef[last, j]
            self.sqnorm[s] = self.sqnorm[last]
            self.tag[s] = self.tag[last]
            if self.sparse:
                self.sp_start[s] = self.sp_start[last]
                self.sp_len[s] = self.sp_len[last]
            else:
                memcpy(&self.dense[s, 0], &self.dense[last, 0], self.n_features * sizeof(double))
        self.n_sv -= 1
        if self.n_sv == 0 and self.sparse:
            self.sp_used = 0; self.sp_garbage = 0
        return last if s != last else -1

    def clear(self):
        self.n_sv = 0
        if self.sparse:
            self.sp_used = 0; self.sp_garbage = 0

    # ------------------------------------------------------------ coefficients
    def get_coef(self, Py_ssize_t s, Py_ssize_t c=0):
        return self.coef[s, c]

    def set_coef(self, Py_ssize_t s, Py_ssize_t c, double v):
        self.coef[s, c] = v

    def add_coef(self, Py_ssize_t s, Py_ssize_t c, double v):
        self.coef[s, c] += v

    def scale_col(self, Py_ssize_t c, double factor):
        """Multiply column c of every SV by `factor` (e.g. OGD's (1 - eta*lambda) shrinkage)."""
        cdef Py_ssize_t s
        for s in range(self.n_sv):
            self.coef[s, c] *= factor

    def add_col_vector(self, Py_ssize_t c, delta):
        """coef[:n_sv, c] += delta (a vector of length n_sv), e.g. a projection update."""
        cdef double[::1] d = np.ascontiguousarray(delta, dtype=np.float64)
        cdef Py_ssize_t s
        if d.shape[0] != self.n_sv:
            raise ValueError("delta must have length n_sv")
        for s in range(self.n_sv):
            self.coef[s, c] += d[s]

    @property
    def coefs(self):
        """Copy of the (n_sv, n_cols) coefficient matrix."""
        return np.asarray(self.coef)[:self.n_sv].copy()

    @property
    def tags(self):
        """Copy of the per-SV integer tags (e.g. the time step or data row each SV came from)."""
        return np.asarray(self.tag)[:self.n_sv].copy()

    def nnz(self):
        """Total stored non-zeros of the live SVs (memory accounting)."""
        if self.sparse:
            return int(np.asarray(self.sp_len)[:self.n_sv].sum())
        return int(self.n_sv * self.n_features)

    # ---------------------------------------------------------------- kernels
    cdef inline double _kval(self, Py_ssize_t k, double dot, double qn, double sn) noexcept nogil:
        cdef int kd = self.kind[k]
        cdef double d2
        if kd == K_GAUSSIAN:
            d2 = qn + sn - 2.0 * dot
            if d2 < 0.0:
                d2 = 0.0
            return exp(-self.gamma[k] * d2)
        elif kd == K_POLY:
            return pow(self.gamma[k] * dot + self.coef0[k], self.degree[k])
        return dot

    cdef inline void _scatter(self, RowSource src, Py_ssize_t i, double v) noexcept nogil:
        cdef Py_ssize_t j
        for j in range(src.indptr[i], src.indptr[i + 1]):
            self.work[src.indices[j]] = v * src.data[j]

    cdef inline double _dot(self, RowSource src, Py_ssize_t i, Py_ssize_t s) noexcept nogil:
        """<x_i, sv_s>; in sparse mode the query must already be scattered into self.work."""
        cdef Py_ssize_t j, a, e, d
        cdef double acc = 0.0
        cdef const double* q
        cdef double* v
        if self.sparse:
            a = self.sp_start[s]; e = a + self.sp_len[s]
            for j in range(a, e):
                acc += self.work[self.sp_idx[j]] * self.sp_val[j]
        else:
            d = src.n_features
            q = &src.dense[i, 0]
            v = &self.dense[s, 0]
            for j in range(d):
                acc += q[j] * v[j]
        return acc

    cdef void _decide(self, RowSource src, Py_ssize_t i, double* out) noexcept nogil:
        cdef Py_ssize_t s, c, k
        cdef double dot, qn = src._sqn[i], kv0
        cdef Py_ssize_t nk = self.n_kernels, nc = self.n_cols
        for c in range(nc):
            out[c] = 0.0
        if self.n_sv == 0:
            return
        if self.sparse:
            self._scatter(src, i, 1.0)
        if nk == 1:
            for s in range(self.n_sv):
                kv0 = self._kval(0, self._dot(src, i, s), qn, self.sqnorm[s])
                for c in range(nc):
                    out[c] += self.coef[s, c] * kv0
        else:
            for s in range(self.n_sv):
                dot = self._dot(src, i, s)
                for k in range(nk):
                    self.kv[k] = self._kval(k, dot, qn, self.sqnorm[s])
                for c in range(nc):
                    out[c] += self.coef[s, c] * self.kv[self.col_kernel[c]]
        if self.sparse:
            self._scatter(src, i, 0.0)
        self.n_kernel_evals += self.n_sv * nk

    def decision(self, RowSource src, Py_ssize_t i, double[::1] out):
        """Fill out[c] = sum_s coef[s, c] k_c(sv_s, x_i) for every column c (out must have length n_cols)."""
        if out.shape[0] < self.n_cols:
            raise ValueError("out too short")
        if src.sparse != self.sparse or src.n_features > self.n_features:
            raise ValueError("RowSource layout/width does not match the pool")
        self._decide(src, i, &out[0])

    def decision1(self, RowSource src, Py_ssize_t i):
        """Column-0 decision value for row i (fast path for single-column learners)."""
        cdef double buf[64]
        cdef double[::1] tmp
        if src.sparse != self.sparse:
            raise ValueError("RowSource layout does not match the pool")
        if self.n_cols <= 64:
            self._decide(src, i, buf)
            return buf[0]
        tmp = np.zeros(self.n_cols)
        self._decide(src, i, &tmp[0])
        return tmp[0]

    def kernel_values(self, RowSource src, Py_ssize_t i, double[:, ::1] out):
        """out[k, s] = k_k(x_i, sv_s) for all kernels k and live SVs s (out: n_kernels x >= n_sv)."""
        cdef Py_ssize_t s, k
        cdef double dot, qn = src._sqn[i]
        if src.sparse != self.sparse:
            raise ValueError("RowSource layout does not match the pool")
        if out.shape[0] < self.n_kernels or out.shape[1] < self.n_sv:
            raise ValueError("out too small")
        if self.n_sv == 0:
            return
        if self.sparse:
            self._scatter(src, i, 1.0)
        for s in range(self.n_sv):
            dot = self._dot(src, i, s)
            for k in range(self.n_kernels):
                out[k, s] = self._kval(k, dot, qn, self.sqnorm[s])
        if self.sparse:
            self._scatter(src, i, 0.0)
        self.n_kernel_evals += self.n_sv * self.n_kernels

    def self_kernel(self, RowSource src, Py_ssize_t i, Py_ssize_t k=0):
        """k_k(x_i, x_i)."""
        cdef double qn = src._sqn[i]
        return self._kval(k, qn, qn, qn)

    def sv_kernel(self, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k=0):
        """k_k(sv_a, sv_b) between two stored SVs."""
        cdef Py_ssize_t j, x, e, d
        cdef double dot = 0.0
        if self.sparse:
            x = self.sp_start[a]; e = x + self.sp_len[a]
            for j in range(x, e):
                self.work[self.sp_idx[j]] = self.sp_val[j]
            x = self.sp_start[b]; e = x + self.sp_len[b]
            for j in range(x, e):
                dot += self.work[self.sp_idx[j]] * self.sp_val[j]
            x = self.sp_start[a]; e = x + self.sp_len[a]
            for j in range(x, e):
                self.work[self.sp_idx[j]] = 0.0
        else:
            for j in range(self.n_features):
                dot += self.dense[a, j] * self.dense[b, j]
        return self._kval(k, dot, self.sqnorm[a], self.sqnorm[b])

    def decision_matrix(self, RowSource src):
        """(n_rows, n_cols) decision values for every row of `src` (batch prediction on a test set)."""
        cdef Py_ssize_t i, n = src.n_rows
        res = np.zeros((n, self.n_cols), dtype=np.float64)
        cdef double[:, ::1] r = res
        if src.sparse != self.sparse:
            raise ValueError("RowSource layout does not match the pool")
        for i in range(n):
            self._decide(src, i, &r[i, 0])
        return res
