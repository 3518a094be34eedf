"""What the multi-class online kernel classifiers share: K class scores on one SV pool.

A multi-class model keeps one score function per class, s_c(x) = sum_s W[s, c] k(x_s, x) for c = 0..K-1, all
of them over the same support vectors: the SV pool's coefficient columns are the classes (column c = class c;
a learner with an averaged output keeps a second block of K columns, :class:`MulticlassKernelLearner`'s
``cols_per_class``), so an SV stored once serves every class and one pool pass gives the K scores together.
Every column uses the learner's one kernel (``column_kernels()``: kernel 0 for all).  The budget learners
remove whole SVs, i.e. pool rows, from all K columns at once.

The protocol is the ``multiclass`` task's (:mod:`olk.tasks`): labels are class indices 0..K-1, the prediction
is the class of the largest score, ties to the smallest index (:func:`olk.tasks.predicted_class`), and
``step(i, y)`` returns that predicted class *before* the update.  The update rules are the max-score rules of
Crammer & Singer (JMLR 3, 2003) and Crammer et al. (JMLR 7, 2006, Section 7): with r_t the highest-scoring
wrong class (:func:`rival`, ties to the smallest index), the multi-class hinge loss is

    l_t = max(0, 1 - s_{y_t}(x_t) + s_{r_t}(x_t))                                           (:func:`hinge_rival`)

and an update adds x_t as one SV with coefficient +a in column y_t and -a in column r_t.  In Kesler's
construction (the vector z_t = (e_{y_t} - e_{r_t}) (x) k(x_t, .) with <W, z_t> = s_y - s_r and
||z_t||^2 = 2 k(x_t, x_t)) every such rule is its binary rule on z_t, which is how the budget learners here
carry their binary analyses over (each module says so).

Labels.  ``fit`` / ``partial_fit`` take any K >= 1 labels (numbers or strings): sorted, they are ``classes_``
and class c is ``classes_[c]``; ``predict`` returns them.  ``learn_one`` with a label never seen adds it as a
new class (its column starts at 0; the classes stay sorted, so existing columns move with their labels): the
streaming use (River).  The engine's ``bind`` + ``step`` path gets class indices and K from the task
(``expect_classes``) and never sets ``classes_``; ``predict`` then returns class indices.

>>> import numpy as np
>>> from olk.algorithms import make
>>> X = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0], [0.1, 0.0]])
>>> m = make("mc_perceptron", kernel={"type": "gaussian", "gamma": 1.0}).fit(X, ["a", "b", "c", "a"])
>>> m.classes_.tolist(), m.n_classes, m.decision_function(X[:1]).shape
(['a', 'b', 'c'], 3, (1, 3))
>>> m.predict(X).tolist()
['a', 'b', 'c', 'a']
"""
from __future__ import annotations

import math

import numpy as np

from ...tasks import predicted_class
from ..common.inputs import InputError, check_finite_X, check_finite_y, label_text, labels_text, n_rows, same_label
from ..common.learner import OnlineKernelLearner

#: 1/sqrt(2): the coefficient of a unit Kesler vector z = (e_y - e_r) (x) k(x, .) / sqrt(2) (||z||^2 = k(x, x))
KESLER = 1.0 / math.sqrt(2.0)


def rival(scores: np.ndarray, y: int) -> int:
    """r = argmax_{c != y} s_c: the highest-scoring wrong class, ties to the smallest index (-1 when K < 2)."""
    if scores.shape[0] < 2:
        return -1
    s = scores.copy()
    s[y] = -np.inf
    return int(np.argmax(s))


def hinge_rival(scores: np.ndarray, y: int) -> tuple[float, int]:
    """(l, r): the max-score multi-class hinge loss l = max(0, 1 - s_y + s_r) and its rival class r
    (:func:`rival`); (0, -1) with one class (nothing to separate)."""
    r = rival(scores, y)
    if r < 0:
        return 0.0, -1
    return max(0.0, 1.0 - scores[y] + scores[r]), r


def bpas_row_choice(A: np.ndarray, krr: np.ndarray, krt: np.ndarray, ktt: float) -> tuple[int, np.ndarray]:
    """The multi-class BPA-S removal (see :mod:`olk.algorithms.multiclass.mc_bpas`): among SV rows with
    coefficient vectors A[s] (K entries), self-kernels krr[s] and krt[s] = k(x_s, x_t), the row j minimising
    ||A[j]||^2 (k_jj - k_jt^2 / k_tt) and the coefficient vector A[j] k_jt / k_tt it hands to x_t.  Ties go to
    the lowest slot.  With k_tt = 0 the score is ||A[j]||^2 k_jj and nothing is handed over."""
    norm2 = np.zeros(A.shape[0])
    for c in range(A.shape[1]):                     # class by class: the same sums in the same order on any machine
        norm2 += A[:, c] * A[:, c]
    score = norm2 * (krr - krt * krt / ktt) if ktt > 0.0 else norm2 * krr
    j = int(np.argmin(score))
    carry = A[j] * (krt[j] / ktt) if ktt > 0.0 else np.zeros(A.shape[1])
    return j, carry


class MulticlassKernelLearner(OnlineKernelLearner):
    """An online kernel learner with K class score functions on one SV pool (the module docstring): K columns
    per block, ``cols_per_class`` blocks (1; 2 for a learner that keeps an exact average next to its last
    model, block b = columns b K .. b K + K - 1).  It keeps ``n_classes`` = K, sizes the pool's columns to it
    (``expect_classes``, or the labels ``fit`` / ``partial_fit`` / ``learn_one`` find), and gives the K scores
    of a bound row in one pass (:meth:`class_scores`), ``decision_function`` (n, K), ``predict`` (labels of
    ``classes_``) and the update vectors of the max-score rules (:meth:`pair`)."""

    task = "multiclass"
    #: coefficient columns per class (a block of K columns each)
    cols_per_class = 1

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self.n_classes = 0                            # K: no class known yet
        self.n_cols = self.cols_per_class             # one placeholder block until K is known
        self._buf = np.zeros(self.n_cols)             # the pool's decision row (every column)
        self._coef = np.zeros(self.n_cols)            # an update's coefficient vector

    def column_kernels(self) -> list[int]:
        """Every class column uses the learner's one kernel."""
        return [0] * self.n_cols

    # ----------------------------------------------------------------- classes
    def expect_classes(self, n_classes: int) -> None:
        """Labels 0..n_classes-1 follow (the ``multiclass`` task, before its pass): K = n_classes score columns
        (never fewer than the model already has)."""
        if n_classes > self.n_classes:
            self._resize(int(n_classes), np.arange(self.n_classes))

    def _adopt_classes(self, classes) -> None:
        self.classes_ = classes
        if classes is not None:
            self.expect_classes(len(classes))

    def _resize(self, K: int, pos: np.ndarray) -> None:
        """K classes from now on; old class j becomes class pos[j] (its columns move with it, new ones are 0)."""
        K0, c = self.n_classes, self.cols_per_class
        self.n_classes = K
        self.n_cols = c * max(K, 1)
        self._buf = np.zeros(self.n_cols)
        self._coef = np.zeros(self.n_cols)
        if self.pool is None:
            return
        rebuild, (state,) = self.pool.__reduce__()
        old = state["coef"]
        new = np.zeros((old.shape[0], self.n_cols))
        if K0 > 0:
            for b in range(c):
                new[:, b * K + pos] = old[:, b * K0:(b + 1) * K0]
        state["coef"] = new
        state["col_kernel"] = np.zeros(self.n_cols, dtype=np.intc)
        self.pool = rebuild(state)

    def _encode_y(self, y, n_rows: int, classes) -> tuple[np.ndarray, np.ndarray | None]:
        """Check y (one finite label per row) and map it to float64 class indices 0..K-1 of `classes` (None:
        the sorted distinct labels of y).  Returns (indices, classes); raises a one-line DataError."""
        y = self._labels_array(y, n_rows)
        if classes is None:
            if y.shape[0] == 0:
                return np.zeros(0), None
            classes = _sorted_labels(y)
            if classes.dtype.kind == "f" and not np.all(classes == np.round(classes)):
                raise InputError(f"y: Unknown label type: continuous target ({classes.size} distinct real values, "
                                 f"e.g. {labels_text(classes[:3])}) but {self.display} is a classifier: give it "
                                 f"class labels")
        return _indices(y, classes), classes

    # ----------------------------------------------------------------- scores
    def class_scores(self, i: int) -> np.ndarray:
        """s_c(x_i) of bound row i for c = 0..K-1 (a view of the pool's decision row, all columns in one pass)."""
        self.pool.decision(self.src, i, self._buf)
        return self._buf[:self.n_classes]

    def pair(self, y: int, r: int, a: float) -> np.ndarray:
        """The coefficient vector of a max-score update: +a in column y, -a in column r (block 0)."""
        v = self._coef
        v[:] = 0.0
        v[y] = a
        v[r] = -a
        return v

    def scale_all(self, factor: float) -> None:
        """Multiply every coefficient of every SV by `factor` (all K classes' columns)."""
        for c in range(self.n_cols):
            self.pool.scale_col(c, factor)

    def _output_scores(self, D: np.ndarray, output: str | None) -> np.ndarray:
        """The (n, K) class scores of output `output` from the pool's decision matrix D (every column): block 0."""
        return D[:, :self.n_classes]

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """The K class scores of every row of X: shape (n, K)."""
        if self.pool is None or self.n_classes == 0:
            check_finite_X(X)
            return np.zeros((n_rows(X), self.n_classes))
        return np.ascontiguousarray(self._output_scores(self.pool.decision_matrix(self._source_for(X)), output))

    def _labels(self, scores):
        """The labels of the classes of the largest scores (``classes_``; class indices without them)."""
        if self.n_classes == 0:
            raise InputError(f"{self.display} has learned no class yet: fit it (or learn_one) before predicting")
        idx = predicted_class(scores)
        return idx if self.classes_ is None else self.classes_[idx]

    def predict(self, X, output: str | None = None) -> np.ndarray:
        """The class of the largest score for every row of X (ties to the smallest class index), as labels of
        ``classes_`` (class indices before any fit)."""
        return self._labels(self.decision_function(X, output=output))

    # ----------------------------------------------------------------- one example at a time
    def decision_one(self, x):
        """The K class scores of one example."""
        return self.decision_function(self._one_row(x))[0]

    def predict_one(self, x):
        """The predicted label of one example (the class of its largest score)."""
        return self._labels(self.decision_one(x))

    def learn_one(self, x, y):
        """Learn from one example (see :meth:`~olk.algorithms.common.arrays.ArrayAPI.learn_one` for ``x``).  A label
        never seen before becomes a new class: ``classes_`` stays sorted and its column starts from 0 (a stream
        reveals its classes as it goes).  Returns self."""
        src = self._one_row(x)
        ya = np.asarray([y])
        check_finite_y(ya)
        if self.classes_ is None and self.n_classes > 0:         # trained on class indices (the engine's path)
            yv = float(ya[0]) if ya.dtype.kind in "iuf" else -1.0
            if not (yv == int(yv) and 0 <= yv < self.n_classes):
                raise InputError(f"y: {label_text(ya[0])} is not a class index 0..{self.n_classes - 1}, the labels "
                                 f"this model learns (it was trained without classes_)")
        else:
            if self.classes_ is None or not same_label(self.classes_, ya[0]).any():
                old = self.classes_ if self.classes_ is not None else ya[:0]
                if old.size and (old.dtype.kind in "USO") != (ya.dtype.kind in "USO"):
                    raise InputError(f"y: label {label_text(ya[0])} is not of the type of this model's classes_ "
                                     f"({labels_text(old)})")
                classes = _sorted_labels(np.concatenate([old, ya]))
                self._resize(len(classes), _indices(old, classes).astype(np.intp))
                self.classes_ = classes
            (yv,), _ = self._encode_y(ya, 1, self.classes_)
        self.bind(src)
        if getattr(self, "n_features_in_", None) is None:
            self.n_features_in_ = src.n_features
        self.step(0, yv)
        self.src = None
        return self


def _sorted_labels(y: np.ndarray) -> np.ndarray:
    """The distinct labels of y in sorted order (a one-line error for labels of mixed types)."""
    try:
        return np.unique(y)
    except TypeError:
        raise InputError(f"y: labels of mixed types cannot be ordered (e.g. {label_text(y[0])}); use labels of "
                         f"one type") from None


def _indices(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """float64 class indices of y's labels in `classes` (sorted); a label outside them is a one-line error."""
    if y.shape[0] == 0:
        return np.zeros(0)
    try:
        idx = np.clip(np.searchsorted(classes, y), 0, classes.shape[0] - 1)
        ok = np.asarray(classes[idx] == y, dtype=bool)
        ok = ok if ok.shape == y.shape else np.zeros(y.shape, dtype=bool)
    except TypeError:
        idx, ok = np.zeros(y.shape[0], dtype=np.intp), np.zeros(y.shape, dtype=bool)
    if not ok.all():
        r = int(np.argmax(~ok))
        raise InputError(f"y: row {r} (0-based) has label {label_text(y[r])}, which is not one of this model's "
                         f"classes_ ({labels_text(classes)}), fixed by its first fit/partial_fit call")
    return idx.astype(np.float64)


__all__ = ["MulticlassKernelLearner", "rival", "hinge_rival", "bpas_row_choice", "KESLER"]
