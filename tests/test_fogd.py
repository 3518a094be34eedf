"""FOGD (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016, Algorithm 1): a hand-computed stream of three steps with a chosen
frequency, the logistic step, the frequencies' law and sharing, the authors' unnormalised parametrisation, the
kernel approximation, and the model surfaces (held-out scores, coef_, save/load)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import olk
from olk.algorithms import make
from olk.algorithms.random_features.core import draw_frequencies, feature_map, feature_rng
from olk.errors import ConfigError
from olk.kernels import KernelSet

RBF = {"type": "gaussian", "gamma": 0.5}


def _with_frequency(model, X, u):
    """Bind X, then replace the drawn frequencies by `u` (D x d) so that the steps can be computed by hand."""
    model.bind(X)
    model._V = np.array(u, dtype=np.float64)
    return model


def test_three_hinge_steps_by_hand():
    # D = 1, u = 1: z(x) = [sin x, cos x] / sqrt(1), so z(x)'z(x') = cos(x - x').  eta = 0.5.
    X = np.array([[0.5], [-0.5], [0.5]])
    m = _with_frequency(make("fogd", kernel=RBF, n_rf=1, eta=0.5, random_state=0), X, [[1.0]])
    # t=1: w = 0 -> f = 0; y f = 0 < 1 -> w = 0.5 * z(0.5)
    assert m.step(0, 1.0) == 0.0
    np.testing.assert_allclose(m._w, 0.5 * np.array([math.sin(0.5), math.cos(0.5)]), rtol=0, atol=1e-15)
    # t=2: f = 0.5 z(0.5)'z(-0.5) = 0.5 cos(1) = 0.27015; y f = -0.27 < 1 -> w -= 0.5 z(-0.5)
    assert m.step(1, -1.0) == pytest.approx(0.5 * math.cos(1.0), abs=1e-15)
    # t=3: f = 0.5 (z(0.5)'z(0.5) - z(-0.5)'z(0.5)) = 0.5 (1 - cos 1) = 0.22985; y f < 1 -> update
    assert m.step(2, 1.0) == pytest.approx(0.5 * (1.0 - math.cos(1.0)), abs=1e-15)
    assert (m.t, m.n_updates) == (3, 3)
    # a margin >= 1 makes no update: f(0.5) = 0.5 (2 - cos 1) = 0.73 < 1, so raise eta to 2 to see it
    m2 = _with_frequency(make("fogd", kernel=RBF, n_rf=1, eta=2.0, random_state=0), X[:1], [[1.0]])
    m2.step(0, 1.0)                                 # w = 2 z(0.5)
    assert m2.step(0, 1.0) == pytest.approx(2.0)    # f = 2 ||z||^2 = 2 >= 1: no update
    assert m2.n_updates == 1


def test_logistic_step_by_hand():
    # f_1 = 0: s = y / (1 + e^0) = y/2, so w = eta y/2 z(x_1); then f_2 = eta/2 * cos(x_2 - x_1) for y_1 = +1
    X = np.array([[0.3], [0.1]])
    m = _with_frequency(make("fogd", kernel=RBF, n_rf=1, eta=0.4, loss="logistic", random_state=0), X, [[2.0]])
    m.step(0, 1.0)
    np.testing.assert_allclose(m._w, 0.2 * np.array([math.sin(0.6), math.cos(0.6)]), atol=1e-15)
    f2 = m.step(1, -1.0)
    assert f2 == pytest.approx(0.2 * math.cos(2.0 * (0.1 - 0.3)), abs=1e-15)
    # y f2 = -0.196: s = -1 / (1 + e^-0.196) every example updates with the logistic loss
    np.testing.assert_allclose(m._w, 0.2 * np.array([math.sin(0.6), math.cos(0.6)])
                               - 0.4 / (1.0 + math.exp(-f2)) * np.array([math.sin(0.2), math.cos(0.2)]), atol=1e-15)
    assert m.n_updates == 2


def test_frequencies_are_the_shared_rff_draw_with_variance_2_gamma():
    rng = np.random.default_rng(0)
    X = rng.random((5, 4))
    gamma = 0.3
    m = make("fogd", kernel={"type": "gaussian", "gamma": gamma}, n_rf=20000, random_state=7)
    m.bind(X)
    ks = KernelSet.of({"type": "gaussian", "gamma": gamma})
    np.testing.assert_array_equal(m.frequencies_, draw_frequencies(ks, 4, 20000, "rff", feature_rng(7)))
    assert m.frequencies_.var() == pytest.approx(2 * gamma, rel=0.02)          # u ~ N(0, 2 gamma I)
    # z(x)'z(x') estimates k(x, x'); ||z(x)|| = 1 exactly
    Z = m._features(0)[0].copy(), m._features(1)[0].copy()
    assert float(Z[0] @ Z[0]) == pytest.approx(1.0, abs=1e-12)
    assert float(Z[0] @ Z[1]) == pytest.approx(math.exp(-gamma * np.sum((X[0] - X[1]) ** 2)), abs=0.02)


def test_the_authors_unnormalised_map_with_eta_over_D_gives_the_same_scores():
    """binary/FouGD.m: nx = [cos(u'x); sin(u'x)] (no 1/sqrt(D)), w = w + eta_fou y nx on y f < 1: with
    eta_fou = eta / D it predicts the scores of FOGD's normalised map (up to rounding)."""
    rng = np.random.default_rng(1)
    X = rng.random((300, 3))
    y = np.where(X[:, 0] - X[:, 1] + 0.2 * rng.standard_normal(300) > 0, 1.0, -1.0)
    D, eta = 50, 0.8
    m = make("fogd", kernel={"type": "gaussian", "gamma": 2.0}, n_rf=D, eta=eta, random_state=3)
    m.bind(X)
    ours = np.array([m.step(i, y[i]) for i in range(300)])
    U = m.frequencies_                               # D x d
    w = np.zeros(2 * D)
    theirs = []
    for i in range(300):
        nx = np.concatenate([np.cos(U @ X[i]), np.sin(U @ X[i])])
        f = float(w @ nx)
        theirs.append(f)
        if y[i] * f < 1:
            w = w + (eta / D) * y[i] * nx
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    assert m.n_updates == int(np.sum(y * np.array(theirs) < 1))


def test_held_out_scores_coef_and_save_load(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.random((200, 6))
    X[X < 0.4] = 0.0                                 # zeros: the projection loop skips them
    y = np.where(X[:, 0] + X[:, 1] > 0.8, 1, 0)
    m = make("fogd", kernel={"type": "gaussian", "gamma": 1.0}, n_rf=64, eta=1.0, random_state=5)
    m.bind(X)
    for i in range(150):
        m.step(i, 1.0 if y[i] else -1.0)
    # decision_function scores as step does, to the bit; and it is the shared map (feature_map) up to rounding
    assert m.decision_function(X[150:151])[0] == m.step(150, 1.0)
    np.testing.assert_allclose(m.decision_function(X), feature_map(m.frequencies_, X, 64, True)[:, 0, :] @ m._w,
                               rtol=1e-10, atol=1e-12)
    m = make("fogd", kernel={"type": "gaussian", "gamma": 1.0}, n_rf=64, eta=1.0, random_state=5).fit(X, y)
    assert m.score(X, y) > 0.8
    assert m.fitted_attributes()["coef_"].shape == (1, 128)
    assert (m.n_sv, m.kernel_evals, m.memory_max_sv({}, 10)) == (0, 0, 0)
    olk.save(m, tmp_path / "fogd.olk")
    back = olk.load(tmp_path / "fogd.olk")
    np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))
    back.partial_fit(X[:10], y[:10])                 # keeps learning after load
    m.partial_fit(X[:10], y[:10])
    np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))
    assert back.t == 210


def test_refuses_non_gaussian_kernels_and_wider_rows():
    with pytest.raises(ConfigError, match="random Fourier features need Gaussian kernels"):
        make("fogd", kernel={"type": "linear"})
    m = make("fogd", kernel=RBF, n_rf=8, random_state=0).fit(np.eye(3), [1, -1, 1])
    with pytest.raises(ValueError, match="random features were drawn for 3"):
        m.predict(np.ones((1, 5)))
