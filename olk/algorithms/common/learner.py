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

from ..._core.svpool import RowSource, SVPool
from ..._lazy import issparse
from ...errors import ConfigError
from ...kernels import KernelSet
from ...tasks import TASKS
from ..registry import EXACT, check_params_of
from .inputs import (
    InputError,
    ParamError,
    as_data,
    check_finite_X,
    check_finite_y,
    check_train_shape,
    label_text,
    labels_text,
    n_features,
    n_rows,
    same_label,
)


class KernelEstimator:
    """What every registered learner shares, online or batch: registry metadata, the kernel, the RNG,
    the hyper-parameters (one attribute per ``Param``), the label mapping (``classes_``), ``predict`` and
    ``repr``.

    Labels.  The learners work with y in {-1, +1}.  ``fit`` / ``partial_fit`` also accept any two labels
    (numbers, strings, booleans): the first of the two in sorted order becomes -1, the second +1, and both
    are kept in ``classes_`` (a numpy array of the two original labels); ``predict`` returns them.  The
    first ``partial_fit`` call fixes ``classes_``; later calls must use labels from it.  A first call with
    only one distinct label is accepted only if that label is -1 or +1 (then ``classes_ = [-1, 1]``),
    since one label alone does not say which class it is.  More than two labels, a label outside
    ``classes_`` or a NaN/inf anywhere in X or y is a one-line :class:`~olk.errors.DataError`.  The
    experiment engine's ``bind`` + ``step(i, y)`` path takes ±1 labels as they are (the data layer has
    checked them) and never sets ``classes_``; without ``classes_``, ``predict`` returns ±1.
    """

    name = "base"
    display = "Base"
    params: tuple = ()
    aliases: tuple = ()
    #: the task protocol it is run and scored with (a key of ``olk.tasks.TASKS``): "binary" (the
    #: default), "probabilistic" (the KLR learners, via :class:`~olk.algorithms.logistic.LogisticOutput`),
    #: "multiclass" (:mod:`olk.algorithms.multiclass`) or "regression"
    task = "binary"
    #: the named output classifiers it offers, e.g. ("avg", "last") for SPA and OSKL: exactly the choices of
    #: its ``output`` parameter, which picks the default one; () = a single output classifier, no parameter
    outputs: tuple[str, ...] = ()
    #: (colour, marker) of its lines and points in plots (matplotlib colour and marker codes); every
    #: registered learner declares its own, distinct in both; None = the report picks a free fallback style
    style: tuple[str, str] | None = None
    n_cols = 1                      # coefficient columns per SV (SPA uses 2 for its exact average)
    max_kernels = 1                 # how many kernels it learns with at once (a multi-kernel learner: more)
    stochastic = False              # uses its RNG (so results depend on the run's algorithm seed)
    batch = False                   # batch learners (base_batch.BatchKernelLearner) are trained with fit()
    order_free = False              # result does not depend on the order of the training rows
    reproducibility = EXACT         # what ``olk regress`` demands across machines (registry.Reproducibility)
    #: {old parameter name: (new name, when)}: the registry answers an old name with a one-line "renamed" error
    renamed: dict = {}
    #: takes scipy-sparse X (False: dense X only, e.g. the kernel-selection learners' Gram-matrix solvers); the
    #: scikit-learn estimators (:mod:`olk.estimators`) validate X and tag their input by it
    sparse_input = True
    #: hyper-parameters that fix the model's structure (like the kernel): a new value restarts the learner
    #: untrained, so a streaming estimator applies them only at its next ``fit``
    structural_params: tuple[str, ...] = ()
    #: a batch solver that calls ``probe()`` after each outer iteration (the engine's held-out curve)
    reports_progress = False
    #: trains on one kernel of a set given in advance (no selection): its runs over every kernel are the ground
    #: truth of the kernel-selection figure (OKS, AAAI 2012, Figs. 1-2; olk.report.plots)
    kernel_ground_truth = False
    #: takes rows wider than the data it learned from: a feature it never saw is 0 in everything it stored (the SV
    #: pool widens, ``SVPool.widen``).  False: the width of the first data it learns from is fixed (random
    #: features drawn for it, a solver's model); a wider row is a one-line DataError.  ``olk.river`` reads it
    widens = False
    #: examples that changed the model (set by the learner as it learns)
    n_updates = 0
    #: an active learner's count of the labels it asked for; None: it uses every label (the contract of
    #: :class:`olk.algorithms.protocol.Learner`, whose every member has its default here)
    n_labels: int | None = None

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        params = check_params_of(type(self), params, where)       # every way of building a learner checks
        self.kernels = KernelSet.of(kernel, "kernel")      # one kernel, or several for a multi-kernel learner
        if len(self.kernels) > self.max_kernels:
            raise ConfigError(f"{where or self.name}: {self.name} takes {self.max_kernels} kernel(s), got "
                              f"{len(self.kernels)} ({self.kernels.label()})")
        self.kernel = self.kernels[0]       # the kernel of a single-kernel learner
        self.random_state = random_state
        self.rng = np.random.default_rng(random_state)
        for p in self.params:
            setattr(self, p.name, params[p.name])
        self.hyperparams = {p.name: getattr(self, p.name) for p in self.params}
        self.classes_: np.ndarray | None = None     # the two original labels (-1 side, +1 side), set by fit

    # ------------------------------------------------------- memory (olk.experiment.memory, before a run)
    @classmethod
    def memory_max_sv(cls, params: dict, n_train: int) -> int:
        """The most support vectors a run on ``n_train`` examples can hold: its ``budget`` B (+1 while it makes
        room), else every example.  Learners without an SV store return 0."""
        b = params.get("budget")
        if isinstance(b, (int, float)) and not isinstance(b, bool) and b > 0:
            return int(min(b + 1, n_train))
        return int(n_train)

    @classmethod
    def memory_extra(cls, params: dict, n_train: int, n_features: int, n_kernels: int) -> int:
        """Bytes a run holds besides its SV store and its data (kernel matrices, caches, inverses): none here."""
        return 0

    def expect_classes(self, n_classes: int) -> None:
        """The ``multiclass`` task's online pass is about to learn the labels 0..n_classes-1 (:mod:`olk.tasks`):
        a multi-class learner sizes its K score columns.  Every other learner has nothing to prepare."""

    def _adopt_classes(self, classes) -> None:
        """Keep the labels ``classes`` that ``fit`` / ``partial_fit`` found (``classes_``); a multi-class learner
        also sizes its K score columns to them."""
        self.classes_ = classes

    def column_kernels(self) -> list[int]:
        """The kernel (index into ``self.kernels``) each coefficient column is evaluated with.  One kernel:
        every column uses it.  A multi-kernel learner keeping one column per kernel returns e.g.
        ``list(range(len(self.kernels)))``: the pool then computes each SV's inner product once and
        every kernel value from it."""
        return [0] * self.n_cols

    # ------------------------------------------------------- parameters (as olk.estimators and olk.persist read them)
    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments: ``kernel``, ``random_state`` and every declared hyper-parameter
        (so ``sklearn.base.clone`` rebuilds an untrained copy)."""
        kernel = self.kernels[0] if len(self.kernels) == 1 else self.kernels
        return {"kernel": kernel, "random_state": self.random_state, **self.hyperparams}

    def set_params(self, **params):
        """Set constructor arguments, checked like the constructor checks them (one-line ConfigError, with a
        did-you-mean for an unknown name).  Hyper-parameters take effect at the next update (quantities the
        learner derives from them are recomputed: :meth:`_params_changed`); a new ``kernel``, ``random_state`` or
        structural parameter (``structural_params``) restarts the learner untrained, since the model learned so
        far depends on them."""
        params = dict(params)
        kernel_given = "kernel" in params
        kernel = params.pop("kernel", None)
        current = self.get_params()["kernel"]
        seed_given = "random_state" in params
        seed = params.pop("random_state", self.random_state)
        try:
            merged = check_params_of(type(self), {**self.hyperparams, **params}, f"{self.name}.set_params")
            if kernel_given and kernel is not current:
                KernelSet.of(kernel, "kernel")          # a bad kernel leaves the learner as it was
        except ConfigError as e:
            raise ParamError(str(e)) from None
        if seed_given:
            try:
                np.random.default_rng(seed)             # so does a bad random_state
            except (TypeError, ValueError) as e:
                raise ParamError(f"{self.name}.set_params: random_state must be None or an int seed, got "
                                 f"{seed!r} ({e})") from None
        structural = any(k in params and merged[k] != self.hyperparams[k] for k in self.structural_params)
        if (kernel_given and kernel is not current) or seed_given or structural:
            restart = self.kernels if not kernel_given or kernel is current else kernel
            type(self).__init__(self, kernel=restart, random_state=seed, **merged)
            self.__dict__.pop("n_features_in_", None)       # untrained again
            return self
        changed = {k: v for k, v in merged.items() if v != self.hyperparams[k]}
        for k, v in merged.items():
            setattr(self, k, v)
        self.hyperparams = merged
        if changed:
            self._params_changed(changed)
        return self

    def _params_changed(self, changed: dict) -> None:
        """After ``set_params`` changed the hyper-parameters `changed` ({name: new value}) of a learner that keeps
        learning: recompute what the learner derived from them in ``__init__`` (e.g. ln(beta)).  Default:
        nothing is derived."""

    def fitted_attributes(self) -> dict:
        """The fitted model in scikit-learn's names, which the estimators of :mod:`olk.estimators` expose:

        * a kernel expansion: ``support_vectors_`` (the stored SVs in slot order: a dense array, or a scipy CSR
          matrix for sparse data) and ``dual_coef_`` ((n_sv, n_cols): output column j is
          f_j(x) = sum_s dual_coef_[s, j] k_j(sv_s, x), plus ``intercept_`` for a model with a bias);
        * a random-feature model: ``coef_`` (its parameter vectors, one row per kernel);
        * a multi-kernel model: ``kernel_weights_`` (one per kernel, kernel order).

        Each learner says what it has (the default: nothing; copies, computed on demand)."""
        return {}

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        """The keys :meth:`fitted_attributes` has once the model has learned (the estimators' docstrings list
        them; tests/test_estimators.py checks every learner against it)."""
        return ()

    def score(self, X, y) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` for a classifier; R^2 for a regressor (scikit-learn's
        scores: R^2 = 1 - SS_res / SS_tot, and for a constant y 1 if the predictions are exact, else 0)."""
        if TASKS[self.task].classifier:
            return float(np.mean(self.predict(X) == np.asarray(y)))
        y = np.asarray(y, dtype=np.float64)
        res = float(np.sum((y - self.predict(X)) ** 2))
        tot = float(np.sum((y - y.mean()) ** 2))
        return 1.0 - res / tot if tot > 0 else (1.0 if res == 0 else 0.0)

    def run_summary(self) -> dict:
        """Learner-specific facts an experiment records with each run, after its online pass or batch fit: a dict of
        JSON-able values (e.g. a multi-kernel learner's final kernel weights).  The task protocol stores it
        as the record's ``summary``; ``runs.csv`` gets one column per key (lists as JSON).  Default: none."""
        return {}

    @classmethod
    def check_params(cls, p: dict, where: str) -> None:
        """Cross-parameter checks (single-parameter ranges live in each Param)."""

    def decision_function(self, X, output: str | None = None) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict(self, X, output: str | None = None) -> np.ndarray:
        """A classifier: sign(f(x)) with sign(0) = +1, as the original labels ``classes_`` (±1 floats before any
        fit).  A regressor (``task = "regression"``): its real-valued output f(x)."""
        if TASKS[self.task].labels != "binary":
            return self.decision_function(X, output=output)
        pos = self.decision_function(X, output=output) >= 0
        if self.classes_ is None:
            return np.where(pos, 1.0, -1.0)
        return self.classes_[pos.astype(np.intp)]

    # ----------------------------------------------------------- inspection
    @property
    def n_sv(self) -> int:
        """Support vectors of the current (last) classifier: none unless the learner stores them."""
        return 0

    @property
    def n_sv_output(self) -> int:
        """Support vectors of the classifier used for prediction (differs for averaged outputs)."""
        return self.n_sv

    @property
    def kernel_evals(self) -> int:
        """Kernel evaluations so far: none unless the learner evaluates its kernels."""
        return 0

    # ------------------------------------------------------------ input checks
    def _labels_array(self, y, n_rows: int) -> np.ndarray:
        """y as a 1-d array of n_rows finite labels (a column vector is read as its column, with scikit-learn's
        warning); a one-line InputError otherwise.  Every task's ``_encode_y`` starts here."""
        if y is None:
            raise InputError(f"{self.display} requires y to be passed, but the target y is None")
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            import warnings

            from sklearn.exceptions import DataConversionWarning
            warnings.warn("A column-vector y was passed when a 1d array was expected: y of shape (n, 1) is read "
                          "as its single column (use y.ravel())", DataConversionWarning, stacklevel=5)
            y = y[:, 0]
        if y.ndim != 1:
            raise InputError(f"y: expected a 1-d array of labels, got shape {y.shape}")
        if y.shape[0] != n_rows:
            raise InputError(f"X has {n_rows} rows but y has {y.shape[0]}")
        check_finite_y(y)
        return y

    def _encode_y(self, y, n_rows: int, classes) -> tuple[np.ndarray, np.ndarray | None]:
        """Check y (one finite label per row) and map it to float64 ±1 with `classes` (None: derive them
        from y, see the class docstring).  Returns (y_pm, classes); raises a one-line DataError."""
        y = self._labels_array(y, n_rows)
        if TASKS[self.task].labels != "binary":        # regression: real-valued targets, no classes_
            return np.ascontiguousarray(y, dtype=np.float64), classes
        if classes is None:
            if y.shape[0] == 0:
                return np.zeros(0), None
            try:
                found = np.unique(y)
            except TypeError:
                raise InputError(f"y: labels of mixed types cannot be ordered (e.g. {label_text(y[0])}); "
                                f"use two labels of one type") from None
            if found.size > 2 and found.dtype.kind == "f" and not np.all(found == np.round(found)):
                raise InputError(f"y: Unknown label type: continuous target ({found.size} distinct real values, e.g. "
                                 f"{labels_text(found[:3])}) but {self.display} is a binary classifier: give it two "
                                 f"labels")
            if found.size > 2:
                raise InputError(f"y: {found.size} distinct labels ({labels_text(found)}) but {self.display} is a "
                                 f"binary classifier. Only binary classification is supported: give it two labels (for "
                                 f"a multiclass LIBSVM file, map one class to +1 with "
                                 f"preprocess={{'positive_label': L}}, or use a multi-class learner such as mc_pa1)")
            if found.size == 2:
                classes = found
            elif found.dtype.kind in "iuf" and found[0] in (-1, 1):
                classes = np.array([-1, 1], dtype=found.dtype if found.dtype.kind in "if" else np.int64)
            else:
                raise InputError(f"y: only one label ({label_text(found[0])}) in the first fit/partial_fit call: one "
                                 f"class only, so olk cannot tell which class it is; pass examples of both classes in "
                                 f"the first call, or use the labels -1/+1")
        pos, neg = same_label(y, classes[1]), same_label(y, classes[0])
        bad = ~(pos | neg)
        if bad.any():
            r = int(np.argmax(bad))
            raise InputError(f"y: row {r} (0-based) has label {label_text(y[r])}, which is not one of this model's "
                            f"classes_ ({labels_text(classes)}), fixed by its first fit/partial_fit call")
        return np.where(pos, 1.0, -1.0), classes

    def __repr__(self):
        ps = ", ".join(f"{k}={v!r}" for k, v in self.hyperparams.items())
        return f"{type(self).__name__}(kernel={self.kernels.label()}{', ' if ps else ''}{ps})"


class OnlineLearner(KernelEstimator):
    """What every online learner shares, whatever it stores (an SV pool, random-feature weights, ...): the online
    protocol (``bind`` the data once, then ``step(i, y)`` per row: the score predicted with, before the update),
    the counters ``t`` / ``n_updates``, and the surfaces built on ``step``: ``partial_fit`` / ``fit`` (one pass in
    the given order; any split of a stream gives the model of one pass), ``learn_one`` / ``predict_one`` /
    ``decision_one`` (one example at a time, dict input too) and ``predict`` / ``score``.

    A subclass gives ``bind(X)`` (keep the rows ``step`` refers to), ``_source_for(X)`` (the rows in the form its
    scoring reads), ``step`` and ``decision_function``; :class:`OnlineKernelLearner` does it for a kernel
    expansion on the shared SV pool.  The defaults say "no support vectors, no kernel evaluations"."""

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self.src = None             # the bound rows (a RowSource, or what the subclass binds)
        self.t = 0                  # examples seen
        self.n_updates = 0          # examples that changed the model

    # ------------------------------------------------------------------ hooks
    def step(self, i: int, y: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def bind(self, X):  # pragma: no cover - abstract
        """Make the rows of X the ones ``step(i, y)`` refers to; returns them in the learner's form."""
        raise NotImplementedError

    def _source_for(self, X):  # pragma: no cover - abstract
        """X checked and in the form ``decision_function`` and ``step`` read."""
        raise NotImplementedError

    def _model_width(self) -> int:
        """The model's current width (features); 0 before the first example."""
        return 0

    def decision_function(self, X, output: str | None = None) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---------------------------------------------------------------- pickling
    def __getstate__(self):
        """Everything but the bound training data (``src``): a model keeps its SVs (copied rows in the
        pool), never a reference to the data it learned from, so a pickle holds the model only."""
        state = self.__dict__.copy()
        state["src"] = None
        return state

    # --------------------------------------------- learning from arrays (olk.estimators calls these)
    def partial_fit(self, X, y, classes=None):
        """Continue learning: one online pass over (X, y) in the given order, from the current model; returns
        self.  The first call fixes ``classes_`` (any two labels; see :class:`KernelEstimator`), and the width
        ``n_features_in_``.  ``classes`` (scikit-learn's argument) names both labels up front, so a first call
        may hold examples of one class only; later calls may repeat it (it must equal ``classes_``)."""
        if classes is not None:
            if not TASKS[self.task].classifier:
                raise InputError(f"{self.name}.partial_fit: classes= is for classifiers; {self.display} is a "
                                 f"regressor (real-valued targets)")
            c = np.asarray(classes)
            _, found = self._encode_y(c, c.shape[0] if c.ndim else 1, None)
            if self.classes_ is None:
                self._learn(X, y, fresh=False, classes=found)
                return self
            if found.shape != self.classes_.shape or not all(same_label(self.classes_, c).any() for c in found):
                raise InputError(f"classes=({labels_text(found)}) differs from this model's classes_ "
                                 f"({labels_text(self.classes_)}), fixed by its first fit/partial_fit call")
        return self._learn(X, y, fresh=False)

    def fit(self, X, y):
        """Learn from scratch: forget everything learned before (SVs, ``t``, counters, ``classes_``; the RNG is
        re-seeded from ``random_state``, so with an int seed ``fit`` twice equals ``fit`` once), then one
        online pass over (X, y) in the given order; returns self."""
        return self._learn(X, y, fresh=True)

    def _learn(self, X, y, fresh: bool, classes=None):
        # every check happens before the model changes: bad data leaves it as it was
        X = as_data(X)
        check_train_shape(X, empty_ok=not fresh)
        check_finite_X(X)
        y, classes = self._encode_y(y, n_rows(X), classes if classes is not None else
                                    None if fresh else self.classes_)
        if fresh:
            self._reset()
            self.__dict__.pop("n_features_in_", None)
        self.bind(X)
        self._adopt_classes(classes)
        if getattr(self, "n_features_in_", None) is None:
            self.n_features_in_ = n_features(X)
        step = self.step
        for i, yi in enumerate(y.tolist()):
            step(i, yi)
        return self

    # ------------------------------------------------------------- streaming
    def learn_one(self, x, y):
        """Learn from one example: ``x`` a 1-d array, a one-row array or sparse matrix, or a dict
        {feature index: value}; ``y`` a label from ``classes_`` (or ±1 before any fit).  Returns self.

        The same update as the engine's indexed pass: a stream fed one example at a time gives the same
        model as ``partial_fit`` on the whole array (for a fixed ``random_state``).  The width of the
        first example fixes the model's; a wider example later is a one-line DataError."""
        src = self._one_row(x)
        (yv,), classes = self._encode_y(np.asarray([y]), 1, self.classes_ if self.classes_ is not None
                                         else np.array([-1.0, 1.0]))
        self.bind(src)
        if getattr(self, "n_features_in_", None) is None:
            self.n_features_in_ = n_features(src)
        self.step(0, yv)
        self.src = None
        return self

    def decision_one(self, x) -> float:
        """Score f(x) of the output classifier on one example (see :meth:`learn_one` for ``x``)."""
        return float(self.decision_function(self._one_row(x))[0])

    def predict_one(self, x):
        """The predicted label of one example: sign(f(x)) (sign(0) = +1), as a label from ``classes_``; a
        regressor's real-valued output."""
        if TASKS[self.task].labels != "binary":
            return self.decision_one(x)
        pos = self.decision_one(x) >= 0.0
        return (1.0 if pos else -1.0) if self.classes_ is None else self.classes_[int(pos)]

    def _one_row(self, x) -> RowSource:
        if isinstance(x, dict):
            idx = np.fromiter((int(k) for k in x), dtype=np.int64, count=len(x))
            if idx.size and idx.min() < 0:
                raise InputError(f"x: feature index {int(idx.min())} is negative; indices start at 0")
            width = max(int(idx.max()) + 1 if idx.size else 0, self._model_width())
            import scipy.sparse as sp
            x = sp.csr_matrix((np.fromiter(x.values(), dtype=np.float64, count=len(x)), (np.zeros_like(idx), idx)),
                              shape=(1, width))
        elif not issparse(x):
            x = np.asarray(x, dtype=np.float64)
            if x.ndim == 1:
                x = x.reshape(1, -1)
        if n_rows(x) != 1:
            raise InputError(f"x: expected one example, got {n_rows(x)} rows (use partial_fit for several)")
        return self._source_for(x)

    def _reset(self) -> None:
        """Back to the state of a newly made learner with the same kernel, random_state and parameters."""
        type(self).__init__(self, kernel=self.kernels, random_state=self.random_state,
                            **{p.name: getattr(self, p.name) for p in self.params})


class OnlineKernelLearner(OnlineLearner):
    """An online learner whose model is a kernel expansion on the shared Cython SV pool
    (:class:`~olk._core.svpool.SVPool`, made at the first ``bind``): binding data, widening the pool to wider
    rows, the expansion's scores and its fitted attributes.  A learner decides only *what* to add, change or
    remove, which keeps each ``step`` as short as its paper's pseudo-code."""

    widens = True                   # a feature never seen is 0 in every stored SV (SVPool.widen)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self.pool: SVPool | None = None
        self._buf = np.zeros(max(self.n_cols, 1), dtype=np.float64)

    def _model_width(self) -> int:
        return self.pool.n_features if self.pool is not None else 0

    # ------------------------------------------------------------------ data
    def _make_pool(self, n_features: int, sparse: bool) -> SVPool:
        return SVPool(n_features, sparse, col_kernel=self.column_kernels(), **self.kernels.pool_args())

    def bind(self, X) -> RowSource:
        """Make the rows of X (CSR or dense float64) the ones ``step(i, y)`` refers to."""
        if not isinstance(X, RowSource):
            self.kernels.check_data(X)      # views inside the columns, chi2's columns non-negative
        src = X if isinstance(X, RowSource) else RowSource(X)
        if self.pool is None:
            self.pool = self._make_pool(src.n_features, src.sparse)
        elif src.sparse != self.pool.sparse:
            raise InputError("this model was trained on " + ("sparse" if self.pool.sparse else "dense")
                            + " data; pass data in the same layout")
        elif src.n_features > self.pool.n_features:
            self.pool.widen(src.n_features)     # features never seen are 0 in every SV: exact (SVPool.widen)
        self.src = src
        return src

    def _source_for(self, X) -> RowSource:
        check_finite_X(X)
        if not isinstance(X, RowSource):
            if self.pool is not None:
                if self.pool.sparse and not issparse(X):
                    import scipy.sparse as sp
                    X = sp.csr_matrix(np.atleast_2d(X))
                elif not self.pool.sparse and issparse(X):
                    X = X.toarray()
            X = RowSource(X)
        if self.pool is not None and X.n_features > self.pool.n_features:
            # the core runs without bounds checks: a wider row is scored by a pool widened to it (exact: a feature
            # the model never saw is 0 in every SV, SVPool.widen)
            self.pool.widen(X.n_features)
        return X

    # ----------------------------------------------------------- inspection
    @property
    def n_sv(self) -> int:
        """Support vectors of the current (last) classifier."""
        return 0 if self.pool is None else self.pool.n_sv

    @property
    def kernel_evals(self) -> int:
        return 0 if self.pool is None else int(self.pool.n_kernel_evals)

    def fitted_attributes(self) -> dict:
        """``support_vectors_`` (the pool's live SVs, :meth:`SVPool.support_vectors`) and ``dual_coef_``
        (:meth:`_expansion_coefs`), plus ``kernel_weights_`` when :meth:`_kernel_weights` gives them (see
        :meth:`KernelEstimator.fitted_attributes`); nothing before the first example."""
        if self.pool is None:
            return {}
        out = {"support_vectors_": self.pool.support_vectors(), "dual_coef_": self._expansion_coefs()}
        weights = self._kernel_weights()
        if weights is not None:
            out["kernel_weights_"] = np.array(weights, dtype=np.float64)
        return out

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        """A kernel expansion; a multi-kernel learner (``max_kernels > 1``) also has ``kernel_weights_``."""
        return ("support_vectors_", "dual_coef_") + (("kernel_weights_",) if cls.max_kernels > 1 else ())

    def _expansion_coefs(self) -> np.ndarray:
        """(n_sv, n_cols) coefficients of the output functions over the pool's SVs: the stored columns as they
        are.  A learner that keeps a global scale or combines columns into its output overrides it."""
        return self.pool.coefs

    def _kernel_weights(self):
        """A multi-kernel learner's weights of its kernels (kernel order); None: not a multi-kernel model."""
        return None

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """Scores of the output classifier on every row of X."""
        if self.pool is None:
            check_finite_X(X)
            return np.zeros(n_rows(X))
        return self.pool.decision_matrix(self._source_for(X))[:, 0]
