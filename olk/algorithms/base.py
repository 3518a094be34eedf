"""Base class of olk's online kernel learners.

A learner is a River-style object that learns one example at a time and can predict at any point:

    model = make("spa", kernel={"type": "gaussian", "gamma": 0.4}, beta=20)
    src = model.bind(X)              # typed view of the data rows (CSR or dense)
    for i in order:
        score = model.step(i, y[i])  # online prediction score f(x_i) *before* the update, then update

``step`` returns the score that the online protocol predicts with (sign(score), with sign(0) = +1);
the experiment engine, not the learner, counts mistakes and keeps learning curves.  On top of that
``partial_fit`` / ``decision_function`` / ``predict`` give the scikit-learn estimator surface.

Writing a new learner: read ``olk/algorithms/DEVELOPING.md`` first (API, rules, tests).

Support vectors live in one shared Cython :class:`~olk._core.svpool.SVPool`; a learner only decides
*what* to add, change or remove, which keeps each ``step`` as short as its paper's pseudo-code.
"""
from __future__ import annotations

import numpy as np

from .._core.svpool import RowSource, SVPool
from ..errors import ConfigError, DataError
from ..kernels import make_kernel


class KernelEstimator:
    """What every registered learner shares, online or batch: registry metadata, the kernel, the RNG,
    the hyper-parameters (one attribute per ``Param``), ``predict`` and ``repr``."""

    name = "base"
    display = "Base"
    params: tuple = ()
    aliases: tuple = ()
    task = "binary"
    n_cols = 1                      # coefficient columns per SV (SPA uses 2 for its exact average)
    stochastic = False              # uses its RNG (so results depend on the run's algorithm seed)
    batch = False                   # batch learners (olk/algorithms/batch.py) are trained with fit()
    order_free = False              # result does not depend on the order of the training rows

    def __init__(self, kernel=None, random_state=None, **params):
        self.kernel = make_kernel(kernel)
        self.random_state = random_state
        self.rng = np.random.default_rng(random_state)
        for p in self.params:
            setattr(self, p.name, params.get(p.name, p.default))
        self.hyperparams = {p.name: getattr(self, p.name) for p in self.params}

    @classmethod
    def check_params(cls, p: dict, where: str) -> None:
        """Cross-parameter checks (single-parameter ranges live in each Param)."""

    def decision_function(self, X, output: str | None = None) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict(self, X, output: str | None = None) -> np.ndarray:
        """±1 labels, sign(0) = +1."""
        return np.where(self.decision_function(X, output=output) >= 0, 1.0, -1.0)

    def __repr__(self):
        ps = ", ".join(f"{k}={v!r}" for k, v in self.hyperparams.items())
        return f"{type(self).__name__}(kernel={self.kernel.label()}{', ' if ps else ''}{ps})"


class OnlineKernelLearner(KernelEstimator):
    """Common machinery of the online learners: the SV pool, binding data, sklearn-style wrappers."""

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel, random_state, **params)
        self.pool: SVPool | None = None
        self.src: RowSource | None = None
        self.t = 0                  # examples seen
        self.n_updates = 0          # examples that changed the model
        self._buf = np.zeros(max(self.n_cols, 1), dtype=np.float64)

    # ------------------------------------------------------------------ hooks
    def step(self, i: int, y: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ data
    def _make_pool(self, n_features: int, sparse: bool) -> SVPool:
        return SVPool(n_features, sparse, col_kernel=[0] * self.n_cols, **self.kernel.pool_args())

    def bind(self, X) -> RowSource:
        """Make the rows of X (CSR or dense float64) the ones ``step(i, y)`` refers to."""
        src = X if isinstance(X, RowSource) else RowSource(X)
        if self.pool is None:
            self.pool = self._make_pool(src.n_features, src.sparse)
        elif src.sparse != self.pool.sparse:
            raise DataError("this model was trained on " + ("sparse" if self.pool.sparse else "dense")
                            + " data; pass data in the same layout")
        elif src.n_features > self.pool.n_features:
            raise DataError(f"data has {src.n_features} features but the model was trained with "
                            f"{self.pool.n_features}; load it with n_features={self.pool.n_features}")
        self.src = src
        return src

    def _source_for(self, X) -> RowSource:
        if not isinstance(X, RowSource):
            if self.pool is not None:
                import scipy.sparse as sp
                if self.pool.sparse and not sp.issparse(X):
                    X = sp.csr_matrix(np.atleast_2d(X))
                elif not self.pool.sparse and sp.issparse(X):
                    X = X.toarray()
            X = RowSource(X)
        if self.pool is not None and X.n_features > self.pool.n_features:
            # the core runs without bounds checks: wider rows must never reach it
            raise DataError(f"data has {X.n_features} features but the model was trained with "
                            f"{self.pool.n_features}; load it with n_features={self.pool.n_features}")
        return X

    # ----------------------------------------------------------- inspection
    @property
    def n_sv(self) -> int:
        """Support vectors of the current (last) classifier."""
        return 0 if self.pool is None else self.pool.n_sv

    @property
    def n_sv_output(self) -> int:
        """Support vectors of the classifier used for prediction (differs for averaged outputs)."""
        return self.n_sv

    @property
    def kernel_evals(self) -> int:
        return 0 if self.pool is None else int(self.pool.n_kernel_evals)

    # --------------------------------------------------- scikit-learn surface
    def partial_fit(self, X, y):
        """One online pass over (X, y) in the given order; returns self."""
        y = np.asarray(y, dtype=np.float64)
        src = self.bind(X)
        if y.shape[0] != src.n_rows:
            raise DataError(f"X has {src.n_rows} rows but y has {y.shape[0]}")
        for i in range(src.n_rows):
            self.step(i, y[i])
        return self

    fit = partial_fit

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """Scores of the output classifier on every row of X."""
        if self.pool is None:
            n = X.n_rows if isinstance(X, RowSource) else np.atleast_2d(X).shape[0] if not hasattr(X, "shape") else X.shape[0]
            return np.zeros(n)
        return self.pool.decision_matrix(self._source_for(X))[:, 0]


def check_shrinkage(cls, p: dict, where: str) -> None:
    """eta*lam < 1, so that the per-step shrinkage factor 1 - eta*lam stays positive (OGD, BOGD)."""
    if p["eta"] * p["lam"] >= 1:
        raise ConfigError(f"{where}: {cls.display} needs eta*lam < 1 (got eta*lam={p['eta'] * p['lam']:g})")


def hinge(y: float, f: float) -> float:
    """Hinge loss [1 - y f]_+."""
    m = 1.0 - y * f
    return m if m > 0.0 else 0.0
