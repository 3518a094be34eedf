"""The scikit-learn estimators of :mod:`olk.estimators` beyond scikit-learn's own suite (tests/test_sklearn_checks.py):

* one code path with the experiment engine: the estimator and ``olk run`` give identical predictions for the
  same seed and order (the engine's permutation, and file order);
* true streaming: any split of a stream into ``partial_fit`` batches gives the model of one pass, dense and
  sparse; ``set_params`` between batches takes effect (a new kernel only at the next ``fit``);
* the fitted attributes are the model: ``support_vectors_`` / ``dual_coef_`` (+ ``intercept_``) reproduce every
  output column of every kernel-expansion learner;
* save / load (and pickle) round-trip every estimator exactly.
"""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import yaml
from sklearn.base import is_regressor

import olk
from olk.algorithms import REGISTRY, available
from olk.estimators import OlkEstimator, by_class_name, by_name

ALL = available()
ONLINE = [n for n in ALL if not REGISTRY[n].batch]
RBF = {"type": "gaussian", "gamma": 0.5}
TWO = [{"type": "gaussian", "gamma": 0.5}, {"type": "gaussian", "gamma": 2.0}]
ROOT = Path(__file__).resolve().parents[1]


def _kw(name, multi=False):
    cls = REGISTRY[name]
    specs = {p.name for p in cls.params}
    kw = {"kernel": TWO if multi and cls.max_kernels > 1 else RBF, "random_state": 3}
    if "budget" in specs:
        kw["budget"] = 8                    # small: removal / projection code runs
    if "horizon" in specs:
        kw["horizon"] = 90                  # 1/sqrt(T) steps need T fixed for a stream split into batches
    if "eta_cap" in specs:
        kw["eta_cap"] = 0.01                # random features: tiny T diverges uncapped (random_features.py)
    return kw


def _data(sparse=False, n=90, d=5, seed=0, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[X < 0.3] = 0.0
    y = X[:, 0] - 0.5 * X[:, 1] if regression else np.where(X[:, 0] + 0.3 * rng.random(n) > 0.6, "b", "a")
    return (sp.csr_matrix(X) if sparse else X), y


def _fit(name, sparse=False, multi=False):
    X, y = _data(sparse, regression=REGISTRY[name].task == "regression")
    return by_name[name](**_kw(name, multi)).fit(X, y), X, y


# ------------------------------------------------------------------------------------- one code path
def _engine_models(tmp_path, monkeypatch, config: dict):
    """Run ``olk run`` on `config` in this process; return the learners the engine trained, by spec."""
    from olk.algorithms import registry
    from olk.cli import main
    from olk.experiment.spec import RunSpec
    made, current = [], []
    real_record, real_build = RunSpec.to_record, registry.build

    def record(spec):                   # execute_run reads its spec's record first, then builds its learner
        current[:] = [spec]
        return real_record(spec)

    def build(*args, **kwargs):
        model = real_build(*args, **kwargs)
        made.append((current[0], model))
        return model
    monkeypatch.setattr(RunSpec, "to_record", record)
    monkeypatch.setattr(registry, "build", build)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    main(["run", str(path), "--out", str(tmp_path / "out"), "-j", "1", "--quiet", "--no-progress"])
    return made


@pytest.mark.parametrize("shuffle", [True, False])
def test_the_estimator_and_olk_run_give_identical_predictions(tmp_path, monkeypatch, shuffle):
    from olk.data import load_dataset
    from olk.experiment import seeds
    config = {"name": "same", "seed": 7, "repeats": 2, "shuffle": shuffle, "kernel": {"type": "gaussian", "gamma": 0.4},
              "datasets": ["a9a-small"],
              "algorithms": ["pa1", {"name": "spa", "params": {"beta": 5}}, {"name": "bogd", "params": {"budget": 50}},
                             "klr_nc", {"name": "omkc_sd", "kernel": [{"type": "gaussian", "gamma": 0.4},
                                                                     {"type": "linear"}]}]}
    made = _engine_models(tmp_path, monkeypatch, config)
    d = load_dataset(ROOT / "datasets" / "samples" / "a9a-small.libsvm.xz")
    X, y = d.X, d.y
    # 2 permutations each; in file order (shuffle: false) a deterministic learner runs once
    assert {s.algorithm for s, _ in made} == {"pa1", "spa", "bogd", "klr_nc", "omkc_sd"}
    assert len(made) == (10 if shuffle else 8)
    for spec, engine in made:
        order = seeds.permutation(X.shape[0], spec.seed, spec.dataset, spec.perm, spec.shuffle)
        if not shuffle:
            np.testing.assert_array_equal(order, np.arange(X.shape[0]))
        est = olk.estimator(spec.algorithm, kernel=spec.kernel, random_state=spec.algo_seed, shuffle=False,
                            **spec.params)
        est.fit(X[order], y[order])
        assert est.learner_.n_sv == engine.n_sv and est.learner_.t == engine.t == X.shape[0], spec.label
        np.testing.assert_array_equal(est.decision_function(X), engine.decision_function(X))
        np.testing.assert_array_equal(est.predict(X), engine.predict(X))


# ------------------------------------------------------------------------------------------ streaming
SPLITS = [[90], [1, 89], [30, 30, 30], [7, 13, 1, 40, 29], [1] * 90]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ["perceptron", "spa", "bogd", "forgetron", "projectronpp", "oskl", "omkc_sd",
                                  "bomkc_dd", "klr_aux", "om2", "kogd_reg", "omkr", "raker", "amkl"])
def test_any_split_of_a_stream_gives_the_model_of_one_pass(name, sparse):
    X, y = _data(sparse, regression=REGISTRY[name].task == "regression")
    one = by_name[name](**_kw(name, multi=True), shuffle=False).fit(X, y)      # fit in the given order
    for split in SPLITS:
        est = by_name[name](**_kw(name, multi=True))
        a = 0
        for size in split:
            est.partial_fit(X[a:a + size], y[a:a + size], **({} if is_regressor(est) else
                                                              {"classes": ["a", "b"]}))
            a += size
        np.testing.assert_array_equal(est.predict(X), one.predict(X))
        if hasattr(est, "decision_function"):
            np.testing.assert_array_equal(est.decision_function(X), one.decision_function(X))
        assert est.learner_.t == one.learner_.t == len(y)


@pytest.mark.parametrize("name", ONLINE)
def test_partial_fit_in_halves_equals_fit_for_every_online_learner(name):
    X, y = _data(regression=REGISTRY[name].task == "regression")
    one = by_name[name](**_kw(name), shuffle=False).fit(X, y)              # fit in the given order
    est = by_name[name](**_kw(name)).partial_fit(X[:45], y[:45]).partial_fit(X[45:], y[45:])
    np.testing.assert_array_equal(est.predict(X), one.predict(X))


def test_set_params_between_batches_takes_effect_and_a_new_kernel_waits_for_fit():
    X, y = _data()
    est = olk.estimator("spa", kernel=RBF, random_state=1, beta=20).partial_fit(X[:45], y[:45])
    est.set_params(beta=2, kernel={"type": "linear"}, random_state=5)
    est.partial_fit(X[45:], y[45:])
    ref = olk.algorithms.make("spa", kernel=RBF, random_state=1, beta=20).partial_fit(X[:45], y[:45])
    ref.set_params(beta=2)
    ref.partial_fit(X[45:], y[45:])
    assert est.learner_.beta == 2.0 and est.learner_.kernel.kind == "gaussian"
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
    est.fit(X, y)                                       # the next fit uses the new kernel and seed
    assert est.learner_.kernel.kind == "linear" and est.learner_.random_state == 5
    with pytest.raises(ValueError, match="beta"):       # checked by the registry, one line
        est.set_params(beta=-1).partial_fit(X, y)
    assert est.learner_.beta == 2.0                     # the learner is left as it was


def test_strict_width_and_checks_at_fit():
    X, y = _data()
    est = olk.estimator("pa1", kernel=RBF).fit(X, y)
    with pytest.raises(ValueError, match="X has 4 features, but KernelPA1Classifier is expecting 5"):
        est.predict(X[:, :4])
    with pytest.raises(ValueError, match="X has 6 features"):
        est.partial_fit(np.hstack([X, X[:, :1]]), y)
    bad = olk.estimator("spa", beta=0.5, alpha=1)       # stored as given; refused by the registry at fit
    assert bad.get_params()["beta"] == 0.5
    with pytest.raises(ValueError, match="beta >= alpha") as e:
        bad.fit(X, y)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="unknown algorithm 'spaa'.*did you mean"):
        olk.estimator("spaa")
    assert type(olk.estimator("SPA")).__name__ == "SPAClassifier"
    with pytest.raises(TypeError, match="dense data is required"):
        olk.estimator("kernel_svm").fit(sp.csr_matrix(X), y)


def test_probabilities_for_every_classifier():
    X, y = _data()
    klr = olk.estimator("klr_nc", kernel=RBF).fit(X, y)
    P = klr.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(klr.classes_[(P[:, 1] >= 0.5).astype(int)], klr.predict(X))
    np.testing.assert_allclose(np.exp(klr.predict_log_proba(X)), P)
    # every online binary classifier: the online Platt map fitted on its pass (tests/test_sklearn_probabilities.py)
    spa = olk.estimator("spa", kernel=RBF, random_state=0).fit(X, y)
    f, m = spa.decision_function(X), spa.proba_map_
    z = m["a"] * f / np.sqrt(m["sq"] / m["n"])
    np.testing.assert_allclose(spa.predict_proba(X)[:, 1], 1.0 / (1.0 + np.exp(-z)), rtol=1e-12)
    np.testing.assert_allclose(np.exp(spa.predict_log_proba(X)), spa.predict_proba(X), rtol=1e-12)
    # a batch one: uncalibrated, the sigmoid of its score
    svm = olk.estimator("libsvm", kernel=RBF).fit(X, y)
    f = svm.decision_function(X)
    np.testing.assert_allclose(svm.predict_proba(X)[:, 1], 1.0 / (1.0 + np.exp(-f)), rtol=1e-12)
    # the multi-class ones: uncalibrated, the softmax of their scores
    y3 = np.arange(len(y)) % 3
    mc = olk.estimator("mc_pa1", kernel=RBF).fit(X, y3)
    P3, D3 = mc.predict_proba(X), mc.decision_function(X)
    np.testing.assert_allclose(P3, np.exp(D3) / np.exp(D3).sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_array_equal(mc.classes_[P3.argmax(axis=1)], mc.predict(X))
    assert not hasattr(olk.estimator("libsvm"), "partial_fit")
    assert not hasattr(olk.estimator("raker"), "decision_function")


# ---------------------------------------------------------------------------------- fitted attributes
def _column_scores(learner, X):
    """The learner's own score of every output column: (n, n_cols)."""
    if getattr(learner, "_online", None) is not None:
        learner = learner._online
    if learner.outputs:
        return np.column_stack([learner.decision_function(X, output=o) for o in learner.outputs])
    for per_column in ("classifier_scores", "kernel_predictions", "kernel_scores"):
        if hasattr(learner, per_column):
            return getattr(learner, per_column)(X)
    D = learner.decision_function(X)
    return D if D.ndim == 2 else D[:, None]          # a multi-class learner's K class scores are its columns


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ALL)
def test_the_fitted_attributes_are_the_model(name, sparse):
    cls = REGISTRY[name]
    if sparse and not cls.sparse_input:
        pytest.skip("dense X only")
    est, X, y = _fit(name, sparse, multi=True)
    learner = est.learner_
    names = cls.fitted_names()
    assert set(learner.fitted_attributes()) == set(names)
    assert {n for n in ("support_vectors_", "dual_coef_", "coef_", "kernel_weights_", "intercept_", "n_iter_")
            if hasattr(est, n)} == set(names)
    if cls.max_kernels > 1:
        assert est.kernel_weights_.shape == (len(learner.kernels),)
    if "coef_" in names:                                     # random features: theta, one row per kernel
        assert est.coef_.shape == (len(learner.kernels), 2 * learner.n_rf)
        return
    SV, C = est.support_vectors_, est.dual_coef_
    assert sp.issparse(SV) == sparse and SV.shape == (C.shape[0], X.shape[1])
    inner = learner._online if getattr(learner, "_online", None) is not None else learner
    kernels = inner.kernels
    if C.shape[0] == 0:
        return
    G = kernels.gram(X, SV)
    weights = getattr(learner, "_weights", None)
    if inner is learner and weights is not None:             # an SVM on the weighted kernel combination
        cols = [sum(w * G[j] for j, w in enumerate(weights)) @ C[:, 0]]
    else:
        ck = inner.column_kernels() if hasattr(inner, "column_kernels") else [0] * C.shape[1]
        cols = [G[ck[j] if len(ck) == C.shape[1] else 0] @ C[:, j] for j in range(C.shape[1])]
    F = np.column_stack(cols) + (est.intercept_ if "intercept_" in names else 0.0)
    np.testing.assert_allclose(F, _column_scores(learner, X), rtol=1e-9, atol=1e-9)


def test_support_vectors_follow_removals_in_slot_order():
    X, y = _data(n=200)
    est = olk.estimator("rbp", kernel=RBF, budget=10, random_state=0, shuffle=False).fit(X, y)
    rows = est.learner_.pool.tags - 1                    # RBP tags an SV with its step t: row t - 1
    np.testing.assert_array_equal(est.support_vectors_, X[rows])
    sest = olk.estimator("rbp", kernel=RBF, budget=10, random_state=0, shuffle=False).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sest.support_vectors_.toarray(), X[rows])
    assert sest.support_vectors_.has_sorted_indices


# ------------------------------------------------------------------------------------------ persistence
def _outputs(est, X):
    out = {"predict": est.predict(X)}
    for m in ("decision_function", "predict_proba"):
        if hasattr(est, m):
            out[m] = getattr(est, m)(X)
    return out


@pytest.mark.parametrize("name", ALL)
def test_save_and_load_round_trip_every_estimator_exactly(name, tmp_path):
    sparse = REGISTRY[name].sparse_input
    est, X, y = _fit(name, sparse=sparse)
    path = tmp_path / "m.olk"
    olk.save(est, path)
    again = olk.load(path)
    assert type(again) is type(est) and again.get_params() == est.get_params()
    assert again.n_features_in_ == est.n_features_in_
    before, after = _outputs(est, X), _outputs(again, X)
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=k)
        assert after[k].dtype == before[k].dtype
    thawed = pickle.loads(pickle.dumps(est))
    for k, v in _outputs(thawed, X).items():
        np.testing.assert_array_equal(v, before[k], err_msg=k)
    if hasattr(est, "partial_fit"):                      # continues exactly where it stopped (RNG included)
        X2, y2 = _data(sparse, seed=1, regression=REGISTRY[name].task == "regression")
        est.partial_fit(X2, y2)
        again.partial_fit(X2, y2)
        np.testing.assert_array_equal(again.predict(X), est.predict(X))


def test_a_saved_estimator_keeps_feature_names_and_string_labels(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    est = olk.estimator("perceptron", kernel=RBF).fit(df, y)
    olk.save(est, tmp_path / "p.olk")
    again = olk.load(tmp_path / "p.olk")
    assert again.feature_names_in_.dtype == object and again.feature_names_in_.tolist() == list(df.columns)
    assert again.classes_.tolist() == ["a", "b"]
    np.testing.assert_array_equal(again.predict(df), est.predict(df))


def test_saving_an_unfitted_estimator_or_a_foreign_class_is_a_one_line_error(tmp_path):
    from olk.errors import OlkError
    with pytest.raises(OlkError, match="not fitted; call fit or partial_fit"):
        olk.save(olk.estimator("spa"), tmp_path / "x.olk")

    class Mine(by_class_name["SPAClassifier"]):
        pass
    X, y = _data()
    with pytest.raises(OlkError, match="not one of olk's estimator classes"):
        olk.save(Mine(kernel=RBF).fit(X, y), tmp_path / "x.olk")
    assert issubclass(Mine, OlkEstimator)


def test_an_estimator_file_is_version_2_and_a_learner_file_stays_version_1(tmp_path):
    import json
    X, y = _data()
    olk.save(olk.estimator("pa1").fit(X, y), tmp_path / "e.olk")
    olk.save(olk.algorithms.make("pa1").fit(X, y), tmp_path / "l.olk")
    metas = {}
    for k in ("e", "l"):
        with np.load(tmp_path / f"{k}.olk", allow_pickle=False) as z:
            metas[k] = json.loads(z["__meta__"].tobytes())
    assert metas["e"]["format_version"] == 2 and metas["e"]["estimator"]["class"] == "KernelPA1Classifier"
    assert metas["l"]["format_version"] == 1 and "estimator" not in metas["l"]
    assert type(olk.load(tmp_path / "l.olk")).__name__ == "KernelPA1"


def test_every_estimator_docstring_lists_its_parameters():
    for name, cls in by_name.items():
        doc = cls.__doc__
        first = REGISTRY[name].__doc__.strip().splitlines()[0]
        assert first in doc.splitlines()[0], name
        for p in ["kernel", "random_state"] + [q.name for q in REGISTRY[name].params]:
            assert f"\n{p} : " in doc, (name, p)
        for q in REGISTRY[name].params:
            assert f"default={q.default!r}" in doc and q.doc[:30] in doc, (name, q.name)


@pytest.mark.parametrize("name", ["spa", "omkc_dd"])
def test_a_learner_file_written_before_the_estimators_still_loads(name):
    # written by olk at commit 290b7ce (before olk.estimators): make(name, random_state=0).fit(X, y) on the data below
    here = ROOT / "tests" / "data" / "models"
    m = olk.load(here / f"{name}_format1_before_estimators.olk")
    rng = np.random.default_rng(0)
    X = rng.random((60, 5))
    assert type(m) is REGISTRY[name]
    np.testing.assert_array_equal(m.decision_function(X),
                                  np.load(here / f"{name}_format1_before_estimators.scores.npy"))
    assert set(m.fitted_attributes()) == set(REGISTRY[name].fitted_names())


def _other_value(p):
    """A valid value of Param `p` other than its default (None: none found)."""
    if p.choices:
        return next((c for c in p.choices if c != p.default), None)
    d = p.default
    if isinstance(d, bool):
        return not d
    if d is None or isinstance(d, str):
        return 0.3
    if p.type is int:
        return d + 2
    return d * 0.5 if d else 0.3


@pytest.mark.parametrize("name", ONLINE)
def test_set_params_on_a_learner_equals_building_it_with_the_value(name):
    # what a learner derives from a parameter in __init__ (ln beta, a step, a buffer size) must follow set_params,
    # or the estimator's set_params between partial_fit calls would not take effect
    cls = REGISTRY[name]
    X, y = _data(regression=cls.task == "regression")
    kw = _kw(name, multi=True)
    for p in cls.params:
        v = _other_value(p)
        try:
            expected = cls(**{**kw, p.name: v})
        except olk.errors.ConfigError:
            continue
        got = cls(**kw).set_params(**{p.name: v})
        assert got.hyperparams == expected.hyperparams
        np.testing.assert_array_equal(got.partial_fit(X, y).predict(X), expected.partial_fit(X, y).predict(X),
                                      err_msg=f"{name}.{p.name}={v!r}")


def test_the_estimator_classes_are_importable_documented_and_made_without_exec():
    """The classes are attributes of olk.estimators (import, pickle), docs/estimators.md lists every one of them
    (generated by ``catalogue()``), and ``__init__`` is one function with a real signature (no generated source)."""
    import inspect
    import pickle
    from pathlib import Path

    import olk.estimators as est
    from olk.estimators import SPAClassifier
    doc = (Path(__file__).resolve().parents[1] / "docs" / "estimators.md").read_text()
    assert est.catalogue() in doc, "docs/estimators.md is stale: regenerate it from olk.estimators.catalogue()"
    for name, cls in est.by_name.items():
        if not REGISTRY[name].__module__.startswith("olk."):
            continue
        assert getattr(est, cls.__name__) is cls and cls.__name__ in est.__all__ and f"`{cls.__name__}`" in doc
    assert list(inspect.signature(SPAClassifier).parameters)[:2] == ["kernel", "random_state"]
    assert type(pickle.loads(pickle.dumps(SPAClassifier(beta=3)))) is SPAClassifier
    with pytest.raises(TypeError, match="SPAClassifier.__init__.. got an unexpected keyword argument 'bta'"):
        SPAClassifier(bta=3)
    assert "exec(" not in (Path(est.__file__).read_text())


def test_model_files_written_before_the_family_subpackages_still_load():
    """Written by olk at commit edccae7, before the learner modules moved into family subpackages: a Forgetron
    (which holds a value type, ForgetronState, named by its old module) and a fitted SPA estimator, trained on the
    first 300 rows of a9a-small (gaussian, gamma 0.4; budget 50); their scores on rows 300-399 were saved then."""
    from olk.data import load_dataset
    here = ROOT / "tests" / "data" / "models"
    d = load_dataset("a9a-small")
    m, e = olk.load(here / "forgetron_before_families.olk"), olk.load(here / "spa_estimator_before_families.olk")
    assert type(m) is REGISTRY["forgetron"] and type(e).__name__ == "SPAClassifier"
    scores = np.r_[m.decision_function(d.X[300:400]), e.decision_function(d.X[300:400])]
    np.testing.assert_array_equal(scores, np.load(here / "before_families.scores.npy"))


# ------------------------------------------------------------------ SVC-style kernel arguments (issue 35)
def test_svc_style_kernel_arguments_are_grid_searchable():
    """kernel='rbf' | 'poly' | 'linear' with top-level gamma / degree / coef0, as scikit-learn's SVC: a grid over
    gamma and C works, and its best estimator is the learner of the kernel dict those values name."""
    from sklearn.model_selection import GridSearchCV
    X, y = _data()
    gs = GridSearchCV(olk.estimator("pa1", random_state=0, shuffle=False), {"gamma": [0.05, 0.5], "C": [0.1, 1.0]},
                      cv=3).fit(X, y)
    best = gs.best_params_
    assert set(best) == {"gamma", "C"}
    ref = olk.algorithms.make("pa1", kernel={"type": "gaussian", "gamma": best["gamma"]}, C=best["C"]).fit(X, y)
    np.testing.assert_array_equal(gs.best_estimator_.decision_function(X), ref.decision_function(X))
    poly = olk.estimator("perceptron", kernel="poly", gamma=0.5, degree=2, coef0=1.0).fit(X, y)
    k = poly.learner_.kernel
    assert (k.kind, k.params()["gamma"], k.params()["degree"], k.params()["coef0"]) == ("polynomial", 0.5, 2, 1.0)
    # SVC's convention: a value the kernel has no use for is ignored (degree for 'rbf', gamma for 'linear')
    assert olk.estimator("perceptron", kernel="linear", gamma=3.0).fit(X, y).learner_.kernel.kind == "linear"
    # the dict form is still accepted, and gamma='scale' (the default) leaves it as it is
    assert olk.estimator("perceptron", kernel=RBF).fit(X, y).learner_.kernel.params()["gamma"] == 0.5


def test_gamma_scale_is_svcs_width():
    """The default gamma='scale': 1 / (n_features Var(X)) of the first fit's data, as SVC."""
    X, y = _data()
    est = olk.estimator("perceptron").fit(X, y)
    assert est.learner_.kernel.kind == "gaussian"
    assert est.learner_.kernel.params()["gamma"] == pytest.approx(1.0 / (X.shape[1] * X.var()), rel=1e-12)
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    est = olk.estimator("perceptron").fit(Xs, y)
    assert est.learner_.kernel.params()["gamma"] == pytest.approx(1.0 / (X.shape[1] * Xs.toarray().var()), rel=1e-12)


@pytest.mark.parametrize("kwargs, words", [
    ({"kernel": "rbff"}, "rbff"),
    ({"kernel": RBF, "gamma": 0.3}, "gamma=0.3 is a value of a kernel named by its type"),
    ({"kernel": "rbf", "gamma": -1.0}, "gamma"),
    ({"kernel": "poly", "degree": "two"}, "degree"),
])
def test_a_bad_svc_style_kernel_argument_is_a_one_line_error(kwargs, words):
    X, y = _data()
    with pytest.raises(ValueError, match=words) as e:
        olk.estimator("perceptron", **kwargs).fit(X, y)
    assert "\n" not in str(e.value)


def test_an_svc_style_kernel_is_checked_once(monkeypatch):
    """svc_kernel builds the spec, KernelSet.of (surface_kernel) checks it once naming the estimator's parameter,
    and the learner takes the checked KernelSet as it is."""
    import olk.kernels
    calls = []
    make = olk.kernels.make_kernel
    monkeypatch.setattr(olk.kernels, "make_kernel", lambda *a, **k: calls.append(a) or make(*a, **k))
    X, y = _data()
    est = olk.estimator("perceptron", kernel="poly", gamma=0.5, degree=2)
    learner = est._new_learner(X)               # what fit builds (its tags peek at the kernel too, errors ignored)
    assert len(calls) == 1 and calls[0][1] == "KernelPerceptronClassifier.kernel"
    assert (learner.kernel.kind, learner.kernel.params()["degree"]) == ("polynomial", 2)
    calls.clear()
    R = pytest.importorskip("olk.river")
    R.KernelPerceptronClassifier(kernel="rbf", gamma=0.5)
    assert [c[1] for c in calls] == ["olk.river.KernelPerceptronClassifier.kernel"]


def test_the_learners_own_gamma_keeps_its_name_and_the_kernels_is_kernel_gamma():
    """klr_aux has a parameter gamma of its own: the kernel's width is kernel_gamma there."""
    est = olk.estimator("klr_aux")
    params = est.get_params()
    assert "gamma" in params and "kernel_gamma" in params and params["kernel_gamma"] == "scale"
