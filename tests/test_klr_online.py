"""Sparse online KLR (Zhang et al., AAAI 2012): NC, Margin, Auxiliary (olk/algorithms/klr_*.py).

Hand values for each sampling probability and gradient, a hand-computed NC stream, the projection and the
incremental norm against the direct quadratic form, the exact averaged output against brute force, and the
probabilities."""
import math

import numpy as np
import pytest
from scipy.special import expit

from olk.algorithms import make
from olk.errors import ConfigError

G1 = {"type": "gaussian", "gamma": 1.0}


def _kernel_matrix(A, B, gamma=1.0):
    d = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d)


# ------------------------------------------------------------------ sampling probabilities and gradients
def test_margin_probability_and_gradient_hand_values():
    m = make("klr_margin", kernel=G1, eta=0.5)
    m.eta_ = 0.5
    # z = 0: p(y|f) = 1/2 -> p_t = (2 - .5) / (2 - .5 + .5 * .5) = 1.5 / 1.75 ; -l'(0) = 1/2
    assert m.sample_prob(0.0) == pytest.approx(1.5 / 1.75, rel=1e-14)
    assert m.neg_grad(0.0) == pytest.approx(0.5, rel=1e-14)
    # z = 2: p(y|f) = 1/(1+e^-2) = 0.880797 -> p_t = 1.5 / (1.5 + 0.440399) = 0.773037
    assert m.sample_prob(2.0) == pytest.approx(0.7730371, rel=1e-6)
    assert m.neg_grad(2.0) == pytest.approx(1 / (1 + math.e ** 2), rel=1e-12)
    # very confident / very wrong: p_t -> (2-eta)/2 and -> 1
    assert m.sample_prob(50.0) == pytest.approx(0.75, rel=1e-12)
    assert m.sample_prob(-50.0) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("aux, gamma, z, p, g", [
    ("shift", 2.0, 0.0, math.log(2) / math.log(3), 1 / 3),              # l = ln 2, h = ln(2 + 1), -h' = 1/(1+2)
    ("shift", 2.0, 1.0, math.log1p(math.exp(-1)) / math.log(2 + math.exp(-1)), 1 / (1 + 2 * math.e)),
    ("scale", 2.0, 0.0, math.log(2) / math.log(3), 2 / 3),              # h = ln(1 + 2), -h' = 2/(1+2)
    ("scale", 3.0, -1.0, math.log1p(math.e) / math.log1p(3 * math.e), 3 * math.e / (1 + 3 * math.e)),
    ("shift", 1.0, 0.7, 1.0, 1 / (1 + math.exp(0.7))),                   # gamma = 1: h = l (NC)
])
def test_auxiliary_probability_and_gradient_hand_values(aux, gamma, z, p, g):
    m = make("klr_aux", kernel=G1, aux=aux, gamma=gamma)
    assert m.sample_prob(z) == pytest.approx(p, rel=1e-12)
    assert m.neg_grad(z) == pytest.approx(g, rel=1e-12)


def test_cutoff_updates_only_below_delta():
    m = make("klr_aux", kernel=G1, aux="cutoff", delta=0.5)
    assert m.sample_prob(0.2) == 1.0 and m.neg_grad(0.2) == pytest.approx(1 / (1 + math.exp(0.2)))
    # z = 1 > delta: p = l(1) / l(0.5), gradient 0
    assert m.sample_prob(1.0) == pytest.approx(math.log1p(math.exp(-1)) / math.log1p(math.exp(-0.5)), rel=1e-12)
    assert m.neg_grad(1.0) == 0.0


@pytest.mark.parametrize("aux", ["shift", "scale", "cutoff"])
def test_gradient_is_minus_derivative_of_h_and_h_bounds_loss(aux):
    m = make("klr_aux", kernel=G1, aux=aux, gamma=3.0, delta=-0.3)
    for z in (-40.0, -3.0, -0.5, 0.1, 0.9, 4.0, 40.0):
        eps = 1e-6 * max(1.0, abs(z))
        num = -(m.h(z + eps) - m.h(z - eps)) / (2 * eps)
        assert m.neg_grad(z) == pytest.approx(num, rel=1e-5, abs=1e-9), z
        loss = math.log1p(math.exp(-z)) if z > -30 else -z
        assert m.h(z) >= loss - 1e-12 and 0.0 <= m.sample_prob(z) <= 1.0
    for z in (700.0, 800.0, 1e6):                     # e^-z (nearly) underflows: no division by zero, no step
        assert 0.0 <= m.sample_prob(z) <= 1.0 and 0.0 <= m.neg_grad(z) < 1e-300


# ------------------------------------------------------------------ a hand-computed NC stream
def test_nc_three_steps_by_hand():
    X = np.array([[0.0], [1.0], [0.0]])
    y = np.array([1.0, -1.0, 1.0])
    m = make("klr_nc", kernel=G1, eta=0.5, R=1e6, output="last")
    m.partial_fit(X, y)
    # step 1: f = 0, z = 0, -l'(0) = 1/2 -> a1 = eta * y1 * 1/2 = 0.25
    a1 = 0.25
    # step 2: f(x2) = a1 e^-1 ; z = -f ; -l'(z) = 1/(1+e^z) ; a2 = -0.5 / (1 + e^z)
    f2 = a1 * math.exp(-1)
    a2 = -0.5 / (1 + math.exp(-f2))
    # step 3: f(x3) = a1 + a2 e^-1 ; z = f ; a3 = 0.5 / (1 + e^z)
    f3 = a1 + a2 * math.exp(-1)
    a3 = 0.5 / (1 + math.exp(f3))
    assert m.n_sv == 3 and m.n_updates == 3
    np.testing.assert_allclose(m.coef_last_(), [a1, a2, a3], rtol=1e-12)
    # the averaged output: (f_1 + f_2 + f_3) / 3 = (0 + a1 k1 + (a1 k1 + a2 k2)) / 3
    q = np.array([[0.5]])
    k = _kernel_matrix(q, X)[0]
    assert m.decision_function(q, output="avg")[0] == pytest.approx((2 * a1 * k[0] + a2 * k[1]) / 3, rel=1e-12)
    assert m.decision_function(q, output="last")[0] == pytest.approx(a1 * k[0] + a2 * k[1] + a3 * k[2], rel=1e-12)


# ------------------------------------------------------------------ projection, norm, exact average
def _stream(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("name, extra", [("klr_nc", {}), ("klr_margin", {"eta": 0.9}),
                                         ("klr_aux", {"gamma": 2.0}), ("klr_aux", {"aux": "scale", "gamma": 4.0})])
def test_projection_keeps_norm_below_R_and_incremental_norm_is_exact(name, extra):
    X, y = _stream()
    params = {"eta": 0.9, "R": 1.5, **extra}
    m = make(name, kernel={"type": "gaussian", "gamma": 0.5}, random_state=3, **params)
    m.renormalise_below = 0.3                         # force the sigma folding too
    m.bind(X)
    rows = []
    for i in range(len(y)):
        before = m.n_sv
        m.step(i, y[i])
        if m.n_sv > before:
            rows.append(i)
        alpha = m.coef_last_()
        K = _kernel_matrix(X[rows], X[rows], 0.5)
        direct = float(alpha @ K @ alpha)
        assert direct <= 1.5 ** 2 * (1 + 1e-9)
        assert m.sqnorm_ == pytest.approx(direct, rel=1e-8, abs=1e-12)
    assert m.n_projections > 0 and m.n_sv == len(rows)


@pytest.mark.parametrize("name", ["klr_nc", "klr_margin", "klr_aux"])
def test_averaged_output_equals_brute_force_mean(name):
    X, y = _stream(n=120)
    Q = np.random.default_rng(9).normal(size=(7, 3))
    m = make(name, kernel={"type": "gaussian", "gamma": 0.5}, eta=0.8, R=1.0, random_state=1)
    m.renormalise_below = 0.5
    m.bind(X)
    rows, total = [], np.zeros(len(Q))
    for i in range(len(y)):
        alpha = m.coef_last_() if m.n_sv else np.zeros(0)     # f_t before step t
        total += (_kernel_matrix(Q, X[rows], 0.5) @ alpha) if rows else 0.0
        before = m.n_sv
        m.step(i, y[i])
        if m.n_sv > before:
            rows.append(i)
    np.testing.assert_allclose(m.decision_function(Q, output="avg"), total / len(y), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ probabilities and the estimator surface
def test_predict_proba_consistent_with_decision_function():
    X, y = _stream(n=200)
    m = make("klr_aux", kernel={"type": "gaussian", "gamma": 0.5}, eta=1.0, R=10, random_state=0)
    m.fit(X, np.where(y > 0, "spam", "ham"))
    P = m.predict_proba(X)
    f = m.decision_function(X)
    assert P.shape == (200, 2) and np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(1), 1.0, rtol=1e-15)
    np.testing.assert_allclose(P[:, 1], expit(f), rtol=1e-15)
    np.testing.assert_array_equal(m.predict(X), m.classes_[(P[:, 1] >= 0.5).astype(int)])
    np.testing.assert_allclose(np.exp(m.predict_log_proba(X)), P, rtol=1e-12)
    one = m.predict_proba_one(X[0])
    assert set(one) == {"ham", "spam"} and one["spam"] == pytest.approx(P[0, 1], rel=1e-12)


def test_aux_with_gamma_one_is_nc():
    X, y = _stream(n=150)
    nc = make("klr_nc", kernel=G1, eta=0.7, R=5).partial_fit(X, y)
    aux = make("klr_aux", kernel=G1, eta=0.7, R=5, gamma=1.0, random_state=0).partial_fit(X, y)
    assert aux.n_sv == nc.n_sv == 150
    np.testing.assert_allclose(aux.decision_function(X), nc.decision_function(X), rtol=1e-12)


def test_larger_gamma_is_sparser():
    X, y = _stream(n=600, seed=4)
    n = [make("klr_aux", kernel={"type": "gaussian", "gamma": 0.5}, eta=1.0, R=100, gamma=g, random_state=0)
         .partial_fit(X, y).n_sv for g in (1.0, 2.0, 11.0, 101.0)]
    assert n[0] == 600 and n[0] > n[1] > n[2] > n[3]


# ------------------------------------------------------------------ step size and its checks
def test_eta_rule_and_its_errors():
    X, y = _stream(n=100)
    m = make("klr_nc", kernel=G1, R=3.0, eta="R/sqrt(T)").partial_fit(X, y)
    assert m.eta_ == pytest.approx(3.0 / 10.0)
    assert make("klr_nc", kernel=G1, R=3.0, eta="R/sqrt(T)", horizon=400).partial_fit(X, y).eta_ \
        == pytest.approx(3.0 / 20.0)
    with pytest.raises(ConfigError, match="eta < 2"):
        make("klr_margin", kernel=G1, eta=2.0)
    with pytest.raises(ConfigError, match=r"R/sqrt\(T\) = 30/sqrt\(100\) = 3"):
        make("klr_margin", kernel=G1, R=30.0, eta="R/sqrt(T)").partial_fit(X, y)
    with pytest.raises(ConfigError, match="horizon"):
        make("klr_nc", kernel=G1, eta="R/sqrt(T)").learn_one(X[0], 1.0)
    with pytest.raises(ConfigError, match="expected a number or 'R/sqrt"):
        make("klr_nc", kernel=G1, eta="R/T")
    m = make("klr_nc", kernel=G1, eta="R/sqrt(T)", horizon=100, R=3.0)
    for i in range(100):
        m.learn_one(X[i], y[i])
    np.testing.assert_allclose(m.decision_function(X),
                               make("klr_nc", kernel=G1, eta="R/sqrt(T)", R=3.0).partial_fit(X, y)
                               .decision_function(X), rtol=1e-12)
