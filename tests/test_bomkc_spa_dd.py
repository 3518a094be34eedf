"""BOMKC(SPA) (olk/algorithms/multikernel/bomkc_spa_dd.py): by hand with scripted Bernoulli draws, against independent
single-kernel SPA learners, its expected SV bound, pickling and the spa16 kernels end to end."""
import pickle

import numpy as np
import pytest
from test_omkc_dd import TWO, Draws, run

from olk.algorithms import make
from olk.data import load_dataset
from olk.errors import ConfigError


class Zeros:
    """An RNG whose every uniform is 0: Z_i = I(rho_i p_i > 0) = I(l_i > 0), every loss sampled."""
    def random(self, n=None):
        return 0.0 if n is None else np.zeros(n)


def test_by_hand():
    m = make("bomkc_spa_dd", kernel=TWO, alpha=1.0, beta=2.0, eta=1.0, discount=0.5, delta=0.5)
    m.rng = Draws([[0.4, 0.6], [0.3, 0.2], [0.2, 0.7], [0.1, 0.35]])
    X = np.array([[1.0], [2.0], [-1.0], [0.5]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    scores = run(m, X, y)
    # rho_i = min(1, l_i)/2,  p_i = .5 theta_i / max theta + .5,  tau_i = min(1/rho_i, l_i / k_i(x, x))
    # t=1 x=1 y=+1: f = (0, 0): vote 0; both wrong; l = (1, 1), rho = (.5, .5), p = (1, 1);
    #   draws (.4, .6) -> Z = (1, 0): tau_0 = min(2, 1/1) = 1: SV x=1 coefs (1, 0); both discounted: theta (.5, .5)
    # t=2 x=2 y=-1: f0 = 1*2 = 2, f1 = 0: vote .5; both wrong; l = (3, 1), rho = (.5, .5), p = (1, 1);
    #   draws (.3, .2) -> Z = (1, 1): tau_0 = min(2, 3/4) = .75, tau_1 = min(2, 1/25) = .04:
    #   SV x=2 coefs (-.75, -.04); theta (.5, .5)
    # t=3 x=-1 y=+1: f0 = -1 + (-.75)(-2) = .5, f1 = -.04 (-2 + 1)^2 = -.04: vote .5 - .5 = 0; only f1 wrong;
    #   l = (.5, 1.04), rho = (.25, .5), p = (1, 1); draws (.2, .7) -> Z = (1, 0): tau_0 = min(4, .5/1) = .5:
    #   SV x=-1 coefs (.5, 0); theta = (.5, .25) / .75 = (2/3, 1/3)
    # t=4 x=.5 y=-1: f0 = .5 - .75 - .25 = -.5, f1 = -.04 (1 + 1)^2 = -.16: vote -2/3 - 1/3 = -1; none wrong;
    #   l = (.5, .84), rho = (.25, .42), p = (1, .5*.5 + .5) = (1, .75), rho p = (.25, .315);
    #   draws (.1, .35) -> Z = (1, 0) (.35 < .42: f1 would be sampled without the theta factor p_1);
    #   tau_0 = min(4, .5/.25) = 2: SV x=.5 coefs (-2, 0); theta unchanged
    assert scores == pytest.approx([0.0, 0.5, 0.0, -1.0], abs=1e-15)
    np.testing.assert_allclose(m.pool.coefs, [[1, 0], [-0.75, -0.04], [0.5, 0], [-2, 0]], rtol=1e-14)
    np.testing.assert_allclose(m.weights_, [2 / 3, 1 / 3], rtol=1e-15)
    assert list(m.sv_per_kernel_) == [4, 1] and m.n_sv_output == 5 and m.n_sv == 4
    assert list(m.mistakes_per_kernel_) == [2, 3] and m.n_updates == 4
    assert list(m.pool.tags) == [1, 2, 3, 4]


def test_no_draw_without_loss():
    # every l_i = 0: no Bernoulli trial at all (Draws would fail on a call), no SV, no discount
    m = make("bomkc_spa_dd", kernel=TWO, beta=2.0, eta=1.0)
    m.rng = Draws([[0.0, 0.0]])
    run(m, np.array([[1.0]]), np.array([1.0]))            # f = 0: l = 1, both sampled: f0(x) = 1, f1(x) = 4 tau_1
    m.rng = Draws([])
    run(m, np.array([[3.0]]), np.array([1.0]))            # f0(3) = 3, f1(3) = 16 * min(2, 1/4) = 4: l = 0
    assert m.n_sv == 1 and list(m.sv_per_kernel_) == [1, 1]
    np.testing.assert_allclose(m.weights_, [0.5, 0.5])


def test_every_loss_sampled_equals_independent_spa():
    # with every uniform 0 each f_i is sampled on every l_i > 0: column i must be single-kernel SPA
    # (output 'last', same alpha, beta, eta) on kernel i, with its own draws also all 0
    d = load_dataset("a9a-small")
    X, y = d.X[:300], d.y[:300]
    kernels = [{"type": "gaussian", "gamma": 0.4}, {"type": "polynomial", "gamma": 1.0, "coef0": 1.0, "degree": 2}]
    m = make("bomkc_spa_dd", kernel=kernels, alpha=1.0, beta=3.0, eta=0.1)
    m.rng = Zeros()
    m.partial_fit(X, y)
    C = m.pool.coefs
    for k, kern in enumerate(kernels):
        s = make("spa", kernel=kern, alpha=1.0, beta=3.0, eta=0.1, output="last")
        s.rng = Zeros()
        s.partial_fit(X, y)
        mine = C[:, k] != 0.0
        np.testing.assert_allclose(C[mine, k], s.pool.coefs[:, 0], rtol=1e-12)
        np.testing.assert_array_equal(np.asarray(m.pool.tags)[mine], s.pool.tags)
        assert m.sv_per_kernel_[k] == s.n_sv
        # 1e-12 relative (the bar), no absolute slack: the pool visits only column k's own rows, in
        # the single pool's slot order, so today the scores are bit-identical; the bound leaves room for a
        # decision loop that sums in another order
        np.testing.assert_allclose(m.classifier_scores(d.X[300:400])[:, k],
                                   s.decision_function(d.X[300:400]), rtol=1e-12, atol=0)


def test_one_kernel_delta_one_is_spa_draw_for_draw():
    # delta = 1 -> p = 1, one uniform per step with a loss: exactly spa(output='last') with the same seed
    d = load_dataset("a9a-small")
    X, y = d.X[:500], d.y[:500]
    kern = {"type": "gaussian", "gamma": 0.4}
    m = make("bomkc_spa_dd", kernel=kern, delta=1.0, random_state=7).partial_fit(X, y)
    s = make("spa", kernel=kern, alpha=1.0, beta=3.0, eta=0.1, output="last", random_state=7).partial_fit(X, y)
    assert m.n_sv == s.n_sv == m.n_sv_output > 0
    np.testing.assert_allclose(m.pool.coefs[:, 0], s.pool.coefs[:, 0], rtol=1e-14)
    np.testing.assert_array_equal(np.sign(m.decision_function(d.X[500:])), np.sign(s.decision_function(d.X[500:])))


def test_sv_bound_in_expectation():
    # E[#SV of f_i] <= alpha T / beta (Theorem 2); OMKC(DD) stores every mistake of every classifier
    d = load_dataset("a9a-small")
    dd = make("omkc_dd", kernel="spa16").partial_fit(d.X, d.y)
    counts = {}
    for T in (500, 1000, 2000):
        m = make("bomkc_spa_dd", kernel="spa16", random_state=0).partial_fit(d.X[:T], d.y[:T])
        bound = 1.0 * T / 3.0
        sd = np.sqrt(bound)                                # Binomial(T, <= 1/3) standard deviation < sqrt(T/3)
        assert (m.sv_per_kernel_ <= bound + 4 * sd).all()
        assert m.n_sv_output <= 16 * bound
        assert m.n_sv <= m.n_sv_output
        counts[T] = m.n_sv_output
    assert counts[2000] < 0.5 * dd.n_sv_output               # 3,876 vs 11,229
    assert 1.4 < counts[2000] / counts[1000] < 2.6 and 1.4 < counts[1000] / counts[500] < 2.6   # ~ linear in T
    b10 = make("bomkc_spa_dd", kernel="spa16", beta=10.0, random_state=0).partial_fit(d.X, d.y)
    assert b10.n_sv_output < 0.6 * counts[2000]              # larger beta: fewer SVs


def test_pickle_round_trip():
    d = load_dataset("a9a-small")
    m = make("bomkc_spa_dd", kernel="spa16", random_state=3).partial_fit(d.X[:400], d.y[:400])
    c = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(c.pool.coefs, m.pool.coefs)
    np.testing.assert_array_equal(c.weights_, m.weights_)
    m.partial_fit(d.X[400:800], d.y[400:800])
    c.partial_fit(d.X[400:800], d.y[400:800])             # the RNG state travels too: same draws
    np.testing.assert_array_equal(c.pool.coefs, m.pool.coefs)
    np.testing.assert_array_equal(c.sv_per_kernel_, m.sv_per_kernel_)
    np.testing.assert_array_equal(c.decision_function(d.X[800:900]), m.decision_function(d.X[800:900]))


def test_spa16_end_to_end():
    d = load_dataset("a9a-small")
    m = make("bomkc_spa_dd", kernel="spa16", random_state=0)
    assert m.stochastic and len(m.kernels) == 16 and m.n_cols == 16
    m.fit(d.X[:1000], d.y[:1000])
    assert (m.n_sv_output, m.n_sv) == (2424, 903)
    assert float((m.predict(d.X[1000:]) == d.y[1000:]).mean()) > 0.78
    again = make("bomkc_spa_dd", kernel="spa16", random_state=0).fit(d.X[:1000], d.y[:1000])
    np.testing.assert_array_equal(again.pool.coefs, m.pool.coefs)
    assert abs(m.weights_.sum() - 1.0) < 1e-12


def test_beta_below_alpha_refused():
    with pytest.raises(ConfigError, match="beta >= alpha"):
        make("bomkc_spa_dd", kernel="spa16", alpha=2.0, beta=1.0)
