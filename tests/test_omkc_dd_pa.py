"""OMKC(DD)-PA = omkc_dd with component=pa (SPA Table 5 "DDPA") by hand and against m independent PA-I learners (shared
checks: tests/test_omkc_dd.py)."""
import numpy as np
import pytest
from test_omkc_dd import TWO, run

from olk.algorithms import make
from olk.data import load_dataset
from olk.kernels import KernelSet


def test_ddpa_by_hand():
    m = make("omkc_dd", component="pa", kernel=TWO, discount=0.5, eta=0.5)
    X = np.array([[1.0], [2.0], [-1.0], [3.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    scores = run(m, X, y)
    # k0 = x x', k1 = (x x' + 1)^2; tau_i = min(eta, l_i / k_i(x, x)), l_i = [1 - y f_i]_+
    # t=1 x=1 y=+1: f=(0,0), vote 0; l=(1,1), k(x,x)=(1,4): tau=(.5, .25): SV x=1 coefs (.5, .25);
    #     both err -> theta (.5,.5)
    # t=2 x=2 y=-1: f0 = .5*2 = 1, f1 = .25*9 = 2.25: vote 1; l=(2, 3.25), k(x,x)=(4, 25):
    #     tau=(.5, .13): SV x=2 coefs (-.5, -.13); both err -> theta (.5,.5)
    # t=3 x=-1 y=+1: f0 = -.5 + 1 = .5 (right, but l0 = .5 > 0), f1 = 0 - .13 = -.13 (wrong): vote 0;
    #     l=(.5, 1.13), k(x,x)=(1,4): tau=(.5, .2825): SV x=-1 coefs (.5, .2825); only f1 erred ->
    #     theta = (.5, .25)/.75 = (2/3, 1/3)
    # t=4 x=3 y=-1: f0 = 1.5 - 3 - 1.5 = -3, f1 = .25*16 - .13*49 + .2825*4 = -1.24: both margins >= 1,
    #     no update; vote -(2/3) - (1/3) = -1
    assert scores == pytest.approx([0.0, 1.0, 0.0, -1.0], abs=1e-14)
    np.testing.assert_allclose(m.pool.coefs, [[0.5, 0.25], [-0.5, 0.13 * -1], [0.5, 0.2825]], rtol=1e-14)
    np.testing.assert_allclose(m.classifier_scores(X[3:]), [[-3.0, -1.24]], rtol=1e-13)
    np.testing.assert_allclose(m.weights_, [2 / 3, 1 / 3], rtol=1e-15)
    assert m.n_sv == 3 and m.n_sv_output == 6 and list(m.mistakes_per_kernel_) == [2, 3]


def test_ddpa_classifiers_are_independent_pa1_learners():
    d = load_dataset("a9a-small")
    X, y, Xt = d.X[:300], d.y[:300], d.X[1000:1200]
    ks = KernelSet.preset("spa16")
    m = make("omkc_dd", component="pa", kernel=ks, eta=0.1).partial_fit(X, y)
    F = m.classifier_scores(Xt)
    for k in range(16):
        pa = make("pa1", kernel=ks[k], C=0.1).partial_fit(X, y)
        np.testing.assert_allclose(F[:, k], pa.decision_function(Xt), rtol=1e-12, atol=1e-12)
        assert m.sv_per_kernel_[k] == pa.n_sv
