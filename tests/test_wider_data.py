"""Data wider than the training data (issue 25): a file whose highest feature index is above the training file's.

A feature the model never saw is 0 in every support vector, so every kernel value is well defined: the pool is
widened to the data (``SVPool.widen``) and the scores are bit for bit those of a model trained on the same rows
declared at the wider width.  Through ``predict`` / ``decision_function``, ``partial_fit``, ``learn_one`` and
``olk predict``; the random-feature learners and LIBSVM's solver, which cannot score wider rows, say so in one
line.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import olk
from olk.algorithms import REGISTRY, available, make
from olk.cli import main
from olk.data import load_dataset

RBF = {"type": "gaussian", "gamma": 0.4}


def _data(sparse: bool):
    d = load_dataset("a9a-small")
    X, y = sp.csr_matrix(d.X), d.y
    used = int(X.indices.max()) + 1
    X = X[:, :used]                                   # the training width: its highest index
    rng = np.random.default_rng(0)
    extra = sp.csr_matrix(rng.random((X.shape[0], 2)) * (rng.random((X.shape[0], 2)) < 0.3))
    wide = sp.hstack([X, extra]).tocsr()             # two features the model never saw
    padded = sp.hstack([X, sp.csr_matrix((X.shape[0], 2))]).tocsr()
    if not sparse:
        X, wide, padded = X.toarray(), wide.toarray(), padded.toarray()
    return X, y, wide, padded


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ["perceptron", "spa", "forgetron", "omkc_dd", "klr_nc", "pegasos"])
def test_scores_of_wider_rows_equal_a_model_trained_at_that_width(name, sparse):
    X, y, wide, padded = _data(sparse)
    kernel = "spa16" if name == "omkc_dd" else RBF
    narrow = make(name, kernel=kernel, random_state=0).fit(X[:600], y[:600])
    wider = make(name, kernel=kernel, random_state=0).fit(padded[:600], y[:600])
    assert np.array_equal(narrow.decision_function(wide), wider.decision_function(wide))
    assert np.array_equal(narrow.predict(wide), wider.predict(wide))


@pytest.mark.parametrize("sparse", [False, True])
def test_partial_fit_and_learn_one_continue_on_wider_rows(sparse):
    X, y, wide, padded = _data(sparse)
    a = make("spa", kernel=RBF, random_state=0).partial_fit(X[:500], y[:500])
    a.partial_fit(wide[500:900], y[500:900])
    b = make("spa", kernel=RBF, random_state=0).partial_fit(padded[:500], y[:500])
    b.partial_fit(wide[500:900], y[500:900])
    assert np.array_equal(a.decision_function(wide), b.decision_function(wide))
    row = wide[900] if sparse else wide[900:901]
    row = sp.csr_matrix(row)
    x = {int(j): float(v) for j, v in zip(row.indices, row.data)}
    x[X.shape[1] + 5] = 0.75                                  # an index beyond even the wide data
    a.learn_one(x, y[900])
    assert a.pool.n_features == X.shape[1] + 6


def test_random_features_and_libsvm_say_why_they_cannot(tmp_path):
    X, y, wide, _ = _data(False)
    m = make("raker", kernel="amkl17", random_state=0, horizon=300).fit(X[:300], y[:300])
    with pytest.raises(ValueError, match="random features were drawn for"):
        m.predict(wide[:5])
    s = make("libsvm", kernel=RBF).fit(X[:300], y[:300])
    with pytest.raises(ValueError, match="its solver cannot score wider rows"):
        s.predict(wide[:5])


@pytest.mark.parametrize("name", [n for n in available() if REGISTRY[n].__module__.startswith("olk.")])
def test_every_learner_declares_whether_it_widens(name):
    # the ``widens`` declaration (olk.algorithms.protocol) is what the learner does: a learner that widens scores a
    # row with a feature it never saw exactly as the row padded at training time; one that does not refuses it
    cls = REGISTRY[name]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 1] if cls.task == "regression" else np.where(X[:, 0] > 0, 1.0, -1.0)
    wide = np.hstack([X, rng.normal(size=(40, 1))])
    kw = {"horizon": 40} if any(p.name == "horizon" for p in cls.params) else {}
    m = make(name, kernel=RBF, random_state=0, **kw).fit(X, y)
    if cls.widens:
        padded = make(name, kernel=RBF, random_state=0, **kw).fit(np.hstack([X, np.zeros((40, 1))]), y)
        assert np.array_equal(m.decision_function(wide), padded.decision_function(wide))
    else:
        with pytest.raises(ValueError) as e:
            m.decision_function(wide)
        assert "\n" not in str(e.value) and "4 features" in str(e.value)


def test_olk_predict_a_file_wider_than_the_training_file(tmp_path, capsys):
    X, y, wide, padded = _data(True)
    from sklearn.datasets import dump_svmlight_file
    train, test = tmp_path / "train.libsvm", tmp_path / "test.libsvm"
    dump_svmlight_file(X[:800], y[:800], str(train), zero_based=False)
    dump_svmlight_file(wide[800:], y[800:], str(test), zero_based=False)
    _ok(["train", str(train), "-a", "spa", "--kernel", "gaussian", "-o", str(tmp_path / "m.olk"), "-q"])
    _ok(["predict", str(tmp_path / "m.olk"), str(test), "-o", str(tmp_path / "p.txt")])
    assert "accuracy =" in capsys.readouterr().err
    model = olk.load(tmp_path / "m.olk")
    assert np.array_equal(np.loadtxt(tmp_path / "p.txt"), model.predict(wide[800:]))


def _ok(argv):
    try:
        main(argv)
    except SystemExit as e:
        assert e.code in (0, None)
