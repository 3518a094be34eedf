"""The core of the batch kernel logistic regression baselines of the AAAI 2012 paper's Figure 5 and Table 2:
what PCD (:mod:`~olk.algorithms.klr.klr_pcd`) and DCD (:mod:`~olk.algorithms.klr.klr_dcd`) share
(:class:`KLRBatchLearner`: the training rows in the shared SV pool, the kernel columns computed on demand or
cached, and the primal objective P(alpha) = lambda/2 alpha' K alpha + sum_i ln(1 + exp(-y_i (K alpha)_i))).

>>> import numpy as np
>>> round(float(logistic_loss(np.array([0.0])).sum()), 6)
0.693147
"""
from __future__ import annotations

import numpy as np

from ..._core.svpool import RowSource, SVPool
from ..common.batch import BatchKernelLearner
from ..common.learner import KernelExpansion
from ..common.logistic import LogisticOutput
from ..registry import POSITIVE, Param, Reproducibility

#: the parameters PCD and DCD share
KLR_PARAMS = (
    Param("lam", 1e-4, "regularisation parameter lambda of the KLR objective, Eq. (1)", **POSITIVE),
    Param("max_iter", 100, "most sweeps over the n coordinates", type=int, check=lambda v: v >= 1,
          requirement=">= 1"),
    Param("cache_mb", 1024.0, "keep the n x n kernel matrix when n*n*8 bytes fit in this many MB (else "
          "compute each kernel column when it is needed)", **POSITIVE),
)


#: numpy/BLAS dot products (host-dependent summation order) and libm's exp/log1p (CPU-dispatched) in every
#: coordinate update; the stopping sweep can move by one on another host
KLR_REPRODUCIBILITY = Reproducibility(
    exact=False, mistakes=0, accuracy=0.2, n_sv=0.01,
    reason="numpy/BLAS dot products and libm's exp/log1p in the coordinate updates")


def logistic_loss(z) -> np.ndarray:
    """l(z) = log(1 + e^-z), element-wise, without overflow."""
    return np.logaddexp(0.0, -np.asarray(z, dtype=np.float64))


def primal_objective(lam: float, beta: np.ndarray, f: np.ndarray, y: np.ndarray) -> float:
    """P(beta) = lam/2 beta'K beta + 1/n sum_i l(y_i f_i) from f = K beta (so beta'K beta = beta . f)."""
    return 0.5 * lam * float(beta @ f) + float(np.mean(logistic_loss(y * f)))


class KernelColumns:
    """Columns of the training kernel matrix K_ij = k(x_i, x_j) from the SV pool that holds the n training
    rows in slots 0..n-1 (the pool defines the kernel).  With ``cache`` the whole matrix is computed once
    (n calls of ``pool.kernel_values``) and kept; otherwise each column is computed when asked for, O(n d)
    in the pool's compiled loop, into one reused buffer (valid until the next call)."""

    def __init__(self, pool: SVPool, src: RowSource, cache: bool):
        n = src.n_rows
        self.pool, self.src, self.n, self.cached = pool, src, n, bool(cache)
        self.diag = pool.self_kernels(0)                     # K_jj, from the stored squared norms
        if self.cached:
            K = np.empty((n, n), dtype=np.float64)
            for i in range(n):
                pool.kernel_values(src, i, K[i:i + 1])       # row i = column i (K is symmetric)
            self.K = K
        else:
            self._buf = np.empty((1, n), dtype=np.float64)

    def col(self, j: int) -> np.ndarray:
        """K[:, j] (a view of the cache, or the shared buffer)."""
        if self.cached:
            return self.K[j]
        self.pool.kernel_values(self.src, j, self._buf)
        return self._buf[0]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """K v (the cache's BLAS product, or one pass of the pool over the training rows)."""
        if self.cached:
            return self.K @ v
        set_pool_coefs(self.pool, v)
        return self.pool.decision_matrix(self.src)[:, 0]


def set_pool_coefs(pool: SVPool, beta: np.ndarray) -> None:
    """Column 0 of the pool := beta exactly (0 * c + b == b, so no rounding from the old values)."""
    pool.scale_col(0, 0.0)
    pool.add_col_vector(0, beta)


class KLRBatchLearner(LogisticOutput, KernelExpansion, BatchKernelLearner):
    """What the batch KLR learners (PCD, DCD) share: the training rows in the shared SV pool (slot j = row j,
    coefficient beta_j in column 0, so ``decision_function`` is one ``pool.decision_matrix`` call), the
    kernel columns (:class:`KernelColumns`), the progress probe and the attributes set by ``fit``:

    * ``coef_`` -- beta, the coefficients of f = sum_j beta_j k(x_j, .) (length n);
    * ``n_iter_`` -- sweeps run; ``objective_`` -- final primal objective P; ``objective_path_`` -- P after
      each sweep (index 0: the starting point, before any sweep);
    * ``t`` -- coordinate sub-problems visited (n per sweep); ``n_updates`` -- those that changed their
      coefficient; ``n_sv`` -- non-zero coefficients (all n in practice: KLR is dense).

    Subclasses implement ``_solve(cols, y, publish)``; ``publish(sweep, beta, P)`` records the model after
    `sweep` sweeps (0: the starting point) and, after a sweep, calls the probe.
    """

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        full = 8 * n_train * n_train                # the n x n kernel matrix, kept when it fits in cache_mb
        return full if full <= float(params.get("cache_mb", 1024.0)) * 2**20 else 8 * 4 * n_train

    name = "_klr_batch"
    display = "KLR (batch)"
    batch = True
    stochastic = False
    #: cyclic order over the rows as given (0..n-1); the engine's ``order`` is ignored, so the same model
    #: comes out for every permutation the engine would pass
    order_free = True
    reports_progress = True
    reproducibility = KLR_REPRODUCIBILITY
    params: tuple[Param, ...] = KLR_PARAMS

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self.n_train_ = 0
        self._beta = np.zeros(0)
        self.n_iter_ = 0
        self.objective_ = float("nan")
        self.objective_path_: list[float] = []
        self.kernel_cached_ = False

    def fit(self, X, y, order=None, probe=None):
        """Solve Eq. (1) on (X, y) from scratch.  `order` is accepted and ignored (cyclic sweeps over the rows
        0..n-1); `probe`, if given, is called with no arguments after every sweep, when ``decision_function``
        is the model of that sweep."""
        y = self._check_xy(X, y)
        classes = self.classes_
        type(self).__init__(self, kernel=self.kernels, random_state=self.random_state,
                            **{p.name: getattr(self, p.name) for p in self.params})   # a fresh model each fit
        self.classes_ = classes
        src = self.bind(X)
        pool = self.pool
        n = src.n_rows
        for j in range(n):
            pool.add(src, j, 0.0, j)                           # slot j = training row j, beta_j = 0
        self.n_train_ = n
        self.n_features_ = src.n_features
        cols = KernelColumns(pool, src, n * n * 8 <= self.cache_mb * 2.0 ** 20)
        self.kernel_cached_ = cols.cached

        def publish(sweep: int, beta: np.ndarray, P: float) -> None:
            """Record the model after `sweep` sweeps (0: the starting point) and call the probe."""
            self._beta = beta
            self.n_iter_ = sweep
            self.objective_ = P
            self.objective_path_.append(P)
            if sweep > 0 and probe is not None:
                set_pool_coefs(pool, beta)
                probe()

        self._solve(cols, y, publish)
        set_pool_coefs(pool, self._beta)
        self.src = None                                        # the pool holds copies of the rows
        return self

    def _solve(self, cols: KernelColumns, y: np.ndarray, publish) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ output
    @property
    def coef_(self) -> np.ndarray:
        """beta: f(x) = sum_j beta_j k(x_j, x) over the training rows j (a copy)."""
        return self._beta.copy()

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """f(x) = sum_j beta_j k(x_j, x), the log-odds log P(+1|x)/P(-1|x), for every row; `output` is ignored."""
        return self._pool_scores(X)

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        return super().fitted_names() + ("n_iter_",)

    def fitted_attributes(self) -> dict:
        """The kernel expansion over the training rows (``support_vectors_``, ``dual_coef_`` = beta) and
        ``n_iter_``, the sweeps run."""
        out = super().fitted_attributes()
        if self.pool is not None:
            out["n_iter_"] = int(self.n_iter_)
        return out

    @property
    def n_sv(self) -> int:
        """Training rows with a non-zero coefficient."""
        return int(np.count_nonzero(self._beta))
