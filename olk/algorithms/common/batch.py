"""Batch kernel SVM baselines of the SPA paper's Table 3 (Lu et al., ACM TIST 2018, Section 6.1.4).

The SPA paper compares the output classifiers of its online learners on held-out test data with two
batch solvers: LIBSVM [6] and kernelized Pegasos [37].  Unlike the online learners these are trained
with one call, ``fit(X, y)``, on a training split and then evaluated with ``decision_function`` /
``predict`` on the test split:

    model = make("pegasos", kernel={"type": "gaussian", "gamma": 0.4}, lam=1e-4)
    model.fit(X_train, y_train)            # two labels, e.g. {-1, +1}: predict() returns them
    acc = (model.predict(X_test) == y_test).mean()

Class attributes the experiment engine reads: ``batch = True``; ``stochastic`` (uses ``self.rng``, so
results depend on the run's algorithm seed); ``order_free`` (the result does not depend on the order
of the training rows, so the engine need not repeat the run over permutations).

This module holds their base class, :class:`BatchKernelLearner`; each learner lives in its own module
(:mod:`~olk.algorithms.batch.libsvm`, :mod:`~olk.algorithms.batch.pegasos`).
"""
from __future__ import annotations

import functools

import numpy as np

from ..._core.svpool import RowSource, SVPool
from .inputs import InputError, as_data, check_finite_X, check_train_shape, n_features, n_rows
from .learner import KernelEstimator, OnlineKernelLearner


class BatchKernelLearner(KernelEstimator):
    """Common surface of the batch learners (kernel, RNG, parameters, predict come from
    :class:`~olk.algorithms.base.KernelEstimator`), plus label and width checks.

    Subclasses implement ``fit(X, y, order=None)`` and ``decision_function(X, output=None)``.
    """

    name = "batch_base"
    display = "Batch"
    batch = True
    #: True: ``fit(X, y, order=None, probe=None)`` calls ``probe()`` after each outer iteration (e.g. one
    #: coordinate-descent sweep), with the model usable (``decision_function``) at that point; the engine
    #: scores the test set there for an accuracy-vs-training-time curve and leaves the probe's own time out
    #: of the training time
    reports_progress = False

    def __init_subclass__(cls, **kwargs):
        """Every learner's own ``fit`` gets the scikit-learn surface around it: X given as a list of rows (or a
        DataFrame) is read through ``np.asarray`` first, and a successful fit sets ``n_features_in_`` (the
        width of X; a failed one leaves the model without it)."""
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "_sklearn_surface", False):
            @functools.wraps(fit)
            def fit_with_surface(self, X, y, *args, **kw):
                X = as_data(X)
                check_train_shape(X)
                self.__dict__.pop("n_features_in_", None)
                fit(self, X, y, *args, **kw)
                self.n_features_in_ = n_features(X)
                return self
            fit_with_surface._sklearn_surface = True
            cls.fit = fit_with_surface

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel, random_state, **params)
        self.t = 0                  # training iterations run by the last fit
        self.n_updates = 0
        self.n_features_ = None     # width of the training data

    # ------------------------------------------------------------------ checks
    def _check_xy(self, X, y) -> np.ndarray:
        """Start a fit: check X (finite) and y (one finite label per row, two distinct labels at most, mapped
        to ±1 as in :class:`~olk.algorithms.base.KernelEstimator`; DataError otherwise), set ``classes_``,
        re-seed the RNG from ``random_state`` (every fit starts from scratch), and return y as float64 ±1."""
        n = n_rows(X)
        if n == 0:
            raise InputError("cannot train on an empty training set (0 rows)")
        check_finite_X(X)
        y, classes = self._encode_y(y, n, None)
        self.classes_ = classes
        self.rng = np.random.default_rng(self.random_state)
        return y

    def _check_width(self, n_features: int) -> None:
        if self.n_features_ is not None and n_features > self.n_features_:
            raise InputError(f"data has {n_features} features but {self.display}'s model was trained with "
                            f"{self.n_features_} and its solver cannot score wider rows; remove the columns beyond "
                            f"{self.n_features_} (exact only if they are zero)")

    # --------------------------------------------------- scikit-learn surface
    def fit(self, X, y, order=None):  # pragma: no cover - abstract
        raise NotImplementedError


class PooledBatchLearner(BatchKernelLearner):
    """A batch learner whose model is a kernel expansion over training rows kept in the shared SV pool
    (Pegasos, the batch KLR solvers): the online learners' pool plumbing (``_make_pool``, ``bind``, the
    layout/width checks of ``_source_for``) and the pool's scores.  ``fit`` binds the training data
    (``self.pool = None`` first for a fresh model) and leaves the coefficients in pool column 0."""

    widens = True               # its pool widens to wider rows (SVPool.widen)

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self.pool: SVPool | None = None
        self.src: RowSource | None = None

    _make_pool = OnlineKernelLearner._make_pool
    bind = OnlineKernelLearner.bind
    fitted_attributes = OnlineKernelLearner.fitted_attributes
    fitted_names = OnlineKernelLearner.__dict__["fitted_names"]
    _expansion_coefs = OnlineKernelLearner._expansion_coefs
    _kernel_weights = OnlineKernelLearner._kernel_weights

    def _source_for(self, X) -> RowSource:
        src = OnlineKernelLearner._source_for(self, X)
        if src.sparse != self.pool.sparse:
            raise InputError("this model was trained on " + ("sparse" if self.pool.sparse else "dense")
                            + " data; pass data in the same layout")
        return src              # a wider row: the pool was widened to it (exact, SVPool.widen)

    def _pool_scores(self, X) -> np.ndarray:
        """sum_s coef_s k(sv_s, x) (pool column 0) for every row of X; zeros before any fit."""
        if self.pool is None:
            check_finite_X(X)
            return np.zeros(n_rows(X))
        return self.pool.decision_matrix(self._source_for(X))[:, 0]

    @property
    def kernel_evals(self) -> int:
        return 0 if self.pool is None else int(self.pool.n_kernel_evals)
