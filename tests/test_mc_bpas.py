"""Multi-class BPA-S: a hand-computed case of the removal choice ||a_j||^2 (k_jj - k_jt^2 / k_tt) and the carried
coefficients, the budget, and below the budget it is multi-class PA-I."""
from __future__ import annotations

import numpy as np
import pytest

from olk.algorithms import make

LIN = {"type": "linear"}
X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
Y = np.array([1.0, 2.0, 0.0])


def test_hand_computed_steps():
    m = make("mc_bpas", kernel=LIN, budget=2, C=1.0)
    m.expect_classes(3)
    m.bind(X)
    preds = [m.step(i, Y[i]) for i in range(3)]
    # t=1, t=2: PA-I below the budget: x1 (-.5, .5, 0), x2 (-.5, 0, .5)
    # t=3: full; k(x3, x1) = .6, k(x3, x2) = .8: s = (-.3 - .4, .3, .4) -> predict 2; rival 2;
    #      l = 1 + .7 + .4 = 2.1, tau = min(1, 2.1 / 2) = 1 (C clips): (1, 0, -1)
    #      scores ||a_j||^2 (1 - k_jt^2): x1 .5 * .64 = .32, x2 .5 * .36 = .18 -> remove x2 (slot 1),
    #      carry a_2 * .8 = (-.4, 0, .4): x3 gets (.6, 0, -.6)
    assert preds == [0, 0, 2]
    np.testing.assert_allclose(m.pool.coefs, [[-.5, .5, 0], [.6, 0, -.6]], atol=1e-15)
    assert m.pool.tags.tolist() == [1, 3] and m.n_updates == 3


def test_an_unclipped_step_reaches_margin_one_whichever_sv_goes():
    m = make("mc_bpas", kernel=LIN, budget=1, C=1.0)
    Xs = np.array([[1.0, 0.0], [0.6, 0.8]])
    m.expect_classes(3)
    m.bind(Xs)
    m.step(0, 1.0)                                   # x1 (-.5, .5, 0)
    # t=2: s(x2) = .6 (-.5, .5, 0) = (-.3, .3, 0) -> predict 1; y = 2, rival 1; l = 1.3, tau = .65;
    #      carry .6 (-.5, .5, 0): x2 gets (-.3, .3 - .65, .65)
    assert m.step(1, 2.0) == 1
    np.testing.assert_allclose(m.pool.coefs, [[-.3, -.35, .65]])
    s = m.decision_function(Xs[1:])[0]
    assert s[2] - s[1] == pytest.approx(1.0)


def test_budget_never_exceeded_and_below_it_pa1():
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(300, 3))
    yr = rng.integers(0, 4, 300).astype(float)
    m = make("mc_bpas", kernel={"type": "gaussian", "gamma": 0.5}, budget=12)
    m.expect_classes(4)
    m.bind(Xr)
    for i in range(300):
        m.step(i, yr[i])
        assert m.n_sv <= 12
    assert m.n_sv == 12
    a = make("mc_bpas", kernel={"type": "gaussian", "gamma": 0.5}, budget=1000).fit(Xr[:80], yr[:80])
    b = make("mc_pa1", kernel={"type": "gaussian", "gamma": 0.5}).fit(Xr[:80], yr[:80])
    np.testing.assert_array_equal(a.decision_function(Xr), b.decision_function(Xr))
