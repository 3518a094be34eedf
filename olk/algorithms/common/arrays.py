"""The array API of every learner, in one place: what scikit-learn and River users call, built on the paper's
protocol (``bind`` + ``step``, ``decision_function``) that each learner implements.

* learning from arrays: ``fit`` (from scratch) and ``partial_fit`` (continue) for an online learner: one pass of
  ``step`` over the rows in their order, after every check (a bad X or y leaves the model as it was); a batch
  learner's own ``fit(X, y, order=None)`` gets the same surface (``as_data``, ``n_features_in_``);
* one example at a time: ``learn_one`` / ``predict_one`` / ``decision_one`` (dict rows too; River's
  :mod:`olk.river` calls them);
* labels: any two labels (numbers, strings, booleans) mapped to ±1 and kept in ``classes_``
  (:meth:`ArrayAPI._encode_y`; the multi-class learners map K labels to class indices);
* ``predict`` (labels of ``classes_``, or a regressor's value), ``score`` (scikit-learn's accuracy or R^2);
* ``get_params`` / ``set_params``: the constructor's arguments, checked by the registry like the constructor.

The scikit-learn estimators (:mod:`olk.estimators`) add scikit-learn's own contract on top (``validate_data``,
parameters stored by ``__init__``, tags) and call these methods; nothing here is implemented twice.

Labels.  The learners work with y in {-1, +1}.  ``fit`` / ``partial_fit`` also accept any two labels: the first of
the two in sorted order becomes -1, the second +1, and both are kept in ``classes_`` (a numpy array of the two
original labels); ``predict`` returns them.  The first ``partial_fit`` call fixes ``classes_``; later calls must
use labels from it.  A first call with only one distinct label is accepted only if that label is -1 or +1 (then
``classes_ = [-1, 1]``), since one label alone does not say which class it is.  More than two labels, a label
outside ``classes_`` or a NaN/inf anywhere in X or y is a one-line :class:`~olk.errors.DataError`.  The
experiment engine's ``bind`` + ``step(i, y)`` path takes ±1 labels as they are (the data layer has checked them)
and never sets ``classes_``; without ``classes_``, ``predict`` returns ±1.

>>> import numpy as np
>>> from olk.algorithms import make
>>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0]])
>>> m = make("perceptron", kernel="linear").fit(X, ["no", "yes", "no", "yes"])
>>> m.classes_.tolist(), m.predict(X).tolist(), m.score(X, ["no", "yes", "no", "yes"])
(['no', 'yes'], ['no', 'yes', 'no', 'yes'], 1.0)
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.svpool import RowSource
from ..._lazy import issparse
from ...errors import ConfigError
from ...kernels import KernelSet
from ...tasks import TASKS, step_stretches
from ..registry import check_params_of
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


class online_only:
    """Decorator: a method of the online learners only.  A batch learner (``batch = True``) does not have it
    (``hasattr`` is False, as for a method it never defined): it learns with ``fit`` alone."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        cls = owner if owner is not None else type(obj)
        if getattr(cls, "batch", False):
            raise AttributeError(f"{cls.__name__} is a batch learner: it has no {self.name} (it learns with fit)")
        return self.fn if obj is None else self.fn.__get__(obj, cls)


class ArrayAPI:
    """Mixin of every learner kind (:class:`~olk.algorithms.common.learner.OnlineKernelLearner`, the random-feature
    and batch bases): the array API above, on top of the learner's ``bind`` / ``step`` / ``decision_function`` /
    ``fit`` (batch) and its hooks ``_adopt_classes`` / ``_params_changed``."""

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    def __init_subclass__(cls, **kwargs):
        """A batch learner's own ``fit(X, y, order=None, ...)`` gets the array surface around it: X given as a list
        of rows (or a DataFrame) is read through ``np.asarray`` first, and a successful fit sets
        ``n_features_in_`` (the width of X; a failed one leaves the model without it)."""
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and cls.batch and not getattr(fit, "_array_surface", False):
            @functools.wraps(fit)
            def fit_with_surface(self, X, y, *args, **kw):
                X = as_data(X)
                check_train_shape(X)
                self.__dict__.pop("n_features_in_", None)
                fit(self, X, y, *args, **kw)
                self.n_features_in_ = n_features(X)
                return self
            fit_with_surface._array_surface = True
            cls.fit = fit_with_surface

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
        self.hyperparams = dict(merged)
        if changed:
            self._params_changed(changed)
        return self

    def predict(self, X, output: str | None = None) -> np.ndarray:
        """A classifier: sign(f(x)) with sign(0) = +1, as the original labels ``classes_`` (±1 floats before any
        fit).  A regressor (``task = "regression"``): its real-valued output f(x)."""
        if TASKS[self.task].labels != "binary":
            return self.decision_function(X, output=output)
        pos = self.decision_function(X, output=output) >= 0
        if self.classes_ is None:
            return np.where(pos, 1.0, -1.0)
        return self.classes_[pos.astype(np.intp)]

    def score(self, X, y) -> float:
        """scikit-learn's score of ``predict(X)`` against ``y``: mean accuracy for a classifier, R^2 for a regressor
        (the same functions the estimators' ``score`` uses)."""
        from sklearn.metrics import accuracy_score, r2_score
        if TASKS[self.task].classifier:
            return float(accuracy_score(np.asarray(y), self.predict(X)))
        return float(r2_score(np.asarray(y, dtype=np.float64), self.predict(X)))

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

    # --------------------------------------------- learning from arrays (olk.estimators calls these)
    @online_only
    def partial_fit(self, X, y, classes=None, scores=None):
        """Continue learning: one online pass over (X, y) in the given order, from the current model; returns
        self.  The first call fixes ``classes_`` (any two labels; see the module docstring), and the width
        ``n_features_in_``.  ``classes`` (scikit-learn's argument) names both labels up front, so a first call
        may hold examples of one class only; later calls may repeat it (it must equal ``classes_``).  ``scores``
        (see :meth:`fit`) receives each example's score before it was learned."""
        if classes is not None:
            if not TASKS[self.task].classifier:
                raise InputError(f"{self.name}.partial_fit: classes= is for classifiers; {self.display} is a "
                                 f"regressor (real-valued targets)")
            c = np.asarray(classes)
            _, found = self._encode_y(c, c.shape[0] if c.ndim else 1, None)
            if self.classes_ is None:
                self._learn(X, y, fresh=False, classes=found, scores=scores)
                return self
            if found.shape != self.classes_.shape or not all(same_label(self.classes_, c).any() for c in found):
                raise InputError(f"classes=({labels_text(found)}) differs from this model's classes_ "
                                 f"({labels_text(self.classes_)}), fixed by its first fit/partial_fit call")
        return self._learn(X, y, fresh=False, scores=scores)

    def fit(self, X, y, order=None, scores=None):
        """Learn from scratch: forget everything learned before (SVs, ``t``, counters, ``classes_``; the RNG is
        re-seeded from ``random_state``, so with an int seed ``fit`` twice equals ``fit`` once), then one
        online pass over (X, y) in the given order, or over the rows ``order`` (row indices in the order to
        learn them, repeats allowed: several epochs are one pass over their concatenated orders, as the engine
        passes over a permutation; the scikit-learn estimators' ``shuffle`` / ``n_epochs``); returns self.
        ``scores``: None, or a float64 array with one entry per example of the pass that receives the score the
        example was predicted with before it was learned (what ``step`` returns: the online protocol's f_t(x_t)),
        for a classifier of one score (task ``binary`` or ``probabilistic``; the scikit-learn estimators fit their
        probability map on it)."""
        return self._learn(X, y, fresh=True, order=order, scores=scores)

    def _learn(self, X, y, fresh: bool, classes=None, order=None, scores=None):
        # every check happens before the model changes: bad data leaves it as it was
        X = as_data(X)
        check_train_shape(X, empty_ok=not fresh)
        check_finite_X(X)
        y, classes = self._encode_y(y, n_rows(X), classes if classes is not None else
                                    None if fresh else self.classes_)
        n = y.shape[0]
        if order is not None:
            order = np.asarray(order)
            if order.ndim != 1 or (order.size and (order.dtype.kind not in "iu" or order.min() < 0
                                                   or order.max() >= n)):
                raise InputError(f"{self.name}.fit: order must be a 1-d array of row indices in [0, {n})")
            order = np.ascontiguousarray(order, dtype=np.int64)
        if scores is not None and (self.task not in ("binary", "probabilistic") or not isinstance(scores, np.ndarray)
                                   or scores.shape != (
                n if order is None else order.shape[0],) or scores.dtype != np.float64):
            raise InputError(f"{self.name}.fit: scores must be a float64 array of one entry per example of the pass, "
                             f"for a classifier of one score (task binary or probabilistic)")
        if fresh:
            self._reset()
            self.__dict__.pop("n_features_in_", None)
        self.bind(X)
        self._adopt_classes(classes)
        if getattr(self, "n_features_in_", None) is None:
            self.n_features_in_ = n_features(X)
        if self.task == "binary":           # the rows in stretches through step_rows(), as the engine's binary pass
            rows = np.arange(n, dtype=np.int64) if order is None else order
            for b, _, f in step_stretches(self, np.ascontiguousarray(y, dtype=np.float64), rows, [rows.shape[0]]):
                if scores is not None:
                    scores[b - f.shape[0]:b] = f
            return self
        step = self.step
        if scores is not None:
            ys = y.tolist()
            for k, i in enumerate(range(n) if order is None else order.tolist()):
                scores[k] = step(i, ys[i])
            return self
        if order is None:
            for i, yi in enumerate(y.tolist()):
                step(i, yi)
            return self
        ys = y.tolist()
        for i in order.tolist():
            step(i, ys[i])
        return self

    # ------------------------------------------------------------- streaming
    @online_only
    def learn_one(self, x, y):
        """Learn from one example: ``x`` a 1-d array, a one-row array or sparse matrix, or a dict
        {feature index: value}; ``y`` a label from ``classes_`` (or ±1 before any fit).  Returns self.

        The same update as the engine's indexed pass: a stream fed one example at a time gives the same
        model as ``partial_fit`` on the whole array (for a fixed ``random_state``).  The width of the
        first example fixes the model's; a wider example later is a one-line DataError."""
        src = self._one_row(x)
        (yv,), classes = self._encode_y(np.asarray([y]), 1, self.classes_ if self.classes_ is not None
                                         else np.array([-1.0, 1.0]))
        self.learn_row(src, float(yv))          # a Python float, as the indexed pass's y.tolist()
        return self

    def learn_row(self, src, yv):
        """The update of :meth:`learn_one` on one row already checked (a one-row RowSource) with its label already
        encoded (the task's value: ±1 for a binary classifier): bind, fix the width at the first row, step.  For a
        caller that has checked both itself (the River surface's fast path, olk/river.py)."""
        self.bind(src)
        if getattr(self, "n_features_in_", None) is None:
            self.n_features_in_ = n_features(src)
        self.step(0, yv)
        self.src = None

    @online_only
    def decision_one(self, x) -> float:
        """Score f(x) of the output classifier on one example (see :meth:`learn_one` for ``x``)."""
        return float(self.decision_function(self._one_row(x))[0])

    @online_only
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
        type(self).__init__(self, kernel=self.kernels, random_state=self.random_state,  # type: ignore[call-arg]
                            **{p.name: getattr(self, p.name) for p in self.params})


