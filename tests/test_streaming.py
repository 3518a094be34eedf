"""The streaming learner contract (issue 8): ``learn_one`` / ``predict_one`` on single examples give the
same model as the indexed pass, for every online learner; parameters are checked however a learner is built."""
import numpy as np
import pytest
import scipy.sparse as sp

from olk.algorithms import REGISTRY, available, make
from olk.errors import ConfigError, DataError

ONLINE = [n for n in available() if not REGISTRY[n].batch]


def _data(n=80, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[X < 0.3] = 0.0
    return X, np.where(X[:, 0] + 0.2 * rng.random(n) > 0.5, 1.0, -1.0)


def _kw(name):
    kw = {"budget": 6} if "budget" in {p.name for p in REGISTRY[name].params} else {}
    if REGISTRY[name].task == "regression":         # step 1/sqrt(T): a stream of single examples must be told T
        kw["horizon"] = 80
    if "eta_cap" in {p.name for p in REGISTRY[name].params}:
        kw["eta_cap"] = 0.01                        # random features: T = 80 < D^2 diverges uncapped (raker.py)
    return kw


@pytest.mark.parametrize("layout", ["dense", "sparse", "dict"])
@pytest.mark.parametrize("name", ONLINE)
def test_a_stream_of_single_examples_gives_the_partial_fit_model(name, layout):
    X, y = _data()
    XX = sp.csr_matrix(X) if layout == "sparse" else X
    whole = make(name, kernel={"type": "gaussian", "gamma": 0.7}, random_state=4, **_kw(name)).partial_fit(XX, y)
    stream = make(name, kernel={"type": "gaussian", "gamma": 0.7}, random_state=4, **_kw(name))
    if REGISTRY[name].task == "multiclass":     # a multi-class stream meets its classes one at a time (learn_one adds
        stream.partial_fit(XX[:0], y[:0], classes=np.unique(y))     # them); told them up front, it is partial_fit's
    for i in range(len(y)):
        x = {"dense": lambda: X[i], "sparse": lambda: XX[i],                # noqa: B023 - called at once, below
             "dict": lambda: {j: v for j, v in enumerate(X[i]) if v != 0.0}}[layout]()   # noqa: B023 - likewise
        stream.learn_one(x, y[i])
    np.testing.assert_array_equal(stream.decision_function(XX), whole.decision_function(XX))
    assert stream.n_sv == whole.n_sv and stream.t == whole.t == len(y)
    one, batch = [stream.predict_one(X[i]) for i in range(5)], list(whole.predict(XX[:5]))
    if REGISTRY[name].task == "regression":         # a real prediction: one row vs a matrix product (BLAS) may
        np.testing.assert_allclose(one, batch, rtol=1e-12)      # differ in the last bit
    else:
        assert one == batch


def test_learn_one_uses_the_labels_of_classes_and_refuses_others():
    X, y = _data()
    m = make("perceptron", kernel={"type": "gaussian", "gamma": 0.7}).fit(X[:40], np.where(y[:40] > 0, "pos", "neg"))
    m.learn_one(X[40], "pos")
    assert m.predict_one(X[41]) in ("pos", "neg")
    with pytest.raises(DataError, match="classes_"):
        m.learn_one(X[42], "maybe")
    with pytest.raises(DataError, match="one example"):
        m.learn_one(X[:2], "pos")


def test_a_wider_example_than_the_first_is_learned_with_the_unseen_features_zero_in_every_sv():
    m, padded = make("perceptron"), make("perceptron")
    m.learn_one(np.ones(3), 1.0)
    padded.learn_one(np.r_[np.ones(3), 0.0, 0.0], 1.0)
    m.learn_one(np.arange(5.0), -1.0)
    padded.learn_one(np.arange(5.0), -1.0)
    assert m.n_sv == padded.n_sv and m.decision_function(np.ones((1, 5))) == padded.decision_function(np.ones((1, 5)))


@pytest.mark.parametrize("name", available())
def test_building_a_learner_directly_checks_its_parameters(name):
    cls = REGISTRY[name]
    with pytest.raises(ConfigError):
        cls(no_such_parameter=1)
    numeric = [p for p in cls.params if p.check is not None]
    if numeric:
        with pytest.raises(ConfigError):
            cls(**{numeric[0].name: -1e9})


def test_cross_parameter_checks_hold_for_direct_construction():
    from olk.algorithms.single.spa import SPA
    with pytest.raises(ConfigError, match="beta >= alpha"):
        SPA(alpha=2.0, beta=1.0)
