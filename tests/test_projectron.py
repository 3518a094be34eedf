"""Projectron / Projectron++ (Orabona, Keshet & Caputo 2008/2009): hand-computed runs, the incremental
K^{-1} against a direct inverse, the budget cap and the projection's defining property."""
import numpy as np
import pytest
import scipy.sparse as sp

from olk.algorithms import make
from olk.errors import ConfigError

LIN = {"type": "linear"}
GAUSS = {"type": "gaussian", "gamma": 0.5}


def _steps(model, X, y):
    model.bind(np.asarray(X, dtype=float))
    return [model.step(i, float(v)) for i, v in enumerate(y)]


def test_projectron_hand_computed_add_project_and_budget():
    # Linear kernel in R^4, eta = 0.5 (project when delta <= 0.5), budget B = 3.
    # t1 x=(1,0,0,0)+ : S empty, f=0 -> mistake; delta^2 = k(x,x) = 1 > .25 -> add, a=(1), K^-1=[1]
    # t2 x=(0,1,0,0)- : f=<x1,x2>=0 -> mistake; k=[0], d*=[0], delta^2=1 -> add, a=(1,-1), K^-1=I
    # t3 x=(1,1,.3,0)- : f=1-1=0 -> mistake; k=[1,1], d*=[1,1], ||Pk||^2=2, k(x,x)=2.09, delta=.3 <= .5
    #                    -> project: a += y d* = (-1,-1) -> a=(0,-2)
    # t4 x=(1,0,1,0)+ : f=0*1-2*0=0 -> mistake; k=[1,0], d*=[1,0], k(x,x)=2, delta^2=1 -> add, a=(0,-2,1)
    #                    K^-1 = [[1+1,0,-1],[0,1,0],[-1,0,1]] = inv([[1,0,1],[0,1,0],[1,0,2]])
    # t5 x=(0,0,1,0)- : f=1 -> mistake; k=[0,0,1], d*=K^-1 k=(-1,0,1), ||Pk||^2=1=k(x,x): delta=0
    #                    -> project: a += -(-1,0,1) -> a=(1,-2,0)
    # t6 x=(1,1,1,1)+ : f=1-2+0*2=-1 -> mistake; k=[1,1,2], d*=(2+0-2, 1, -1+2)=(0,1,1)
    #                    (P x6 = x2 + x4 = (1,1,1,0)), ||Pk||^2=3, k(x,x)=4, delta=1 > .5 but |S|=B=3
    #                    -> project anyway: a += (0,1,1) -> a=(1,-1,1)
    X = [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, .3, 0], [1, 0, 1, 0], [0, 0, 1, 0], [1, 1, 1, 1]]
    m = make("projectron", kernel=LIN, eta=0.5, budget=3)
    scores = _steps(m, X, [1, -1, -1, 1, -1, 1])
    np.testing.assert_allclose(scores, [0, 0, 0, 0, 1, -1], atol=1e-12)
    assert m.n_sv == 3 and list(m.pool.tags) == [1, 2, 4]
    np.testing.assert_allclose(m.pool.coefs[:, 0], [1, -1, 1], atol=1e-12)
    np.testing.assert_allclose(m.kernel_inverse, [[2, 0, -1], [0, 1, 0], [-1, 0, 1]], atol=1e-12)
    assert m.n_projections == 3 and m.n_updates == 6
    # f(1,1,1,0) = 1*1 - 1*1 + 1*(1+1) = 2
    np.testing.assert_allclose(m.decision_function(np.array([[1.0, 1, 1, 0]])), [2.0])


def test_projectronpp_hand_computed_margin_updates():
    # Linear kernel in R^2, eta = 0.5.  ||x1|| = 1 so K^-1 = [1] and for x=(u,v): d* = u, ||Pk||^2 = u^2,
    # delta = |v|.  Margin rule: update iff l - delta/eta > 0, tau = min(l/u^2, 2(l - delta/eta)/u^2, 1).
    # t1 x=(1,0)+     : f=0 -> mistake, add, a=1
    # t2 x=(.5,0)+    : f=.5, l=.5, delta=0: tau=min(2, 4, 1)=1, a += 1*.5 -> 1.5
    # t3 x=(.5,.3)+   : f=.75, l=.25, delta=.3: l - .3/.5 = -.35 <= 0 -> no update
    # t4 x=(.2,.05)+  : f=.3, l=.7, delta=.05: slack=.7-.1=.6, tau=min(17.5, 30, 1)=1, a += .2 -> 1.7
    # t5 x=(.4,.13)+  : f=.68, l=.32, delta=.13: slack=.32-.26=.06, tau=min(2, .12/.16=.75, 1)=.75,
    #                   a += .75*.4=.3 -> 2.0
    # t6 x=(0,1)-     : f=0 -> mistake; d*=0, delta=1 > .5 -> add, a=(2,-1)
    X = [[1, 0], [.5, 0], [.5, .3], [.2, .05], [.4, .13], [0, 1]]
    m = make("projectronpp", kernel=LIN, eta=0.5, budget=10)
    scores = _steps(m, X, [1, 1, 1, 1, 1, -1])
    np.testing.assert_allclose(scores, [0, .5, .75, .3, .68, 0], atol=1e-12)
    np.testing.assert_allclose(m.pool.coefs[:, 0], [2.0, -1.0], atol=1e-12)
    assert m.n_margin_updates == 3 and m.n_sv == 2
    np.testing.assert_allclose(m.decision_function(np.array([[1.0, 1.0]])), [1.0])   # 2*1 - 1*1
    # eta = 0: no projection error tolerated -> only t2 (delta = 0) is a margin update
    m0 = make("projectronpp", kernel=LIN, eta=0.0, budget=10)
    _steps(m0, X, [1, 1, 1, 1, 1, -1])
    assert m0.n_margin_updates == 1


def _stream(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("name", ["projectron", "projectronpp"])
@pytest.mark.parametrize("sparse", [False, True])
def test_incremental_inverse_matches_direct_inverse(name, sparse):
    X, y = _stream(500, seed=1)
    if sparse:
        X[np.abs(X) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    m = make(name, kernel=GAUSS, eta=0.05, budget=80)
    m.partial_fit(X, y)
    n = m.n_sv
    assert n == 80                       # the budget fills, then many more steps project
    # Gram matrix of the stored SVs straight from the pool, and its direct inverse
    K = np.array([[m.pool.sv_kernel(a, b) for b in range(n)] for a in range(n)])
    np.testing.assert_allclose(m.gram_matrix(), K)
    Kinv = m.kernel_inverse
    np.testing.assert_allclose(Kinv, Kinv.T, atol=0)
    scale = np.abs(np.linalg.inv(K)).max()
    np.testing.assert_allclose(Kinv, np.linalg.inv(K), rtol=0, atol=1e-9 * scale)
    assert m.inverse_error() < 1e-9
    # d* = K^-1 k_t from the maintained inverse equals the direct solve for a fresh point
    src = m.bind(X)
    k = m._kvec(3).copy()
    d, pk2, _ = m._projection(k, m.pool.self_kernel(src, 3))
    np.testing.assert_allclose(d, np.linalg.solve(K, k), rtol=0, atol=1e-9 * np.abs(d).max())
    np.testing.assert_allclose(pk2, k @ np.linalg.solve(K, k), rtol=1e-10)


@pytest.mark.parametrize("name", ["projectron", "projectronpp"])
def test_budget_never_exceeded_and_reached(name):
    X, y = _stream(600, seed=2)
    B = 25
    m = make(name, kernel=GAUSS, eta=0.0, budget=B)
    m.bind(X)
    sizes, changed_after_full = [], 0
    for i in range(len(y)):
        before = m.pool.coefs[:, 0].copy()
        m.step(i, y[i])
        sizes.append(m.n_sv)
        if len(before) == B and not np.array_equal(before, m.pool.coefs[:, 0]):
            changed_after_full += 1
    assert max(sizes) == B and sizes[-1] == B
    assert changed_after_full > 20       # once full it keeps learning, by projections


def test_projection_update_matches_full_update_on_the_support_vectors():
    # P k(x_t,.) agrees with k(x_t,.) on span(S), so a projection step changes f at every SV x_j by
    # exactly y_t k(x_j, x_t), as the unprojected Perceptron step would.
    X, y = _stream(300, seed=4)
    m = make("projectron", kernel=GAUSS, eta=0.0, budget=15)
    m.bind(X)
    checked = 0
    for i in range(len(y)):
        full = m.n_sv == 15
        if full:
            rows = m.pool.tags - 1                   # tag = step t, step t used row t-1
            f_before = m.decision_function(X[rows])
        p_before = m.n_projections
        m.step(i, y[i])
        if full and m.n_projections > p_before:
            kx = np.exp(-0.5 * ((X[rows] - X[i]) ** 2).sum(1))
            np.testing.assert_allclose(m.decision_function(X[rows]) - f_before, y[i] * kx, atol=1e-9)
            checked += 1
    assert checked > 10


def test_eta_zero_and_large_budget_is_the_kernel_perceptron():
    # With eta = 0 and no binding budget every mistake adds x_t (points in general position have
    # delta > 0), so the Projectron is exactly the kernel Perceptron.
    X, y = _stream(250, seed=5)
    p = make("perceptron", kernel=GAUSS)
    q = make("projectron", kernel=GAUSS, eta=0.0, budget=10_000)
    np.testing.assert_allclose(_steps(q, X, y), _steps(p, X, y), rtol=1e-10, atol=1e-10)
    assert q.n_sv == p.n_sv and q.n_projections == 0


def test_duplicate_rows_are_projected_not_added():
    # A repeated x_t lies in span(S): delta = 0, so it is never added (K_S would be singular).
    # gamma=.5: k(0,1) = e^-.5 = .6065.  t1 x=0+ add ; t2 x=1-: f=.6065 -> add, a=(1,-1)
    # t3 x=0-: f=1-.6065 -> mistake, d*=(1,0), delta=0 -> a=(0,-1) ; t4 x=1+: f=-1, d*=(0,1) -> a=(0,0)
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    m = make("projectron", kernel=GAUSS, eta=0.0, budget=10)
    _steps(m, X, [1, -1, -1, 1])
    assert m.n_sv == 2 and m.n_projections == 2
    np.testing.assert_allclose(m.pool.coefs[:, 0], [0.0, 0.0], atol=1e-12)
    assert np.all(np.isfinite(m.kernel_inverse))


@pytest.mark.parametrize("name,params,msg", [
    ("projectron", {"eta": -0.1}, "must be >= 0"),
    ("projectronpp", {"budget": 0}, "must be >= 1"),
    ("projectron++", {"budjet": 5}, "did you mean 'budget'"),
])
def test_bad_parameters(name, params, msg):
    with pytest.raises(ConfigError) as e:
        make(name, **params)
    assert msg in str(e.value)
