"""BOGD's whole step in C (olk._core.bogd.bogd_step) against the learner's Python reading (BOGD.reading_step):
the same scores, SVs, coefficients, tags, draws and kernel-evaluation counts, bit for bit, dense and sparse."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from olk.algorithms import make


@pytest.mark.parametrize("sparse, kernel, budget, eta, lam", [
    (False, {"type": "gaussian", "gamma": 0.5}, 13, 0.3, 0.01),
    (True, {"type": "gaussian", "gamma": 0.2}, 7, 1.0, 0.05),
    (False, {"type": "polynomial", "gamma": 0.3, "degree": 2}, 20, 0.1, 0.0),     # lam = 0: no shrinkage
])
def test_core_step_is_the_reading_bit_for_bit(sparse, kernel, budget, eta, lam):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(600, 6))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1.0, -1.0)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.6, np.round(X), 0.0))
    a = make("bogd", kernel=kernel, budget=budget, eta=eta, lam=lam, random_state=3)
    b = make("bogd", kernel=kernel, budget=budget, eta=eta, lam=lam, random_state=3)
    a.bind(X)
    b.bind(X)
    fa, fb = [], []
    for i, v in enumerate(y):
        fa.append(a.step(i, float(v)))
        b.t += 1
        fb.append(b.reading_step(i, float(v)))
    assert np.array_equal(np.array(fa).view(np.uint64), np.array(fb).view(np.uint64))
    assert (a.n_sv, a.n_updates, a.kernel_evals) == (b.n_sv, b.n_updates, b.kernel_evals)
    assert a.n_sv == budget and a.n_updates > 3 * budget                 # removals happened
    assert np.array_equal(a.pool.coefs.view(np.uint64), b.pool.coefs.view(np.uint64))
    assert np.array_equal(a.pool.tags, b.pool.tags)
    assert a.rng.bit_generator.state == b.rng.bit_generator.state        # the same draws
