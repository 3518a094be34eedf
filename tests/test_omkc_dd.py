"""OMKC(DD) (olk/algorithms/multikernel/omkc_dd.py) by hand on a tiny stream, against m independent kernel Perceptrons,
and the checks every OMKC learner shares (one shared SV pool,
one kernel accepted, the spa16 kernels end to end, pickling) for the five SPA Table 5 rows (omkc_dd with
discount=1 or component=pa, omkc_sd with component=pa: see ROWS)."""
import pickle
import time

import numpy as np
import pytest

from olk.algorithms import make
from olk.data import load_dataset
from olk.errors import ConfigError
from olk.kernels import KernelSet

#: the SPA Table 5 rows: U = omkc_dd(discount=1), DD, SD, DDPA = omkc_dd(component=pa), SDPA = omkc_sd(component=pa)
ROWS = {"omkc_u": ("omkc_dd", {"discount": 1.0}), "omkc_dd": ("omkc_dd", {}), "omkc_sd": ("omkc_sd", {}),
        "omkc_ddpa": ("omkc_dd", {"component": "pa"}), "omkc_sdpa": ("omkc_sd", {"component": "pa"})}
OMKC = list(ROWS)
STOCHASTIC = {"omkc_sd", "omkc_sdpa"}



class Draws:
    """Stands in for a learner's RNG (test_omkc_sd, test_bomkc_spa_dd, test_omkl_alt2010): hands out scripted
    uniforms, one per call: a float for random(), an array of n for random(n)."""
    def __init__(self, draws):
        self.draws = list(draws)

    def random(self, n=None):
        r = self.draws.pop(0)
        if n is None:
            assert np.ndim(r) == 0
            return float(r)
        r = np.asarray(r, dtype=float)
        assert r.shape == (n,)
        return r

def mk(row, **kw):
    name, extra = ROWS[row]
    return make(name, **extra, **kw)
#: k_0(x, x') = x x' (polynomial, gamma 1, coef0 0, degree 1),  k_1(x, x') = (x x' + 1)^2
TWO = [{"type": "polynomial", "gamma": 1.0, "coef0": 0.0, "degree": 1},
       {"type": "polynomial", "gamma": 1.0, "coef0": 1.0, "degree": 2}]
#: 1-d stream (x_t, y_t), t = 1..4
X4 = np.array([[1.0], [2.0], [-1.0], [0.0]])
Y4 = np.array([1.0, -1.0, 1.0, 1.0])


def run(model, X, y):
    src = model.bind(X)
    return [model.step(i, float(v)) for i, v in zip(range(src.n_rows), y)]


def test_dd_by_hand():
    m = make("omkc_dd", kernel=TWO, discount=0.5)
    scores = run(m, X4, Y4)
    # t=1 x=1 y=+1: f=(0,0) -> vote theta.sign(f) = 0; both err (y f <= 0): ONE SV x=1 with coefs (+1,+1);
    #     theta=(.5,.5)*.5 -> renormalised (.5,.5)
    # t=2 x=2 y=-1: f0 = 1*2 = 2, f1 = (2+1)^2 = 9 -> vote .5+.5 = 1; both err: SV x=2 coefs (-1,-1); theta (.5,.5)
    #     now f0(x) = x - 2x = -x,  f1(x) = (x+1)^2 - (2x+1)^2
    # t=3 x=-1 y=+1: f0 = 1 (right), f1 = 0 - 1 = -1 (wrong) -> vote .5 - .5 = 0; SV x=-1 coefs (0, +1);
    #     theta = (.5, .25)/.75 = (2/3, 1/3);  f1(x) = (x+1)^2 - (2x+1)^2 + (1-x)^2 = -2x^2 - 4x + 1
    # t=4 x=0 y=+1: f0 = 0 (wrong: y f <= 0, sign 0 abstains in the vote), f1 = 1 (right) -> vote 1/3;
    #     SV x=0 coefs (+1, 0); theta = (1/3, 1/3)/(2/3) = (.5, .5)
    assert scores == pytest.approx([0.0, 1.0, 0.0, 1 / 3], abs=1e-15)
    np.testing.assert_allclose(m.pool.coefs, [[1, 1], [-1, -1], [0, 1], [1, 0]])
    assert m.n_sv == 4 and m.n_sv_output == 6 and list(m.sv_per_kernel_) == [3, 3]
    assert list(m.mistakes_per_kernel_) == [3, 3] and m.n_updates == 4
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-15)
    x = np.array([[1.0], [-3.0]])   # f0(x) = -x (the SV x=0 adds nothing), f1(x) = -2x^2 - 4x + 1
    np.testing.assert_allclose(m.classifier_scores(x), [[-1.0, -5.0], [3.0, -5.0]], rtol=1e-14)
    np.testing.assert_allclose(m.decision_function(x), [-1.0, 0.0])     # .5 sign(f0) + .5 sign(f1)


def test_dd_classifiers_are_independent_perceptrons():
    d = load_dataset("a9a-small")
    X, y, Xt = d.X[:400], d.y[:400], d.X[1000:1200]
    ks = KernelSet.preset("spa16")
    dd = make("omkc_dd", kernel=ks).partial_fit(X, y)
    F = dd.classifier_scores(Xt)
    online = np.zeros(16)
    for k in range(16):
        per = make("perceptron", kernel=ks[k]).partial_fit(X, y)
        np.testing.assert_allclose(F[:, k], per.decision_function(Xt), rtol=1e-12, atol=1e-12)
        assert dd.sv_per_kernel_[k] == per.n_sv
        online[k] = per.n_sv
    assert dd.n_sv_output == online.sum() and dd.n_sv < dd.n_sv_output      # shared rows stored once
    # Hedge weights: theta_i proportional to discount^{mistakes_i}
    w = 0.99 ** dd.mistakes_per_kernel_.astype(float)
    np.testing.assert_allclose(dd.weights_, w / w.sum(), rtol=1e-10)


@pytest.mark.parametrize("name", OMKC)
def test_one_stored_row_per_example_and_column_counts(name):
    d = load_dataset("a9a-small")
    m = mk(name, kernel=KernelSet.preset("spa16"), random_state=1).partial_fit(d.X[:300], d.y[:300])
    C = m.pool.coefs
    assert C.shape == (m.n_sv, 16) and (np.abs(C).sum(axis=1) > 0).all()       # no all-zero stored row
    np.testing.assert_array_equal((C != 0).sum(axis=0), m.sv_per_kernel_)
    assert m.n_sv <= m.n_sv_output <= 16 * m.n_sv and m.n_updates == m.n_sv
    assert len(np.unique(m.pool.tags)) == m.n_sv                               # each example at most once
    assert m.weights_.sum() == pytest.approx(1.0) and (m.weights_ > 0).all()


@pytest.mark.parametrize("name", OMKC)
def test_one_kernel_is_the_single_kernel_learner(name):
    """Decision: a single kernel is accepted (olk's generic tests make every learner with one kernel); the
    learner is then that kernel's Perceptron (PA-I for the -PA variants, with C = eta)."""
    d = load_dataset("a9a-small")
    X, y, Xt = d.X[:300], d.y[:300], d.X[1000:1300]
    g = {"type": "gaussian", "gamma": 0.4}
    m = mk(name, kernel=g, random_state=0).partial_fit(X, y)
    ref = make("pa1", kernel=g, C=0.1) if name.endswith("pa") else make("perceptron", kernel=g)
    ref.partial_fit(X, y)
    np.testing.assert_array_equal(m.predict(Xt), ref.predict(Xt))
    np.testing.assert_allclose(m.classifier_scores(Xt)[:, 0], ref.decision_function(Xt), rtol=1e-12)
    assert m.n_sv == m.n_sv_output == ref.n_sv


@pytest.mark.parametrize("name", OMKC)
def test_kernel_count_limits(name):
    with pytest.raises(ConfigError, match="takes 64 kernel"):
        mk(name, kernel=[{"type": "gaussian", "gamma": 2.0 ** -j} for j in range(65)])


@pytest.mark.parametrize("name", OMKC)
def test_spa16_end_to_end_on_a9a_small(name):
    d = load_dataset("a9a-small")
    X, y, Xt, yt = d.X[:1500], d.y[:1500], d.X[1500:], d.y[1500:]
    start = time.perf_counter()
    m = mk(name, kernel=KernelSet.preset("spa16"), random_state=0).partial_fit(X, y)
    acc = m.score(Xt, yt)
    assert time.perf_counter() - start < 10.0
    assert acc > 0.75 and m.n_sv > 0 and m.weights_.shape == (16,)
    assert m.n_sv_output > 0


@pytest.mark.parametrize("name", OMKC)
def test_pickle_roundtrip_keeps_predictions_and_learning(name):
    d = load_dataset("a9a-small")
    X, y = d.X[:300], d.y[:300]
    m = mk(name, kernel=KernelSet.preset("spa16"), random_state=3).partial_fit(X[:200], y[:200])
    clone = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))
    np.testing.assert_array_equal(clone.weights_, m.weights_)
    assert clone.n_sv == m.n_sv and clone.n_sv_output == m.n_sv_output
    m.partial_fit(X[200:], y[200:])
    clone.partial_fit(X[200:], y[200:])                     # RNG state travels too (stochastic variants)
    np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))
    np.testing.assert_array_equal(clone.pool.coefs, m.pool.coefs)


@pytest.mark.parametrize("name", sorted(STOCHASTIC))
def test_stochastic_variants_are_seeded(name):
    d = load_dataset("a9a-small")
    ks = KernelSet.preset("spa16")
    a = mk(name, kernel=ks, random_state=5).partial_fit(d.X[:300], d.y[:300])
    b = mk(name, kernel=ks, random_state=5).partial_fit(d.X[:300], d.y[:300])
    np.testing.assert_array_equal(a.pool.coefs, b.pool.coefs)
    assert mk(name).stochastic and not make("omkc_dd").stochastic
