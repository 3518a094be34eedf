"""NOGD (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016, Algorithm 2): a hand-computed stream through both phases (full
rank and rank 1), the moment the map is built, the carried-over expansion, the budget invariant, the fitted
expansion, parameter checks and save/load after the map."""
from __future__ import annotations

import math

import numpy as np
import pytest

import olk
from olk.algorithms import make
from olk.algorithms.approximation.nogd import auto_rank, nystrom_map
from olk.errors import ConfigError

RBF1 = {"type": "gaussian", "gamma": 1.0}
E1, E4 = math.exp(-1.0), math.exp(-0.25)


def _stream(rank):
    """x = 0 (+1), 1 (-1), 0.5 (+1), 0 (+1); B = 2, eta = 1, k(x, x') = exp(-(x - x')^2)."""
    X = np.array([[0.0], [1.0], [0.5], [0.0]])
    y = [1.0, -1.0, 1.0, 1.0]
    m = make("nogd", kernel=RBF1, budget=2, rank=rank, eta=1.0)
    m.bind(X)
    return m, [m.step(i, y[i]) for i in range(4)]


def test_both_phases_by_hand_full_rank():
    m, f = _stream(2)
    # t=1: f = 0 -> alpha_1 = +1 (SV x=0);  t=2: f = k(1, 0) = e^-1, y f < 1 -> alpha_2 = -1 (SV x=1): pool full
    assert f[:2] == [0.0, pytest.approx(E1, abs=1e-15)]
    # t=3: f = k(.5, 0) - k(.5, 1) = 0 (the expansion still predicts); y f < 1 and |S| = B: the map is built now
    assert f[2] == pytest.approx(0.0, abs=1e-15)
    assert m.run_summary() == {"nystrom_rank": 2, "nystrom_t": 3}
    # K = [[1, e^-1], [e^-1, 1]]: with k = B the map is exact, z(x)'z(x') = k_S(x)' K^-1 k_S(x'), and the
    # carried-over w reproduces alpha' k_S(x).  t=4: f = alpha' k_S(0) + k_S(.5)' K^-1 k_S(0)
    #                                                   = (1 - e^-1) + e^-.25   (K^-1 k_S(0) = e_1)
    assert f[3] == pytest.approx(1.0 - E1 + E4, abs=1e-12)
    assert (m.n_sv, m.n_updates, m.t) == (2, 3, 4)      # y f_4 = 1.41 >= 1: no update
    assert m.kernel_evals >= 4                          # the B x B matrix is counted


def test_rank_one_projects_the_expansion_on_the_top_eigenvector():
    m, f = _stream(1)
    # the top eigenvector of K is [1, 1]/sqrt(2) (eigenvalue 1 + e^-1): alpha = [1, -1] is orthogonal to it,
    # so the carried-over w = 0; then w = z(.5) and f_4 = z(.5)'z(0) = (sqrt2 e^-.25)(1 + e^-1)/sqrt2/(1 + e^-1)
    assert f[3] == pytest.approx(E4, abs=1e-12)
    assert m.rank_ == 1


def test_nystrom_map_and_auto_rank():
    K = np.array([[1.0, E1], [E1, 1.0]])
    M, L, V = nystrom_map(K, 2)
    np.testing.assert_allclose(L, [1 + E1, 1 - E1], atol=1e-15)
    np.testing.assert_allclose(M.T @ M, np.linalg.inv(K), atol=1e-12)      # z'z = k_S' K^-1 k_S
    # two equal SVs: K has rank 1, the zero direction is dropped instead of amplified
    M1, L1, _ = nystrom_map(np.ones((2, 2)), 2)
    assert M1.shape == (1, 2) and L1 == pytest.approx([2.0])
    assert [auto_rank(b) for b in (1, 8, 50, 100, 168, 825, 1327)] == [1, 2, 10, 20, 34, 165, 265]


def test_full_rank_map_keeps_the_function_of_the_expansion():
    rng = np.random.default_rng(0)
    X = rng.random((60, 4))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    m = make("nogd", kernel={"type": "gaussian", "gamma": 2.0}, budget=12, rank=12, eta=0.5)
    m.bind(X)
    for i in range(60):
        if m.pool.n_sv == 12:
            break
        m.step(i, y[i])
    before = m.decision_function(X)
    m._build_map()
    np.testing.assert_allclose(m.decision_function(X), before, rtol=1e-8, atol=1e-8)


def test_budget_never_exceeded_and_the_expansion_is_the_model():
    rng = np.random.default_rng(1)
    X = rng.random((400, 5))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(400) > 0.5, 1, -1)
    for loss in ("hinge", "logistic"):
        m = make("nogd", kernel={"type": "gaussian", "gamma": 1.0}, budget=30, eta=0.5, loss=loss)
        m.bind(X)
        sizes = []
        for i in range(400):
            m.step(i, float(y[i]))
            sizes.append(m.n_sv)
        assert max(sizes) == 30 and m.rank_ == 6                  # 'auto' = 0.2 B
        fa = m.fitted_attributes()
        G = m.kernels.gram(X, fa["support_vectors_"])[0]
        np.testing.assert_allclose(G @ fa["dual_coef_"][:, 0], m.decision_function(X), rtol=1e-9, atol=1e-9)
        d = m.decision_function(X[399:400])[0]
        assert m.step(399, float(y[399])) == d      # held-out scores are computed as the steps compute them
    # the logistic loss updates on every example, so the pool fills with the first B examples
    assert m.run_summary()["nystrom_t"] == 31


def test_rank_above_budget_is_one_line_error():
    with pytest.raises(ConfigError, match="rank k=9 exceeds its budget B=5"):
        make("nogd", kernel=RBF1, budget=5, rank=9)
    with pytest.raises(ConfigError, match="rank"):
        make("nogd", kernel=RBF1, rank=0)


def test_save_load_after_the_map(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.random((150, 3))
    y = np.where(X[:, 0] > X[:, 1], 1, 0)
    m = make("nogd", kernel={"type": "gaussian", "gamma": 3.0}, budget=10, eta=1.0).fit(X, y)
    assert m.rank_ == 2
    olk.save(m, tmp_path / "nogd.olk")
    back = olk.load(tmp_path / "nogd.olk")
    np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))
    back.partial_fit(X, y)
    m.partial_fit(X, y)
    np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))


def _exact_twin_run(X, y, **params):
    """The screened learner, and a twin that takes the exact step on every row after the map (the loop NOGD ran
    before the screen: f = w'M k_S(x) by project_dot, then loss_slope and axpy)."""
    from olk._core.approx import axpy
    from olk.algorithms.approximation.core import loss_slope
    m, twin = make("nogd", **params), make("nogd", **params)
    m.bind(X)
    twin.bind(X)
    f_m, f_t = [], []
    for i in range(X.shape[0]):
        f_m.append(m.step(i, y[i]))
        if twin._Mt is None:
            f_t.append(twin.step(i, y[i]))
            continue
        twin.t += 1
        f = twin._score(twin.src, i)
        s = loss_slope(twin.loss, y[i], f)
        if s != 0.0:
            axpy(twin._w, twin.eta * s, twin._zbuf)
            twin.n_updates += 1
        f_t.append(f)
    return m, twin, np.array(f_m), np.array(f_t)


@pytest.mark.parametrize("rank,eta", [(8, 1.0), (20, 0.05), ("auto", 5.0)])
def test_screened_step_is_the_exact_step(rank, eta):
    """The screen (olk._core.approx.NystromScreen) changes no decision: the same updates, the same w to the bit,
    the same signs and hinge decisions on every row; the scores it returns instead of the exact ones are within
    its bound."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1500, 5))
    y = np.where(np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] > 0, 1.0, -1.0)
    m, twin, fm, ft = _exact_twin_run(X, y, kernel={"type": "gaussian", "gamma": 0.5}, budget=40, rank=rank,
                                      eta=eta)
    assert m._Mt is not None and m._screen is not None
    assert m.n_updates == twin.n_updates
    assert np.array_equal(m._w.view(np.uint64), twin._w.view(np.uint64))
    assert np.array_equal(fm >= 0, ft >= 0) and np.array_equal(y * fm < 1, y * ft < 1)
    assert np.max(np.abs(fm - ft)) <= 1e-9 * max(1.0, np.max(np.abs(ft)))
    assert np.array_equal(m.decision_function(X).view(np.uint64), twin.decision_function(X).view(np.uint64))


def test_screen_returns_a_score_only_when_it_proves_no_hinge_step():
    """Scores put right at the margin (y f = 1 +- a few ulps): the screen never claims y f >= 1 wrongly, and its
    score is within kappa E of the exact one whenever it returns one."""
    from olk._core.approx import NystromScreen, project_dot
    from olk._core.svpool import RowSource, SVPool
    from olk.kernels import KernelSet
    rng = np.random.default_rng(11)
    B, k, d = 30, 7, 4
    S = rng.normal(size=(B, d))
    pool = SVPool(d, False, **KernelSet.of({"type": "gaussian", "gamma": 0.3}).pool_args())
    src_sv = RowSource(S)
    for s in range(B):
        pool.add(src_sv, s, 0.0, s)
    Mt = rng.normal(size=(B, k))
    Q = rng.normal(size=(200, d))
    src = RowSource(Q)
    kS, z = np.empty((1, B)), np.empty(k)
    returned = 0
    for i in range(Q.shape[0]):
        w = rng.normal(size=k)
        pool.kernel_values(src, i, kS)
        f0 = project_dot(Mt, kS[0], w, z)
        w *= (1.0 + rng.integers(-4, 5) * 2.0 ** -52) / f0     # w'M k_S(x_i) = 1 up to a few ulps
        f = project_dot(Mt, kS[0], w, z)
        sc = NystromScreen(Mt, w)
        g = sc.screen(pool, src, i, 1.0)
        if g == g:
            returned += 1
            assert f >= 1.0 and abs(g - f) <= sc.bound * np.max(np.abs(kS))
    assert returned < 100                                      # at the margin the screen mostly defers
