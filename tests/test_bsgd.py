"""BSGD (Wang, Crammer & Vucetic, JMLR 2012): hand-computed runs of each budget maintenance, Algorithm 1 without
maintenance against a direct Pegasos recursion, the budget cap, projection against least squares, merging's
golden-section search against a grid, and the model surviving a file and a change of lambda."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olk
from olk._core.merge import merge_search, sq_dists
from olk.algorithms import make
from olk.errors import ConfigError

LIN = {"type": "linear"}


def _steps(model, X, y):
    model.bind(np.asarray(X, dtype=float))
    return [model.step(i, float(v)) for i, v in enumerate(y)]


def test_removal_hand_computed():
    # Linear kernel, lam = 1, B = 2: f_t = sum_j c_j <x_j, x_t> / (t-1), c_j = y_j, update iff y f < 1; remove
    # argmin c_j^2 ||x_j||^2 (ties: the oldest).
    # t1 (1,0)+  : f=0 -> add; c=[1]
    # t2 (0,2)-  : f=0 -> add; c=[1,-1]
    # t3 (1,1)+  : raw = 1 - 2 = -1, f = -1/2 -> add; scores x1:1 x2:4 x3:2 -> remove x1 (slot 0; x3 moves in)
    # t4 (2,0)+  : raw = <x3,x4> - <x2,x4> = 2 - 0, f = 2/3 -> add; scores x3:2 x2:4 x4:4 -> remove x3 (x4 in)
    # t5 (1,0)+  : raw = 2 + 0, f = 2/4 -> add; scores x4:4 x2:4 x5:1 -> remove x5 (last slot)
    # t6 (0,-2)+ : raw = 0 + (-1)(-4) = 4, f = 4/5 -> add; scores x4:4 x2:4 x6:4, a tie -> the oldest, x2
    # w_7 = (1/6)(x4 + x6) = (1/3, -1/3): f(1,0) = 1/3
    X = [[1, 0], [0, 2], [1, 1], [2, 0], [1, 0], [0, -2]]
    m = make("bsgd", kernel=LIN, lam=1.0, budget=2, maintenance="removal")
    scores = _steps(m, X, [1, -1, 1, 1, 1, 1])
    np.testing.assert_allclose(scores, [0, 0, -0.5, 2 / 3, 0.5, 0.8], atol=1e-12)
    assert m.n_sv == 2 and list(m.pool.tags) == [4, 6] and m.n_maintenance == 4 and m.n_updates == 6
    np.testing.assert_allclose(m.pool.coefs[:, 0], [1, 1])
    np.testing.assert_allclose(m.decision_function(np.array([[1.0, 0.0]])), [1 / 3])
    np.testing.assert_allclose(m.fitted_attributes()["dual_coef_"][:, 0], [1 / 6, 1 / 6])
    # ||E_t|| = |c_p| ||x_p||: 1, sqrt(2), 1, 2
    assert m.run_summary() == {"maintenance_steps": 4, "avg_degradation": pytest.approx((4 + math.sqrt(2)) / 4)}


def test_projection_hand_computed():
    # Linear kernel in R^3, lam = 1, B = 2; G = K^-1 kept by blocks; p = argmin c_p^2 ||x_p||^2, ties: oldest;
    # Delta c_j = -c_p G[j, p] / G[p, p].
    # t1 (1,0,0)+ : add, G = [1]
    # t2 (0,1,0)- : f=0, k=[0], d=0, delta^2=1 -> add, G = I
    # t3 (1,1,1)+ : f=0, k=[1,1], d=[1,1], delta^2 = 3-2 = 1 -> G = [[2,1,-1],[1,2,-1],[-1,-1,1]], c=[1,-1,1]
    #               p = x1 (tie with x2, older); g = (2,1,-1), G_pp = 2 -> Delta c = (-1/2, 1/2) on (x2, x3)
    #               (least squares: x1 ~ -1/2 x2 + 1/2 x3 = (.5,0,.5)); ||E|| = 1/sqrt(2)
    #               x3 moves into slot 0: SVs [x3, x2], c = [1.5, -1.5], G = inv([[3,1],[1,1]]) = [[.5,-.5],[-.5,1.5]]
    # t4 (0,0,1)- : raw = 1.5, f = 1.5/3 = .5 -> add; k=[1,0], d=[.5,-.5], delta^2 = .5; c=[1.5,-1.5,-1]
    #               scores x3: 6.75, x2: 2.25, x4: 1 -> p = x4 (last slot); G = [[1,-1,-1],[-1,2,1],[-1,1,2]]
    #               Delta c = -(-1)(-1, 1)/2 = (-.5, .5) -> c = [1, -1]; ||E|| = 1/sqrt(2)
    # w_5 = (1/4)(x3 - x2) = (1/4)(1, 0, 1): f(1,0,0) = 1/4
    X = [[1, 0, 0], [0, 1, 0], [1, 1, 1], [0, 0, 1]]
    m = make("bsgd", kernel=LIN, lam=1.0, budget=2, maintenance="projection")
    scores = _steps(m, X, [1, -1, 1, -1])
    np.testing.assert_allclose(scores, [0, 0, 0, 0.5], atol=1e-12)
    assert list(m.pool.tags) == [3, 2] and m.n_maintenance == 2 and m.n_absorbed == 0
    np.testing.assert_allclose(m.pool.coefs[:, 0], [1, -1], atol=1e-12)
    np.testing.assert_allclose(m.kernel_inverse(), [[0.5, -0.5], [-0.5, 1.5]], atol=1e-12)
    np.testing.assert_allclose(m.decision_function(np.array([[1.0, 0, 0]])), [0.25], atol=1e-12)
    assert m.run_summary()["avg_degradation"] == pytest.approx(1 / math.sqrt(2))


def test_projection_absorbs_an_update_in_the_span():
    # R^2, B = 5: x3 = x1 + x2 lies in span{x1, x2}: not stored, its update y3 x3 = c-increments y3 (1, 1)
    X = [[1, 0], [0, 1], [1, 1]]
    m = make("bsgd", kernel=LIN, lam=1.0, budget=5, maintenance="projection")
    _steps(m, X, [1, -1, 1])
    assert m.n_sv == 2 and m.n_absorbed == 1 and m.n_updates == 3
    np.testing.assert_allclose(m.pool.coefs[:, 0], [2, 0], atol=1e-12)


def test_merging_hand_computed():
    # Gaussian kernel gamma = 1 on the line, lam = 1, B = 1.
    # t1 x=0 +  : add, c=[1]
    # t2 x=1 +  : f = e^-1 < 1 -> add, c=[1,1]; merge m = x1 (tie, oldest) with x2: equal weights, so
    #             h = 1/2 (a_z(h) = e^-(1-h)^2 + e^-h^2 is symmetric and concave there), z = 0.5,
    #             alpha_z = 2 e^-1/4, WD = 2 + 2 e^-1 - 4 e^-1/2
    # t3 x=0.5 +: f = 2 e^-1/4 / 2 = e^-1/4 < 1 -> add c=1: a duplicate of z, m = x3 (|c| = 1 < 2e^-1/4)
    #             d2 = 0: any h gives z = 0.5, alpha_z = 1 + 2 e^-1/4, WD = 0
    g = {"type": "gaussian", "gamma": 1.0}
    m = make("bsgd", kernel=g, lam=1.0, budget=1, maintenance="merging")
    scores = _steps(m, [[0.0], [1.0]], [1, 1])
    np.testing.assert_allclose(scores, [0, math.exp(-1)], rtol=1e-12)
    sv = m.fitted_attributes()["support_vectors_"]
    assert m.n_sv == 1 and abs(sv[0, 0] - 0.5) < 1e-4
    np.testing.assert_allclose(m.pool.coefs[:, 0], [2 * math.exp(-0.25)], rtol=1e-7)
    assert m.run_summary()["avg_degradation"] == pytest.approx(math.sqrt(2 + 2 * math.exp(-1) - 4 * math.exp(-0.5)),
                                                               rel=1e-6)
    m.bind(np.array([[0.5]]))
    f = m.step(0, 1.0)
    assert f == pytest.approx(math.exp(-0.25), rel=1e-7)
    np.testing.assert_allclose(m.pool.coefs[:, 0], [1 + 2 * math.exp(-0.25)], rtol=1e-7)
    assert abs(m.fitted_attributes()["support_vectors_"][0, 0] - 0.5) < 1e-4


def test_merging_keeps_the_degradation_it_reports():
    # every merge: ||c_m phi(x_m) + c_n phi(x_n) - c_z phi(z)||^2 from the pool's own kernel values equals the wd
    # the search reports, and z lies on the line through x_m and x_n
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=120) > 0, 1.0, -1.0)
    m = make("bsgd", kernel={"type": "gaussian", "gamma": 0.3}, lam=0.01, budget=10, maintenance="merging")
    checked = []
    orig = m._merge

    def spy():
        S, c = m.pool.support_vectors().copy(), m.pool.coefs[:, 0].copy()
        before = m.degradation_sum
        orig()
        z, cz = m.pool.support_vectors()[-1], m.pool.coefs[-1, 0]
        wd = (m.degradation_sum - before) ** 2
        # which two SVs went: the rows of S not in the pool any more
        gone = [j for j in range(S.shape[0]) if not np.any(np.all(m.pool.support_vectors() == S[j], axis=1))]
        assert len(gone) == 2
        a, b = gone
        k = lambda u, v: math.exp(-0.3 * float(np.sum((u - v) ** 2)))
        direct = (c[a] ** 2 + c[b] ** 2 + cz ** 2 + 2 * c[a] * c[b] * k(S[a], S[b])
                  - 2 * cz * (c[a] * k(S[a], z) + c[b] * k(S[b], z)))
        assert direct == pytest.approx(wd, abs=1e-9)
        u, v = S[a] - S[b], z - S[b]                  # z - x_b parallel to x_a - x_b
        assert np.linalg.norm(np.cross(u, v)) < 1e-9 * max(1.0, np.linalg.norm(u) * np.linalg.norm(v))
        checked.append(1)

    m._merge = spy
    _steps(m, X, y)
    assert len(checked) == m.n_maintenance > 20


@pytest.mark.parametrize("same_sign", [True, False])
def test_golden_section_h_equals_the_grid_optimum(same_sign):
    rng = np.random.default_rng(7 if same_sign else 8)
    for _ in range(200):
        am = rng.choice([-1, 1]) * rng.uniform(0.1, 3)
        an = (np.sign(am) if same_sign else -np.sign(am)) * rng.uniform(0.1, 3)
        gd2 = rng.uniform(0.01, 6.0)
        h, kmz, knz, wd = merge_search(am, np.array([an]), np.array([gd2]), 1.0, 1e-4)
        s = -1.0 if am + an < 0 else 1.0
        lo, hi = (0, 1) if same_sign else ((1, 6) if s * am > 0 else (-5, 0))
        grid = np.linspace(lo, hi, 200001)
        obj = s * (am * np.exp(-gd2 * (1 - grid) ** 2) + an * np.exp(-gd2 * grid ** 2))
        assert abs(h[0] - grid[np.argmax(obj)]) < 1e-3
        az = am * kmz[0] + an * knz[0]
        assert kmz[0] == pytest.approx(math.exp(-gd2 * (1 - h[0]) ** 2)) \
            and knz[0] == pytest.approx(math.exp(-gd2 * h[0] ** 2))
        assert wd[0] == pytest.approx(am * am + an * an + 2 * am * an * math.exp(-gd2) - az * az)
        assert wd[0] <= am * am + 1e-12                # never worse than removing m (Section 6.3)


def test_sq_dists_dense_and_sparse():
    X = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 3.0]])
    np.testing.assert_allclose(sq_dists(X, 1), [5.0, 0.0, 14.0])
    np.testing.assert_allclose(sq_dists(sp.csr_matrix(X), 1), [5.0, 0.0, 14.0])


def test_projection_coefficients_equal_least_squares():
    # linear kernel in R^12, B = 8: at every maintenance the change of the remaining coefficients is the
    # least-squares fit of c_p x_p by the other SVs (lstsq on the SVs themselves, not on K)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 12))
    y = np.where(X @ rng.normal(size=12) > 0, 1.0, -1.0)
    m = make("bsgd", kernel=LIN, lam=0.05, budget=8, maintenance="projection")
    orig, seen = m._project, []

    def spy():
        S, c, tags = m.pool.support_vectors(), m.pool.coefs[:, 0].copy(), m.pool.tags.copy()
        p = m._smallest()
        orig()
        rest = [j for j in range(S.shape[0]) if j != p]
        want, *_ = np.linalg.lstsq(S[rest].T, c[p] * S[p], rcond=None)
        after = dict(zip(m.pool.tags.tolist(), m.pool.coefs[:, 0]))
        got = np.array([after[tags[j]] for j in rest]) - c[rest]
        np.testing.assert_allclose(got, want, atol=1e-8)
        seen.append(1)

    m._project = spy
    _steps(m, X, y)
    assert len(seen) == m.n_maintenance > 20
    assert np.abs(m.kernel_inverse() @ m.gram_matrix() - np.eye(m.n_sv)).max() < 1e-8


@pytest.mark.parametrize("maintenance", ["removal", "projection", "merging"])
@pytest.mark.parametrize("sparse", [False, True])
def test_budget_never_exceeded_and_reached(maintenance, sparse):
    rng = np.random.default_rng(5)
    X = (rng.random((400, 20)) < 0.3) * rng.uniform(0.5, 1.5, size=(400, 20))
    y = np.where(X[:, :10].sum(1) > X[:, 10:].sum(1), 1.0, -1.0)
    m = make("bsgd", kernel={"type": "gaussian", "gamma": 0.2}, lam=1e-3, budget=25, maintenance=maintenance)
    m.bind(sp.csr_matrix(X) if sparse else X)
    most = 0
    for i in range(400):
        m.step(i, y[i])
        assert m.n_sv <= 25
        most = max(most, m.n_sv)
    assert most == 25 and m.n_maintenance > 50
    assert (m.predict(X) == y).mean() > 0.7


def test_sparse_and_dense_merging_agree():
    rng = np.random.default_rng(2)
    X = (rng.random((150, 15)) < 0.4) * rng.normal(size=(150, 15))
    y = np.where(X.sum(1) > 0, 1.0, -1.0)
    kw = dict(kernel={"type": "gaussian", "gamma": 0.3}, lam=1e-2, budget=12, maintenance="merging")
    a = make("bsgd", **kw).fit(X, y)
    b = make("bsgd", **kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(sp.csr_matrix(X)), atol=1e-9)
    np.testing.assert_allclose(a.fitted_attributes()["support_vectors_"],
                               b.fitted_attributes()["support_vectors_"].toarray(), atol=1e-12)


def test_without_maintenance_it_is_kernel_pegasos():
    # B >= T: Algorithm 1 is Pegasos; the direct recursion alpha <- (1 - 1/t) alpha, alpha_t = y_t / (lam t)
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    lam, gamma = 0.05, 0.5
    m = make("bsgd", kernel={"type": "gaussian", "gamma": gamma}, lam=lam, budget=100, maintenance="removal")
    got = _steps(m, X, y)
    K = np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    alpha, want = np.zeros(60), []
    for t in range(1, 61):
        f = alpha @ K[:, t - 1]
        want.append(f)
        alpha *= 1 - 1 / t
        if y[t - 1] * f < 1:
            alpha[t - 1] = y[t - 1] / (lam * t)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.decision_function(X), alpha @ K, rtol=1e-9, atol=1e-12)
    assert m.n_maintenance == 0


def test_a_new_lambda_keeps_the_model():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    m = make("bsgd", kernel={"type": "gaussian", "gamma": 0.5}, lam=0.1, budget=10).fit(X, y)
    before = m.decision_function(X)
    m.set_params(lam=0.01)
    np.testing.assert_allclose(m.decision_function(X), before, rtol=1e-12)
    m.set_params(maintenance="projection")          # structural: projection's K^-1 must be kept from the start
    assert m.n_sv == 0 and m.t == 0 and m.maintenance == "projection"


@pytest.mark.parametrize("maintenance", ["removal", "projection", "merging"])
def test_a_saved_model_continues_as_the_original(maintenance, tmp_path):
    rng = np.random.default_rng(9)
    X = rng.normal(size=(200, 5))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
    kw = dict(kernel={"type": "gaussian", "gamma": 0.4}, lam=1e-2, budget=15, maintenance=maintenance)
    whole = make("bsgd", **kw).partial_fit(X, y)
    half = make("bsgd", **kw).partial_fit(X[:100], y[:100])
    olk.save(half, tmp_path / "m.olk")
    clone = olk.load(tmp_path / "m.olk").partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(clone.decision_function(X), whole.decision_function(X))
    assert clone.n_maintenance == whole.n_maintenance


def test_merging_needs_a_gaussian_kernel():
    with pytest.raises(ConfigError, match="maintenance=merging needs a Gaussian kernel") as e:
        make("bsgd", kernel=LIN, maintenance="merging")
    assert "\n" not in str(e.value)
    make("bsgd", kernel=LIN, maintenance="projection")           # the other two take any kernel
    with pytest.raises(ConfigError, match="removal, projection, merging"):
        make("bsgd", maintenance="merge")
