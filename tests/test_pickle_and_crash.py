"""No Python call can crash the process: pickling, and every learner's public methods on edge cases.

Issue 16: ``pickle.dumps(model)`` after ``partial_fit`` killed the interpreter (exit 139) because the
Cython pool's typed views were copied as raw pointers.  Here every registered learner round-trips through
pickle with identical predictions (and identical continued learning), and a subprocess drives every
learner's public surface through edge cases, so a future segfault fails this test instead of killing CI.
"""
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from olk._core.svpool import RowSource, SVPool
from olk.algorithms import REGISTRY, available, make
from olk.kernels import KernelSet

ALL = available()
SMALL = {"budget": 5}          # small budgets so budget learners reach their removal/projection code


def _params(name):
    specs = {p.name for p in REGISTRY[name].params}
    return {k: v for k, v in SMALL.items() if k in specs}


def _data(sparse, n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[X < 0.4] = 0.0
    y = np.where(X[:, 0] + 0.3 * rng.random(n) > 0.5, 1.0, -1.0)
    return (sp.csr_matrix(X) if sparse else X), y


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ALL)
def test_trained_model_roundtrips_through_pickle(name, sparse):
    X, y = _data(sparse)
    m = make(name, kernel={"type": "gaussian", "gamma": 0.5}, random_state=3, **_params(name))
    m.fit(X[:40], y[:40])
    clone = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(clone.decision_function(X[40:]), m.decision_function(X[40:]))
    np.testing.assert_array_equal(clone.predict(X[40:]), m.predict(X[40:]))
    assert clone.n_sv == m.n_sv
    if not REGISTRY[name].batch:        # online learners: learning goes on identically (RNG state included)
        m.partial_fit(X[40:], y[40:])
        clone.partial_fit(X[40:], y[40:])
        np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))


def test_pickle_holds_the_model_not_the_training_data():
    X, y = _data(False, n=3000, d=50)
    m = make("spa", kernel={"type": "gaussian", "gamma": 0.5}, random_state=0, beta=200.0)
    m.fit(X, y)
    assert m.n_sv < 100
    assert len(pickle.dumps(m)) < X.nbytes / 5


@pytest.mark.parametrize("sparse", [False, True])
def test_pool_and_source_pickle_with_removed_svs(sparse):
    X, _ = _data(sparse, n=30)
    src = RowSource(X)
    kernels = KernelSet.of([{"type": "gaussian", "gamma": 0.5}, {"type": "poly", "degree": 3, "coef0": 1}])
    pool = SVPool(6, sparse, col_kernel=[0, 1], capacity=4, **kernels.pool_args())
    for i in range(12):
        pool.add(src, i, (i + 1.0, -i), tag=i)
    for s in (0, 5, 3):
        pool.remove(s)
    p2 = pickle.loads(pickle.dumps(pool))
    s2 = pickle.loads(pickle.dumps(src))
    np.testing.assert_array_equal(p2.decision_matrix(s2), pool.decision_matrix(src))
    np.testing.assert_array_equal(p2.tags, pool.tags)
    assert p2.nnz() == pool.nnz()
    p2.add(s2, 20, (1.0, 1.0), tag=99)          # the rebuilt pool keeps growing normally
    pool.add(src, 20, (1.0, 1.0), tag=99)
    np.testing.assert_array_equal(p2.decision_matrix(s2), pool.decision_matrix(src))


def test_pool_rejects_bad_indices_instead_of_reading_out_of_bounds():
    X, _ = _data(False, n=5)
    src = RowSource(X)
    pool = SVPool(6, False)
    pool.add(src, 0, 1.0)
    out = np.zeros(1)
    for call in (lambda: pool.decision(src, 5, out), lambda: pool.decision1(src, -1),
                 lambda: pool.add(src, 99, 1.0), lambda: pool.get_coef(1), lambda: pool.set_coef(0, 3, 1.0),
                 lambda: pool.sv_kernel(0, 4), lambda: pool.self_kernel(src, 0, 2), lambda: pool.remove(7),
                 lambda: pool.decision_sv(2, out)):
        with pytest.raises((IndexError, ValueError)):
            call()
    wide = RowSource(np.ones((2, 9)))
    with pytest.raises(ValueError, match="width"):
        pool.decision1(wide, 0)


EDGE_SCRIPT = textwrap.dedent('''
    import pickle, sys
    import numpy as np, scipy.sparse as sp
    from olk.algorithms import REGISTRY, available, make
    from olk.errors import OlkError
    rng = np.random.default_rng(0)
    X = rng.random((20, 4)); y = np.where(X[:, 0] > 0.5, 1.0, -1.0); y[:2] = (1.0, -1.0)

    def attempt(what, f):
        try:
            f()
        except (OlkError, ValueError, IndexError, TypeError) as e:    # refusing is fine; crashing is not
            pass
        print(what, flush=True)

    for name in available():
        specs = {p.name for p in REGISTRY[name].params}
        kw = {"budget": 3} if "budget" in specs else {}
        for layout in ("dense", "sparse"):
            conv = (lambda A: sp.csr_matrix(A)) if layout == "sparse" else (lambda A: A)
            where = f"{name}/{layout}"
            m = make(name, kernel={"type": "gaussian", "gamma": 1.0}, random_state=0, **kw)
            attempt(where + " empty-model predict", lambda: m.predict(conv(X)))
            attempt(where + " empty-model pickle", lambda: pickle.loads(pickle.dumps(m)).predict(conv(X)))
            attempt(where + " zero-width fit",
                    lambda: make(name, random_state=0, **kw).fit(conv(np.zeros((4, 0))), y[:4]))
            attempt(where + " zero-row predict", lambda: m.predict(conv(np.zeros((0, 4)))))
            attempt(where + " one-example fit", lambda: make(name, random_state=0, **kw).fit(conv(X[:1]), y[:1]))
            m2 = make(name, kernel={"type": "gaussian", "gamma": 1.0}, random_state=0, **kw)
            attempt(where + " fit", lambda: m2.fit(conv(X), y))
            attempt(where + " narrower predict", lambda: m2.predict(conv(X[:, :2])))
            attempt(where + " wider predict", lambda: m2.predict(conv(np.hstack([X, X]))))
            attempt(where + " 1-d predict", lambda: m2.predict(X[0]))
            attempt(where + " trained pickle", lambda: pickle.loads(pickle.dumps(m2)).predict(conv(X)))
            if not REGISTRY[name].batch:
                attempt(where + " step out of range", lambda: m2.step(10 ** 9, 1.0))
                attempt(where + " step negative row", lambda: m2.step(-5, 1.0))
                attempt(where + " partial_fit other layout",
                        lambda: m2.partial_fit(X if layout == "sparse" else sp.csr_matrix(X), y))
    print("ALL DONE", flush=True)
''')


def test_public_methods_on_edge_cases_never_crash_the_process():
    r = subprocess.run([sys.executable, "-c", EDGE_SCRIPT], capture_output=True, text=True, timeout=300)
    last = r.stdout.strip().splitlines()[-1:] or ["<nothing>"]
    assert r.returncode == 0, (f"process died with exit {r.returncode} after '{last[0]}'\n"
                               f"{r.stderr[-2000:]}")
    assert "ALL DONE" in r.stdout
