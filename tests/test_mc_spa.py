"""Multi-class SPA: a hand-computed case (alpha = beta = 1 makes every loss >= 1 a sure draw), the exact averaged
model against an explicit average of the last models, and the expected #SV bound alpha T / beta."""
from __future__ import annotations

import numpy as np
import pytest

from olk.algorithms import make
from olk.errors import ConfigError

LIN = {"type": "linear"}
X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [0.0, 1.0]])
Y = np.array([1.0, 2.0, 1.0, 0.0])


def _steps(m, X, y, K):
    m.expect_classes(K)
    m.bind(X)
    return [m.step(i, y[i]) for i in range(X.shape[0])]


def test_hand_computed_steps():
    m = make("mc_spa", kernel=LIN, alpha=1.0, beta=1.0, eta=1.0, random_state=0)
    preds = _steps(m, X, Y, 3)
    # rho = min(1, l) / 1 = 1 whenever l >= 1: Z = 1 surely, tau = min(eta / 1, l / (2 k_tt))
    # t=1: avg = last = 0 -> predict 0; l = 1, tau = .5: x1 last (-.5, .5, 0), weighted by t=1: (-.5, .5, 0)
    # t=2: <x2, x1> = 0 -> predict 0; l = 1, tau = .5: x2 (-.5, 0, .5), weighted by t=2: (-1, 0, 1)
    # t=3: x3 = (2, 0): last = (-1, 1, 0), sum a_s s k = (-1, 1, 0): avg = last - that / 3 = (-2/3, 2/3, 0)
    #      -> predict 1; l = 1 - 1 + 0 = 0: no draw
    # t=4: x4 = x2: last = (-.5, 0, .5), weighted (-1, 0, 1): avg = (-.25, 0, .25) -> predict 2; r = 2,
    #      l = 1 + .5 + .5 = 2, rho = min(1, 2) = 1, tau = min(1, 2 / 2) = 1: x4 (1, 0, -1), weighted by 4
    assert preds == [0, 0, 1, 2]
    np.testing.assert_array_equal(m.pool.coefs, [[-.5, .5, 0, -.5, .5, 0], [-.5, 0, .5, -1, 0, 1],
                                                 [1, 0, -1, 4, 0, -4]])
    assert m.n_updates == 3 and m.outputs == ("avg", "last")
    # the two outputs at x4 after t = 4: last = (.5, 0, -.5); avg = last - (-1 + 4, 0, 1 - 4) / 4
    np.testing.assert_allclose(m.decision_function(X[3:], output="last"), [[0.5, 0.0, -0.5]])
    np.testing.assert_allclose(m.decision_function(X[3:], output="avg"), [[-0.25, 0.0, 0.25]])


def test_the_averaged_model_is_the_mean_of_the_last_models():
    rng = np.random.default_rng(3)
    Xr = rng.normal(size=(150, 3))
    yr = rng.integers(0, 4, 150).astype(float)
    Q = rng.normal(size=(7, 3))
    m = make("mc_spa", kernel={"type": "gaussian", "gamma": 0.5}, beta=3, random_state=1)
    m.expect_classes(4)
    m.bind(Xr)
    total = np.zeros((7, 4))
    for i in range(150):
        total += m.decision_function(Q, output="last")            # W_t, the model that predicts at step t
        m.step(i, yr[i])
    # W̄_T = (1/T) sum_{t=1..T} W_t (W_1 = 0)
    np.testing.assert_allclose(m.decision_function(Q, output="avg"), total / 150, rtol=1e-10, atol=1e-12)
    assert 0 < m.n_sv < 150


def test_expected_number_of_svs_is_at_most_alpha_t_over_beta():
    rng = np.random.default_rng(4)
    Xr = rng.normal(size=(2000, 4))
    yr = rng.integers(0, 5, 2000).astype(float)                   # random labels: the loss stays high
    counts = []
    for seed in range(5):
        m = make("mc_spa", kernel={"type": "gaussian", "gamma": 1.0}, alpha=1, beta=20, random_state=seed).fit(Xr, yr)
        counts.append(m.n_sv)
    assert np.mean(counts) <= 1.1 * 2000 / 20                     # E[#SV] <= alpha T / beta = 100 (Theorem 5.2)
    assert np.mean(counts) >= 50                                  # and the bound is nearly met (l_t >= 1 mostly)


def test_beta_below_alpha_is_refused():
    with pytest.raises(ConfigError, match="beta >= alpha"):
        make("mc_spa", alpha=2, beta=1)
