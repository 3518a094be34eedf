"""The self-tuned Forgetron's rows in C (olk._core.forgetron) against the learner's Python reading
(Forgetron.reading_step): the same scores, SVs, coefficients, tags, M, Q, phi, labels' queue and kernel-evaluation
counts, bit for bit, dense and sparse; and a stretch of rows (forgetron_steps) equal to the same rows one by one."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from olk._core.forgetron import forgetron_step, forgetron_steps
from olk._core.svpool import RowSource, SVPool
from olk.algorithms import make


def _data(sparse: bool, n: int = 700):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(n, 6))
    y = np.where(X[:, 0] * X[:, 1] + 0.4 * X[:, 2] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)   # noisy: many mistakes
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.6, np.round(X, 1), 0.0))
    return X, y


def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def _same(a, b):
    assert (a.n_sv, a.n_updates, a.kernel_evals, a.t) == (b.n_sv, b.n_updates, b.kernel_evals, b.t)
    assert np.array_equal(_bits(a.pool.coefs), _bits(b.pool.coefs))
    assert np.array_equal(a.pool.tags, b.pool.tags)
    assert a.M == b.M and list(a.state.fifo) == list(b.state.fifo)
    assert _bits(a.Q) == _bits(b.Q) and _bits(a.phi_last) == _bits(b.phi_last)


@pytest.mark.parametrize("sparse, kernel, budget", [
    (False, {"type": "gaussian", "gamma": 0.5}, 13),
    (True, {"type": "gaussian", "gamma": 0.2}, 7),
    (False, {"type": "polynomial", "gamma": 0.1, "degree": 2}, 20),
    (True, {"type": "polynomial", "gamma": 0.1, "degree": 2}, 10),
])
def test_core_step_is_the_reading_bit_for_bit(sparse, kernel, budget):
    X, y = _data(sparse)
    a = make("forgetron", kernel=kernel, budget=budget)
    b = make("forgetron", kernel=kernel, budget=budget)
    a.bind(X)
    b.bind(X)
    fa, fb, phis = [], [], set()
    for i, v in enumerate(y):
        fa.append(a.step(i, float(v)))
        b.t += 1
        fb.append(b.reading_step(i, float(v)))
        phis.add(b.phi_last)
    assert np.array_equal(_bits(fa), _bits(fb))
    _same(a, b)
    assert a.n_sv == budget and a.M > 3 * budget                   # removals happened ...
    assert min(phis) < 1.0                                         # ... with shrinking


@pytest.mark.parametrize("sparse", [False, True])
def test_stretch_is_the_rows_one_by_one(sparse):
    X, y = _data(sparse)
    kernel = {"type": "gaussian", "gamma": 0.5}
    a = make("forgetron", kernel=kernel, budget=9)
    b = make("forgetron", kernel=kernel, budget=9)
    a.bind(X)
    b.bind(X)
    rows = np.random.default_rng(2).permutation(X.shape[0]).astype(np.int64)
    out = np.full(rows.shape[0], np.nan)
    mistakes = 0
    for lo, hi in ((0, 1), (1, 250), (250, 251), (251, rows.shape[0])):      # stretches of any length, tags going on
        mistakes += forgetron_steps(a.pool, a.src, rows[lo:hi], y[rows[lo:hi]], 9, a.t, a.state, out[lo:hi])
        a.t += hi - lo
    want = []
    for i in rows:
        b.t += 1
        want.append(b.reading_step(int(i), float(y[i])))
    a.n_updates = mistakes
    assert np.array_equal(_bits(out), _bits(want))
    _same(a, b)


def test_core_refuses_other_pools_and_bad_rows():
    X, y = _data(False, n=20)
    src = RowSource(X)
    m = make("forgetron", kernel={"type": "gaussian", "gamma": 0.5}, budget=3)
    two = SVPool(X.shape[1], False, col_kernel=(0, 0))                # two columns
    with pytest.raises(ValueError, match="one kernel and one coefficient column"):
        forgetron_step(two, src, 0, 1.0, 3, 1, m.state)
    m.bind(X)
    out = np.zeros(2)
    with pytest.raises(ValueError, match="2 rows, 1 labels"):
        forgetron_steps(m.pool, m.src, np.array([0, 1], dtype=np.int64), y[:1], 3, 0, m.state, out)
    with pytest.raises(IndexError):
        forgetron_steps(m.pool, m.src, np.array([0, 20], dtype=np.int64), y[:2], 3, 0, m.state, out)
    assert m.pool.n_sv == 0 and m.M == 0                           # a refused stretch changes nothing
