"""omkc_sdpa's ``hedge`` option (issue 27): the Hedge indicator y f < 0 as the SPA paper's Algorithms print it,
against olk's y f <= 0.  Hand-checked: a Gaussian so narrow that it scores exactly 0 on every new row is, under
``strict``, never discounted (its weight only grows as the other classifier errs), under ``mistake`` discounted
whenever it is sampled; the PA-I steps and the sampling are the same code path."""
import numpy as np
import pytest

from olk.algorithms import make
from olk.data import load_dataset

KERNELS = [{"type": "gaussian", "gamma": 1e6}, {"type": "gaussian", "gamma": 0.1}]    # dead, alive


def _fit(hedge):
    d = load_dataset("a9a-small")
    X, y = d.X[:300], d.y[:300]
    return make("omkc_sdpa", kernel=KERNELS, random_state=0, hedge=hedge).partial_fit(X, y)


def test_strict_never_discounts_a_classifier_scoring_zero():
    strict, mistake = _fit("strict"), _fit("mistake")
    # the dead classifier (k = 0 between distinct rows) scores 0 on every new row: y f = 0, no strict mistake
    assert strict.weights_[0] > 0.5 > mistake.weights_[0]
    assert strict.weights_.sum() == pytest.approx(1.0) and mistake.weights_.sum() == pytest.approx(1.0)


def test_default_is_olks_reading_and_the_option_is_validated():
    d = load_dataset("a9a-small")
    X, y = d.X[:200], d.y[:200]
    a = make("omkc_sdpa", kernel="spa16", random_state=0).partial_fit(X, y)
    b = make("omkc_sdpa", kernel="spa16", random_state=0, hedge="mistake").partial_fit(X, y)
    assert np.array_equal(a.decision_function(X), b.decision_function(X)) and a.n_sv_output == b.n_sv_output
    with pytest.raises(ValueError, match="hedge"):
        make("omkc_sdpa", kernel="spa16", hedge="sometimes")
    with pytest.raises(ValueError, match="hedge"):
        make("omkc_sd", kernel="spa16", hedge="strict")     # only SDPA declares it


def test_regress_counts_a_new_option_at_its_default_as_unchanged():
    # the CI baselines were written before omkc_sdpa declared `hedge`: the same run with hedge at its default is
    # the same configuration; any other value, or a key the learner does not declare, is a change
    from olk.experiment.identity import same_params as _same_params
    old = {"combine": "vote", "delta": 0.001, "discount": 0.99, "eta": 0.1}
    assert _same_params("omkc_sdpa", {**old, "hedge": "mistake"}, old)
    assert not _same_params("omkc_sdpa", {**old, "hedge": "strict"}, old)
    assert not _same_params("omkc_sdpa", {**old, "bogus": 1}, old)
    assert not _same_params("omkc_sdpa", {**old, "eta": 0.2, "hedge": "mistake"}, old)
