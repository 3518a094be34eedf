"""Kernel online gradient descent for regression (squared loss, L2 regularisation): NORMA's regression case,
Kivinen, Smola & Williamson, "Online learning with kernels", IEEE Trans. Signal Processing 52(8), 2004
(NORMA with the squared loss), as the exact-kernel single-kernel baselines of the AMKL paper's Table II
(Hong & Chae, "Active learning with multiple kernels", arXiv 2005.03188 / IEEE TNNLS 2022;
../shared/spec/amkl_raker.md Section 5 "Benchmarks").

    f_1 = 0;   for t = 1..T:  predict f_t(x_t), then
    f_{t+1} = (1 - eta lam) f_t - eta 2 (f_t(x_t) - y_t) k(x_t, .),      eta = 1/sqrt(T), lam = 0.01,

the functional gradient of (f(x_t) - y_t)^2 + lam/2 ||f||_H^2 (spec Section 5: "exact-kernel online
functional-gradient learners (growing support set), squared loss, lambda = 0.01, step 1/sqrt(T)"; the AMKL
authors' ``test_single_kernel.m``: ``all_step = 1/sqrt(T)``, ``all_lambda = 0.01``).

The Table II rows are this learner with different kernels (config label -> ``kernel:`` entry):

=============  =============================  ===================================================================
Table II row   config label                   kernel
=============  =============================  ===================================================================
KL-RBF(0.1)    ``kl_rbf`` (sigma = 0.1)       ``{type: gaussian, gamma: 50}``      exp(-||x-x'||^2 / (2 sigma^2))
KL-RBF(1)      ``kl_rbf`` (sigma = 1)         ``{type: gaussian, gamma: 0.5}``     gamma = 1 / (2 sigma^2)
KL-RBF(10)     ``kl_rbf`` (sigma = 10)        ``{type: gaussian, gamma: 0.005}``
POLY2          ``poly2``                      ``{type: polynomial, degree: 2, coef0: 0}``   (x.x')^2  (b = 0)
POLY3          ``poly3``                      ``{type: polynomial, degree: 3, coef0: 0}``   (x.x')^3  (b = 0)
LINEAR         ``linear``                     ``{type: linear}``                             x.x'
=============  =============================  ===================================================================

(olk's polynomial default is coef0 = 1: the POLY rows must say ``coef0: 0``, spec Section 5's b = 0.)

The (1 - eta lam) shrink costs O(1): f_t = sigma_t sum_s b_s k(x_s, .) with raw coefficients b_s stored in the
pool and one global scale sigma (the device of :mod:`~olk.algorithms.projected`); a shrink multiplies sigma, a
new SV stores b = a / sigma, and sigma is folded into the stored coefficients (``pool.scale_col``; sigma = 1)
when it falls below ``renormalise_below``, which leaves f unchanged.  This module also holds
``_KernelRegressionCore`` (m kernel regressors on one pool, one column each), shared with ``omkr``.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1.0, 1.0, size=(400, 2))
>>> y = 0.5 + 0.4 * X[:, 0] * X[:, 1] + 0.05 * rng.normal(size=400)     # a small synthetic regression stream
>>> model = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.5})   # KL-RBF(sigma = 1)
>>> model.partial_fit(X[:300], y[:300]).n_sv, model.horizon_, round(model.eta_, 5)   # eta = 1/sqrt(300)
(300, 300, 0.05774)
>>> round(float(np.var(y[300:])), 4), round(float(np.mean((model.predict(X[300:]) - y[300:]) ** 2)), 4)
(0.0229, 0.009)
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ConfigError
from .base import OnlineKernelLearner, check_finite_X, n_rows
from .registry import Param, register

#: L2 regularisation (spec Section 5: lambda = 0.01).  < 1 keeps the shrink 1 - eta lam > 0 (eta <= 1 always)
LAM = Param("lam", 0.01, "L2 regularisation lambda: f <- (1 - eta lam) f every round",
            check=lambda v: 0.0 <= v < 1.0, requirement="in [0, 1)")
#: T of the step 1/sqrt(T)
HORIZON = Param("horizon", 0, "T of the step eta = 1/sqrt(T) (step_size=sqrt_T); 0 = the rows of the data the "
                "first update sees (the engine's online pass: the stream length)", type=int,
                check=lambda v: v >= 0, requirement=">= 0")
#: the step schedule (named step_size: a parameter may not shadow the learner's ``step`` method)
STEP_SIZE = Param("step_size", "sqrt_T", "step schedule: sqrt_T (eta = 1/sqrt(T) every round: the spec) or "
                  "sqrt_t (eta_t = 1/sqrt(t): Ghari-Shen's OMKR code)", type=str, choices=("sqrt_T", "sqrt_t"))


class _KernelRegressionCore(OnlineKernelLearner):
    """m kernel OGD regressors f_k (squared loss, L2 shrink), one per kernel of the learner's
    :class:`~olk.kernels.KernelSet`, on ONE shared SV pool (column k <-> kernel k): every round x_t is stored
    once, with its coefficient -eta 2 (f_k(x_t) - y_t) in each column k (0 where that gradient is 0; a round
    where every gradient is 0 stores nothing).

    Every column shrinks by the same 1 - eta_t lam each round, so one global scale sigma serves all columns:
    f_k = sigma * sum_s coef[s, k] k_k(x_s, .).  ``_predict_all`` gives f_k(x_t) for every k,
    ``_gradient_step`` makes the update.  The task is ``regression``: ``step`` returns the real-valued
    prediction made before learning; ``predict`` returns it too (not a sign), ``score`` is R^2.
    """

    task = "regression"
    max_kernels = 64
    #: fold sigma into the stored coefficients when it gets this small (the function is unchanged)
    renormalise_below = 1e-4

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        m = len(self.kernels)
        self.n_cols = m
        self._buf = np.zeros(m, dtype=np.float64)
        self._sigma = 1.0          # f_k = sigma * column k
        self._rows = 0             # the data's rows, fixed at the first update (horizon = 0)
        self.eta_ = 0.0            # the step size of the last update
        self.n_folds = 0           # times sigma was folded into the coefficients

    def column_kernels(self) -> list[int]:
        return list(range(len(self.kernels)))

    @property
    def horizon_(self) -> int:
        """T of eta = 1/sqrt(T): ``horizon``, or the rows of the data bound at the first update (0 before it)."""
        return self.horizon or self._rows

    # ------------------------------------------------------------------ the algorithm
    def _eta(self) -> float:
        """Step t's eta: 1/sqrt(T) (sqrt_T) or 1/sqrt(t) (sqrt_t; ``self.t`` already counts step t)."""
        if self.step_size == "sqrt_t":
            return 1.0 / math.sqrt(self.t)
        if not self._rows:
            self._rows = self.src.n_rows
        return 1.0 / math.sqrt(self.horizon_)

    def _predict_all(self, i: int) -> np.ndarray:
        """Start step t: f_k(x_t) for every kernel k (a new array), one pass over the pool."""
        self.t += 1
        self.pool.decision(self.src, i, self._buf)
        return self._sigma * self._buf

    def _gradient_step(self, i: int, y: float, f: np.ndarray) -> np.ndarray:
        """f_k <- (1 - eta lam) f_k + a_k k_k(x_t, .) with a_k = -eta 2 (f_k(x_t) - y_t), every k.  Returns a
        (the new SV's coefficients; x_t is stored iff some a_k != 0, as the pool's newest slot)."""
        eta = self._eta()
        self.eta_ = eta
        self._sigma *= 1.0 - eta * self.lam
        a = -2.0 * eta * (f - y)
        if a.any():
            self.pool.add(self.src, i, a / self._sigma, self.t)
            self.n_updates += 1
        if self._sigma < self.renormalise_below:
            self._fold()
        return a

    def _fold(self) -> None:
        """coef *= sigma, sigma = 1: the same functions, the stored numbers back in range."""
        for c in range(self.n_cols):
            self.pool.scale_col(c, self._sigma)
        self._sigma = 1.0
        self.n_folds += 1

    def learn_one(self, x, y):
        """Learn from one example (see the base class).  With eta = 1/sqrt(T) the stream's length T must be
        known: give ``horizon`` (or ``step_size='sqrt_t'``), unless an earlier ``partial_fit`` fixed it; a lone
        example is not taken as a stream of T = 1."""
        if self.step_size == "sqrt_T" and not self.horizon_:
            raise ConfigError(f"{self.name}.learn_one: the step 1/sqrt(T) needs the stream length T; set "
                              f"horizon=T (or step_size='sqrt_t')")
        return super().learn_one(x, y)

    # ------------------------------------------------------------------ outputs
    @property
    def coef_(self) -> np.ndarray:
        """(n_sv, m) coefficients alpha of f_k = sum_s alpha[s, k] k_k(x_s, .) (pool order, sigma applied)."""
        if self.pool is None:
            return np.zeros((0, len(self.kernels)))
        return self._sigma * self.pool.coefs

    def _expansion_coefs(self) -> np.ndarray:
        return self.coef_

    def kernel_predictions(self, X) -> np.ndarray:
        """(n_rows, m) predictions f_k(x) of the m kernel regressors on every row of X."""
        if self.pool is None:
            check_finite_X(X)
            return np.zeros((n_rows(X), len(self.kernels)))
        return self._sigma * self.pool.decision_matrix(self._source_for(X))

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        return self.kernel_predictions(X)[:, 0]

    def predict(self, X, output: str | None = None) -> np.ndarray:
        """The real-valued predictions (a regressor: no sign, no ``classes_``)."""
        return self.decision_function(X, output=output)

    def predict_one(self, x):
        return self.decision_one(x)

    def score(self, X, y) -> float:
        """R^2 of ``predict(X)`` against y (scikit-learn's regressor score)."""
        y = np.asarray(y, dtype=np.float64)
        res = float(np.sum((y - self.predict(X)) ** 2))
        tot = float(np.sum((y - y.mean()) ** 2))
        return 1.0 - res / tot if tot > 0 else (1.0 if res == 0 else 0.0)


@register
class KernelOGDRegression(_KernelRegressionCore):
    """Kernel OGD for regression (Kivinen, Smola & Williamson, IEEE TSP 2004, NORMA with the squared loss; the
    AMKL paper's Table II single-kernel rows KL-RBF / POLY2 / POLY3 / LINEAR, spec Section 5).

    For t = 1..T:  predict f_t(x_t);  f_{t+1} = (1 - eta lam) f_t - eta 2 (f_t(x_t) - y_t) k(x_t, .).

    Readings (spec Section 5 and what the papers leave open):

    * loss (f(x) - y)^2 with gradient 2 (f(x) - y) k(x, .) (the factor 2 kept, as in the spec's Raker update
      and the AMKL authors' code; Ghari-Shen's OMKR drops it);  regulariser lam/2 ||f||_H^2 (NORMA's
      convention), i.e. the shrink 1 - eta lam with lam = 0.01, applied to f_t before the new term is added
      (NORMA's order).  (The spec's Raker writes lam ||theta||^2, whose gradient would shrink by 1 - 2 eta lam;
      with eta lam ~ 1e-4 the two differ negligibly; the update above is the one implemented);
    * eta = 1/sqrt(T) every round (``step_size=sqrt_T``), T = ``horizon`` or, when 0, the rows of the data
      the first update sees (the engine's stream length; further ``partial_fit`` calls and passes keep it);
      ``step_size=sqrt_t`` gives eta_t = 1/sqrt(t); ``learn_one`` with neither is refused (a lone example is
      not a stream of T = 1);
    * growing support set: every round with f_t(x_t) != y_t stores x_t (no budget); ``n_updates`` counts them;
    * the Table II rows are kernels of this learner (module docstring); POLY's b = 0 (spec, INFERRED).
    """

    name = "kogd_reg"
    display = "Kernel OGD (regression)"
    style = ("#35978f", "d")
    max_kernels = 1
    params = (LAM, HORIZON, STEP_SIZE)

    def step(self, i, y):
        self.t += 1
        f = self._sigma * self.pool.decision1(self.src, i)       # predict first ...
        eta = self._eta()                                         # ... then learn
        self.eta_ = eta
        self._sigma *= 1.0 - eta * self.lam                       # f <- (1 - eta lam) f: O(1)
        a = -2.0 * eta * (f - y)                                  # f <- f + a k(x_t, .)
        if a != 0.0:
            self.pool.add(self.src, i, a / self._sigma, self.t)
            self.n_updates += 1
        if self._sigma < self.renormalise_below:
            self._fold()
        return f

    def run_summary(self) -> dict:
        """The T and eta the run used."""
        return {"horizon": self.horizon_, "eta": self.eta_}
