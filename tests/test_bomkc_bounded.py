"""Bounded OMKC (olk/algorithms/multikernel/bomkc_dd.py, bomkc_sd.py: SPA TIST 2018 Algorithms 3 and 4, Table 6): by
hand on tiny streams, against the single-kernel budget learners whose code they reuse, and the budget as a property
over seeds and maintenance algorithms."""
import pickle

import numpy as np
import pytest
from test_omkc_dd import TWO, run

from olk.algorithms import make
from olk.data import load_dataset
from olk.errors import ConfigError
from olk.kernels import KernelSet

MAINT = ("rbp", "forgetron", "bogd", "bpas")
GAUSS = {"type": "gaussian", "gamma": 0.4}


@pytest.fixture(scope="module")
def small():
    d = load_dataset("a9a-small")
    return d.X[:600], d.y[:600], d.X[1000:1300], d.y[1000:1300]


def test_dd_rbp_by_hand():
    m = make("bomkc_dd", kernel=TWO, maintenance="rbp", budget=2, discount=0.5, random_state=0)  # B/m = 1
    X = np.array([[1.0], [2.0], [-1.0], [0.0]])
    scores = run(m, X, [1.0, -1.0, 1.0, 1.0])
    # t=1 x=1 y=+1: f=(0,0), vote 0; both err, both below the cap: ONE row x=1, coefs (1, 1); theta (.5,.5)
    # t=2 x=2 y=-1: f0 = 2, f1 = (2+1)^2 = 9, vote 1; both err AT the cap (1 SV each): each forgets its only SV
    #     (RBP: the random pick among one), the row x=1 is owned by nobody and leaves; x=2 stored with (-1, -1)
    #     f0(x) = -2x, f1(x) = -(2x+1)^2
    # t=3 x=-1 y=+1: f0 = 2 (right), f1 = -1 (wrong), vote .5 - .5 = 0; classifier 1 forgets x=2 in ITS column
    #     only (the row stays: classifier 0 owns it), x=-1 stored with (0, +1); theta (.5,.25)/.75 = (2/3, 1/3)
    # t=4 x=0 y=+1: f0 = 0 (wrong), f1 = (0+1)^2 = 1 (right), vote 1/3; classifier 0 forgets x=2, whose row
    #     now leaves (x=-1 moves into slot 0); x=0 stored with (1, 0); theta (1/3, 1/3)/(2/3) = (.5, .5)
    assert scores == pytest.approx([0.0, 1.0, 0.0, 1.0 / 3.0])
    np.testing.assert_array_equal(m.pool.coefs, [[0.0, 1.0], [1.0, 0.0]])
    assert m.pool.tags.tolist() == [3, 4]
    assert m.sv_per_kernel_.tolist() == [1, 1] and m.n_sv_output == 2 and m.n_sv == 2
    assert m.weights_ == pytest.approx([0.5, 0.5])
    assert m.mistakes_per_kernel_.tolist() == [3, 3]
    assert m.n_updates == 4


def test_sd_the_largest_pays_when_the_sampled_classifier_has_nothing():
    # delta = 1: p_i = 1, every classifier sampled every step; total budget B = 1
    m = make("bomkc_sd", kernel=TWO, maintenance="rbp", budget=1, delta=1.0, random_state=0)
    X = np.array([[1.0], [2.0]])
    run(m, X[:1], [1.0])
    # t=1 x=1: both err; classifier 0 fills the budget; classifier 1 finds the total at B and nobody holding
    #     a stored SV to forget: its update is cancelled.  One row, coefs (1, 0).
    np.testing.assert_array_equal(m.pool.coefs, [[1.0, 0.0]])
    src = m.bind(X)
    m.step(1, 1.0)
    # t=2 x=2 y=+1: f0 = 2 (right), f1 = 0 (wrong); total at B, classifier 1 holds nothing, so classifier 0 (the
    #     largest) forgets its SV; x=2 stored for classifier 1 only
    np.testing.assert_array_equal(m.pool.coefs, [[0.0, 1.0]])
    assert m.sv_per_kernel_.tolist() == [0, 1] and m.n_sv == 1
    assert src is not None


@pytest.mark.parametrize("maintenance", MAINT)
def test_one_kernel_is_the_single_kernel_budget_learner(small, maintenance):
    """bomkc_dd with m = 1 runs the single-kernel learner's own maintenance code: the same model, bit for bit."""
    X, y, Xt, _ = small
    kw = {"bogd": {"eta": 0.1, "lam": 0.01}, "bpas": {"C": 0.1}}.get(maintenance, {})
    a = make(maintenance, kernel=GAUSS, budget=40, random_state=3, **kw).partial_fit(X, y)
    b = make("bomkc_dd", kernel=[GAUSS], maintenance=maintenance, budget=40, random_state=3, **kw).partial_fit(X, y)
    np.testing.assert_array_equal(a.pool.coefs, b.pool.coefs)
    np.testing.assert_array_equal(a.pool.tags, b.pool.tags)
    np.testing.assert_array_equal(a.decision_function(Xt), b.classifier_scores(Xt)[:, 0])
    assert a.n_updates == b.n_updates


@pytest.mark.parametrize("name", ["bomkc_dd", "bomkc_sd"])
@pytest.mark.parametrize("maintenance", MAINT)
def test_budget_is_never_exceeded(small, name, maintenance):
    """After every step: each classifier within B/m (DD) or the total within B (SD); the per-classifier counts
    are the pool's column memberships; no stored row is owned by nobody.  And the budget is reached."""
    X, y, _, _ = small
    kernels = KernelSet.preset("spa16").kernels[::4]          # 4 kernels: B/m = 6
    budget = 24
    for seed in range(3):
        m = make(name, kernel=list(kernels), maintenance=maintenance, budget=budget, random_state=seed)
        src = m.bind(X[:300])
        for i in range(src.n_rows):
            m.step(i, float(y[i]))
            sv = m.sv_per_kernel_
            if name == "bomkc_dd":
                assert sv.max() <= budget // 4, (i, sv)
            assert sv.sum() <= budget, (i, sv)
            assert [m.pool.owned(k).shape[0] for k in range(4)] == sv.tolist()
            assert not any(m.pool.row_empty(s) for s in range(m.pool.n_sv))
        assert m.n_sv_output == budget


def test_dd_splits_the_budget_sd_shares_it(small):
    """DD gives each classifier B/m; SD shares one budget B, so its allocation follows the sampling (uneven)."""
    X, y, _, _ = small
    dd = make("bomkc_dd", kernel="spa16", maintenance="rbp", budget=160, random_state=0).partial_fit(X, y)
    sd = make("bomkc_sd", kernel="spa16", maintenance="rbp", budget=160, random_state=0).partial_fit(X, y)
    assert dd.sv_per_kernel_.tolist() == [10] * 16
    assert sd.n_sv_output == 160
    assert sd.sv_per_kernel_.max() > 10 * 2 and sd.sv_per_kernel_.min() < 10


def test_bad_budgets_and_parameters_are_one_line_errors():
    with pytest.raises(ConfigError, match="set budget >= 32"):
        make("bomkc_dd", kernel="spa16", maintenance="bogd", budget=20)
    with pytest.raises(ConfigError, match="set budget >= 16"):
        make("bomkc_dd", kernel="spa16", maintenance="rbp", budget=15)
    with pytest.raises(ConfigError, match="eta\\*lam < 1"):
        make("bomkc_sd", kernel="spa16", maintenance="bogd", eta=10, lam=0.5)
    with pytest.raises(ConfigError, match="maintenance"):
        make("bomkc_dd", kernel="spa16", maintenance="projectron")


@pytest.mark.parametrize("maintenance", MAINT)
def test_pickle_midway_continues_identically(small, maintenance):
    X, y, Xt, _ = small
    a = make("bomkc_sd", kernel="spa16", maintenance=maintenance, budget=64,
             random_state=1).partial_fit(X[:300], y[:300])
    b = pickle.loads(pickle.dumps(a))
    a.partial_fit(X[300:], y[300:])
    b.partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(a.pool.coefs, b.pool.coefs)
    np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))


def test_run_summary_records_the_kernel_weights(small):
    X, y, _, _ = small
    m = make("bomkc_dd", kernel="spa16", maintenance="forgetron", budget=160).partial_fit(X, y)
    s = m.run_summary()
    assert s["budget"] == 160 and len(s["kernel_weights"]) == 16
    assert sum(s["kernel_weights"]) == pytest.approx(1.0)
    assert sum(s["sv_per_kernel"]) == m.n_sv_output
