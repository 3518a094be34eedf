"""OSKL (Zhang, Yi, Jin, Lin & He, ICML 2013): hand-computed runs, the exact O(#SV) averaged classifier
against a brute-force average of snapshots (with and without the R-ball rescaling), and the sampling
law E[#SV] = E[sum_t |l'_t|] / G."""
import math

import numpy as np
import pytest

from olk.algorithms import make
from olk.errors import ConfigError

G_LN2 = {"type": "gaussian", "gamma": math.log(2.0)}


def _steps(model, X, y):
    model.bind(np.asarray(X, dtype=float))
    return [model.step(i, float(v)) for i, v in enumerate(y)]


def test_oskl_hand_computed_average_and_last():
    # Gaussian with gamma = ln 2 on 1-d points: k(0,1) = .5.  G = 1 makes p_t = |l'| = 1 on every
    # hinge violation (deterministic); eta = 1, so every new SV gets eta*G*y = y.
    # t1 x=0+ : f1=0, avg=0                                   l'=-1 -> add +1
    # t2 x=1- : f2(1)=.5, avg=(0+.5)/2=.25, yf=-.5            -> add -1
    # t3 x=0+ : f3(0)=1-.5=.5, avg=(f1+f2+f3)(0)/3=(0+1+.5)/3=.5, yf=.5 < 1 -> add +1
    # t4 x=0+ : f4(0)=1-.5+1=1.5 >= 1 -> no update ; avg=(0+1+.5+1.5)/4=.75
    m = make("oskl", kernel=G_LN2, eta=1.0, G=1.0, random_state=0)
    scores = _steps(m, [[0.0], [1.0], [0.0], [0.0]], [1, -1, 1, 1])
    np.testing.assert_allclose(scores, [0.0, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(m.pool.coefs[:, 0], [1.0, -1.0, 1.0])
    assert m.expected_n_sv == 3.0 and m.n_sv == 3
    # output classifiers at x=1: f1=0, f2(1)=.5, f3(1)=.5-1=-.5, f4(1)=.5-1+.5=0 -> avg 0 ; last f5(1)=0
    # at x=0: avg = .75 (as above), last f5(0) = 1.5
    q = np.array([[0.0], [1.0]])
    np.testing.assert_allclose(m.decision_function(q, output="avg"), [0.75, 0.0], atol=1e-15)
    np.testing.assert_allclose(m.decision_function(q, output="last"), [1.5, 0.0], atol=1e-15)
    m2 = make("oskl", kernel=G_LN2, eta=1.0, G=1.0, output="last", random_state=0)
    np.testing.assert_allclose(_steps(m2, [[0.0], [1.0], [0.0], [0.0]], [1, -1, 1, 1]), [0.0, 0.5, 0.5, 1.5])


def test_oskl_hand_computed_ball_projection():
    # Linear kernel on 1-d points, eta = G = 1, R = 1.5: f = w x with ||f|| = |w|.
    # t1 x=1+  : f=0, avg 0 ; add +1 -> w=1 (||f||^2 = 0 + 2*1*0 + 1 = 1 <= 2.25)
    # t2 x=.8+ : f=.8, avg=(0+.8)/2=.4 ; add +1 -> ||f||^2 = 1 + 2*.8 + .64 = 3.24 > 2.25
    #            -> rescale by 1.5/1.8: w = 1.8 * 5/6 = 1.5
    # t3 x=1+  : f=1.5 >= 1 no update ; avg=(0+1+1.5)/3
    m = make("oskl", kernel={"type": "linear"}, eta=1.0, G=1.0, R=1.5, random_state=0)
    scores = _steps(m, [[1.0], [0.8], [1.0]], [1, 1, 1])
    np.testing.assert_allclose(scores, [0.0, 0.4, 2.5 / 3])
    assert m.n_projections == 1
    # at x=2: last = 1.5*2 = 3 ; avg = (f1+f2+f3)(2)/3 = (0 + 2 + 3)/3
    np.testing.assert_allclose(m.decision_function(np.array([[2.0]]), output="last"), [3.0])
    np.testing.assert_allclose(m.decision_function(np.array([[2.0]]), output="avg"), [5.0 / 3])


@pytest.mark.parametrize("R,renorm", [(0.0, 1e-4), (2.0, 1e-4), (2.0, 0.9)])
def test_oskl_average_equals_brute_force_average_on_random_stream(R, renorm):
    # (R=2, renorm=.9): the ball is hit often and sigma is folded into the coefficients many times.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=200) > 0, 1.0, -1.0)
    m = make("oskl", kernel={"type": "gaussian", "gamma": 0.5}, eta=0.3, G=2.0, R=R, random_state=7)
    m.renormalise_below = renorm
    folds = []
    inner = m._renormalise
    m._renormalise = lambda: (folds.append(m._sigma), inner())[1]
    m.bind(X)
    K = lambda A, B: np.exp(-0.5 * ((A[:, None, :] - B[None]) ** 2).sum(-1))  # noqa: E731
    q = rng.normal(size=(5, 4))
    snapshots, online = [], []       # f_t as (effective coefficients, rows), and the online avg scores
    for i in range(200):
        snapshots.append((m._sigma * m.pool.coefs[:, 0], m.pool.tags - 1))   # tag = step t uses row t-1
        online.append(m.step(i, y[i]))
    if R:
        assert m.n_projections > 10
    assert (len(folds) > 10) == (renorm == 0.9)
    brute_q, brute_online = np.zeros(5), []
    for t, (c, rows) in enumerate(snapshots, start=1):
        if len(rows):
            brute_q += c @ K(X[rows], q)
        brute_online.append(sum(cc @ K(X[rr], X[t - 1:t])[:, 0] if len(rr) else 0.0 for cc, rr in snapshots[:t]) / t)
    np.testing.assert_allclose(m.decision_function(q, output="avg"), brute_q / 200, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(online, brute_online, rtol=1e-9, atol=1e-12)
    c_last = m._sigma * m.pool.coefs[:, 0]
    np.testing.assert_allclose(m.decision_function(q, output="last"), c_last @ K(X[m.pool.tags - 1], q), rtol=1e-10)
    if R:   # the R-ball is respected: ||f_{T+1}||^2 = c^T K c <= R^2
        Kss = K(X[m.pool.tags - 1], X[m.pool.tags - 1])
        assert c_last @ Kss @ c_last <= R * R * (1 + 1e-9)


def test_oskl_coefficients_are_eta_times_G():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    m = make("oskl", kernel={"type": "gaussian", "gamma": 1.0}, eta=0.05, G=4.0, random_state=1)
    m.partial_fit(X, y)
    c = m.pool.coefs
    np.testing.assert_allclose(np.abs(c[:, 0]), 0.05 * 4.0)                 # inverse-probability weight
    np.testing.assert_allclose(np.sign(c[:, 0]), y[m.pool.tags - 1])
    np.testing.assert_allclose(c[:, 1], c[:, 0] * m.pool.tags)              # R = 0: SPA's second column


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_oskl_expected_sv_count_vs_G_over_many_seeds(loss):
    # Pr(Z_t = 1) = |l'_t| / G, so #SV - sum_t p_t is a zero-mean martingale: over seeds the mean #SV
    # matches the mean of sum_t p_t (= #margin violations / G for the hinge loss, <= T/G), and fewer
    # SVs are sampled as G grows.
    rng = np.random.default_rng(5)
    T = 500
    X = rng.normal(size=(T, 3))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=T) > 0, 1.0, -1.0)
    means = []
    for G in (2.0, 5.0, 20.0):
        n_sv, comp = [], []
        for seed in range(40):
            m = make("oskl", kernel={"type": "gaussian", "gamma": 1.0}, eta=0.1, G=G, loss=loss, random_state=seed)
            m.partial_fit(X, y)
            n_sv.append(m.n_sv)
            comp.append(m.expected_n_sv)
        diff = np.array(n_sv) - np.array(comp)
        se = max(np.std(diff) / np.sqrt(len(diff)), 1e-9)
        assert abs(diff.mean()) <= 3.5 * se, (G, diff.mean(), se)
        assert np.mean(n_sv) <= T / G + 3 * np.std(n_sv) / np.sqrt(len(n_sv))
        assert np.mean(n_sv) > 0.2 * T / G                  # it does sample: not a vacuous pass
        means.append(np.mean(n_sv))
    assert means[0] > means[1] > means[2]


@pytest.mark.parametrize("params,msg", [
    ({"G": 0.5}, "must be >= 1"),
    ({"eta": 0}, "must be > 0"),
    ({"R": -1}, "must be >= 0"),
    ({"loss": "square"}, "one of hinge, logistic"),
    ({"output": "mean"}, "one of avg, last"),
])
def test_oskl_bad_parameters(params, msg):
    with pytest.raises(ConfigError) as e:
        make("oskl", **params)
    assert msg in str(e.value) and "\n" not in str(e.value)
