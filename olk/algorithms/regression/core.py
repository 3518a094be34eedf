"""The core of online kernel regression on the SV pool: m kernel regressors on one pool (one coefficient column
each) trained by online gradient descent on the squared loss, with the shrinkage lam and the step size (a
the papers' 1/sqrt(T) with T the horizon, or the anytime 1/sqrt(t): :mod:`olk.algorithms.common.regressor`), on the
targets or on their running standardisation.  KOGD (:mod:`~olk.algorithms.regression.kogd_reg`, one kernel) and OMKR
(:mod:`~olk.algorithms.regression.omkr`, several kernels and their Hedge combination; Sahoo, Hoi & Li, KDD 2014)
subclass :class:`KernelRegressionCore`.

>>> from olk.algorithms import make
>>> isinstance(make("kogd_reg"), KernelRegressionCore)
True
"""
from __future__ import annotations

import numpy as np

from ...errors import ConfigError
from ..common.inputs import check_finite_X, n_rows
from ..common.learner import OnlineKernelLearner
from ..common.regressor import HORIZON, STANDARDIZE_Y, STEP_SIZE, TargetScale, step_of
from ..registry import Param

__all__ = ["HORIZON", "LAM", "STANDARDIZE_Y", "STEP_SCALE", "STEP_SIZE", "KernelRegressionCore"]

#: L2 regularisation (spec Section 5: lambda = 0.01).  < 1 keeps the shrink 1 - eta lam > 0 (eta <= 1 always)
LAM = Param("lam", 0.01, "L2 regularisation lambda: f <- (1 - eta lam) f every round",
            check=lambda v: 0.0 <= v < 1.0, requirement="in [0, 1)")

#: a multiplier c of the step schedule: eta_t = c * (1/sqrt(T) | 1/sqrt(t) | ...).  The spec (Section 5) gives the
#: baselines the step 1/sqrt(T), c = 1; the AMKL paper prints no baseline step, so c is what a grid over "the step
#: c/sqrt(T)" sweeps (configs/amkl_table2_baseline_grid.yaml).  c = 1 is the behaviour before the parameter existed.
STEP_SCALE = Param("step_scale", 1.0, "multiplier c of the step: eta_t = c * the step_size schedule's step (1 = the "
                   "spec's 1/sqrt(T))", check=lambda v: v > 0.0, requirement="> 0", symbol="c")


class KernelRegressionCore(OnlineKernelLearner):
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
    structural_params = ("standardize_y",)     # the model is in the learned targets' units: a change restarts it
    #: fold sigma into the stored coefficients when it gets this small (the function is unchanged)
    renormalise_below = 1e-4

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        m = len(self.kernels)
        self.n_cols = m
        self._buf = np.zeros(m, dtype=np.float64)
        self._sigma = 1.0          # f_k = sigma * column k
        self._rows = 0             # the data's rows, fixed at the first update (only without a horizon: T)
        self.targets = TargetScale(self.standardize_y)     # y -> what is learned, f -> the prediction
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
        """Step t's eta (:func:`~olk.algorithms.common.regressor.step_of`; ``self.t`` already counts step t)."""
        if not self._rows and self.step_size == "sqrt_T" and not self.horizon:
            self._rows = self.src.n_rows
        eta = step_of(self.step_size, self.horizon, self._rows, self.t)
        assert eta is not None                  # T >= 1: the bound rows at the latest
        if self.step_scale == 1.0:
            return eta
        eta *= self.step_scale
        if eta * self.lam >= 1.0:             # only with step_scale > 1: the shrink 1 - eta lam would flip f's sign
            raise ConfigError(f"{self.name}: step_scale={self.step_scale} gives eta*lam = {eta * self.lam:.3g} >= 1 "
                              f"at step {self.t}; lower step_scale or lam")
        return eta

    def _predict_all(self, i: int) -> np.ndarray:
        """Start step t: f_k(x_t) for every kernel k (a new array), one pass over the pool."""
        self.t += 1
        self.pool.decision(self.src, i, self._buf)
        return self._sigma * self._buf

    def _gradient_step(self, i: int, y: float, f: np.ndarray) -> np.ndarray:
        """f_k <- (1 - eta lam) f_k + a_k k_k(x_t, .) with a_k = -eta 2 (f_k(x_t) - y_t), every k, on the learned
        target y (``targets.learn``'s).  Returns a (the new SV's coefficients; x_t is stored iff some a_k != 0, as the
        pool's newest slot)."""
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
        """Learn from one example (see the base class).  With ``step_size='sqrt_T'`` the stream's length T must be
        known: give ``horizon``, unless an earlier ``partial_fit`` fixed it; a lone example is not taken as a stream
        of T = 1.  The default ``step_size='auto'`` needs no T (the anytime step)."""
        if self.step_size == "sqrt_T" and not self.horizon_:
            raise ConfigError(f"{self.name}.learn_one: the step 1/sqrt(T) needs the stream length T; set "
                              f"horizon=T (or step_size='auto', the anytime step)")
        return super().learn_one(x, y)

    # ------------------------------------------------------------------ outputs
    @property
    def coef_(self) -> np.ndarray:
        """(n_sv, m) coefficients alpha of f_k = sum_s alpha[s, k] k_k(x_s, .) (pool order, sigma applied)."""
        if self.pool is None:
            return np.zeros((0, len(self.kernels)))
        return self._sigma * self.pool.coefs

    def _expansion_coefs(self) -> np.ndarray:
        """The coefficients in the targets' units: s alpha (``standardize_y``; alpha itself when off)."""
        return self.coef_ if not self.targets.on else self.targets.scale * self.coef_

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        return super().fitted_names() + ("intercept_",)

    def fitted_attributes(self) -> dict:
        """The kernel expansion (base class) in the targets' units, and ``intercept_`` = (m,): the running mean the
        standardised model adds (0 when ``standardize_y`` is off): prediction = dual_coef_' k(SV, x) + intercept_."""
        out = super().fitted_attributes()
        if out:
            out["intercept_"] = np.array([self.targets.shift])
        return out

    def kernel_predictions(self, X) -> np.ndarray:
        """(n_rows, m) predictions of the m kernel regressors on every row of X, in the targets' units
        (``targets.out`` of f_k(x))."""
        return self.targets.out(self._learned_predictions(X))

    def _learned_predictions(self, X) -> np.ndarray:
        """(n_rows, m) f_k(x) in the units learned (the standardised targets with ``standardize_y``)."""
        if self.pool is None:
            check_finite_X(X)
            return np.zeros((n_rows(X), len(self.kernels)))
        return self._sigma * self.pool.decision_matrix(self._source_for(X))

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        return self.kernel_predictions(X)[:, 0]

