"""Task protocols (olk/tasks.py): each task's online loop, label check, held-out score and table
columns, against hand-computed values on a scripted learner (no learner of the probabilistic or regression
task is registered yet, so these tests are what pins those protocols)."""
import math

import numpy as np
import pytest

from olk.errors import DataError
from olk.tasks import TASKS, online_pass, task_of


class Scripted:
    """Returns scores[t] at step t (before 'learning'), like a learner's step(i, y)."""

    def __init__(self, scores, task="binary"):
        self.scores, self.task_name, self.t = list(scores), task, 0
        self.n_sv = self.n_sv_output = self.n_updates = self.kernel_evals = 0
        self.n_labels = None                # the contract's default: every label used (olk.algorithms.protocol)

    def run_summary(self):
        return {}

    def bind(self, X):
        return X

    def step(self, i, y):
        s = self.scores[self.t]
        self.t += 1
        return s

    def step_rows(self, rows, ys, out):         # the contract's binary pass (the base class's loop over step)
        out[:len(rows)] = [self.step(i, yi) for i, yi in zip(rows.tolist(), ys.tolist())]

    def decision_function(self, X, output=None):
        return np.asarray(self.scores[: X.shape[0]], dtype=float)


X = np.zeros((4, 1))


def test_binary_counts_sign_mistakes_with_sign0_positive():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    res = TASKS["binary"].online_pass(Scripted([0.0, 0.0, -2.0, -1.0]), X, y, [0, 1, 2, 3], n_checkpoints=4)
    # sign(0)=+1: right, wrong, wrong, right -> 2 mistakes
    assert res["mistakes"] == 2 and res["accuracy"] == 50.0
    assert res["curve"]["t"][-1] == 4 and res["curve"]["mistake_rate"][-1] == 50.0


def test_probabilistic_adds_the_mean_log_loss():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    scores = [0.0, 2.0, -1.0, -3.0]
    res = TASKS["probabilistic"].online_pass(Scripted(scores), X, y, [0, 1, 2, 3], n_checkpoints=4)
    p1 = [1 / (1 + math.exp(-s)) for s in scores]                       # P(y=+1)
    expected = -np.mean([math.log(p if yy > 0 else 1 - p) for p, yy in zip(p1, y)])
    assert res["log_loss"] == pytest.approx(expected, rel=1e-12)
    assert res["mistakes"] == 2                                           # s=2 on y=-1, s=-1 on y=+1
    assert res["curve"]["log_loss"][-1] == pytest.approx(expected, rel=1e-12)


def test_probabilistic_log_loss_is_clipped_not_infinite():
    res = TASKS["probabilistic"].online_pass(Scripted([-800.0]), X[:1], np.array([1.0]), [0], n_checkpoints=2)
    assert res["log_loss"] == pytest.approx(-math.log(1e-15))


def test_regression_records_online_mse_and_curve():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    res = TASKS["regression"].online_pass(Scripted([0.0, 2.0, 5.0, 4.0]), X, y, [0, 1, 2, 3], n_checkpoints=4)
    assert res["mse"] == pytest.approx((1 + 0 + 4 + 0) / 4)
    assert res["curve"]["mse"] == pytest.approx([1.0, 0.5, 5 / 3, 1.25])


def test_label_checks_are_one_line_and_name_the_row():
    with pytest.raises(DataError, match=r"row 2 \(0-based\) has 2.0"):
        TASKS["binary"].check_labels(np.array([1.0, -1.0, 2.0]), "dataset 'd'")
    with pytest.raises(DataError, match="is a multiclass task"):
        TASKS["binary"].check_labels(np.array([1.0, 2.0, 3.0]), "dataset 'd'", kind="multiclass")
    TASKS["regression"].check_labels(np.array([0.5, 2.0, -3.0]), "dataset 'd'")          # any finite target
    with pytest.raises(DataError, match="row 1 .* non-finite"):
        TASKS["regression"].check_labels(np.array([0.5, np.nan]), "dataset 'd'")


def test_held_out_scores():
    m = Scripted([1.0, -1.0, 0.0, 3.0])
    assert TASKS["binary"].test_score(m, X, np.array([1.0, 1.0, 1.0, -1.0])) == 50.0
    assert TASKS["regression"].test_score(m, X, np.array([1.0, 1.0, 0.0, 1.0])) == pytest.approx((0 + 4 + 0 + 4) / 4)


def test_table_columns_come_from_the_task():
    assert TASKS["binary"].table_metrics(batch=False) == ("accuracy", "time_s", "n_sv")
    assert TASKS["binary"].table_metrics(batch=True) == ("test_accuracy", "train_time_s", "n_sv")
    assert "log_loss" in TASKS["probabilistic"].table_metrics(batch=False)
    assert TASKS["regression"].table_metrics(batch=True)[0] == "test_mse"
    from olk.report.results import METRICS
    for t in TASKS.values():                       # every column a task asks for is one the report can format
        assert set(t.table_metrics(False)) | set(t.table_metrics(True)) <= set(METRICS)


def test_every_registered_learner_has_a_known_task_and_the_engine_uses_it():
    from olk.algorithms import make
    from olk.algorithms.registry import REGISTRY, available
    for name in available():
        assert task_of(REGISTRY[name]).name in TASKS
    d = np.random.default_rng(0)
    Xr, yr = d.normal(size=(50, 3)), np.where(d.normal(size=50) > 0, 1.0, -1.0)
    res = online_pass(make("perceptron", kernel={"type": "gaussian", "gamma": 0.5}), Xr, yr, np.arange(50))
    assert res["mistakes"] == res["n_sv"]          # the Perceptron adds one SV per mistake


def test_unknown_task_is_refused():
    class Bad:
        task = "ranking"
    with pytest.raises(ValueError, match="known tasks"):
        task_of(Bad)


def test_an_active_learner_reports_its_labelling_efficiency():
    m = Scripted([0.0, 2.0, 5.0, 4.0])
    m.n_labels = 3                                  # asked for 3 of the 4 labels
    res = TASKS["regression"].online_pass(m, X, np.array([1.0, 2.0, 3.0, 4.0]), [0, 1, 2, 3], n_checkpoints=4)
    assert res["n_labels"] == 3 and res["label_efficiency"] == 0.75
    plain = TASKS["regression"].online_pass(Scripted([0.0] * 4), X, np.zeros(4), [0, 1, 2, 3])
    assert plain["n_labels"] == 4 and plain["label_efficiency"] == 1.0     # not active: every label used
