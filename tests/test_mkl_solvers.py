"""The batch solvers behind the SIPMKL and AlSVM baselines of "Online Kernel Selection" (AAAI 2012):
SimpleMKL (olk/algorithms/selection/simplemkl.py, Rakotomamonjy et al., JMLR 2008) and centered kernel-target
alignment (olk/algorithms/selection/alsvm.py, Cortes, Mohri & Rostamizadeh, ICML 2010).

Small random problems (n = 40-60), offline, a few seconds in all.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from olk.algorithms.selection.alsvm import alignments, center_kernel, centered_alignment
from olk.algorithms.selection.simplemkl import combine, decision, objective, simplemkl
from olk.errors import ConfigError, DataError


def gauss(a, b=None, gamma=0.5):
    """Gaussian Gram matrix of 1-d points a (rows) vs b (columns)."""
    b = a if b is None else b
    return np.exp(-gamma * (a[:, None] - b[None, :]) ** 2)


def separable(seed=0, n=60):
    """One kernel that separates y with margin (Gaussian on x = y * (0.5 .. 1.5)) and one pure-noise kernel
    (a random PSD matrix with about the same trace, unrelated to y)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    x = y * (0.5 + rng.random(n))
    G = rng.normal(size=(n, n))
    return [gauss(x), G @ G.T / n], y


def overlapping(seed=1, n=60):
    """Four kernels on a noisy problem y = sign(x1 + x2 + x3/2 + noise): one Gaussian kernel per feature
    and a noise kernel; the optimal d is interior (SimpleMKL needs several iterations)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    G = rng.normal(size=(n, n))
    return [gauss(X[:, 0]), gauss(X[:, 1]), gauss(X[:, 2]), G @ G.T / n], y


# ------------------------------------------------------------------------------------------ SimpleMKL


def test_one_kernel_is_the_plain_svm():
    rng = np.random.default_rng(3)
    x, x_test = rng.normal(size=50), rng.normal(size=20)
    y = np.where(x + 0.5 * rng.normal(size=50) > 0, 1.0, -1.0)
    K, K_test = gauss(x), gauss(x_test, x)
    for Ks in ([K], K[None, :, :]):                       # a list, or an (m, n, n) array
        res = simplemkl(Ks, y, C=2.0)
        svc = SVC(kernel="precomputed", C=2.0).fit(K, y)
        assert res.d.tolist() == [1.0] and res.n_iter == 0 and res.converged and res.duality_gap == 0.0
        np.testing.assert_allclose(decision([K_test], res), svc.decision_function(K_test), rtol=0, atol=1e-6)
        np.testing.assert_allclose(decision([K], res), svc.decision_function(K), rtol=0, atol=1e-6)
        # the stored expansion is the same function: f = K(d) beta + b
        np.testing.assert_allclose(K_test @ res.dual_coef + res.intercept, svc.decision_function(K_test),
                                   rtol=0, atol=1e-6)


def test_d_stays_on_the_simplex_and_J_never_increases():
    Ks, y = overlapping()
    res = simplemkl(Ks, y, C=10.0, tol=1e-4, svm_tol=1e-6, max_iter=100)
    assert res.n_iter >= 3                                # a real descent, not a one-step run
    assert res.d_history.shape == (res.n_iter + 1, 4) and len(res.history) == res.n_iter + 1
    np.testing.assert_array_equal(res.d_history[0], np.full(4, 0.25))   # Algorithm 1 starts at uniform d
    for d in res.d_history:
        assert (d >= 0).all()
        assert abs(d.sum() - 1.0) < 1e-12
    assert all(b <= a for a, b in zip(res.history, res.history[1:])), res.history
    assert res.history[-1] < res.history[0]
    np.testing.assert_array_equal(res.d, res.d_history[-1])


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_weight_goes_to_the_informative_kernel_not_the_noise(order):
    Ks, y = separable()
    Ks = [Ks[i] for i in order]
    informative = order.index(0)
    res = simplemkl(Ks, y, C=1.0)
    assert res.converged
    assert res.d[informative] > 0.9, res.d
    assert (np.sign(decision(Ks, res)) == y).all()


def test_J_at_the_solution_is_minimal_over_the_simplex():
    """m = 2: J(d) of SimpleMKL against uniform d, both vertices and a 101-point grid over d = (t, 1 - t).

    The duality gap bounds the suboptimality, J(d) - J(d*) <= gap * J(d), so with tol = 1e-3 the result must
    be within 0.1% of the grid's best (which is >= J(d*))."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = np.where(2 * X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    Ks = [gauss(X[:, 0]), 4.0 * gauss(X[:, 1])]           # the scale moves the optimum away from uniform
    C, tol = 10.0, 1e-3
    res = simplemkl(Ks, y, C=C, tol=tol, svm_tol=1e-6)
    assert res.converged

    def J(t):
        return objective(Ks, y, C, [t, 1.0 - t], svm_tol=1e-6)

    grid = np.linspace(0.0, 1.0, 101)
    Jg = np.array([J(t) for t in grid])
    best = float(Jg.min())
    assert J(0.5) > 1.01 * best                           # precondition: stopping at uniform d would fail
    assert res.objective <= best * (1 + tol) + 1e-6
    for t in (0.5, 0.0, 1.0):                             # uniform d and the vertices e_1, e_2
        assert res.objective <= J(t) + 1e-6
    assert abs(res.d[0] - grid[np.argmin(Jg)]) <= 0.02    # and the weights are the grid's best
    # the reported objective is J at the reported d
    assert res.objective == pytest.approx(objective(Ks, y, C, res.d, svm_tol=1e-6), rel=1e-6)


@pytest.mark.parametrize("make, C, tol", [(separable, 1.0, 0.01), (overlapping, 10.0, 0.01),
                                          (overlapping, 1.0, 1e-3)])
def test_reported_duality_gap(make, C, tol):
    Ks, y = make()
    res = simplemkl(Ks, y, C=C, tol=tol, svm_tol=1e-5)
    assert res.status == "converged"
    assert res.duality_gap < tol and res.gap_history[-1] == res.duality_gap
    # recompute it from the returned SVM: alpha = y * beta in [0, C], gap = (max S - d.S) / (2 J)
    beta = res.dual_coef
    alpha = y * beta
    assert (alpha >= -1e-12).all() and (alpha <= C + 1e-9).all() and abs(beta.sum()) < 1e-8
    S = np.array([beta @ K @ beta for K in Ks])
    J = alpha.sum() - 0.5 * beta @ combine(Ks, res.d) @ beta
    assert res.objective == pytest.approx(J, rel=1e-10)
    assert res.duality_gap == pytest.approx((S.max() - res.d @ S) / (2 * J), rel=1e-8, abs=1e-12)


def test_max_iter_zero_is_the_svm_at_uniform_d():
    Ks, y = overlapping()
    res = simplemkl(Ks, y, C=10.0, max_iter=0)
    assert res.status == "max_iter" and res.n_iter == 0 and res.n_svm_fits == 1 and not res.converged
    np.testing.assert_array_equal(res.d, np.full(4, 0.25))
    svc = SVC(kernel="precomputed", C=10.0).fit(sum(K / 4 for K in Ks), y)
    np.testing.assert_allclose(decision(Ks, res), svc.decision_function(sum(K / 4 for K in Ks)), atol=1e-6)


def test_result_is_read_only():
    Ks, y = separable()
    res = simplemkl(Ks, y, C=1.0)
    with pytest.raises(ValueError):
        res.d[0] = 0.5
    with pytest.raises(AttributeError):
        res.n_iter = 3


def test_combine():
    A, B = np.arange(4.0).reshape(2, 2), np.eye(2)
    np.testing.assert_array_equal(combine([A, B], [0.5, 0.5]), 0.5 * A + 0.5 * B)
    np.testing.assert_array_equal(combine(np.stack([A, B]), [0.0, 1.0]), B)
    out = combine([A, B], [1.0, 0.0])
    out[0, 0] = 99.0
    assert A[0, 0] == 0.0                                 # a new array, never the input


def one_line(exc):
    return "\n" not in str(exc.value)


@pytest.mark.parametrize("Ks, y, match", [
    ([], [1, -1], "m = 0"),
    ([np.eye(3), np.eye(4)], [1, -1, 1], "differs"),
    ([np.eye(3)[:2]], [1, -1], "square"),
    ([np.array([[1.0, np.nan], [np.nan, 1.0]])], [1, -1], "NaN"),
    ([np.eye(3)], [0, 1, 1], "-1 or \\+1"),
    ([np.eye(3)], [1, 1, 1], "one class"),
    ([np.eye(3)], [1, -1], "3 labels"),
    (np.eye(3), [1, -1, 1], "shape"),
])
def test_simplemkl_bad_input_is_a_one_line_data_error(Ks, y, match):
    with pytest.raises(DataError, match=match) as exc:
        simplemkl(Ks, y, C=1.0)
    assert one_line(exc)


@pytest.mark.parametrize("kw", [dict(C=0.0), dict(C=-1.0), dict(C=float("nan")), dict(C=1.0, tol=0.0),
                                dict(C=1.0, max_iter=-1), dict(C=1.0, max_iter=2.5),
                                dict(C=1.0, svm_tol=0.0), dict(C=1.0, line_tol=1.0)])
def test_simplemkl_bad_settings_are_config_errors(kw):
    Ks, y = separable(n=20)
    with pytest.raises(ConfigError) as exc:
        simplemkl(Ks, y, **kw)
    assert one_line(exc)


def test_decision_checks_the_test_kernels():
    Ks, y = separable(n=20)
    res = simplemkl(Ks, y, C=1.0)
    with pytest.raises(DataError, match="2 kernels|1 kernels"):
        decision([np.zeros((3, 20))], res)
    with pytest.raises(DataError, match="20 rows"):
        decision([np.zeros((3, 19)), np.zeros((3, 19))], res)
    assert decision([np.zeros((3, 20)), np.zeros((3, 20))], res).shape == (3,)


# ------------------------------------------------------------------------------------------ alignment


def dense_alignment(K, y):
    """The definition with explicit matrices: H = I - 11'/n, rho = <HKH, H yy' H>_F / (|HKH|_F |H yy' H|_F)."""
    n = K.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    Kc, Tc = H @ K @ H, H @ np.outer(y, y) @ H
    return float(np.sum(Kc * Tc) / (np.linalg.norm(Kc) * np.linalg.norm(Tc)))


def test_center_kernel_is_HKH():
    rng = np.random.default_rng(5)
    n = 40
    H = np.eye(n) - np.ones((n, n)) / n
    A = rng.normal(size=(n, n))
    for K in (A @ A.T, A, gauss(rng.normal(size=n))):    # symmetric, non-symmetric, Gaussian
        Kc = center_kernel(K)
        np.testing.assert_allclose(Kc, H @ K @ H, rtol=0, atol=1e-12 * np.abs(K).max() * n)
        np.testing.assert_allclose(Kc.sum(axis=0), 0, atol=1e-10)
        np.testing.assert_allclose(Kc.sum(axis=1), 0, atol=1e-10)
    K = A @ A.T
    K0 = K.copy()
    center_kernel(K)
    np.testing.assert_array_equal(K, K0)                  # the input is not modified


@pytest.mark.parametrize("p_pos", [0.5, 0.2])           # balanced-ish and unbalanced classes
def test_alignment_matches_the_dense_formula(p_pos):
    rng = np.random.default_rng(6)
    n = 50
    y = np.where(rng.random(n) < p_pos, 1.0, -1.0)
    x = y + rng.normal(size=n)
    A = rng.normal(size=(n, 5))
    for K in (gauss(x), A @ A.T, np.outer(x, x) + 1.0):
        assert centered_alignment(K, y) == pytest.approx(dense_alignment(K, y), rel=1e-10, abs=1e-13)
    assert centered_alignment(gauss(x), y) > 0.2 > abs(centered_alignment(A @ A.T, y))   # signal vs noise


def test_balanced_labels_give_the_uncentered_target_formula():
    """sum y = 0: Hy = y, so rho = <K_c, yy'>_F / (|K_c|_F |yy'|_F), the form used in the AlSVM brief."""
    rng = np.random.default_rng(7)
    y = np.repeat([1.0, -1.0], 20)
    K = gauss(y + rng.normal(size=40))
    Kc = center_kernel(K)
    direct = np.sum(Kc * np.outer(y, y)) / (np.linalg.norm(Kc) * np.linalg.norm(np.outer(y, y)))
    assert centered_alignment(K, y) == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("p_pos", [0.5, 0.3])
def test_target_kernel_has_alignment_one(p_pos):
    rng = np.random.default_rng(8)
    y = np.where(rng.random(40) < p_pos, 1.0, -1.0)
    assert centered_alignment(np.outer(y, y), y) == pytest.approx(1.0, abs=1e-12)
    assert centered_alignment(3.0 * np.outer(y, y) + 2.0, y) == pytest.approx(1.0, abs=1e-12)
    assert centered_alignment(-np.outer(y, y), y) == pytest.approx(-1.0, abs=1e-12)


def test_alignment_invariances():
    rng = np.random.default_rng(9)
    y = np.where(rng.random(45) < 0.4, 1.0, -1.0)
    K = gauss(y + rng.normal(size=45))
    a = centered_alignment(K, y)
    assert 0 < a < 1
    for c in (1e-3, 0.5, 7.0, 1e4):
        assert centered_alignment(c * K, y) == pytest.approx(a, rel=1e-10)
    assert centered_alignment(K + 5.0, y) == pytest.approx(a, rel=1e-10)           # K + c 11'
    assert centered_alignment(K, (y + 1) / 2) == pytest.approx(a, rel=1e-10)       # labels {0, 1}
    assert centered_alignment(K, -y) == pytest.approx(a, rel=1e-10)                # classes swapped


def test_alignments_of_a_list():
    Ks, y = overlapping(n=40)
    a = alignments(Ks, y)
    assert a.shape == (4,)
    np.testing.assert_allclose(a, [dense_alignment(K, y) for K in Ks], rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(alignments(np.stack(Ks), y), a)
    assert int(np.argmax(a)) in (0, 1)                    # a kernel on x1 or x2, never the noise (3)
    Ks, y = separable(n=40)
    assert int(np.argmax(alignments(Ks, y))) == 0


def test_constant_kernel_has_alignment_zero():
    y = np.array([1.0, -1.0, 1.0, 1.0])
    assert centered_alignment(np.full((4, 4), 3.0), y) == 0.0
    assert centered_alignment(np.zeros((4, 4)), y) == 0.0


@pytest.mark.parametrize("K, y, match", [
    (np.eye(3)[:2], [1, -1], "square"),
    (np.array([[1.0, np.inf], [np.inf, 1.0]]), [1, -1], "NaN or infinite"),
    (np.eye(3), [1, -1], "3 labels"),
    (np.eye(3), [1, 1, 1], "both classes"),
    (np.eye(3), [1, np.nan, -1], "NaN"),
    (np.eye(3), ["a", "b", "a"], "numbers"),
])
def test_alignment_bad_input_is_a_one_line_data_error(K, y, match):
    with pytest.raises(DataError, match=match) as exc:
        centered_alignment(K, y)
    assert one_line(exc)


def test_alignments_bad_input():
    with pytest.raises(DataError, match="m = 0"):
        alignments([], [1, -1])
    with pytest.raises(DataError, match="differs"):
        alignments([np.eye(3), np.eye(4)], [1, -1, 1])
    with pytest.raises(DataError, match="shape"):
        alignments(np.eye(3), [1, -1, 1])
