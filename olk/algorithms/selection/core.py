"""What the kernel-selection baselines of Yang et al., "Online Kernel Selection: Algorithms and Evaluations"
(AAAI 2012, Empirical Studies) share: the protocol of the paper's Tables 1 and 2.

* Parameters are tuned on a **validation set**, "a 10% random sample from the training data" (here stratified
  and seeded by ``split_seed``, so every method of an experiment sees the same one): C of the SVMs and
  SimpleMKL in 2^[-10:10], the discount beta of OM-1 and SOM in [0.1 : 0.04 : 0.9].
* A two-stage method selects a kernel, then trains LIBSVM (scikit-learn's ``SVC`` on the precomputed Gram
  matrix of that kernel) on the whole training set with C tuned on the validation set; the running time
  reported is the whole ``fit``, tuning included (the paper's footnote 4), and ``run_summary`` splits it into
  the selection stage and the SVM stage (the paper's "0.013h+0.02h").
* The kernels are the learner's :class:`~olk.kernels.KernelSet` (e.g. 4 kernels on each view of a multi-view
  dataset); every Gram matrix comes from :meth:`olk.kernels.KernelSet.gram` (the SV core's kernel values).

Each method is one registered learner in its own module (``oks_svm``, ``som_svm``, ``om1``, ``mutron``,
``musvm``, ``alsvm``, ``simplemkl``); this module holds their base class :class:`KernelSelection`.
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ...kernels import KernelSet
from ..common.batch import BatchKernelLearner
from ..common.inputs import InputError
from ..registry import Param, Reproducibility

#: the SVMs' C grid of the paper's experiments: 2^[-10:10]
C_GRID = tuple(math.ldexp(1.0, k) for k in range(-10, 11))
#: the discount beta grid of OM-1 and SOM: [0.1 : 0.04 : 0.9]
BETA_GRID = tuple(round(0.1 + 0.04 * k, 2) for k in range(21))

VALIDATION = Param("validation", 0.1, "fraction of the training set held out (stratified) to tune parameters and "
                   "select kernels (the paper: a 10% random sample)", check=lambda v: 0.0 < v < 0.5,
                   requirement="in (0, 0.5)")
SPLIT_SEED = Param("split_seed", 0, "seed of the validation split (the same split for every method)", type=int,
                   check=lambda v: v >= 0, requirement=">= 0")


class KernelSelection(BatchKernelLearner):
    """Base of the kernel-selection baselines: the validation split, the SVM stage on one kernel (or on a
    combined Gram matrix), its predictions, and the record of what was selected.

    After ``fit``: ``selected_kernel_`` (index into ``self.kernels``; for a combination, its largest weight),
    ``kernel_weights_`` (one per kernel: a one-hot vector for a selection), ``C_`` (the SVM's tuned C, or
    None), ``select_time_s_`` and ``svm_time_s_``.
    """

    max_kernels = 64
    params: tuple[Param, ...] = (VALIDATION, SPLIT_SEED)
    sparse_input = False                # Gram matrices of dense rows (KernelSet.gram), SVC on them

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        return 2 * 8 * n_train * n_train            # a Gram matrix of the training rows and scikit-learn's copy
    # the Gram matrices are olk's (exact), but the SVM stage runs scikit-learn's libsvm and numpy/BLAS sums
    # (decision values, validation hinge losses, SimpleMKL's gradients): not bit-controlled across CPUs.
    # Declared: one test example of a ~120-row test set per run (0.85 points) and 1% of the SVs.
    reproducibility = Reproducibility(exact=False, mistakes=0, accuracy=0.85, n_sv=0.01,
                                      reason="scikit-learn's libsvm on olk's Gram matrices; numpy/BLAS sums in "
                                             "the validation scores and decision values")

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self._reset()

    def _reset(self):
        self.selected_kernel_ = None
        self.kernel_weights_ = None
        self.C_ = None
        self.select_time_s_ = 0.0
        self.svm_time_s_ = 0.0
        self._sv_X = None               # the SVM stage's support vectors (rows of the training set) ...
        self._sv_coef = None            # ... their coefficients y_i alpha_i, and the bias
        self._b = 0.0
        self._weights = None            # the kernels' weights in the SVM stage's kernel (one-hot for a selection)
        self._online = None             # a method whose output is an online learner (OM-1, MuTron)
        self._two_stage = False         # select_then_svm ran: the two stages' times are meaningful

    # ------------------------------------------------------------------ protocol
    def split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(train rows, validation rows) of the training set: stratified, ``validation`` of it, ``split_seed``.  A
        stratified split needs a validation row of each class: below 20 rows (where ``validation`` = 0.1 of them
        would be a single row) the validation set is 2 rows, one per class."""
        from sklearn.model_selection import train_test_split
        idx = np.arange(y.shape[0])
        size = self.validation if math.ceil(self.validation * y.shape[0]) >= 2 else 2
        try:
            tr, va = train_test_split(idx, test_size=size, stratify=y, random_state=self.split_seed)
        except ValueError as e:
            raise InputError(f"{self.name}: cannot hold out a stratified {self.validation:g} of {y.shape[0]} "
                            f"training rows for validation ({e})") from None
        return np.sort(tr), np.sort(va)

    @staticmethod
    def svc(K: np.ndarray, y: np.ndarray, C: float) -> Any:
        """scikit-learn's SVC (LIBSVM) on a precomputed Gram matrix."""
        from sklearn.svm import SVC
        return SVC(kernel="precomputed", C=C).fit(K, y)

    def tune_C(self, K: np.ndarray, y: np.ndarray, tr: np.ndarray, va: np.ndarray) -> tuple[float, Any]:
        """(best C of :data:`C_GRID`, its validation score): SVC trained on the train rows of the Gram matrix K
        (all training rows), scored on the validation rows by :func:`validation_score`; the first C on ties."""
        best, bestC = None, C_GRID[0]
        Ktr, Kva = K[np.ix_(tr, tr)], K[np.ix_(va, tr)]
        for C in C_GRID:
            score = validation_score(self.svc(Ktr, y[tr], C).decision_function(Kva), y[va])
            if best is None or score > best:
                best, bestC = score, C
        return bestC, best

    def fit_svm(self, X, y, K: np.ndarray, weights: np.ndarray, C: float) -> None:
        """The SVM stage's final model: SVC(C) on the whole training Gram matrix K = sum_k weights_k K_k."""
        m = self.svc(K, y, C)
        assert list(m.classes_) == [-1.0, 1.0]
        self._sv_X = X[m.support_]
        self._sv_coef = np.asarray(m.dual_coef_, dtype=np.float64).ravel()
        self._b = float(m.intercept_[0])
        self._weights = np.asarray(weights, dtype=np.float64)
        self.C_ = float(C)

    def select_then_svm(self, X, y, k: int, tr, va, t_select: float) -> None:
        """Two-stage ending: kernel k was selected (in ``t_select`` seconds); tune C on the validation set and
        train the SVM on all training rows, timing this stage apart."""
        t0 = time.perf_counter()
        K = KernelSet((self.kernels[k],)).gram(X)[0]
        C, _ = self.tune_C(K, y, tr, va)
        self.fit_svm(X, y, K, np.eye(len(self.kernels))[k], C)
        self.svm_time_s_ = time.perf_counter() - t0
        self.select_time_s_ = t_select
        self._two_stage = True
        self.selected_kernel_ = int(k)
        self.kernel_weights_ = np.eye(len(self.kernels))[k]

    def start(self, X, y):
        """Begin a fit: checks, labels to ±1, the validation split."""
        y = self._check_xy(X, y)
        self._reset()
        self.n_features_ = X.shape[1]
        self.t = X.shape[0]
        if np.unique(y).size < 2:
            raise InputError(f"{self.name} needs both classes in the training set, got one class only (all "
                             f"{int(y[0]):+d})")
        tr, va = self.split(y)
        return y, tr, va

    # ------------------------------------------------------------------ outputs
    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """The returned classifier's scores: the SVM stage's f(x) = sum_i y_i alpha_i k(x_i, x) + b (k the
        selected kernel, or the weighted combination), or the online method's own output."""
        from ..common.inputs import check_finite_X, n_rows
        check_finite_X(X)
        if self._online is not None:
            return self._online.decision_function(X)
        if self._sv_X is None:
            return np.zeros(n_rows(X))
        self._check_width(X.shape[1])
        on = np.flatnonzero(self._weights)
        G = KernelSet(tuple(self.kernels[k] for k in on)).gram(X, self._sv_X)
        K = sum(self._weights[k] * G[j] for j, k in enumerate(on))
        return K @ self._sv_coef + self._b

    #: the returned classifier is an online learner (``_online``: OM-1, MuTron), not the SVM stage
    online_output = False

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        return (("support_vectors_", "dual_coef_") + (() if cls.online_output else ("intercept_",))
                + ("kernel_weights_",))

    def fitted_attributes(self) -> dict:
        """The returned classifier: the SVM stage's ``support_vectors_`` (rows of the training set),
        ``dual_coef_`` ((n_sv, 1): y_i alpha_i) and ``intercept_`` (b), over the selected kernel or the
        weighted combination; or the online method's own attributes (OM-1, MuTron).  ``kernel_weights_``
        always (one-hot for a selection)."""
        if self._online is not None:
            out = self._online.fitted_attributes()
        elif self._sv_X is not None:
            out = {"support_vectors_": self._sv_X.copy(), "dual_coef_": self._sv_coef.reshape(-1, 1).copy(),
                   "intercept_": np.array([self._b])}
        else:
            out = {}
        if self.kernel_weights_ is not None:
            out["kernel_weights_"] = np.array(self.kernel_weights_, dtype=np.float64)
        return out

    @property
    def n_sv(self) -> int:
        if self._online is not None:
            return int(self._online.n_sv_output)
        return 0 if self._sv_coef is None else int(self._sv_coef.shape[0])

    def run_summary(self) -> dict:
        """Recorded with every run: the selected kernel (index, label), the kernels' weights, the tuned C and,
        for a two-stage method (``select_then_svm``), the two stages' times."""
        if self.selected_kernel_ is None:
            return {}
        k = int(self.selected_kernel_)
        out = {"selected_kernel": k, "selected_label": self.kernels[k].label(),
               "kernel_weights": [float(w) for w in self.kernel_weights_]}
        if self._two_stage:             # the paper's "0.013h+0.02h": select, then LIBSVM on the selection
            out.update({"select_time_s": self.select_time_s_, "svm_time_s": self.svm_time_s_})
        if self.C_ is not None:
            out["C"] = self.C_
        return out


def validation_score(f: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """How a classifier with scores f does on validation labels y, as a sortable pair: (accuracy, -mean hinge
    loss).  A 10% validation set of a few hundred rows ties often on accuracy alone (several kernels at 100%),
    and the paper does not say how it broke ties; olk breaks them by the hinge loss max(0, 1 - y f), the
    SVM's own loss (then by the first candidate in order)."""
    acc = float(np.mean(np.where(f >= 0, 1.0, -1.0) == y))
    return acc, -float(np.mean(np.maximum(0.0, 1.0 - y * f)))


def run_epochs(model, X, y, order, epochs_deltas) -> object:
    """Run an online multi-kernel learner for len(epochs_deltas) passes over (X, y) in ``order``, with the
    smoothing delta of each pass (the paper: 0.5 in the first epoch, 0.2 in the second); returns the model."""
    Xo, yo = X[order], y[order]
    for delta in epochs_deltas:
        if delta is not None:
            model.set_params(delta=delta)
        model.partial_fit(Xo, yo)
    return model


def vote_score(model, X, y) -> tuple[float, float]:
    """:func:`validation_score` of an online multi-kernel learner's own prediction (its weighted vote of the
    kernel classifiers' signs, in [-1, 1]) on (X, y)."""
    return validation_score(model.decision_function(X), y)
