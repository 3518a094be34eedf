"""scikit-learn conformance: the estimator of every registered learner (:mod:`olk.estimators`, generated from the
registry) runs scikit-learn's own estimator suite (``sklearn.utils.estimator_checks.parametrize_with_checks``).

One instance per learner, with its DEFAULT parameters and ``random_state=0`` (what a new user gets: an SVC-style
``gamma='scale'`` kernel, the regressors' anytime step and running target scale).  A check that cannot apply to an
online kernel method would be listed in :data:`EXPECTED_FAILURES` for the learners it concerns, with the reason;
today none is: every check passes for every estimator.  The slow part is SimpleMKL (~1 s a check); the whole file
takes ~45 s on a loaded 2-core machine.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

import olk
from olk.algorithms import available
from olk.algorithms.registry import REGISTRY
from olk.estimators import by_name

RBF = {"type": "gaussian", "gamma": 0.5}
NAMES = available()

def _instance(name):
    """The estimator with its defaults (``random_state=0`` fixes a stochastic learner's draws)."""
    return by_name[name](random_state=0)


ESTIMATORS = [_instance(n) for n in NAMES]

#: {learner name: {check name: reason}}: the checks that cannot apply to an online kernel method (none today)
EXPECTED_FAILURES: dict[str, dict[str, str]] = {}


def expected_failures(est) -> dict:
    return EXPECTED_FAILURES.get(est._learner_name, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_every_learner_has_an_estimator():
    assert sorted(by_name) == NAMES
    assert len({type(e).__name__ for e in ESTIMATORS}) == len(NAMES)


# --------------------------------------------------------------------------------- model selection
def test_grid_search_over_spa_beta():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] > 0, "pos", "neg")
    gs = GridSearchCV(olk.estimator("spa", kernel=RBF, random_state=0), {"beta": [2.0, 20.0]}, cv=3).fit(X, y)
    assert gs.best_params_["beta"] in (2.0, 20.0)
    assert gs.best_estimator_.classes_.tolist() == ["neg", "pos"]
    assert gs.best_estimator_.n_features_in_ == 3
    # the refit best model is the one the estimator (and the learner itself) gives with that beta
    ref = olk.estimator("spa", kernel=RBF, random_state=0, beta=gs.best_params_["beta"]).fit(X, y)
    np.testing.assert_array_equal(gs.predict(X), ref.predict(X))
    perm = np.random.RandomState(0).permutation(len(y))     # fit's order: shuffle=True draws it from random_state
    learner = olk.algorithms.make("spa", kernel=RBF, random_state=0, beta=gs.best_params_["beta"]).fit(X, y, perm)
    np.testing.assert_array_equal(gs.best_estimator_.decision_function(X), learner.decision_function(X))
    assert gs.score(X, y) > 0.8


def test_pipeline_and_clone():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    rng = np.random.default_rng(4)
    X = 5 * rng.normal(size=(150, 4))
    y = np.where(X[:, 0] > 0, 1, 0)
    pipe = make_pipeline(StandardScaler(), olk.estimator("pa1", kernel=RBF)).fit(X, y)
    assert pipe.score(X, y) > 0.8
    est = olk.estimator("spa", beta=5, random_state=1)
    est.fit(X, y)
    fresh = clone(est)
    assert fresh.get_params() == est.get_params() and not hasattr(fresh, "learner_")


def test_classifier_and_regressor_types():
    for est in ESTIMATORS:
        reg = REGISTRY[est._learner_name].task == "regression"
        assert is_regressor(est) is reg and is_classifier(est) is (not reg), est._learner_name


@pytest.mark.parametrize("name", ["perceptron", "libsvm"])
def test_a_third_label_is_a_value_error(name):
    X = np.random.default_rng(0).normal(size=(9, 2))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        olk.estimator(name, kernel=RBF).fit(X, np.arange(9) % 3)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        olk.algorithms.make(name, kernel=RBF).fit(X, np.arange(9) % 3)
