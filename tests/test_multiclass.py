"""The multiclass task and what every multi-class learner shares (olk.algorithms.multiclass.core): the task's
definitions (argmax with ties to the smallest index, class indices, label checks, the online pass and the
held-out score), labels (any K of them, strings too; classes learned one at a time by ``learn_one``), the
scikit-learn estimators, saved models, ``olk train`` / ``olk predict`` and ``olk run`` on a K-class file."""
from __future__ import annotations

import json

import numpy as np
import pytest
from _cli import run_cli

import olk
from olk.algorithms import REGISTRY, available, make
from olk.errors import DataError
from olk.tasks import TASKS, class_indices, predicted_class

MULTICLASS = [n for n in available() if REGISTRY[n].task == "multiclass"]
RBF = {"type": "gaussian", "gamma": 0.5}
PARAMS = {"mc_rbp": {"budget": 20}, "mc_forgetron": {"budget": 20}, "mc_bpas": {"budget": 20},
          "mc_bogd": {"budget": 20, "eta": 0.5}, "mc_spa": {"beta": 3}}


def _blobs(n=300, k=3, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    centres = 3.0 * np.stack([np.cos(2 * np.pi * np.arange(k) / k), np.sin(2 * np.pi * np.arange(k) / k)], 1)
    y = rng.integers(0, k, n)
    return centres[y] + spread * rng.normal(size=(n, 2)), y


def _make(name, **kw):
    return make(name, kernel=RBF, random_state=0, **{**PARAMS.get(name, {}), **kw})


# ------------------------------------------------------------------------------------------------ the task
def test_the_family_is_the_multiclass_task():
    assert MULTICLASS == ["mc_bogd", "mc_bpas", "mc_forgetron", "mc_pa1", "mc_perceptron", "mc_rbp", "mc_spa"]
    t = TASKS["multiclass"]
    assert (t.labels, t.primary, t.higher_is_better, t.test_metric, t.curve) == \
        ("classes", "accuracy", True, "test_accuracy", "mistake_rate")
    assert t.table_metrics(False) == TASKS["binary"].table_metrics(False) and t.classifier
    assert t.tradeoff_axes(True) == TASKS["binary"].tradeoff_axes(True)


def test_predicted_class_is_the_argmax_with_ties_to_the_smallest_index():
    assert predicted_class(np.array([0.0, 2.0, 2.0])) == 1
    assert predicted_class(np.zeros(4)) == 0
    np.testing.assert_array_equal(predicted_class(np.array([[1.0, 1.0], [0.0, 3.0], [-1.0, -2.0]])), [0, 1, 0])
    np.testing.assert_array_equal(class_indices([-1.0, 1.0, 1.0]), [0.0, 1.0, 1.0])     # a binary dataset's labels
    np.testing.assert_array_equal(class_indices([0.0, 4.0, 2.0]), [0.0, 4.0, 2.0])


def test_label_checks_name_the_row_and_the_fix():
    t = TASKS["multiclass"]
    t.check_labels(np.array([0.0, 3.0, 1.0]), "d", kind="multiclass")
    t.check_labels(np.array([-1.0, 1.0]), "d", kind="binary")
    with pytest.raises(DataError, match=r"^d: a multiclass learner needs class indices 0..K-1 .* row 1 \(0-based\) "
                                        r"has 1.5$"):
        t.check_labels(np.array([0.0, 1.5]), "d")
    with pytest.raises(DataError, match="row 2"):
        t.check_labels(np.array([-1.0, 1.0, 2.0]), "d")                # -1 with a third label
    with pytest.raises(DataError, match="is a regression task; a multiclass learner needs class labels"):
        t.check_labels(np.array([0.0, 1.0]), "d", kind="regression")
    with pytest.raises(DataError, match="or use a multi-class learner such as mc_pa1"):
        TASKS["binary"].check_labels(np.array([0.0, 1.0, 2.0]), "d", kind="multiclass")


@pytest.mark.parametrize("name", MULTICLASS)
def test_online_pass_counts_the_wrong_predicted_classes(name):
    X, y = _blobs(200, k=4, seed=1)
    order = np.random.default_rng(2).permutation(200)
    rec = TASKS["multiclass"].online_pass(_make(name), X, y.astype(float), order, n_checkpoints=5)
    ref = _make(name)                                  # the same steps by hand
    ref.expect_classes(4)
    ref.bind(X)
    mistakes = sum(ref.step(int(i), float(y[i])) != y[i] for i in order)
    assert rec["mistakes"] == mistakes and rec["accuracy"] == pytest.approx(100 * (1 - mistakes / 200))
    assert rec["curve"]["t"][-1] == 200 and rec["curve"]["mistake_rate"][-1] == pytest.approx(100 * mistakes / 200)
    assert rec["n_sv"] == ref.n_sv_output and 0 < mistakes < 150
    # the held-out score is the accuracy of the argmax
    m = _make(name).fit(X[:150], y[:150])
    acc = TASKS["multiclass"].test_score(m, X[150:], y[150:].astype(float))
    assert acc == pytest.approx(100 * np.mean(m.predict(X[150:]) == y[150:]))


def test_online_pass_on_a_binary_dataset_learns_classes_0_and_1():
    X, y = _blobs(100, k=2, seed=3)
    ypm = np.where(y == 1, 1.0, -1.0)
    rec = TASKS["multiclass"].online_pass(_make("mc_pa1"), X, ypm, np.arange(100))
    ref = TASKS["multiclass"].online_pass(_make("mc_pa1"), X, y.astype(float), np.arange(100))
    assert rec["mistakes"] == ref["mistakes"] and rec["n_sv"] == ref["n_sv"]


# --------------------------------------------------------------------------------------------- labels
@pytest.mark.parametrize("name", MULTICLASS)
def test_any_k_labels_strings_too(name):
    X, y = _blobs(240, k=4, seed=4)
    names = np.array(["ant", "bee", "cat", "dog"])
    m = _make(name).fit(X, names[y])
    ref = _make(name).fit(X, y)
    assert m.classes_.tolist() == names.tolist() and m.n_classes == 4
    np.testing.assert_array_equal(m.decision_function(X), ref.decision_function(X))
    np.testing.assert_array_equal(m.predict(X), names[ref.predict(X)])
    assert m.score(X, names[y]) == pytest.approx(ref.score(X, y)) and m.score(X, names[y]) > 0.5
    assert m.predict_one(X[0]) == m.predict(X[:1])[0]


def test_partial_fit_with_classes_up_front_equals_fit():
    X, y = _blobs(120, k=3, seed=5)
    whole = _make("mc_perceptron").fit(X, y)
    parts = _make("mc_perceptron").partial_fit(X[:10][y[:10] != 2], y[:10][y[:10] != 2], classes=[0, 1, 2])
    parts.partial_fit(X[10:], y[10:])
    assert parts.n_classes == 3
    # the first call learned the same rows as fit's first 10 minus class 2's: compare with that stream
    keep = np.concatenate([np.flatnonzero(y[:10] != 2), np.arange(10, 120)])
    np.testing.assert_array_equal(parts.decision_function(X), _make("mc_perceptron").partial_fit(
        X[keep], y[keep], classes=[0, 1, 2]).decision_function(X))
    with pytest.raises(DataError, match="label 7, which is not one of this model's classes_"):
        whole.partial_fit(X[:2], [0, 7])
    with pytest.raises(DataError, match="continuous target"):
        _make("mc_pa1").fit(X[:5], [0.5, 1.5, 2.25, 3.0, 0.1])


def test_learn_one_adds_unseen_classes_in_sorted_order():
    X, y = _blobs(60, k=3, seed=6)
    labels = np.array(["c", "a", "b"])[y]
    m = _make("mc_pa1")
    for x, lab in zip(X, labels):
        m.learn_one(x, lab)
    assert m.classes_.tolist() == ["a", "b", "c"] and m.n_classes == 3
    # the columns moved with their labels: each class's own rows score highest in its column
    assert np.mean(m.predict(X) == labels) > 0.8
    first = _make("mc_pa1").learn_one(X[0], labels[0])
    assert first.classes_.tolist() == [labels[0]] and first.predict_one(X[1]) == labels[0]
    with pytest.raises(DataError, match="not of the type of this model's classes_"):
        m.learn_one(X[0], 3)


def test_the_engine_path_keeps_class_indices():
    X, y = _blobs(90, k=3, seed=7)
    m = _make("mc_spa")
    m.expect_classes(3)
    m.bind(X)
    for i in range(90):
        m.step(i, float(y[i]))
    assert m.classes_ is None and set(m.predict(X).tolist()) <= {0, 1, 2}
    m.learn_one(X[0], 2)                                # a stream continues with indices
    with pytest.raises(DataError, match="not a class index 0..2"):
        m.learn_one(X[0], 3)
    with pytest.raises(DataError, match="has learned no class yet"):
        _make("mc_spa").predict(X)


# --------------------------------------------------------------------------------------- scikit-learn
def test_estimator_decision_function_shapes_follow_scikit_learn():
    X, y = _blobs(150, k=3, seed=8)
    est = olk.estimator("mc_pa1", kernel=RBF).fit(X, np.array(["x", "y", "z"])[y])
    D = est.decision_function(X)
    assert D.shape == (150, 3) and est.classes_.tolist() == ["x", "y", "z"]
    np.testing.assert_array_equal(est.classes_[D.argmax(axis=1)], est.predict(X))
    two = olk.estimator("mc_pa1", kernel=RBF).fit(X[y < 2], y[y < 2])
    d = two.decision_function(X)
    assert d.shape == (150,)
    np.testing.assert_array_equal(np.where(d > 0, 1, 0), two.predict(X))       # a tie (d = 0) is class 0
    from sklearn.model_selection import GridSearchCV
    gs = GridSearchCV(olk.estimator("mc_pa1", kernel=RBF), {"C": [0.1, 1.0]}, cv=3).fit(X, y)
    assert gs.best_params_["C"] in (0.1, 1.0) and gs.score(X, y) > 0.8


# --------------------------------------------------------------------------------------- saved models
@pytest.mark.parametrize("name", MULTICLASS)
def test_save_and_load_round_trip(name, tmp_path):
    X, y = _blobs(120, k=4, seed=9)
    m = _make(name).fit(X, np.array(["n", "e", "s", "w"])[y])
    olk.save(m, tmp_path / "m.olk")
    again = olk.load(tmp_path / "m.olk")
    assert again.classes_.tolist() == ["e", "n", "s", "w"] and again.n_classes == 4
    np.testing.assert_array_equal(again.decision_function(X), m.decision_function(X))
    np.testing.assert_array_equal(again.predict(X), m.predict(X))
    again.partial_fit(X, np.array(["n", "e", "s", "w"])[y])            # and it keeps learning
    assert again.t == 240


def test_a_binary_model_with_three_classes_is_refused(tmp_path):
    X, y = _blobs(60, k=2, seed=10)
    m = make("pa1", kernel=RBF).fit(X, y)
    m.classes_ = np.array([0, 1, 2])
    olk.save(m, tmp_path / "b.olk")
    with pytest.raises(olk.errors.OlkError, match="attribute 'classes_'"):
        olk.load(tmp_path / "b.olk")


# ----------------------------------------------------------------------------------------- the CLI
def _file(tmp_path, n=240, labels=(3, 7, 9)):
    X, y = _blobs(n, k=len(labels), seed=11)
    p = tmp_path / "k.libsvm"
    p.write_text("".join(f"{labels[c]} 1:{a:.5f} 2:{b:.5f}\n" for c, (a, b) in zip(y, X)))
    return p, np.asarray(labels)[y]


def test_train_and_predict_print_the_files_own_labels(tmp_path, capsys):
    data, labels = _file(tmp_path)
    code, _, err = run_cli(["train", data, "-a", "mc_pa1", "-k", "{type: gaussian, gamma: 0.5}",
                            "-o", tmp_path / "m.olk"], capsys)
    assert code == 0, err
    code, out, err = run_cli(["predict", tmp_path / "m.olk", data], capsys)
    pred = np.array([int(v) for v in out.split()])
    assert code == 0 and set(pred.tolist()) <= {3, 7, 9}
    correct = int((pred == labels).sum())
    assert f"accuracy = {100 * correct / len(labels):.2f}% ({correct}/{len(labels)})" in err and correct > 200
    code, _, err = run_cli(["train", data, "-a", "pa1", "-o", tmp_path / "b.olk"], capsys)      # binary: as before
    assert code == 2 and "give --positive-label L" in err and "multi-class learner" in err


def test_olk_run_on_a_k_class_file_writes_the_accuracy_table(tmp_path, capsys):
    data, _ = _file(tmp_path)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"name: mc\nrepeats: 2\nkernel: {{type: gaussian, gamma: 0.5}}\ndatasets: ['{data}']\n"
                   "algorithms: [mc_perceptron, {name: mc_spa, params: {beta: 3}}, "
                   "{name: mc_rbp, params: {budget: {match: mc_spa, stat: n_sv}}}]\n")
    code, out, err = run_cli(["run", cfg, "--out", tmp_path / "out", "--no-progress"], capsys)
    assert code == 0, err
    assert "Accuracy (%)" in out and "MC-Perceptron" in out and "MC-RBP" in out
    runs = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").read_text().splitlines()]
    main = [r for r in runs if r.get("phase", "main") == "main"]
    assert {r["task"] for r in main} == {"multiclass"}
    assert all(0 < r["accuracy"] <= 100 and r["mistakes"] == round(240 * (1 - r["accuracy"] / 100)) for r in main)
    rbp = [r for r in main if r["algorithm"] == "mc_rbp"]
    spa = [r for r in main if r["algorithm"] == "mc_spa"]
    assert rbp[0]["params"]["budget"] == round(np.mean([r["n_sv"] for r in spa]))
