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
(:mod:`~olk.algorithms.batch.libsvm`, :mod:`~olk.algorithms.batch.pegasos`).  A batch model that is a kernel
expansion over training rows kept in the shared SV pool (Pegasos, the batch KLR solvers) also lists
:class:`~olk.algorithms.common.learner.KernelExpansion` first among its bases: ``fit`` binds the training data
(``self.pool = None`` first for a fresh model) and leaves the coefficients in pool column 0.
"""
from __future__ import annotations

import numpy as np

from .arrays import ArrayAPI
from .inputs import InputError, check_finite_X, n_rows
from .learner import KernelEstimator


class BatchKernelLearner(ArrayAPI, KernelEstimator):
    """Common surface of the batch learners (kernel, RNG, parameters from
    :class:`~olk.algorithms.common.learner.KernelEstimator`; ``predict``, ``score``, the labels and the array
    surface around ``fit`` from :class:`~olk.algorithms.common.arrays.ArrayAPI`), plus label and width checks.

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

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel, random_state, **params)
        self.n_features_ = None     # width of the training data

    # ------------------------------------------------------------------ checks
    def _check_xy(self, X, y) -> np.ndarray:
        """Start a fit: check X (finite) and y (one finite label per row, two distinct labels at most, mapped
        to ±1 as in :class:`~olk.algorithms.common.arrays.ArrayAPI`; DataError otherwise), set ``classes_``,
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

    def fit(self, X, y, order=None):  # pragma: no cover - abstract
        raise NotImplementedError
