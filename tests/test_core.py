"""The shared Cython SV pool against direct numpy computations."""
import numpy as np
import pytest
import scipy.sparse as sp

from olk._core.svpool import RowSource, SVPool
from olk.kernels import Kernel, KernelSet


def _kern(a, b):
    return np.array([np.exp(-0.4 * ((a - b) ** 2).sum()), (0.5 * (a @ b) + 1.0) ** 3, a @ b])


@pytest.mark.parametrize("sparse", [False, True])
def test_decision_matches_numpy_for_three_kernels_and_removal(sparse):
    rng = np.random.default_rng(0)
    D = rng.random((40, 9))
    D[D < 0.6] = 0.0
    X = sp.csr_matrix(D) if sparse else D
    src = RowSource(X)
    kernels = KernelSet.of([{"type": "gaussian", "gamma": 0.4},
                            {"type": "polynomial", "gamma": 0.5, "coef0": 1, "degree": 3}, "linear"])
    pool = SVPool(9, sparse, col_kernel=[0, 1, 2, 0], capacity=4, **kernels.pool_args())
    coefs = rng.normal(size=(12, 4))
    for s in range(12):                       # forces several capacity doublings
        pool.add(src, s, coefs[s], tag=100 + s)
    live = list(range(12))
    for victim in (3, 0, 7):
        moved = pool.remove(live.index(victim))
        pos = live.index(victim)
        live[pos] = live[-1]
        live.pop()
        assert moved in (-1, len(live))
    assert pool.n_sv == 9
    assert sorted(pool.tags - 100) == sorted(live)
    out = np.zeros(4)
    for q in (20, 30, 39):
        pool.decision(src, q, out)
        expect = sum(coefs[s] * _kern(D[s], D[q])[[0, 1, 2, 0]] for s in live)
        np.testing.assert_allclose(out, expect, rtol=1e-12, atol=1e-12)
    M = pool.decision_matrix(src)
    pool.decision(src, 39, out)
    np.testing.assert_allclose(M[39], out)
    K = np.zeros((3, pool.n_sv))
    pool.kernel_values(src, 30, K)
    order = [t - 100 for t in pool.tags]
    np.testing.assert_allclose(K.T, [_kern(D[s], D[30]) for s in order], rtol=1e-12)
    assert pool.sv_kernel(0, 1, 0) == pytest.approx(_kern(D[order[0]], D[order[1]])[0])
    assert pool.self_kernel(src, 5, 0) == pytest.approx(1.0)


def test_sparse_storage_compacts_after_many_removals():
    rng = np.random.default_rng(1)
    D = (rng.random((300, 50)) < 0.2) * rng.random((300, 50))
    src = RowSource(sp.csr_matrix(D))
    pool = SVPool(50, True, capacity=4, **Kernel("gaussian", gamma=0.1).pool_args())
    live = []
    for i in range(300):
        pool.add(src, i, 1.0, tag=i)
        live.append(i)
        if i % 3 == 2:                         # remove a pseudo-random SV
            k = (i * 7) % len(live)
            pool.remove(k)
            live[k] = live[-1]
            live.pop()
    assert pool.n_sv == len(live) == 200
    assert sorted(pool.tags) == sorted(live)
    q = np.zeros(1)
    pool.decision(src, 0, q)
    expect = sum(np.exp(-0.1 * ((D[s] - D[0]) ** 2).sum()) for s in live)
    assert q[0] == pytest.approx(expect, rel=1e-12)
    assert pool.nnz() == int((D[live] != 0).sum())


def test_kernel_eval_counter_and_dense_sparse_agree():
    rng = np.random.default_rng(2)
    D = rng.random((30, 5))
    pools = []
    for sparse in (False, True):
        src = RowSource(sp.csr_matrix(D) if sparse else D)
        p = SVPool(5, sparse, **Kernel("gaussian", gamma=1.0).pool_args())
        for i in range(10):
            p.add(src, i, (-1) ** i)
        pools.append((p, src))
    vals = [p.decision1(s, 25) for p, s in pools]
    assert vals[0] == pytest.approx(vals[1], rel=1e-13)
    assert pools[0][0].n_kernel_evals == 10


def test_mismatched_layout_is_refused():
    src = RowSource(np.ones((2, 3)))
    pool = SVPool(3, True, **Kernel("linear").pool_args())
    with pytest.raises(ValueError):
        pool.add(src, 0, 1.0)


@pytest.mark.parametrize("sparse", [False, True])
def test_blocked_multi_kernel_decision_is_the_one_sv_at_a_time_loop(sparse):
    """A pool of several kernels on the whole-row product, one column per kernel (OMKC's layout) decides in blocks
    (products four at a time, one vectorised exp over every owned (SV, column) pair, exp arguments below -745.2
    left out: their exp is exactly 0): the same bits and evaluation count as the one-SV-at-a-time loop, which
    decision_sv still runs at a stored SV.  Gammas from 1e-4 to 4096 put arguments in the vector exp's range,
    past -745.2 and in between; a polynomial kernel's column takes the scalar path; ownership is random."""
    rng = np.random.default_rng(7)
    D = rng.random((300, 12)) * 3.0
    D[D < 1.2] = 0.0
    X = sp.csr_matrix(D) if sparse else D
    src = RowSource(X)
    kernels = KernelSet.of([{"type": "gaussian", "gamma": g} for g in (4096.0, 40.0, 3.0, 0.5, 1e-4)]
                           + [{"type": "polynomial", "gamma": 0.3, "coef0": 1, "degree": 2}])
    pool = SVPool(12, sparse, col_kernel=list(range(6)), **kernels.pool_args())
    assert pool.blocked_members
    for s in range(300):
        c = rng.normal(size=6) * (rng.random(6) < 0.4)
        c[rng.integers(6)] = rng.normal()                  # every row owned by someone
        pool.add(src, s, c, s)
    for q in range(0, 300, 7):
        a, b = np.zeros(6), np.zeros(6)
        e0 = pool.n_kernel_evals
        pool.decision(src, q, a)                            # the blocked loop
        e1 = pool.n_kernel_evals
        pool.decision_sv(q, b)                              # the one-SV-at-a-time loop, at the same row
        e2 = pool.n_kernel_evals
        assert np.array_equal(a, b), q
        assert e1 - e0 == e2 - e1 == int(sum(bin(int(o)).count("1") for o in (pool.coefs != 0) @ (1 << np.arange(6))))


def test_uniform_int_is_numpys_draw():
    """svpool.uniform_int(rng, n) returns what rng.integers(n) returns and leaves the stream where it would (RBP's
    and BOGD's removal draw, issue 38): checked on two copies of one generator, n across the rejection thresholds."""
    import copy

    from olk._core.svpool import uniform_int
    rng = np.random.default_rng(11)
    twin = copy.deepcopy(rng)
    ns = [2, 3, 7, 822, 1350, 2 ** 31 + 1, 3 * 2 ** 30, 2 ** 32 - 1, 1, 2 ** 32, 2 ** 40]
    for k in range(20_000):
        n = ns[k % len(ns)]
        assert uniform_int(rng, n) == int(twin.integers(n)), (k, n)
    assert rng.random() == twin.random()


def test_a_csr_row_without_scipy_is_the_row_of_a_csr_matrix():
    """RowSource.csr_row (a stream's per-example row, no scipy) stores, scores and is stored as the CSR row."""
    rng = np.random.default_rng(5)
    D = rng.random((20, 6)) * (rng.random((20, 6)) < 0.5)
    full = RowSource(sp.csr_matrix(D))
    pool = SVPool(6, True, **Kernel("gaussian", gamma=0.7).pool_args())
    twin = SVPool(6, True, **Kernel("gaussian", gamma=0.7).pool_args())
    for i in range(12):
        cols = np.flatnonzero(D[i]).astype(np.int32)
        row = RowSource.csr_row(cols, D[i, cols], 6)
        assert row.n_rows == 1 and row.sparse and row.sqnorms[0] == full.sqnorms[i]
        assert pool.decision1(row, 0) == twin.decision1(full, i)
        pool.add(row, 0, (-1.0) ** i)
        twin.add(full, i, (-1.0) ** i)
    np.testing.assert_array_equal(pool.coefs, twin.coefs)
    assert (pool.support_vectors() != twin.support_vectors()).nnz == 0
    with pytest.raises(ValueError, match="differ in length"):
        RowSource.csr_row(np.array([0, 1], dtype=np.int32), np.array([1.0]), 6)
