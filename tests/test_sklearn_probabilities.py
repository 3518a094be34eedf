"""scikit-learn's ``predict_proba`` of the online binary classifiers, the kernel logistic regression ones included
(issue 47): sigmoid(a f(x) / s), the online Platt map (:class:`olk.tasks.OnlinePlatt`, River's map too) fitted by
``fit`` / ``partial_fit`` on the scores the pass predicted each example with before learning it.

At their defaults the online KLR learners' own log-odds are shrunk towards 0 (step 0.1, averaged output): on
scikit-learn's breast cancer data ``make_pipeline(StandardScaler(), NCClassifier())`` classified 92.3% of a held-out
quarter with a log loss of 0.413 from its own sigmoid(f); the map gives 0.277.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import olk
from olk.algorithms import available, make
from olk.algorithms.registry import REGISTRY
from olk.tasks import OnlinePlatt

RBF = {"type": "gaussian", "gamma": 0.5}
ONLINE_BINARY = [n for n in available() if not REGISTRY[n].batch and REGISTRY[n].task in ("binary", "probabilistic")]


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, "yes", "no")


@pytest.mark.parametrize("name", ["perceptron", "spa", "klr_nc", "fogd", "omkc_sd"])
def test_the_map_is_the_online_platt_fit_of_the_pass_scores(name):
    """proba_map_ is OnlinePlatt fed, in the order learned, with the score each example got before it was learned
    (the learner's own pass, through ArrayAPI.fit's scores=), for the first epoch; predict_proba is sigmoid(a f /
    s) of decision_function; the most probable label is predict's."""
    X, y = _data()
    est = olk.estimator(name, kernel=RBF, random_state=2, n_epochs=2).fit(X, y)
    perm = np.random.RandomState(2).permutation(len(y))
    buf = np.empty(len(y))
    make(name, kernel=RBF, random_state=2).fit(X[perm], y[perm], scores=buf)
    ref = OnlinePlatt()
    for f, label in zip(buf, y[perm]):
        ref.learn(float(f), label == "yes")
    assert est.proba_map_ == ref.state() and est.proba_map_["n"] == len(y)
    f = est.decision_function(X)
    P = est.predict_proba(X)
    np.testing.assert_allclose(P[:, 1], 1.0 / (1.0 + np.exp(-ref.log_odds(f))), rtol=1e-12)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert ((P[:, 1] > 0.5) == (f > 0)).all() or (f == 0).any()
    np.testing.assert_array_equal(est.classes_[(P[:, 1] > 0.5).astype(int)][f != 0], est.predict(X)[f != 0])


@pytest.mark.parametrize("name", ONLINE_BINARY)
def test_partial_fit_continues_the_map_as_one_pass_would(name):
    """Any split into partial_fit batches gives the map of one fit in the same order (and the same model)."""
    X, y = _data()
    kernel = RBF if REGISTRY[name].max_kernels == 1 else [RBF, {"type": "gaussian", "gamma": 2.0}]   # not 'scale':
    kw = {"horizon": 120} if any(p.name == "horizon" for p in REGISTRY[name].params) else {}   # T of 1/sqrt(T)
    one = olk.estimator(name, kernel=kernel, random_state=0, shuffle=False, **kw).fit(X, y)  # first batch's data
    est = olk.estimator(name, kernel=kernel, random_state=0, **kw)
    for a, b in [(0, 1), (1, 50), (50, 120)]:
        est.partial_fit(X[a:b], y[a:b], classes=["no", "yes"])
    assert est.proba_map_ == one.proba_map_
    np.testing.assert_array_equal(est.predict_proba(X), one.predict_proba(X))


def test_a_saved_estimator_keeps_its_map(tmp_path):
    X, y = _data()
    est = olk.estimator("klr_nc", kernel=RBF, random_state=0).fit(X, y)
    olk.save(est, tmp_path / "k.olk")
    back = olk.load(tmp_path / "k.olk")
    assert back.proba_map_ == est.proba_map_
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))


@pytest.mark.parametrize("name", ["klr_nc", "klr_margin", "klr_aux"])
def test_the_klr_estimators_give_useful_probabilities_at_their_defaults(name):
    """make_pipeline(StandardScaler(), <KLR>(random_state=0)) on breast cancer, a stratified held-out quarter: ROC
    AUC above 0.95 and a log loss below 0.32 (measured: NC 0.968 / 0.277, Margin 0.966 / 0.281, Auxiliary 0.961 /
    0.297), where the learner's own sigmoid(f) gives 0.41-0.55."""
    X, y = load_breast_cancer(return_X_y=True)
    Xa, Xb, ya, yb = train_test_split(X, y, random_state=0, stratify=y)
    pipe = make_pipeline(StandardScaler(), olk.estimator(name, random_state=0)).fit(Xa, ya)
    P = pipe.predict_proba(Xb)[:, 1]
    own = pipe[-1].learner_.predict_proba(pipe[0].transform(Xb))[:, 1]
    assert roc_auc_score(yb, P) > 0.95 and log_loss(yb, P) < 0.32, (roc_auc_score(yb, P), log_loss(yb, P))
    assert log_loss(yb, own) > 0.4                         # the flat scale the map corrects
