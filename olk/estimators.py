"""scikit-learn estimators for every registered olk learner, generated from the registry.

One estimator class per learner, a thin class over it (as scikit-learn's ``SGDClassifier`` is over
``_sgd_fast``), named by olk's one rule (:func:`olk.algorithms.surface.surface_class_name`; its River class in
:mod:`olk.river` has the same name): the learner class name plus ``Classifier`` (task ``binary`` /
``probabilistic`` / ``multiclass``) or ``Regressor`` (task ``regression``; a trailing ``Regression`` of the
learner's name is dropped), e.g. :class:`SPAClassifier`, :class:`RakerRegressor`, :class:`KernelOGDRegressor`.
:func:`estimator` builds one by registry name (``olk.estimator("spa", beta=20)``) and :data:`by_name` maps every
registry name to its class.

The contract is scikit-learn's, strictly:

* ``__init__(self, kernel=None, random_state=None, <every parameter of the learner with its registry default>,
  shuffle=True, n_epochs=1)`` (the last two for an online learner: :func:`order_params`) stores its arguments and
  nothing else; ``get_params`` / ``set_params`` are scikit-learn's own.  Parameters are
  checked by the registry when ``fit`` / ``partial_fit`` builds the learner: a bad value is a one-line
  ``ValueError`` (:class:`~olk.algorithms.base.ParamError`).
* ``fit(X, y)`` validates X and y (``sklearn.utils.validation.validate_data``: 2-d, float64, finite, CSR unless
  the learner takes dense X only), builds the learner through the registry and calls ITS ``fit`` (an online
  learner: ``n_epochs`` passes, by default one, each over the rows in a new order drawn from ``random_state``, as
  ``SGDClassifier``; ``shuffle=False``: in the given order; or the batch solver): the same class and code the
  experiment engine runs.  The learner is ``learner_``.
* ``partial_fit(X, y[, classes])`` (online learners only) continues the same learner: any split of a stream
  into batches gives the model of one pass (for a fixed ``random_state``).  Hyper-parameters changed with
  ``set_params`` between calls take effect at the next call; a new ``kernel``, ``random_state`` or structural
  parameter (e.g. ``n_rf``) only at the next ``fit``.
* ``predict``, ``score`` (accuracy or R^2, from the mixins), ``decision_function`` (classifiers),
  ``predict_proba`` / ``predict_log_proba``: an online binary classifier's (the kernel logistic regression ones
  included) is the online Platt map fitted on the scores its pass predicted with (``proba_map_``,
  :class:`olk.tasks.OnlinePlatt`, River's map too); the batch KLR learners' their own; UNCALIBRATED for the other
  batch and the multi-class classifiers: the sigmoid / softmax of the scores, :func:`olk.tasks.margin_proba`.
  ``classes_``: any two labels, strings too; a multi-class learner's (task ``multiclass``) any K labels, with
  ``decision_function`` (n, K) (scikit-learn's (n,) for K = 2).  ``n_features_in_`` is strict: data of another
  width is a ``ValueError``.
* Fitted attributes (the learner's :meth:`~olk.algorithms.base.KernelEstimator.fitted_attributes`): a kernel
  expansion has ``support_vectors_`` (dense, or scipy CSR for sparse data) and ``dual_coef_`` ((n_sv, n_cols):
  output column j is f_j(x) = sum_s dual_coef_[s, j] k_j(sv_s, x), plus ``intercept_`` where the model has a
  bias); the random-feature regressors have ``coef_``; multi-kernel models ``kernel_weights_``.
* ``olk.save(est, path)`` / ``olk.load(path)``: one ``.npz`` file, no pickle (:mod:`olk.persist`); pickling works too.

>>> import numpy as np, olk
>>> from olk.estimators import SPAClassifier
>>> from sklearn.model_selection import GridSearchCV
>>> rng = np.random.default_rng(0); X = rng.normal(size=(300, 4)); y = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
>>> clf = SPAClassifier(kernel={"type": "gaussian", "gamma": 0.5}, beta=5, random_state=0).fit(X[:200], y[:200])
>>> clf.classes_.tolist(), clf.predict(X[200:203]).tolist(), round(clf.score(X[200:], y[200:]), 2)
(['no', 'yes'], ['yes', 'no', 'no'], 0.9)
>>> clf.support_vectors_.shape, clf.dual_coef_.shape           # 26 SVs; columns: the 'avg' and 'last' outputs
((26, 4), (26, 2))
>>> stream = olk.estimator("spa", kernel={"type": "gaussian", "gamma": 0.5}, beta=5, random_state=0)
>>> for a in range(0, 200, 50):                                 # four batches of a stream ...
...     _ = stream.partial_fit(X[a:a + 50], y[a:a + 50])
>>> one = SPAClassifier(kernel={"type": "gaussian", "gamma": 0.5}, beta=5, random_state=0, shuffle=False)
>>> bool((stream.decision_function(X) == one.fit(X[:200], y[:200]).decision_function(X)).all())  # ... one pass
True
>>> GridSearchCV(clf, {"beta": [2, 5, 20]}, cv=3).fit(X, y).best_params_
{'beta': 2}
"""
from __future__ import annotations

import contextlib
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import Interval, validate_parameter_constraints
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .algorithms import available
from .algorithms.common.inputs import InputError, ParamError
from .algorithms.registry import REGISTRY, resolve_name
from .algorithms.surface import parameters_doc, same_value, storing_init, surface_class_name, surface_kernel
from .errors import ConfigError, DataError
from .tasks import OnlinePlatt, margin_log_proba, margin_proba

#: the fitted attributes an estimator reads from its learner (``fitted_attributes()``), when the learner has them
FITTED = ("support_vectors_", "dual_coef_", "intercept_", "coef_", "kernel_weights_", "n_iter_")


@contextlib.contextmanager
def _value_errors():
    """olk's one-line errors as scikit-learn expects them: a ConfigError is a :class:`ParamError`, a DataError an
    :class:`InputError` (both ``ValueError``s, the same message)."""
    try:
        yield
    except (ParamError, InputError):
        raise
    except ConfigError as e:
        raise ParamError(str(e)) from None
    except DataError as e:
        raise InputError(str(e)) from None


def _seed(random_state):
    """``random_state`` as a learner takes it: None, an int or a numpy Generator as they are; a legacy
    ``RandomState`` (scikit-learn's other convention) gives an int seed drawn from it."""
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    return random_state


class OlkEstimator(BaseEstimator):
    """What every generated estimator shares.  ``_learner_name`` is the registry name of its learner."""

    _learner_name: str = ""

    # ------------------------------------------------------------------ the learner
    @classmethod
    def learner_class(cls) -> Any:
        """The registered learner class this estimator is a thin layer over."""
        return REGISTRY[cls._learner_name]

    def _hyperparams(self) -> dict:
        return {p.name: getattr(self, p.name) for p in self.learner_class().params}

    def _new_learner(self, X):
        """The learner of the current parameters, built and checked by the registry (one code path with the
        experiment engine); its kernel from ``kernel`` and the SVC-style ``gamma`` / ``degree`` / ``coef0``
        (``gamma="scale"`` from X: :func:`olk.kernels.svc_kernel`).  A bad parameter is a one-line ValueError."""
        cls = self.learner_class()
        with _value_errors():
            kernel = surface_kernel(self, cls, f"{type(self).__name__}.kernel", X=X)
            return cls(kernel=kernel, random_state=_seed(self.random_state), **self._hyperparams())

    def _sync_hyperparams(self) -> None:
        """Hand hyper-parameters changed with ``set_params`` since the learner was built to it (checked by the
        registry).  The kernel, ``random_state`` and structural parameters wait for the next ``fit``."""
        learner = self.learner_
        skip = set(learner.structural_params)
        changed = {k: v for k, v in self._hyperparams().items()
                   if k not in skip and not same_value(v, learner.hyperparams[k])}
        if changed:
            with _value_errors():
                learner.set_params(**changed)

    # ------------------------------------------------------------------ validation
    def _validate(self, X, y=None, reset=False, fitting=False):
        sparse = "csr" if self.learner_class().sparse_input else False
        if not fitting:
            return validate_data(self, X, reset=reset, accept_sparse=sparse, dtype=np.float64)
        regressor = self._estimator_type_name == "regressor"
        X, y = validate_data(self, X, y, reset=reset, accept_sparse=sparse, dtype=np.float64, y_numeric=regressor)
        if not regressor:
            check_classification_targets(y)
        return X, y

    # ------------------------------------------------------------------ scikit-learn surface
    def fit(self, X, y):
        """Learn from scratch: validate (X, y), build the learner from the current parameters (through the
        registry) and call its ``fit``: for an online learner ``n_epochs`` passes over the rows, each in a new
        order drawn from ``random_state`` (``shuffle=True``, the default) or in the given order
        (``shuffle=False``); for a batch learner its solver.  Returns self."""
        X, y = self._validate(X, y, reset=True, fitting=True)
        self._check_order_params()
        learner = self._new_learner(X)
        order = self._fit_order(len(y))
        self.__dict__.pop("learner_", None)
        self.__dict__.pop("proba_map_", None)
        scores = self._scores_buffer(len(y) if order is None else len(order))
        kw: dict = {} if order is None else {"order": order}
        if scores is not None:
            kw["scores"] = scores
        with _value_errors():
            learner.fit(X, y, **kw)
        self._adopt(learner)
        if scores is not None:                  # the first pass's scores: every row predicted before it was learned
            first = np.arange(len(y)) if order is None else order[:len(y)]
            self._learn_proba_map(scores[:len(y)], y[first], fresh=True)
        return self

    def _scores_buffer(self, n: int):
        """An array for the pass's scores (:meth:`ArrayAPI.fit`'s ``scores``) where the estimator fits a probability
        map on them (an online classifier of one score: :meth:`OlkClassifier._learn_proba_map`), else None."""
        cls = self.learner_class()
        return np.empty(n) if (not cls.batch and cls.task in ("binary", "probabilistic")) else None

    def _learn_proba_map(self, scores, y, fresh: bool) -> None:  # pragma: no cover - classifiers only
        raise NotImplementedError

    def _check_order_params(self) -> None:
        """``shuffle`` and ``n_epochs`` against :data:`ORDER_CONSTRAINTS` (scikit-learn's declarative check: a
        one-line ``InvalidParameterError``, a ValueError)."""
        given = {n: getattr(self, n) for n, _ in order_params(self.learner_class())}
        if given:
            validate_parameter_constraints({n: ORDER_CONSTRAINTS[n] for n in given}, given,
                                           caller_name=type(self).__name__)

    def _fit_order(self, n: int):
        """The rows ``fit`` hands the learner, in order: None for one pass in the given order, else ``n_epochs``
        orders one after the other, each a permutation drawn from ``random_state`` (as ``SGDClassifier``: an int
        gives the same orders at every fit, a ``RandomState`` or ``Generator`` is drawn from, None is numpy's
        global state) or, without ``shuffle``, the given order again."""
        params = dict(order_params(self.learner_class()))
        if not params:
            return None
        shuffle, epochs = bool(self.shuffle), int(self.n_epochs)
        if not shuffle:
            return None if epochs == 1 else np.tile(np.arange(n, dtype=np.int64), epochs)
        rs = self.random_state
        rng = rs if isinstance(rs, np.random.Generator) else check_random_state(rs)
        return np.concatenate([rng.permutation(n) for _ in range(epochs)]).astype(np.int64)

    def _is_online(self) -> bool:
        return not self.learner_class().batch

    def _partial_fit(self, X, y, **kw):
        first = "learner_" not in self.__dict__
        X, y = self._validate(X, y, reset=first, fitting=True)
        if first:
            learner = self._new_learner(X)
        else:
            learner = self.learner_
            self._sync_hyperparams()
        scores = self._scores_buffer(len(y))
        if scores is not None:
            kw["scores"] = scores
        with _value_errors():
            learner.partial_fit(X, y, **kw)
        self._adopt(learner)
        if scores is not None:
            self._learn_proba_map(scores, y, fresh=first)
        return self

    def _adopt(self, learner) -> None:
        self.learner_ = learner

    def _learner_call(self, method: str, X):
        """The fitted learner's ``method`` on X, after the estimator's checks (fitted, X validated) and with the
        learner's one-line input errors raised as ValueError."""
        check_is_fitted(self)
        X = self._validate(X)
        with _value_errors():
            return getattr(self.learner_, method)(X)

    def predict(self, X):
        """The learner's prediction for every row of X: a label of ``classes_`` (classifiers) or a real number
        (regressors)."""
        return self._learner_call("predict", X)

    def __sklearn_is_fitted__(self) -> bool:
        return "learner_" in self.__dict__

    def __getattr__(self, name):
        """The fitted attributes of :data:`FITTED` that the learner has (``fitted_attributes()``)."""
        if name in FITTED:
            learner = self.__dict__.get("learner_")
            if learner is not None:
                attrs = learner.fitted_attributes()
                if name in attrs:
                    return attrs[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self):
        extra = self.learner_class().fitted_names() if "learner_" in self.__dict__ else ()
        return sorted(set(super().__dir__()) | set(extra))

    def _olk_tags(self, tags):
        """Sparse input as the learner takes it; non-negative input for a chi-square kernel."""
        tags.input_tags.sparse = self.learner_class().sparse_input
        try:
            kernels = surface_kernel(self, self.learner_class(), "kernel", X=[[0.0, 1.0]])     # X: a placeholder
            tags.input_tags.positive_only = any(k.kind == "chi2" for k in kernels)
        except (ConfigError, TypeError, ValueError):    # an invalid kernel is reported by fit, not by the tags
            pass
        return tags

    @property
    def _estimator_type_name(self) -> str:
        return "regressor" if isinstance(self, RegressorMixin) else "classifier"


class OlkClassifier(ClassifierMixin, OlkEstimator):
    """Base of the generated classifiers (binary: any two labels)."""

    @available_if(OlkEstimator._is_online)
    def partial_fit(self, X, y, classes=None):
        """Continue learning: one online pass over (X, y) in their order from the current model (the first call
        starts one: it fixes ``classes_`` and ``n_features_in_``).  ``classes`` names both labels up front, so a
        first batch may hold one class only.  Returns self."""
        return self._partial_fit(X, y, classes=classes)

    def _adopt(self, learner) -> None:
        self.learner_ = learner
        self.classes_ = learner.classes_

    def _learn_proba_map(self, scores, y, fresh: bool) -> None:
        """The online Platt map of :meth:`predict_proba` (:class:`olk.tasks.OnlinePlatt`, River's own), one step per
        example on the score it was predicted with before it was learned, in the order learned, continued from the
        last call's (``partial_fit``) or new (``fit``); kept as plain numbers in ``proba_map_``."""
        platt = OnlinePlatt() if fresh else OnlinePlatt.of_state(self.__dict__.get("proba_map_"))
        positive = np.asarray(y) == self.classes_[1]
        for f, pos in zip(scores.tolist(), positive.tolist()):
            platt.learn(f, pos)
        self.proba_map_ = platt.state()

    def __sklearn_tags__(self):
        """A binary-only classifier (``multi_class=False``: a third label is a ValueError)."""
        tags = self._olk_tags(super().__sklearn_tags__())
        tags.classifier_tags.multi_class = False
        return tags

    def decision_function(self, X):
        """The learner's score f(x) of every row of X (> 0: ``classes_[1]``; the log-odds for KLR)."""
        return self._learner_call("decision_function", X)

    def predict_proba(self, X):
        """(n, 2): P(classes_[j] | x).  An online classifier (the kernel logistic regression ones included):
        sigmoid(a f(x) / s), the online Platt map fitted by ``fit`` / ``partial_fit`` on the scores the pass
        predicted each example with before learning it (``proba_map_``; :class:`olk.tasks.OnlinePlatt`, River's
        map too): 0.5 at f = 0, so its argmax is :meth:`predict`'s label (ties aside), and monotone in f.  A batch
        classifier: the batch KLR learners' own probabilities, UNCALIBRATED ones for the others
        (:func:`olk.tasks.margin_proba`, the sigmoid of the score; calibrate with ``CalibratedClassifierCV``)."""
        check_is_fitted(self)
        m = self.__dict__.get("proba_map_")
        if m is not None:
            return margin_proba(OnlinePlatt.of_state(m).log_odds(self.decision_function(X)))
        if hasattr(self.learner_class(), "predict_proba"):
            return self._learner_call("predict_proba", X)
        return margin_proba(self.decision_function(X))

    def predict_log_proba(self, X):
        """log of :meth:`predict_proba`, computed without underflow."""
        check_is_fitted(self)
        m = self.__dict__.get("proba_map_")
        if m is not None:
            return margin_log_proba(OnlinePlatt.of_state(m).log_odds(self.decision_function(X)))
        if hasattr(self.learner_class(), "predict_log_proba"):
            return self._learner_call("predict_log_proba", X)
        return margin_log_proba(self.decision_function(X))


class OlkMulticlassClassifier(OlkClassifier):
    """Base of the generated multi-class classifiers (task ``multiclass``: any K labels, K score functions)."""

    def __sklearn_tags__(self):
        """A multi-class classifier."""
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def decision_function(self, X):
        """The learner's K class scores of every row of X, shape (n, K) (argmax: the predicted class); with two
        classes scikit-learn's binary convention, shape (n,): s_1(x) - s_0(x) (> 0: ``classes_[1]``; a tie
        predicts ``classes_[0]``)."""
        D = self._learner_call("decision_function", X)
        if D.shape[1] == 2:
            return D[:, 1] - D[:, 0]
        return D[:, 0] if D.shape[1] == 1 else D

    def predict_proba(self, X):
        """(n, K): UNCALIBRATED class probabilities, the row-wise softmax of the K class scores
        (:func:`olk.tasks.margin_proba`; argmax: the predicted class)."""
        return margin_proba(self._learner_call("decision_function", X).reshape(-1, len(self.classes_)))

    def predict_log_proba(self, X):
        """log of :meth:`predict_proba`, computed without underflow."""
        return margin_log_proba(self._learner_call("decision_function", X).reshape(-1, len(self.classes_)))


class OlkRegressor(RegressorMixin, OlkEstimator):
    """Base of the generated regressors (real-valued targets)."""

    @available_if(OlkEstimator._is_online)
    def partial_fit(self, X, y):
        """Continue learning: one online pass over (X, y) in their order from the current model (the first call
        starts one and fixes ``n_features_in_``).  Returns self."""
        return self._partial_fit(X, y)

    def __sklearn_tags__(self):
        return self._olk_tags(super().__sklearn_tags__())


# ================================================================================================ generation
def order_params(learner_cls) -> tuple:
    """The estimator's own arguments on the order ``fit`` learns the rows in, after scikit-learn's
    ``SGDClassifier``, for an online learner (a batch one's solver sees every row at once): ``shuffle=True`` (each
    pass in a new order drawn from ``random_state``: an online learner fed rows sorted by class, as scikit-learn's
    ``load_iris`` or many LIBSVM files give them, learns mostly the last class) and ``n_epochs=1`` (the papers'
    protocol and their bounds are one pass; every further pass grows an unbudgeted model).  ``partial_fit`` keeps
    the order it is given: that is the stream."""
    return () if learner_cls.batch else (("shuffle", True), ("n_epochs", 1))


#: the constraints of :func:`order_params`' arguments, checked by scikit-learn's own validation at ``fit``
ORDER_CONSTRAINTS: dict = {"shuffle": ["boolean"], "n_epochs": [Interval(Integral, 1, None, closed="left")]}

#: the value of each of those arguments for an estimator saved before they existed: the order it was fitted in
ORDER_PARAMS_OF_OLD_FILES = {"shuffle": False, "n_epochs": 1}

_ORDER_DOCS = {
    "shuffle": "shuffle : bool, default=True\n    Learn the rows of each ``fit`` pass in a new order drawn from "
               "``random_state`` (scikit-learn's ``SGDClassifier`` convention; an online learner fed rows sorted "
               "by class learns mostly the last class); False: in the order given, as ``olk run`` in file order. "
               "``partial_fit`` always keeps the order it is given.",
    "n_epochs": "n_epochs : int, default=1\n    Passes of ``fit`` over the rows (each reshuffled when "
                "``shuffle``); one is the online protocol of the papers.  A step size 1/sqrt(T) reads T = the rows "
                "of X: give ``horizon`` = n_epochs * n_rows for the whole run.",
}

_ATTR_DOCS = {
    "support_vectors_": "ndarray or scipy CSR matrix of shape (n_sv, n_features_in_)\n    The stored support "
                        "vectors, in the model's slot order (CSR when trained on sparse data).",
    "dual_coef_": "ndarray of shape (n_sv, n_cols)\n    Their coefficients: output column j is "
                  "f_j(x) = sum_s dual_coef_[s, j] k_j(sv_s, x) (one column per kernel of a multi-kernel model; "
                  "the 'avg' and 'last' outputs of an averaged one).",
    "intercept_": "ndarray of shape (1,)\n    The bias b added to the kernel expansion.",
    "coef_": "ndarray of shape (n_kernels, 2 * n_rf)\n    The parameter vectors theta_k of the random-feature "
             "regressors, one row per kernel.",
    "kernel_weights_": "ndarray of shape (n_kernels,)\n    The weights of the kernels, in kernel order.",
    "n_iter_": "int\n    Iterations of the solver in the last fit.",
}


def _docstring(learner_cls, clsname: str) -> str:
    regressor = learner_cls.task == "regression"
    multiclass = learner_cls.task == "multiclass"
    first = (learner_cls.__doc__ or learner_cls.display).strip().splitlines()[0]
    kind = ("regressor" if regressor else "multi-class classifier (any K labels)" if multiclass else
            "binary classifier (any two labels)")
    lines = [
        f"scikit-learn {kind} over olk's ``{learner_cls.name}`` learner: {first}",
        "",
        f"A thin estimator over :class:`{learner_cls.__module__}.{learner_cls.__qualname__}` (the class the "
        f"experiment engine runs): ``fit`` validates the data and calls the learner's own ``fit``.",
        "" if learner_cls.batch else
        "``partial_fit`` continues it: any split of a stream into batches gives the model of one pass.",
        "",
        *parameters_doc(learner_cls, "random_state", "int, numpy Generator, RandomState or None", gamma="scale"),
        *(_ORDER_DOCS[n] for n, _ in order_params(learner_cls)),
    ]
    lines += ["", "Attributes", "----------",
              f"learner_ : {learner_cls.__qualname__}\n    The fitted learner.",
              "n_features_in_ : int\n    Width of the data seen by ``fit``."]
    if multiclass:
        lines.append("classes_ : ndarray of shape (K,)\n    The K labels in sorted order (class c is classes_[c]).")
    elif not regressor:
        lines.append("classes_ : ndarray of shape (2,)\n    The two labels (the first in sorted order is the "
                     "negative class).")
    lines += [f"{n} : {_ATTR_DOCS[n]}" for n in learner_cls.fitted_names()]
    if not learner_cls.batch and learner_cls.task in ("binary", "probabilistic"):
        lines.append("proba_map_ : dict\n    The online Platt map of ``predict_proba``, sigmoid(a f / s): {'a': a, "
                     "'n': examples it learned from, 'sq': their scores' sum of squares (s = sqrt(sq / n))}.")
    return "\n".join(lines) + "\n"


def _make(name: str) -> type:
    learner_cls = REGISTRY[name]
    clsname = surface_class_name(learner_cls)
    base = {"regression": OlkRegressor, "multiclass": OlkMulticlassClassifier}.get(learner_cls.task, OlkClassifier)
    ns = {"_learner_name": name, "__module__": __name__, "__qualname__": clsname,
          "__doc__": _docstring(learner_cls, clsname),
          "__init__": storing_init(learner_cls, clsname, seed="random_state", module=__name__, gamma="scale",
                                   extra=order_params(learner_cls),
                                   doc=f"Store the parameters (checked when ``fit`` builds the learner); see "
                                       f":class:`{clsname}`.")}
    return type(clsname, (base,), ns)


#: registry name -> estimator class, for every registered learner (built once, at import, by :func:`_make`)
by_name: dict[str, type] = {name: _make(name) for name in available()}

#: estimator class name -> class (what a saved estimator names)
by_class_name: dict[str, type] = {c.__name__: c for c in by_name.values()}
if len(by_class_name) != len(by_name):     # pragma: no cover - two learners whose names give one class name
    raise RuntimeError("two registered learners give the same estimator class name")


def estimator_class(name: str) -> type:
    """The estimator class of the learner registered as `name` (or an alias); made on first use for a learner
    registered after this module was imported (a plugin loaded with ``--plugin`` or a config's ``plugins:``)."""
    key = resolve_name(name)
    cls = by_name.get(key)
    if cls is None:
        cls = by_name[key] = _make(key)
        by_class_name[cls.__name__] = cls
    return cls


def __getattr__(name: str):
    """``olk.estimators.SPAClassifier`` and ``from olk.estimators import SPAClassifier``: the estimator classes
    are attributes of this module (PEP 562), listed in :data:`__all__` and in docs/estimators.md
    (:func:`catalogue`), and pickle finds them by their ``__module__`` and ``__qualname__`` (a plugin's too, once
    its module is imported)."""
    cls = by_class_name.get(name)
    if cls is None:
        late = [n for n, c in list(REGISTRY._classes.items()) if n not in by_name and surface_class_name(c) == name]
        if not late:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        cls = estimator_class(late[0])
    return cls


def __dir__():
    return sorted(set(globals()) | set(by_class_name))


def catalogue() -> str:
    """The Markdown list of every estimator class and, for an online learner, its River class of the same name
    (:func:`~olk.algorithms.surface.surface_class_name`): docs/estimators.md is this text; tests keep it current
    (tests/test_river.py checks that the River classes are the ones listed)."""
    rows = ["| estimator class | River class | learner (`olk algorithms`) | kind | `partial_fit` | first line of its "
            "docstring |", "|---|---|---|---|---|---|"]
    for name, cls in sorted(by_name.items(), key=lambda kv: kv[1].__name__):
        learner = REGISTRY[name]
        if not learner.__module__.startswith("olk."):       # a learner registered by user code: not olk's page
            continue
        kind = {"regression": "regressor", "multiclass": "multi-class classifier"}.get(learner.task, "classifier")
        first = (learner.__doc__ or learner.display).strip().splitlines()[0].replace("|", "\\|")
        river = "none (batch)" if learner.batch else f"`olk.river.{cls.__name__}`"     # the one naming rule
        rows.append(f"| `{cls.__name__}` | {river} | `{name}` | {kind} | {'no' if learner.batch else 'yes'} | "
                    f"{first} |")
    return "\n".join(rows) + "\n"


def estimator(name: str, **params):
    """The estimator of the learner registered as `name` (or an alias), e.g. ``estimator("spa", beta=20)``;
    an unknown name is a one-line ValueError with a did-you-mean.  Parameters are checked at ``fit``."""
    try:
        cls = estimator_class(name)
    except ConfigError as e:
        raise ParamError(str(e)) from None
    return cls(**params)


__all__ = ["estimator", "estimator_class", "by_name", "by_class_name", "OlkEstimator", "OlkClassifier",
           "OlkMulticlassClassifier", "OlkRegressor", "FITTED",
           *sorted(by_class_name)]
