"""The engine's binary pass hands a learner its rows a stretch at a time (``step_rows``); a learner with a compiled
loop (BOGD, NOGD) overrides it.  For every registered online binary learner: stretches of any length give the
scores, the model (its decision function on every row, bit for bit), the counters and the RNG of ``step`` called
row by row, dense and sparse, and ``online_pass`` equals the row-by-row loop."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from olk.algorithms import REGISTRY, make
from olk.tasks import online_pass

BINARY = sorted(n for n, c in REGISTRY.items() if not c.batch and c.task == "binary")


def _learner(name):
    cls = REGISTRY[name]
    params = {p.name: 12 for p in cls.params if p.name == "budget"}       # budgets fill: removals, NOGD's map
    kernel = ([{"type": "gaussian", "gamma": g} for g in (0.2, 1.0)] if cls.max_kernels > 1
              else {"type": "gaussian", "gamma": 0.5})
    return make(name, kernel=kernel, random_state=5, **params)


def _data(sparse, n=160):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] * X[:, 1] + 0.4 * X[:, 2] > 0, 1.0, -1.0)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.5, np.round(X, 1), 0.0))
    return X, y


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", BINARY)
def test_stretches_are_the_row_by_row_steps(name, sparse):
    if sparse and not REGISTRY[name].sparse_input:
        pytest.skip("dense input only")
    X, y = _data(sparse)
    order = np.random.default_rng(2).permutation(X.shape[0]).astype(np.int64)
    a, b = _learner(name), _learner(name)
    a.bind(X)
    b.bind(X)
    fa = np.array([a.step(int(i), float(y[i])) for i in order])
    fb = np.empty(order.shape[0])
    at = 0
    for size in (1, 7, 40, 3, 200):                # stretches of every length, the last one partial
        rows = order[at:at + size]
        b.step_rows(rows, y[rows], fb[at:at + size])
        at += rows.shape[0]
    assert at == order.shape[0]
    assert np.array_equal(_bits(fa), _bits(fb))
    assert (a.t, a.n_updates, a.n_sv, a.kernel_evals) == (b.t, b.n_updates, b.n_sv, b.kernel_evals)
    assert np.array_equal(_bits(a.decision_function(X)), _bits(b.decision_function(X)))
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    if getattr(a, "pool", None) is not None:                # the SVs' arrival tags (Forgetron's oldest, ...)
        assert np.array_equal(a.pool.tags, b.pool.tags)
    if name == "nogd":
        assert a.rank_ and b.rank_                           # the map was built inside a stretch


@pytest.mark.parametrize("name", ["bogd", "nogd", "perceptron", "forgetron"])
def test_online_pass_is_the_row_by_row_loop(name):
    X, y = _data(False, n=300)
    order = np.random.default_rng(4).permutation(X.shape[0])
    a, b = _learner(name), _learner(name)
    res = online_pass(a, X, y, order, n_checkpoints=7)
    b.bind(X)
    mistakes, curve = 0, {}
    for t, i in enumerate(order.tolist(), 1):
        f = b.step(i, float(y[i]))
        mistakes += (f >= 0.0) != (y[i] > 0.0)
        curve[t] = mistakes
    assert res["mistakes"] == mistakes
    ts = res["curve"]["t"]
    assert ts == [int(t) for t in np.unique(np.round(np.geomspace(1, 300, 7)))]
    assert res["curve"]["mistake_rate"] == [100.0 * curve[t] / t for t in ts]
    assert np.array_equal(_bits(a.decision_function(X)), _bits(b.decision_function(X)))
