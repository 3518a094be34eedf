"""The SPA Table 5 rows U, DDPA and SDPA are registry entries of their own (omkc_u, omkc_ddpa, omkc_sdpa), each
the same learner as the corresponding setting of omkc_dd / omkc_sd, to the last bit."""
import numpy as np
import pytest

from olk.algorithms import make
from olk.data import load_dataset


@pytest.fixture(scope="module")
def data():
    d = load_dataset("a9a-small")
    return d.X[:400], d.y[:400], d.X[400:600]


@pytest.mark.parametrize("name, base, setting", [
    ("omkc_u", "omkc_dd", {"discount": 1.0}),
    ("omkc_ddpa", "omkc_dd", {"component": "pa", "eta": 0.1}),
    ("omkc_sdpa", "omkc_sd", {"component": "pa", "eta": 0.1}),
])
def test_row_equals_the_setting_it_names(data, name, base, setting):
    X, y, Xt = data
    a = make(name, kernel="spa16", random_state=4).partial_fit(X, y)
    b = make(base, kernel="spa16", random_state=4, **setting).partial_fit(X, y)
    assert a.n_sv_output == b.n_sv_output and a.n_sv == b.n_sv
    assert np.array_equal(a.weights_, b.weights_)
    assert np.array_equal(a.classifier_scores(Xt), b.classifier_scores(Xt))
    assert np.array_equal(a.decision_function(Xt), b.decision_function(Xt))


def test_u_keeps_uniform_weights_and_has_no_discount_parameter(data):
    X, y, _ = data
    u = make("omkc_u", kernel="spa16").partial_fit(X, y)
    assert np.all(u.weights_ == 1 / 16) and "discount" not in u.get_params()
