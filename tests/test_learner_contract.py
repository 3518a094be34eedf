"""What every registered learner promises a user of its scikit-learn surface (issue 16).

* parameter names never shadow a method or attribute (SPA's old ``predict`` parameter made
  ``model.predict(X)`` raise ``TypeError: 'str' object is not callable``); old names get a one-line
  "renamed" error;
* any two labels are learned as -1/+1 and given back by ``predict`` (``classes_``); a third label (for a binary
  learner), a label outside ``classes_``, or a NaN/inf in X or y is a one-line DataError naming the row (0-based);
* ``fit`` starts from scratch, ``partial_fit`` continues.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from olk.algorithms import available, make
from olk.algorithms.registry import REGISTRY
from olk.errors import ConfigError, DataError
from olk.experiment.config import parse_config

NAMES = available()
ONLINE = [n for n in NAMES if not REGISTRY[n].batch]
#: the label contract (two labels -> ±1, classes_) is the classifiers'; regressors learn real targets
CLASSIFIERS = [n for n in NAMES if REGISTRY[n].task != "regression"]
ONLINE_CLASSIFIERS = [n for n in ONLINE if n in CLASSIFIERS]
#: the binary classifiers: any two labels, a third is an error (the multi-class learners learn K: test_multiclass.py)
BINARY_CLASSIFIERS = [n for n in CLASSIFIERS if REGISTRY[n].task != "multiclass"]
RBF = {"type": "gaussian", "gamma": 0.5}
#: scikit-learn estimator names a parameter must never take, whether or not a learner defines them yet
SKLEARN_NAMES = {"fit", "partial_fit", "predict", "predict_proba", "predict_log_proba", "decision_function",
                 "score", "transform", "fit_transform", "get_params", "set_params", "classes_"}


def _make(name, **kw):
    if REGISTRY[name].task == "regression":          # their step 1/sqrt(T) needs T fixed across the calls compared
        kw.setdefault("horizon", 120)
    return make(name, kernel=RBF, random_state=0, **kw)


def _data(n=60, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _one_line(e) -> str:
    msg = str(e.value)
    assert "\n" not in msg
    return msg


# ------------------------------------------------------------------------------------- parameter names
def test_no_parameter_is_named_like_an_attribute_or_method():
    # instance attributes that __init__ sets besides the parameters (t, pool, rng, classes_, ...)
    instance_attrs = set()
    for name in NAMES:
        instance_attrs |= set(vars(_make(name))) - {p.name for p in REGISTRY[name].params}
    clashes = []
    for name in NAMES:
        cls = REGISTRY[name]
        # a core's ``fixed`` value of a parameter some of its learners take is that parameter's stand-in, not a clash
        fixed = {k for b in cls.__mro__ for k in vars(b).get("fixed", {})}
        reserved = (set(dir(cls)) - fixed) | SKLEARN_NAMES | instance_attrs | {"where", "checked"}
        clashes += [f"{name}.{p.name}" for p in cls.params if p.name in reserved]
        m = _make(name)
        # a parameter overwritten by an attribute of the same name in a subclass __init__ would not read back
        clashes += [f"{name}.{p.name} (overwritten)" for p in cls.params
                    if getattr(m, p.name) is not m.hyperparams[p.name]]
    assert clashes == []


@pytest.mark.parametrize("name", ["spa", "oskl"])
def test_the_readme_example_predicts_instead_of_crashing(name):
    # docs/guide/learners.md (the learners underneath): make(...).partial_fit(X, y) then model.predict(X[:5])
    X, y = _data()
    model = make(name, kernel={"type": "gaussian", "gamma": 0.4}, random_state=0)
    model.partial_fit(X, y)
    assert callable(model.predict)
    assert set(model.predict(X[:5]).tolist()) <= {-1.0, 1.0}
    # output= chooses the classifier, as the old parameter did
    X0 = X[:7]
    last = make(name, kernel=RBF, output="last", random_state=0).partial_fit(X, y)
    avg = make(name, kernel=RBF, output="avg", random_state=0).partial_fit(X, y)
    np.testing.assert_array_equal(last.decision_function(X0), avg.decision_function(X0, output="last"))
    np.testing.assert_array_equal(avg.decision_function(X0), last.decision_function(X0, output="avg"))


@pytest.mark.parametrize("name", ["spa", "oskl"])
def test_the_old_predict_parameter_is_a_one_line_renamed_error(name):
    with pytest.raises(ConfigError) as e:
        make(name, predict="last")
    assert _one_line(e) == f"{name}.predict: renamed to 'output' (avg|last) after olk 0.1.0; write output: last"
    raw = {"name": "x", "datasets": ["a9a-small"], "algorithms": [{"name": name, "params": {"predict": "avg"}}]}
    with pytest.raises(ConfigError) as e:
        parse_config(raw, "old.yaml")
    assert "old.yaml: algorithms[0].params.predict: renamed to 'output' (avg|last)" in _one_line(e)
    assert "write output: avg" in str(e.value)
    raw["algorithms"][0] = {"name": name, "tune": {"predict": ["avg", "last"]}}
    with pytest.raises(ConfigError, match=r"tune\.predict: renamed to 'output'"):
        parse_config(raw, "old.yaml")


# ------------------------------------------------------------------------------------------------ labels
@pytest.mark.parametrize("labels", [(0, 1), (1, 2), ("neg", "pos")], ids=["0-1", "1-2", "neg-pos"])
@pytest.mark.parametrize("name", CLASSIFIERS)
def test_any_two_labels_are_learned_as_pm1_and_predicted_back(name, labels):
    X, ypm = _data()
    y = np.where(ypm > 0, labels[1], labels[0])          # the sorted-first label is -1
    m = _make(name).fit(X, y)
    ref = _make(name).fit(X, ypm)                        # same seed, labels already -1/+1
    assert isinstance(m.classes_, np.ndarray) and m.classes_.tolist() == list(labels)
    assert m.n_sv == ref.n_sv
    np.testing.assert_array_equal(m.decision_function(X), ref.decision_function(X))
    pred = m.predict(X)
    assert set(pred.tolist()) <= set(labels)
    np.testing.assert_array_equal(pred, np.where(ref.predict(X) > 0, labels[1], labels[0]))
    assert ref.classes_.tolist() == [-1, 1]


@pytest.mark.parametrize("name", ONLINE_CLASSIFIERS)
def test_partial_fit_keeps_the_first_calls_labels(name):
    X, ypm = _data()
    y = np.where(ypm > 0, "pos", "neg")
    m = _make(name).partial_fit(X[:30], y[:30]).partial_fit(X[30:], y[30:])
    ref = _make(name).partial_fit(X, ypm)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), rtol=1e-12, atol=1e-12)
    with pytest.raises(DataError) as e:
        m.partial_fit(X[:3], np.array(["pos", "neg", "maybe"]))
    assert _one_line(e).startswith("y: row 2 (0-based) has label 'maybe', which is not one of this model's classes_")
    assert m.t == 60                                     # refused before learning anything


def test_one_label_in_the_first_call_only_if_it_is_minus_or_plus_one():
    X, y = _data()
    m = _make("pa1").partial_fit(X[:5], np.ones(5))      # +1 alone: its class is clear
    assert m.classes_.tolist() == [-1, 1]
    m.partial_fit(X[5:], y[5:])
    assert m.t == 60
    with pytest.raises(DataError) as e:
        _make("pa1").partial_fit(X[:5], np.zeros(5))      # 0 alone: is it the -1 or the +1 class?
    assert "only one label (0) in the first fit/partial_fit call" in _one_line(e)


@pytest.mark.parametrize("name", BINARY_CLASSIFIERS)
def test_three_labels_are_a_one_line_data_error(name):
    X, _ = _data()
    y3 = np.arange(60) % 3
    m = _make(name)
    with pytest.raises(DataError) as e:
        m.fit(X, y3)
    assert "y: 3 distinct labels (0, 1, 2)" in _one_line(e)
    if not REGISTRY[name].batch:
        with pytest.raises(DataError, match="3 distinct labels"):
            m.partial_fit(X, y3)
        assert m.t == 0 and m.n_sv == 0


def test_engine_path_is_unchanged_and_sets_no_classes():
    X, y = _data()
    m = _make("spa")
    m.bind(X)
    for i in range(60):
        m.step(i, y[i])
    assert m.classes_ is None
    assert set(m.predict(X).tolist()) <= {-1.0, 1.0}
    np.testing.assert_array_equal(m.decision_function(X), _make("spa").partial_fit(X, y).decision_function(X))


# ------------------------------------------------------------------------------------- NaN / inf refused
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("name", NAMES)
def test_nan_or_inf_in_x_or_y_is_refused_naming_the_row(name, layout):
    X, y = _data()
    conv = sp.csr_matrix if layout == "csr" else np.asarray
    Xbad = X.copy()
    Xbad[3, 1] = np.nan
    Xbad[9, 0] = -np.inf
    for call in ("fit", "partial_fit"):
        if not hasattr(REGISTRY[name], call):
            continue
        m = _make(name)
        with pytest.raises(DataError) as e:
            getattr(m, call)(conv(Xbad), y)
        assert _one_line(e).startswith("X: row 3 (0-based), column 1 is nan")
        ybad = y.copy()
        ybad[5] = np.inf
        with pytest.raises(DataError) as e:
            getattr(m, call)(conv(X), ybad)
        assert _one_line(e).startswith("y: row 5 (0-based) has label inf")
        assert m.n_sv == 0 and m.classes_ is None           # nothing was learned
    m = _make(name).fit(conv(X), y)
    Q = X[:4].copy()
    Q[2, 2] = np.inf
    for method in (m.decision_function, m.predict):
        with pytest.raises(DataError) as e:
            method(conv(Q))
        assert _one_line(e).startswith("X: row 2 (0-based), column 2 is inf")
    with pytest.raises(DataError, match=r"row 2 \(0-based\)"):
        _make(name).decision_function(conv(Q))               # unfitted models check too


# ------------------------------------------------------------------------------- fit vs partial_fit
@pytest.mark.parametrize("name", CLASSIFIERS)
def test_fit_starts_from_scratch(name):
    X, y = _data()
    X2, y2 = _data(40, seed=7)
    once = _make(name).fit(X, y)
    twice = _make(name).fit(X, y).fit(X, y)
    other_first = _make(name).fit(X2, np.where(y2 > 0, "b", "a")).fit(X, y)
    for m in (twice, other_first):
        assert (m.n_sv, m.t, m.n_updates) == (once.n_sv, once.t, once.n_updates)
        assert m.classes_.tolist() == [-1, 1]
        np.testing.assert_array_equal(m.decision_function(X), once.decision_function(X))
        np.testing.assert_array_equal(m.predict(X), once.predict(X))


@pytest.mark.parametrize("name", ONLINE)
def test_partial_fit_continues(name):
    X, y = _data()
    m = _make(name).partial_fit(X, y).partial_fit(X, y)
    assert m.t == 120                                    # t doubles
    both = _make(name).partial_fit(np.vstack([X, X]), np.concatenate([y, y]))
    assert m.n_sv == both.n_sv
    np.testing.assert_allclose(m.decision_function(X), both.decision_function(X), rtol=1e-12, atol=1e-12)
    m.fit(X, y)                                          # ... and fit starts again
    assert m.t == 60


# ---------------------------------------------------------------- scikit-learn estimator contract (issue 8)
@pytest.mark.parametrize("name", sorted(n for n in __import__("olk.algorithms.registry", fromlist=["x"]).available()
                                        if not n.startswith("_")))
def test_get_params_set_params_and_clone(name):
    from sklearn.base import clone

    from olk.algorithms import make
    from olk.errors import ConfigError
    m = make(name, kernel={"type": "gaussian", "gamma": 0.5}, random_state=3)
    p = m.get_params()
    assert p["random_state"] == 3 and p["kernel"] == m.kernel and set(p) == {"kernel", "random_state", *m.hyperparams}
    c = clone(m)
    assert type(c) is type(m) and c.get_params() == p and c is not m
    if m.params:                                    # the Perceptron has none
        first = m.params[0]
        m.set_params(**{first.name: first.default})
        assert m.get_params()[first.name] == first.default
        with pytest.raises(ConfigError, match="did you mean"):
            m.set_params(**{first.name + "x": first.default})
    with pytest.raises(ConfigError):
        m.set_params(no_such_parameter=1)
    m.set_params(kernel={"type": "gaussian", "gamma": 2.0})
    assert m.kernel.gamma == 2.0


def test_set_params_checks_like_the_constructor_and_score_is_accuracy():
    import numpy as np

    from olk.algorithms import make
    from olk.errors import ConfigError
    m = make("spa", kernel={"type": "gaussian", "gamma": 0.5}, alpha=1, beta=5)
    with pytest.raises(ConfigError, match="beta"):
        m.set_params(beta=0.5)                       # beta >= alpha, the learner's own cross-check
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    m.set_params(beta=10).fit(X, y)
    assert m.beta == 10 and m.score(X, y) == float(np.mean(m.predict(X) == y))


@pytest.mark.parametrize("name", [n for n in NAMES if REGISTRY[n].task == "regression"])
def test_a_regressor_learns_real_targets_and_fit_starts_from_scratch(name):
    X, y = _data()
    yr = X[:, 0] + 0.1 * X[:, 1]                         # real-valued targets
    once = _make(name).fit(X, yr)
    again = _make(name).fit(X[:30], -yr[:30]).fit(X, yr)
    assert once.classes_ is None and again.t == once.t == 60
    np.testing.assert_array_equal(again.decision_function(X), once.decision_function(X))
    np.testing.assert_array_equal(once.predict(X), once.decision_function(X))     # the prediction is the score
    with pytest.raises(DataError, match="row 3"):
        _make(name).fit(X[:5], np.array([0.1, 0.2, 0.3, np.nan, 0.5]))


# ------------------------------------------------------------------ the written contract (olk/algorithms/protocol.py)
@pytest.mark.parametrize("name", NAMES)
def test_every_learner_has_every_member_of_the_written_contract(name):
    """The engine, CLI, estimators and report read the members of ``protocol.Learner`` without probing: every
    registered class has all of them (the base class gives the defaults), and a built learner is a ``Learner``."""
    from olk.algorithms.protocol import BatchLearner, OnlineLearner, missing_members
    cls = REGISTRY[name]
    assert missing_members(cls) == []
    assert isinstance(_make(name), BatchLearner if cls.batch else OnlineLearner)


def test_the_contract_check_can_fail():
    from olk.algorithms.protocol import missing_members

    class NotALearner:
        name = "x"

        def step(self, i, y):
            return 0.0
    missing = missing_members(NotALearner)
    assert "bind" in missing and "task" in missing and "run_summary" in missing and "step" not in missing


def test_no_probing_of_learners_outside_the_algorithms_package():
    """No ``hasattr(model, ...)`` / ``getattr(cls, "<contract member>", default)`` outside olk/algorithms: the
    contract's members are read directly."""
    import re

    from olk.algorithms.protocol import BatchLearner, OnlineLearner
    from olk.algorithms.protocol import members as contract
    members = contract(OnlineLearner) | contract(BatchLearner)
    pattern = re.compile(r"""(?:hasattr|getattr)\([^,()]+,\s*["'](\w+)["']""")
    assert _outside_the_algorithms(pattern, lambda m, line: m.group(1) in members) == []


# ------------------------------------------------------------------------------------- the shape of the classes
def _depth(cls, ours=("olk.",)) -> int:
    """Classes from `cls` down to its deepest olk root, `cls` included (object and other packages' classes do not
    count; a mixin listed beside a base adds breadth, not depth)."""
    bases = [b for b in cls.__bases__ if b.__module__.startswith(ours)]
    return 1 + max((_depth(b, ours) for b in bases), default=0)


def test_every_learner_is_at_most_four_classes_deep():
    """leaf -> family core -> kind (OnlineKernelLearner, BatchKernelLearner, RandomFeatureLearner) -> root
    (KernelEstimator, ArrayAPI, KernelExpansion, the mixins): reading one ``step`` never opens more than four
    classes (docs/ARCHITECTURE.md, "The learners")."""
    deep = {n: _depth(REGISTRY[n]) for n in NAMES if _depth(REGISTRY[n]) > 4}
    assert deep == {}


def test_the_depth_check_can_fail():
    from olk.algorithms.common.learner import OnlineKernelLearner

    class A(OnlineKernelLearner):
        pass

    class B(A):
        pass

    class C(B):
        pass
    assert _depth(C, ("olk.", __name__)) == 5


def test_the_array_api_is_implemented_once():
    """fit / partial_fit / predict / score / get_params / set_params / learn_one are defined in one class,
    ``ArrayAPI`` (olk/algorithms/common/arrays.py), and nowhere else in olk.algorithms except where a learner's
    model truly differs (a batch solver's own ``fit``; the multi-class learners' K labels; the averaged outputs'
    choice of scores); olk.estimators calls them and implements none of them itself."""
    import inspect

    import olk.estimators
    from olk.algorithms.common.arrays import ArrayAPI
    api = {"partial_fit", "get_params", "set_params", "score", "learn_one", "_encode_y", "_learn"}
    owners = {}
    for cls in {c for n in NAMES for c in REGISTRY[n].__mro__ if c.__module__.startswith("olk.")}:
        for m in api & set(vars(cls)):
            fn = inspect.unwrap(getattr(vars(cls)[m], "fn", vars(cls)[m]))
            if f"super().{m}(" not in inspect.getsource(fn):     # a precondition in front of the one code is fine
                owners.setdefault(m, set()).add(f"{cls.__module__}.{cls.__qualname__}")
    allowed = {"olk.algorithms.multiclass.core.MulticlassKernelLearner"}     # K labels instead of two
    for m, where in owners.items():
        assert where - allowed == {f"{ArrayAPI.__module__}.ArrayAPI"}, (m, where)
    src = inspect.getsource(olk.estimators)
    for m in ("def _encode_y(", "def _learn(", "def learn_one(", "def get_params(", "def set_params(", "def score("):
        assert m not in src, m


def test_no_per_learner_if_outside_the_algorithms_package():
    """What differs between learners is declared on the learner class: nothing outside olk/algorithms compares a
    name with a registered learner's (``if model.name == "fogd"``); the engine, bench, report and surfaces read the
    contract (docs/ARCHITECTURE.md, "One contract")."""
    import re
    # a learner's name or algorithm compared with a literal (a file format such as "libsvm" is no learner)
    pattern = re.compile(r"""(?:name|algorithm|algo|label)\s*(?:==|!=)\s*["'](\w+)["']|["'](\w+)["']\s*(?:==|!=)\s*"""
                         r"""\w*\.?(?:name|algorithm|algo|label)\b""")
    assert _outside_the_algorithms(pattern, lambda m, line: (m.group(1) or m.group(2)) in REGISTRY
                                   and ">>>" not in line) == []     # doctest queries aside


def _outside_the_algorithms(pattern, hit) -> list[str]:
    """'file:line: text' of every line of olk/ outside olk/algorithms where `pattern` matches and ``hit(match,
    line)`` holds."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "olk"
    found = []
    for path in root.rglob("*.py"):
        if "algorithms" in path.relative_to(root).parts:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            found += [f"{path.relative_to(root)}:{n}: {line.strip()}" for m in pattern.finditer(line) if hit(m, line)]
    return found


@pytest.mark.parametrize("name", [n for n in NAMES if REGISTRY[n].batch])
def test_a_batch_learner_learns_with_fit_alone(name):
    """The online part of the array API (partial_fit, learn_one, predict_one) is not there for a batch learner."""
    cls = REGISTRY[name]
    assert not any(hasattr(cls, m) or hasattr(_make(name), m) for m in ("partial_fit", "learn_one", "predict_one"))
