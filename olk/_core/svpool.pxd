# cython: language_level=3
"""The declarations of the shared support-vector core (:mod:`olk._core.svpool`), so that learner-specific
Cython modules (``olk/_core/bpas.pyx``, ...) can ``cimport`` the pool and work on its arrays directly.

What another module may use: the attributes, and the methods declared *without* ``inline`` (called through
the class's C method table).  The ``inline`` methods are the pool's own hot-loop helpers: declared here
because Cython wants every C method of the class in its .pxd, defined (and inlined) in svpool.pyx only.
The exp and its tables stay private to svpool.pyx (every kernel value is computed there): a module that
needs kernel values asks the pool (``_kernel_values``, ``_kernel_at``, ``kself``), so one copy of the exp
computes every value olk uses.
"""
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t


cdef class RowSource:
    cdef readonly bint sparse
    cdef readonly Py_ssize_t n_rows, n_features
    cdef const double[:, ::1] dense
    cdef const cnp.int64_t[::1] indptr
    cdef const cnp.int32_t[::1] indices
    cdef const double[::1] data
    cdef readonly object sqnorms           # numpy array, |x_i|^2
    cdef const double[::1] _sqn
    cdef object _keep                      # keeps converted arrays alive

    cdef void _fill_sqnorms(self)


cdef class SVPool:
    cdef readonly Py_ssize_t n_features, n_kernels, n_cols, n_sv, capacity
    cdef readonly bint sparse
    cdef readonly long long n_kernel_evals
    cdef int[::1] kind
    cdef double[::1] gamma, coef0, degree
    cdef int[::1] int_degree      # degree as an int when it is a whole number in [0, 64], else -1
    cdef int[::1] col_kernel
    cdef int[::1] knorm           # kernel k is normalised (linear / polynomial)
    cdef int[::1] kmeas           # measure (view, product) kernel k reads
    cdef readonly Py_ssize_t n_meas
    cdef Py_ssize_t[::1] m_lo, m_hi   # measure m's columns [lo, hi); hi = -1: all columns (the row's |x|^2 cached)
    cdef int[::1] m_chi           # measure m's product: 0 = <x, x'> (self: |x|^2), 1 = chi2's c(x, x') (self: |x|_1)
    cdef double[:, ::1] mnorm     # (capacity, n_meas): each SV's self-product per measure
    cdef double[:, ::1] kself     # (capacity, n_kernels): k_k(sv_s, sv_s), computed once when the SV is stored
    cdef double[::1] qnorm        # the current query's self-product per measure
    cdef double[::1] mprod        # the current query's product with SV mstamp[m], per measure
    cdef Py_ssize_t[::1] mstamp
    cdef double[:, ::1] coef
    cdef uint64_t[::1] owners     # bit c set <=> coef[s, c] != 0 (kept for every column, n_cols <= 64)
    cdef bint masked              # n_cols <= 64: owners is maintained and used
    cdef cnp.int64_t[::1] tag
    cdef double[:, ::1] dense
    cdef Py_ssize_t[::1] sp_start
    cdef Py_ssize_t[::1] sp_len
    cdef int[::1] sp_idx
    cdef double[::1] sp_val
    cdef Py_ssize_t sp_used, sp_garbage
    cdef bint unit               # sparse: every stored value is 1.0 (binary features: x * 1.0 == x, so skip the product)
    cdef double[::1] work        # dense scatter buffer (sparse mode)
    cdef double[::1] kv          # per-kernel values of one SV
    cdef Py_ssize_t[::1] kstamp  # the SV slot kv[k] was last computed for (per-kernel membership)
    cdef double[::1] barg        # a block's exp arguments (BLOCK) ...
    cdef double[::1] bval        # ... and its products, then kernel values
    cdef readonly bint blocked_members   # several kernels on the whole-row product, distinct per column
    cdef int[::1] ecol           # a block's entries (SV, owning column): the column ...
    cdef double[::1] ecoef       # ... its coefficient ...
    cdef double[::1] earg        # ... the exp argument ...
    cdef double[::1] ekv         # ... and the kernel value
    cdef Py_ssize_t[::1] fidx    # entries whose exp argument is outside the vector exp's range ...
    cdef double[::1] fval        # ... and their values (the scalar exp)

    # guards
    cdef int _check_src(self, RowSource src, Py_ssize_t i) except -1
    cdef int _check_slot(self, Py_ssize_t s, Py_ssize_t c=*) except -1
    cdef int _check_kernel(self, Py_ssize_t k) except -1
    cdef int _check_single(self, str what) except -1
    cdef int _check_rows(self, RowSource src, const int64_t[::1] rows, const double[::1] ys, double[::1] out,
                         str what) except -1
    # storage
    cdef void _grow_slots(self)
    cdef void _reserve_flat(self, Py_ssize_t need)
    cdef void _fill_kself(self, Py_ssize_t s) noexcept nogil
    cdef inline void _rebit(self, Py_ssize_t s, Py_ssize_t c) noexcept nogil
    cdef inline void _remask(self, Py_ssize_t s) noexcept nogil
    # kernel values (svpool.pyx's hot loops)
    cdef inline bint _is_exp(self, Py_ssize_t k) noexcept nogil
    cdef inline double _exp_arg(self, Py_ssize_t k, double prod, double qn, double sn) noexcept nogil
    cdef inline double _kval(self, Py_ssize_t k, double prod, double qn, double sn) noexcept nogil
    cdef inline double _ipow(self, Py_ssize_t k, double base) noexcept nogil
    cdef inline void _scatter(self, RowSource src, Py_ssize_t i, double v) noexcept nogil
    cdef inline void _scatter_sv(self, Py_ssize_t q, double v) noexcept nogil
    cdef inline const double* _qrow(self, RowSource src, Py_ssize_t i) noexcept nogil
    cdef inline Py_ssize_t _lower(self, const int* idx, Py_ssize_t a, Py_ssize_t e, Py_ssize_t col) noexcept nogil
    cdef inline double _prod(self, const double* q, Py_ssize_t qlen, Py_ssize_t s, Py_ssize_t m) noexcept nogil
    cdef inline void _prods4(self, const double* q, Py_ssize_t qlen, Py_ssize_t s, double* p) noexcept nogil
    cdef inline void _block_prods(self, const double* q, Py_ssize_t qlen, Py_ssize_t s0, Py_ssize_t s1,
                                  Py_ssize_t m, double* p) noexcept nogil
    cdef double _row_self(self, RowSource src, Py_ssize_t i, Py_ssize_t m) noexcept nogil
    cdef inline void _query(self, RowSource src, Py_ssize_t i) noexcept nogil
    cdef inline double _mprod(self, const double* q, Py_ssize_t qlen, Py_ssize_t s, Py_ssize_t m) noexcept nogil
    cdef inline double _kval_at(self, Py_ssize_t k, const double* q, Py_ssize_t qlen, Py_ssize_t s) noexcept nogil
    cdef void _decide(self, RowSource src, Py_ssize_t i, double* out) noexcept nogil
    cdef void _block_values(self, const double* q, Py_ssize_t qlen, Py_ssize_t s0, Py_ssize_t s1,
                            double* val) noexcept nogil
    cdef void _decide_single(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil
    cdef void _values_single(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil
    cdef inline uint64_t _owners_in(self, Py_ssize_t s, Py_ssize_t c0, Py_ssize_t c1) noexcept nogil
    cdef inline long long _add_owned(self, Py_ssize_t s, uint64_t m, const double* q, Py_ssize_t qlen,
                                     double* out) noexcept nogil
    cdef inline long long _add_scanned(self, Py_ssize_t s, Py_ssize_t c0, Py_ssize_t c1, const double* q,
                                       Py_ssize_t qlen, double* out) noexcept nogil
    cdef inline void _reset_stamps(self) noexcept nogil
    cdef long long _decide_blocked(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil
    cdef long long _decide_members(self, const double* q, Py_ssize_t qlen, double* out) noexcept nogil
    cdef inline const double* _sv_query(self, Py_ssize_t q) noexcept nogil

    # ---- the C interface for learner-specific modules (all checks are the caller's)
    cdef Py_ssize_t _append(self, RowSource src, Py_ssize_t i, const double* coefs, long long tag) except -1
    cdef Py_ssize_t _swap_remove(self, Py_ssize_t s) noexcept nogil
    cdef Py_ssize_t _oldest(self, Py_ssize_t c) noexcept nogil
    cdef double _decision_sv1(self, Py_ssize_t q) noexcept nogil
    cdef int _scale_col(self, Py_ssize_t c, double factor) except -1
    cdef void _kernel_values(self, RowSource src, Py_ssize_t i, double* out, Py_ssize_t ld) noexcept nogil
    cdef double _values_decide1(self, RowSource src, Py_ssize_t i, double* kv) noexcept nogil
    cdef double _self_kernel(self, RowSource src, Py_ssize_t i, Py_ssize_t k) noexcept nogil
    cdef const double* _begin_query(self, RowSource src, Py_ssize_t i) noexcept nogil
    cdef void _end_query(self, RowSource src, Py_ssize_t i) noexcept nogil
    cdef double _kernel_at(self, Py_ssize_t k, const double* q, Py_ssize_t qlen, Py_ssize_t s) noexcept nogil
