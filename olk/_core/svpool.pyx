# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Shared support-vector core: one pool of SVs, several kernels, several coefficient columns.

Every kernel olk supports is a function of one *product* of x and x' and the two *self-products*:

* linear      k(x, x') = <x, x'>
* gaussian    k(x, x') = exp(-gamma ||x - x'||^2) = exp(-gamma (|x|^2 + |x'|^2 - 2 <x, x'>))
* polynomial  k(x, x') = (gamma <x, x'> + coef0) ** degree
* chi2        k(x, x') = exp(-gamma sum_j (x_j - x'_j)^2 / (x_j + x'_j))          (x, x' >= 0)
              = exp(-gamma (|x|_1 + |x'|_1 - 2 c(x, x'))),   c(x, x') = sum_j 2 x_j x'_j / (x_j + x'_j)

(the chi-square identity: (a - b)^2 / (a + b) = (a + b) - 4ab / (a + b), and c's terms vanish where either
entry is 0, so c costs one pass over the SV's non-zeros, like <x, x'>).  Linear and polynomial kernels may
be *normalised*, k(x, x') / sqrt(k(x, x) k(x', x')), from the same self-products (gaussian and chi2 already
have k(x, x) = 1).  A kernel reads a *view*: a column range [lo, hi) of the rows (a multi-view dataset's
feature block; default: all columns).  The distinct (view, product) pairs of a pool are its *measures*;
per SV the pool keeps each measure's self-product (|x|^2 on the view, or |x|_1 for chi2) and, for a query,
computes each measure's product at most once per SV, only when an owning column needs it.  A pool of
full-row kernels has one measure, <x, x'> on all columns: the pool computes <x, sv_i> once per SV and
derives every kernel's value from it.  Each coefficient column c belongs to one kernel
(``col_kernel[c]``); the decision values are

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
from libc.math cimport INFINITY, pow, sqrt
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil

cnp.import_array()


# --------------------------------------------------------------------------- portable exp
# Every Gaussian kernel value goes through exp().  glibc dispatches exp() on the CPU (an FMA variant
# on CPUs with FMA, a plain one otherwise), and the two differ in the last bit for ~0.07% of inputs
# (measured on 2M inputs in [-30, 0]).  One ulp is enough to flip a threshold test (Projectron's
# delta^2, a sampling draw compared with a probability), so olk uses its own exp, made of IEEE-754
# additions and multiplications only: the same bits on every x86-64/ARM host (built without FMA
# contraction: setup.py passes -ffp-contract=off).  Algorithm (the table-driven scheme of glibc's
# and ARM optimized-routines' exp, N = 128):
#
#   x = k ln2/N + r,  |r| <= ln2/(2N),  k = round(x N / ln2),  k = N e + j,  0 <= j < N
#   exp(x) = 2^e * 2^(j/N) * exp(r)
#   2^(j/N) = hi_j (1 + tail_j)          hi_j the double nearest 2^(j/N); tail_j its relative error
#   exp(x) ~= s + s * (tail_j + r + r^2/2 + r^3/6 + r^4/24 + r^5/120),   s = 2^e hi_j
#
# The Taylor remainder r^6/720 <= 5.4e-19 (2^-60.7) relative, far below half an ulp (2^-53): measured
# error <= 1 ulp against glibc (tests/test_core.py).  hi_j and tail_j are constants (olk_exp_table.h), computed
# once with the decimal module (exact arithmetic; tests/test_exp.py recomputes and compares them).  ln2/N is split
# into a 33-bit head (k * head is exact) and a tail.  The fast path covers -708 < x < 709 (2^e stays
# a normal number); outside it exp(x) = exp(x/2)^2 (both halves on the fast path, <= 2 ulp), which
# keeps sub-normal results and the overflow to inf right.

cdef extern from "olk_exp.h" nogil:
    # the exp itself is C (olk/_core/olk_exp.h), so the scalar and the vectorised array form are one definition
    const double olk_exp_tail[128]
    const uint64_t olk_exp_sbits[128]
    double olk_exp(double x)
    void olk_vexp(const double* x, double* y, Py_ssize_t n)
    void olk_vexp_fast(const double* x, double* y, Py_ssize_t n)   # the fast path alone: -708 < x < 709
    int olk_vexp_level

cdef extern from "olk_cpu.h" nogil:
    int olk_simd_detect()

cdef extern from "olk_scale.h" nogil:
    int olk_scale(double* v, Py_ssize_t n, double f)    # v *= f; any product zero?

cdef extern from "olk_dot.h" nogil:
    void olk_sparse_dot4(const double* w, const int* ix, const double* vv, const Py_ssize_t* start,
                         const Py_ssize_t* length, Py_ssize_t s, int unit, double* p)
    void olk_dense_dot4(const double* x, const double* rows, Py_ssize_t ld, Py_ssize_t d, Py_ssize_t s, double* p)


# --------------------------------------------------------------------------- uniform draws
cdef extern from "numpy/random/bitgen.h":
    ctypedef struct bitgen_t:
        void* state
        uint32_t (*next_uint32)(void* st) nogil

from cpython.pycapsule cimport PyCapsule_GetPointer


def uniform_int(rng, Py_ssize_t n):
    """A uniform integer in [0, n): the value ``rng.integers(n)`` returns, from the same bits of `rng`'s stream
    (a numpy Generator), without its Python-level dispatch (~1 us, at every removal of RBP and BOGD).  numpy draws
    a scalar below 2^32 by Lemire's method on its bit generator's 32-bit output (``random_bounded_uint64_fill`` ->
    ``buffered_bounded_lemire_uint32``); this is that method on the same ``next_uint32``.  tests/test_core.py checks
    the draws against ``rng.integers`` on a copy of the generator.  Other n, or another generator: ``rng.integers``."""
    cdef bitgen_t* bg
    cdef uint32_t rng_excl, leftover, threshold
    cdef uint64_t m
    if n < 2 or n > 0xFFFFFFFF or type(rng) is not np.random.Generator:
        return int(rng.integers(n))
    bg = <bitgen_t*> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
    rng_excl = <uint32_t> n                          # rng = n - 1, rng_excl = rng + 1
    with rng.bit_generator.lock:
        m = (<uint64_t> bg.next_uint32(bg.state)) * rng_excl
        leftover = <uint32_t> (m & 0xFFFFFFFF)
        if leftover < rng_excl:
            threshold = (0xFFFFFFFF - (rng_excl - 1)) % rng_excl
            while leftover < threshold:
                m = (<uint64_t> bg.next_uint32(bg.state)) * rng_excl
                leftover = <uint32_t> (m & 0xFFFFFFFF)
    return <Py_ssize_t> (m >> 32)


def exp_tables():
    """(tail, sbits): the exp's 128-entry tables (olk_exp_table.h) as numpy arrays (float64, uint64), for the
    test that recomputes them."""
    cdef int j
    tail = np.empty(128, dtype=np.float64)
    sbits = np.empty(128, dtype=np.uint64)
    for j in range(128):
        tail[j] = olk_exp_tail[j]
        sbits[j] = olk_exp_sbits[j]
    return tail, sbits


from olk._core import SIMD_LEVELS as EXP_SIMD_LEVELS     # noqa: E402 (the levels of olk_cpu.h)


def exp_simd(level=None):
    """The loop olk's array exp uses: "scalar", "avx2" or "avx512" (the best this CPU has, capped by the
    environment variable OLK_EXP_SIMD).  With `level`, switch to it (capped by what the CPU has) and return the
    level now in use.  Every level gives the same bits (tests/test_exp.py); they differ in speed only."""
    global olk_vexp_level
    from olk._core import simd_level
    olk_vexp_level = simd_level(olk_simd_detect(), level, "exp SIMD level")
    return EXP_SIMD_LEVELS[olk_vexp_level]


exp_simd()


def exp_simd_now():
    """The level :func:`exp_simd` last chose (without changing it)."""
    return EXP_SIMD_LEVELS[olk_vexp_level]


def exp_array(x):
    """olk's portable exp applied element-wise (float64 array in, new float64 array out)."""
    cdef const double[::1] a = np.ascontiguousarray(x, dtype=np.float64).ravel()
    out = np.empty(a.shape[0], dtype=np.float64)
    cdef double[::1] o = out
    if a.shape[0]:
        olk_vexp(&a[0], &o[0], a.shape[0])
    return out.reshape(np.shape(x))


def exp_array_scalar(x):
    """:func:`exp_array` one element at a time through the scalar olk_exp (tests: the vector form's bits)."""
    cdef const double[::1] a = np.ascontiguousarray(x, dtype=np.float64).ravel()
    out = np.empty(a.shape[0], dtype=np.float64)
    cdef double[::1] o = out
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        o[i] = olk_exp(a[i])
    return out.reshape(np.shape(x))


def pexp(double x):
    """olk's portable exp of one float (for learners' scalar Python code, e.g. a logistic loss)."""
    return olk_exp(x)


# ------------------------------------------------------------------ fixed-order linear algebra
# BLAS (OpenBLAS picks a kernel per CPU) and numpy's SIMD loops sum in host-dependent orders; learners
# whose decisions hinge on a threshold (Projectron's delta^2) use these plain loops instead: one
# summation order everywhere.  The packed-matrix loops only Projectron(++) uses are in olk/_core/packed.pyx.

def dot(const double[::1] a, const double[::1] b, Py_ssize_t n=-1):
    """sum_i a[i] b[i] for i < n (default: the whole length), summed left to right."""
    cdef Py_ssize_t i
    cdef double acc = 0.0
    if n < 0:
        n = a.shape[0]
    if n > a.shape[0] or n > b.shape[0]:
        raise ValueError("dot: n exceeds an operand's length")
    for i in range(n):
        acc += a[i] * b[i]
    return acc


# Kernel codes: one branch of SVPool._kval each.  What a code means to a user (its name, parameters,
# defaults, checks) is described once, in olk/kernels.py (KERNEL_TYPES), which passes these codes in.
cdef enum:
    K_LINEAR = 0
    K_GAUSSIAN = 1
    K_POLY = 2
    K_CHI2 = 3

N_KERNEL_CODES = 4

# The decision loops work on blocks of BLOCK support vectors: first every product and exp argument of the block,
# then one vectorised exp over the block (olk_vexp), then the sums.  Each value is computed by the same operations
# as one SV at a time, and each out[c] still adds its terms in slot order, so the result is bit-identical; what
# changes is that the exps no longer wait on the products one SV at a time.
cdef enum:
    BLOCK = 128


cdef class RowSource:
    """Typed, read-only view of a data matrix's rows (CSR or dense float64) with cached squared norms."""
    def __init__(self, X):
        import sys
        sp = sys.modules.get("scipy.sparse")     # a sparse X means scipy.sparse is loaded: dense data never imports it
        if sp is not None and sp.issparse(X):
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
        self.sqnorms = np.zeros(self.n_rows, dtype=np.float64)
        self._sqn = self.sqnorms
        self._fill_sqnorms()

    cdef void _fill_sqnorms(self):
        """|x_i|^2 summed left to right over the stored entries (numpy's SIMD reductions sum in a
        CPU-dependent order; every Gaussian kernel value depends on these)."""
        cdef Py_ssize_t i, j
        cdef double acc, v
        cdef double[::1] out = self.sqnorms
        for i in range(self.n_rows):
            acc = 0.0
            if self.sparse:
                for j in range(self.indptr[i], self.indptr[i + 1]):
                    v = self.data[j]
                    acc += v * v
            else:
                for j in range(self.n_features):
                    v = self.dense[i, j]
                    acc += v * v
            out[i] = acc

    @staticmethod
    def csr_row(indices, data, Py_ssize_t n_features):
        """One sparse row from its column indices (int32, strictly increasing, each < n_features) and values
        (float64, same length), without scipy: the per-example row of a stream (the River surface builds one
        per ``learn_one`` / ``predict_one``; scipy's checked CSR constructor costs ~70 us, this ~2 us).  The
        caller guarantees the order and range of ``indices`` (they are not checked)."""
        cdef RowSource self = RowSource.__new__(RowSource)
        idx = np.ascontiguousarray(indices, dtype=np.int32)
        val = np.ascontiguousarray(data, dtype=np.float64)
        if idx.shape[0] != val.shape[0]:
            raise ValueError("csr_row: indices and data differ in length")
        indptr = np.array([0, idx.shape[0]], dtype=np.int64)
        self.sparse = True
        self.n_rows, self.n_features = 1, n_features
        self.indptr = indptr
        self.indices = idx
        self.data = val
        self._keep = (indptr, idx, val)
        self.sqnorms = np.zeros(1, dtype=np.float64)
        self._sqn = self.sqnorms
        self._fill_sqnorms()
        return self

    def matrix(self):
        """The rows as a scipy CSR matrix (sparse) or a float64 array (dense): what the source was built from."""
        import scipy.sparse as sp
        if self.sparse:
            indptr, indices, data = self._keep
            return sp.csr_matrix((data, indices, indptr), shape=(self.n_rows, self.n_features))
        return self._keep[0]

    def __reduce__(self):
        # Explicit pickling: the typed views must be rebuilt from owned arrays, never copied as pointers.
        return (RowSource, (self.matrix(),))

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
    codes : sequence of int — kernel code per kernel (``olk.kernels.KernelSet.pool_args()`` gives
        codes and parameters; the codes are the branches of ``_kval``)
    gammas, coef0s, degrees : sequences of float — kernel parameters per kernel
    views : sequence of (lo, hi) or None per kernel — the column range [lo, hi) the kernel reads (None or
        hi = -1: all columns)
    normalize : sequence of bool per kernel — k(x, x') / sqrt(k(x, x) k(x', x')) (linear, polynomial)
    col_kernel : sequence of int — kernel index of each coefficient column (default: column c -> kernel 0)
    capacity : int — initial slot capacity (grows by doubling)

    The attributes and C methods are declared in ``svpool.pxd``: learner-specific Cython modules
    (``olk/_core/bpas.pyx``) cimport the pool and use its C interface (``_kernel_values``, ``_append``, ...).
    """
    def __init__(self, Py_ssize_t n_features, bint sparse, codes=(K_GAUSSIAN,), gammas=(1.0,),
                 coef0s=None, degrees=None, col_kernel=None, Py_ssize_t capacity=256, views=None,
                 normalize=None):
        cdef Py_ssize_t k
        self.n_features = n_features
        self.sparse = sparse
        self.n_kernels = len(codes)
        if self.n_kernels < 1:
            raise ValueError("SVPool needs at least one kernel")
        kc = np.asarray(codes)                   # checked before the cast to C ints (2**40 would wrap to 0)
        if kc.dtype.kind not in "iu" or kc.min() < 0 or kc.max() >= N_KERNEL_CODES:
            raise ValueError(f"kernel codes must be in [0, {N_KERNEL_CODES}) (see olk.kernels.KERNEL_TYPES)")
        self.kind = kc.astype(np.intc)
        self.gamma = np.broadcast_to(np.asarray(gammas, dtype=np.float64), (self.n_kernels,)).copy()
        self.coef0 = np.broadcast_to(np.asarray(0.0 if coef0s is None else coef0s, dtype=np.float64), (self.n_kernels,)).copy()
        self.degree = np.broadcast_to(np.asarray(1.0 if degrees is None else degrees, dtype=np.float64), (self.n_kernels,)).copy()
        deg = np.asarray(self.degree)
        self.int_degree = np.where((deg == np.round(deg)) & (deg >= 0) & (deg <= 64), deg, -1).astype(np.intc)
        if col_kernel is None:
            col_kernel = [0]
        ck = np.asarray(col_kernel)
        if ck.ndim != 1 or ck.size < 1 or ck.dtype.kind not in "iu" or ck.min() < 0 or ck.max() >= self.n_kernels:
            raise ValueError("col_kernel must list kernel indices in [0, n_kernels)")
        self.col_kernel = ck.astype(np.intc)
        self._measures(views, normalize)
        self.n_cols = ck.size
        self.n_sv = 0
        self.n_kernel_evals = 0
        self.capacity = max(capacity, 4)
        self.coef = np.zeros((self.capacity, self.n_cols), dtype=np.float64)
        self.masked = self.n_cols <= 64
        self.owners = np.zeros(self.capacity, dtype=np.uint64)
        self.mnorm = np.zeros((self.capacity, self.n_meas), dtype=np.float64)
        self.kself = np.zeros((self.capacity, self.n_kernels), dtype=np.float64)
        self.tag = np.zeros(self.capacity, dtype=np.int64)
        self.kv = np.zeros(self.n_kernels, dtype=np.float64)
        self.kstamp = np.full(self.n_kernels, -1, dtype=np.intp)
        self.barg = np.zeros(BLOCK, dtype=np.float64)
        self.bval = np.zeros(BLOCK, dtype=np.float64)
        ckl = self.col_kernel
        self.blocked_members = bool(self.masked and self.n_kernels > 1 and self.n_meas == 1 and self.m_hi[0] == -1
                                    and not self.m_chi[0] and len(set(ckl)) == len(ckl))
        if self.blocked_members:                # one entry per (SV, owning column) of a block
            self.ecol = np.zeros(BLOCK * self.n_cols, dtype=np.intc)
            self.ecoef = np.zeros(BLOCK * self.n_cols, dtype=np.float64)
            self.earg = np.zeros(BLOCK * self.n_cols, dtype=np.float64)
            self.ekv = np.zeros(BLOCK * self.n_cols, dtype=np.float64)
            self.fidx = np.zeros(BLOCK * self.n_cols, dtype=np.intp)
            self.fval = np.zeros(BLOCK * self.n_cols, dtype=np.float64)
        if sparse:
            self.sp_start = np.zeros(self.capacity, dtype=np.intp)
            self.sp_len = np.zeros(self.capacity, dtype=np.intp)
            self.sp_idx = np.zeros(self.capacity * 16, dtype=np.intc)
            self.sp_val = np.zeros(self.capacity * 16, dtype=np.float64)
            self.sp_used = 0
            self.sp_garbage = 0
            self.unit = True
            self.work = np.zeros(n_features, dtype=np.float64)
        else:
            self.dense = np.zeros((self.capacity, n_features), dtype=np.float64)

    def widen(self, Py_ssize_t n_features):
        """Take rows up to `n_features` wide from now on (a predict or partial_fit on a file whose highest feature
        index is above the training data's).  A feature the pool never saw is 0 in every stored SV, so every inner
        product and norm -- and so every kernel value -- is exactly what a pool of the wider width would compute
        (a dense dot product only gains ``+ 0.0`` terms).  Narrower is a no-op."""
        cdef Py_ssize_t old = self.n_features
        if n_features <= old:
            return
        if self.sparse:
            self.work = np.zeros(n_features, dtype=np.float64)
        else:
            d = np.zeros((self.capacity, n_features), dtype=np.float64)
            d[:self.n_sv, :old] = np.asarray(self.dense)[:self.n_sv]
            self.dense = d
        self.n_features = n_features

    def _measures(self, views, normalize):
        """Kernel k -> its measure (view, product); the distinct measures in order of first use."""
        cdef Py_ssize_t k
        views = [None] * self.n_kernels if views is None else list(views)
        norm = [False] * self.n_kernels if normalize is None else list(normalize)
        if len(views) != self.n_kernels or len(norm) != self.n_kernels:
            raise ValueError("views and normalize need one entry per kernel")
        keys, kmeas = [], []
        for k in range(self.n_kernels):
            v = views[k]
            lo, hi = (0, -1) if v is None else (int(v[0]), int(v[1]))
            if hi != -1 and not 0 <= lo < hi:
                raise ValueError(f"kernel {k}: view [{lo}, {hi}) is not a non-empty column range")
            if (lo, hi) != (0, -1) and hi > self.n_features:
                raise ValueError(f"kernel {k}: view [{lo}, {hi}) exceeds the {self.n_features} features")
            key = (lo, hi, 1 if self.kind[k] == K_CHI2 else 0)
            if key not in keys:
                keys.append(key)
            kmeas.append(keys.index(key))
        self.n_meas = len(keys)
        self.kmeas = np.asarray(kmeas, dtype=np.intc)
        self.knorm = np.asarray([bool(b) for b in norm], dtype=np.intc)
        self.m_lo = np.asarray([key[0] for key in keys], dtype=np.intp)
        self.m_hi = np.asarray([key[1] for key in keys], dtype=np.intp)
        self.m_chi = np.asarray([key[2] for key in keys], dtype=np.intc)
        self.qnorm = np.zeros(self.n_meas, dtype=np.float64)
        self.mprod = np.zeros(self.n_meas, dtype=np.float64)
        self.mstamp = np.full(self.n_meas, -1, dtype=np.intp)

    def pool_views(self):
        """(lo, hi, chi2) of every measure, and each kernel's measure (introspection and tests)."""
        return ([(int(self.m_lo[m]), int(self.m_hi[m]), bool(self.m_chi[m])) for m in range(self.n_meas)],
                [int(self.kmeas[k]) for k in range(self.n_kernels)])

    # ------------------------------------------------------------------ guards
    # The loops run without bounds checks, so every Python-visible entry point checks its indices once
    # (a few comparisons per call): a bad index is an IndexError, never an out-of-bounds read.
    cdef int _check_src(self, RowSource src, Py_ssize_t i) except -1:
        if src is None:
            raise ValueError("no RowSource given")
        if src.sparse != self.sparse or src.n_features > self.n_features:
            raise ValueError(f"RowSource layout/width ({'sparse' if src.sparse else 'dense'}, {src.n_features} "
                             f"features) does not match the pool ({'sparse' if self.sparse else 'dense'}, "
                             f"{self.n_features} features)")
        if i < 0 or i >= src.n_rows:
            raise IndexError(f"row {i} out of range (the source has {src.n_rows} rows)")
        return 0

    cdef int _check_slot(self, Py_ssize_t s, Py_ssize_t c=0) except -1:
        if s < 0 or s >= self.n_sv:
            raise IndexError(f"SV slot {s} out of range (n_sv={self.n_sv})")
        if c < 0 or c >= self.n_cols:
            raise IndexError(f"coefficient column {c} out of range (n_cols={self.n_cols})")
        return 0

    cdef int _check_kernel(self, Py_ssize_t k) except -1:
        if k < 0 or k >= self.n_kernels:
            raise IndexError(f"kernel {k} out of range (n_kernels={self.n_kernels})")
        return 0

    cdef int _check_single(self, str what) except -1:
        """A compiled step written for one classifier (``what``: its name) refuses any other pool."""
        if self.n_kernels != 1 or self.n_cols != 1:
            raise ValueError(f"{what} needs a pool of one kernel and one coefficient column")
        return 0

    cdef int _check_rows(self, RowSource src, const int64_t[::1] rows, const double[::1] ys, double[::1] out,
                         str what) except -1:
        """A stretch of rows (``what``: the compiled loop's name): one label and one output per row, every row index
        checked (:meth:`_check_src`) before the first step."""
        cdef Py_ssize_t k, n = rows.shape[0]
        if ys.shape[0] != n or out.shape[0] < n:
            raise ValueError(f"{what}: {n} rows, {ys.shape[0]} labels, {out.shape[0]} outputs")
        for k in range(n):
            self._check_src(src, rows[k])
        return 0

    # ------------------------------------------------------------------ pickling
    def __reduce__(self):
        """Pickle as plain arrays (live SVs only; the sparse store compacted), rebuilt by :func:`_rebuild_pool`.

        The pool's typed memoryviews point into arrays it owns; copying them by value (Cython's default
        for cdef classes) would leave the copy pointing at freed memory, so the state is explicit."""
        n = self.n_sv
        state = {
            "n_features": self.n_features, "sparse": bool(self.sparse),
            "kind": np.asarray(self.kind).copy(), "gamma": np.asarray(self.gamma).copy(),
            "coef0": np.asarray(self.coef0).copy(), "degree": np.asarray(self.degree).copy(),
            "col_kernel": np.asarray(self.col_kernel).copy(), "n_kernel_evals": self.n_kernel_evals,
            "views": [None if self.m_hi[self.kmeas[k]] == -1 else (int(self.m_lo[self.kmeas[k]]),
                                                                   int(self.m_hi[self.kmeas[k]]))
                      for k in range(self.n_kernels)],
            "normalize": [bool(self.knorm[k]) for k in range(self.n_kernels)],
            "coef": self.coefs, "mnorm": np.asarray(self.mnorm)[:n].copy(), "tag": self.tags,
        }
        if self.sparse:
            starts = np.asarray(self.sp_start)[:n]
            lens = np.asarray(self.sp_len)[:n]
            runs = [np.arange(a, a + b) for a, b in zip(starts, lens)]
            flat = np.concatenate(runs) if runs else np.zeros(0, dtype=np.intp)
            state["sp_len"] = lens.copy()
            state["sp_idx"] = np.asarray(self.sp_idx)[flat].copy()
            state["sp_val"] = np.asarray(self.sp_val)[flat].copy()
        else:
            state["dense"] = np.asarray(self.dense)[:n].copy()
        return (_rebuild_pool, (state,))

    def _set_state(self, state):
        cdef Py_ssize_t n = state["coef"].shape[0], s, pos = 0
        while self.capacity < n:
            self._grow_slots()
        np.asarray(self.coef)[:n] = state["coef"]
        for s in range(n):
            self._remask(s)
        if "mnorm" in state:
            np.asarray(self.mnorm)[:n] = state["mnorm"]
        else:                                   # a pickle from before views: one full-row measure
            np.asarray(self.mnorm)[:n, 0] = state["sqnorm"]
        for s in range(n):
            self._fill_kself(s)
        np.asarray(self.tag)[:n] = state["tag"]
        if self.sparse:
            lens = np.asarray(state["sp_len"], dtype=np.intp)
            self._reserve_flat(int(lens.sum()))
            np.asarray(self.sp_idx)[:lens.sum()] = state["sp_idx"]
            np.asarray(self.sp_val)[:lens.sum()] = state["sp_val"]
            for s in range(n):
                self.sp_start[s] = pos
                self.sp_len[s] = lens[s]
                pos += lens[s]
            self.sp_used = pos
            self.sp_garbage = 0
            self.unit = bool(np.all(np.asarray(self.sp_val)[:pos] == 1.0))
        else:
            np.asarray(self.dense)[:n] = state["dense"]
        self.n_sv = n
        self.n_kernel_evals = state["n_kernel_evals"]

    # ------------------------------------------------------------------ storage
    cdef void _grow_slots(self):
        cdef Py_ssize_t new = self.capacity * 2
        c = np.zeros((new, self.n_cols), dtype=np.float64); c[:self.n_sv] = np.asarray(self.coef)[:self.n_sv]
        s = np.zeros((new, self.n_meas), dtype=np.float64); s[:self.n_sv] = np.asarray(self.mnorm)[:self.n_sv]
        ks = np.zeros((new, self.n_kernels), dtype=np.float64); ks[:self.n_sv] = np.asarray(self.kself)[:self.n_sv]
        t = np.zeros(new, dtype=np.int64); t[:self.n_sv] = np.asarray(self.tag)[:self.n_sv]
        o = np.zeros(new, dtype=np.uint64); o[:self.n_sv] = np.asarray(self.owners)[:self.n_sv]
        self.coef = c; self.mnorm = s; self.kself = ks; self.tag = t; self.owners = o
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
        cdef int[::1] nidx
        cdef double[::1] nval
        if self.sp_used + need <= self.sp_val.shape[0]:
            return
        if self.sp_garbage > self.sp_used // 2:
            idx = np.empty(self.sp_val.shape[0], dtype=np.intc)
            val = np.empty(self.sp_val.shape[0], dtype=np.float64)
            nidx = idx
            nval = val
            pos = 0
            for s in range(self.n_sv):                  # each live run moved down, in slot order (C copies)
                start = self.sp_start[s]; ln = self.sp_len[s]
                if ln > 0:
                    memcpy(&nidx[pos], &self.sp_idx[start], ln * sizeof(int))
                    memcpy(&nval[pos], &self.sp_val[start], ln * sizeof(double))
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
        """Append row i of `src` as a new SV with the given coefficients (one per column; a number is every
        column's). Returns its slot."""
        cdef double one
        cdef double[::1] cv
        self._check_src(src, i)
        if self.n_cols == 1 and (type(coefs) is float or type(coefs) is int):
            one = coefs                                 # the value numpy's float64 conversion gives
            return self._append(src, i, &one, tag)
        cv = np.array(np.broadcast_to(np.asarray(coefs, dtype=np.float64), (self.n_cols,)), dtype=np.float64)
        return self._append(src, i, &cv[0], tag)

    cdef Py_ssize_t _append(self, RowSource src, Py_ssize_t i, const double* coefs, long long tag) except -1:
        """:meth:`add` without the checks: coefs holds one value per column."""
        cdef Py_ssize_t s, j, a, b, ln
        if self.n_sv == self.capacity:
            self._grow_slots()
        s = self.n_sv
        for j in range(self.n_cols):
            self.coef[s, j] = coefs[j]
        self._remask(s)
        for j in range(self.n_meas):
            self.mnorm[s, j] = self._row_self(src, i, j)
        self._fill_kself(s)
        self.tag[s] = tag
        if self.sparse:
            a = src.indptr[i]; b = src.indptr[i + 1]; ln = b - a
            self._reserve_flat(ln)
            self.sp_start[s] = self.sp_used
            self.sp_len[s] = ln
            for j in range(ln):
                self.sp_idx[self.sp_used + j] = src.indices[a + j]
                self.sp_val[self.sp_used + j] = src.data[a + j]
                if src.data[a + j] != 1.0:
                    self.unit = False
            self.sp_used += ln
        else:
            for j in range(src.n_features):
                self.dense[s, j] = src.dense[i, j]
            for j in range(src.n_features, self.n_features):
                self.dense[s, j] = 0.0
        self.n_sv += 1
        return s

    cdef void _fill_kself(self, Py_ssize_t s) noexcept nogil:
        """kself[s, k] = k_k(sv_s, sv_s) for every kernel, from the stored self-products (the product of a row
        with itself is its self-product): computed once per stored SV instead of once per use."""
        cdef Py_ssize_t k, m
        for k in range(self.n_kernels):
            m = self.kmeas[k]
            self.kself[s, k] = self._kval(k, self.mnorm[s, m], self.mnorm[s, m], self.mnorm[s, m])

    def remove(self, Py_ssize_t s):
        """Swap-remove slot s in O(1): the last SV moves into slot s. Returns the slot that moved (or -1)."""
        if s < 0 or s > self.n_sv - 1:
            raise IndexError(f"SV slot {s} out of range (n_sv={self.n_sv})")
        return self._swap_remove(s)

    cdef Py_ssize_t _swap_remove(self, Py_ssize_t s) noexcept nogil:
        """:meth:`remove` without the check (0 <= s < n_sv)."""
        cdef Py_ssize_t last = self.n_sv - 1, j
        if self.sparse:
            self.sp_garbage += self.sp_len[s]
        if s != last:
            for j in range(self.n_cols):
                self.coef[s, j] = self.coef[last, j]
            self.owners[s] = self.owners[last]
            for j in range(self.n_meas):
                self.mnorm[s, j] = self.mnorm[last, j]
            for j in range(self.n_kernels):
                self.kself[s, j] = self.kself[last, j]
            self.tag[s] = self.tag[last]
            if self.sparse:
                self.sp_start[s] = self.sp_start[last]
                self.sp_len[s] = self.sp_len[last]
            else:
                memcpy(&self.dense[s, 0], &self.dense[last, 0], self.n_features * sizeof(double))
        self.n_sv -= 1
        if self.n_sv == 0 and self.sparse:
            self.sp_used = 0; self.sp_garbage = 0; self.unit = True
        return last if s != last else -1

    def clear(self):
        self.n_sv = 0
        if self.sparse:
            self.sp_used = 0; self.sp_garbage = 0; self.unit = True

    # ------------------------------------------------------------ coefficients
    cdef inline void _rebit(self, Py_ssize_t s, Py_ssize_t c) noexcept nogil:
        """Keep owners[s]'s bit c equal to (coef[s, c] != 0) after coef[s, c] changed."""
        if not self.masked:
            return
        if self.coef[s, c] != 0.0:
            self.owners[s] |= (<uint64_t>1) << c
        else:
            self.owners[s] &= ~((<uint64_t>1) << c)

    cdef inline void _remask(self, Py_ssize_t s) noexcept nogil:
        cdef Py_ssize_t c
        cdef uint64_t m = 0
        if not self.masked:
            return
        for c in range(self.n_cols):
            if self.coef[s, c] != 0.0:
                m |= (<uint64_t>1) << c
        self.owners[s] = m

    def get_coef(self, Py_ssize_t s, Py_ssize_t c=0):
        self._check_slot(s, c)
        return self.coef[s, c]

    def set_coef(self, Py_ssize_t s, Py_ssize_t c, double v):
        self._check_slot(s, c)
        self.coef[s, c] = v
        self._rebit(s, c)

    def add_coef(self, Py_ssize_t s, Py_ssize_t c, double v):
        self._check_slot(s, c)
        self.coef[s, c] += v
        self._rebit(s, c)

    def scale_col(self, Py_ssize_t c, double factor):
        """Multiply column c of every SV by `factor` (e.g. OGD's (1 - eta*lambda) shrinkage)."""
        self._scale_col(c, factor)

    cdef int _scale_col(self, Py_ssize_t c, double factor) except -1:
        """:meth:`scale_col` (the C interface: a learner's compiled step calls it without a Python call)."""
        cdef Py_ssize_t s, stride = self.n_cols
        cdef double* col
        if c < 0 or c >= self.n_cols:
            raise IndexError(f"coefficient column {c} out of range (n_cols={self.n_cols})")
        if self.n_sv == 0:
            return 0
        col = &self.coef[0, c]
        if stride == 1:                                 # one column: a contiguous run (olk_scale.h, vectorised)
            if olk_scale(col, self.n_sv, factor) and self.masked:
                for s in range(self.n_sv):              # a zero (or an underflow): its owner bit; nonzeros keep theirs
                    self._rebit(s, c)
            return 0
        for s in range(self.n_sv):
            col[s * stride] = col[s * stride] * factor
            self._rebit(s, c)
        return 0

    def add_col_vector(self, Py_ssize_t c, delta):
        """coef[:n_sv, c] += delta (a vector of length n_sv), e.g. a projection update."""
        cdef double[::1] d = np.ascontiguousarray(delta, dtype=np.float64)
        cdef Py_ssize_t s
        if d.shape[0] != self.n_sv:
            raise ValueError("delta must have length n_sv")
        if c < 0 or c >= self.n_cols:
            raise IndexError(f"coefficient column {c} out of range (n_cols={self.n_cols})")
        for s in range(self.n_sv):
            self.coef[s, c] += d[s]
            self._rebit(s, c)

    def coef_dot(self, Py_ssize_t c, const double[::1] k):
        """sum_s coef[s, c] k[s] over the live SVs, in slot order (a decision value from a kernel row)."""
        cdef Py_ssize_t s
        cdef double acc = 0.0
        if k.shape[0] < self.n_sv:
            raise ValueError("k shorter than n_sv")
        if c < 0 or c >= self.n_cols:
            raise IndexError(f"coefficient column {c} out of range (n_cols={self.n_cols})")
        for s in range(self.n_sv):
            acc += self.coef[s, c] * k[s]
        return acc

    def owned(self, Py_ssize_t c):
        """Slots (ascending) of the SVs column c owns: coef[s, c] != 0.  In a one-column pool every stored SV
        belongs to the column (all slots, whatever the value).  A multi-kernel learner's classifier c
        forgets an SV by zeroing its coefficient; the row goes once no column owns it (:meth:`row_empty`)."""
        cdef Py_ssize_t s, n = 0
        if c < 0 or c >= self.n_cols:
            raise IndexError(f"coefficient column {c} out of range (n_cols={self.n_cols})")
        if self.n_cols == 1:
            return np.arange(self.n_sv, dtype=np.intp)
        out = np.empty(self.n_sv, dtype=np.intp)
        cdef Py_ssize_t[::1] o = out
        for s in range(self.n_sv):
            if self.coef[s, c] != 0.0:
                o[n] = s
                n += 1
        return out[:n]

    def oldest(self, Py_ssize_t c):
        """The slot of column c's oldest SV: the smallest tag among the SVs it owns (:meth:`owned`), ties to the lowest
        slot (``owned(c)[argmin(tags[owned(c)])]`` without the two arrays); -1 if it owns none."""
        if c < 0 or c >= self.n_cols:
            raise IndexError(f"coefficient column {c} out of range (n_cols={self.n_cols})")
        return self._oldest(c)

    cdef Py_ssize_t _oldest(self, Py_ssize_t c) noexcept nogil:
        """:meth:`oldest` without the check (0 <= c < n_cols)."""
        cdef Py_ssize_t s, best = -1
        for s in range(self.n_sv):
            if self.n_cols == 1 or self.coef[s, c] != 0.0:
                if best < 0 or self.tag[s] < self.tag[best]:
                    best = s
        return best

    def coef_at(self, const Py_ssize_t[::1] slots, Py_ssize_t c):
        """coef[slots, c] (without copying the whole coefficient matrix as :attr:`coefs` does)."""
        cdef Py_ssize_t j
        if c < 0 or c >= self.n_cols:
            raise IndexError(f"coefficient column {c} out of range (n_cols={self.n_cols})")
        out = np.empty(slots.shape[0], dtype=np.float64)
        cdef double[::1] o = out
        for j in range(slots.shape[0]):
            self._check_slot(slots[j], c)
            o[j] = self.coef[slots[j], c]
        return out

    def row_empty(self, Py_ssize_t s):
        """True if no column owns slot s (every coefficient is 0)."""
        cdef Py_ssize_t c
        self._check_slot(s)
        for c in range(self.n_cols):
            if self.coef[s, c] != 0.0:
                return False
        return True

    def self_kernels(self, Py_ssize_t k=0):
        """k_k(sv_s, sv_s) for every live SV (computed from the stored self-products when each SV was stored)."""
        cdef Py_ssize_t s
        self._check_kernel(k)
        out = np.empty(self.n_sv, dtype=np.float64)
        cdef double[::1] o = out
        for s in range(self.n_sv):
            o[s] = self.kself[s, k]
        return out

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
    cdef inline bint _is_exp(self, Py_ssize_t k) noexcept nogil:
        """Kernel k's value is exp(-gamma d): gaussian (d = squared distance) and chi2 (d = chi-square distance)."""
        return self.kind[k] == K_GAUSSIAN or self.kind[k] == K_CHI2

    cdef inline double _exp_arg(self, Py_ssize_t k, double prod, double qn, double sn) noexcept nogil:
        """-gamma d for an exp kernel: d = |x|^2 + |x'|^2 - 2<x,x'> (gaussian) or |x|_1 + |x'|_1 - 2c (chi2),
        clipped at 0 (rounding can make it slightly negative)."""
        cdef double d2 = qn + sn - 2.0 * prod
        if d2 < 0.0:
            d2 = 0.0
        return -self.gamma[k] * d2

    cdef inline double _kval(self, Py_ssize_t k, double prod, double qn, double sn) noexcept nogil:
        """Kernel k's value from its measure's product of x and x' (``prod``) and their self-products (qn, sn)."""
        cdef int kd = self.kind[k]
        cdef double v, z
        if kd == K_GAUSSIAN or kd == K_CHI2:
            return olk_exp(self._exp_arg(k, prod, qn, sn))
        elif kd == K_POLY:
            v = self._ipow(k, self.gamma[k] * prod + self.coef0[k])
            if self.knorm[k]:
                z = self._ipow(k, self.gamma[k] * qn + self.coef0[k]) * self._ipow(k, self.gamma[k] * sn + self.coef0[k])
                return v / sqrt(z) if z > 0.0 else 0.0
            return v
        if self.knorm[k]:
            z = qn * sn
            return prod / sqrt(z) if z > 0.0 else 0.0
        return prod

    cdef inline double _ipow(self, Py_ssize_t k, double base) noexcept nogil:
        """base ** degree: repeated multiplication for integer degrees (portable bits), libm pow otherwise."""
        cdef int p = self.int_degree[k], j
        cdef double acc
        if p < 0:
            return pow(base, self.degree[k])
        acc = 1.0
        for j in range(p):
            acc *= base
        return acc

    cdef inline void _scatter(self, RowSource src, Py_ssize_t i, double v) noexcept nogil:
        cdef Py_ssize_t j
        for j in range(src.indptr[i], src.indptr[i + 1]):
            self.work[src.indices[j]] = v * src.data[j]

    cdef inline void _scatter_sv(self, Py_ssize_t q, double v) noexcept nogil:
        """Like :meth:`_scatter`, for the stored SV in slot q (sparse mode)."""
        cdef Py_ssize_t j, a = self.sp_start[q], e = self.sp_start[q] + self.sp_len[q]
        for j in range(a, e):
            self.work[self.sp_idx[j]] = v * self.sp_val[j]

    cdef inline const double* _qrow(self, RowSource src, Py_ssize_t i) noexcept nogil:
        """The dense query row's data (dense mode; the sparse query is scattered into ``work`` instead)."""
        if self.sparse:
            return NULL
        return &src.dense[i, 0]

    cdef inline Py_ssize_t _lower(self, const int* idx, Py_ssize_t a, Py_ssize_t e, Py_ssize_t col) noexcept nogil:
        """The first position p in [a, e) with idx[p] >= col (idx sorted ascending), else e."""
        cdef Py_ssize_t mid
        while a < e:
            mid = (a + e) // 2
            if idx[mid] < col:
                a = mid + 1
            else:
                e = mid
        return a

    cdef inline double _prod(self, const double* q, Py_ssize_t qlen, Py_ssize_t s, Py_ssize_t m) noexcept nogil:
        """Measure m's product of the query with SV s: <x, sv_s> on the measure's columns, or chi2's
        c(x, sv_s) = sum 2 x_j v_j / (x_j + v_j).  Dense: the query row q (its first qlen columns; narrower rows
        are zero beyond); sparse: the query is scattered into ``work``, and the SV's run is cut to the view by
        binary search (its indices are sorted)."""
        cdef Py_ssize_t j, a, e, lo = self.m_lo[m], hi = self.m_hi[m]
        cdef double acc = 0.0, x, v, t
        cdef double* row
        cdef bint chi = self.m_chi[m]
        if self.sparse:
            a = self.sp_start[s]; e = a + self.sp_len[s]
            if hi != -1:
                a = self._lower(&self.sp_idx[0], a, e, lo)
                e = self._lower(&self.sp_idx[0], a, e, hi)
            if chi:
                for j in range(a, e):
                    x = self.work[self.sp_idx[j]]
                    v = self.sp_val[j]
                    t = x + v
                    if t > 0.0:
                        acc += 2.0 * x * v / t
            elif self.unit:                     # every stored value is 1.0 and w * 1.0 == w exactly
                for j in range(a, e):
                    acc += self.work[self.sp_idx[j]]
            else:
                for j in range(a, e):
                    acc += self.work[self.sp_idx[j]] * self.sp_val[j]
            return acc
        row = &self.dense[s, 0]
        if hi == -1:
            hi = qlen
        elif hi > qlen:
            hi = qlen
        if chi:
            for j in range(lo, hi):
                x = q[j]
                v = row[j]
                t = x + v
                if t > 0.0:
                    acc += 2.0 * x * v / t
        else:
            for j in range(lo, hi):
                acc += q[j] * row[j]
        return acc

    cdef inline void _prods4(self, const double* q, Py_ssize_t qlen, Py_ssize_t s, double* p) noexcept nogil:
        """p[b] = <x, sv_{s+b}> on all columns for b < 4 (measure 0 when it is the plain whole-row inner product),
        each summed exactly as :meth:`_prod` sums it, four chains interleaved (olk_dot.h)."""
        if self.sparse:
            olk_sparse_dot4(&self.work[0], &self.sp_idx[0], &self.sp_val[0], &self.sp_start[0], &self.sp_len[0], s,
                            self.unit, p)
        else:
            olk_dense_dot4(q, &self.dense[0, 0], self.n_features, qlen, s, p)

    cdef inline void _block_prods(self, const double* q, Py_ssize_t qlen, Py_ssize_t s0, Py_ssize_t s1,
                                  Py_ssize_t m, double* p) noexcept nogil:
        """p[s - s0] = measure m's product of the query with SV s, for s0 <= s < s1 (four at a time when m is the
        plain whole-row inner product, else one at a time through :meth:`_prod`)."""
        cdef Py_ssize_t s = s0
        if self.m_hi[m] == -1 and not self.m_chi[m]:
            while s + 4 <= s1:
                self._prods4(q, qlen, s, &p[s - s0])
                s += 4
        while s < s1:
            p[s - s0] = self._prod(q, qlen, s, m)
            s += 1

    cdef double _row_self(self, RowSource src, Py_ssize_t i, Py_ssize_t m) noexcept nogil:
        """Measure m's self-product of row i of src: |x|^2 on the view (all columns: the source's cached
        |x_i|^2), or |x|_1 on the view for chi2 (c(x, x) = sum_j x_j)."""
        cdef Py_ssize_t j, a, e, lo = self.m_lo[m], hi = self.m_hi[m]
        cdef double acc = 0.0, v
        cdef bint chi = self.m_chi[m]
        if hi == -1 and not chi:
            return src._sqn[i]
        if src.sparse:
            a = src.indptr[i]; e = src.indptr[i + 1]
            if hi != -1:
                a = self._lower(<const int*> &src.indices[0], a, e, lo)
                e = self._lower(<const int*> &src.indices[0], a, e, hi)
            for j in range(a, e):
                v = src.data[j]
                acc += v if chi else v * v
            return acc
        if hi == -1 or hi > src.n_features:
            hi = src.n_features
        for j in range(lo, hi):
            v = src.dense[i, j]
            acc += v if chi else v * v
        return acc

    cdef inline void _query(self, RowSource src, Py_ssize_t i) noexcept nogil:
        """Start a pass for query row i: its self-products per measure, product stamps reset."""
        cdef Py_ssize_t m
        for m in range(self.n_meas):
            self.qnorm[m] = self._row_self(src, i, m)
            self.mstamp[m] = -1

    cdef inline double _mprod(self, const double* q, Py_ssize_t qlen, Py_ssize_t s, Py_ssize_t m) noexcept nogil:
        """:meth:`_prod`, computed at most once per (SV, measure) of a pass."""
        if self.mstamp[m] != s:
            self.mprod[m] = self._prod(q, qlen, s, m)
            self.mstamp[m] = s
        return self.mprod[m]

    cdef inline double _kval_at(self, Py_ssize_t k, const double* q, Py_ssize_t qlen, Py_ssize_t s) noexcept nogil:
        """k_k(x, sv_s) for the query of the current pass (its self-products in qnorm)."""
        cdef Py_ssize_t m = self.kmeas[k]
        return self._kval(k, self._mprod(q, qlen, s, m), self.qnorm[m], self.mnorm[s, m])

    cdef void _decide(self, RowSource src, Py_ssize_t i, double* out) noexcept nogil:
        cdef Py_ssize_t s, c
        cdef Py_ssize_t nk = self.n_kernels, nc = self.n_cols
        cdef const double* q = self._qrow(src, i)
        for c in range(nc):
            out[c] = 0.0
        if self.n_sv == 0:
            return
        if self.sparse:
            self._scatter(src, i, 1.0)
        self._query(src, i)
        if nk == 1:
            self._decide_single(q, src.n_features, out)
            self.n_kernel_evals += self.n_sv
        else:
            self.n_kernel_evals += self._decide_members(q, src.n_features, out)
        if self.sparse:
            self._scatter(src, i, 0.0)

    cdef void _block_values(self, const double* q, Py_ssize_t qlen, Py_ssize_t s0, Py_ssize_t s1,
                            double* val) noexcept nogil:
        """One kernel: val[s - s0] = k(x, sv_s) for the SVs s0 <= s < s1 (at most BLOCK of them): their products
        (:meth:`_block_prods`), then for an exp kernel every exp argument and one vectorised exp over them.
        The common case (an exp kernel on the whole-row inner product: Gaussian) computes each group of four
        arguments right after its four products, with the pool's arrays read through local pointers: the
        same operations on the same values (:meth:`_exp_arg`), without the round trip through memory."""
        cdef Py_ssize_t s, b, nm = self.n_meas
        cdef double qn = self.qnorm[0], g, d2
        cdef double* arg = &self.barg[0]
        cdef const double* sn
        cdef double p4[4]
        if self._is_exp(0) and self.m_hi[0] == -1 and not self.m_chi[0]:
            g = self.gamma[0]
            sn = &self.mnorm[0, 0]                     # sn[s * nm] = mnorm[s, 0]
            s = s0
            if self.sparse:
                while s + 4 <= s1:
                    olk_sparse_dot4(&self.work[0], &self.sp_idx[0], &self.sp_val[0], &self.sp_start[0],
                                    &self.sp_len[0], s, self.unit, p4)
                    for b in range(4):                 # _exp_arg(0, p4[b], qn, mnorm[s + b, 0])
                        d2 = qn + sn[(s + b) * nm] - 2.0 * p4[b]
                        if d2 < 0.0:
                            d2 = 0.0
                        arg[s - s0 + b] = -g * d2
                    s += 4
            else:
                while s + 4 <= s1:
                    olk_dense_dot4(q, &self.dense[0, 0], self.n_features, qlen, s, p4)
                    for b in range(4):
                        d2 = qn + sn[(s + b) * nm] - 2.0 * p4[b]
                        if d2 < 0.0:
                            d2 = 0.0
                        arg[s - s0 + b] = -g * d2
                    s += 4
            while s < s1:
                arg[s - s0] = self._exp_arg(0, self._prod(q, qlen, s, 0), qn, sn[s * nm])
                s += 1
            olk_vexp(arg, val, s1 - s0)
            return
        self._block_prods(q, qlen, s0, s1, 0, val)
        if self._is_exp(0):
            for s in range(s0, s1):
                arg[s - s0] = self._exp_arg(0, val[s - s0], qn, self.mnorm[s, 0])
            olk_vexp(arg, val, s1 - s0)
        else:
            for s in range(s0, s1):
                val[s - s0] = self._kval(0, val[s - s0], qn, self.mnorm[s, 0])

    cdef void _decide_single(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil:
        """One kernel: out[c] = sum_s coef[s, c] k(sv_s, x), block by block (see BLOCK): the block's kernel values
        (:meth:`_block_values`), then the sums in slot order."""
        cdef Py_ssize_t s0, s1, s, c, nc = self.n_cols
        cdef double acc, kv0
        cdef double* val = &self.bval[0]
        s0 = 0
        while s0 < self.n_sv:
            s1 = s0 + BLOCK if s0 + BLOCK < self.n_sv else self.n_sv
            self._block_values(q, qlen, s0, s1, val)
            if nc == 1:
                acc = out[0]
                for s in range(s0, s1):
                    acc += self.coef[s, 0] * val[s - s0]
                out[0] = acc
            else:
                for s in range(s0, s1):
                    kv0 = val[s - s0]
                    for c in range(nc):
                        out[c] += self.coef[s, c] * kv0
            s0 = s1

    cdef void _values_single(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil:
        """One kernel: out[s] = k(x, sv_s) for every live SV, block by block (:meth:`_block_values`)."""
        cdef Py_ssize_t s0 = 0, s1
        while s0 < self.n_sv:
            s1 = s0 + BLOCK if s0 + BLOCK < self.n_sv else self.n_sv
            self._block_values(q, qlen, s0, s1, &out[s0])
            s0 = s1

    cdef inline uint64_t _owners_in(self, Py_ssize_t s, Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
        """The columns in [c0, c1) that own SV s, as bits (only when ``masked``)."""
        if c1 - c0 == self.n_cols:
            return self.owners[s]
        return self.owners[s] & (((<uint64_t>1) << (c1 - c0)) - 1) << c0

    cdef inline long long _add_owned(self, Py_ssize_t s, uint64_t m, const double* q, Py_ssize_t qlen,
                                     double* out) noexcept nogil:
        """out[c] += coef[s, c] k_c(sv_s, x) for the columns c whose bits are set in m (columns that OWN SV s),
        in column order.  Each kernel value is computed at most once per SV (kstamp: the caller resets it
        before its pass), and each measure's product too (mstamp), only for a kernel with an owning column,
        so a classifier that does not own a pooled SV costs nothing, never an exp().  Bit-identical to
        evaluating every kernel: a skipped term is coef * k = +-0.0, and out[c] + (+-0.0) == out[c] (out[c]
        starts at +0.0 and a sum of doubles is never -0.0).  Returns the kernel evaluations made."""
        cdef Py_ssize_t c, k
        cdef long long evals = 0
        while m:
            c = __builtin_ctzll(m)
            m &= m - 1
            k = self.col_kernel[c]
            if self.kstamp[k] != s:
                self.kv[k] = self._kval_at(k, q, qlen, s)
                self.kstamp[k] = s
                evals += 1
            out[c] += self.coef[s, c] * self.kv[k]
        return evals

    cdef inline long long _add_scanned(self, Py_ssize_t s, Py_ssize_t c0, Py_ssize_t c1, const double* q,
                                       Py_ssize_t qlen, double* out) noexcept nogil:
        """:meth:`_add_owned` without the bitmask (pools of more than 64 columns): columns c0..c1-1 scanned,
        a column with coef[s, c] == 0 skipped."""
        cdef Py_ssize_t c, k
        cdef double cf
        cdef long long evals = 0
        for c in range(c0, c1):
            cf = self.coef[s, c]
            if cf != 0.0:
                k = self.col_kernel[c]
                if self.kstamp[k] != s:
                    self.kv[k] = self._kval_at(k, q, qlen, s)
                    self.kstamp[k] = s
                    evals += 1
                out[c] += cf * self.kv[k]
        return evals

    cdef inline void _reset_stamps(self) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.n_kernels):
            self.kstamp[k] = -1
        for k in range(self.n_meas):
            self.mstamp[k] = -1

    cdef long long _decide_blocked(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil:
        """:meth:`_decide_members` in blocks of BLOCK SVs, for a pool whose kernels all read the whole-row inner
        product and whose columns have distinct kernels (``blocked_members``: OMKC's one classifier per kernel).

        Per block: the products four at a time (olk_dot.h), then one *entry* per (SV, owning column) in slot
        order and, within an SV, column order -- for an exp kernel its argument -gamma_k d2 (d2 = |x|^2 + |sv|^2
        - 2<x, sv>, clipped at 0, the same for every kernel of the SV: :meth:`_exp_arg`'s operations), for any
        other kernel its value (:meth:`_kval`) -- then one vectorised exp over the block's exp arguments, then
        out[c] += coef[s, c] k_c in entry order.  A column's kernel is either an exp kernel or not, so each
        out[c] still adds its terms in slot order, and every value has the bits of the one-SV-at-a-time loop
        (the vector exp is the scalar one, tests/test_exp.py): bit-identical, with the exps no longer one at
        a time.  Returns the kernel evaluations made (one per entry, as :meth:`_add_owned` counts them)."""
        cdef Py_ssize_t s, s0, s1, c, k, ne, np_, nf, e, nm = self.n_meas, nc = self.n_cols
        cdef long long evals = 0, nzero = 0
        cdef uint64_t m, mg, gmask = 0
        cdef double qn = self.qnorm[0], d2, p, x, a
        cdef bint inr, zero
        cdef bint unit = self.unit
        cdef const double* w = NULL
        cdef const int* ix = NULL
        cdef const double* vv = NULL
        cdef const Py_ssize_t* st = NULL
        cdef const Py_ssize_t* ln = NULL
        cdef const double* rows = NULL
        cdef Py_ssize_t* fidx = &self.fidx[0]
        cdef double* fval = &self.fval[0]
        cdef double* prod = &self.bval[0]
        cdef const double* sn = &self.mnorm[0, 0]
        cdef const double* cf
        cdef const double* coef0 = &self.coef[0, 0]      # coef[s, c] = coef0[s * nc + c]
        cdef const uint64_t* own = &self.owners[0]
        cdef int* ecol = &self.ecol[0]
        cdef double* ecoef = &self.ecoef[0]
        cdef double* earg = &self.earg[0]
        cdef double* ev = &self.ekv[0]
        cdef double negg[64]                    # -gamma of each column's kernel (exact: a sign flip)
        cdef Py_ssize_t cap = self.ecol.shape[0]
        for c in range(nc):
            k = self.col_kernel[c]
            negg[c] = -self.gamma[k]
            if self.kind[k] == K_GAUSSIAN:
                gmask |= (<uint64_t>1) << c
        if self.sparse:
            w = &self.work[0]; ix = &self.sp_idx[0]; vv = &self.sp_val[0]; st = &self.sp_start[0]; ln = &self.sp_len[0]
        else:
            rows = &self.dense[0, 0]
        s0 = 0
        while s0 < self.n_sv:
            s1 = s0 + BLOCK if s0 + BLOCK < self.n_sv else self.n_sv
            s = s0                                  # the products, four at a time (_block_prods, pointers hoisted)
            if self.sparse:
                while s + 4 <= s1:
                    olk_sparse_dot4(w, ix, vv, st, ln, s, unit, &prod[s - s0])
                    s += 4
            else:
                while s + 4 <= s1:
                    olk_dense_dot4(q, rows, self.n_features, qlen, s, &prod[s - s0])
                    s += 4
            while s < s1:
                prod[s - s0] = self._prod(q, qlen, s, 0)
                s += 1
            ne = 0                                  # exp entries fill [0, ne) from the front ...
            np_ = 0                                 # ... the others [cap - np_, cap) from the back
            nf = 0
            for s in range(s0, s1):
                m = own[s]
                if m == 0:
                    continue
                cf = coef0 + s * nc
                p = prod[s - s0]
                mg = m & gmask
                m &= ~gmask
                if mg:
                    d2 = qn + sn[s * nm] - 2.0 * p      # _exp_arg: clipped at 0, times -gamma_k
                    if d2 < 0.0:
                        d2 = 0.0
                    while mg:                           # written without a branch on the value: an entry is
                        c = __builtin_ctzll(mg)         # stored at ne and kept (ne + 1) when x is in the vector
                        mg &= mg - 1                    # exp's fast range
                        x = negg[c] * d2
                        a = cf[c]
                        ecol[ne] = <int> c
                        ecoef[ne] = a
                        earg[ne] = x
                        inr = (x > -708.0) & (x < 709.0)
                        # olk_exp(x) is exactly 0 and the coefficient finite: the term is +-0.0 and out[c] (never
                        # -0.0) does not move, so no entry (still counted as an evaluation)
                        zero = (x < -745.2) & (a - a == 0.0)
                        ne += inr
                        nzero += zero
                        if not (inr | zero):            # NaN or the edges: the scalar exp, patched in after
                            earg[ne] = 0.0
                            fidx[nf] = ne
                            fval[nf] = olk_exp(x)
                            nf += 1
                            ne += 1
                while m:
                    c = __builtin_ctzll(m)
                    m &= m - 1
                    np_ += 1
                    ecol[cap - np_] = <int> c
                    ecoef[cap - np_] = cf[c]
                    ev[cap - np_] = self._kval(self.col_kernel[c], p, qn, sn[s * nm])
            if ne:
                olk_vexp_fast(earg, ev, ne)
            for e in range(nf):
                ev[fidx[e]] = fval[e]
            for e in range(ne):
                out[ecol[e]] += ecoef[e] * ev[e]
            for e in range(cap - 1, cap - 1 - np_, -1):
                out[ecol[e]] += ecoef[e] * ev[e]
            evals += ne + np_
            s0 = s1
        return evals + nzero

    cdef long long _decide_members(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil:
        """Several kernels: out[c] += coef[s, c] k_c(sv_s, x) over the owning columns only (:meth:`_add_owned`);
        one product per (SV, measure) serves every kernel reading it, and none for an SV no column owns.
        Returns the kernel evaluations made."""
        cdef Py_ssize_t s
        cdef long long evals = 0
        cdef uint64_t m
        if self.blocked_members:
            return self._decide_blocked(q, qlen, out)
        self._reset_stamps()
        if self.masked:
            for s in range(self.n_sv):
                m = self.owners[s]
                if m != 0:                                 # no owning column: no product at all
                    evals += self._add_owned(s, m, q, qlen, out)
            return evals
        for s in range(self.n_sv):
            evals += self._add_scanned(s, 0, self.n_cols, q, qlen, out)
        return evals

    def decision(self, RowSource src, Py_ssize_t i, double[::1] out):
        """Fill out[c] = sum_s coef[s, c] k_c(sv_s, x_i) for every column c (out must have length n_cols)."""
        if out.shape[0] < self.n_cols:
            raise ValueError("out too short")
        self._check_src(src, i)
        self._decide(src, i, &out[0])

    def decision1(self, RowSource src, Py_ssize_t i):
        """Column-0 decision value for row i (fast path for single-column learners)."""
        cdef double buf[64]
        cdef double[::1] tmp
        self._check_src(src, i)
        if self.n_cols <= 64:
            self._decide(src, i, buf)
            return buf[0]
        tmp = np.zeros(self.n_cols)
        self._decide(src, i, &tmp[0])
        return tmp[0]

    cdef inline const double* _sv_query(self, Py_ssize_t q) noexcept nogil:
        """Make the stored SV q the query of a pass: its self-products in qnorm, stamps reset, its row
        scattered into ``work`` (sparse; undo with ``_scatter_sv(q, 0.0)``); returns its dense row (or NULL)."""
        cdef Py_ssize_t m
        for m in range(self.n_meas):
            self.qnorm[m] = self.mnorm[q, m]
        self._reset_stamps()
        if self.sparse:
            self._scatter_sv(q, 1.0)
            return NULL
        return &self.dense[q, 0]

    def decision_sv(self, Py_ssize_t q, double[::1] out, Py_ssize_t col=-1):
        """Like :meth:`decision`, at the stored SV in slot q: out[c] = sum_s coef[s, c] k_c(sv_s, sv_q).

        Lets a learner evaluate f at one of its own SVs without keeping the data it came from (the
        Forgetron's f(x_r)); the same bits as :meth:`decision` on the row the SV was copied from.  With
        ``col`` >= 0 only out[col] is computed (other entries untouched), visiting only the SVs column col
        owns: no product at all for the rest of a shared pool."""
        cdef Py_ssize_t s, c, c0 = 0, c1 = self.n_cols
        cdef long long evals = 0
        cdef uint64_t m
        cdef const double* qrow
        if q < 0 or q >= self.n_sv:
            raise IndexError(f"SV slot {q} out of range (n_sv={self.n_sv})")
        if out.shape[0] < self.n_cols:
            raise ValueError("out too short")
        if col >= self.n_cols:
            raise IndexError(f"coefficient column {col} out of range (n_cols={self.n_cols})")
        if col >= 0:
            c0 = col; c1 = col + 1
        for c in range(c0, c1):
            out[c] = 0.0
        if self.n_kernels == 1 and self.n_cols == 1:     # one classifier: the blocked pass of decision (vector exp)
            out[0] = self._decision_sv1(q)
            return
        qrow = self._sv_query(q)
        for s in range(self.n_sv):
            if self.masked:
                m = self._owners_in(s, c0, c1)
                if m != 0:                                 # no owning column: no product
                    evals += self._add_owned(s, m, qrow, self.n_features, &out[0])
            elif col < 0 or self.coef[s, col] != 0.0:
                evals += self._add_scanned(s, c0, c1, qrow, self.n_features, &out[0])
        if self.sparse:
            self._scatter_sv(q, 0.0)
        self.n_kernel_evals += evals

    cdef double _decision_sv1(self, Py_ssize_t q) noexcept nogil:
        """:meth:`decision_sv` at slot q (0 <= q < n_sv, unchecked) in a pool of one kernel and one column: the
        blocked pass of decision (vector exp), the evaluations counted (the C interface: the Forgetron's core)."""
        cdef Py_ssize_t s
        cdef long long evals = 0
        cdef double acc = 0.0
        cdef const double* qrow = self._sv_query(q)
        self._decide_single(qrow, self.n_features, &acc)
        for s in range(self.n_sv):                       # a zero coefficient's term is +-0.0: not an evaluation
            if self.coef[s, 0] != 0.0:
                evals += 1
        if self.sparse:
            self._scatter_sv(q, 0.0)
        self.n_kernel_evals += evals
        return acc

    def kernel_values(self, RowSource src, Py_ssize_t i, double[:, ::1] out):
        """out[k, s] = k_k(x_i, sv_s) for all kernels k and live SVs s (out: n_kernels x >= n_sv)."""
        self._check_src(src, i)
        if out.shape[0] < self.n_kernels or out.shape[1] < self.n_sv:
            raise ValueError("out too small")
        if self.n_sv == 0:
            return
        self._kernel_values(src, i, &out[0, 0], out.shape[1])

    # ------------------------------------------------------------ the C interface of learner-specific modules
    # olk/_core/bpas.pyx and the like cimport the pool (svpool.pxd) and call these through its method table;
    # the caller checks indices (as the def methods above do).  Every kernel value still comes from this module.

    cdef void _kernel_values(self, RowSource src, Py_ssize_t i, double* out, Py_ssize_t ld) noexcept nogil:
        """:meth:`kernel_values` without the checks: out[k * ld + s] = k_k(x_i, sv_s) (n_sv >= 1, ld >= n_sv)."""
        cdef Py_ssize_t s, k
        cdef const double* q = self._qrow(src, i)
        if self.sparse:
            self._scatter(src, i, 1.0)
        self._query(src, i)
        if self.n_kernels == 1:
            self._values_single(q, src.n_features, out)
        else:
            for s in range(self.n_sv):
                for k in range(self.n_kernels):
                    out[k * ld + s] = self._kval_at(k, q, src.n_features, s)
        if self.sparse:
            self._scatter(src, i, 0.0)
        self.n_kernel_evals += self.n_sv * self.n_kernels

    cdef double _values_decide1(self, RowSource src, Py_ssize_t i, double* kv) noexcept nogil:
        """One kernel, one column, n_sv >= 1: kv[s] = k(x_i, sv_s) for every SV (:meth:`_kernel_values`) and the
        return value f = sum_s coef[s, 0] kv[s] summed in slot order (:meth:`coef_dot` on that row, the same bits),
        each block summed while its values are hot (the sum's dependency chain overlaps the next block's
        products, as in :meth:`_decide_single`).  Counts n_sv kernel evaluations."""
        cdef Py_ssize_t s0 = 0, s1, s
        cdef double acc = 0.0
        cdef const double* q = self._qrow(src, i)
        if self.sparse:
            self._scatter(src, i, 1.0)
        self._query(src, i)
        while s0 < self.n_sv:
            s1 = s0 + BLOCK if s0 + BLOCK < self.n_sv else self.n_sv
            self._block_values(q, src.n_features, s0, s1, &kv[s0])
            for s in range(s0, s1):
                acc += self.coef[s, 0] * kv[s]
            s0 = s1
        if self.sparse:
            self._scatter(src, i, 0.0)
        self.n_kernel_evals += self.n_sv
        return acc

    cdef double _self_kernel(self, RowSource src, Py_ssize_t i, Py_ssize_t k) noexcept nogil:
        """k_k(x_i, x_i) (:meth:`self_kernel` without the checks)."""
        cdef double qn = self._row_self(src, i, self.kmeas[k])
        return self._kval(k, qn, qn, qn)

    cdef const double* _begin_query(self, RowSource src, Py_ssize_t i) noexcept nogil:
        """Start a pass of :meth:`_kernel_at` calls for row i of src: its self-products, the product stamps reset,
        a sparse row scattered into ``work``; returns its dense row (NULL for sparse).  End with :meth:`_end_query`."""
        cdef const double* q = self._qrow(src, i)
        if self.sparse:
            self._scatter(src, i, 1.0)
        self._query(src, i)
        return q

    cdef void _end_query(self, RowSource src, Py_ssize_t i) noexcept nogil:
        """Close a pass begun by :meth:`_begin_query` (clears the scattered sparse row)."""
        if self.sparse:
            self._scatter(src, i, 0.0)

    cdef double _kernel_at(self, Py_ssize_t k, const double* q, Py_ssize_t qlen, Py_ssize_t s) noexcept nogil:
        """k_k(x, sv_s) for the query of the current pass; each measure's product computed once per SV.  Not
        counted in ``n_kernel_evals`` (the caller counts)."""
        return self._kval_at(k, q, qlen, s)

    def kernel_row(self, RowSource src, Py_ssize_t i, Py_ssize_t k, const Py_ssize_t[::1] slots):
        """k_k(x_i, sv_s) for the given slots only (e.g. the SVs one classifier of a shared pool owns)."""
        cdef Py_ssize_t j, s
        cdef const double* q
        self._check_src(src, i)
        self._check_kernel(k)
        out = np.empty(slots.shape[0], dtype=np.float64)
        cdef double[::1] o = out
        for j in range(slots.shape[0]):
            if slots[j] < 0 or slots[j] >= self.n_sv:
                raise IndexError(f"SV slot {slots[j]} out of range (n_sv={self.n_sv})")
        q = self._qrow(src, i)
        if self.sparse:
            self._scatter(src, i, 1.0)
        self._query(src, i)
        for j in range(slots.shape[0]):
            s = slots[j]
            o[j] = self._kval_at(k, q, src.n_features, s)
        if self.sparse:
            self._scatter(src, i, 0.0)
        self.n_kernel_evals += slots.shape[0]
        return out

    def self_kernel(self, RowSource src, Py_ssize_t i, Py_ssize_t k=0):
        """k_k(x_i, x_i)."""
        self._check_src(src, i)
        self._check_kernel(k)
        return self._self_kernel(src, i, k)

    def sv_kernel(self, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k=0):
        """k_k(sv_a, sv_b) between two stored SVs."""
        cdef const double* qrow
        cdef double v
        self._check_slot(a)
        self._check_slot(b)
        self._check_kernel(k)
        qrow = self._sv_query(a)
        v = self._kval_at(k, qrow, self.n_features, b)
        if self.sparse:
            self._scatter_sv(a, 0.0)
        return v

    def decision_matrix(self, RowSource src):
        """(n_rows, n_cols) decision values for every row of `src` (batch prediction on a test set)."""
        cdef Py_ssize_t i, n = src.n_rows
        res = np.zeros((n, self.n_cols), dtype=np.float64)
        cdef double[:, ::1] r = res
        if src.sparse != self.sparse or src.n_features > self.n_features:
            raise ValueError(f"RowSource layout/width ({'sparse' if src.sparse else 'dense'}, {src.n_features} "
                             f"features) does not match the pool ({'sparse' if self.sparse else 'dense'}, "
                             f"{self.n_features} features)")
        for i in range(n):
            self._decide(src, i, &r[i, 0])
        return res

    def support_vectors(self):
        """The live SVs in slot order, copied: an (n_sv, n_features) float64 array for a dense pool, a scipy CSR
        matrix of that shape (sorted indices) for a sparse one.  Row s is the SV whose coefficients are
        ``coefs[s]``."""
        n = self.n_sv
        if not self.sparse:
            return np.asarray(self.dense)[:n].copy()
        import scipy.sparse as sp
        starts = np.asarray(self.sp_start)[:n]
        lens = np.asarray(self.sp_len)[:n]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        flat = (np.repeat(starts - indptr[:n], lens) + np.arange(indptr[n])) if n else np.zeros(0, np.int64)
        return sp.csr_matrix((np.asarray(self.sp_val)[flat].copy(), np.asarray(self.sp_idx)[flat].copy(), indptr),
                             shape=(n, self.n_features))


def _rebuild_pool(state):
    """Unpickle an :class:`SVPool` (see ``SVPool.__reduce__``)."""
    pool = SVPool(state["n_features"], state["sparse"], codes=state["kind"],
                  gammas=state["gamma"], coef0s=state["coef0"], degrees=state["degree"],
                  col_kernel=state["col_kernel"], capacity=max(4, state["coef"].shape[0]),
                  views=state.get("views"), normalize=state.get("normalize"))
    pool._set_state(state)
    return pool
