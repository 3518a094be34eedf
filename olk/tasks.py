"""Task protocols: what one run measures, described once per task.

A learner declares its task (``task = "binary"``, ``"probabilistic"``, ``"multiclass"`` or ``"regression"``); the
dataset's labels are checked against it, the online pass records the task's metrics, batch mode scores
held-out data with them, and the tables, ``olk compare`` and ``olk report`` pick their columns from it.

* ``binary`` — the papers' online protocol (SPA Section 6.1.2): for t = 1..T predict sign(f(x_t))
  (sign(0) = +1), count a mistake when it differs from y_t in {-1, +1}, then learn.  Metrics: mistakes,
  accuracy (%), the mistake-rate learning curve; batch mode: test accuracy (%).
* ``probabilistic`` — binary labels, and the learner's score is a log-odds f(x_t): p_t = 1/(1 + e^-f)
  is its probability of +1.  Everything of ``binary`` plus the mean log-loss -log p_t(y_t) (natural
  log; p clipped to [1e-15, 1 - 1e-15], scikit-learn's convention).
* ``multiclass`` — K >= 2 classes, labels 0..K-1 (the data layer's class indices of a multiclass dataset, in the
  sorted order of its original labels; a binary dataset's -1/+1 are classes 0/1).  The learner keeps K scores
  s_0..s_{K-1}; it predicts the class of the largest, ties to the smallest class index
  (:func:`predicted_class`), and its ``step`` returns that class index.  Before the pass the task tells the
  learner K (``expect_classes``: the largest index + 1).  Metrics: mistakes (rounds whose predicted class
  differs from y_t), accuracy (%), the mistake-rate learning curve; batch mode: test accuracy (%).  Table
  columns and figure axes as ``binary``.
* ``regression`` — real-valued y_t; the score is the prediction.  Metrics: mean squared error of the
  online predictions (made before each update) and its learning curve; batch mode: test MSE.  An active
  learner (one that decides whether to ask for y_t) exposes ``n_labels``: the labelling efficiency
  n_labels / T is recorded with it (1 for every other regressor: it uses every label).

The learning-loop time covers predict + update + the metric's bookkeeping, nothing else.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial

import numpy as np

from ._lazy import unique
from .errors import DataError


def checkpoints(n: int, count: int = 50) -> np.ndarray:
    """About `count` log-spaced example counts in [1, n] (always including n): where a learning curve is sampled."""
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    pts = unique(np.round(np.geomspace(1, n, max(count, 2))).astype(np.int64))
    return pts[(pts >= 1) & (pts <= n)]


@dataclass(frozen=True)
class Task:
    name: str
    labels: str                 # what y must be: "binary" ({-1, +1}), "classes" (class indices 0..K-1) or "real"
    primary: str                # the metric tuning maximises / minimises and the tables lead with
    higher_is_better: bool
    test_metric: str            # what batch mode records on held-out data
    curve: str                  # the learning curve's y-axis column
    doc: str
    online_columns: tuple = ("accuracy", "time_s", "n_sv")             # a table's default metrics, online mode
    batch_columns: tuple = ("test_accuracy", "train_time_s", "n_sv")   # ... and batch mode
    # the figures' default axes: (x, y) of the score-vs-time figure (SPA Fig. 1 type), and the panels of the
    # parameter-sensitivity figure (SPA Fig. 2 type; the AMKL paper's Fig. 2: MSE and efficiency), online / batch
    online_tradeoff: tuple = ("time_s", "accuracy")
    batch_tradeoff: tuple = ("train_time_s", "test_accuracy")
    online_sensitivity: tuple = ("n_sv", "time_s", "accuracy")
    batch_sensitivity: tuple = ("n_sv", "train_time_s", "test_accuracy")

    @property
    def classifier(self) -> bool:
        """The task predicts classes (its score is accuracy), not real values."""
        return self.labels != "real"

    def table_metrics(self, batch: bool) -> tuple:
        """The metric columns a results table shows by default for this task (``table_layout.metrics``
        overrides them)."""
        return self.batch_columns if batch else self.online_columns

    def tradeoff_axes(self, batch: bool) -> tuple:
        """(x, y) of the score-vs-time figure (``olk plot --kind time``) for this task."""
        return self.batch_tradeoff if batch else self.online_tradeoff

    def sensitivity_metrics(self, batch: bool) -> tuple:
        """The panels of the parameter-sensitivity figure (``olk plot --kind sensitivity``) for this task."""
        return self.batch_sensitivity if batch else self.online_sensitivity

    # --------------------------------------------------------------- labels
    def check_labels(self, y, where: str, kind: str | None = None) -> None:
        """Refuse labels this task cannot learn from, in one line naming the first bad row.  ``kind`` is the
        dataset's own task as the loader found it (``binary``, ``multiclass``, ``regression``)."""
        if self.labels == "binary":
            if kind is not None and kind != "binary":
                raise DataError(f"{where} is a {kind} task; the online classifiers need binary labels {{-1,+1}} "
                                f"(set preprocess: {{positive_label: ...}})" +
                                (", or use a multi-class learner such as mc_pa1" if kind == "multiclass" else ""))
            y = np.asarray(y)
            bad = ~np.isin(y, (-1.0, 1.0))
            if bad.any():
                i = int(np.argmax(bad))
                raise DataError(f"{where}: a {self.name} learner needs labels in {{-1, +1}}; row {i} (0-based) "
                                f"has {y[i].item()!r} (set preprocess: {{positive_label: ...}} on the dataset)")
        elif self.labels == "classes":
            if kind is not None and kind not in ("binary", "multiclass"):
                raise DataError(f"{where} is a {kind} task; a {self.name} learner needs class labels (a multiclass "
                                f"or binary dataset)")
            yf = np.asarray(y, dtype=np.float64)
            binary = bool(np.any(yf == -1.0))
            bad = ~np.isin(yf, (-1.0, 1.0)) if binary else ~((yf >= 0.0) & (yf == np.round(yf)))
            if bad.any():
                i = int(np.argmax(bad))
                raise DataError(f"{where}: a {self.name} learner needs class indices 0..K-1 (a multiclass dataset) or "
                                f"the labels -1/+1 of a binary one; row {i} (0-based) has {yf[i].item()!r}")
        else:
            yf = np.asarray(y, dtype=np.float64)
            if not np.all(np.isfinite(yf)):
                i = int(np.argmax(~np.isfinite(yf)))
                raise DataError(f"{where}: row {i} (0-based) has a non-finite target {yf[i].item()!r}")

    # ----------------------------------------------------------- online pass
    def online_pass(self, model, X, y, order, n_checkpoints: int = 50, held_out: "HeldOutCurve | None" = None) -> dict:
        """One online pass of `model` over rows `order` of (X, y): the task's metrics and learning curve.
        With ``held_out``, the model's output is also scored on held-out data after the examples its
        ``points`` name (that scoring is left out of ``time_s``)."""
        if self.labels == "classes":        # class indices; the learner sizes its K score columns first
            y = class_indices(y)
            model.expect_classes(int(y.max()) + 1 if y.size else 0)
        model.bind(X)
        n = len(order)
        cps = checkpoints(n, n_checkpoints).tolist()
        if self.name == "binary":           # the learner's step_rows(), a stretch of rows at a time
            run = partial(_binary_pass, model, np.ascontiguousarray(y, dtype=np.float64),
                          np.ascontiguousarray(order, dtype=np.int64), cps, held_out)
        else:
            loop = {"probabilistic": _probabilistic_loop, "multiclass": _multiclass_loop,
                    "regression": _regression_loop}[self.name]
            run = partial(loop, model.step if held_out is None else held_out.probing(model, n),
                          np.asarray(y, dtype=np.float64).tolist(), np.asarray(order, dtype=np.int64).tolist(), cps)
        t0 = time.perf_counter()
        if held_out is not None:
            held_out.start(t0)
        res = run()
        res["time_s"] = time.perf_counter() - t0 - (held_out.paused if held_out is not None else 0.0)
        res.update({"n_examples": n, "n_sv": model.n_sv_output, "n_sv_last": model.n_sv,
                    "n_updates": model.n_updates, "kernel_evals": model.kernel_evals})
        summary = model.run_summary()
        if summary:
            res["summary"] = summary
        if model.n_labels is not None:
            res["n_labels"] = int(model.n_labels)
            res["label_efficiency"] = model.n_labels / n if n else float("nan")
        elif self.name == "regression":     # a learner that is not active uses every label: rho = 1 (AMKL Table III)
            res["n_labels"] = n
            res["label_efficiency"] = 1.0 if n else float("nan")
        return res

    # ----------------------------------------------------------- batch mode
    def train(self, model, X, y, order, n_checkpoints: int = 50, *, epochs: int | None = None,
              held_out: "HeldOutCurve | None" = None) -> dict:
        """Batch mode's training on (X, y): a batch learner (``batch``) with one ``fit`` in the row order
        ``order``, probed on held-out data after each outer iteration when it ``reports_progress`` and
        ``held_out`` is given; an online learner with ``epochs`` online passes over ``order`` (the online metrics
        stay the first pass's; time, #SV and counters add up).  Returns the training part of the record."""
        if model.batch:
            t0 = time.perf_counter()
            if held_out is not None and model.reports_progress:
                held_out.start(t0)                  # point k = the model after its k-th outer iteration
                model.fit(X, y, order, probe=lambda: held_out.probe(model, len(held_out.rows) + 1))
            else:
                model.fit(X, y, order)
            elapsed = time.perf_counter() - t0 - (held_out.paused if held_out is not None else 0.0)
            rec = {"n_examples": int(X.shape[0]), "n_sv": model.n_sv, "n_sv_last": model.n_sv,
                   "n_updates": model.n_updates, "time_s": elapsed, "kernel_evals": model.kernel_evals}
            summary = model.run_summary()
            if summary:
                rec["summary"] = summary
        else:
            rec = self.online_pass(model, X, y, order, n_checkpoints, held_out=held_out)
            for _ in range(1, epochs or 1):         # more passes (the OKS paper's two epochs)
                more = self.online_pass(model, X, y, order, n_checkpoints)
                rec.update({"time_s": rec["time_s"] + more["time_s"],
                            **{k: more[k] for k in ("n_sv", "n_sv_last", "n_updates", "kernel_evals", "summary")
                               if k in more}})
        if held_out is not None:
            rec["test_curve"] = held_out.to_record()
        rec["train_time_s"] = rec["time_s"]
        return rec

    def test(self, model, Xt, yt, output=None) -> dict:
        """Batch mode's held-out part of the record: the test metric of the output classifier ``output`` (the
        learner's ``output`` parameter) and, for a learner with several ``outputs``, the metric of each."""
        outputs = tuple(model.outputs)
        by_out = {o: self.test_score(model, Xt, yt, output=o) for o in outputs}
        rec: dict = {self.test_metric: by_out[output] if outputs else self.test_score(model, Xt, yt)}
        if outputs:
            rec[f"{self.test_metric}_by_output"] = by_out
        rec["n_test"] = int(len(yt))
        return rec

    # ------------------------------------------------------------ held-out
    def test_score(self, model, Xt, yt, output=None) -> float:
        """The batch-mode metric of `model`'s output classifier/regressor ``output`` on (Xt, yt)."""
        yt = np.asarray(yt, dtype=np.float64)
        if not len(yt):
            return float("nan")
        f = model.decision_function(Xt, output=output)
        if self.labels == "binary":
            return 100.0 * float(np.mean(np.where(f >= 0.0, 1.0, -1.0) == yt))      # sign(0) = +1
        if self.labels == "classes":                                               # argmax of the K scores
            return 100.0 * float(np.mean(predicted_class(f) == class_indices(yt)))
        return float(np.mean((f - yt) ** 2))


def test_points(n: int, count: int) -> list[int]:
    """`count` evenly spaced example counts in [1, n], ending at n: where a held-out curve is scored (the
    papers plot test accuracy against a linear number of examples)."""
    if n <= 0 or count <= 0:
        return []
    return sorted({max(1, int(round(n * k / count))) for k in range(1, count + 1)})


#: where a results directory keeps the held-out curves (one row per probe of a run) and its columns: the
#: fields of :meth:`HeldOutCurve.to_record` (the last two: the binary / regression tasks' test metric)
TEST_CURVES = "test_curves.csv"
TEST_CURVE_COLUMNS = ["run_id", "t", "n_sv", "train_time_s", "test_accuracy", "test_mse"]


class HeldOutCurve:
    """Test-set scores of a model's output classifier during its training: (examples or iterations seen,
    #SV of the output, training time so far, the task's test metric) at each probe.  The probes' own time is
    kept in ``paused``, so training times exclude it (the papers' accuracy-vs-training-time curves)."""

    def __init__(self, task: "Task", Xt, yt, output=None, count: int = 10):
        self.task, self.Xt, self.yt, self.output, self.count = task, Xt, yt, output, count
        self.rows: list[tuple] = []
        self.paused = 0.0
        self._t0 = 0.0

    def start(self, t0: float | None = None) -> None:
        self._t0 = time.perf_counter() if t0 is None else t0
        self.paused = 0.0

    def probe(self, model, t: int) -> None:
        """Score ``model`` now, after ``t`` examples (online) or outer iterations (batch)."""
        t_in = time.perf_counter()
        score = self.task.test_score(model, self.Xt, self.yt, output=self.output)
        self.rows.append((int(t), int(model.n_sv_output), t_in - self._t0 - self.paused, score))
        self.paused += time.perf_counter() - t_in

    def points(self, n: int) -> list[int]:
        """The example counts after which a pass of `n` examples is probed (:func:`test_points`)."""
        return test_points(n, self.count)

    def probing(self, model, n: int):
        """``model.step`` wrapped to probe after the examples ``test_points(n, count)`` name."""
        points = iter(self.points(n))
        nxt = [next(points, -1), 0]
        step = model.step

        def probing_step(i, yi):
            s = step(i, yi)
            nxt[1] += 1
            if nxt[1] == nxt[0]:
                self.probe(model, nxt[1])
                nxt[0] = next(points, -1)
            return s
        return probing_step

    def to_record(self) -> dict:
        """The curve as a record field: {t, n_sv, train_time_s, <test metric>} lists."""
        cols = list(zip(*self.rows)) if self.rows else [(), (), (), ()]
        return {"t": list(cols[0]), "n_sv": list(cols[1]), "train_time_s": list(cols[2]),
                self.task.test_metric: list(cols[3])}


def log_odds_to_proba(score):
    """P(y = +1) = 1 / (1 + e^-f) of a log-odds score f (scalar or array; scipy's overflow-free expit).  The
    ``probabilistic`` task's one definition of a score's probability: its online log-loss and every
    learner's ``predict_proba`` (:class:`~olk.algorithms.logistic.LogisticOutput`) use it."""
    from scipy.special import expit
    return expit(score)


def margin_proba(scores) -> np.ndarray:
    """UNCALIBRATED class probabilities of a classifier that has no probability model nor a fitted map
    (scikit-learn's batch classifiers but the KLR ones, and its multi-class ones): a fixed monotone map of its
    scores, so that ranking metrics (ROC AUC) and tools that need ``predict_proba`` work; not a calibrated
    probability (for one, wrap the estimator in scikit-learn's ``CalibratedClassifierCV``).  Binary scores f (n,)
    give (n, 2) [sigmoid(-f), sigmoid(f)] (the score read as log-odds, as :func:`log_odds_to_proba`); multi-class
    scores (n, K) their row-wise softmax.

    >>> margin_proba(np.array([0.0, 2.0])).round(3).tolist()
    [[0.5, 0.5], [0.119, 0.881]]
    >>> margin_proba(np.array([[1.0, 1.0, 1.0]])).round(3).tolist()
    [[0.333, 0.333, 0.333]]
    """
    from scipy.special import softmax
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 2:
        return softmax(s, axis=1)
    return np.column_stack([log_odds_to_proba(-s), log_odds_to_proba(s)])    # not 1 - p: no 0 for a large margin


class OnlinePlatt:
    """An online Platt fit (Platt 1999) without intercept, for a stream: P(+1 | f) = sigmoid(a f / s), where f is a
    binary classifier's score, s the root mean square of the scores learned from so far (so the map is the same
    whatever the score's scale) and a follows one logistic-loss gradient step of size 1/sqrt(n) per learned (f,
    label), kept >= 1e-6: at every moment a monotone increasing map of the margin (the ranking of the scores is
    kept) that is 0.5 at f = 0, so P(+1 | f) > 0.5 exactly where the classifier predicts +1 (f > 0) and < 0.5 where
    it predicts -1: the most probable label is the prediction.  (Platt's intercept b, sigmoid(a f / s + b), would
    move the 0.5 point off f = 0, and River, which reads a label from the largest probability when a probability
    metric is asked for, would then score another classifier than ``predict_one``'s.)  Before any label a = 1,
    s = 1: sigmoid(f).  Deterministic: the same (f, label) sequence, the same map.

    >>> p = OnlinePlatt()
    >>> round(p.proba(0.0), 3), round(p.proba(2.0), 3)
    (0.5, 0.881)
    >>> for f, y in [(0.01, 1), (-0.01, 0), (0.02, 1), (-0.03, 0)] * 20:
    ...     p.learn(f, y)
    >>> p.proba(0.02) > 0.8 and p.proba(-0.02) < 0.2, p.proba(0.0)
    (True, 0.5)
    """

    def __init__(self):
        self.a, self.n, self.sq = 1.0, 0, 0.0

    def _z(self, f: float) -> float:
        r = math.sqrt(self.sq / self.n) if self.n else 0.0      # 0 too when sq / n underflows (tiny scores)
        return f / r if r > 0.0 else f

    def proba(self, f: float) -> float:
        """P(+1 | score f) now."""
        return float(log_odds_to_proba(self.a * self._z(f)))

    def learn(self, f: float, positive: bool) -> None:
        """One step on the score f of an example whose label is the +1 side (`positive`) or not."""
        self.n += 1
        self.sq += f * f
        z = self._z(f)
        g = float(log_odds_to_proba(self.a * z)) - (1.0 if positive else 0.0)
        self.a = max(self.a - g * z / math.sqrt(self.n), 1e-6)

    def log_odds(self, f) -> np.ndarray:
        """a f / s of an array of scores: the map's log-odds, from which :func:`margin_proba` and
        :func:`margin_log_proba` give the (n, 2) probabilities (scikit-learn's ``predict_proba``)."""
        r = math.sqrt(self.sq / self.n) if self.n else 0.0
        f = np.asarray(f, dtype=np.float64)
        return self.a * (f / r if r > 0.0 else f)

    def state(self) -> dict:
        """(a, n, sq) as plain numbers, what a scikit-learn estimator keeps (and ``olk.save`` writes)."""
        return {"a": self.a, "n": self.n, "sq": self.sq}

    @classmethod
    def of_state(cls, state: dict | None) -> OnlinePlatt:
        """The map of a :meth:`state` (None: a new map)."""
        m = cls()
        if state is not None:
            m.a, m.n, m.sq = float(state["a"]), int(state["n"]), float(state["sq"])
        return m


class OnlineTemperature:
    """Online temperature scaling (Guo et al., ICML 2017, fitted online), for a multi-class stream: P(class c | s) =
    softmax(a z)_c, where s holds the K class scores, z = (s - mean(s)) / r with r the root mean square of the
    centred scores learned from so far (so the map is the same whatever the scores' scale) and a follows one
    cross-entropy gradient step of size 1/sqrt(n) per learned (s, class), kept >= 1e-6.  One parameter for every
    class, so at every moment P(c | s) increases with s_c and the argmax is the scores' (the prediction is kept);
    any K, a K that grows as classes appear included.  Before any label a = 1, r = 1: the softmax of the scores
    (:func:`margin_proba`).  Deterministic: the same (s, class) sequence, the same map.

    >>> t = OnlineTemperature()
    >>> t.proba(np.array([2.0, 0.0, 0.0])).round(3).tolist()
    [0.787, 0.107, 0.107]
    >>> for s, c in [([9.0, 0.0, 1.0], 0), ([1.0, 8.0, 0.0], 0), ([0.0, 1.0, 9.0], 2)] * 30:   # over-confident
    ...     t.learn(np.array(s), c)
    >>> t.a < 1.0, int(t.proba(np.array([9.0, 0.0, 1.0])).argmax())
    (True, 0)
    """

    def __init__(self):
        self.a, self.n, self.sq = 1.0, 0, 0.0

    def _z(self, s: np.ndarray) -> np.ndarray:
        z = s - s.mean()
        r = math.sqrt(self.sq / self.n) if self.n else 0.0      # 0 too when sq / n underflows (tiny scores)
        return z / r if r > 0.0 else z

    def proba(self, s) -> np.ndarray:
        """P(class c | scores s) now, for c = 0..K-1 (summing to 1)."""
        z = self.a * self._z(np.asarray(s, dtype=np.float64))
        e = np.exp(z - z.max())
        return e / e.sum()

    def learn(self, s, c: int) -> None:
        """One step on the K scores s of an example of class c (its index in s)."""
        s = np.asarray(s, dtype=np.float64)
        self.n += 1
        self.sq += float(np.mean((s - s.mean()) ** 2))
        z = self._z(s)
        p = np.exp(self.a * z - (self.a * z).max())
        g = float(p @ z) / float(p.sum()) - float(z[c])        # d/da of -log softmax(a z)_c
        self.a = max(self.a - g / math.sqrt(self.n), 1e-6)


def margin_log_proba(scores) -> np.ndarray:
    """log of :func:`margin_proba`, computed without underflow."""
    from scipy.special import log_softmax
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 2:
        return log_softmax(s, axis=1)
    return np.column_stack([-np.logaddexp(0.0, s), -np.logaddexp(0.0, -s)])


def predicted_class(scores):
    """The ``multiclass`` task's prediction: the index of the largest of the K class scores, ties to the smallest
    index (numpy's argmax).  One score vector (K,) gives an int; a matrix (n, K) the n classes of its rows."""
    s = np.asarray(scores)
    if s.ndim == 1:
        return int(np.argmax(s))
    return np.argmax(s, axis=1)


def class_indices(y) -> np.ndarray:
    """The ``multiclass`` task's labels as float64 class indices: a multiclass dataset's 0..K-1 as they are, a
    binary dataset's -1/+1 as classes 0/1 (its two labels in sorted order)."""
    y = np.asarray(y, dtype=np.float64)
    return np.where(y == -1.0, 0.0, y)


def _mistake_summary(mistakes: int, n: int, curve_t: list, curve_m: list) -> dict:
    """A classification pass's record: mistakes, online accuracy and the mistake-rate curve at the checkpoints.
    (The loops stay one per task: the per-example test is inlined in each, on the hot path.)"""
    return {"mistakes": mistakes, "accuracy": 100.0 * (1.0 - mistakes / n) if n else float("nan"),
            "curve": {"t": curve_t, "mistake_rate": [100.0 * m / c for m, c in zip(curve_m, curve_t)]}}


def _multiclass_loop(step, ylist, olist, cps):
    cp_iter = iter(cps)
    next_cp = next(cp_iter, -1)
    curve_t, curve_m = [], []
    mistakes = 0
    t = 0
    for i in olist:
        yi = ylist[i]
        if step(i, yi) != yi:                # step returns the predicted class index
            mistakes += 1
        t += 1
        if t == next_cp:
            curve_t.append(t)
            curve_m.append(mistakes)
            next_cp = next(cp_iter, -1)
    return _mistake_summary(mistakes, len(olist), curve_t, curve_m)


#: rows per ``step_rows`` call of the binary pass: the scores' buffer (64 KB) stays in the cache
STRETCH = 8192


def step_stretches(model, y, order, stops):
    """``model.step_rows`` over the rows ``order`` (labels ``y[order]``) a stretch of at most :data:`STRETCH` rows
    at a time, every stretch ending at or before the next of ``stops`` (sorted example counts, the last one
    ``len(order)``).  Yields (examples so far, the stretch's labels, its scores) after each stretch; the scores'
    buffer is reused."""
    n = order.shape[0]
    out = np.empty(min(n, STRETCH))
    a = 0
    for stop in stops:
        while a < stop:
            b = min(stop, a + STRETCH)
            rows = order[a:b]
            ys = y[rows]
            f = out[:b - a]
            model.step_rows(rows, ys, f)
            a = b
            yield b, ys, f


def _binary_pass(model, y, order, cps, held_out=None):
    """The binary task's online pass: :func:`step_stretches` (stretches end at every checkpoint and held-out probe
    point), a mistake where sign(f) != y (sign(0) = +1: ``f >= 0`` predicts +1), the cumulative mistakes at each
    checkpoint."""
    n = order.shape[0]
    probes = set(held_out.points(n)) if held_out is not None else set()
    stops = set(cps)
    curve_t, curve_m = [], []
    mistakes = 0
    for t, ys, f in step_stretches(model, y, order, sorted(stops | probes | {n})):
        mistakes += int(np.count_nonzero((f >= 0.0) != (ys > 0.0)))
        if t in stops:
            curve_t.append(t)
            curve_m.append(mistakes)
        if t in probes:
            held_out.probe(model, t)
    return _mistake_summary(mistakes, n, curve_t, curve_m)


_EPS = 1e-15


def _probabilistic_loop(step, ylist, olist, cps):
    cp_iter = iter(cps)
    next_cp = next(cp_iter, -1)
    curve_t, curve_m, curve_l = [], [], []
    mistakes = 0
    logloss = 0.0
    t = 0
    for i in olist:
        yi = ylist[i]
        s = step(i, yi)
        if (s >= 0.0) != (yi > 0.0):
            mistakes += 1
        p = 1.0 / (1.0 + math.exp(-s)) if s >= -700.0 else 0.0         # log_odds_to_proba(s), scalar
        p = min(max(p if yi > 0.0 else 1.0 - p, _EPS), 1.0 - _EPS)
        logloss -= math.log(p)
        t += 1
        if t == next_cp:
            curve_t.append(t)
            curve_m.append(mistakes)
            curve_l.append(logloss / t)
            next_cp = next(cp_iter, -1)
    n = len(olist)
    out = _mistake_summary(mistakes, n, curve_t, curve_m)
    out["log_loss"] = logloss / n if n else float("nan")
    out["curve"]["log_loss"] = curve_l
    return out


def _regression_loop(step, ylist, olist, cps):
    cp_iter = iter(cps)
    next_cp = next(cp_iter, -1)
    curve_t, curve_e = [], []
    sq = 0.0
    t = 0
    for i in olist:
        yi = ylist[i]
        s = step(i, yi)
        sq += (s - yi) * (s - yi)
        t += 1
        if t == next_cp:
            curve_t.append(t)
            curve_e.append(sq / t)
            next_cp = next(cp_iter, -1)
    n = len(olist)
    return {"mse": sq / n if n else float("nan"), "curve": {"t": curve_t, "mse": curve_e}}


TASKS: dict[str, Task] = {t.name: t for t in (
    Task("binary", "binary", "accuracy", True, "test_accuracy", "mistake_rate",
         "binary classification: online mistakes / accuracy, test accuracy"),
    Task("probabilistic", "binary", "accuracy", True, "test_accuracy", "mistake_rate",
         "probabilistic binary classification: binary's metrics plus the online log-loss",
         online_columns=("accuracy", "log_loss", "time_s", "n_sv")),
    Task("multiclass", "classes", "accuracy", True, "test_accuracy", "mistake_rate",
         "multi-class classification (K >= 2 classes, argmax of K scores): online mistakes / accuracy, test "
         "accuracy"),
    Task("regression", "real", "mse", False, "test_mse", "mse",
         "regression: online and test mean squared error (+ labelling efficiency for active learners)",
         online_columns=("mse", "time_s", "n_sv"), batch_columns=("test_mse", "train_time_s", "n_sv"),
         online_tradeoff=("time_s", "mse"), batch_tradeoff=("train_time_s", "test_mse"),
         online_sensitivity=("mse", "label_efficiency"), batch_sensitivity=("test_mse", "train_time_s")),
)}


def task_of(learner_cls) -> Task:
    """The protocol of a learner class (its ``task`` attribute)."""
    name = learner_cls.task
    if name not in TASKS:
        raise ValueError(f"{learner_cls.__name__}.task = {name!r}; known tasks: {', '.join(TASKS)}")
    return TASKS[name]


def online_pass(model, X, y, order, n_checkpoints: int = 50) -> dict:
    """The online pass of `model`'s own task (see :class:`Task`)."""
    return task_of(type(model)).online_pass(model, X, y, order, n_checkpoints)
