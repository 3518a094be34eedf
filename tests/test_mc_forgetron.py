"""Multi-class self-tuned Forgetron (Kesler reading): a hand-computed case of the shrinking phi_t and the damage
Q, the budget, and without budget pressure it predicts as the multi-class Perceptron."""
from __future__ import annotations

import math

import numpy as np
import pytest

from olk.algorithms import make

LIN = {"type": "linear"}
C = 1 / math.sqrt(2)                                     # a new SV's coefficient: the unit Kesler vector's
X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
Y = np.array([1.0, 2.0, 1.0])


def test_hand_computed_steps():
    m = make("mc_forgetron", kernel=LIN, budget=1)
    m.expect_classes(3)
    m.bind(X)
    # t=1: s = 0 -> predict 0 != 1: M = 1, x1 (-c, c, 0); one SV <= B
    assert m.step(0, Y[0]) == 0 and m.n_sv == 1
    # t=2: <x2, x1> = 0 -> predict 0 != 2: M = 2, x2 (-c, 0, c); two SVs > B: r = x1 (the oldest), its classes
    #      y_r = 1 (+), p_r = 0 (-), delta = c / c = 1; W'(x1) = (-c, c, 0): mu = (c + c) c = 1
    #      a = 1 - 2 = -1, b = 2, c' = Q - 15/32 M = -15/16; a + b + c' = 1/16 > 0
    #      -> phi = -2c' / (b + sqrt(b^2 - 4ac')) = (15/8) / (2 + sqrt(4 - 15/4)) = (15/8) / (5/2) = 3/4
    #      Q = Psi(3/4, 3/4) = 9/16 + 3/2 - 9/8 = 15/16
    assert m.step(1, Y[1]) == 0
    assert m.phi_last == pytest.approx(0.75) and m.Q == pytest.approx(15 / 16) and m.M == 2
    np.testing.assert_allclose(m.pool.coefs, [[-0.75 * C, 0, 0.75 * C]])     # x1 gone, x2 shrunk by phi
    # t=3: x3 = x1: <x3, x2> = 0 -> predict 0 != 1: M = 3, add x3 (-c, c, 0); r = x2 (y_r = 2, p_r = 0),
    #      delta = 0.75, W'(x2) = (-0.75c, 0, 0.75c): mu = 1.5 c^2 = 0.75
    #      a = 0.5625 - 1.125 = -0.5625, b = 1.5, c' = 15/16 - 45/32 = -0.46875
    a, b, cc = -0.5625, 1.5, 15 / 16 - 45 / 32
    phi = -2 * cc / (b + math.sqrt(b * b - 4 * a * cc))
    assert a * phi * phi + b * phi + cc == pytest.approx(0.0, abs=1e-12) and 0 < phi < 1
    assert m.step(2, Y[2]) == 0
    assert m.phi_last == pytest.approx(phi)
    assert m.Q == pytest.approx(15 / 16 + (0.75 * phi) ** 2 + 2 * 0.75 * phi - 2 * 0.75 * phi * phi * 0.75)
    np.testing.assert_allclose(m.pool.coefs, [[-phi * C, phi * C, 0]])
    assert m.Q <= 15 / 32 * m.M + 1e-12                  # the damage stays within 15/32 M


def test_budget_never_exceeded_and_the_damage_bounded():
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(400, 3))
    yr = rng.integers(0, 4, 400).astype(float)
    m = make("mc_forgetron", kernel={"type": "gaussian", "gamma": 0.5}, budget=10)
    m.expect_classes(4)
    m.bind(Xr)
    for i in range(400):
        m.step(i, yr[i])
        assert m.n_sv <= 10
        assert m.Q <= 15 / 32 * m.M + 1e-9
    assert m.n_sv == 10 and m.M > 10


def test_a_large_budget_predicts_as_the_perceptron():
    rng = np.random.default_rng(6)
    Xr = rng.normal(size=(200, 3))
    yr = rng.integers(0, 3, 200)
    a = make("mc_forgetron", kernel={"type": "gaussian", "gamma": 0.5}, budget=1000).fit(Xr, yr)
    b = make("mc_perceptron", kernel={"type": "gaussian", "gamma": 0.5}).fit(Xr, yr)
    np.testing.assert_allclose(a.decision_function(Xr), C * b.decision_function(Xr), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(a.predict(Xr), b.predict(Xr))
