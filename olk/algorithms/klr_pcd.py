"""PCD: batch kernel logistic regression by cyclic coordinate descent on the primal, a batch baseline of
Zhang, Jin, Chen, Bu & He, "Efficient Online Learning for Large-Scale Sparse Kernel Logistic Regression",
AAAI 2012 (section "Comparison with Batch-model Methods", Figure 5).  The paper builds its two batch
baselines, PCD (primal) and DCD (dual, :mod:`~olk.algorithms.klr_dcd`), "based on the coordinate descent
algorithms described in" Keerthi, Duan, Shevade & Poo, "A fast dual algorithm for kernel logistic
regression", Machine Learning 61(1-3), 2005, and prints neither algorithm; our reading is in the class
docstring.  Both solve the paper's Eq. (1), with no bias term:

    min_f  P(f) = lam/2 |f|_H^2 + 1/n sum_i log(1 + exp(-y_i f(x_i))),   f = sum_j beta_j k(x_j, .)

Trained with one call, ``fit(X, y)`` (:class:`~olk.algorithms.base_batch.PooledBatchLearner`); ``fit(X, y,
probe=callback)`` calls ``callback()`` after every sweep over the coordinates (``reports_progress``), the
test accuracy vs training time curve of the paper's Figure 5.  KLR is dense: every training example ends
up with a non-zero coefficient (``n_sv`` = n), which is the paper's point against batch KLR.

This module also holds what PCD and DCD share (:class:`KLRBatchLearner`: the training rows in the shared
SV pool, the kernel columns, the primal objective).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:300], d.y[:300], d.X[1000:], d.y[1000:]
>>> model = make("klr_pcd", kernel={"type": "gaussian", "gamma": 0.4}, lam=1e-3)
>>> model.fit(X, y).n_sv                                  # dense: every training row is a support vector
300
>>> round(float((model.predict(X_test) == y_test).mean()), 2)   # accuracy on 1,000 held-out rows
0.82
>>> model.predict_proba(X_test[:2]).round(2)              # [P(y = -1 | x), P(y = +1 | x)]
array([[0.67, 0.33],
       [0.56, 0.44]])
"""
from __future__ import annotations

import numpy as np

from .._core.svpool import RowSource, SVPool
from .base_batch import PooledBatchLearner
from .logistic import LogisticOutput
from .registry import POSITIVE, Param, Reproducibility, register

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


class KLRBatchLearner(LogisticOutput, PooledBatchLearner):
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
    params = KLR_PARAMS

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



@register
class KLRPCD(KLRBatchLearner):
    """PCD: kernel logistic regression, Eq. (1) of Zhang, Jin, Chen, Bu & He (AAAI 2012), by cyclic coordinate
    descent on the primal coefficients beta; the paper's batch baseline "PCD" (Figure 5), "based on the
    coordinate descent algorithms described in" Keerthi, Duan, Shevade & Poo (Machine Learning 61, 2005).

    Minimises  P(beta) = lam/2 beta'K beta + 1/n sum_i l(y_i f_i),  f = K beta,  l(z) = log(1 + e^-z),
    one coordinate at a time, with a safeguarded 1-D Newton step::

        beta = 0, f = K beta = 0, P_0 = log 2
        for sweep = 1..max_iter:
            for j = 0..n-1:                                   # cyclic, rows in the given order
                k = K[:, j];  s_i = sigmoid(-y_i f_i) = -l'(y_i f_i)
                g = lam f_j - 1/n sum_i s_i y_i k_i               # dP/dbeta_j
                h = lam K_jj + 1/n sum_i s_i (1 - s_i) k_i^2      # d2P/dbeta_j^2
                t = -g / h                                        # Newton step
                while P(beta + t e_j) - P(beta) > 0.01 t g:       # Armijo; halve (at most 30 times,
                    t = t / 2                                     #   then leave beta_j as it is)
                beta_j += t;  f += t k
            P_sweep = P(beta);  probe()
            stop if (P_{sweep-1} - P_sweep) <= tol |P_sweep|

    Every step is O(n) given the column k (cached n x n matrix, or O(n d) to compute it): the change of
    P along coordinate j is lam (t f_j + t^2/2 K_jj) + 1/n sum_i log1p(s_i expm1(-t y_i k_i)), exact
    and free of cancellation, so P never increases (``objective_path_``, one value per sweep).

    Readings we had to choose (the AAAI paper prints neither batch algorithm; Keerthi et al. 2005 give an
    SMO-type dual method for a model with a bias term):

    * "coordinate descent on the primal" = cyclic coordinate descent on the expansion coefficients
      beta of f = sum_j beta_j k(x_j, .), the representer-theorem form of Eq. (1), no bias term;
    * the 1-D step: one Newton step per coordinate per sweep with Armijo back-tracking (sigma = 0.01,
      halving), starting from beta = 0;
    * order: cyclic over the rows 0..n-1 as given; the engine's ``order`` is ignored (``order_free``);
    * stopping rule: the relative decrease of P over a sweep, (P_prev - P) / |P| <= ``tol``, or
      ``max_iter`` sweeps;
    * ``t`` counts coordinate sub-problems (n per sweep), ``n_updates`` those whose step was accepted.
    """

    name = "klr_pcd"
    display = "PCD"
    style = ("#8c6d31", "s")
    params = KLR_PARAMS + (
        Param("tol", 1e-3, "stop when a sweep decreases the primal objective by at most tol * |P|", **POSITIVE),)

    ARMIJO = 0.01           # sufficient-decrease constant of the back-tracking line search
    MAX_HALVINGS = 30

    def _solve(self, cols: KernelColumns, y: np.ndarray, publish) -> None:
        from scipy.special import expit      # lazy: scipy.special takes ~0.1 s to import
        n = cols.n
        lam, inv_n = self.lam, 1.0 / n
        diag = cols.diag
        beta = np.zeros(n)
        f = np.zeros(n)                       # K beta at the training rows
        m = np.zeros(n)                       # margins y_i f_i
        s = expit(-m)                         # sigmoid(-m) = -l'(m)
        sy = s * y
        w = s * (1.0 - s)                     # l''(m)
        yk = np.empty(n)
        tmp = np.empty(n)
        P = primal_objective(lam, beta, f, y)
        publish(0, beta.copy(), P)
        t_count = updates = 0
        for sweep in range(1, self.max_iter + 1):
            for j in range(n):
                t_count += 1
                k = cols.col(j)
                g = lam * f[j] - inv_n * float(sy @ k)
                np.multiply(w, k, out=tmp)
                h = lam * diag[j] + inv_n * float(tmp @ k)
                if g == 0.0 or not h > 0.0:
                    continue
                step = -g / h
                np.multiply(y, k, out=yk)
                for _ in range(self.MAX_HALVINGS + 1):
                    np.multiply(yk, -step, out=tmp)                 # -delta margins
                    np.expm1(tmp, out=tmp)
                    tmp *= s
                    np.log1p(tmp, out=tmp)
                    dP = lam * (step * f[j] + 0.5 * step * step * diag[j]) + inv_n * float(tmp.sum())
                    if dP <= self.ARMIJO * step * g:
                        break
                    step *= 0.5
                else:
                    continue                                       # no acceptable step: beta_j unchanged
                beta[j] += step
                f += step * k
                m += step * yk
                np.negative(m, out=s)
                expit(s, out=s)
                np.multiply(s, y, out=sy)
                np.subtract(1.0, s, out=w)
                w *= s
                updates += 1
            P_prev, P = P, primal_objective(lam, beta, f, y)
            self.t, self.n_updates = t_count, updates
            publish(sweep, beta.copy(), P)
            if P_prev - P <= self.tol * abs(P):
                break
