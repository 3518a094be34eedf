"""olk's online learners inside River (issue 28, part 4): ``olk.river``.

* the classes are real River estimators: River's own ``check_estimator`` passes on every class with its default
  parameters;
* ``progressive_val_score`` on River's bundled Phishing stream gives, example for example, the predictions of the
  olk learner the experiment engine runs (its ``step`` on the same rows);
* new feature keys mid-stream: a kernel learner's predictions are those of a stream that declared the key from
  the start with value 0; a random-feature learner refuses a new key in one line;
* labels (bool, str, ints), bad values and parameters: one-line errors naming the key;
* every registered online learner has its class, and ``import olk.river`` without River says how to install it.
"""
from __future__ import annotations

import math
import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

river = pytest.importorskip("river")

from river import datasets, evaluate, metrics, preprocessing  # noqa: E402
from river.checks import check_estimator  # noqa: E402

import olk.river as R  # noqa: E402
from olk.algorithms import REGISTRY, available, make  # noqa: E402
from olk.algorithms.surface import kernel_arg_names  # noqa: E402

RBF = {"type": "gaussian", "gamma": 1.0}


def _one_line(e) -> str:
    msg = str(e.value)
    assert "\n" not in msg
    return msg


# ------------------------------------------------------------------------------------------ River's own checks
@pytest.mark.parametrize("name", sorted(R.by_name))
def test_river_check_estimator_with_defaults(name):
    """River's own suite on every class with its DEFAULT parameters (seed=0 fixes a stochastic learner's draws):
    ~1 s each."""
    check_estimator(R.by_name[name](seed=0))


# ------------------------------------------------------------------------------------- progressive validation
def _phishing_rows(model_columns):
    """Phishing as a CSR matrix in the columns the model gave its keys, labels as ±1."""
    rows, ys = [], []
    for x, y in datasets.Phishing():
        rows.append({model_columns[k]: float(v) for k, v in x.items() if v != 0})
        ys.append(1.0 if y else -1.0)
    X = sp.lil_matrix((len(rows), len(model_columns)))
    for i, r in enumerate(rows):
        for j, v in r.items():
            X[i, j] = v
    return X.tocsr(), np.array(ys)


# binary classifiers: the multi-class learners keep K classes (their own test below)
CLASSIFIERS = [n for n in available()
               if not REGISTRY[n].batch and REGISTRY[n].task not in ("regression", "multiclass")]


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_progressive_validation_is_the_engines_online_pass(name):
    # River predicts each example before learning it; the learner's step returns the score it predicts with
    # before its update: the same protocol, so the predictions agree example for example, for every online
    # classifier.  (An averaged output is the exception, so output="last" here: the papers' online score at step
    # t averages the classifiers up to f_t, which only step knows; predict_one is the averaged classifier of the
    # examples so far: the next test.)  The whole stream for a few learners, its first 300 examples for the rest.
    cls = R.by_name[name]
    kw = {"output": "last"} if REGISTRY[name].outputs else {}
    kernel = "spa16" if REGISTRY[name].max_kernels > 1 else RBF
    n = 1250 if name in ("spa", "bpas", "klr_nc", "omkc_dd") else 300
    if any(p.name == "horizon" for p in REGISTRY[name].params):
        kw["horizon"] = n
    model = cls(kernel=kernel, seed=0, **kw)
    preds = []

    class Recorder(metrics.Accuracy):
        def update(self, y_true, y_pred, w=1.0):
            preds.append(y_pred)
            super().update(y_true, y_pred, w)

    metric = Recorder()
    evaluate.progressive_val_score(datasets.Phishing().take(n), model, metric)
    X, y = _phishing_rows(model.columns)
    X, y = X[:n], y[:n]
    learner = make(name, kernel=kernel, random_state=0, **kw)
    learner.bind(X)
    engine = [learner.step(i, yi) >= 0.0 for i, yi in enumerate(y.tolist())]
    assert len(preds) == len(engine) == n
    assert preds == engine
    assert metric.get() == np.mean(np.array(engine) == (y > 0))
    assert model.learner.n_sv == learner.n_sv and model.learner.n_updates == learner.n_updates
    assert 0.6 < metric.get()                                # it learns (Phishing: 55% of one class)


def test_the_streamed_model_is_the_model_of_partial_fit():
    # SPA's default averaged output: after River's stream the model is the learner's one pass over the rows
    model = R.SPAClassifier(kernel=RBF, beta=5, seed=0)
    evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    X, y = _phishing_rows(model.columns)
    batch = make("spa", kernel=RBF, beta=5, random_state=0).partial_fit(X, y)
    assert np.array_equal(model.learner.decision_function(X), batch.decision_function(X))
    assert model.learner.n_sv == batch.n_sv > 0
    assert 0.85 < np.mean(model.learner.predict(X) == (y > 0)) < 1.0      # it learned Phishing (labels False/True)


def test_probabilities_and_a_pipeline():
    model = preprocessing.StandardScaler() | R.NCClassifier(kernel={"type": "gaussian", "gamma": 0.1}, seed=0)
    auc = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.ROCAUC()).get()
    assert 0.85 < auc < 1.0
    nc = model["NCClassifier"]
    x = {"is_popular": 1.0, "https": 1.0}
    p = nc.predict_proba_one(x)
    assert set(p) == {False, True} and math.isclose(sum(p.values()), 1.0)
    f = nc.learner.decision_one(nc._row(x))
    # the online Platt map of the KLR log-odds (fitted through the stream), the learner's own sigmoid(f) underneath
    assert nc._platt.n == 1250 and p[True] == nc._platt.proba(f)
    assert nc.learner.predict_proba_one(nc._row(x))[1.0] == pytest.approx(1.0 / (1.0 + math.exp(-f)), rel=1e-12)
    assert nc.predict_one(x) == (f >= 0)
    spa = R.SPAClassifier(seed=0)                                      # uncalibrated: the sigmoid of the margin
    spa.learn_one(x, True)
    spa.learn_one({"is_popular": -1.0}, False)
    p, f = spa.predict_proba_one(x), spa.learner.decision_one(spa._row(x))
    assert p[True] == pytest.approx(1.0 / (1.0 + math.exp(-f)), rel=1e-12) and p[False] == pytest.approx(1 - p[True])


# --------------------------------------------------------------------------------------------- feature keys
def _stream(n=120, seed=3):
    rng = np.random.default_rng(seed)
    for t in range(n):
        x = {"a": float(rng.normal()), "b": float(rng.normal())}
        if t >= 40:                                          # 'c' appears at example 40
            x["c"] = float(rng.normal())
        yield x, bool(x["a"] + 0.5 * x.get("c", 0.0) > 0)


@pytest.mark.parametrize("name", ["spa", "perceptron", "projectron", "omkc_dd", "klr_margin"])
def test_new_feature_keys_mid_stream(name):
    # a kernel learner that meets 'c' at example 40 predicts exactly as one told from the start that c = 0
    cls = R.by_name[name]
    kernel = "spa16" if REGISTRY[name].max_kernels > 1 else RBF
    late, early = cls(kernel=kernel, seed=0), cls(kernel=kernel, seed=0)
    for x, y in _stream():
        full = {"a": x["a"], "b": x["b"], "c": x.get("c", 0.0)}
        assert late.predict_one(x) == early.predict_one(full)
        late.learn_one(x, y)
        early.learn_one(full, y)
    assert late.columns == early.columns == {"a": 0, "b": 1, "c": 2}
    assert late.learner.n_sv == early.learner.n_sv > 0
    probe = {"a": 0.3, "b": -1.0, "c": 0.7, "d": 2.0}       # 'd': never learned from, 0 in every SV
    assert late.learner.decision_one(late._row(probe)) == early.learner.decision_one(early._row(probe))


def test_the_order_of_a_dicts_keys_does_not_matter():
    a, b = R.SPAClassifier(seed=0), R.SPAClassifier(seed=0)
    for x, y in _stream():
        rev = dict(reversed(list(x.items())))
        assert a.predict_one(x) == b.predict_one(rev)
        a.learn_one(x, y)
        b.learn_one(rev, y)
    assert a.columns == b.columns


def test_random_features_cannot_widen_after_their_first_example():
    m = R.RakerRegressor(horizon=100, seed=0)
    m.predict_one({"u": 1.0, "v": 2.0, "w": 0.5})          # keys seen before the first learn_one count
    m.learn_one({"u": 1.0, "v": 2.0}, 3.0)
    m.learn_one({"w": 1.0}, 1.0)
    with pytest.raises(ValueError) as e:
        m.learn_one({"u": 1.0, "z": 1.0}, 1.0)
    assert "feature 'z' is new" in _one_line(e) and "widens = False" in str(e.value) and "3 features" in str(e.value)
    with pytest.raises(ValueError, match="feature 'z' is new"):
        m.predict_one({"z": 1.0})
    assert m.columns == {"u": 0, "v": 1, "w": 2}             # the refused example changed nothing
    assert m.learner.t == 2


# ----------------------------------------------------------------------------------------------------- labels
def test_string_labels_map_through_classes():
    m = R.KernelPA1Classifier(kernel=RBF)
    assert m.predict_one({"a": 1.0}) in (False, True)        # no label yet: River's binary convention
    m.learn_one({"a": 1.0}, "spam")
    assert m.predict_one({"a": -1.0}) == "spam"              # one label seen: the only one it knows
    m.learn_one({"a": -1.0}, "ham")
    assert m.learner.classes_.tolist() == ["spam", "ham"]    # first seen: the -1 side
    for _ in range(5):
        m.learn_one({"a": 1.0}, "spam")
        m.learn_one({"a": -1.0}, "ham")
    assert m.predict_one({"a": 1.0}) == "spam" and m.predict_one({"a": -1.0}) == "ham"
    assert type(m.predict_one({"a": 1.0})) is str
    with pytest.raises(ValueError) as e:
        m.learn_one({"a": 1.0}, "eggs")
    assert "label 'eggs' is neither of its two labels ('spam', 'ham')" in _one_line(e)


@pytest.mark.parametrize("labels,classes", [((True, False), [False, True]), ((1, -1), [-1, 1]),
                                            ((-1, 1), [-1, 1]), ((0, 1), [0, 1]), ((1, 0), [0, 1]),
                                            ((2.0, 1.0), [2.0, 1.0]), (("b", "a"), ["b", "a"])])
def test_labels_that_name_their_side(labels, classes):
    m = R.KernelPerceptronClassifier(kernel=RBF)
    m.learn_one({"a": 1.0}, np.bool_(labels[0]) if isinstance(labels[0], bool) else labels[0])
    m.learn_one({"a": -1.0}, labels[1])
    assert m.learner.classes_.tolist() == classes
    assert m.predict_one({"a": 1.0}) == labels[0] and type(m.predict_one({"a": 1.0})) is type(labels[0])


def test_regressor_targets():
    m = R.KernelOGDRegressor(step_size="sqrt_t")
    m.learn_one({"a": 1.0}, 2)
    assert isinstance(m.predict_one({"a": 1.0}), float)
    for bad in ("x", None, float("nan"), True):
        with pytest.raises(ValueError) as e:
            m.learn_one({"a": 1.0}, bad)
        assert "target" in _one_line(e)


# ------------------------------------------------------------------------------------------------ bad inputs
@pytest.mark.parametrize("x,words", [
    ({"a": 1.0, "colour": "red"}, ["feature 'colour'", "OneHotEncoder"]),
    ({"a": None}, ["feature 'a'", "None"]),
    ({"a": float("nan")}, ["feature 'a'", "StatImputer"]),
    ({"a": math.inf}, ["feature 'a'", "inf"]),
    ([1.0, 2.0], ["x must be a dict"]),
])
def test_bad_examples_are_one_line_errors_naming_the_key(x, words):
    m = R.SPAClassifier(seed=0)
    m.learn_one({"a": 1.0}, True)
    for method in (lambda: m.learn_one(x, True), lambda: m.predict_one(x)):
        with pytest.raises(ValueError) as e:
            method()
        assert all(w in _one_line(e) for w in words), str(e.value)
    assert m.columns == {"a": 0} and m.learner.t == 1


def test_chi2_kernel_needs_non_negative_features():
    m = R.KernelPerceptronClassifier(kernel="chi2")
    assert "positive input" in m._tags
    with pytest.raises(ValueError) as e:
        m.learn_one({"a": 1.0, "b": -2.0}, True)
    assert "feature 'b' is -2.0" in _one_line(e) and "MinMaxScaler" in str(e.value)


@pytest.mark.parametrize("kw,words", [
    ({"beta": -1}, ["olk.river.SPAClassifier.beta", "> 0"]),
    ({"bta": 1}, ["unknown parameter 'bta'", "did you mean 'beta'"]),
    ({"seed": "x"}, ["seed must be None or an int"]),
    ({"output": "mean"}, ["olk.river.SPAClassifier.output", "avg"]),
    ({"kernel": {"type": "gausian"}}, ["did you mean 'gaussian'"]),
    ({"kernel": {"type": "linear", "view": [0, 2]}}, ["reads a view", "without a view"]),
])
def test_bad_parameters_are_one_line_errors(kw, words):
    with pytest.raises((ValueError, TypeError)) as e:
        R.SPAClassifier(**kw)
    assert all(w in _one_line(e) for w in words), str(e.value)


# ---------------------------------------------------------------------------------------- every learner's class
ONLINE = [n for n in available() if not REGISTRY[n].batch]


def test_one_class_per_online_learner():
    assert sorted(R.by_name) == sorted(n for n in ONLINE if n in R.by_name) == sorted(ONLINE)
    assert {"SPAClassifier", "KernelPerceptronClassifier", "KernelPA1Classifier", "RakerRegressor",
            "KernelOGDRegressor", "NCClassifier", "MulticlassPA1Classifier"} <= set(R.__all__)
    for name, cls in R.by_name.items():
        assert getattr(R, cls.__name__) is cls and cls.__module__ == "olk.river"
        regression = REGISTRY[name].task == "regression"
        assert issubclass(cls, river.base.Regressor if regression else river.base.Classifier)
        assert f"``{name}``" in cls.__doc__


def test_one_name_per_learner_in_scikit_learn_river_and_olk_algorithms(capsys):
    """The one naming rule: the River class of a learner has its scikit-learn class's name (surface_class_name),
    ``olk algorithms`` prints both with the registry id and the learner class, and every generated class is
    findable: its module's attribute of its ``__qualname__``, listed on the class catalogue page."""
    import importlib
    from pathlib import Path

    import olk.estimators as E
    from olk.algorithms.surface import surface_class_name
    from olk.cli import main
    assert (E.by_name["perceptron"].__name__, R.by_name["perceptron"].__name__) == ("KernelPerceptronClassifier",) * 2
    assert R.by_name["kogd_reg"].__name__ == E.by_name["kogd_reg"].__name__ == "KernelOGDRegressor"
    doc = (Path(__file__).resolve().parents[1] / "docs" / "estimators.md").read_text()
    for name in ONLINE:
        assert R.by_name[name].__name__ == E.by_name[name].__name__ == surface_class_name(REGISTRY[name])
    for cls in [*E.by_name.values(), *R.by_name.values()]:
        assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls
        if REGISTRY[cls._learner_name].__module__.startswith("olk."):
            assert f"`{cls.__module__}.{cls.__qualname__}`" in doc or f"| `{cls.__qualname__}` |" in doc
    assert main(["algorithms", "klr_nc", "alsvm"]) in (0, None)
    out = capsys.readouterr().out
    assert ("classes: learner olk.algorithms.klr.klr_nc.NC | scikit-learn olk.estimators.NCClassifier | River "
            "olk.river.NCClassifier") in out
    assert "scikit-learn olk.estimators.AlSVMClassifier | River none (batch)" in out


def test_the_former_river_names_still_work_with_a_deprecation_warning():
    m = R.KernelPerceptronClassifier(kernel=RBF, seed=0)
    m.learn_one({"a": 1.0}, True)
    with pytest.warns(DeprecationWarning, match=r"river\.Perceptron is now olk\.river\.KernelPerceptronClassifier"):
        assert R.Perceptron is R.KernelPerceptronClassifier
    with pytest.warns(DeprecationWarning, match="OGDRegression is now olk.river.KernelOGDRegressor"):
        from olk.river import OGDRegression
    assert OGDRegression is R.KernelOGDRegressor
    cls = R.KernelPerceptronClassifier
    try:                                                # a pickle made before the rename names the class Perceptron
        cls.__qualname__ = "Perceptron"
        with pytest.warns(DeprecationWarning):
            old = pickle.dumps(m)
    finally:
        cls.__qualname__ = "KernelPerceptronClassifier"
    assert b"Perceptron" in old and b"KernelPerceptronClassifier" not in old
    with pytest.warns(DeprecationWarning, match="Perceptron is now"):
        again = pickle.loads(old)
    assert type(again) is R.KernelPerceptronClassifier and again.predict_one({"a": 1.0}) is True
    with pytest.raises(AttributeError, match="has no attribute 'Nonesuch'"):
        R.Nonesuch  # noqa: B018


@pytest.mark.parametrize("name", ONLINE)
def test_every_adapter_learns_predicts_clones_and_pickles(name):
    cls, lcls = R.by_name[name], REGISTRY[name]
    kw = {"horizon": 60} if any(p.name == "horizon" for p in lcls.params) else {}
    m = cls(kernel=RBF, seed=0, **kw)
    kargs = list(kernel_arg_names(lcls).values())           # the SVC-style kernel values: gamma, degree, coef0
    assert list(m._get_params()) == ["kernel", "seed", *kargs, *[p.name for p in lcls.params]]
    assert all(m._get_params()[p.name] == p.default for p in lcls.params if p.name not in kw)
    regression = lcls.task == "regression"
    if not regression:
        assert m._multiclass is (lcls.task == "multiclass")
    rng = np.random.default_rng(0)
    for _ in range(60):
        x = {"f1": float(rng.normal()), "f2": float(rng.normal())}
        y = x["f1"] - x["f2"] if regression else x["f1"] > 0
        m.predict_one(x)
        m.learn_one(x, y)
    assert m.learner.t == 60
    x = {"f1": 0.5, "f2": -0.2}
    again = pickle.loads(pickle.dumps(m))
    assert again.predict_one(x) == m.predict_one(x)
    fresh = m.clone()
    assert fresh.learner.t == 0 and fresh.columns == {} and fresh._get_params() == m._get_params()
    if not regression:                          # every classifier: probabilities summing to 1, argmax = prediction
        p = m.predict_proba_one(x)
        assert set(p) == set(m.learner.classes_) and math.isclose(sum(p.values()), 1.0)
        assert max(p, key=p.get) == m.predict_one(x) or math.isclose(max(p.values()), min(p.values()))


def test_clone_with_new_parameters_builds_a_new_learner():
    m = R.SPAClassifier(kernel=RBF, beta=5, seed=0)
    c = m.clone({"beta": 7.0})
    assert c.beta == 7.0 and c.learner.beta == 7.0 and m.learner.beta == 5.0


def test_olk_works_without_river_and_olk_river_says_how_to_install_it():
    # import olk (and its scikit-learn surface) never imports River; then a finder that answers for River as Python
    # does for a package that is not installed
    code = ("import sys\n"
            "import olk, olk.estimators, olk.algorithms\n"
            "print('river' in sys.modules)\n"
            "class NoRiver:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'river':\n"
            "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
            "sys.meta_path.insert(0, NoRiver())\n"
            "try:\n    import olk.river\nexcept ImportError as e:\n    print('ERR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["False", 'ERR olk.river needs River, which is not installed: pip install river (or, in '
                                         'a clone of olk, pip install ".[river]")']


# ------------------------------------------------------------------------------------------------ multi-class
def test_multiclass_learners_are_river_multiclass_classifiers_on_a_bundled_stream():
    """The multi-class learners (task ``multiclass``) are River multi-class classifiers: no prediction before the
    first label (River's convention: None), then the learner's argmax class; progressive validation on River's
    bundled ImageSegments (7 classes) matches the learner's own online pass example by example."""
    from river import datasets, metrics

    from olk.algorithms import make
    rows = list(datasets.ImageSegments())[:400]
    keys = sorted(rows[0][0])
    for name in ("mc_perceptron", "mc_pa1"):
        model = R.by_name[name](kernel={"type": "gaussian", "gamma": 1e-4})
        assert model._multiclass and model.predict_one(rows[0][0]) is None
        learner = make(name, kernel={"type": "gaussian", "gamma": 1e-4})
        acc = metrics.Accuracy()
        for x, y in rows:
            p = model.predict_one(x)
            row = np.array([[float(x[k]) for k in keys]])
            if learner.classes_ is not None:
                assert p == learner.predict_one(row[0]), name
            acc.update(y, p)
            model.learn_one(x, y)
            learner.learn_one(row[0], y)
        assert acc.get() > 0.5, (name, acc.get())


def test_svc_style_kernel_arguments():
    """kernel='rbf' | 'poly' | 'linear' with top-level gamma / degree / coef0, as in olk.estimators (no 'scale':
    River has no data at construction); anything else one line."""
    m = R.KernelPerceptronClassifier(kernel="poly", gamma=0.5, degree=2, coef0=1.0)
    m.learn_one({"a": 1.0, "b": 0.0}, True)
    k = m.learner.kernel
    assert (k.kind, k.params()["gamma"], k.params()["degree"], k.params()["coef0"]) == ("polynomial", 0.5, 2, 1.0)
    m = R.KernelPerceptronClassifier(kernel="rbf", gamma=0.25)
    m.learn_one({"a": 1.0}, True)
    assert m.learner.kernel.params()["gamma"] == 0.25
    with pytest.raises(ValueError) as e:
        R.KernelPerceptronClassifier(kernel=RBF, gamma=0.3).learn_one({"a": 1.0}, True)
    assert "gamma=0.3" in _one_line(e)


@pytest.mark.parametrize("name", sorted(n for n in ONLINE if REGISTRY[n].task != "regression"))
def test_rocauc_and_logloss_in_progressive_validation_for_every_classifier(name):
    """River's ROCAUC and LogLoss (CrossEntropy for a multi-class model) need predict_proba_one: every classifier
    has it (its defaults; how good the value is depends on the kernel width, below)."""
    stream = list(datasets.Phishing())[:100]
    if REGISTRY[name].task == "multiclass":
        stream = [(x, int(y) + (x["is_popular"] > 0.5)) for x, y in stream]    # three classes
    multiclass = REGISTRY[name].task == "multiclass"
    for metric in [metrics.CrossEntropy()] if multiclass else [metrics.ROCAUC(), metrics.LogLoss()]:
        model = preprocessing.StandardScaler() | R.by_name[name](seed=0)
        value = evaluate.progressive_val_score(stream, model, metric).get()
        assert math.isfinite(value) and (0.0 <= value <= 1.0 if isinstance(metric, metrics.ROCAUC) else
                                         0.0 < value < 5.0), (metric, value)


CLASSIFIERS = sorted(n for n in ONLINE if REGISTRY[n].task != "regression")


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_the_most_probable_label_is_the_prediction_on_every_example(name):
    """argmax(predict_proba_one(x)) == predict_one(x) for every classifier on every example (issue 47): River's own
    ``Classifier.predict_one`` is that argmax, and ``progressive_val_score`` reads the label from predict_proba_one
    as soon as a probability metric is in the mix, so Accuracy() + ROCAUC() must score the model predict_one
    scores.  Default parameters (Gaussian gamma = 1: on standardised features most scores are tiny, so ties to
    the last bit are frequent: the hard case), progressive validation's order (the probability maps learn), the
    first examples (no support vector: f = 0, sign(0) = +1), and for a binary model string labels too (one label
    seen: {that label: 1.0})."""
    multiclass = REGISTRY[name].task == "multiclass"
    stream = list(datasets.ImageSegments() if multiclass else datasets.Phishing())[:200]
    runs = [stream] if multiclass else [stream, [(x, "phish" if y else "ok") for x, y in stream[3:]]]
    for run in runs:
        model = preprocessing.StandardScaler() | R.by_name[name](seed=0)
        m, scaler = model[R.by_name[name].__name__], model["StandardScaler"]
        seen = set()
        for i, (x, y) in enumerate(run):
            p, label = model.predict_proba_one(x), model.predict_one(x)
            if p:
                assert max(p, key=p.get) == label, (name, i, p, label)
                assert river.base.Classifier.predict_one(m, scaler.transform_one(x)) == label
                assert math.isclose(sum(p.values()), 1.0)
            else:
                assert multiclass and not seen and label is None
            model.learn_one(x, y)
            seen.add(y)


def test_accuracy_is_the_same_with_and_without_a_probability_metric():
    """The issue's case: Accuracy() + ROCAUC() + LogLoss() on Phishing gives predict_one's accuracy (it gave 66.56%
    against 79.28% for SPA when Platt's intercept moved the 0.5 point off f = 0)."""
    for name in ["spa", "klr_nc"]:
        alone = evaluate.progressive_val_score(datasets.Phishing(), preprocessing.StandardScaler() |
                                               R.by_name[name](seed=0), metrics.Accuracy())
        mixed = evaluate.progressive_val_score(datasets.Phishing(), preprocessing.StandardScaler() |
                                               R.by_name[name](seed=0),
                                               metrics.Accuracy() + metrics.ROCAUC() + metrics.LogLoss())
        assert mixed[0].get() == alone.get(), (name, mixed, alone)


def test_the_online_platt_map_learns_on_progressive_validation_and_keeps_the_ranking():
    model = preprocessing.StandardScaler() | R.KernelPerceptronClassifier(kernel="rbf", gamma=0.1, seed=0)
    auc = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.ROCAUC()).get()
    assert auc > 0.85                       # River's PAClassifier: 0.91; the plain sigmoid of the margin: 0.65
    m = model["KernelPerceptronClassifier"]
    platt = m._platt
    assert platt.n == 1250 and platt.a > 0.0
    xs = [dict(x) for x, _ in list(datasets.Phishing())[:50]]
    f = [m.learner.decision_one(m._row(x)) for x in xs]
    p = [m.predict_proba_one(x)[True] for x in xs]
    assert all((fi < fj) <= (pi <= pj) for fi, pi in zip(f, p) for fj, pj in zip(f, p))     # monotone in f
    # before any predict_proba_one, learn_one leaves the map alone (an accuracy-only user pays nothing for it)
    fresh = R.KernelPerceptronClassifier(seed=0)
    for x, y in list(datasets.Phishing())[:20]:
        fresh.learn_one(x, y)
    assert fresh._platt.n == 0


@pytest.mark.parametrize("name", ["klr_nc", "klr_margin", "klr_aux"])
def test_the_klr_learners_give_useful_probabilities_at_their_defaults(name):
    """Issue 47: at their defaults (step 0.1, averaged output, Gaussian gamma = 1) the online KLR learners' own
    log-odds are shrunk towards 0 (90% of NC's sigmoid(f) in 0.450-0.529 on Phishing: River ROCAUC 54.5%, LogLoss
    0.667 = ln 2 at 89.7% accuracy).  The River surface maps them through the online Platt fit like every binary
    classifier: ROCAUC above 0.90 and LogLoss below 0.40 on River's bundled Phishing (measured 93.7% / 0.349 for
    NC, 93.5% / 0.355 Margin, 92.2% / 0.387 Auxiliary), probabilities spread over most of [0, 1], the accuracy
    unchanged, and the learner's own sigmoid(f) still underneath."""
    model = preprocessing.StandardScaler() | R.by_name[name](seed=0)
    auc, loss, acc = metrics.ROCAUC(), metrics.LogLoss(), metrics.Accuracy()
    p_true = []
    for x, y in datasets.Phishing():
        p = model.predict_proba_one(x)
        auc.update(y, p)
        loss.update(y, p)
        acc.update(y, model.predict_one(x))
        p_true.append(p[True])
        model.learn_one(x, y)
    lo, hi = np.quantile(p_true, [0.05, 0.95])
    assert auc.get() > 0.90 and loss.get() < 0.40, (auc, loss)
    assert lo < 0.15 and hi > 0.85, (lo, hi)
    assert acc.get() > 0.87
    m = model[R.by_name[name].__name__]
    x = model["StandardScaler"].transform_one(next(iter(datasets.Phishing()))[0])
    f = m.learner.decision_one(m._row(x))
    assert m.learner.predict_proba_one(m._row(x))[1.0] == pytest.approx(1.0 / (1.0 + math.exp(-f)))


def test_the_probability_maps_survive_scores_whose_mean_square_underflows():
    """Far from every support vector (gamma = 1 on standardised features) the scores can be ~1e-162: their mean
    square is positive but sq / n rounds to 0; the maps then leave the scores unscaled instead of dividing by 0
    (a ZeroDivisionError for the binary map, inf / nan probabilities with a RuntimeWarning for the multi-class one)."""
    import warnings

    from olk.tasks import OnlinePlatt, OnlineTemperature
    platt, temp = OnlinePlatt(), OnlineTemperature()
    platt.n, platt.sq, temp.n, temp.sq = 4, 5e-324, 4, 5e-324          # sq > 0, sq / n == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert platt.proba(0.0) == 0.5 and platt.proba(1e-300) >= 0.5
        platt.learn(1e-300, True)
        p = temp.proba(np.array([1e-170, 0.0, -1e-170]))
        temp.learn(np.array([1e-170, 0.0, -1e-170]), 0)
    assert np.isfinite(p).all() and math.isclose(p.sum(), 1.0) and int(p.argmax()) == 0


def test_multiclass_probabilities_are_an_online_temperature_scaling():
    """A multi-class model's predict_proba_one: the softmax of its class scores under an online temperature
    (OnlineTemperature) fitted by learn_one on ImageSegments through progressive validation: it sums to 1, keeps
    the argmax (the prediction), increases with a class's own score, and its log loss (River's multi-class one,
    CrossEntropy; LogLoss is River's binary one) beats the plain softmax's."""
    from olk.tasks import OnlineTemperature
    stream = list(datasets.ImageSegments())[:600]

    def run(fit):
        model = preprocessing.StandardScaler() | R.MulticlassPA1Classifier(kernel="rbf", gamma=0.1)
        m = model["MulticlassPA1Classifier"]
        if not fit:
            m._temperature.learn = lambda s, c: None      # the plain softmax of the scores, as before the map
        return evaluate.progressive_val_score(stream, model, metrics.CrossEntropy()).get(), m, model

    (loss, m, model), (loss0, m0, _) = run(True), run(False)
    t = m._temperature
    assert t.n > 550 and t.a != 1.0 and m0._temperature.a == 1.0
    assert loss < 0.8 * loss0, (loss, loss0)
    for x, _ in stream[:30]:
        x = model["StandardScaler"].transform_one(x)
        p, s = m.predict_proba_one(x), m._score(x)
        assert math.isclose(sum(p.values()), 1.0) and max(p, key=p.get) == m.predict_one(x)
        assert [p[c] for c in m.learner.classes_] == t.proba(s).tolist()
    s = np.array([0.2, -0.4, 1.0, 0.1])
    for c in range(4):                                  # monotone in the class's own score, the others fixed
        up = [t.proba(np.where(np.arange(4) == c, s + d, s))[c] for d in np.linspace(-3, 3, 13)]
        assert all(a < b for a, b in zip(up, up[1:]))
    fresh = OnlineTemperature()
    assert fresh.proba(s).tolist() == pytest.approx((np.exp(s) / np.exp(s).sum()).tolist(), rel=1e-12)


@pytest.mark.parametrize("name", ["perceptron", "projectron"])         # the fast path; a dense learner's checked one
def test_learn_one_reuses_the_score_predict_proba_one_computed(name, monkeypatch):
    """Progressive validation scores each x once: learn_one's Platt step takes the score predict_proba_one just
    computed for equal items, and the result is bit for bit that of scoring x again; a dict changed in between (as
    River's StandardScaler in a pipeline changes it: it learns x before transforming it), or an example learned in
    between, is scored again."""
    stream = list(datasets.Phishing())[:150]
    calls = []
    score = R.OlkClassifier._score
    monkeypatch.setattr(R.OlkClassifier, "_score", lambda self, *a, **k: calls.append(1) or score(self, *a, **k))

    def run(reuse):
        model = clf = R.by_name[name](kernel="rbf", gamma=0.1, seed=0)
        if not reuse:
            clf._scored_for = lambda x: None
        calls.clear()
        loss = evaluate.progressive_val_score(stream, model, metrics.LogLoss()).get()
        return loss, len(calls), clf

    (loss, n, m), (loss0, n0, m0) = run(True), run(False)
    assert (n, n0) == (150, 300)                        # one score per example, where it was two
    assert loss == loss0 and (m._platt.a, m._platt.n, m._platt.sq) == (m0._platt.a, m0._platt.n, m0._platt.sq)
    x = {"a": 1.0, "b": 2.0}
    m.predict_proba_one(x)
    assert m._scored_for(dict(x)) is not None and m._scored_for({"a": 1.0, "b": 2.5}) is None
    m.learn_one({"a": 0.0}, True)                       # another example learned: x's score is stale
    assert m._scored_for(x) is None


@pytest.mark.parametrize("name", ["perceptron", "spa", "klr_nc", "mc_pa1", "kogd_reg", "raker"])
def test_learn_many_and_predict_many_are_the_loop_of_learn_one(name):
    """learn_many / predict_many / predict_proba_many on pandas DataFrames: bit for bit the loop of the _one calls
    (mini-batches of uneven sizes)."""
    import pandas as pd
    stream = list(datasets.Phishing())[:90]
    X = pd.DataFrame([x for x, _ in stream])
    regression, multiclass = REGISTRY[name].task == "regression", REGISTRY[name].task == "multiclass"
    y = pd.Series([float(x["long_url"] + 2 * x["https"]) if regression
                   else (int(t) + (x["is_popular"] > 0.5) if multiclass else t) for x, t in stream])
    loop, many = R.by_name[name](seed=0), R.by_name[name](seed=0)
    from river import base as river_base

    # River's mini-batch models: the learners that widen
    mini = river_base.MiniBatchRegressor if regression else river_base.MiniBatchClassifier
    assert isinstance(many, mini) is REGISTRY[name].widens
    for x, t in zip(X.to_dict(orient="records"), y):
        loop.learn_one(x, t)
    for a, b in [(0, 7), (7, 40), (40, 41), (41, 90)]:
        many.learn_many(X.iloc[a:b], y.iloc[a:b])
    test = pd.DataFrame([x for x, _ in list(datasets.Phishing())[90:130]], index=range(100, 140))
    pred = many.predict_many(test)
    assert list(pred.index) == list(test.index)
    assert list(pred) == [loop.predict_one(x) for x in test.to_dict(orient="records")]
    if not regression:
        P = many.predict_proba_many(test)
        ref = [loop.predict_proba_one(x) for x in test.to_dict(orient="records")]
        assert all(P.loc[i, c] == p[c] for i, p in zip(test.index, ref) for c in p)
    assert pickle.dumps(many.learner) == pickle.dumps(loop.learner)
    with pytest.raises(ValueError) as e:
        many.learn_many(test, y.iloc[:3])
    assert "40 rows but y has 3" in _one_line(e)
    with pytest.raises(ValueError) as e:
        many.learn_many(test.to_numpy(), y.iloc[:40])
    assert "pandas DataFrame" in _one_line(e)


@pytest.mark.parametrize("name", sorted(n for n in ONLINE if REGISTRY[n].task == "binary"))
def test_the_fast_path_is_the_checked_path(name):
    """A binary learner of sparse rows builds each River row without scipy and learns through learn_row: every
    prediction and probability on Phishing, and the model after it, equal the checked path's (``_fast`` off);
    string labels, a new key mid-stream and a mutated dict between predict_one and learn_one included."""
    stream = list(datasets.Phishing())[:120]
    stream = [(dict(x), "yes" if y else "no") for x, y in stream]
    if REGISTRY[name].widens:
        stream[60][0]["brand_new"] = 1.5                     # a key first seen mid-stream: the checked path
    fast, slow = R.by_name[name](seed=0), R.by_name[name](seed=0)
    slow._fast = False
    for i, (x, y) in enumerate(stream):
        assert fast.predict_one(x) == slow.predict_one(x)
        if i % 3 == 0:
            assert fast.predict_proba_one(x) == slow.predict_proba_one(x)
        if i == 90:
            x["https"] = 1.0 - x["https"]                   # the dict changed after predict_one: a new row
        fast.learn_one(x, y)
        slow.learn_one(x, y)
    # what pickling keeps (FOGD's map object is left out by its __getstate__), without the scratch buffer _proj
    state = [{k: v for k, v in m.learner.__getstate__().items() if k != "_proj"} for m in (fast, slow)]
    assert pickle.dumps(state[0]) == pickle.dumps(state[1])
    assert fast._fast is (REGISTRY[name].sparse_input and REGISTRY[name].widens)
    assert pickle.loads(pickle.dumps(fast)).predict_one(stream[0][0]) == fast.predict_one(stream[0][0])
