"""OMKC(SD) (olk/algorithms/multikernel/omkc_sd.py) by hand with scripted Bernoulli draws (shared checks:
tests/test_omkc_dd.py)."""
import numpy as np
import pytest
from test_omkc_dd import TWO, Draws, run

from olk.algorithms import make
from olk.data import load_dataset
from olk.kernels import KernelSet


def test_sd_by_hand():
    m = make("omkc_sd", kernel=TWO, discount=0.5, delta=0.5)
    m.rng = Draws([[0.9, 0.9], [0.99, 0.99], [0.0, 0.999], [0.3, 0.8]])
    X = np.array([[1.0], [2.0], [-1.0], [0.5]])
    y = np.array([1.0, -1.0, 1.0, 1.0])
    scores = run(m, X, y)
    # p_i = (1 - .5) theta_i / max theta + .5
    # t=1..3: theta = (.5,.5) -> p = (1,1): every classifier sampled, so the DD steps of test_dd_by_hand:
    #   t=1 SV x=1 (1,1); t=2 SV x=2 (-1,-1); t=3 f=(1,-1): SV x=-1 (0,1), theta -> (2/3, 1/3); votes 0, 1, 0
    # t=4 x=.5 y=+1: f0 = -.5, f1 = -2(.25) - 4(.5) + 1 = -1.5: both wrong, vote -(2/3) - (1/3) = -1;
    #   p = (.5*1 + .5, .5*.5 + .5) = (1, .75); draws (.3, .8) -> only classifier 0 sampled:
    #   SV x=.5 coefs (1, 0); theta = (2/3 * .5, 1/3) / (2/3) = (.5, .5)
    assert scores == pytest.approx([0.0, 1.0, 0.0, -1.0], abs=1e-15)
    np.testing.assert_allclose(m.pool.coefs, [[1, 1], [-1, -1], [0, 1], [1, 0]])
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-15)
    assert list(m.sv_per_kernel_) == [3, 3] and list(m.mistakes_per_kernel_) == [3, 4]


def test_sd_with_delta_one_is_dd():
    """delta = 1: every classifier is sampled every step (p_i = 1), so SD is DD."""
    d = load_dataset("a9a-small")
    ks = KernelSet.preset("spa16")
    sd = make("omkc_sd", kernel=ks, delta=1.0, random_state=0).partial_fit(d.X[:300], d.y[:300])
    dd = make("omkc_dd", kernel=ks).partial_fit(d.X[:300], d.y[:300])
    np.testing.assert_array_equal(sd.pool.coefs, dd.pool.coefs)
    np.testing.assert_array_equal(sd.weights_, dd.weights_)


def test_sd_updates_fewer_classifiers_than_dd():
    d = load_dataset("a9a-small")
    ks = KernelSet.preset("spa16")
    sd = make("omkc_sd", kernel=ks, random_state=0).partial_fit(d.X[:1000], d.y[:1000])
    dd = make("omkc_dd", kernel=ks).partial_fit(d.X[:1000], d.y[:1000])
    assert sd.n_sv_output < dd.n_sv_output
