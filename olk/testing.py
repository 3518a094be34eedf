"""The learner contract, run on any learner class: :func:`check_learner` (and ``olk check-learner TARGET``).

A learner of your own -- in your package or a module beside your config (the guide "Write your own learner") --
meets the same contract as olk's: one call checks it, in your tests or from the command line::

    from olk.testing import check_learner
    from mylearner import MarginRandomBudget

    def test_contract():
        check_learner(MarginRandomBudget)          # AssertionError listing every failed check, one line each

    $ olk check-learner mylearner:MarginRandomBudget

The checks, in order (:data:`CHECKS`; each failure is one line ``FAIL <check>: <what differs>``):

``declarations``  name (lower-case identifier), display, params (a tuple of :class:`~olk.algorithms.Param` whose
                  names shadow no member), task, outputs (the choices of an ``output`` parameter), style (colour,
                  marker, line style that the figures can draw), n_cols, max_kernels
``contract``      every member of :class:`olk.algorithms.protocol.Learner` (the base class gives the defaults), and a
                  built learner is an ``OnlineLearner`` / ``BatchLearner``
``determinism``   two learners with the same ``random_state`` on the same rows give the same scores, counters and
                  model bit for bit, even when numpy's and Python's global random state differ between them (a learner
                  must draw from ``self.rng`` only: that is what makes runs identical whatever ``n_jobs``)
``stretches``     (online) ``step_rows`` over stretches of 1, 7, 40, 3 and the rest gives the scores, counters, RNG
                  state and model of ``step`` row by row, bit for bit (the engine's binary pass uses stretches)
``save_load``     ``olk.save`` then ``olk.load`` gives the same decision function bit for bit, and (online) learning on
                  from the loaded model gives the model of one pass
``pickle``        a pickle round trip gives the same decision function
``sklearn``       scikit-learn's own ``check_estimator`` on its estimator (:func:`olk.estimators.estimator_class`)
``river``         (online) River's own checks on its River class (:func:`olk.river.river_class`; needs River)

The data: 300 rows of 5 Gaussian features with a non-linear rule (binary labels ±1, 3 classes for a multi-class
learner, a real target for a regressor); a Gaussian kernel (two for a multi-kernel learner); the learner's defaults,
with ``budget`` set to 20 so that the budget fills and its removals run; ``params`` overrides them.
"""
from __future__ import annotations

import contextlib
import io
import pickle
import random
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .algorithms import registry
from .algorithms.registry import REGISTRY, Param
from .errors import ConfigError

#: the checks, in the order they run
CHECKS = ("declarations", "contract", "determinism", "stretches", "save_load", "pickle", "sklearn", "river")
#: scikit-learn names a parameter must never take
_SKLEARN_NAMES = {"fit", "partial_fit", "predict", "predict_proba", "predict_log_proba", "decision_function", "score",
                  "transform", "fit_transform", "get_params", "set_params", "classes_", "where", "checked"}
#: stretch lengths of the ``stretches`` check (the last one takes the rest)
STRETCHES = (1, 7, 40, 3, 10**9)


@dataclass
class Report:
    """What :func:`check_learner` found: one ``(check, ok, line)`` per check that ran."""

    learner: str
    results: list[tuple[str, bool, str]] = field(default_factory=list)

    @property
    def failures(self) -> list[str]:
        return [f"FAIL {c}: {line}" for c, ok, line in self.results if not ok]

    @property
    def ok(self) -> bool:
        return all(ok for _, ok, _ in self.results)

    def lines(self) -> list[str]:
        return [f"ok   {c}{': ' + line if line else ''}" if ok else f"FAIL {c}: {line}" for c, ok, line in self.results]


class CheckFailed(AssertionError):
    """A check's finding, one line."""


def _line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _bits(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.uint64)


def _first_difference(a, b) -> str:
    a, b = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        return f"shapes {a.shape} and {b.shape}"
    i = int(np.argmax(_bits(a) != _bits(b)))
    return f"first at {i} ({float(a[i])!r} vs {float(b[i])!r})"


def _same(what: str, a, b) -> None:
    if np.shape(a) != np.shape(b) or not np.array_equal(_bits(a), _bits(b)):
        raise CheckFailed(f"{what} differ: {_first_difference(a, b)}")


# ----------------------------------------------------------------------------------------------- the data
def _data(task: str, n: int = 300, seed: int = 11):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    s = X[:, 0] * X[:, 1] + 0.4 * X[:, 2]
    if task == "multiclass":
        y = np.digitize(s, np.quantile(s, [1 / 3, 2 / 3])).astype(np.float64)     # classes 0, 1, 2
    elif task == "regression":
        y = s + 0.1 * rng.normal(size=n)
    else:
        y = np.where(s > 0, 1.0, -1.0)
    return X, y


def _kernel(cls):
    if cls.max_kernels > 1:
        return [{"type": "gaussian", "gamma": g} for g in (0.2, 1.0)]
    return {"type": "gaussian", "gamma": 0.5}


class _Subject:
    """The learner class under check with the parameters, kernel and data of every check."""

    def __init__(self, cls, params: dict | None, seed: int):
        self.cls, self.seed = cls, seed
        own = {p.name for p in cls.params}
        self.params = {"budget": 20} if "budget" in own else {}
        self.params.update(params or {})
        self.kernel = _kernel(cls)
        self.X, self.y = _data(cls.task)
        self.order = np.random.default_rng(2).permutation(self.X.shape[0]).astype(np.int64)

    def make(self, seed: int | None = None):
        return self.cls(kernel=self.kernel, random_state=self.seed if seed is None else seed, **self.params)

    def steps_y(self, model) -> np.ndarray:
        """y as ``step`` takes it (the task's labels), with the learner told its classes."""
        from .tasks import class_indices, task_of
        task = task_of(self.cls)
        if task.labels == "classes":
            y = class_indices(self.y)
            model.expect_classes(int(y.max()) + 1)
            return y
        return np.asarray(self.y, dtype=np.float64)

    def trained(self, seed: int | None = None, global_seed: int = 0):
        """A learner trained on the rows in :attr:`order` (online: step by step; batch: ``fit``), under a given
        global random state; returns (learner, scores or None)."""
        np.random.seed(global_seed)
        random.seed(global_seed)
        m = self.make(seed)
        if self.cls.batch:
            m.fit(self.X, self.y)
            return m, None
        y = self.steps_y(m)
        m.bind(self.X)
        return m, np.array([m.step(int(i), float(y[i])) for i in self.order])


def _state(m) -> tuple:
    return (m.t if hasattr(m, "t") else None, m.n_updates, m.n_sv, m.kernel_evals)


# --------------------------------------------------------------------------------------------- the checks
def _declarations(s: _Subject) -> str:
    from .algorithms.protocol import DECLARATIONS
    from .tasks import TASKS
    cls = s.cls
    if not (isinstance(cls.name, str) and cls.name.isidentifier() and cls.name == cls.name.lower()):
        raise CheckFailed(f"name must be a lower-case identifier such as 'my_learner' (got {cls.name!r})")
    if not (isinstance(cls.display, str) and cls.display.strip()):
        raise CheckFailed(f"display must be a non-empty string, the name tables show (got {cls.display!r})")
    if not (isinstance(cls.params, tuple) and all(isinstance(p, Param) for p in cls.params)):
        raise CheckFailed("params must be a tuple of olk.algorithms.Param")
    names = [p.name for p in cls.params]
    if len(set(names)) != len(names):
        raise CheckFailed(f"a parameter is declared twice: {names}")
    fixed = {k for b in cls.__mro__ for k in vars(b).get("fixed", {})}
    built = s.make()
    reserved = (set(dir(cls)) - fixed) | (set(vars(built)) - set(names)) | set(DECLARATIONS) | _SKLEARN_NAMES
    shadow = [n for n in names if n in reserved]
    if shadow:
        raise CheckFailed(f"parameter name(s) {', '.join(shadow)} shadow a member of the learner (a method or "
                          f"attribute); rename them")
    if cls.task not in TASKS:
        raise CheckFailed(f"task must be one of {', '.join(TASKS)} (got {cls.task!r})")
    output = {p.name: p for p in cls.params}.get("output")
    want = tuple(output.choices) if output is not None else ()
    if tuple(cls.outputs) != want:
        raise CheckFailed(f"outputs must be the choices of the 'output' parameter {want} (got {cls.outputs!r})")
    from .report.plots import style_problem
    problem = style_problem(cls.style)
    if problem:
        raise CheckFailed(problem)
    for attr in ("n_cols", "max_kernels"):
        v = getattr(cls, attr)
        if not (isinstance(v, int) and v >= 1):
            raise CheckFailed(f"{attr} must be an integer >= 1 (got {v!r})")
    defaults = {p.name: p.default for p in cls.params}
    try:
        registry.check_params_of(cls, defaults, cls.name)
    except ConfigError as e:
        raise CheckFailed(f"the declared defaults fail the learner's own checks: {e}") from None
    return ""


def _contract(s: _Subject) -> str:
    from .algorithms.protocol import BatchLearner, OnlineLearner, missing_members
    missing = missing_members(s.cls)
    if missing:
        raise CheckFailed(f"members of the learner contract missing: {', '.join(missing)} (subclass "
                          f"olk.algorithms.OnlineKernelLearner, which gives every default)")
    m = s.make()
    kind = BatchLearner if s.cls.batch else OnlineLearner
    if not isinstance(m, kind):
        raise CheckFailed(f"a built learner is not an olk.algorithms.protocol.{kind.__name__}")
    return ""


def _determinism(s: _Subject) -> str:
    a, fa = s.trained(global_seed=1)
    b, fb = s.trained(global_seed=2)
    if fa is not None:
        _same("the scores of two runs with the same random_state (and different global numpy/random states)", fa, fb)
    if _state(a) != _state(b):
        raise CheckFailed(f"the counters (t, n_updates, n_sv, kernel_evals) of two runs with the same random_state "
                          f"differ: {_state(a)} vs {_state(b)}")
    _same("the decision functions of two runs with the same random_state", a.decision_function(s.X),
          b.decision_function(s.X))
    return "two runs with the same random_state are identical bit for bit"


def _stretches(s: _Subject) -> str:
    if s.cls.batch:
        return "n/a (batch learner)"
    a, fa = s.trained()
    b = s.make()
    y = s.steps_y(b)
    b.bind(s.X)
    fb = np.empty(s.order.shape[0])
    at = 0
    for size in STRETCHES:
        rows = s.order[at:at + size]
        if rows.shape[0] == 0:
            break
        b.step_rows(rows, y[rows], fb[at:at + rows.shape[0]])
        at += rows.shape[0]
    _same("the scores of step_rows (stretches of 1, 7, 40, 3, rest) and of step row by row", fa, fb)
    if _state(a) != _state(b):
        raise CheckFailed(f"the counters (t, n_updates, n_sv, kernel_evals) after step_rows {_state(b)} differ from "
                          f"step's {_state(a)}")
    if a.rng.bit_generator.state != b.rng.bit_generator.state:
        raise CheckFailed("the RNG state after step_rows differs from step's: step_rows must draw exactly what "
                          "step draws")
    _same("the decision functions after step_rows and after step", a.decision_function(s.X), b.decision_function(s.X))
    return ""


def _save_load(s: _Subject) -> str:
    import olk
    m, _ = s.trained()
    with tempfile.TemporaryDirectory(prefix="olk-check-") as tmp:
        path = Path(tmp) / "model.olk"
        olk.save(m, path)
        back = olk.load(path)
    _same("the decision functions before olk.save and after olk.load", m.decision_function(s.X),
          back.decision_function(s.X))
    if s.cls.batch:
        return ""
    # learning on: the first half, saved and loaded, then the second half == one pass over both
    half = s.X.shape[0] // 2
    one = s.make().partial_fit(s.X, s.y)
    first = s.make().partial_fit(s.X[:half], s.y[:half])
    with tempfile.TemporaryDirectory(prefix="olk-check-") as tmp:
        path = Path(tmp) / "half.olk"
        olk.save(first, path)
        resumed = olk.load(path).partial_fit(s.X[half:], s.y[half:])
    _same("the model of one pass and of a pass saved, loaded and continued (partial_fit)",
          one.decision_function(s.X), resumed.decision_function(s.X))
    return ""


def _pickle(s: _Subject) -> str:
    m, _ = s.trained()
    back = pickle.loads(pickle.dumps(m))
    _same("the decision functions before and after a pickle round trip", m.decision_function(s.X),
          back.decision_function(s.X))
    return ""


def _sklearn(s: _Subject) -> str:
    from sklearn.utils.estimator_checks import check_estimator

    from .estimators import estimator_class
    est = estimator_class(s.cls.name)(random_state=0, **s.params)
    failed: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None, on_skip=None)
    for r in results:
        if r["status"] == "failed":
            failed.append(f"{r['check_name']}: {type(r['exception']).__name__}: {r['exception']}")
    if failed:
        raise CheckFailed(f"{len(failed)} of scikit-learn's checks on olk.estimators."
                          f"{type(est).__name__} failed; first: {_line(failed[0], 200)}")
    return f"{sum(r['status'] == 'passed' for r in results)} of scikit-learn's checks passed"


def _river(s: _Subject) -> str:
    if s.cls.batch:
        return "n/a (batch learner)"
    try:
        from river.checks import yield_checks
    except ImportError:
        return "skipped: River is not installed (pip install river)"
    from .river import river_class
    model = river_class(s.cls.name)(seed=0, **s.params)
    failed, passed = [], 0
    for check in yield_checks(model):
        if check.__name__ in model._unit_test_skips():
            continue
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                check(model.clone())
            passed += 1
        except Exception as e:          # noqa: BLE001 - a check's failure, reported in one line
            failed.append(f"{getattr(check, '__name__', check)}: {type(e).__name__}: {e}")
    if failed:
        raise CheckFailed(f"{len(failed)} of River's checks on olk.river.{type(model).__name__} failed; first: "
                          f"{_line(failed[0], 200)}")
    return f"{passed} of River's checks passed"


_RUN: dict[str, Callable[[_Subject], str]] = {
    "declarations": _declarations, "contract": _contract, "determinism": _determinism, "stretches": _stretches,
    "save_load": _save_load, "pickle": _pickle, "sklearn": _sklearn, "river": _river}


def _resolve(learner) -> Any:
    """A learner class, a registry name, or 'module:Class' / 'module' (imported as a plugin)."""
    if isinstance(learner, type):
        if not REGISTRY.holds(learner):
            registry.register(learner)
        return learner
    text = str(learner)
    if text.replace("_", "").replace("-", "").isalnum() and ":" not in text:
        try:
            return registry.get(text)
        except ConfigError:
            pass
    names = registry.load_plugin(text, Path.cwd(), where=f"check-learner {text}")
    if len(names) != 1:
        raise ConfigError(f"check-learner {text}: the module registers {len(names)} learners ({', '.join(names)}); "
                          f"name one as MODULE:CLASS or by its registry name")
    return REGISTRY[names[0]]


def run_checks(learner, params: dict | None = None, *, skip=(), seed: int = 0) -> Report:
    """Every check of :data:`CHECKS` (but those in `skip`) on `learner` (a class, a registry name, or 'module:Class');
    returns the :class:`Report` (the checks after a failure still run)."""
    cls = _resolve(learner)
    bad = [c for c in skip if c not in CHECKS]
    if bad:
        raise ConfigError(f"--skip {','.join(bad)}: not a check; the checks are {', '.join(CHECKS)}")
    report = Report(cls.name)
    try:
        subject = _Subject(cls, params, seed)
    except ConfigError as e:
        report.results.append(("declarations", False, f"the learner cannot be built with these parameters: {e}"))
        return report
    for name in CHECKS:
        if name in skip:
            continue
        try:
            report.results.append((name, True, _RUN[name](subject)))
        except CheckFailed as e:
            report.results.append((name, False, _line(str(e))))
        except Exception as e:          # noqa: BLE001 - the learner's own error: the check fails, in one line
            report.results.append((name, False, _line(f"raised {type(e).__name__}: {e}")))
    return report


def check_learner(learner, params: dict | None = None, *, skip=(), seed: int = 0) -> Report:
    """Run the learner contract (:data:`CHECKS`) on `learner`: a learner class (registered now if it is not yet), a
    registry name, or 'module:Class'.  Raises an AssertionError listing every failed check, one line each; returns
    the :class:`Report` when all pass.  ``params`` overrides the learner's defaults; ``skip`` names checks to
    leave out (e.g. ``skip=("river",)``)."""
    report = run_checks(learner, params, skip=skip, seed=seed)
    if not report.ok:
        raise AssertionError(f"{report.learner} fails {len(report.failures)} check(s) of the learner contract:\n"
                             + "\n".join(report.failures))
    return report
