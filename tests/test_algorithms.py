"""Each learner against a hand-computed run of a few steps, plus SPA's sparsity bound."""
import math

import numpy as np
import pytest

from olk.algorithms import available, make
from olk.errors import ConfigError

LIN = {"type": "linear"}


def _steps(model, X, y):
    model.bind(np.asarray(X, dtype=float))
    return [model.step(i, float(v)) for i, v in enumerate(y)]


def test_registry_names():
    assert {"perceptron", "ogd", "pa1", "spa"} <= set(available())


def test_perceptron_hand_computed():
    # x1=(1,0)+ : f=0 -> mistake, add +x1 ; x2=(0,1)- : f=<x1,x2>=0 -> add -x2
    # x3=(1,1)+ : f=1-1=0 -> add +x3 ; x4=(2,-1)+ : f=2+1+1=4 -> no update
    m = make("perceptron", kernel=LIN)
    scores = _steps(m, [[1, 0], [0, 1], [1, 1], [2, -1]], [1, -1, 1, 1])
    assert scores == [0.0, 0.0, 0.0, 4.0]
    assert m.n_sv == 3
    np.testing.assert_allclose(m.decision_function(np.array([[1.0, 0.0]])), [2.0])


def test_pa1_hand_computed():
    # C=0.5. x1=(1,0)+: l=1, k=1, tau=min(.5,1)=.5 ; x2=(2,0)-: f=1, l=2, k=4, tau=min(.5,.5)=.5
    # x3=(0,1)+: f=0, l=1, tau=.5 ; x4=(1,1)-: f=.5-1+.5=0, l=1, k=2, tau=.5
    m = make("pa1", kernel=LIN, C=0.5)
    scores = _steps(m, [[1, 0], [2, 0], [0, 1], [1, 1]], [1, -1, 1, -1])
    np.testing.assert_allclose(scores, [0.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(m.pool.coefs[:, 0], [0.5, -0.5, 0.5, -0.5])
    # f(1,0) = .5*1 - .5*2 + 0 - .5*1 = -1
    np.testing.assert_allclose(m.decision_function(np.array([[1.0, 0.0]])), [-1.0])


def test_ogd_hand_computed():
    # eta=0.1, lam=0: add eta*y whenever the hinge loss is positive.
    # x1=(1,0)+ f=0 add .1 ; x2=(3,0)+ f=.3 (loss .7) add .1 ; x3=(10,0)+ f=1+3=... no: f=.1*10+.1*30=4 -> no update
    m = make("ogd", kernel=LIN, eta=0.1)
    scores = _steps(m, [[1, 0], [3, 0], [10, 0]], [1, 1, 1])
    np.testing.assert_allclose(scores, [0.0, 0.3, 4.0])
    assert m.n_sv == 2
    # with lam=1: every step first shrinks by (1 - 0.1); x2: f=.3 -> coefs .09 then add .1 ; x3: f=.09*10+.1*30=3.9
    m = make("ogd", kernel=LIN, eta=0.1, lam=1.0)
    scores = _steps(m, [[1, 0], [3, 0], [10, 0]], [1, 1, 1])
    np.testing.assert_allclose(scores, [0.0, 0.3, 3.9])


def test_spa_hand_computed_average_and_last():
    # Gaussian with gamma=ln 2 on 1-d points: k(0,1) = 0.5.  alpha=beta=1 so rho_t = 1 whenever
    # the loss is >= 1, making every update deterministic.  eta=2.
    # t=1 x=0 y=+1: f=0, avg=0, l=1, tau=min(2,1)=1            -> a1=+1 (s=1)
    # t=2 x=1 y=-1: f=.5, avg=(f1+f2)/2=.25, l=1.5, tau=1.5    -> a2=-1.5 (s=2)
    # t=3 x=0 y=-1: f=1-.75=.25, avg=(0+1+.25)/3, l=1.25, tau=1.25 -> a3=-1.25 (s=3)
    g = {"type": "gaussian", "gamma": math.log(2.0)}
    m = make("spa", kernel=g, alpha=1, beta=1, eta=2, random_state=0)
    scores = _steps(m, [[0.0], [1.0], [0.0]], [1, -1, -1])
    np.testing.assert_allclose(scores, [0.0, 0.25, 1.25 / 3])
    np.testing.assert_allclose(m.pool.coefs[:, 0], [1.0, -1.5, -1.25])
    x0 = np.array([[0.0]])
    np.testing.assert_allclose(m.decision_function(x0, output="avg"), [1.25 / 3])   # (f1+f2+f3)(0)/3
    np.testing.assert_allclose(m.decision_function(x0, output="last"), [1 - 0.75 - 1.25])
    m2 = make("spa", kernel=g, alpha=1, beta=1, eta=2, output="last", random_state=0)
    np.testing.assert_allclose(_steps(m2, [[0.0], [1.0], [0.0]], [1, -1, -1]), [0.0, 0.5, 0.25])


def test_spa_average_equals_brute_force_average_on_random_stream():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=200) > 0, 1.0, -1.0)
    m = make("spa", kernel={"type": "gaussian", "gamma": 0.5}, alpha=1, beta=3, eta=0.5, random_state=7)
    m.bind(X)
    snapshots = []          # (coefs, tags) of f_t before each step
    for i in range(200):
        snapshots.append((m.pool.coefs[:, 0].copy(), m.pool.tags.copy()))
        m.step(i, y[i])
    q = rng.normal(size=(5, 4))
    K = lambda idx: np.exp(-0.5 * ((X[idx][:, None, :] - q[None]) ** 2).sum(-1))  # noqa: E731
    brute = np.zeros(5)
    for coefs, tags in snapshots:
        if len(tags):
            rows = tags - 1                   # tag = step t, and step t used row t-1
            brute += coefs @ K(rows)
    brute /= 200
    np.testing.assert_allclose(m.decision_function(q, output="avg"), brute, rtol=1e-10, atol=1e-12)


def test_spa_expected_sv_count_bound_over_many_seeds():
    # Theorem 5.2: E[#SV] <= alpha T / beta.  Mean over 40 seeds on a noisy stream.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(600, 3))
    y = np.where(rng.random(600) < 0.5, 1.0, -1.0)          # pure noise: losses are large
    T, alpha, beta = 600, 1.0, 10.0
    counts = []
    for seed in range(40):
        m = make("spa", kernel={"type": "gaussian", "gamma": 1.0}, alpha=alpha, beta=beta, eta=1.0, random_state=seed)
        m.partial_fit(X, y)
        counts.append(m.n_sv)
    bound = alpha * T / beta
    se = np.std(counts) / np.sqrt(len(counts))
    assert np.mean(counts) <= bound + 3 * se
    assert np.mean(counts) > 0.3 * bound        # it does sample: not a vacuous pass


@pytest.mark.parametrize("name,params,msg", [
    ("spa", {"alpha": 2, "beta": 1}, "beta >= alpha"),
    ("pa1", {"C": 0}, "must be > 0"),
    ("spa", {"bta": 3}, "did you mean 'beta'"),
    ("spa", {"output": "mean"}, "one of avg, last"),
    ("perceptorn", {}, "did you mean 'perceptron'"),
])
def test_bad_parameters_give_one_line_errors(name, params, msg):
    with pytest.raises(ConfigError) as e:
        make(name, **params)
    assert msg in str(e.value)
    assert "\n" not in str(e.value)


def test_predicting_on_wider_data_scores_the_unseen_features_as_zero_in_every_sv():
    """Wider data than the training data (issue 25; the full table is tests/test_wider_data.py): the extra
    features are 0 in every SV, so the scores are those of the SVs zero-padded to the wider width."""
    import scipy.sparse as sp

    from olk.algorithms import make
    X = sp.random(30, 5, density=0.5, format="csr", random_state=0)
    y = np.where(np.arange(30) % 2 == 0, 1.0, -1.0)
    m = make("perceptron", kernel={"type": "gaussian", "gamma": 0.5}).partial_fit(X, y)
    wide = sp.random(4, 9, density=0.5, format="csr", random_state=1)
    padded = make("perceptron", kernel={"type": "gaussian", "gamma": 0.5}).partial_fit(
        sp.hstack([X, sp.csr_matrix((30, 4))]).tocsr(), y)
    assert m.decision_function(wide).tolist() == padded.decision_function(wide).tolist()
