"""The root of olk's learners and the kernel expansion on the shared SV pool.

A learner is the paper's algorithm: it learns one example at a time and can predict at any point:

    model = make("spa", kernel={"type": "gaussian", "gamma": 0.4}, beta=20)
    src = model.bind(X)              # typed view of the data rows (CSR or dense)
    for i in order:
        score = model.step(i, y[i])  # online prediction score f(x_i) *before* the update, then update

``step`` returns the score that the online protocol predicts with (sign(score), with sign(0) = +1);
the experiment engine, not the learner, counts mistakes and keeps learning curves.  The array surface built on
``step`` (``fit`` / ``partial_fit`` / ``predict`` / ``score`` / ``learn_one`` ..., what scikit-learn and River
users call) is one class in one place, :class:`~olk.algorithms.common.arrays.ArrayAPI`.

* :class:`KernelEstimator`: the root of every learner (online or batch): its declarations, kernel(s), RNG,
  hyper-parameters, counters and the protocol's hooks with their defaults;
* :class:`KernelExpansion`: a model that is a kernel expansion on the shared Cython
  :class:`~olk._core.svpool.SVPool` (binding data, widening, scores, fitted attributes), online or batch;
* :class:`OnlineKernelLearner`: an online kernel expansion, the base of most learners.

The classes are shallow on purpose (a registered learner is at most four classes deep:
tests/test_learner_contract.py): what a family shares is its core, what several families share a mixin here.

Writing a new learner: read ``olk/algorithms/DEVELOPING.md`` first (API, rules, tests).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.svpool import RowSource, SVPool
from ..._lazy import issparse
from ...errors import ConfigError
from ...kernels import KernelSet
from ..registry import EXACT, Checked, Param, check_params_of
from .arrays import ArrayAPI
from .inputs import InputError, check_finite_X, n_rows


class KernelEstimator:
    """The root of every registered learner, online or batch: registry metadata (the declarations of
    :mod:`olk.algorithms.protocol`), the kernel, the RNG, the hyper-parameters (one attribute per ``Param``,
    checked by the registry), the counters ``t`` / ``n_updates``, the protocol's hooks and ``repr``.

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

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    name = "base"
    display = "Base"
    params: tuple[Param, ...] = ()
    aliases: tuple = ()
    #: the task protocol it is run and scored with (a key of ``olk.tasks.TASKS``): "binary" (the
    #: default), "probabilistic" (the KLR learners, via :class:`~olk.algorithms.logistic.LogisticOutput`),
    #: "multiclass" (:mod:`olk.algorithms.multiclass`) or "regression"
    task = "binary"
    #: the named output classifiers it offers, e.g. ("avg", "last") for SPA and OSKL: exactly the choices of
    #: its ``output`` parameter, which picks the default one; () = a single output classifier, no parameter
    outputs: tuple[str, ...] = ()
    #: (colour, marker, line style) of its lines and points in plots: a colour named in olk.report.plots.PALETTE,
    #: a matplotlib marker and line style; every registered learner declares its own triple (tests/
    #: test_registry_declarations.py); None = the report picks a free fallback style
    style: tuple[str, str, str] | None = None
    #: the kernel when none is given (a spec :meth:`~olk.kernels.KernelSet.of` reads, e.g. a preset name for a
    #: multi-kernel learner whose paper fixes its dictionary); None: Gaussian with gamma = 1 (olk.kernels.Kernel())
    default_kernel: Any = None
    n_cols = 1                      # coefficient columns per SV (SPA uses 2 for its exact average)
    max_kernels = 1                 # how many kernels it learns with at once (a multi-kernel learner: more)
    stochastic = False              # uses its RNG (so results depend on the run's algorithm seed)
    batch = False                   # batch learners (base_batch.BatchKernelLearner) are trained with fit()
    order_free = False              # result does not depend on the order of the training rows
    reproducibility = EXACT         # what ``olk regress`` demands across machines (registry.Reproducibility)
    #: {old parameter name: (new name, when)}: the registry answers an old name with a one-line "renamed" error
    renamed: dict = {}
    #: {name: value}: parameters of its family's core that this learner fixes instead of taking them (OMKC(U):
    #: ``discount`` 1 and the Perceptron).  The learner reads them as attributes, like its parameters; a class
    #: (or a mixin) declares its own and inherits its bases'; a name it takes as a ``Param`` stays the parameter
    #: (tests/test_registry_declarations.py)
    fixed: dict = {}
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

    def __init_subclass__(cls, **kwargs):
        """The ``fixed`` values of the class and its bases become class attributes, read like parameters."""
        super().__init_subclass__(**kwargs)
        own = {p.name for p in cls.params}
        for base in reversed(cls.__mro__):
            for k, v in vars(base).get("fixed", {}).items():
                if k not in own:
                    setattr(cls, k, v)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", checked: Checked | None = None,
                 **params):
        if checked is None:
            params = check_params_of(type(self), params, where)   # the user's values: checked here
        elif params or checked.cls is not type(self):
            raise TypeError(f"{type(self).__name__}: checked= holds the parameters of {checked.cls.__name__}, "
                            f"and no others may be given with it")
        else:
            params = checked                                        # a run spec's: checked by the planner
        # one kernel, or several for a multi-kernel learner
        self.kernels = KernelSet.of(self.default_kernel if kernel is None else kernel, "kernel")
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
        self.src = None             # the bound rows (a RowSource, or what the learner binds)
        self.t = 0                  # examples seen (a batch solver: its iterations)
        self.n_updates = 0          # examples that changed the model

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

    def run_summary(self) -> dict:
        """Learner-specific facts an experiment records with each run, after its online pass or batch fit: a dict of
        JSON-able values (e.g. a multi-kernel learner's final kernel weights).  The task protocol stores it
        as the record's ``summary``; ``runs.csv`` gets one column per key (lists as JSON).  Default: none."""
        return {}

    @classmethod
    def check_params(cls, p: dict, where: str) -> None:
        """Cross-parameter checks (single-parameter ranges live in each Param)."""

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

    @property
    def model_size(self) -> int:
        """The size of the model's expansion: the #SV of its output (a random-feature model: its D features)."""
        return self.n_sv_output

    def model_values(self) -> int:
        """How many numbers the model keeps to predict (the canon bench's memory column): none unless it stores
        some."""
        return 0

    # ------------------------------------------------------------------ the paper protocol (hooks)
    def step(self, i: int, y: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def step_rows(self, rows: np.ndarray, ys: np.ndarray, out: np.ndarray) -> None:
        """``out[k] = step(rows[k], ys[k])`` for k = 0, 1, ... in order (rows: int64, ys and out: float64, one
        dimension): how the engine's binary pass hands a learner its rows, a stretch at a time.  A learner with a
        compiled loop overrides it with the very operations of its ``step`` (same scores, same state, bit for
        bit: each such learner's test holds the two equal); this default is the loop over ``step``."""
        step = self.step
        out[:rows.shape[0]] = [step(i, yi) for i, yi in zip(rows.tolist(), ys.tolist())]

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

    def __repr__(self):
        ps = ", ".join(f"{k}={v!r}" for k, v in self.hyperparams.items())
        return f"{type(self).__name__}(kernel={self.kernels.label()}{', ' if ps else ''}{ps})"




class KernelExpansion:
    """Mixin (list it before the root): a model that is a kernel expansion on the shared Cython SV pool
    (:class:`~olk._core.svpool.SVPool`, made at the first ``bind``): binding data, widening the pool to wider
    rows, the expansion's scores (column 0: :meth:`_pool_scores`) and its fitted attributes.  Online learners
    (:class:`OnlineKernelLearner`) and the pooled batch solvers (Pegasos, the batch KLR solvers) share it.  A
    learner decides only *what* to add, change or remove, which keeps each ``step`` as short as its paper's
    pseudo-code."""

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    #: the shared Cython SV pool (an :class:`~olk._core.svpool.SVPool`, untyped for mypy), None before the first
    #: ``bind``; a learner's ``step`` runs after ``bind``, so it reads the pool as made
    max_kernels: int                # declared by the root (KernelEstimator)
    n_cols: int
    pool: Any
    widens = True                   # a feature never seen is 0 in every stored SV (SVPool.widen)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)  # type: ignore[call-arg]  # the next base
        self.pool = None            # the SVPool, made at the first bind
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
        if isinstance(X, RowSource) and self.pool is not None and X.sparse != self.pool.sparse:
            raise InputError("this model was trained on " + ("sparse" if self.pool.sparse else "dense")
                             + " data; pass data in the same layout")
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

    def model_values(self) -> int:
        """The stored SVs' non-zeros and their coefficients (every column: SPA's averaged output keeps two)."""
        return 0 if self.pool is None else int(self.pool.nnz() + np.asarray(self.pool.coefs).size)

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

    def _pool_scores(self, X) -> np.ndarray:
        """sum_s coef_s k(sv_s, x) (pool column 0) for every row of X; zeros before the first example."""
        if self.pool is None:
            check_finite_X(X)
            return np.zeros(n_rows(X))
        return self.pool.decision_matrix(self._source_for(X))[:, 0]

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """Scores of the output classifier on every row of X (pool column 0)."""
        return self._pool_scores(X)


class OnlineKernelLearner(KernelExpansion, ArrayAPI, KernelEstimator):
    """An online learner whose model is a kernel expansion on the shared SV pool (:class:`KernelExpansion`),
    with the array surface built on its ``step`` (:class:`~olk.algorithms.common.arrays.ArrayAPI`).  A
    learner gives ``step`` (and ``decision_function`` when its output is not pool column 0)."""
