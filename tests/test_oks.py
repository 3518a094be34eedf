"""Online kernel selection (Yang et al., AAAI 2012): OKS Algorithms 1 and 2 by hand, the unbiased importance-
weighted loss estimate, the selection baselines (validation split, ties, SVM stage), the multi-view engine path
(views, per-view widths, dataset labels, epochs) and the mfeat loader."""
import math
import os
from pathlib import Path

import numpy as np
import pytest

from olk.algorithms import make
from olk.algorithms.omkl.core import sample_one
from olk.algorithms.selection.core import BETA_GRID, C_GRID, validation_score
from olk.errors import ConfigError, DataError
from olk.kernels import KernelSet

LIN = {"type": "linear"}
G1 = {"type": "gaussian", "gamma": 1.0}
G2 = {"type": "gaussian", "gamma": 0.05}


def _toy(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
    return X, y


# ---------------------------------------------------------------------------- Algorithm 2 by hand
def test_algorithm2_by_hand_weights_probabilities_and_coefficients():
    """Three steps of Algorithm 2 with two kernels, eta = 0.3, lambda = 0.5, delta = 0.2, replayed with the
    learner's own uniforms: w, q, p and the stored coefficients lambda y z / p_i after every step."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    kernels = [LIN, G1]
    oks = make("oks", kernel=kernels, eta=0.3, lam=0.5, delta=0.2, random_state=7)
    u = np.random.default_rng(7).random(3)              # the learner draws one uniform per step, in order
    K = KernelSet.of(kernels).gram(X)
    w = np.ones(2)
    coef = []                                           # (row, kernel, coefficient)
    oks.bind(X)
    for t in range(3):
        q = w / w.sum()
        p = 0.8 * q + 0.1
        np.testing.assert_allclose(oks.weights_, q, rtol=1e-15)
        np.testing.assert_allclose(oks.sampling_probs(), p, rtol=1e-15)
        it = sample_one(p, u[t])
        f = sum(c * K[k, t, r] for r, k, c in coef if k == it)
        z = 1.0 if y[t] * f <= 0 else 0.0
        if z:
            w[it] *= math.exp(-0.3 * z / p[it])
            coef.append((t, it, 0.5 * y[t] * z / p[it]))
        oks.step(t, y[t])
    np.testing.assert_allclose(oks.weights_, w / w.sum(), rtol=1e-14)
    stored = oks.pool.coefs
    assert len(stored) == len(coef) == oks.n_updates
    for row, (_t, k, c) in zip(stored, coef):
        assert row[k] == pytest.approx(c, rel=1e-15) and row[1 - k] == 0.0


def test_eta_auto_is_theorem_3s_value_and_follows_delta():
    X, y = _toy(40)
    oks = make("oks", kernel=[LIN, G1, G2], delta=0.5, horizon=100, random_state=0)
    oks.bind(X)
    assert oks.eta_() == pytest.approx(math.sqrt(2 * 0.5 * math.log(3) / (3 * 100)), rel=1e-15)
    oks.set_params(delta=0.2)
    assert oks.eta_() == pytest.approx(math.sqrt(2 * 0.8 * math.log(3) / (3 * 100)), rel=1e-15)
    bare = make("oks", kernel=[LIN, G1], random_state=0)
    bare.bind(X)
    assert bare.eta_() == pytest.approx(math.sqrt(2 * 0.5 * math.log(2) / (2 * 40)), rel=1e-15)   # T = rows


def test_lambda_only_scales_algorithm_2():
    X, y = _toy(80, seed=3)
    runs = [make("oks", kernel=[LIN, G1, G2], lam=lam, random_state=4).partial_fit(X, y) for lam in (1.0, 2.0 ** -7)]
    np.testing.assert_array_equal(runs[0].weights_, runs[1].weights_)
    np.testing.assert_array_equal(runs[0].mistakes_per_kernel_, runs[1].mistakes_per_kernel_)
    assert runs[0].selected_kernel_ == runs[1].selected_kernel_
    np.testing.assert_allclose(runs[0].pool.coefs * 2.0 ** -7, runs[1].pool.coefs, rtol=1e-15)


def test_one_kernel_oks_is_the_kernel_perceptron():
    X, y = _toy(80, seed=5)
    oks = make("oks", kernel=G2, lam=1.0, random_state=1).partial_fit(X, y)
    per = make("perceptron", kernel=G2).partial_fit(X, y)
    assert oks.n_updates == per.n_updates
    Xt, _ = _toy(30, seed=6)
    np.testing.assert_array_equal(np.sign(oks.classifier_scores(Xt)[:, 0]), np.sign(per.decision_function(Xt)))


def _loss_estimate_of_one_step(oks, X, i, y, seed, eta):
    """Run the learner's own ``step(i, y)`` on a copy of ``oks`` whose sampler is seeded with ``seed``, and read the
    importance-weighted loss estimate l_hat (a vector over the kernels) off the weights it leaves: only the sampled
    kernel's weight is multiplied by exp(-eta l_hat / ...), so with r = log(q_new / q_old) (q renormalised),
    l_hat = (max(r) - r) / eta (an unsampled kernel's r is the normalisation alone)."""
    import copy
    m = copy.deepcopy(oks)
    m.bind(X)                                           # the copy has the model, not the bound rows
    m.rng = np.random.default_rng(seed)
    q0 = m.weights_.copy()
    m.step(i, y)
    r = np.log(m.weights_ / q0)
    return (r.max() - r) / eta


def test_importance_weighted_loss_estimate_is_unbiased():
    """E[l_hat_i] = z_i over the learner's own sampling i_t ~ p_t: Monte-Carlo over seeds of the real ``step()``
    of Algorithm 2 from one fixed state (l_hat read off the weights it leaves, not re-implemented), against
    the mistakes z_i = I(y f_i(x) <= 0) of the kernel classifiers in that state."""
    X, y = _toy(140, seed=8)
    eta = 0.5
    oks = make("oks", kernel=[LIN, G1, G2], random_state=2, delta=0.3, eta=eta).partial_fit(X[:100], y[:100])
    src = oks.bind(X)
    f = np.zeros(3)
    for i in range(100, 140):                           # a row where some kernels err and some do not
        oks.pool.decision(src, i, f)
        z = (y[i] * f <= 0).astype(float)
        if 0 < z.sum() < 3:
            break
    assert 0 < z.sum() < 3
    p = oks.sampling_probs()
    n = 6000
    est = np.array([_loss_estimate_of_one_step(oks, X, i, y[i], seed, eta) for seed in range(n)])
    # every draw changes at most one kernel, by z_i / p_i (so the reading above is exact)
    assert np.all([(e > 1e-9).sum() <= 1 for e in est])
    hit = est.max(axis=0)
    np.testing.assert_allclose(hit[z > 0], (z / p)[z > 0], rtol=1e-9)
    se = np.sqrt(z * (1 / p - 1) / n)                    # the estimate's exact std / sqrt(n)
    assert np.all(np.abs(est.mean(axis=0) - z) <= 4 * se + 1e-12), (est.mean(axis=0), z, se)
    # the sampled kernel's plain mistake (no 1/p) would be biased: its mean is p_i z_i
    plain = (est > 1e-9) * z
    assert np.all(np.abs(plain.mean(axis=0) - p * z) <= 4 * np.sqrt(p * (1 - p) / n) * z + 1e-12)
    assert np.any(np.abs(p * z - z) > 0.3)


def test_algorithm1_weights_and_coefficients_by_hand():
    """Four steps of Algorithm 1 (hinge loss) with two kernels, eta = 0.4, lambda = 0.5, delta = 0.2, replayed with
    the learner's own uniforms: l = max(0, 1 - y f_i(x)) of the sampled kernel, w_i <- w_i exp(-eta l / p_i),
    f_i <- f_i + lambda y k_i(x, .) / p_i when l > 0; w, q, p and the coefficients after every step."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, -1.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    kernels = [LIN, G1]
    m = make("oks_convex", kernel=kernels, loss="hinge", eta=0.4, lam=0.5, delta=0.2, random_state=11)
    u = np.random.default_rng(11).random(4)
    K = KernelSet.of(kernels).gram(X)
    w = np.ones(2)
    coef = []
    m.bind(X)
    losses = []
    for t in range(4):
        q = w / w.sum()
        p = 0.8 * q + 0.1
        np.testing.assert_allclose(m.weights_, q, rtol=1e-14)
        np.testing.assert_allclose(m.sampling_probs(), p, rtol=1e-14)
        it = sample_one(p, u[t])
        f = sum(c * K[k, t, r] for r, k, c in coef if k == it)
        loss = max(0.0, 1.0 - y[t] * f)
        losses.append(loss)
        if loss > 0:
            w[it] *= math.exp(-0.4 * loss / p[it])
            coef.append((t, it, 0.5 * y[t] / p[it]))
        m.step(t, y[t])
    assert any(0 < v < 1 for v in losses) or sum(v > 0 for v in losses) >= 2     # the loss enters, not only 0/1
    np.testing.assert_allclose(m.weights_, w / w.sum(), rtol=1e-13)
    stored = m.pool.coefs
    assert len(stored) == len(coef) == m.n_updates
    for row, (_t, k, c) in zip(stored, coef):
        assert row[k] == pytest.approx(c, rel=1e-15) and row[1 - k] == 0.0
    assert m.selected_kernel_ == int(np.argmax(w))


def test_algorithm1_hinge_and_logistic_updates():
    X = np.array([[1.0, 0.0], [0.5, 0.5]])
    y = np.array([1.0, 1.0])          # noqa: F841 - the stream's labels, for the reader: step() takes literals
    m = make("oks_convex", kernel=[LIN], loss="hinge", lam=0.5, eta=0.1, random_state=0)
    m.bind(X)
    m.step(0, 1.0)                                      # f = 0: loss 1, coefficient lam y / p = 0.5
    assert m.pool.coefs[0, 0] == pytest.approx(0.5)
    m.step(1, 1.0)                                      # f = 0.5 * <x0, x1> = 0.25: loss 0.75 > 0
    assert m.pool.coefs[1, 0] == pytest.approx(0.5)
    lg = make("oks_convex", kernel=[LIN, G1], loss="logistic", lam=1.0, eta=0.1, random_state=0).partial_fit(
        *_toy(20))
    assert lg.n_updates == 20                          # the logistic gradient is never 0: every round learns
    assert 0 <= lg.selected_kernel_ < 2 and abs(lg.weights_.sum() - 1.0) < 1e-12


# ---------------------------------------------------------------------------- the selection baselines
def test_validation_split_is_stratified_seeded_and_shared():
    X, y = _toy(200, seed=9)
    a = make("musvm", kernel=[LIN, G2])
    b = make("oks_svm", kernel=[LIN, G2], random_state=3)
    ya = a._check_xy(X, y)
    tr, va = a.split(ya)
    tr2, va2 = b.split(ya)
    np.testing.assert_array_equal(va, va2)             # every method tunes on the same rows
    assert len(va) == 20 and abs(ya[va].mean() - ya.mean()) < 0.05 and not set(tr) & set(va)


def test_validation_score_breaks_accuracy_ties_by_hinge_loss():
    y = np.array([1.0, -1.0, 1.0])
    assert validation_score(np.array([2.0, -2.0, 3.0]), y) > validation_score(np.array([0.1, -0.1, 0.2]), y)
    assert validation_score(np.array([-0.1, -2.0, 3.0]), y) < validation_score(np.array([0.1, -0.1, 0.2]), y)
    assert len(C_GRID) == 21 and C_GRID[0] == 2.0 ** -10 and BETA_GRID[0] == 0.1 and BETA_GRID[-1] == 0.9


def test_musvm_selects_the_kernel_the_validation_set_prefers_and_predicts_with_its_svm():
    from sklearn.svm import SVC
    X, y = _toy(150, seed=11)
    useless = {"type": "linear", "view": [2, 3]}        # the third column only: no signal
    m = make("musvm", kernel=[useless, {"type": "linear", "view": [0, 2]}]).fit(X, y)
    assert m.selected_kernel_ == 1 and m.validation_accuracy_[1] > m.validation_accuracy_[0]
    ref = SVC(kernel="linear", C=m.C_).fit(X[:, :2], y)
    Xt, _ = _toy(40, seed=12)
    np.testing.assert_allclose(m.decision_function(Xt), ref.decision_function(Xt[:, :2]), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["mutron", "om1", "som_svm", "oks_svm", "alsvm", "simplemkl", "kernel_svm"])
def test_every_method_records_its_selection_and_beats_chance(name):
    X, y = _toy(160, seed=13)
    m = make(name, kernel=[{"type": "linear", "view": [2, 3]}, {"type": "gaussian", "gamma": 0.5, "view": [0, 2]}],
             **({"random_state": 0} if name in ("som_svm", "oks_svm") else {}),
             **({"kernel_id": 2} if name == "kernel_svm" else {}))
    m.fit(X, y)
    s = m.run_summary()
    assert s["selected_kernel"] in (0, 1) and len(s["kernel_weights"]) == 2
    Xt, yt = _toy(100, seed=14)
    assert float((m.predict(Xt) == yt).mean()) > 0.8
    assert s["selected_kernel"] == 1                     # the informative view wins


def test_kernel_svm_kernel_id_is_one_based_and_must_name_a_kernel():
    with pytest.raises(ConfigError, match=r"kernel_id: 3 is not a kernel of the set \(it has 2: 1..2\)"):
        make("kernel_svm", kernel=[LIN, G1], kernel_id=3)
    with pytest.raises(ConfigError, match="kernel_id: must be >= 1"):
        make("kernel_svm", kernel=[LIN, G1], kernel_id=0)
    # the old 0-based 'index' is answered with the new name and the value to write
    with pytest.raises(ConfigError, match=r"index: renamed to 'kernel_id' and made 1-based .*; write kernel_id: 2"):
        make("kernel_svm", kernel=[LIN, G1], index=1)
    X, y = _toy(120, seed=3)
    m = make("kernel_svm", kernel=[LIN, G1], kernel_id=2).fit(X, y)
    assert m.run_summary()["selected_kernel"] == 1        # recorded 0-based, like every selection method


# ---------------------------------------------------------------------------- the engine on multi-view data
def _shared():
    d = Path(os.environ.get("OLK_DATA") or Path(__file__).resolve().parents[2] / "shared" / "datasets")
    if not (d / "mfeat").is_dir():
        pytest.skip("the shared mfeat files are not here")
    return d


def test_mfeat_loads_with_its_views_and_label_order():
    from olk.data import load_dataset
    d = load_dataset("mfeat", data_dir=str(_shared()))
    assert d.X.shape == (2000, 649)
    assert d.meta["views"] == {"fou": (0, 76), "fac": (76, 292), "kar": (292, 356), "pix": (356, 596),
                               "zer": (596, 643), "mor": (643, 649)}
    np.testing.assert_array_equal(d.y, np.arange(2000) // 200)
    assert d.X.min() >= 0.0 and d.X.max() <= 1.0         # minmax01: chi2 kernels need x >= 0
    pair = load_dataset("mfeat", data_dir=str(_shared()), preprocess={"positive_label": 6, "negative_label": 9})
    assert pair.X.shape == (400, 649) and sorted(set(pair.y.tolist())) == [-1, 1]


def test_mfeat_rows_are_the_raw_view_files_and_the_tasks_map_digits_to_plus_minus_one():
    """Row content against the raw view files (np.loadtxt, hstacked in the registry's view order), the digit of
    row i (i // 200), and a task's rows, order, [0, 1] scaling (fitted on the task's own rows) and +1/-1 labels."""
    from olk.data import load_dataset
    root = _shared() / "mfeat"
    views = ["fou", "fac", "kar", "pix", "zer", "mor"]
    raw = np.hstack([np.loadtxt(root / f"mfeat-{v}") for v in views])
    assert raw.shape == (2000, 649)
    plain = load_dataset("mfeat", data_dir=str(_shared()), preprocess={"scale": "none"})
    np.testing.assert_array_equal(plain.X, raw)                       # every value, every row, in file order
    np.testing.assert_array_equal(plain.y, np.arange(2000) // 200)
    for pos, neg in ((3, 5), (7, 9), (6, 9)):
        task = load_dataset("mfeat", data_dir=str(_shared()), preprocess={"positive_label": pos, "negative_label": neg})
        rows = np.r_[np.arange(200 * min(pos, neg), 200 * min(pos, neg) + 200),
                     np.arange(200 * max(pos, neg), 200 * max(pos, neg) + 200)]
        sub = raw[rows]
        lo, hi = sub.min(axis=0), sub.max(axis=0)
        span = np.where(hi > lo, hi - lo, np.inf)                     # a constant column maps to 0
        np.testing.assert_allclose(task.X, (sub - lo) / span, rtol=1e-12, atol=1e-15)
        expect_y = np.where(np.arange(2000)[rows] // 200 == pos, 1.0, -1.0)
        np.testing.assert_array_equal(task.y, expect_y)              # digit pos -> +1, digit neg -> -1
        assert (task.y == 1).sum() == (task.y == -1).sum() == 200


def _oks_config(tmp_path, extra=""):
    cfg = tmp_path / "oks.yaml"
    cfg.write_text(f"""name: oks_t
mode: batch
seed: 3
repeats: 2
scale: 0.5
data_dir: {_shared()}
kernel:
  views: [pix, mor]
  normalize: true
  each: [linear, {{type: chi2, gamma: {{percentile: 50}}}}]
datasets:
  - {{name: mfeat, label: m3v5, preprocess: {{positive_label: 3, negative_label: 5}}, holdout: 0.3}}
  - {{name: mfeat, label: m6v9, preprocess: {{positive_label: 6, negative_label: 9}}, holdout: 0.3}}
algorithms:
  - oks_svm
  - {{name: om2, epochs: 2}}
  - {{name: kernel_svm, sweep: {{kernel_id: [1, 4]}}}}
{extra}""")
    return cfg


def run_experiment(path, out, n_jobs=1):
    from olk.experiment.config import load_config
    from olk.experiment.runner import Runner
    return Runner(load_config(path), out, n_jobs=n_jobs, log=lambda *a: None).run()


def test_a_multi_view_experiment_runs_with_dataset_labels_views_widths_and_epochs(tmp_path):
    out = run_experiment(str(_oks_config(tmp_path)), tmp_path / "res")
    import json
    runs = [json.loads(line) for line in (Path(out) / "runs.jsonl").read_text().splitlines()]
    main = [r for r in runs if r["phase"] == "main"]
    assert {r["dataset"] for r in main} == {"m3v5", "m6v9"}
    oks = [r for r in main if r["label"] == "oks_svm"]
    assert len(oks) == 4 and all(0 <= r["summary"]["selected_kernel"] < 4 for r in oks)
    k = oks[0]["kernel"]
    assert [x["view"] for x in k] == ["pix", "pix", "mor", "mor"] and k[2]["cols"] == [643, 649]
    assert k[0]["normalize"] is True and k[1]["kind"] == "chi2" and k[1]["gamma"] > 0
    om2 = [r for r in main if r["label"] == "om2"]
    assert all(r["epochs"] == 2 for r in om2)
    meta = json.loads((Path(out) / "experiment.json").read_text())
    assert len(meta["kernel_widths"]["m3v5"]) == 2      # chi2 on pix and on mor
    import pandas as pd
    again = run_experiment(str(_oks_config(tmp_path)), tmp_path / "res2", n_jobs=2)      # the same, whatever n_jobs
    a, b = (pd.read_csv(Path(o) / "runs.csv").sort_values("run_id").reset_index(drop=True) for o in (out, again))
    same = ["run_id", "test_accuracy", "n_sv", "selected_kernel"]
    pd.testing.assert_frame_equal(a[same], b[same])


def test_unknown_view_and_duplicate_dataset_are_one_line_errors(tmp_path):
    bad = _oks_config(tmp_path).read_text().replace("views: [pix, mor]", "views: [pix, mro]")
    p = tmp_path / "bad.yaml"
    p.write_text(bad)
    with pytest.raises(ConfigError, match="unknown view 'mro'.*did you mean 'mor'"):
        run_experiment(str(p), tmp_path / "r")
    dup = _oks_config(tmp_path).read_text().replace("label: m6v9, ", "")
    dup = dup.replace("{name: mfeat, label: m3v5", "{name: mfeat, label: mfeat")
    p.write_text(dup)
    with pytest.raises(ConfigError, match="listed twice; give each entry its own label"):
        run_experiment(str(p), tmp_path / "r")
    ep = _oks_config(tmp_path).read_text().replace("- oks_svm", "- {name: oks_svm, epochs: 2}")
    p.write_text(ep)
    with pytest.raises(ConfigError, match=r"epochs: several passes .*\(oks_svm is a batch learner\)"):
        run_experiment(str(p), tmp_path / "r")


def test_chi2_on_negative_features_is_a_data_error():
    X, y = _toy(30)
    with pytest.raises(DataError, match="needs non-negative features"):
        make("oks", kernel=[{"type": "chi2"}, LIN], random_state=0).partial_fit(X, y)


def test_the_kernel_figure_marks_each_methods_selections_from_its_runs(tmp_path, monkeypatch):
    """`olk plot --kind kernels`: one bar per kernel number (1-based) at LIBSVM's test accuracy on that kernel,
    and for each method a marker at every kernel its runs selected (selected_kernel + 1), read from runs.csv."""
    import pandas as pd

    from olk.report import plots
    out = Path(run_experiment(str(_oks_config(tmp_path)), tmp_path / "res"))
    figs, save = [], plots._save
    monkeypatch.setattr(plots, "_save", lambda fig, res, stem, d: figs.append(fig) or save(fig, res, stem, d))
    files = plots.plot_kernel_selection(out)
    assert [f.name for f in files] == ["kernel_selection.png", "kernel_selection.pdf"]
    assert all(f.is_file() and f.stat().st_size > 1000 for f in files)
    runs = pd.read_csv(out / "runs.csv")
    runs = runs[runs["phase"] == "main"]
    (fig,) = figs
    for ax, ds in zip(fig.axes, ["m3v5", "m6v9"]):
        assert ax.get_title() == ds
        truth = runs[(runs["dataset"] == ds) & (runs["algorithm"] == "kernel_svm")]
        bars = {round(p.get_x() + p.get_width() / 2): p.get_height() for p in ax.patches}
        assert bars == {int(k) + 1: a for k, a in zip(truth["selected_kernel"], truth["test_accuracy"])}
        assert set(bars) == {1, 4}                         # the sweep's kernel_id values, 1-based
        marked = {c.get_label(): sorted(int(x) for x, _ in c.get_offsets()) for c in ax.collections}
        picks = runs[(runs["dataset"] == ds) & runs["selected_kernel"].notna() & (runs["algorithm"] != "kernel_svm")]
        assert marked == {"OKS-SVM": sorted({int(k) + 1 for k in picks.loc[picks["label"] == "oks_svm",
                                                                            "selected_kernel"]})}
        assert "OM-2" not in marked                        # OM-2 selects no kernel (NA, as in the paper)
