"""Multi-class kernel Perceptron (max-score update): a hand-computed case, ties to the smallest class index, the
engine's path (bind + step) equals fit, and the Kesler reading (K = 2 is the binary Perceptron's classifier)."""
from __future__ import annotations

import numpy as np

from olk.algorithms import make

LIN = {"type": "linear"}
# four rows; k(x, x') = <x, x'> (linear kernel) keeps the arithmetic exact
X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
Y = np.array([1.0, 2.0, 0.0, 1.0])


def _steps(m, X, y, K):
    m.expect_classes(K)
    m.bind(X)
    return [m.step(i, y[i]) for i in range(X.shape[0])]


def test_hand_computed_steps():
    m = make("mc_perceptron", kernel=LIN)
    preds = _steps(m, X[:3], Y, 3)
    # t=1: s = (0, 0, 0) -> predict 0 (tie: smallest index) != 1: SV x1 with +1 on class 1, -1 on class 0
    # t=2: <x2, x1> = 0 -> s = (0, 0, 0) -> predict 0 != 2: SV x2 with +1 on class 2, -1 on class 0
    # t=3: <x3, x1> = <x3, x2> = 1 -> s = (-1-1, 1, 1) = (-2, 1, 1) -> predict 1 (tie 1/2) != 0: +1 on 0, -1 on 1
    assert preds == [0, 0, 1]
    np.testing.assert_array_equal(m.pool.coefs, [[-1, 1, 0], [-1, 0, 1], [1, -1, 0]])
    assert m.n_updates == 3 and m.n_sv == 3 and m.pool.tags.tolist() == [1, 2, 3]
    # t=4: x4 = x1 (<x4, x1> = <x4, x3> = 1, <x4, x2> = 0): s0 = -1 + 1 = 0, s1 = 1 - 1 = 0, s2 = 0: a tie -> 0
    np.testing.assert_array_equal(m.decision_function(X[3:]), [[0.0, 0.0, 0.0]])
    m.bind(X)
    assert m.step(3, 1.0) == 0 and m.n_sv == 4


def test_a_correct_prediction_changes_nothing():
    m = make("mc_perceptron", kernel=LIN)
    _steps(m, np.array([[1.0, 0.0], [2.0, 0.0]]), np.array([1.0, 1.0]), 2)
    # t=2: s = (-2, 2) -> predict 1 = y: no update
    assert m.n_sv == 1 and m.n_updates == 1


def test_engine_path_equals_fit_on_class_indices():
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(80, 3))
    yr = rng.integers(0, 4, 80).astype(float)
    engine = make("mc_perceptron", kernel={"type": "gaussian", "gamma": 0.5})
    _steps(engine, Xr, yr, 4)
    fitted = make("mc_perceptron", kernel={"type": "gaussian", "gamma": 0.5}).fit(Xr, yr)
    np.testing.assert_array_equal(engine.decision_function(Xr), fitted.decision_function(Xr))
    assert engine.classes_ is None and fitted.classes_.tolist() == [0, 1, 2, 3]


def test_two_classes_give_the_binary_perceptrons_classifier():
    """K = 2: s_1 - s_0 is the binary Perceptron's f scaled by 2 (Kesler), except where f = 0: the binary
    Perceptron predicts +1 (sign(0) = +1) and updates on y f <= 0, the multi-class one predicts class 0."""
    rng = np.random.default_rng(1)
    Xr = rng.normal(size=(120, 2))
    ypm = np.where(Xr[:, 0] * Xr[:, 1] > 0, 1.0, -1.0)
    mc = make("mc_perceptron", kernel={"type": "gaussian", "gamma": 1.0}).fit(Xr, ypm)
    D = mc.decision_function(Xr)
    assert mc.classes_.tolist() == [-1, 1] and D.shape == (120, 2)
    np.testing.assert_allclose(D[:, 0], -D[:, 1])                 # every SV: +1 on one class, -1 on the other
    assert (mc.predict(Xr) == np.where(D[:, 1] > D[:, 0], 1.0, -1.0)).all()
