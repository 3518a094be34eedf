"""Kernels on views (column ranges), the chi-square kernel and normalised kernels: the pool's values against
direct formulas (scikit-learn's chi2_kernel, numpy), in dense and sparse layouts, through every pool entry
point (decision, kernel_values, kernel_row, self_kernel(s), sv_kernel, decision_sv), and the per-view set."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import chi2_kernel

from olk._core.svpool import RowSource, SVPool
from olk.errors import ConfigError, DataError
from olk.kernels import KernelSet, expand_views, make_kernel, resolve_views

VIEWS = {"a": (0, 5), "b": (5, 9), "c": (9, 12)}


def _data(n=30, seed=0, zeros=0.4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 12))
    X[rng.random(X.shape) < zeros] = 0.0          # sparse-ish, non-negative (chi2 needs x >= 0)
    return X


def _direct(k, A, B):
    """k(A_i, B_j) from the definitions, on the kernel's columns."""
    lo, hi = k.cols if k.cols is not None else (0, A.shape[1])
    A, B = A[:, lo:hi], B[:, lo:hi]
    if k.kind == "chi2":
        return chi2_kernel(A, B, gamma=k.gamma)
    if k.kind == "gaussian":
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
        return np.exp(-k.gamma * d2)
    if k.kind == "polynomial":
        f = lambda P, Q: (k.gamma * P @ Q.T + k.coef0) ** k.degree
    else:
        f = lambda P, Q: P @ Q.T
    K = f(A, B)
    if k.normalize:
        da = np.array([f(a[None], a[None])[0, 0] for a in A])
        db = np.array([f(b[None], b[None])[0, 0] for b in B])
        with np.errstate(divide="ignore", invalid="ignore"):
            K = np.where(np.outer(da, db) > 0, K / np.sqrt(np.outer(da, db)), 0.0)
    return K


SET = resolve_views({"views": ["a", "b", "c"], "normalize": True,
                     "each": ["linear", {"type": "poly", "degree": 2}, {"type": "chi2", "gamma": 0.7},
                              {"type": "gaussian", "gamma": 0.3}]}, VIEWS)


@pytest.mark.parametrize("sparse", [False, True])
def test_every_kernel_value_matches_its_formula(sparse):
    ks = KernelSet.of(SET)
    assert len(ks) == 12
    X = _data()
    M = sp.csr_matrix(X) if sparse else X
    src = RowSource(M)
    pool = SVPool(12, sparse, col_kernel=list(range(12)), **ks.pool_args())
    for i in range(10):
        pool.add(src, i, np.ones(12))
    out = np.zeros((12, 10))
    for q in (12, 17, 3):
        pool.kernel_values(src, q, out)
        for k, kern in enumerate(ks):
            expect = _direct(kern, X[[q]], X[:10])[0]
            np.testing.assert_allclose(out[k], expect, rtol=1e-12, atol=1e-14, err_msg=kern.label())
            row = pool.kernel_row(src, q, k, np.array([4, 1, 4], dtype=np.intp))
            np.testing.assert_allclose(row, expect[[4, 1, 4]], rtol=1e-12, atol=1e-14)
            assert pool.self_kernel(src, q, k) == pytest.approx(_direct(kern, X[[q]], X[[q]])[0, 0], rel=1e-12)
            np.testing.assert_allclose(pool.self_kernels(k), np.diag(_direct(kern, X[:10], X[:10])), rtol=1e-12)
            assert pool.sv_kernel(2, 7, k) == pytest.approx(_direct(kern, X[[2]], X[[7]])[0, 0], rel=1e-12, abs=1e-14)
    # decisions: column c sums its kernel over the SVs (all coefficients 1)
    f = np.zeros(12)
    pool.decision(src, 20, f)
    np.testing.assert_allclose(f, [_direct(k, X[[20]], X[:10]).sum() for k in ks], rtol=1e-12)
    g = np.zeros(12)
    pool.decision_sv(3, g)
    np.testing.assert_allclose(g, [_direct(k, X[[3]], X[:10]).sum() for k in ks], rtol=1e-12)


def test_dense_and_sparse_pools_agree_and_views_share_measures():
    ks = KernelSet.of(SET)
    X = _data(seed=3)
    dense = SVPool(12, False, col_kernel=list(range(12)), **ks.pool_args())
    spars = SVPool(12, True, col_kernel=list(range(12)), **ks.pool_args())
    sd, ss = RowSource(X), RowSource(sp.csr_matrix(X))
    for i in range(8):
        dense.add(sd, i, np.arange(12) + 1.0)
        spars.add(ss, i, np.arange(12) + 1.0)
    a, b = np.zeros(12), np.zeros(12)
    dense.decision(sd, 9, a)
    spars.decision(ss, 9, b)
    np.testing.assert_allclose(a, b, rtol=1e-13)
    measures, kmeas = dense.pool_views()
    # 3 views x (inner product, chi2 product) = 6 measures for 12 kernels
    assert len(measures) == 6 and kmeas[:4] == [0, 0, 1, 0]


def test_whole_row_kernels_keep_one_measure_and_their_ids():
    ks = KernelSet.preset("spa16")
    pool = SVPool(5, False, col_kernel=list(range(16)), **ks.pool_args())
    assert pool.n_meas == 1
    assert make_kernel({"type": "gaussian", "gamma": 0.5}).to_dict() == {"kind": "gaussian", "gamma": 0.5}


def test_a_normalised_kernel_has_unit_diagonal_and_zero_rows_score_zero():
    k = make_kernel({"type": "poly", "degree": 3, "normalize": True, "view": [0, 4]})
    X = _data(seed=5)
    X[0, :4] = 0.0
    ks = KernelSet.of([k])
    pool = SVPool(12, False, **ks.pool_args())
    src = RowSource(X)
    assert pool.self_kernel(src, 1, 0) == pytest.approx(1.0, rel=1e-14)
    pool.add(src, 0, [1.0])
    assert pool.decision1(src, 2) == pytest.approx((1.0 / np.sqrt(1.0)) * (X[2, :4] @ X[0, :4] + 1) ** 3 /
                                                   np.sqrt((X[2, :4] @ X[2, :4] + 1) ** 3), rel=1e-12)
    # gaussian / chi2 are already unit-diagonal: normalize is pinned off
    assert make_kernel({"type": "chi2", "normalize": True}).normalize is False


def test_view_and_per_view_errors_are_one_line():
    with pytest.raises(ConfigError, match="unknown view 'fuo'.*did you mean 'fou'"):
        resolve_views({"type": "linear", "view": "fuo"}, {"fou": (0, 76)})
    with pytest.raises(ConfigError, match="0 <= lo < hi"):
        make_kernel({"type": "linear", "view": [5, 2]})
    with pytest.raises(ConfigError, match="not resolved"):
        KernelSet.of([{"type": "linear", "view": "fou"}]).pool_args()
    with pytest.raises(ConfigError, match="each"):
        expand_views({"views": ["a"]})
    with pytest.raises(ConfigError, match="did you mean 'views'"):
        KernelSet.of({"views": ["a"], "each": ["linear"], "veiws": 1})


def test_chi2_needs_non_negative_features():
    ks = KernelSet.of(resolve_views([{"type": "chi2", "view": "a"}, {"type": "linear", "view": "b"}], VIEWS))
    X = _data()
    ks.check_data(X)
    X[3, 7] = -1.0                     # in view b: linear, fine
    ks.check_data(X)
    X[2, 1] = -0.5                     # in view a: chi2
    with pytest.raises(DataError, match="chi2 kernel chi2\\(gamma=1\\)@a needs non-negative.*minmax01"):
        ks.check_data(X)
    with pytest.raises(DataError, match="reads columns 0..4"):
        ks.check_data(X[:, :3])
