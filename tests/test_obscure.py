"""OM-2 = the online stage of OBSCURE (olk/algorithms/selection/om2.py) against hand arithmetic and a direct numpy
re-implementation with explicit Gram matrices: coefficients, ||theta_j||^2 = alpha' K_j alpha, the mirror-map
weights c_j = (1/q)(||theta_j|| / ||theta||_{2,q})^(q-2), the one-kernel reductions (margin Perceptron, Pegasos),
p = 2 (uniform sum of kernels) vs p -> 1 (one kernel wins), determinism and pickling."""
from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest

from olk.algorithms import make
from olk.errors import ConfigError

LN2 = math.log(2.0)
LIN = {"type": "linear"}
GAUSS_LN2 = {"type": "gaussian", "gamma": LN2}            # k = 2^(-||x - x'||^2)
GAUSS = {"type": "gaussian", "gamma": 0.5}
POLY = {"type": "polynomial", "degree": 2, "coef0": 1.0, "gamma": 1.0}


# ---------------------------------------------------------------------------- explicit Gram matrices
def gram(X, spec):
    G = X @ X.T
    if spec["type"] == "linear":
        return G
    if spec["type"] == "gaussian":
        sq = np.diag(G)
        return np.exp(-spec["gamma"] * (sq[:, None] + sq[None, :] - 2.0 * G))
    if spec["type"] == "polynomial":
        return (spec["gamma"] * G + spec["coef0"]) ** spec["degree"]
    raise ValueError(spec)


def c_of(sq, q):
    """(1/q) (n_j / ||n||_q)^(q-2), n_j = sqrt(sq_j); 0 while every n_j = 0."""
    n = np.sqrt(np.maximum(sq, 0.0))
    if n.max() == 0.0:
        return np.zeros_like(n)
    return (n / np.sum(n ** q) ** (1.0 / q)) ** (q - 2.0) / q


def reference(X, y, specs, q, eta=None, lam=0.0, rule="constant"):
    """The update of the class docstring with explicit Gram matrices and a dense alpha over the stream.
    Returns per-step (score, alpha copy, ||theta_j||^2 = alpha' K_j alpha, c)."""
    Ks = [gram(X, s) for s in specs]
    m, n = len(Ks), len(y)
    eta = 2.0 * m ** (-2.0 / q) if eta is None else eta
    alpha, c = np.zeros(n), np.zeros(m)
    out = []
    for t in range(n):
        th = np.array([K[t] @ alpha for K in Ks])
        f = float(c @ th)
        if lam > 0.0:
            alpha = (1.0 - 1.0 / (t + 1)) * alpha
            if y[t] * f < 1.0:
                alpha[t] += y[t] * q / (lam * (t + 1))
        elif y[t] * f <= 1.0:
            alpha[t] += y[t] * (eta if rule == "constant" else 2.0 * min(1.0, 1.0 - y[t] * f / m ** (2.0 / q)))
        sq = np.array([alpha @ K @ alpha for K in Ks])
        if lam == 0.0 or y[t] * f < 1.0:
            c = c_of(sq, q)
        out.append((f, alpha.copy(), sq, c.copy()))
    return out


def run(model, X, y):
    """Online pass through bind/step; (scores, alpha over the stream, sqnorms, weights) after every step."""
    src = model.bind(X)
    hist = []
    for i in range(len(y)):
        f = model.step(i, float(y[i]))
        hist.append((f, dense_alpha(model, len(y)), model.sqnorms_.copy(), model.weights_.copy()))
        assert src is model.src
    return hist


def dense_alpha(model, n):
    """The model's theta coefficients alpha_s placed at their stream index (tag = t at insertion = row + 1)."""
    a = np.zeros(n)
    if model.pool is not None and model.pool.n_sv:
        np.add.at(a, np.asarray(model.pool.tags, dtype=np.int64) - 1, model.coef_)
        coefs = model.pool.coefs
        assert np.all(coefs == coefs[:, :1])               # every kernel column holds the same b_s
    return a


def stream(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / math.sqrt(d)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.2 > 0, 1.0, -1.0)
    flip = rng.random(n) < 0.1
    return X, np.where(flip, -y, y)


# ---------------------------------------------------------------------------- hand-computed stream
X4 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
Y4 = np.array([1.0, -1.0, 1.0, -1.0])


def test_hand_computed_two_kernels():
    # kernels: k1 = <x, x'> (linear), k2 = 2^(-|x - x'|^2) (Gaussian, gamma = ln 2); p = 1.5 -> q = 3, eta = 1
    #   K1 = [[1,0,1,2],[0,1,1,0],[1,1,2,2],[2,0,2,4]],  K2 = [[1,1/4,1/2,1/2],[1/4,1,1/2,1/32],[1/2,1/2,1,1/4],
    #         [1/2,1/32,1/4,1]];  c_j = (1/3) n_j / ||n||_3  (q - 2 = 1)
    model = make("om2", kernel=[LIN, GAUSS_LN2], p=1.5, eta=1.0)
    assert model.q_ == pytest.approx(3.0) and model.eta_ == 1.0
    h = run(model, X4, Y4)
    # t=1: c = 0 -> f = 0 <= 1: a = +1;  |theta|^2 = (1, 1);  c = (1/3) / 2^(1/3) (both)
    c1 = 1.0 / 3.0 / 2.0 ** (1.0 / 3.0)
    assert h[0][0] == 0.0
    np.testing.assert_allclose(h[0][1], [1, 0, 0, 0])
    np.testing.assert_allclose(h[0][2], [1.0, 1.0], rtol=1e-15)
    np.testing.assert_allclose(h[0][3], [c1, c1], rtol=1e-14)
    # t=2: theta(x2) = (0, 1/4), f = c1/4;  y f = -c1/4 <= 1: a = -1
    #      |theta_1|^2 = 1 + 2(-1)(0) + 1 = 2,  |theta_2|^2 = 1 + 2(-1)(1/4) + 1 = 1.5
    assert h[1][0] == pytest.approx(c1 / 4.0, rel=1e-14)
    np.testing.assert_allclose(h[1][1], [1, -1, 0, 0])
    np.testing.assert_allclose(h[1][2], [2.0, 1.5], rtol=1e-14)
    n3 = (2.0 ** 1.5 + 1.5 ** 1.5) ** (1.0 / 3.0)
    c2 = np.array([math.sqrt(2.0), math.sqrt(1.5)]) / n3 / 3.0           # (0.28213, 0.24433)
    np.testing.assert_allclose(h[1][3], c2, rtol=1e-14)
    # t=3: theta(x3) = (1 - 1, 1/2 - 1/2) = (0, 0): f = 0, a = +1;  |theta|^2 = (2 + 2, 1.5 + 1) = (4, 2.5)
    assert h[2][0] == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(h[2][1], [1, -1, 1, 0])
    np.testing.assert_allclose(h[2][2], [4.0, 2.5], rtol=1e-14)
    n3 = (8.0 + 2.5 ** 1.5) ** (1.0 / 3.0)
    c3 = np.array([2.0, math.sqrt(2.5)]) / n3 / 3.0                     # (0.29157, 0.23051)
    np.testing.assert_allclose(h[2][3], c3, rtol=1e-14)
    # t=4: theta(x4) = (2 - 0 + 2, 1/2 - 1/32 + 1/4) = (4, 0.71875);  f = 4 c3_1 + 0.71875 c3_2 = 1.3320;  a = -1
    #      |theta_1|^2 = 4 - 8 + 4 = 0 (the linear theta cancels: w = x1 - x2 + x3 - x4 = 0)
    #      |theta_2|^2 = 2.5 - 2(0.71875) + 1 = 2.0625;  c = (0, 1/3)  (q > 2: a zero norm gets weight 0)
    assert h[3][0] == pytest.approx(4.0 * c3[0] + 0.71875 * c3[1], rel=1e-14)
    assert h[3][0] == pytest.approx(1.3320, abs=1e-4)
    np.testing.assert_allclose(h[3][1], [1, -1, 1, -1])
    np.testing.assert_allclose(h[3][2], [0.0, 2.0625], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(h[3][3], [0.0, 1.0 / 3.0], rtol=1e-14, atol=1e-15)
    assert model.n_updates == model.n_sv == 4
    # ... and the direct numpy computation agrees step by step
    for (f, a, sq, c), (rf, ra, rsq, rc) in zip(h, reference(X4, Y4, [LIN, GAUSS_LN2], q=3.0, eta=1.0)):
        assert f == pytest.approx(rf, rel=1e-12, abs=1e-14)
        np.testing.assert_allclose(a, ra, rtol=1e-14)
        np.testing.assert_allclose(sq, rsq, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(c, rc, rtol=1e-12, atol=1e-14)
    s = model.run_summary()
    assert s["w_norms"] == pytest.approx([0.0, math.sqrt(2.0625) / 3.0], abs=1e-14)
    assert s["kernel_weights"] == pytest.approx([0.0, 1.0])


# ---------------------------------------------------------------------------- random streams vs numpy
@pytest.mark.parametrize("p, kw", [(0.0, {}), (1.5, {}), (1.2, {"eta": 0.3}), (2.0, {}),
                                   (0.0, {"step_rule": "om2"}), (1.5, {"lam": 0.05}), (0.0, {"lam": 0.5})])
def test_matches_numpy_reference_and_norms_are_quadratic_forms(p, kw):
    X, y = stream()
    specs = [GAUSS, POLY, LIN]
    model = make("om2", kernel=specs, p=p, **kw)
    h = run(model, X, y)
    ref = reference(X, y, specs, model.q_, eta=kw.get("eta"), lam=kw.get("lam", 0.0),
                    rule=kw.get("step_rule", "constant"))
    Ks = [gram(X, s) for s in specs]
    for (f, a, sq, c), (rf, ra, _rsq, rc) in zip(h, ref):
        assert f == pytest.approx(rf, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(a, ra, rtol=1e-10, atol=1e-13)
        # the incremental ||theta_j||^2 is alpha' K_j alpha after every step
        np.testing.assert_allclose(sq, [a @ K @ a for K in Ks], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(c, rc, rtol=1e-9, atol=1e-12)
    assert 0 < model.n_updates == model.n_sv < len(y)
    # decision_function of the final model = sum_j c_j theta_j(x) with the Gram rows
    a, c = h[-1][1], h[-1][3]
    np.testing.assert_allclose(model.decision_function(X), sum(cj * (K @ a) for cj, K in zip(c, Ks)),
                               rtol=1e-9, atol=1e-12)


def test_global_scale_renormalisation_keeps_theta():
    X, y = stream(n=60, seed=3)
    specs = [GAUSS, POLY]
    model = make("om2", kernel=specs, lam=0.1)
    model.renormalise_below = 0.5                          # fold sigma into the coefficients every few steps
    h = run(model, X, y)
    Ks = [gram(X, s) for s in specs]
    for (f, a, sq, _c), (rf, ra, _rsq, _rc) in zip(h, reference(X, y, specs, model.q_, lam=0.1)):
        assert f == pytest.approx(rf, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(a, ra, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(sq, [a @ K @ a for K in Ks], rtol=1e-9, atol=1e-12)
    assert 0.5 <= model._sigma <= 1.0


# ---------------------------------------------------------------------------- one kernel; p = 2 vs p -> 1
def test_one_kernel_lam0_is_the_kernel_margin_perceptron():
    # m = 1: c = 1/q whatever p, w = theta / q.  Defaults: q = 2, eta = 2 -> coefficient y on y f <= 1
    X, y = stream(seed=1)
    K = gram(X, GAUSS)
    for p, eta in ((0.0, 0.0), (1.25, 0.7)):
        model = make("om2", kernel=GAUSS, p=p, eta=eta)
        q = model.q_
        step = (eta if eta else 2.0) / q
        beta, scores = np.zeros(len(y)), []
        for t in range(len(y)):
            f = K[t] @ beta
            scores.append(f)
            if y[t] * f <= 1.0:
                beta[t] += step * y[t]
        h = run(model, X, y)
        np.testing.assert_allclose([r[0] for r in h], scores, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(model.decision_function(X), K @ beta, rtol=1e-12, atol=1e-14)
        assert model.weights_.tolist() == [pytest.approx(1.0 / q, rel=1e-15)]
    assert make("om2", kernel=GAUSS).eta_ == 2.0


def test_one_kernel_lam_positive_is_pegasos():
    # Pegasos (Shalev-Shwartz et al., Figure 1, no projection): w <- (1 - 1/t) w + 1/(lam t) y k(x_t, .)
    # whenever y w(x_t) < 1, with w(x_t) predicted before the step
    X, y = stream(seed=2)
    K = gram(X, POLY)
    lam = 0.2
    model = make("om2", kernel=POLY, lam=lam, p=1.3)
    beta, scores = np.zeros(len(y)), []
    for t in range(len(y)):
        f = K[t] @ beta
        scores.append(f)
        beta *= 1.0 - 1.0 / (t + 1)
        if y[t] * f < 1.0:
            beta[t] += y[t] / (lam * (t + 1))
    h = run(model, X, y)
    np.testing.assert_allclose([r[0] for r in h], scores, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(model.decision_function(X), K @ beta, rtol=1e-10, atol=1e-13)


def test_p2_is_the_uniform_kernel_sum_and_p_near_1_selects_one_kernel():
    X, y = stream(n=50, seed=4)
    specs = [GAUSS, POLY]
    K1, K2 = (gram(X, s) for s in specs)
    # p = 2: c_j = 1/2 for every kernel, f = sum_s a_s (k1 + k2)(x_s, x) / 2: the margin Perceptron with step
    # eta = 2 m^(-1) = 1 on the average kernel
    two = make("om2", kernel=specs, p=2.0)
    Kbar = (K1 + K2) / 2.0
    beta, scores = np.zeros(len(y)), []
    for t in range(len(y)):
        f = Kbar[t] @ beta
        scores.append(f)
        if y[t] * f <= 1.0:
            beta[t] += y[t]
    h = run(two, X, y)
    np.testing.assert_allclose([r[0] for r in h], scores, rtol=1e-12, atol=1e-14)
    assert two.weights_.tolist() == [0.5, 0.5]
    s2 = two.run_summary()                                   # ||w_j|| = ||theta_j|| / 2
    np.testing.assert_allclose(s2["w_norms"], np.sqrt(two.sqnorms_) / 2.0, rtol=1e-15)
    # p -> 1 (q = 101): ||w_j|| ~ ||theta_j||^(q-1): the kernel with the largest theta-norm takes it all
    one = make("om2", kernel=specs, p=1.01)
    run(one, X, y)
    s1 = one.run_summary()
    top = int(np.argmax(one.sqnorms_))
    assert s1["kernel_weights"][top] > 0.999
    assert max(s2["kernel_weights"]) < 0.9                   # p = 2 keeps both kernels
    assert sum(s1["kernel_weights"]) == pytest.approx(1.0) and sum(s2["kernel_weights"]) == pytest.approx(1.0)


# ---------------------------------------------------------------------------- determinism, pickling, params
def test_two_runs_are_bit_identical():
    X, y = stream(n=60, seed=5)
    specs = [GAUSS, POLY, LIN]
    for kw in ({}, {"lam": 0.05}, {"step_rule": "om2", "p": 1.4}):
        a = run(make("om2", kernel=specs, **kw), X, y)
        b = run(make("om2", kernel=specs, **kw), X, y)
        for ra, rb in zip(a, b):
            assert ra[0] == rb[0]
            assert np.array_equal(ra[1], rb[1]) and np.array_equal(ra[2], rb[2]) and np.array_equal(ra[3], rb[3])
    m1 = make("om2", kernel=specs).fit(X, y)
    m2 = make("om2", kernel=specs).fit(X, y).fit(X, y)     # fit resets: twice = once
    assert np.array_equal(m1.decision_function(X), m2.decision_function(X))
    assert not make("om2").stochastic


def test_pickle_round_trip_keeps_predictions_and_learning():
    X, y = stream(n=60, seed=6)
    specs = [GAUSS, POLY]
    for kw in ({}, {"lam": 0.1}):
        model = make("om2", kernel=specs, **kw).partial_fit(X[:30], y[:30])
        clone = pickle.loads(pickle.dumps(model))
        assert np.array_equal(clone.decision_function(X), model.decision_function(X))
        assert np.array_equal(clone.predict(X), model.predict(X))
        model.partial_fit(X[30:], y[30:])
        clone.partial_fit(X[30:], y[30:])
        assert np.array_equal(clone.decision_function(X), model.decision_function(X))
        assert clone.run_summary() == model.run_summary()


def test_params_summary_and_untrained_model():
    with pytest.raises(ConfigError, match="step_rule 'om2'"):
        make("om2", kernel=[GAUSS, POLY], step_rule="om2", lam=0.1)
    with pytest.raises(ConfigError, match=r"in \(1, 2\]"):
        make("om2", kernel=GAUSS, p=3.0)
    with pytest.raises(ConfigError):
        make("om2", kernel=GAUSS, lam=-1.0)
    model = make("om2", kernel=[GAUSS, POLY, LIN])
    assert model.q_ == pytest.approx(2.0 * math.log(3.0)) and model.p_ == pytest.approx(model.q_ / (model.q_ - 1))
    assert model.eta_ == pytest.approx(2.0 * 3.0 ** (-2.0 / model.q_)) and model.eta_ == pytest.approx(2 / math.e)
    X, y = stream(n=5)
    assert model.decision_function(X).tolist() == [0.0] * 5
    s = model.fit(X, y).run_summary()
    json.dumps(s)
    assert set(s) == {"kernel_weights", "w_norms", "dual_q", "group_p", "step_eta"} and len(s["w_norms"]) == 3
    np.testing.assert_allclose(s["w_norms"], model.weights_ * np.sqrt(model.sqnorms_), rtol=1e-15)
    assert make("om2", kernel=[GAUSS, POLY]).q_ == 2.0     # DOGMA's 2 ln 2 < 2: olk keeps q >= 2
