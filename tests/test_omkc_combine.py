"""``combine: vote | vote_plus | real`` of the unbounded OMKC learners (olk/algorithms/multikernel/omkc_dd.py,
COMBINE): the default vote sum_i theta_i sign(f_i(x)) (sign(0) = 0), the vote with sign(0) = +1, and the real-valued
sum_i theta_i f_i(x), by hand on the tiny stream of tests/test_omkc_dd.py, and 'the combination changes the prediction
only' on real data."""
import numpy as np
import pytest
from test_omkc_dd import TWO, X4, Y4, Draws, run

from olk.algorithms import make
from olk.data import load_dataset
from olk.errors import ConfigError
from olk.kernels import KernelSet

UNBOUNDED = ["omkc_dd", "omkc_u", "omkc_ddpa", "omkc_sd", "omkc_sdpa"]


def test_default_is_the_vote():
    for name in UNBOUNDED:
        assert make(name, kernel=TWO).combine == "vote"
    with pytest.raises(ConfigError):
        make("omkc_u", kernel=TWO, combine="mean")


def test_dd_real_by_hand():
    m = make("omkc_dd", kernel=TWO, discount=0.5, combine="real")
    scores = run(m, X4, Y4)
    # the classifiers and weights of test_dd_by_hand; only the combined score differs:
    # t=1 f=(0,0): 0;  t=2 f=(2,9), theta (.5,.5): 5.5 (vote: 1);  t=3 f=(1,-1): 0;
    # t=4 f=(0,1), theta (2/3,1/3): 1/3 (vote: 1/3, since f0 = 0 abstains and f1 = 1)
    assert scores == pytest.approx([0.0, 5.5, 0.0, 1 / 3], abs=1e-15)
    np.testing.assert_allclose(m.pool.coefs, [[1, 1], [-1, -1], [0, 1], [1, 0]])
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-15)
    x = np.array([[1.0], [-3.0]])            # f0 = -x, f1 = -2x^2 - 4x + 1: f = (-1, -5), (3, -5)
    np.testing.assert_allclose(m.decision_function(x), [-3.0, -1.0], rtol=1e-14)   # .5 f0 + .5 f1
    # the vote gives (-1, 0) there, so x = -3 is +1 by the vote (sign(0) = +1) and -1 by the real sum
    np.testing.assert_array_equal(m.predict(x), [-1, -1])
    vote = make("omkc_dd", kernel=TWO, discount=0.5)
    run(vote, X4, Y4)
    np.testing.assert_array_equal(vote.predict(x), [-1, 1])


def test_dd_vote_plus_by_hand():
    m = make("omkc_dd", kernel=TWO, discount=0.5, combine="vote_plus")
    scores = run(m, X4, Y4)
    # the classifiers and weights of test_dd_by_hand; a classifier scoring 0 votes +1 instead of abstaining:
    # t=1 f=(0,0): .5 + .5 = 1 (vote: 0);  t=2 f=(2,9): 1;  t=3 f=(1,-1): 0;
    # t=4 f=(0,1), theta (2/3,1/3): 2/3 + 1/3 = 1 (vote: 1/3)
    assert scores == pytest.approx([1.0, 1.0, 0.0, 1.0], abs=1e-15)
    np.testing.assert_allclose(m.pool.coefs, [[1, 1], [-1, -1], [0, 1], [1, 0]])
    x = np.array([[1.0], [-3.0], [0.0]])      # f = (-1, -5), (3, -5), (0, 1)
    np.testing.assert_allclose(m.decision_function(x), [-1.0, 0.0, 1.0], rtol=1e-14)


def test_u_real_by_hand():
    m = make("omkc_u", kernel=TWO, combine="real")
    # theta stays (.5, .5); classifiers of test_dd_by_hand: t=4 x=0: f = (0, 1) -> .5
    assert run(m, X4, Y4) == pytest.approx([0.0, 5.5, 0.0, 0.5], abs=1e-15)


def test_sd_real_by_hand():
    m = make("omkc_sd", kernel=TWO, discount=0.5, delta=0.5, combine="real")
    m.rng = Draws([[0.9, 0.9], [0.99, 0.99], [0.0, 0.999], [0.3, 0.8]])
    X = np.array([[1.0], [2.0], [-1.0], [0.5]])
    y = np.array([1.0, -1.0, 1.0, 1.0])
    scores = run(m, X, y)
    # the draws and classifiers of test_sd_by_hand; t=4 x=.5: f = (-.5, -1.5), theta (2/3, 1/3):
    # 2/3 (-.5) + 1/3 (-1.5) = -5/6 (vote: -1)
    assert scores == pytest.approx([0.0, 5.5, 0.0, -5 / 6], abs=1e-15)
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-15)


@pytest.mark.parametrize("name", UNBOUNDED)
def test_real_changes_the_prediction_only(name):
    """Same seed, same stream: identical SVs, coefficients and Hedge weights (the stochastic draws do not
    depend on the prediction); the combined score is theta . f instead of theta . sign(f)."""
    d = load_dataset("a9a-small")
    X, y, Xt = d.X[:300], d.y[:300], d.X[1000:1200]
    ks = KernelSet.preset("spa16")
    v = make(name, kernel=ks, random_state=3).partial_fit(X, y)
    r = make(name, kernel=ks, random_state=3, combine="real").partial_fit(X, y)
    np.testing.assert_array_equal(v.pool.coefs, r.pool.coefs)
    np.testing.assert_array_equal(v.weights_, r.weights_)
    F = r.classifier_scores(Xt)
    expect = np.zeros(Xt.shape[0])
    for k in range(16):
        expect += r.weights_[k] * F[:, k]
    np.testing.assert_array_equal(r.decision_function(Xt), expect)
    assert (np.sign(r.decision_function(Xt)) != np.sign(v.decision_function(Xt))).any()
    p = make(name, kernel=ks, random_state=3, combine="vote_plus").partial_fit(X, y)
    np.testing.assert_array_equal(v.pool.coefs, p.pool.coefs)
    np.testing.assert_array_equal(v.weights_, p.weights_)
