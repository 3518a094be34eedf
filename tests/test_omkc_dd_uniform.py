"""OMKC(U) = omkc_dd with discount=1 (SPA Table 5 "U"): the DD classifiers with frozen uniform weights (shared checks:
tests/test_omkc_dd.py)."""
import numpy as np
import pytest
from test_omkc_dd import TWO, X4, Y4, run

from olk.algorithms import make
from olk.data import load_dataset
from olk.kernels import KernelSet


def test_u_by_hand():
    m = make("omkc_dd", kernel=TWO, discount=1.0)
    scores = run(m, X4, Y4)
    # the classifiers of test_dd_by_hand (same mistakes, same SVs), but theta stays (.5, .5):
    # t=1 vote 0; t=2 f=(2, 9): vote 1; t=3 f=(1, -1): vote 0; t=4 f=(0, 1): vote .5*0 + .5*1 = .5
    assert scores == pytest.approx([0.0, 1.0, 0.0, 0.5], abs=1e-15)
    np.testing.assert_allclose(m.pool.coefs, [[1, 1], [-1, -1], [0, 1], [1, 0]])
    np.testing.assert_array_equal(m.weights_, [0.5, 0.5])
    assert m.n_sv == 4 and m.n_sv_output == 6


def test_u_has_the_classifiers_of_dd():
    d = load_dataset("a9a-small")
    ks = KernelSet.preset("spa16")
    u = make("omkc_dd", kernel=ks, discount=1.0).partial_fit(d.X[:300], d.y[:300])
    dd = make("omkc_dd", kernel=ks).partial_fit(d.X[:300], d.y[:300])
    np.testing.assert_array_equal(u.pool.coefs, dd.pool.coefs)
    np.testing.assert_array_equal(u.weights_, np.full(16, 1 / 16))
