"""The learner contract: every member the experiment engine, the CLI, the estimators and the report may use.

One written contract instead of probing: outside ``olk/algorithms/`` nothing asks a learner ``hasattr`` /
``getattr(..., default)``; it reads the members declared here, and the base class
(:class:`~olk.algorithms.base.KernelEstimator`) gives every one of them its default, so a learner states only
what differs.  ``tests/test_learner_contract.py`` checks every registered class against :class:`Learner`.

Declarations (class attributes, read without building the learner):

=====================  =====================================================================================
``name``, ``display``  registry id and the paper's name
``params``             its hyper-parameters (:class:`~olk.algorithms.registry.Param`), checked once
``task``               ``"binary"``, ``"probabilistic"``, ``"multiclass"`` or ``"regression"`` (:data:`olk.tasks.TASKS`)
``outputs``            the named output classifiers (``("avg", "last")``) = the choices of its ``output``
``style``              (colour, marker) in every plot
``n_cols``             coefficient columns per support vector
``max_kernels``        how many kernels it learns with at once
``stochastic``         it draws from its RNG (its results depend on the run's algorithm seed)
``batch``              trained by one ``fit(X, y, order)`` call, not by ``step``
``order_free``         a batch result that does not depend on the row order (the engine runs it once)
``reports_progress``   a batch solver that calls ``probe()`` after each outer iteration (held-out curves)
``reproducibility``    what ``olk regress`` demands of it across machines
``sparse_input``       takes scipy-sparse X
``structural_params``  parameters that fix the model's structure (a new value restarts it)
``kernel_ground_truth``  it trains on one kernel of a set given in advance (no selection): its runs over every
                       kernel are the ground truth the kernel-selection figure marks each method's choices on
``widens``             takes rows wider than the data it learned from (a feature it never saw is 0 in
                       everything it stored: the SV pool widens, ``SVPool.widen``); False: the width of the
                       first data it learns from is fixed (random features, LIBSVM's solver)
=====================  =====================================================================================

State and methods of a built learner are listed on :class:`Learner` below; an online learner
(:class:`OnlineLearner`) adds ``bind`` + ``step``, a batch learner (:class:`BatchLearner`) ``fit(X, y, order,
probe)``.  The engine picks the protocol by the ``batch`` declaration.
"""
from __future__ import annotations

from typing import Any, ClassVar, Generic, Optional, Protocol, runtime_checkable

#: the class-level declarations every registered learner has (defaults in ``KernelEstimator``)
DECLARATIONS = ("name", "display", "params", "task", "outputs", "style", "n_cols", "max_kernels", "stochastic",
                "batch", "order_free", "reports_progress", "reproducibility", "sparse_input", "structural_params",
                "kernel_ground_truth", "widens")


@runtime_checkable
class Learner(Protocol):
    """What a registered learner offers its callers (the engine's online protocol, batch ``fit``, scoring,
    memory planning, the report)."""

    name: ClassVar[str]
    display: ClassVar[str]
    params: ClassVar[tuple]
    task: ClassVar[str]
    outputs: ClassVar[tuple]
    style: ClassVar[Optional[tuple]]
    n_cols: ClassVar[int]
    max_kernels: ClassVar[int]
    stochastic: ClassVar[bool]
    batch: ClassVar[bool]
    order_free: ClassVar[bool]
    reports_progress: ClassVar[bool]
    reproducibility: ClassVar[Any]
    sparse_input: ClassVar[bool]
    structural_params: ClassVar[tuple]
    kernel_ground_truth: ClassVar[bool]
    widens: ClassVar[bool]

    # ----------------------------------------------------------------- state after learning
    n_updates: int
    #: an active learner's count of labels it asked for (None: it uses every label)
    n_labels: Optional[int]

    @property
    def n_sv(self) -> int: ...                    # support vectors of the current classifier

    @property
    def n_sv_output(self) -> int: ...             # ... of the classifier used for prediction

    @property
    def kernel_evals(self) -> int: ...

    @property
    def model_size(self) -> int: ...              # #SV of the output, or a random-feature model's D

    def model_values(self) -> int: ...            # numbers the model keeps to predict (bench)

    # ----------------------------------------------------------------- scoring and facts
    def decision_function(self, X, output: Optional[str] = None) -> Any: ...

    def run_summary(self) -> dict: ...

    def expect_classes(self, n_classes: int) -> None: ...   # the multiclass task: labels 0..n_classes-1 follow

    def fitted_attributes(self) -> dict: ...

    @classmethod
    def fitted_names(cls) -> tuple: ...

    @classmethod
    def memory_max_sv(cls, params: dict, n_train: int) -> int: ...

    @classmethod
    def memory_extra(cls, params: dict, n_train: int, n_features: int, n_kernels: int) -> int: ...


@runtime_checkable
class OnlineLearner(Learner, Protocol):
    """A learner the engine runs online (``batch = False``): ``bind`` the data once, then ``step`` each row (the
    binary pass: ``step_rows`` over a stretch of rows, by default the loop over ``step``)."""

    def bind(self, X) -> Any: ...                 # make X's rows the ones step(i, y) refers to

    def step(self, i: int, y: float) -> float: ...    # the score it predicts with, before the update; then learn

    def step_rows(self, rows: Any, ys: Any, out: Any) -> None: ...   # out[k] = step(rows[k], ys[k]), k in order


@runtime_checkable
class BatchLearner(Learner, Protocol):
    """A learner trained by one call (``batch = True``); ``probe()`` is called after each outer iteration when
    the class declares ``reports_progress``."""

    def fit(self, X, y, order=None, probe=None) -> Any: ...


def members(cls) -> set[str]:
    """Every member the contract asks of learner class `cls` (:class:`BatchLearner`'s or
    :class:`OnlineLearner`'s, by its ``batch`` declaration)."""
    proto = BatchLearner if getattr(cls, "batch", False) else OnlineLearner
    names = {n for p in proto.__mro__ if p not in (object, Protocol, Generic) for n in vars(p)
             if not n.startswith("_")}
    return set(DECLARATIONS) | names | {"n_updates", "n_labels"}


def missing_members(cls) -> list[str]:
    """The members of the contract that learner class `cls` lacks (empty for a conforming learner)."""
    return sorted(m for m in members(cls) if not hasattr(cls, m))


__all__ = ["Learner", "OnlineLearner", "BatchLearner", "DECLARATIONS", "members", "missing_members"]
