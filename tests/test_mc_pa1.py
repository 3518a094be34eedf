"""Multi-class kernel PA-I (Crammer et al. 2006, Section 7, max-score): a hand-computed case, C clipping, and the
PA property: after an unclipped update the margin against the rival class is exactly 1."""
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
    m = make("mc_pa1", kernel=LIN, C=1.0)
    preds = _steps(m, X, Y, 3)
    # t=1: s = 0; rival r = 0 (tie 0/2); l = 1 - 0 + 0 = 1; tau = min(1, 1 / (2 * 1)) = 0.5: x1 (-.5, .5, 0)
    # t=2: <x2, x1> = 0: s = 0, r = 0, l = 1, tau = 0.5: x2 (-.5, 0, .5)
    # t=3: x3 = (2, 0): s = 2 * (-.5, .5, 0) = (-1, 1, 0) -> predict 1 = y; r = 2 (0 > -1); l = 1 - 1 + 0 = 0
    # t=4: x4 = x2: s = (-.5, 0, .5) -> predict 2; r = 2; l = 1 + .5 + .5 = 2; tau = min(1, 2 / 2) = 1: (1, 0, -1)
    assert preds == [0, 0, 1, 2]
    np.testing.assert_array_equal(m.pool.coefs, [[-.5, .5, 0], [-.5, 0, .5], [1, 0, -1]])
    assert m.n_updates == 3
    # after t=4, s(x4) = (-.5 + 1, 0, .5 - 1): s_0 - s_2 = 1, the PA margin against its rival
    np.testing.assert_allclose(m.decision_function(X[3:]), [[0.5, 0.0, -0.5]])


def test_c_clips_the_step():
    m = make("mc_pa1", kernel=LIN, C=0.25)
    _steps(m, X[:1], Y, 3)
    np.testing.assert_array_equal(m.pool.coefs, [[-0.25, 0.25, 0.0]])     # tau = min(0.25, 0.5)


def test_unclipped_updates_reach_margin_one_against_the_rival():
    rng = np.random.default_rng(2)
    Xr = rng.normal(size=(60, 3))
    yr = rng.integers(0, 3, 60).astype(float)
    m = make("mc_pa1", kernel={"type": "gaussian", "gamma": 0.3}, C=1e9)
    m.expect_classes(3)
    m.bind(Xr)
    for i in range(60):
        s = m.decision_function(Xr[i:i + 1])[0]
        y = int(yr[i])
        r = int(np.argmax(np.where(np.arange(3) == y, -np.inf, s)))
        n = m.n_sv
        m.step(i, yr[i])
        after = m.decision_function(Xr[i:i + 1])[0]
        if m.n_sv > n:
            assert after[y] - after[r] == pytest.approx(1.0, abs=1e-9)
        else:
            assert s[y] - s[r] >= 1.0


def test_c_must_be_positive():
    with pytest.raises(ConfigError, match="C: must be > 0"):
        make("mc_pa1", C=0)
