"""Raker, OMKL-AKS, AMKL and AMKL-AKS (Hong & Chae, TNNLS 2022; ../shared/spec/amkl_raker.md) and their random
features (olk/algorithms/random_features/core.py): the feature map, the subset machinery, the active selection rule,
and the equalities between the four learners that the spec implies.  The learners here are the paper's: its step
1/sqrt(T) and raw targets (``step_size='sqrt_T', standardize_y=False``, what the reproduction configs state);
olk's defaults (the anytime step, standardised targets) are tested in tests/test_regressor_defaults.py."""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from olk.algorithms import make as _make
from olk.algorithms.random_features.amkl import confidence
from olk.algorithms.random_features.core import draw_frequencies, feature_map, feature_rng
from olk.algorithms.random_features.omkl_aks import balls_bins, sample_bin, subset_pmf, subset_size
from olk.errors import ConfigError, DataError
from olk.kernels import KernelSet
from olk.tasks import TASKS

LEARNERS = ("raker", "omkl_aks", "amkl", "amkl_aks")


def make(name, **params):
    """The paper's learner: step 1/sqrt(T), raw targets."""
    return _make(name, **{"step_size": "sqrt_T", "standardize_y": False, **params})

KS3 = [{"type": "gaussian", "gamma": g} for g in (0.5, 5.0, 50.0)]


def _stream(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = 0.5 + 0.3 * np.sin(4 * X[:, 0]) + 0.2 * X[:, 1] ** 2 + 0.02 * rng.standard_normal(n)
    return X, y


def _run(m, X, y):
    """The engine's online pass by hand: bind, then step every row in order; the predictions."""
    m.bind(X)
    return np.array([m.step(i, y[i]) for i in range(len(y))])


# ------------------------------------------------------------------------------------ random features
def test_rff_approximation_error_shrinks_as_d_grows():
    ks = KernelSet.of({"type": "gaussian", "gamma": 0.5})         # sigma = 1
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(40, 4)) * 0.5, rng.normal(size=(40, 4)) * 0.5
    exact = np.exp(-0.5 * np.sum((A - B) ** 2, axis=1))
    errs = []
    for D in (10, 100, 1000, 10000):
        V = draw_frequencies(ks, 4, D, "rff", feature_rng(7))
        za, zb = feature_map(V, A, D, normalize=True)[:, 0], feature_map(V, B, D, normalize=True)[:, 0]
        errs.append(float(np.mean(np.abs(np.sum(za * zb, axis=1) - exact))))   # z(x)'z(x') ~ k(x, x')
    assert errs[0] > errs[1] > errs[2] > errs[3]
    assert errs[3] < 0.02 and errs[0] / errs[3] > 10                 # ~ 1/sqrt(D)


def test_frequencies_scale_with_inverse_bandwidth_and_come_from_the_seed_alone():
    ks = KernelSet.of("amkl17")
    s = np.array([math.sqrt(2 * k.gamma) for k in ks])                 # s_k = 1/sigma_k, sigma_i = 10^((i-9)/2)
    np.testing.assert_allclose(s, [10.0 ** (-(i - 9) / 2) for i in range(1, 18)], rtol=1e-14)
    # rff, one kernel: V = s * N(0, I) drawn from the seed's own stream
    one = KernelSet.of({"type": "gaussian", "gamma": 2.0})
    V = draw_frequencies(one, 3, 20, "rff", feature_rng(5))
    np.testing.assert_array_equal(V, 2.0 * feature_rng(5).standard_normal((20, 3)))
    # authors: each d x d block of a kernel has orthogonal rows (after removing the chi^2_1 row scales)
    V = draw_frequencies(one, 4, 10, "authors", feature_rng(5)) / 2.0
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    for blk in (U[:4], U[4:8]):
        np.testing.assert_allclose(blk @ blk.T, np.eye(4), atol=1e-12)
    # a view: frequencies on its columns only
    view = KernelSet.of({"type": "gaussian", "gamma": 0.5, "view": [1, 3]})
    V = draw_frequencies(view, 4, 6, "authors", feature_rng(0))
    assert np.all(V[:, [0, 3]] == 0.0) and np.all(V[:, 1:3] != 0.0)


def test_same_seed_same_run_other_seed_other_frequencies():
    X, y = _stream(200)
    for name in LEARNERS:
        a, b = make(name, kernel=KS3, random_state=11), make(name, kernel=KS3, random_state=11)
        np.testing.assert_array_equal(_run(a, X, y), _run(b, X, y))
        np.testing.assert_array_equal(a.theta_, b.theta_)
        c = make(name, kernel=KS3, random_state=12)
        c.bind(X)
        assert not np.array_equal(a.frequencies_, c.frequencies_)
    # V does not depend on the learner: raker and amkl_aks with one seed share it
    r, k = make("raker", kernel=KS3, random_state=4), make("amkl_aks", kernel=KS3, random_state=4)
    r.bind(X), k.bind(X)
    np.testing.assert_array_equal(r.frequencies_, k.frequencies_)


# ---------------------------------------------------------------------------------------------- Raker
def test_raker_with_one_kernel_is_plain_random_feature_ogd():
    X, y = _stream(300)
    m = make("raker", kernel={"type": "gaussian", "gamma": 5.0}, random_state=2, n_rf=8)
    pred = _run(m, X, y)
    V, eta, lam = m.frequencies_, 1.0 / math.sqrt(300), 0.01
    theta, ref = np.zeros(16), []
    for x, yt in zip(X, y):
        v = V @ x
        z = np.concatenate([np.sin(v), np.cos(v)])            # no 1/sqrt(D): the authors' map
        f = theta @ z
        ref.append(f)
        theta = theta - eta * (2 * (f - yt) * z + 2 * lam * theta)
    np.testing.assert_allclose(pred, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.theta_[0], theta, rtol=1e-10, atol=1e-12)
    assert m.weights_.tolist() == [1.0] and m.n_updates == 300 and m.n_sv == 0 and m.kernel_evals == 0


def test_raker_weights_follow_the_unregularised_squared_error():
    X, y = _stream(150)
    m = make("raker", kernel=KS3, random_state=0, n_rf=5, eta_g=0.3)
    m.bind(X)
    logw = np.zeros(3)
    for i in range(150):
        f = m.kernel_outputs(X[i])[0]                          # f_t,k(x_t) before the round
        q = np.exp(logw - logw.max())
        q /= q.sum()
        np.testing.assert_allclose(m.weights_, q, rtol=1e-12)
        assert m.step(i, y[i]) == pytest.approx(q @ f, rel=1e-10, abs=1e-12)     # prediction (19)-(20)
        logw -= 0.3 * (f - y[i]) ** 2                          # (21) without lambda ||theta||^2
    assert m.run_summary()["kernel_weights"] == pytest.approx((np.exp(logw) / np.exp(logw).sum()).tolist())


def test_weight_loss_regularised_adds_lambda_theta_norm_before_the_step():
    # the labelled option of spec Section 2 step 5: log w_k -= eta_g ((f_k - y)^2 + lambda ||theta_t,k||^2)
    X, y = _stream(120)
    m = make("raker", kernel=KS3, random_state=0, n_rf=5, eta_g=0.3, lam=0.05, weight_loss="regularised")
    ref = make("raker", kernel=KS3, random_state=0, n_rf=5, eta_g=0.3, lam=0.05)
    m.bind(X)
    ref.bind(X)
    logw = np.zeros(3)
    for i in range(120):
        f = m.kernel_outputs(X[i])[0]
        norm2 = (m.theta_ ** 2).sum(axis=1)                    # theta_t,k, before this round's OGD step
        m.step(i, y[i])
        ref.step(i, y[i])
        logw -= 0.3 * ((f - y[i]) ** 2 + 0.05 * norm2)
    np.testing.assert_allclose(m.weights_, np.exp(logw - logw.max()) / np.exp(logw - logw.max()).sum(), rtol=1e-10)
    np.testing.assert_array_equal(m.theta_, ref.theta_)        # theta does not depend on the weights' loss
    assert not np.allclose(m.weights_, ref.weights_)           # ... the weights do
    with pytest.raises(ConfigError, match="weight_loss"):
        make("raker", weight_loss="ridge")


def test_amkl17_sigma2_is_the_other_reading_of_eq_56():
    ks, alt = KernelSet.of("amkl17"), KernelSet.of("amkl17_sigma2")
    sig = lambda k: math.sqrt(1.0 / (2.0 * k.gamma))
    assert [sig(k) for k in ks] == pytest.approx([10 ** ((i - 9) / 2) for i in range(1, 18)], rel=1e-12)
    assert [sig(k) ** 2 for k in alt] == pytest.approx([10 ** ((i - 9) / 2) for i in range(1, 18)], rel=1e-12)
    assert sig(alt[0]) == pytest.approx(0.01) and sig(alt[16]) == pytest.approx(100.0)


def test_steps_are_one_over_sqrt_t_and_eta_cap_caps_the_local_step():
    X, y = _stream(400)
    m = make("raker", kernel=KS3)
    m.bind(X)
    assert m.steps() == (1 / math.sqrt(400), 1 / math.sqrt(400))
    m = make("raker", kernel=KS3, eta_cap=0.01, horizon=100)
    m.bind(X)
    assert m.steps() == (0.01, 0.1)
    # T = 400 < D^2 = 2500: eta_l D > 1, the literal step diverges; the cap keeps it stable
    with np.errstate(over="ignore", invalid="ignore"):
        wild = np.mean((_run(make("raker", kernel=KS3, random_state=0), X, y) - y) ** 2)
    tame = np.mean((_run(make("raker", kernel=KS3, random_state=0, eta_cap=0.5 / 50), X, y) - y) ** 2)
    assert tame < np.var(y) and not wild < 1e6


# ------------------------------------------------------------------------------------------- OMKL-AKS
@pytest.mark.parametrize("K,p,r", [(4, 2, 3), (17, 5, 5), (17, 1, 1), (17, 16, 2), (6, 6, 6), (17, 3, 7)])
def test_balls_bins_gives_every_kernel_exactly_r_bins_and_the_pmf_sums_to_one(K, p, r):
    rng = np.random.default_rng(K * 100 + p)
    for _ in range(20):
        B = balls_bins(K, p, r, rng)
        assert B.shape == (K * r // p, K)                      # N = floor(K r / p) bins (26)
        assert B.sum(axis=0).tolist() == [r] * K               # uniform frequency
        assert B.sum() / B.shape[0] == pytest.approx(p, rel=0.5)
        q = rng.dirichlet(np.ones(K))
        P = subset_pmf(B, q, r)
        assert P.sum() == pytest.approx(1.0, abs=1e-12) and np.all(P >= 0)
        assert np.all(P[B.sum(axis=1) == 0] == 0)              # an empty bin is never drawn
        for u in (0.0, 0.5, 1 - 1e-16):
            assert P[sample_bin(P, u)] > 0


def test_subset_size_and_the_subset_prediction_is_unbiased():
    q = np.array([0.5, 0.3, 0.1, 0.1])
    assert subset_size(q, 0.25) == 2 and subset_size(q, 0.1) == 4 and subset_size(q, 0.0) == 4
    assert subset_size(q, 0.9) == 1                            # at least one kernel
    # sum_n P(n) (sum_{k in S_n} q_k f_k / sum_{j in S_n} q_j) = sum_k q_k f_k for EVERY collection: (29) makes the
    # renormalised subset prediction an unbiased estimate of Raker's (spec Section 3, Caveat)
    rng, f = np.random.default_rng(0), np.array([1.0, -2.0, 0.5, 3.0])
    for p, r in ((2, 2), (2, 3), (1, 1), (3, 2)):
        B = balls_bins(4, p, r, rng)
        P = subset_pmf(B, q, r)
        mean = sum(P[n] * (q[S] @ f[S]) / q[S].sum() for n, S in enumerate(B) if S.any())
        assert mean == pytest.approx(q @ f, rel=1e-12)


def test_omkl_aks_with_delta_zero_is_raker_bit_for_bit():
    X, y = _stream(300)
    r = make("raker", kernel="amkl17", random_state=5, n_rf=10)
    a = make("omkl_aks", kernel="amkl17", random_state=5, n_rf=10, delta=0.0)
    np.testing.assert_array_equal(_run(a, X, y), _run(r, X, y))
    np.testing.assert_array_equal(a.theta_, r.theta_)
    np.testing.assert_array_equal(a.weights_, r.weights_)


def test_omkl_aks_predicts_on_a_subset_but_updates_every_kernel_like_raker():
    X, y = _stream(300)
    r = make("raker", kernel=KS3, random_state=5, n_rf=10, eta_g=2.0)
    a = make("omkl_aks", kernel=KS3, random_state=5, n_rf=10, eta_g=2.0)
    pr = _run(r, X, y)
    a.bind(X)
    pa, sizes = [], []
    for i in range(300):
        f = a.kernel_outputs(X[i])[0]
        pa.append(a.step(i, y[i]))
        sizes.append(a.last_subset_size_)
        assert f.min() - 1e-12 <= pa[-1] <= f.max() + 1e-12     # a convex mix of the f_k of S_t (31)-(32)
    np.testing.assert_array_equal(a.theta_, r.theta_)          # the kernel functions and weights are Raker's
    np.testing.assert_array_equal(a.weights_, r.weights_)
    assert not np.array_equal(pa, pr) and min(sizes) < 3       # ... the predictions use S_t
    # the ablation: eta_g,t = ln K / sqrt(t) changes the weights (not the kernel functions)
    b = make("omkl_aks", kernel=KS3, random_state=5, n_rf=10, eta_g=2.0, eta_g_schedule="ln_k_over_sqrt_t")
    _run(b, X, y)
    np.testing.assert_array_equal(b.theta_, r.theta_)
    assert not np.allclose(b.weights_, r.weights_)


# ----------------------------------------------------------------------------------------------- AMKL
def test_confidence_condition_by_hand():
    # f = (0, 1, 3), q = (1/2, 1/4, 1/4): j=1: 1/4 + 9/4 = 2.5; j=2: 1/2 + 4/4 = 1.5; j=3: 9/2 + 4/4 = 5.5
    assert confidence(np.array([0.0, 1.0, 3.0]), np.array([0.5, 0.25, 0.25])) == 5.5
    assert confidence(np.array([0.7]), np.array([1.0])) == 0.0


def test_the_cap_never_allows_more_than_m_skips_and_skips_change_nothing():
    X, y = _stream(120)
    for name in ("amkl", "amkl_aks"):
        m = make(name, kernel=KS3, random_state=1, n_rf=6, epsilon=1e9, M=2)    # always confident
        m.bind(X)
        b = []
        for i in range(120):
            theta, w, n = m.theta_, m.weights_, m.n_labels
            m.step(i, y[i])
            b.append(m.n_labels - n)
            if b[-1] == 0:                                     # skipped: theta and the weights unchanged
                np.testing.assert_array_equal(m.theta_, theta)
                np.testing.assert_array_equal(m.weights_, w)
        assert b == [0, 0, 1] * 40                             # exactly M = 2 skips, then a label
        assert m.n_labels == m.n_updates == 40 and m.run_summary()["label_efficiency"] == pytest.approx(1 / 3)


def test_the_selection_rule_on_a_stream():
    X, y = _stream(300)
    m = make("amkl", kernel=KS3, random_state=3, n_rf=8, epsilon=0.05, M=3)
    m.bind(X)
    c, skips, labels = 0, 0, 0
    for i in range(300):
        f, q = m.kernel_outputs(X[i])[0], m.weights_
        skip = c < 3 and confidence(f, q) < 0.05               # strict <, as the authors' code
        n = m.n_labels
        m.step(i, y[i])
        assert (m.n_labels == n) == skip
        c = c + 1 if skip else 0
        skips += skip
        labels += not skip
    assert skips > 50 and labels > 50                          # both branches taken
    # strict comparison: at t = 1 all f_k = 0, C_1 = 0, so epsilon = 0 asks for the label
    z = make("amkl", kernel=KS3, random_state=3, epsilon=0.0)
    z.bind(X)
    z.step(0, y[0])
    assert z.n_labels == 1


def test_confidence_test_le_differs_from_lt_only_at_equality():
    X, y = _stream(200)
    # epsilon = 0: '<' never skips, '<=' skips t = 1 (all f_k = 0, C_1 = 0 exactly) and every round C_t = 0
    lt = make("amkl", kernel=KS3, random_state=4, n_rf=6, epsilon=0.0)
    le = make("amkl", kernel=KS3, random_state=4, n_rf=6, epsilon=0.0, confidence_test="<=")
    lt.bind(X)
    le.bind(X)
    lt.step(0, y[0])
    le.step(0, y[0])
    assert (lt.n_labels, le.n_labels) == (1, 0)
    # epsilon > 0 on a real-valued stream: C_t never equals epsilon, the two readings give the same run
    for name in ("amkl", "amkl_aks"):
        a = make(name, kernel=KS3, random_state=4, n_rf=6, epsilon=0.01)
        b = make(name, kernel=KS3, random_state=4, n_rf=6, epsilon=0.01, confidence_test="<=")
        np.testing.assert_array_equal(_run(a, X, y), _run(b, X, y))
        assert a.n_labels == b.n_labels < 200
    with pytest.raises(ConfigError, match="confidence_test"):
        make("amkl", confidence_test="=<")


def test_amkl_with_epsilon_zero_labels_every_round_and_is_raker():
    X, y = _stream(300)
    r = make("raker", kernel=KS3, random_state=8, n_rf=12)
    a = make("amkl", kernel=KS3, random_state=8, n_rf=12, epsilon=0.0)
    np.testing.assert_array_equal(_run(a, X, y), _run(r, X, y))
    np.testing.assert_array_equal(a.theta_, r.theta_)
    np.testing.assert_array_equal(a.weights_, r.weights_)
    assert a.n_labels == 300 and a.label_efficiency == 1.0
    # likewise AMKL-AKS with epsilon = 0 is OMKL-AKS, and with delta = 0 too it is AMKL
    o = make("omkl_aks", kernel=KS3, random_state=8, n_rf=12)
    k = make("amkl_aks", kernel=KS3, random_state=8, n_rf=12, epsilon=0.0)
    np.testing.assert_array_equal(_run(k, X, y), _run(o, X, y))
    k0 = make("amkl_aks", kernel=KS3, random_state=8, n_rf=12, delta=0.0)
    a0 = make("amkl", kernel=KS3, random_state=8, n_rf=12)
    np.testing.assert_array_equal(_run(k0, X, y), _run(a0, X, y))
    assert k0.n_labels == a0.n_labels


# ------------------------------------------------------------------------------- engine and contract
def test_the_regression_task_records_mse_labels_and_weights():
    X, y = _stream(300)
    for name in LEARNERS:
        m = make(name, kernel=KS3, random_state=0, n_rf=10)
        res = TASKS["regression"].online_pass(m, X, y, np.arange(300))
        pred = _run(make(name, kernel=KS3, random_state=0, n_rf=10), X, y)
        assert res["mse"] == pytest.approx(np.mean((pred - y) ** 2), rel=1e-12)
        assert res["n_sv"] == 0 and res["kernel_evals"] == 0 and res["n_updates"] == m.n_updates
        assert len(res["summary"]["kernel_weights"]) == 3
        if name.startswith("amkl"):
            assert res["label_efficiency"] == res["summary"]["label_efficiency"] == m.n_labels / 300
        else:                                       # not active: every label used (Table III's rho = 1)
            assert res["label_efficiency"] == 1.0 and res["n_labels"] == 300


def test_nan_target_non_gaussian_kernel_and_stream_length_are_one_line_errors():
    X, y = _stream(50)
    y[5] = np.nan
    for name in LEARNERS:
        with pytest.raises(DataError) as e:
            make(name, kernel=KS3).partial_fit(X, y)
        assert str(e.value).startswith("y: row 5 (0-based) has label nan") and "\n" not in str(e.value)
    with pytest.raises(DataError, match=r"row 5 \(0-based\) has a non-finite target"):
        TASKS["regression"].check_labels(y, "energy")
    with pytest.raises(ConfigError, match="random Fourier features need Gaussian kernels, got poly") as e:
        make("raker", kernel=[{"type": "gaussian"}, {"type": "polynomial"}])
    assert "\n" not in str(e.value)
    with pytest.raises(ConfigError, match="set horizon=T"):
        make("amkl", kernel=KS3).learn_one(X[0], 0.5)
    with pytest.raises(ConfigError):
        make("omkl_aks", delta=1.5)


def test_sklearn_surface_pickle_sparse_and_streaming():
    X, y = _stream(200)
    for name in LEARNERS:
        m = make(name, kernel=KS3, random_state=6, n_rf=10).partial_fit(X[:150], y[:150])
        # decision_function = the current combined prediction sum_k q_k f_k
        np.testing.assert_allclose(m.decision_function(X[150:]), m.kernel_outputs(X[150:]) @ m.weights_)
        np.testing.assert_array_equal(m.predict(X[150:]), m.decision_function(X[150:]))
        clone = pickle.loads(pickle.dumps(m))
        assert clone.src is None and len(pickle.dumps(m)) < 50_000
        m.partial_fit(X[150:], y[150:])
        clone.partial_fit(X[150:], y[150:])
        np.testing.assert_array_equal(clone.decision_function(X), m.decision_function(X))
        # sparse input is densified: the same model
        s = make(name, kernel=KS3, random_state=6, n_rf=10).partial_fit(sp.csr_matrix(X), y)
        np.testing.assert_array_equal(s.theta_, make(name, kernel=KS3, random_state=6, n_rf=10).fit(X, y).theta_)
        # a stream of learn_one (with horizon) is the indexed pass
        w = make(name, kernel=KS3, random_state=6, n_rf=10, horizon=200).partial_fit(X, y)
        st = make(name, kernel=KS3, random_state=6, n_rf=10, horizon=200)
        for i in range(200):
            st.learn_one(X[i], y[i])
        np.testing.assert_array_equal(st.theta_, w.theta_)
        assert st.predict_one(X[0]) == pytest.approx(w.decision_function(X[:1])[0])
    with pytest.raises(DataError, match="features"):
        m.decision_function(np.hstack([X, X]))
