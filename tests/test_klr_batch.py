"""The batch KLR baselines of Zhang et al. (AAAI 2012, Figure 5): PCD (primal coordinate descent,
olk/algorithms/klr/klr_pcd.py) and DCD (dual coordinate descent, olk/algorithms/klr/klr_dcd.py).

Both minimise P(beta) = lam/2 beta'K beta + 1/n sum_i log(1 + exp(-y_i (K beta)_i)); the tests check them
against hand-computed steps, a direct L-BFGS-B solve of P, the duality gap of DCD's dual and the learner
contract (probe per sweep, probabilities, sparse input, cache on/off).  Offline, a few seconds.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit

from olk.algorithms import make
from olk.algorithms.common.batch import BatchKernelLearner
from olk.algorithms.common.logistic import LogisticOutput
from olk.algorithms.klr.batch import primal_objective
from olk.algorithms.klr.klr_dcd import KLRDCD, dual_objective
from olk.algorithms.klr.klr_pcd import KLRPCD
from olk.algorithms.registry import REGISTRY
from olk.errors import ConfigError

NAMES = ["klr_pcd", "klr_dcd"]
GAMMA, LAM = 0.5, 0.05
RBF = {"type": "gaussian", "gamma": GAMMA}
LIN = {"type": "linear"}
#: the root of b = sigmoid(-b): the optimum of the one-point problems below (primal b*, dual a*)
B_STAR = 0.4010581375415468


def _problem(n=40, seed=0):
    """n points in 3-d (std 1.5: a kernel matrix with smallest eigenvalue ~0.015, so that cyclic primal
    coordinate descent converges in a few hundred sweeps), labels from a noisy linear rule."""
    rng = np.random.default_rng(seed)
    X = 1.5 * rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.75 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _gram(X):
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-GAMMA * d2)


@pytest.fixture(scope="module")
def direct():
    """min_beta P(beta) by L-BFGS-B with the analytic gradient K (lam beta - 1/n y * sigmoid(-y K beta))."""
    X, y = _problem()
    K = _gram(X)
    n = len(y)

    def P(b):
        f = K @ b
        m = y * f
        return 0.5 * LAM * b @ f + np.mean(np.logaddexp(0.0, -m)), K @ (LAM * b - y * expit(-m) / n)

    res = minimize(P, np.zeros(n), jac=True, method="L-BFGS-B",
                   options=dict(gtol=1e-12, ftol=1e-15, maxiter=20000))
    return X, y, K, res.fun, K @ res.x


def _fit(name, X, y, **kw):
    kw = {"lam": LAM, "tol": 1e-13, "max_iter": 3000, **kw}
    return make(name, kernel=RBF, **kw).fit(X, y)


# ------------------------------------------------------------------------------------- registry
def test_registered_as_reporting_batch_klr_learners():
    for name, cls, disp in (("klr_pcd", KLRPCD, "PCD"), ("klr_dcd", KLRDCD, "DCD")):
        assert REGISTRY[name] is cls and cls.display == disp
        assert issubclass(cls, BatchKernelLearner)
        assert [b for b in cls.__mro__ if b in (LogisticOutput, BatchKernelLearner)] == [LogisticOutput,
                                                                                        BatchKernelLearner]
        assert (cls.batch, cls.order_free, cls.stochastic, cls.reports_progress) == (True, True, False, True)
        assert cls.task == "probabilistic" and cls.outputs == ()
        m = make(name)
        assert (m.lam, m.max_iter, m.tol, m.cache_mb) == (1e-4, 100, 1e-3, 1024.0)
    assert KLRPCD.style[0] != KLRDCD.style[0]
    with pytest.raises(ConfigError, match="> 0"):
        make("klr_pcd", lam=0)
    with pytest.raises(ConfigError, match=">= 1"):
        make("klr_dcd", max_iter=0)
    with pytest.raises(ConfigError, match="> 0"):
        make("klr_dcd", tol=-1)


# ------------------------------------------------------------------------------ hand-computed steps
def test_pcd_first_steps_by_hand():
    # n = 1, x = 1, y = +1, linear kernel (K = 1), lam = 1:  P(b) = b^2/2 + log(1 + e^-b)
    # sweep 1 from b = 0: f = 0, s = sigmoid(0) = 1/2
    #   g = lam f - s y k = -0.5,  h = lam K + s (1 - s) k^2 = 1.25,  Newton step t = 0.4
    #   dP = lam (t f + t^2/2) + log1p(s (e^-t - 1)) = 0.08 + log(0.83516) = -0.10013 <= 0.01 t g: accepted
    # sweep 2 from b = 0.4: s = sigmoid(-0.4) = 0.4013123,  g = 0.4 - s = -0.0013123,
    #   h = 1 + s (1 - s) = 1.2402604,  t = 0.0010581:  b = 0.4010581
    m = make("klr_pcd", kernel=LIN, lam=1.0, tol=1e-30, max_iter=2)
    seen = []
    m.fit(np.array([[1.0]]), np.array([1.0]), probe=lambda: seen.append(float(m.coef_[0])))
    assert seen[0] == pytest.approx(0.4, abs=1e-15)
    s = 1.0 / (1.0 + math.exp(0.4))
    assert seen[1] == pytest.approx(0.4 + (s - 0.4) / (1.0 + s * (1.0 - s)), abs=1e-15)
    assert seen[1] == pytest.approx(0.4010581, abs=1e-7)
    # P(0) = log 2;  P(0.4) = 0.08 + log(1 + e^-0.4) = P(0) + dP
    assert m.objective_path_[:2] == pytest.approx([math.log(2.0), 0.08 + math.log(1.0 + math.exp(-0.4))], abs=1e-15)
    assert (m.n_iter_, m.t, m.n_updates, m.n_sv) == (2, 2, 2, 1)
    # the optimum b* = sigmoid(-b*) = 0.40105814 (P'(b) = b - sigmoid(-b) = 0): two Newton steps are there
    assert seen[1] == pytest.approx(B_STAR, abs=1e-7)


def test_dcd_first_sweep_by_hand():
    # n = 1, K = 1, y = +1, lam = 1:  C = 1/(lam n) = 1;  D(a) = a^2/2 + a log a + (1 - a) log(1 - a)
    # start a = min(1e-3 C, 1e-8) = 1e-8, f = a;  b = y f = 1e-8;  0.5 K (C - 2a) + b > 0: move a itself
    # g'(a) = a + log(a / (1 - a)) = -18.42 at the start; Newton a <- a - g'/(1 + 1/(a(1 - a))) with a -> 0.1 a
    # when it would leave (0, 1), until |g'| < 1e-2 (the first sweep's inner tolerance)
    m = make("klr_dcd", kernel=LIN, lam=1.0, tol=1e-30, max_iter=1)
    m.fit(np.array([[1.0]]), np.array([1.0]))
    a = float(m.alpha_[0])
    assert m.C_ == 1.0 and 0.0 < a < 1.0
    assert abs(a + math.log(a / (1.0 - a))) < 1e-2
    assert a == pytest.approx(B_STAR, abs=1e-2 / 1.2)          # |a - a*| <= |g'| / min g''
    assert m.coef_[0] == a and m.decision_function(np.array([[2.0]]))[0] == pytest.approx(2 * a)
    assert m.gap_path_[0] == pytest.approx(primal_objective(1.0, np.array([1e-8]), np.array([1e-8]), np.ones(1))
                                           + 1e-16 / 2 + 1e-8 * math.log(1e-8) + (1 - 1e-8) * math.log(1 - 1e-8))
    # more sweeps: the fixed point a* = sigmoid(-a*) and a zero gap
    m = make("klr_dcd", kernel=LIN, lam=1.0, tol=1e-14, max_iter=50).fit(np.array([[1.0]]), np.array([1.0]))
    assert float(m.alpha_[0]) == pytest.approx(B_STAR, abs=1e-9)
    assert abs(m.gap_) < 1e-14


# ------------------------------------------------------------------ against a direct solve of Eq. (1)
@pytest.mark.parametrize("name", NAMES)
def test_reaches_the_direct_solve(name, direct):
    X, y, K, P_star, f_star = direct
    m = _fit(name, X, y)
    assert m.n_iter_ < m.max_iter                                  # stopped on tol, not on max_iter
    assert m.objective_ == pytest.approx(P_star, rel=1e-6)
    assert m.objective_ >= P_star - 1e-9
    np.testing.assert_allclose(m.decision_function(X), f_star, atol=1e-4)
    # the reported objective is P of the reported coefficients, and f = K beta
    np.testing.assert_allclose(m.decision_function(X), K @ m.coef_, atol=1e-10)
    assert m.objective_ == pytest.approx(primal_objective(LAM, m.coef_, K @ m.coef_, y), rel=1e-10)
    assert m.n_sv == len(y)                                        # KLR is dense
    assert m.t == m.n_iter_ * len(y) and 0 < m.n_updates <= m.t


def test_dcd_duality_gap_and_interior_alpha(direct):
    X, y, K, P_star, f_star = direct
    n = len(y)
    m = _fit("klr_dcd", X, y)
    C = 1.0 / (LAM * n)
    assert m.C_ == pytest.approx(C)
    assert np.all(m.alpha_ > 0.0) and np.all(m.alpha_ < C)          # strictly inside (0, C)
    np.testing.assert_allclose(m.coef_, m.alpha_ * y, rtol=0, atol=0)
    gaps = np.array(m.gap_path_)
    assert len(gaps) == m.n_iter_ + 1
    assert np.all(gaps >= -1e-12)                                   # weak duality: P(f) >= -D(alpha)
    assert gaps[0] > 0.1 and gaps[-1] < 1e-6                        # ... and the gap closes
    # the constants: P(f*) = -D(alpha*), with D computed independently from alpha
    a = m.alpha_
    u = a / C
    D = LAM * (0.5 * (a * y) @ K @ (a * y) + np.sum(a * np.log(a) + (C - a) * np.log(C - a) - C * math.log(C)))
    assert D == pytest.approx(m.dual_objective_, rel=1e-9)
    assert -D == pytest.approx(P_star, rel=1e-6)
    assert D == pytest.approx(dual_objective(LAM, a * y, K @ (a * y), a, C - a, C), rel=1e-9)
    # at the optimum alpha_i = C sigmoid(-y_i f(x_i)) (the conjugate's maximiser)
    np.testing.assert_allclose(u, expit(-y * f_star), atol=1e-4)


def test_pcd_objective_never_increases():
    X, y = _problem(seed=1)
    m = make("klr_pcd", kernel=RBF, lam=LAM, tol=1e-13, max_iter=300).fit(X, y)
    path = np.array(m.objective_path_)
    assert len(path) == m.n_iter_ + 1 and path[0] == pytest.approx(math.log(2.0))
    assert np.all(np.diff(path) <= 1e-15 * path[1:])
    assert path[1] < path[0] - 0.05


# --------------------------------------------------------------------------------- probe / contract
@pytest.mark.parametrize("name", NAMES)
def test_probe_is_called_once_per_sweep_with_the_current_model(name):
    X, y = _problem()
    K = _gram(X)
    m = make(name, kernel=RBF, lam=LAM, tol=1e-13, max_iter=7)
    seen = []

    def probe():
        seen.append((m.n_iter_, m.coef_, m.decision_function(X), m.objective_))

    m.fit(X, y, probe=probe)
    assert m.n_iter_ == 7 and [s[0] for s in seen] == list(range(1, 8))
    for it, beta, dec, P in seen:
        np.testing.assert_allclose(dec, K @ beta, atol=1e-12)
        assert P == m.objective_path_[it]
    assert np.abs(seen[0][2] - seen[-1][2]).max() > 1e-3                # the model moved in between
    # (DCD may sit out a sweep: all |g'| below its inner tolerance, which then shrinks, Yu et al.)
    np.testing.assert_array_equal(seen[-1][2], m.decision_function(X))
    np.testing.assert_array_equal(m.decision_function(X), make(name, kernel=RBF, lam=LAM, tol=1e-13, max_iter=7)
                                  .fit(X, y).decision_function(X))      # no probe: the same model


@pytest.mark.parametrize("name", NAMES)
def test_probabilities(name):
    X, y = _problem()
    Xt, _ = _problem(25, seed=5)
    m = make(name, kernel=RBF, lam=LAM).fit(X, np.where(y > 0, "yes", "no"))
    P = m.predict_proba(Xt)
    f = m.decision_function(Xt)
    assert P.shape == (25, 2) and np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(P[:, 1], expit(f), rtol=1e-15)
    np.testing.assert_array_equal(m.predict(Xt), np.where(P[:, 1] >= 0.5, "yes", "no"))
    np.testing.assert_allclose(np.exp(m.predict_log_proba(Xt)), P, rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_sparse_input_gives_the_dense_result(name):
    X, y = _problem()
    X[np.abs(X) < 0.8] = 0.0                                      # some real zeros
    dense = make(name, kernel=RBF, lam=LAM, tol=1e-6).fit(X, y)
    csr = make(name, kernel=RBF, lam=LAM, tol=1e-6).fit(sp.csr_matrix(X), y)
    assert (csr.n_iter_, csr.n_sv) == (dense.n_iter_, dense.n_sv)
    np.testing.assert_allclose(csr.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(csr.decision_function(sp.csr_matrix(X)), dense.decision_function(X),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(csr.decision_function(X), dense.decision_function(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_kernel_columns_on_demand_give_the_cached_result(name):
    X, y = _problem()
    cached = make(name, kernel=RBF, lam=LAM, tol=1e-6).fit(X, y)
    ondemand = make(name, kernel=RBF, lam=LAM, tol=1e-6, cache_mb=1e-4).fit(X, y)   # 100 bytes < 40*40*8
    assert cached.kernel_cached_ and not ondemand.kernel_cached_
    assert ondemand.n_iter_ == cached.n_iter_
    np.testing.assert_allclose(ondemand.coef_, cached.coef_, rtol=1e-10, atol=1e-12)
    assert ondemand.kernel_evals > cached.kernel_evals >= 40 * 40


@pytest.mark.parametrize("name", NAMES)
def test_order_is_ignored_and_fit_starts_from_scratch(name):
    X, y = _problem()
    a = make(name, kernel=RBF, lam=LAM).fit(X, y)
    b = make(name, kernel=RBF, lam=LAM).fit(X[::-1], y[::-1]).fit(X, y, order=np.arange(40)[::-1])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert (a.n_iter_, a.t, a.n_updates, a.objective_path_) == (b.n_iter_, b.t, b.n_updates, b.objective_path_)
