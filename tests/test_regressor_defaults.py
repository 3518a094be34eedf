"""The six online regressors with olk's defaults (olk/algorithms/common/regressor.py): an anytime step when no horizon
is given, so a stream of unknown length works from its first example, and a running standardisation of the targets,
so targets of any scale work; the papers' step 1/sqrt(T) and raw targets stay available (``step_size='sqrt_T',
standardize_y=False``, what the reproduction configs state; `olk regress` checks those bit for bit)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from olk.algorithms import make
from olk.algorithms.common.regressor import STANDARDIZE_Y, STEP_SIZE, TargetScale, anytime_step, step_of
from olk.algorithms.registry import REGISTRY
from olk.errors import ConfigError

REGRESSORS = ("kogd_reg", "omkr", "raker", "omkl_aks", "amkl", "amkl_aks")
PAPER = {"step_size": "sqrt_T", "standardize_y": False}


def _stream(n=300, seed=0, shift=40.0, scale=3.0):
    """A non-linear stream with targets far from 0 (as River's TrumpApproval: ~40)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = shift + scale * (np.sin(2 * X[:, 0]) + X[:, 0] * X[:, 1]) + 0.05 * rng.normal(size=n)
    return X, y


def _online_mse(m, X, y, skip=30):
    """The online MSE (predict, then learn) after the first ``skip`` examples: before any target a learner can
    only say 0."""
    pred = []
    for x, t in zip(X, y):
        pred.append(m.predict_one(x))
        m.learn_one(x, t)
    return float(np.mean((np.array(pred) - y)[skip:] ** 2))


def test_every_regressor_declares_the_step_and_the_target_scaling():
    for name in REGRESSORS:
        params = {p.name: p for p in REGISTRY[name].params}
        assert params["step_size"] is STEP_SIZE and params["standardize_y"] is STANDARDIZE_Y
        assert (params["step_size"].default, params["standardize_y"].default) == ("auto", True)
        # the value that keeps the behaviour from before the option: what the reproduction configs state
        assert (params["step_size"].before, params["standardize_y"].before) == ("sqrt_T", False)


@pytest.mark.parametrize("name", REGRESSORS)
def test_defaults_learn_a_stream_of_unknown_length_on_unscaled_targets(name):
    X, y = _stream()
    m = make(name, random_state=0)
    mse = _online_mse(m, X, y)                      # no horizon: the first learn_one works
    assert mse < 0.2 * np.var(y)                    # far better than the mean of the whole stream
    with pytest.raises(ConfigError, match="set horizon=T"):
        make(name, random_state=0, **PAPER).learn_one(X[0], y[0])      # the paper's step needs T
    paper = make(name, random_state=0, horizon=len(y), **PAPER)
    with np.errstate(all="ignore"):
        assert not _online_mse(paper, X, y) < 10 * mse    # from f = 0 on targets near 40: far off


@pytest.mark.parametrize("name", REGRESSORS)
def test_standardised_targets_make_predictions_move_with_an_affine_change_of_y(name):
    """Learning a y + b gives a (the predictions) + b: the learner sees the same standardised targets."""
    X, y = _stream(n=150, shift=0.0, scale=1.0)
    a, b = 250.0, -7.0
    m1 = make(name, random_state=1).partial_fit(X, y)
    m2 = make(name, random_state=1).partial_fit(X, a * y + b)
    np.testing.assert_allclose(m2.predict(X), a * m1.predict(X) + b, rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("name", REGRESSORS)
def test_the_online_prediction_never_uses_the_target_it_learns(name):
    X, y = _stream(n=60)
    # one kernel: with several, the subset learners' step predicts with a random subset, predict_one its expectation
    m = make(name, kernel={"type": "gaussian", "gamma": 1.0}, random_state=2)
    for x, t in zip(X, y):
        before = m.predict_one(x)
        src = m.bind(x.reshape(1, -1))
        assert m.step(0, t) == pytest.approx(before, rel=1e-12, abs=1e-12)
        m.src = src


def test_the_anytime_step_and_the_papers_step():
    assert [step_of("auto", 0, 0, t) for t in (1, 4, 100)] == [1.0, 0.5, 0.1]          # 1/sqrt(t)
    assert step_of("auto", 400, 0, 9) == 0.05                                           # a horizon: 1/sqrt(T)
    assert step_of("sqrt_T", 0, 400, 9) == 0.05 and step_of("sqrt_T", 0, 0, 9) is None  # T unknown
    assert step_of("sqrt_t", 400, 400, 16) == 0.25
    assert anytime_step(4, cap=0.01) == 0.01 and anytime_step(40_000, cap=0.01) == 0.005
    # the random-feature learners: eta_l at most 1/(2 ||z||^2) = 1/(2D) with the unnormalised features
    X, y = _stream(n=5)
    m = make("raker", n_rf=50).partial_fit(X, y)
    assert m.steps() == (0.01, 1 / math.sqrt(5))
    # with normalised features ||z||^2 = 1: the cap 1/2 binds only for t < 4
    assert make("raker", normalize_features=True).partial_fit(X, y).steps() == (1 / math.sqrt(5), 1 / math.sqrt(5))
    assert make("raker", normalize_features=True).partial_fit(X[:2], y[:2]).steps() == (0.5, 1 / math.sqrt(2))


def test_the_running_statistics():
    s = TargetScale(True)
    ys = [3.0, 5.0, 10.0, -2.0]
    z = [s.learn(v) for v in ys]
    assert s.mean == pytest.approx(np.mean(ys)) and s.std == pytest.approx(np.std(ys))
    assert z[0] == 0.0 and z[-1] == pytest.approx((ys[-1] - np.mean(ys)) / np.std(ys))
    np.testing.assert_allclose(s.out(np.array([0.0, 1.0])), [np.mean(ys), np.mean(ys) + np.std(ys)])
    same = TargetScale(True)
    assert [same.learn(4.0) for _ in range(3)] == [0.0, 0.0, 0.0] and same.std == 1.0     # constant y: s = 1
    off = TargetScale(False)
    assert off.learn(3.5) == 3.5 and off.out(2.0) == 2.0 and (off.scale, off.shift) == (1.0, 0.0)


def test_changing_the_target_scaling_restarts_the_learner():
    X, y = _stream(n=50)
    for name in ("kogd_reg", "raker"):
        m = make(name, random_state=0).partial_fit(X, y)
        m.set_params(standardize_y=False)
        assert m.t == 0 and not m.targets.on
