"""Multi-class RBP: a hand-computed case (the seeded draws spelled out), whole SVs leave every class, the budget
is never exceeded, and without budget pressure it is the multi-class Perceptron."""
from __future__ import annotations

import numpy as np

from olk.algorithms import make

LIN = {"type": "linear"}
X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
Y = np.array([1.0, 2.0, 0.0, 1.0])


def test_hand_computed_steps():
    assert np.random.default_rng(1).integers(2, size=2).tolist() == [0, 1]   # the learner's first two draws
    m = make("mc_rbp", kernel=LIN, budget=2, random_state=1)
    m.expect_classes(3)
    m.bind(X)
    preds = [m.step(i, Y[i]) for i in range(4)]
    # t=1, t=2: the Perceptron's steps: x1 (-1, 1, 0), x2 (-1, 0, 1)
    # t=3: s(x3) = (-2, 1, 1) -> predict 1 != 0; full: draw 0 removes x1 (x2 moves to slot 0); add x3 (1, -1, 0)
    # t=4: x4 = (1, 0): <x4, x2> = 0, <x4, x3> = 1 -> s = (1, -1, 0) -> predict 0 != 1; draw 1 removes x3 (slot 1);
    #      add x4 (-1, 1, 0)
    assert preds == [0, 0, 1, 0]
    np.testing.assert_array_equal(m.pool.coefs, [[-1, 0, 1], [-1, 1, 0]])
    assert m.pool.tags.tolist() == [2, 4] and m.n_updates == 4


def test_budget_never_exceeded_and_reached():
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(400, 3))
    yr = rng.integers(0, 4, 400).astype(float)
    m = make("mc_rbp", kernel={"type": "gaussian", "gamma": 0.5}, budget=15, random_state=0)
    m.expect_classes(4)
    m.bind(Xr)
    for i in range(400):
        m.step(i, yr[i])
        assert m.n_sv <= 15
    assert m.n_sv == 15 and m.n_updates > 15
    rows = m.pool.coefs
    assert ((rows != 0).sum(axis=1) == 2).all()          # every SV: +1 on its class, -1 on the predicted one


def test_a_large_budget_is_the_perceptron():
    rng = np.random.default_rng(5)
    Xr = rng.normal(size=(200, 3))
    yr = rng.integers(0, 3, 200)
    a = make("mc_rbp", kernel={"type": "gaussian", "gamma": 0.5}, budget=1000, random_state=0).fit(Xr, yr)
    b = make("mc_perceptron", kernel={"type": "gaussian", "gamma": 0.5}).fit(Xr, yr)
    np.testing.assert_array_equal(a.decision_function(Xr), b.decision_function(Xr))
