"""OMKC(SD)-PA = omkc_sd with component=pa (SPA Table 5 "SDPA") by hand with scripted Bernoulli draws (shared checks:
tests/test_omkc_dd.py)."""
import numpy as np
import pytest
from test_omkc_dd import TWO, run
from test_omkc_sd import Draws

from olk.algorithms import make
from olk.data import load_dataset
from olk.kernels import KernelSet


def test_sdpa_by_hand():
    m = make("omkc_sd", component="pa", kernel=TWO, discount=0.5, delta=0.5, eta=0.5)
    m.rng = Draws([[0.9, 0.9], [0.1, 0.1], [0.99, 0.5]])
    X = np.array([[1.0], [2.0], [-1.0]])
    y = np.array([1.0, -1.0, 1.0])
    scores = run(m, X, y)
    # t=1 x=1 y=+1: theta (.5,.5), p=(1,1), both sampled; f=(0,0), vote 0; PA: tau=(.5,.25) (as in the
    #     DDPA test): SV x=1 (.5, .25); both err -> theta (.5,.5)
    # t=2 x=2 y=-1: p=(1,1); f=(1, 2.25), vote 1; tau=(.5, .13): SV x=2 (-.5, -.13); theta (.5,.5)
    # t=3 x=-1 y=+1: p=(1,1); f=(.5, -.13), vote 0; both sampled: tau=(.5, .2825): SV x=-1 (.5, .2825);
    #     f1 erred -> theta (2/3, 1/3)
    assert scores == pytest.approx([0.0, 1.0, 0.0], abs=1e-14)
    np.testing.assert_allclose(m.pool.coefs, [[0.5, 0.25], [-0.5, -0.13], [0.5, 0.2825]], rtol=1e-14)
    np.testing.assert_allclose(m.weights_, [2 / 3, 1 / 3], rtol=1e-15)
    # t=4 x=3 y=-1: f=(-3, -1.24): no margin error whatever is sampled; p = (1, .5*.5 + .5 = .75)
    # t=5 x=.5 y=+1: f0 = .25 - .5 - .25 = -.5 -> wrong, l0 = 1.5; f1 = .25*2.25 - .13*4 + .2825*.25 = .113125
    #     (right, l1 = .886875); p = (1, .75), draws (.2, .9): only f0 sampled: tau0 = min(.5, 1.5/.25) = .5:
    #     SV x=.5 (.5, 0); f0 erred and was sampled -> theta = (1/3, 1/3)/(2/3) = (.5, .5)
    m.rng = Draws([[0.0, 0.0], [0.2, 0.9]])
    scores = run(m, np.array([[3.0], [0.5]]), np.array([-1.0, 1.0]))
    assert scores == pytest.approx([-1.0, -1 / 3], abs=1e-14)    # t=5 vote: -2/3 + 1/3
    np.testing.assert_allclose(m.pool.coefs[-1], [0.5, 0.0])
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-15)
    assert m.n_sv == 4 and list(m.sv_per_kernel_) == [4, 3]


def test_sdpa_with_delta_one_is_ddpa():
    d = load_dataset("a9a-small")
    ks = KernelSet.preset("spa16")
    a = make("omkc_sd", component="pa", kernel=ks, delta=1.0, random_state=0).partial_fit(d.X[:300], d.y[:300])
    b = make("omkc_dd", component="pa", kernel=ks).partial_fit(d.X[:300], d.y[:300])
    np.testing.assert_array_equal(a.pool.coefs, b.pool.coefs)
