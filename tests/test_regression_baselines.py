"""The exact-kernel regression baselines of the AMKL paper's Table II (../shared/spec/amkl_raker.md Section 5):
``kogd_reg`` (olk/algorithms/regression/kogd_reg.py) by hand and against a numpy implementation with an explicit
kernel matrix, its O(1) shrink (the global scale and its folding), and ``omkr`` (olk/algorithms/regression/omkr.py): one
kernel = kogd_reg, Hedge weights = beta^{cumulative loss} normalised, the per-kernel budget (oldest SV dropped,
never more than B, no row nobody owns).  The learners here are the spec's: the step 1/sqrt(T) and raw targets
(``step_size='sqrt_T', standardize_y=False``, what the reproduction configs state); olk's defaults are tested in
tests/test_regressor_defaults.py."""
import pickle

import numpy as np
import pytest

from olk.algorithms import make as _make
from olk.errors import ConfigError
from olk.tasks import TASKS

LIN = {"type": "linear"}


def make(name, **params):
    """The spec's learner: step 1/sqrt(T), raw targets."""
    return _make(name, **{"step_size": "sqrt_T", "standardize_y": False, **params})


def run(model, X, y):
    """The engine's path: bind, then step(i, y_i) in row order; the predictions made before each update."""
    src = model.bind(X)
    return np.array([model.step(i, float(v)) for i, v in zip(range(src.n_rows), y)])


def gauss(X, gamma):
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


def stream(seed, n=50, d=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    y = np.sin(2.0 * X[:, 0]) + 0.3 * X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


def ref_kogd(K, y, lam, eta=None):
    """Kernel OGD with the squared loss, straight from the formula on a Gram matrix K:
    f_t(x_t) = sum_{s<t} alpha_s K[t, s];  alpha *= 1 - eta lam;  alpha_t = -2 eta (f_t(x_t) - y_t).
    eta=None: eta_t = 1/sqrt(t)."""
    n = len(y)
    alpha, preds = np.zeros(n), np.zeros(n)
    for t in range(n):
        e = 1.0 / np.sqrt(t + 1) if eta is None else eta
        f = alpha[:t] @ K[t, :t]
        preds[t] = f
        alpha[:t] *= 1.0 - e * lam
        alpha[t] = -2.0 * e * (f - y[t])
    return preds, alpha


def ref_omkr(Ks, y, lam, eta, beta, budget=0):
    """OMKR from the formula: m kernel OGD regressors (Gram matrices Ks), Hedge q = beta^{L} / sum beta^{L}
    (L_k = cumulative squared error of f_k), budget B: each kernel keeps its B newest SVs."""
    m, n = len(Ks), len(y)
    alpha = np.zeros((m, n))
    L = np.zeros(m)
    preds, weights = np.zeros(n), np.zeros((n, m))
    for t in range(n):
        q = beta ** L / np.sum(beta ** L)
        f = np.array([alpha[k, :t] @ Ks[k][t, :t] for k in range(m)])
        preds[t] = q @ f
        alpha[:, :t] *= 1.0 - eta * lam
        alpha[:, t] = -2.0 * eta * (f - y[t])
        if budget:
            for k in range(m):
                own = np.flatnonzero(alpha[k, :t + 1])
                if own.size > budget:
                    alpha[k, own[0]] = 0.0                  # the oldest
        L += (f - y[t]) ** 2
        weights[t] = beta ** L / np.sum(beta ** L)
    return preds, weights, alpha


# ------------------------------------------------------------------------------------------------ kogd_reg
def test_kogd_reg_by_hand():
    # linear kernel k(x, x') = x x' on 1-d rows; horizon 4 -> eta = 1/sqrt(4) = 0.5; lam = 0.01 -> shrink 0.995
    X = np.array([[1.0], [2.0], [-1.0]])
    y = np.array([1.0, 0.0, 2.0])     # noqa: F841 - the stream's labels, for the reader: step() takes literals
    m = make("kogd_reg", kernel=LIN, horizon=4, lam=0.01)
    m.bind(X)
    # t=1 x=1 y=1: f = 0; a = -2 * .5 * (0 - 1) = 1                              alpha = [1]
    assert m.step(0, 1.0) == 0.0
    np.testing.assert_allclose(m.coef_[:, 0], [1.0], rtol=0, atol=1e-15)
    # t=2 x=2 y=0: f = 1 * (1*2) = 2; shrink -> .995; a = -(2 - 0) = -2          alpha = [.995, -2]
    assert m.step(1, 0.0) == pytest.approx(2.0, abs=1e-15)
    np.testing.assert_allclose(m.coef_[:, 0], [0.995, -2.0], rtol=0, atol=1e-15)
    # t=3 x=-1 y=2: f = .995*(1*-1) + -2*(2*-1) = -.995 + 4 = 3.005; shrink; a = -(3.005 - 2) = -1.005
    #                                                                alpha = [.995^2, -2*.995, -1.005]
    assert m.step(2, 2.0) == pytest.approx(3.005, abs=1e-14)
    np.testing.assert_allclose(m.coef_[:, 0], [0.990025, -1.99, -1.005], rtol=0, atol=1e-14)
    assert (m.n_sv, m.n_updates, m.t, m.eta_) == (3, 3, 3, 0.5)
    # f_4(x) = .990025 x - 1.99 * 2x - 1.005 * -x = (.990025 - 3.98 + 1.005) x = -1.984975 x
    np.testing.assert_allclose(m.predict(np.array([[1.0], [-2.0]])), [-1.984975, 3.96995], rtol=1e-14)


@pytest.mark.parametrize("kernel", [{"type": "gaussian", "gamma": 0.7}, LIN,
                                    {"type": "polynomial", "degree": 2, "coef0": 0.0}])
@pytest.mark.parametrize("seed", [0, 1])
def test_kogd_reg_equals_numpy_on_an_explicit_kernel_matrix(kernel, seed):
    X, y = stream(seed)
    K = gauss(X, 0.7) if kernel["type"] == "gaussian" else (X @ X.T) ** (2 if "degree" in kernel else 1)
    got = run(make("kogd_reg", kernel=kernel), X, y)               # horizon 0 -> T = 50 rows
    want, alpha = ref_kogd(K, y, 0.01, eta=1 / np.sqrt(50))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)
    m = make("kogd_reg", kernel=kernel)
    run(m, X, y)
    np.testing.assert_allclose(m.coef_[:, 0], alpha, rtol=0, atol=1e-10)     # one SV per row, in order
    np.testing.assert_allclose(m.decision_function(X), K @ alpha, rtol=0, atol=1e-10)


def test_kogd_reg_sqrt_t_schedule_and_explicit_horizon():
    X, y = stream(3)
    K = gauss(X, 0.7)
    got = run(make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7}, step_size="sqrt_t", lam=0.05), X, y)
    np.testing.assert_allclose(got, ref_kogd(K, y, 0.05)[0], rtol=0, atol=1e-10)
    got = run(make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7}, horizon=10), X, y)
    np.testing.assert_allclose(got, ref_kogd(K, y, 0.01, eta=1 / np.sqrt(10))[0], rtol=0, atol=1e-10)


@pytest.mark.parametrize("c", [0.1, 3.0])
def test_step_scale_multiplies_the_step(c):
    """step_scale c: eta = c/sqrt(T) (the AMKL baseline grid), equal to the numpy reference at that eta."""
    X, y = stream(4)
    K = gauss(X, 0.7)
    got = run(make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7}, step_scale=c), X, y)
    np.testing.assert_allclose(got, ref_kogd(K, y, 0.01, eta=c / np.sqrt(50))[0], rtol=0, atol=1e-10)
    with pytest.raises(ConfigError, match=r"step_scale=30.0 gives eta\*lam = .* >= 1"):
        run(make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7}, step_scale=30.0, lam=0.5), X, y)


def test_horizon_is_fixed_by_the_first_data_and_kept_by_partial_fit():
    X, y = stream(4, n=60)
    m = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7}).partial_fit(X[:40], y[:40])
    assert m.horizon_ == 40
    m.partial_fit(X[40:], y[40:])
    assert m.horizon_ == 40 and m.t == 60
    ref = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7}, horizon=40).partial_fit(X, y)
    np.testing.assert_array_equal(m.decision_function(X), ref.decision_function(X))
    assert m.fit(X, y).horizon_ == 60                              # fit starts again


@pytest.mark.parametrize("name", ["kogd_reg", "omkr"])
def test_learn_one_needs_the_horizon_and_then_equals_partial_fit(name):
    X, y = stream(13, n=30)
    kern = {"type": "gaussian", "gamma": 0.7}
    with pytest.raises(ConfigError, match=r"learn_one: the step 1/sqrt\(T\) needs the stream length T; set horizon"):
        make(name, kernel=kern).learn_one(X[0], y[0])
    for kw in ({"horizon": 30}, {"step_size": "sqrt_t"}):
        one = make(name, kernel=kern, **kw)
        for i in range(30):
            one.learn_one(X[i], y[i])
        whole = make(name, kernel=kern, **kw).partial_fit(X, y)
        np.testing.assert_array_equal(one.decision_function(X), whole.decision_function(X))
    m = make(name, kernel=kern).partial_fit(X[:20], y[:20])          # T = 20 fixed: streaming may go on
    m.learn_one(X[20], y[20])
    assert m.t == 21 and m.horizon_ == 20


@pytest.mark.parametrize("name,kw", [("kogd_reg", {}), ("omkr", {}), ("omkr", {"budget": 3})])
def test_scale_folding_keeps_the_predictions(name, kw):
    X, y = stream(5, n=80)
    kern = {"type": "gaussian", "gamma": 0.7} if name == "kogd_reg" else [{"type": "gaussian", "gamma": 0.7}, LIN]
    # lam = 0.5, eta = 1/sqrt(4): the scale shrinks by 0.75 a round; folded when below 0.5 (every 3 rounds)
    folded = make(name, kernel=kern, lam=0.5, horizon=4, **kw)
    folded.renormalise_below = 0.5
    never = make(name, kernel=kern, lam=0.5, horizon=4, **kw)
    never.renormalise_below = 0.0                                  # sigma = .75^80 ~ 1e-10: still a normal float
    a, b = run(folded, X, y), run(never, X, y)
    assert folded.n_folds >= 25 and never.n_folds == 0 and never._sigma < 1e-9
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(folded.decision_function(X), never.decision_function(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(folded.coef_, never.coef_, rtol=1e-12, atol=1e-300)


def test_kogd_reg_default_folds_only_when_the_scale_is_small():
    X, y = stream(6, n=200)
    m = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7})
    run(m, X, y)
    # sigma = (1 - 0.01/sqrt(200))^200 ~ 0.87: never folded, and every shrink was one multiplication
    assert m.n_folds == 0 and m._sigma == pytest.approx((1 - 0.01 / np.sqrt(200)) ** 200, rel=1e-12)


def test_online_pass_of_the_regression_task():
    X, y = stream(7)
    m = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.7})
    res = TASKS["regression"].online_pass(m, X, y, np.arange(50))
    want = ref_kogd(gauss(X, 0.7), y, 0.01, eta=1 / np.sqrt(50))[0]
    assert res["mse"] == pytest.approx(np.mean((want - y) ** 2), rel=1e-10)
    assert res["n_sv"] == 50 and res["summary"] == {"horizon": 50, "eta": 1 / np.sqrt(50)}


def test_parameters_are_checked():
    with pytest.raises(ConfigError, match=r"lam: must be in \[0, 1\)"):
        make("kogd_reg", lam=1.0)
    with pytest.raises(ConfigError, match="step_size: must be one of auto, sqrt_T, sqrt_t"):
        make("omkr", step_size="sqrt")
    with pytest.raises(ConfigError, match="budget: must be >= 0"):
        make("omkr", budget=-1)
    with pytest.raises(ConfigError, match="kogd_reg takes 1 kernel"):
        make("kogd_reg", kernel="amkl17")
    assert make("omkr", kernel="amkl17").n_cols == 17


def test_regressors_predict_real_values_and_score_r2():
    X, y = stream(8, n=80)
    y = y * 10.0 + 3.0                                      # labels that are not +-1
    for name in ("kogd_reg", "omkr"):
        m = make(name, kernel={"type": "gaussian", "gamma": 0.7}).fit(X, y)
        assert m.classes_ is None
        np.testing.assert_array_equal(m.predict(X), m.decision_function(X))
        assert m.predict_one(X[3]) == m.decision_function(X[3:4])[0]
        p = m.predict(X)
        assert m.score(X, y) == pytest.approx(1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2))


# ----------------------------------------------------------------------------------------------------- omkr
@pytest.mark.parametrize("kw", [{}, {"step_size": "sqrt_t"}, {"lam": 0.3, "horizon": 9}])
def test_omkr_with_one_kernel_is_kogd_reg(kw):
    X, y = stream(9, n=60)
    kern = {"type": "gaussian", "gamma": 0.7}
    a, b = make("omkr", kernel=kern, **kw), make("kogd_reg", kernel=kern, **kw)
    for m in (a, b):
        m.renormalise_below = 0.5                                  # the folding path too
    np.testing.assert_array_equal(run(a, X, y), run(b, X, y))     # bit for bit
    assert (a.n_sv, a.n_updates, a.n_folds) == (b.n_sv, b.n_updates, b.n_folds)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.weights_.tolist() == [1.0]


@pytest.mark.parametrize("beta", [0.5, 0.9])
def test_omkr_weights_follow_beta_to_the_cumulative_loss(beta):
    X, y = stream(10)
    gammas = [0.05, 0.7, 5.0]
    kern = [{"type": "gaussian", "gamma": g} for g in gammas]
    y = 4.0 * y                                                    # larger losses: weights that move
    m = make("omkr", kernel=kern, beta=beta)
    m.bind(X)
    want_p, want_w, alpha = ref_omkr([gauss(X, g) for g in gammas], y, 0.01, 1 / np.sqrt(50), beta)
    for t in range(50):
        assert m.step(t, float(y[t])) == pytest.approx(want_p[t], abs=1e-10)
        np.testing.assert_allclose(m.weights_, want_w[t], rtol=1e-10, atol=1e-300)
    assert m.weights_.sum() == pytest.approx(1.0, abs=1e-15)
    assert max(m.weights_) > 0.9                                   # one kernel has won
    np.testing.assert_allclose(m.coef_.T, alpha, rtol=0, atol=1e-10)
    s = m.run_summary()
    assert s["kernel_weights"] == m.weights_.tolist() and s["sv_per_kernel"] == [50] * 3
    assert (m.n_sv, m.n_sv_output) == (50, 150)                    # stored once, owned by all three


def own_tags(m):
    tags = m.pool.tags
    return [sorted(tags[m.pool.owned(k)].tolist()) for k in range(m.n_cols)]


@pytest.mark.parametrize("seed", range(6))
def test_omkr_budget_drops_the_oldest_and_never_exceeds_b(seed):
    rng = np.random.default_rng(100 + seed)
    n, B = 60, int(rng.integers(1, 8))
    X, y = stream(seed, n=n)
    zero = rng.random(n) < 0.3          # x = 0 and y = 0: the linear kernel's f(0) = 0 = y, no SV for it
    X[zero], y[zero] = 0.0, 0.0
    kern = [LIN, {"type": "gaussian", "gamma": 0.7}, {"type": "gaussian", "gamma": 5.0}]
    m = make("omkr", kernel=kern, budget=B)
    m.bind(X)
    added = [[] for _ in kern]                                     # the steps at which each kernel got an SV
    for t in range(n):
        m.step(t, float(y[t]))
        tags = m.pool.tags
        if (tags == t + 1).any():                                  # the newest row: who owns it
            row = m.pool.coefs[int(np.flatnonzero(tags == t + 1)[0])]
            for k in np.flatnonzero(row):
                added[k].append(t + 1)
        owned = own_tags(m)
        for k in range(len(kern)):
            assert len(owned[k]) <= B                              # the budget, after every step
            assert owned[k] == added[k][-B:]                       # exactly its B newest: the oldest went
            assert m.sv_per_kernel_[k] == len(owned[k])
        assert all(not m.pool.row_empty(s) for s in range(m.n_sv))  # no row nobody owns
        assert m.n_sv == len(set().union(*map(set, owned)))
    assert len(added[0]) < len(added[1])            # the linear kernel skipped the zero rows the Gaussians learned
    assert all(len(o) == B for o in own_tags(m))                   # the budget is reached
    # the same predictions and coefficients as the formula with truncation
    Ks = [X @ X.T, gauss(X, 0.7), gauss(X, 5.0)]
    want_p, want_w, alpha = ref_omkr(Ks, y, 0.01, 1 / np.sqrt(n), 0.5, budget=B)
    m2 = make("omkr", kernel=kern, budget=B)
    np.testing.assert_allclose(run(m2, X, y), want_p, rtol=0, atol=1e-10)
    np.testing.assert_allclose(m2.weights_, want_w[-1], rtol=1e-10)
    full = np.zeros((n, len(kern)))
    full[m2.pool.tags - 1] = m2.coef_
    np.testing.assert_allclose(full, alpha.T, rtol=0, atol=1e-10)


def test_unbounded_omkr_pool_holds_only_owned_rows():
    X, y = stream(11, n=40)
    X[::4], y[::4] = 0.0, 0.0           # every kernel's gradient is 0 on the first zero row: nothing stored
    m = make("omkr", kernel=[LIN, {"type": "polynomial", "degree": 2, "coef0": 0.0}])
    run(m, X, y)
    assert m.n_sv == m.n_updates < 40
    assert all(not m.pool.row_empty(s) for s in range(m.n_sv))
    assert m.n_sv_output == int((m.coef_ != 0).sum())


def test_omkr_budget_pickles_mid_stream():
    X, y = stream(12, n=60)
    kern = [{"type": "gaussian", "gamma": g} for g in (0.2, 2.0)]
    m = make("omkr", kernel=kern, budget=5, horizon=60).partial_fit(X[:30], y[:30])
    c = pickle.loads(pickle.dumps(m))
    m.partial_fit(X[30:], y[30:])
    c.partial_fit(X[30:], y[30:])
    ref = make("omkr", kernel=kern, budget=5, horizon=60).partial_fit(X, y)
    for other in (c, ref):
        np.testing.assert_array_equal(m.decision_function(X), other.decision_function(X))
        assert own_tags(m) == own_tags(other)


def test_the_report_gives_the_mse_in_the_files_target_units_too(tmp_path):
    """A regression target scaled on loading (target_scale: minmax01, y = a y_file + b) is recorded in
    experiment.json, and the report's mse_original undoes it: MSE_file = MSE / a^2."""
    from olk.experiment.config import parse_config
    from olk.experiment.runner import Runner
    from olk.report.results import load_results
    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = 100.0 + 50.0 * X[:, 0]                     # a target in [100, 150]: scaled to [0, 1] on loading
    f = tmp_path / "reg.libsvm"
    f.write_text("".join(f"{t:.6f} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(r)) + "\n"
                         for t, r in zip(y, X)))
    cfg = parse_config({"name": "reg_units", "seed": 1, "repeats": 1, "shuffle": False,
                        "kernel": {"type": "linear"},
                        "datasets": [{"name": str(f), "preprocess": {"task": "regression",
                                                                      "target_scale": "minmax01"}}],
                        "algorithms": [{"name": "kogd_reg", "params": {"horizon": 60}}]})
    out = Runner(cfg, tmp_path / "res", n_jobs=1, log=lambda *a: None).run()
    res = load_results(out)
    a = res.meta["target_scales"][str(f)]["scale"]
    lo, hi = float(np.round(y, 6).min()), float(np.round(y, 6).max())
    assert a == pytest.approx(1.0 / (hi - lo), rel=1e-12)
    row = res.main.iloc[0]
    assert row["mse_original"] == pytest.approx(row["mse"] * (hi - lo) ** 2, rel=1e-12)
    assert 0 < row["mse"] < 1 < row["mse_original"]
