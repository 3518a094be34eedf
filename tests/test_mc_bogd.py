"""Multi-class BOGD: a hand-computed case (the seeded draw spelled out) of the shrinkage, the unbiased B/(B-1)
rescaling and the removal of a whole SV, and the budget."""
from __future__ import annotations

import numpy as np
import pytest

from olk.algorithms import make
from olk.errors import ConfigError

LIN = {"type": "linear"}
X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 2.0]])
Y = np.array([1.0, 2.0, 1.0, 2.0])


def test_hand_computed_steps():
    assert np.random.default_rng(1).integers(2) == 0                  # the learner's first draw
    m = make("mc_bogd", kernel=LIN, budget=2, eta=0.5, lam=0.1, random_state=1)     # 1 - eta lam = .95
    m.expect_classes(3)
    m.bind(X)
    preds = [m.step(i, Y[i]) for i in range(4)]
    # t=1: s = 0, rival 0, l = 1: x1 (-.5, .5, 0)
    # t=2: s = 0, rival 0, l = 1: shrink x1 to (-.475, .475, 0); x2 (-.5, 0, .5)
    # t=3: x3 = x1: s = (-.475, .475, 0) -> predict 1 = y; rival 2; l = 1 - .475 = .525 > 0; full: draw 0 removes
    #      x1 (x2 to slot 0); shrink .95 * 2 / 1 = 1.9: x2 (-.95, 0, .95); x3 (0, .5, -.5)
    # t=4: x4 = (0, 2): s = 2 (-.95, 0, .95) = (-1.9, 0, 1.9) -> predict 2 = y; rival 1; l = max(0, 1 - 1.9) = 0:
    #      only the shrinkage: x2 (-.9025, 0, .9025), x3 (0, .475, -.475)
    assert preds == [0, 0, 1, 2]
    np.testing.assert_allclose(m.pool.coefs, [[-.9025, 0, .9025], [0, .475, -.475]], rtol=1e-15)
    assert m.pool.tags.tolist() == [2, 3] and m.n_updates == 3


def test_budget_never_exceeded():
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(300, 3))
    yr = rng.integers(0, 4, 300).astype(float)
    m = make("mc_bogd", kernel={"type": "gaussian", "gamma": 0.5}, budget=12, eta=0.5, random_state=0)
    m.expect_classes(4)
    m.bind(Xr)
    for i in range(300):
        m.step(i, yr[i])
        assert m.n_sv <= 12
    assert m.n_sv == 12


def test_budget_two_at_least_and_shrinkage_below_one():
    with pytest.raises(ConfigError, match="budget: must be >= 2"):
        make("mc_bogd", budget=1)
    with pytest.raises(ConfigError, match="eta"):
        make("mc_bogd", eta=10, lam=0.5)
