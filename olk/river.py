"""olk's online learners inside River: one :class:`river.base.Classifier` / :class:`river.base.Regressor` class per
registered online learner, generated from the registry (from a clone of olk's repository: ``pip install ".[river]"``).

Each class holds an olk learner (``learner``, the class the experiment engine runs) and calls its own
``learn_one`` / ``predict_one`` and, for a classifier, ``predict_proba_one`` (a monotone map of the scores fitted
online, whose most probable label is ``predict_one``'s: an online Platt fit through 0.5 at f = 0 for a binary
classifier, the kernel logistic regression ones included, an online temperature-scaled softmax for the
multi-class ones), with ``learn_many`` /
``predict_many`` on pandas DataFrames (the loop of the ``_one`` calls; a River mini-batch model where the learner
widens), so
River's tools take it as one of theirs: ``river.evaluate.progressive_val_score``, pipelines
(``preprocessing.StandardScaler() | olk.river.SPAClassifier()``), ``clone``, ``river.checks.check_estimator``.
Names: the scikit-learn class's (olk's one rule, :func:`olk.algorithms.surface.surface_class_name`; River's own
``PAClassifier`` / ``PARegressor`` read the same way): the learner class name plus ``Classifier`` or ``Regressor``
(:class:`SPAClassifier`, :class:`KernelPerceptronClassifier`, :class:`RakerRegressor`, :class:`KernelOGDRegressor`;
``olk algorithms`` shows every learner's); :data:`by_name` maps every registry name to its class.  The former
names (``olk.river.SPA``, ``olk.river.Perceptron``, ...: :data:`former_names`) still work, with a
DeprecationWarning.

* Parameters: ``kernel`` (as everywhere in olk: ``{"type": "gaussian", "gamma": 0.4}``, a type name, a kernel set
  for a multi-kernel learner; None: Gaussian with gamma = 1), ``seed`` (River's name for the learner's
  ``random_state``) and every parameter of the learner with its registry default.  They are checked when the
  model is made (a one-line ``ValueError`` naming the parameter) and fixed for its life: River changes them with
  ``model.clone({"beta": 5})``.
* Features: ``x`` is a dict {name: number}.  A key gets the next column of the learner's rows when it first
  appears (the new keys of one example in sorted order, so the order of a dict's keys never matters; the map is
  ``columns``).  New keys in a stream work for every learner that declares ``widens``: a feature a kernel
  learner never saw is 0 in every stored support vector (its SV pool widens).  The random-feature learners
  (Raker, OMKL-AKS, AMKL, AMKL-AKS) do not widen: their frequencies are drawn for the keys seen up to their
  first ``learn_one``, and a new key later is a one-line error.  A missing key is 0.  A value that is not a
  finite number (a string, None, NaN) is a one-line error naming the key.
* Labels (classifiers): any two labels, kept in the learner's ``classes_`` (the -1 side first).  False/True
  (River's binary labels) are both known from the first one; otherwise the first label seen takes the +1 side if
  it is 1 and the -1 side if not (so {0, 1} and {-1, +1} keep their usual sides, and of two strings the first
  seen is ``classes_[0]``), and the second label the other side.  Until a second label arrives, the one label
  seen is the prediction (before any label: False/True, River's binary convention).  A third label is a
  one-line error: these are binary classifiers (``_multiclass`` reads the learner's declared ``task``).
* Regressors learn finite real targets; their default step 1/sqrt(T) needs the stream length: give ``horizon=T``
  (or ``step_size="sqrt_t"`` for OGDRegression and OMKR, numeric ``eta_l`` / ``eta_g`` for the random-feature ones).
* Predictions are the learner's ``predict_one``: with one output, exactly the score its online pass (``step``)
  predicts with, so ``progressive_val_score`` is the engine's online protocol; an averaged output (SPA, OSKL,
  online KLR with ``output="avg"``) predicts with the average of the classifiers so far, where the papers' online
  score also averages in the current one.

>>> from river import datasets, evaluate, metrics
>>> import olk.river
>>> model = olk.river.SPAClassifier(kernel={"type": "gaussian", "gamma": 1.0}, beta=5, seed=0)
>>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
Accuracy: 88.08%
>>> model.learner.n_sv, len(model.columns)
(98, 9)
>>> model.predict_one({"is_popular": 1.0, "long_url": 0.0, "brand_new_key": 3.0})     # a key never seen
True
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

try:
    import river.base as _river
except ModuleNotFoundError as _missing:        # River itself, not a module River fails to import
    if _missing.name != "river":
        raise
    raise ImportError("olk.river needs River, which is not installed: pip install river (or, in a clone of olk, "
                      "pip install \".[river]\")") from None

from .algorithms import available
from .algorithms.common.inputs import InputError, ParamError, RowSource
from .algorithms.protocol import Learner
from .algorithms.registry import REGISTRY
from .algorithms.surface import parameters_doc, same_value, storing_init, surface_class_name, surface_kernel
from .errors import ConfigError
from .tasks import OnlinePlatt, OnlineTemperature

#: the attributes of a model besides its parameters (a parameter may not take these names)
STATE = ("learner", "columns")


def _plain(v):
    """A numpy scalar as the Python value it holds (River's labels and values are Python objects)."""
    return v.item() if isinstance(v, np.generic) else v


def _in_order(keys: list) -> list:
    """New feature keys in sorted order; keys of types that do not compare: by type name, then repr."""
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=lambda k: (type(k).__name__, repr(k)))


def _side(y) -> float:
    """The side a classifier's first label takes until the second arrives: +1 for True and 1, -1 for any other
    label (False, -1, 0, a string, ...), so {False, True}, {0, 1} and {-1, +1} keep their usual sides."""
    return 1.0 if (y is True or (not isinstance(y, bool) and isinstance(y, numbers.Real) and y == 1)) else -1.0


def _number(where: str, key, v) -> float:
    """A feature value as a float: Python and numpy numbers (bools too); anything else is a one-line error."""
    t = type(v)
    if t is float or t is int or t is bool or isinstance(v, (numbers.Real, np.bool_)):
        return float(v)
    raise InputError(f"{where}: feature {key!r} has value {v!r} ({t.__name__}); olk learns from numbers: encode it "
                     f"first (e.g. river.preprocessing.OneHotEncoder) or drop it")


class OlkRiverModel:
    """What every generated River class shares: the olk learner, the feature vocabulary and the rows.
    ``_learner_name`` is the registry name of its learner."""

    _learner_name: ClassVar[str] = ""
    kernel: Any                     # the constructor's arguments (stored by the generated __init__)
    seed: int | None
    learner: Any                    # the olk learner
    learn_one: Any                  # each subclass's (a classifier's labels, a regressor's targets)
    #: the score(s) predict_proba_one computed last, for learn_one's probability-map step on the same x
    #: (OlkClassifier._scored_for); a class default, so a model pickled before it existed loads
    _scored: Any = None
    #: a multi-class classifier's probability map (a class default for a model pickled before it existed)
    _temperature: Any = None

    # ------------------------------------------------------------------ the learner
    @classmethod
    def learner_class(cls) -> type[Learner]:
        """The registered learner class this River model holds one of."""
        return REGISTRY[cls._learner_name]

    @property
    def _where(self) -> str:
        return f"olk.river.{type(self).__name__}"

    def _build(self) -> None:
        """The learner of the stored parameters, checked by the registry (one-line ValueError otherwise), and an
        empty feature vocabulary.  Called by ``__init__`` after it stored its arguments."""
        cls, where = self.learner_class(), self._where
        seed = _plain(self.seed)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise ParamError(f"{where}: seed must be None or an int, got {self.seed!r}")
        try:
            kernel = surface_kernel(self, cls, f"{where}.kernel")
            learner: Any = cls(kernel=kernel, random_state=seed, where=where,  # type: ignore[call-arg]
                               **{p.name: getattr(self, p.name) for p in cls.params})
        except ParamError:
            raise
        except ConfigError as e:
            raise ParamError(str(e)) from None
        for k in learner.kernels:
            if k.cols is not None or k.view is not None:
                raise ParamError(f"{where}: kernel {k.label()} reads a view (a column range), but a River stream "
                                 f"names its features in no fixed order; use a kernel without a view")
        self.learner = learner
        #: feature key -> column of the learner's rows, in the order the keys first appeared
        self.columns: dict = {}
        self._nonneg = any(k.kind == "chi2" for k in learner.kernels)
        self._width: int | None = None          # the fixed width of a learner that does not widen, once it learned
        self._first: Any = None                 # the one label seen while a classifier's two are not known yet
        self._platt = OnlinePlatt()             # a binary classifier's probability map (predict_proba_one)
        self._temperature = OnlineTemperature() if learner.task == "multiclass" else None   # a multi-class one's
        self._proba_asked = False               # predict_proba_one was called: learn_one fits the map as well
        #: the fast path of a binary kernel expansion (it widens, it reads RowSources; OlkClassifier._fast_row),
        #: and its last row
        self._fast = learner.task == "binary" and learner.sparse_input and learner.widens and hasattr(learner,
                                                                                                   "learn_row")
        self._last: Any = None
        self._scored = None

    # ------------------------------------------------------------------ features
    def _row(self, x):
        """x (a dict {feature: number}) as one row of the learner: a 1 x len(columns) CSR matrix (a dense array
        for a learner that takes dense rows only).  New keys get the next columns (after every value is checked:
        a bad example leaves the model as it was)."""
        where = self._where
        if not isinstance(x, Mapping):
            raise InputError(f"{where}: x must be a dict {{feature: number}} (River's examples), got "
                             f"{type(x).__name__}")
        keys = list(x)
        vals = np.array([_number(where, k, v) for k, v in x.items()], dtype=np.float64)
        if vals.size and not np.isfinite(vals).all():
            k = keys[int(np.flatnonzero(~np.isfinite(vals))[0])]
            raise InputError(f"{where}: feature {k!r} is {x[k]}; impute it first (e.g. river.impute.StatImputer) "
                             f"or drop it")
        if self._nonneg and vals.size and vals.min() < 0.0:
            k = keys[int(np.argmin(vals))]
            raise InputError(f"{where}: feature {k!r} is {x[k]}, but the chi2 kernel needs non-negative features; "
                             f"scale them first (e.g. river.preprocessing.MinMaxScaler)")
        cols = self.columns
        new = [k for k in keys if k not in cols]
        if new:
            if self._width is not None:
                raise InputError(
                    f"{where}: feature {_in_order(new)[0]!r} is new, but {self.learner_class().display} cannot "
                    f"widen (widens = False): its width was fixed at {self._width} features by its first "
                    f"learn_one; give the first example every feature key of the stream (0 where absent)")
            for k in _in_order(new):
                cols[k] = len(cols)
        idx = np.array([cols[k] for k in keys], dtype=np.int32)
        keep = vals != 0.0
        idx, vals = idx[keep], vals[keep]
        if idx.size > 1 and (idx[1:] < idx[:-1]).any():        # CSR rows hold their columns in order
            order = np.argsort(idx)
            idx, vals = idx[order], vals[order]
        width = len(cols)
        if self.learner_class().sparse_input:
            import scipy.sparse as sp
            return sp.csr_matrix((vals, idx, np.array([0, idx.size], dtype=np.int32)), shape=(1, width))
        row = np.zeros((1, width))
        row[0, idx] = vals
        return row

    def _learned(self) -> None:
        """After the learner's first update: a learner that does not widen keeps the width it learned at."""
        if self._width is None and not self.learner_class().widens:
            self._width = len(self.columns)

    # ------------------------------------------------------------------ mini-batches
    def _records(self, X) -> list:
        """The rows of a pandas DataFrame as the dicts ``learn_one`` / ``predict_one`` take ({column: value}, in
        the frame's column order), checked to be a DataFrame."""
        import pandas as pd
        if not isinstance(X, pd.DataFrame):
            raise InputError(f"{self._where}: X must be a pandas DataFrame (River's mini-batches), got "
                             f"{type(X).__name__}")
        return X.to_dict(orient="records")

    def learn_many(self, X, y) -> None:
        """Learn from a mini-batch: ``learn_one`` on each row of the DataFrame X with its entry of y, in order,
        so the model is bit for bit the one of that loop (a bad row stops it there, as the loop would)."""
        rows, ys = self._records(X), list(y)
        if len(rows) != len(ys):
            raise InputError(f"{self._where}: X has {len(rows)} rows but y has {len(ys)} entries")
        for x, t in zip(rows, ys):
            self.learn_one(x, t)

    def predict_many(self, X):
        """``predict_one`` of each row of the DataFrame X, as a pandas Series on X's index."""
        import pandas as pd
        return pd.Series([self.predict_one(x) for x in self._records(X)], index=X.index)

    def _more_tags(self) -> set:
        """River's ``positive input`` tag for a chi2 kernel (non-negative features only)."""
        return {_river.tags.POSITIVE_INPUT} if self._nonneg else set()


class OlkClassifier(OlkRiverModel, _river.Classifier):
    """Base of the generated classifiers: any two labels, mapped through the learner's ``classes_``."""

    @property
    def _multiclass(self) -> bool:
        return self.learner_class().task == "multiclass"

    def _label(self, y):
        """y as the learner takes it: a label of ``classes_`` (set here once both labels are known), or the side
        (±1) of the one label seen so far; a third label is a one-line error."""
        if self._multiclass:                    # the learner keeps its own classes
            return y
        y, where = _plain(y), self._where
        if y is None or (isinstance(y, float) and not math.isfinite(y)):
            raise InputError(f"{where}: label {y!r}; a label is a bool, a string or a finite number")
        classes = self.learner.classes_
        if classes is not None:
            if not (same_value(y, classes[0]) or same_value(y, classes[1])):
                raise InputError(f"{where}: label {y!r} is neither of its two labels ({classes[0]!r}, "
                                 f"{classes[1]!r}); {self.learner_class().display} is a binary classifier")
            return y
        if isinstance(y, bool) and self._first is None:     # False/True: River's binary labels, both known at once
            self.learner.classes_ = np.array([False, True], dtype=object)
            return y
        if self._first is None:
            self._first = y
            return _side(y)
        if same_value(y, self._first):
            return _side(y)
        pair = [self._first, y] if _side(self._first) < 0 else [y, self._first]
        self.learner.classes_ = np.array(pair, dtype=object)
        self._first = None
        return y

    # ------------------------------------------------------------------ the fast path (binary, sparse rows)
    def _fast_row(self, x):
        """x's row as a one-row RowSource built without scipy (:meth:`RowSource.csr_row`), or None when the checked
        path (:meth:`_row`) must take it: a learner of another task or of dense rows, x not a dict, a key never
        seen, a value that is not a Python float or int, a non-finite value, a negative one under chi2.  The row
        of the last call is reused for the same dict with equal items and columns (progressive validation calls
        ``predict_one(x)`` then ``learn_one(x, y)``).  Equal to :meth:`_row`'s: the non-zero values in column
        order."""
        if not self._fast or type(x) is not dict:
            return None
        items = list(x.items())
        cols = self.columns
        last = self._last
        if last is not None and last[0] is x and last[3] == len(cols) and last[1] == items:
            return last[2]
        idx, vals = [], []
        nonneg = self._nonneg
        for k, v in items:
            c = cols.get(k)
            t = type(v)
            if c is None or not (t is float or t is int) or not math.isfinite(v) or (nonneg and v < 0):
                return None
            if v != 0:
                idx.append(c)
                vals.append(v)
        if len(idx) > 1 and any(idx[i] > idx[i + 1] for i in range(len(idx) - 1)):
            order = sorted(range(len(idx)), key=idx.__getitem__)
            idx, vals = [idx[i] for i in order], [vals[i] for i in order]
        src = RowSource.csr_row(np.array(idx, dtype=np.int32), np.array(vals, dtype=np.float64), len(cols))
        self._last = (x, items, src, len(cols))
        return src

    def _score(self, x, src=None, row=None):
        """The learner's score f(x) (its ``decision_one``; a multi-class learner's K class scores, an array), by
        the fast path where it applies (`src` / `row`: x's row, when the caller has it)."""
        if src is None and row is None:
            src = self._fast_row(x)
        if src is None:
            f = self.learner.decision_one(self._row(x) if row is None else row)
            return np.asarray(f, dtype=np.float64).reshape(-1) if self._multiclass else float(f)
        return float(self.learner.decision_function(src)[0])

    def _scored_key(self, x) -> tuple:
        """What x's score depends on: its items (equal items are the same row), the columns, the model (the
        examples it learned)."""
        return list(x.items()), len(self.columns), self.learner.t

    def _scored_for(self, x):
        """The score :meth:`predict_proba_one` computed last if it was for equal items, the same columns and no
        example learned since (progressive validation's ``predict_proba_one(x)`` then ``learn_one(x, y)``; not in a
        pipeline whose StandardScaler learns x before transforming it: there learn_one's x is another), or None: the
        learner's score of x then, bit for bit."""
        s = self._scored
        return s[1] if s is not None and s[0] == self._scored_key(x) else None

    def _side(self, label) -> float:
        """The binary learner's ±1 of `label` (a label of ``classes_``, or the ±1 side itself while they are not
        known): what ``learn_row`` and the probability map learn from."""
        classes = self.learner.classes_
        if classes is None:
            return float(label)
        return 1.0 if same_value(label, classes[1]) else -1.0

    def learn_one(self, x, y) -> None:
        """Learn from one example: the learner's ``learn_one`` on x's row with label y (and the probability map's
        step on x's score before the update, once ``predict_proba_one`` has been used: the score it just computed
        for the same x, else computed here).  A binary learner of sparse rows takes the fast path: the row of
        :meth:`_fast_row` and the learner's :meth:`learn_row` with the label as ±1 (the same update, without the
        array checks this wrapper has already made)."""
        src = self._fast_row(x)
        row = self._row(x) if src is None else None
        label = self._label(y)
        f, c = None, None
        if self._proba_asked:
            c = self._class_index(label) if self._multiclass else None
            if c is not None or not self._multiclass:
                f = self._scored_for(x)
                if f is None:
                    f = self._score(x, src, row)
        self._scored = None
        if src is None:
            self.learner.learn_one(row, label)
            side = self._side(label) if f is not None and c is None else 0.0
        else:
            side = self._side(label)
            self.learner.learn_row(src, side)
        self._learned()
        if c is not None:
            self._temperature.learn(f, c)
        elif f is not None:
            self._platt.learn(f, side > 0)

    def _class_index(self, label):
        """A multi-class learner's index of `label` in its ``classes_`` before it learns it (None: a label it has
        not seen, which has no score yet, so the probability map skips that example)."""
        classes = self.learner.classes_
        if classes is None:
            return None
        return next((i for i, k in enumerate(classes) if same_value(label, k)), None)

    def predict_one(self, x, **kwargs):
        """The learner's prediction for x: sign(f(x)) as one of the two labels (sign(0) = +1)."""
        src = self._fast_row(x)
        if src is not None:
            if self._first is not None:
                return self._first
            f = float(self.learner.decision_function(src)[0])
            classes = self.learner.classes_
            return bool(f >= 0.0) if classes is None else _plain(classes[int(f >= 0.0)])
        row = self._row(x)
        if self._multiclass:
            if self.learner.classes_ is None:       # River's convention: no prediction before the first label
                return None
            return _plain(self.learner.predict_one(row))
        if self._first is not None:
            return self._first
        label = self.learner.predict_one(row)
        return _plain(label) if self.learner.classes_ is not None else bool(label > 0)


    def predict_proba_one(self, x, **kwargs) -> dict:
        """{label: probability} from the learner's score(s), a monotone map of the margin so that River's ROCAUC
        and LogLoss run, whose most probable label is :meth:`predict_one`'s (River's own ``Classifier.predict_one``
        is that argmax, and its ``progressive_val_score`` reads labels from this dict as soon as a probability
        metric is in the mix).  A binary classifier (the kernel logistic regression ones included): an online
        Platt fit without intercept (:class:`olk.tasks.OnlinePlatt`, sigmoid(a f/s), 0.5 at f = 0) fitted by every
        ``learn_one`` after the first ``predict_proba_one``, on the example's score before it is learned (a model
        used for accuracy only pays nothing for it), sigmoid(f) before any; a multi-class one: an online
        temperature scaling (:class:`olk.tasks.OnlineTemperature`, softmax(a z) of its K class scores centred and
        scaled by their RMS so far), fitted the same way (an example of a class the model has not seen yet has no
        score for it and is skipped), the plain softmax of the scores before any: it sums to 1, increases with the
        class's own score and keeps the argmax.  The predicted label comes first in the dict, so a tie (f = 0, or
        class probabilities equal to the last bit) goes to it, as ``max(d, key=d.get)`` keeps the first of equal
        values.  A multi-class model before any label: {} (River's convention); a binary one with one label seen:
        {that label: 1.0}.  The score is computed once per example in progressive validation (``learn_one`` reuses
        it, :meth:`_scored_for`)."""
        if self._multiclass:
            row = self._row(x)
            classes = self.learner.classes_
            if classes is None:
                return {}
            s = self._score(x, row=row)
            self._scored = (self._scored_key(x), s)
            self._proba_asked = True
            if self._temperature is None:           # a model pickled before the map existed
                self._temperature = OnlineTemperature()
            p = self._temperature.proba(s)
            top = int(np.argmax(s))                 # the learner's prediction: the largest score, ties to the first
            out = {_plain(classes[top]): float(p[top])}      # first: an updated key keeps its place
            out.update((_plain(c), float(q)) for c, q in zip(classes, p))
            return out
        f = self._score(x)                          # checks x (and takes its new keys) first
        self._scored = (self._scored_key(x), f)     # for learn_one's Platt step on the same x (_scored_for)
        if self._first is not None:
            return {self._first: 1.0}
        self._proba_asked = True                    # from now on learn_one fits the map too
        p1 = self._platt.proba(f)
        neg, pos = (False, True) if self.learner.classes_ is None else map(_plain, self.learner.classes_)
        return {pos: p1, neg: 1.0 - p1} if f >= 0.0 else {neg: 1.0 - p1, pos: p1}   # sign(0) = +1: predict_one's

    def predict_proba_many(self, X):
        """``predict_proba_one`` of each row of the DataFrame X: a DataFrame on X's index, one column per label
        (0 where a row's dict lacks it)."""
        import pandas as pd
        return pd.DataFrame([self.predict_proba_one(x) for x in self._records(X)], index=X.index).fillna(0.0)


class OlkProbabilisticClassifier(OlkClassifier):
    """Base of the generated classifiers of the ``probabilistic`` task (the kernel logistic regression learners).
    Their ``predict_proba_one`` is the online Platt map of their log-odds score f, as for every binary classifier
    (:meth:`OlkClassifier.predict_proba_one`): with their default step size and averaged output f is a shrunken
    log-odds (on Phishing at defaults 90% of the learner's own sigmoid(f) lie in 0.45-0.53), which the fitted slope
    a rescales; the model's own sigmoid(f) is ``model.learner.predict_proba_one(x)``."""


class OlkRegressor(OlkRiverModel, _river.Regressor):
    """Base of the generated regressors (finite real targets)."""

    def learn_one(self, x, y) -> None:
        """Learn from one example: the learner's ``learn_one`` on x's row with target y."""
        row = self._row(x)
        t = _plain(y)
        if isinstance(t, bool) or not isinstance(t, numbers.Real) or not math.isfinite(t):
            raise InputError(f"{self._where}: target {y!r}; a regressor learns finite numbers")
        self.learner.learn_one(row, float(t))
        self._learned()

    def predict_one(self, x, **kwargs) -> float:
        """The learner's real-valued prediction f(x)."""
        return float(self.learner.predict_one(self._row(x)))


# ================================================================================================ generation
def _former_name(learner_cls) -> str:
    """The name olk.river gave the class before the one naming rule (:func:`surface_class_name`): the learner class
    name without a leading ``Kernel`` (``Perceptron``, ``SPA``, ``NC``, ``OGDRegression``).  Still importable, with a
    DeprecationWarning (:func:`__getattr__`)."""
    name = learner_cls.__name__
    return name[len("Kernel"):] if name.startswith("Kernel") and name[len("Kernel"):][:1].isupper() else name


def _base(learner_cls) -> type:
    if learner_cls.task == "regression":
        return OlkRegressor
    return OlkProbabilisticClassifier if learner_cls.task == "probabilistic" else OlkClassifier


def _argument_error(qualname: str, names: list, kwargs: dict, e: TypeError) -> str:
    """One line for arguments ``__init__`` cannot bind: an unknown name with a did-you-mean and the parameters,
    else Python's own words (a doubled or surplus positional argument)."""
    unknown = [k for k in kwargs if k not in names]
    if not unknown:
        return f"{qualname}.__init__() {e}"
    import difflib
    close = difflib.get_close_matches(unknown[0], names, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"olk.river.{qualname}: unknown parameter {unknown[0]!r}{hint}; its parameters are: {', '.join(names)}"


def _docstring(learner_cls, base: Any) -> str:
    first = (learner_cls.__doc__ or learner_cls.display).strip().splitlines()[0]
    multiclass = learner_cls.task == "multiclass"
    kind = {OlkRegressor: "regressor", OlkProbabilisticClassifier: "probabilistic binary classifier"}.get(
        base, "multi-class classifier (any K labels)" if multiclass else "binary classifier (any two labels)")
    proba = (" (an online temperature scaling of the softmax of its K class scores, olk.tasks.OnlineTemperature)"
             if multiclass else " (an online Platt fit of its score through 0.5 at f = 0, olk.tasks.OnlinePlatt)")
    calls = "``learn_one`` / ``predict_one``" + ("" if base is OlkRegressor else " / ``predict_proba_one``" + proba)
    width = ("New feature keys widen the model (a feature it never saw is 0 in every stored support vector)."
             if learner_cls.widens else
             "Its width is fixed by the keys seen up to its first ``learn_one``: a new key later is an error.")
    lines = [
        f"River {kind} over olk's ``{learner_cls.name}`` learner: {first}",
        "",
        f"Holds a :class:`{learner_cls.__module__}.{learner_cls.__qualname__}` (the class the experiment engine "
        f"runs) and calls its {calls} on each example, a dict {{feature: number}}.  {width}",
        "",
        *parameters_doc(learner_cls, "seed", "int or None"),
    ]
    lines += ["", "Attributes", "----------",
              f"learner : {learner_cls.__qualname__}\n    The olk learner (``n_sv``, ``n_updates``, "
              f"``fitted_attributes()``, ...).",
              "columns : dict\n    Feature key -> column of the learner's rows, in the order the keys first "
              "appeared."]
    return "\n".join(lines) + "\n"


def _make(name: str) -> type:
    learner_cls = REGISTRY[name]
    clsname = surface_class_name(learner_cls)
    base = _base(learner_cls)
    ns = {"_learner_name": name, "__module__": __name__, "__qualname__": clsname,
          "__doc__": _docstring(learner_cls, base),
          "__init__": storing_init(learner_cls, clsname, seed="seed", reserved=STATE, refuse=lambda n: hasattr(base, n),
                                   explain=_argument_error, then=OlkRiverModel._build, module=__name__,
                                   doc=f"Store the parameters and build the learner (checked by the registry); see "
                                       f"{clsname}.")}
    # a learner that widens is one of River's mini-batch models (River's checks then hold learn_many to a learn_one
    # loop over a changing feature space); one that does not widen has learn_many / predict_many all the same
    bases = (base,) if not learner_cls.widens else \
        (base, _river.MiniBatchRegressor if base is OlkRegressor else _river.MiniBatchClassifier)
    return type(base)(clsname, bases, ns)


#: registry name -> River class, for every registered online learner (built once, at import)
by_name: dict[str, type] = {name: _make(name) for name in available() if not REGISTRY[name].batch}

#: class name -> class: the module attributes (``olk.river.SPAClassifier``), listed in ``__all__``
by_class_name: dict[str, type] = {c.__name__: c for c in by_name.values()}
if len(by_class_name) != len(by_name):     # pragma: no cover - two learners whose names give one class name
    raise RuntimeError("two registered learners give the same olk.river class name")
if set(by_class_name) & set(globals()):    # pragma: no cover - a learner named like a name of this module
    raise RuntimeError(f"olk.river: {sorted(set(by_class_name) & set(globals()))} would shadow a module name")
globals().update(by_class_name)

#: a former class name (before the one naming rule) -> the class's name now: ``olk.river.Perceptron`` is
#: ``olk.river.KernelPerceptronClassifier``
former_names: dict[str, str] = {_former_name(REGISTRY[n]): c.__name__ for n, c in by_name.items()
                                if _former_name(REGISTRY[n]) not in globals()}


def river_class(name: str) -> type:
    """The River class of the online learner registered as `name` (or an alias); made on first use for a learner
    registered after this module was imported (a plugin loaded with ``--plugin`` or a config's ``plugins:``).  A
    batch learner has none: a one-line ValueError."""
    from .algorithms.registry import resolve_name
    try:
        key = resolve_name(name)
    except ConfigError as e:
        raise ValueError(str(e)) from None
    cls = by_name.get(key)
    if cls is None:
        if REGISTRY[key].batch:
            raise ValueError(f"{key} is a batch learner: it has no River class (River models learn one example at "
                             f"a time); use its scikit-learn estimator")
        cls = by_name[key] = _make(key)
        by_class_name[cls.__name__] = cls
        globals()[cls.__name__] = cls
    return cls


def __getattr__(name: str):
    """A former class name (:data:`former_names`, e.g. ``olk.river.Perceptron``): the class, with a
    DeprecationWarning naming its name now; code and pickles that name it keep working."""
    new = former_names.get(name)
    if new is None:
        late = [n for n, c in list(REGISTRY._classes.items())
                if n not in by_name and not c.batch and surface_class_name(c) == name]
        if late:                        # a plugin's class, once its module is imported (pickles find it here)
            return river_class(late[0])
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings
    warnings.warn(f"olk.river.{name} is now olk.river.{new} (the class names of olk.estimators and olk.river are "
                  f"one; the former name will go)", DeprecationWarning, stacklevel=2)
    return by_class_name[new]

__all__ = ["river_class", "by_name", "by_class_name", "former_names", "OlkRiverModel", "OlkClassifier",
           "OlkProbabilisticClassifier", "OlkRegressor", *sorted(by_class_name)]
