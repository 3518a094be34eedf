"""olk/report/kernel_weights.py and the report's "Which kernels won" table: top kernels by mean final weight,
read from the runs' records, with runs that recorded no weights left out of the means and counted."""
import json

import pandas as pd
import pytest

from olk.report.kernel_weights import kernel_label, kernel_weights_summary

K3 = [{"kind": "polynomial", "gamma": 1.0, "degree": 2.0, "coef0": 0.0}, {"kind": "gaussian", "gamma": 8.0},
      {"kind": "gaussian", "gamma": 0.3}]


def _runs():
    k = json.dumps(K3)
    return pd.DataFrame([
        # DD on d1: two runs with weights, one without (an older run)
        {"dataset": "d1", "label": "dd", "display": "DD", "kernel": k, "kernel_weights": json.dumps([0.2, 0.7, 0.1])},
        {"dataset": "d1", "label": "dd", "display": "DD", "kernel": k, "kernel_weights": json.dumps([0.4, 0.5, 0.1])},
        {"dataset": "d1", "label": "dd", "display": "DD", "kernel": k, "kernel_weights": float("nan")},
        # U: uniform weights; Per: a single-kernel learner records none
        {"dataset": "d1", "label": "u", "display": "U", "kernel": k, "kernel_weights": json.dumps([1 / 3] * 3)},
        {"dataset": "d1", "label": "per", "display": "Per", "kernel": json.dumps(K3[0]), "kernel_weights": ""},
        # SPA on d2: no run recorded weights
        {"dataset": "d2", "label": "spa", "display": "SPA", "kernel": k, "kernel_weights": float("nan")},
    ])


def test_kernel_labels():
    assert kernel_label(K3[0]) == "(x·x')^2"
    assert kernel_label(K3[1]) == "Gaussian σ=2^-2 (γ=8)"
    assert kernel_label(K3[2]).startswith("Gaussian σ=1.29 ")
    assert kernel_label({"kind": "polynomial", "gamma": 2.0, "coef0": 1.0, "degree": 3}) == "(2 x·x' + 1)^3"


def test_summary_means_over_the_runs_with_weights():
    s = kernel_weights_summary(_runs(), top=2).set_index("label")
    assert list(s.index) == ["dd", "u"]                         # per and spa recorded nothing: left out
    dd = s.loc["dd"]
    assert (dd.n_runs, dd.n_weights, dd.uniform) == (3, 2, False)
    (n1, m1, sd1, c1), (n2, m2, sd2, c2) = dd.top
    assert n1 == "Gaussian σ=2^-2 (γ=8)" and m1 == pytest.approx(0.6) and sd1 == pytest.approx(0.1414213562, rel=1e-9)
    assert n2 == "(x·x')^2" and m2 == pytest.approx(0.3) and c1 == c2 == 2
    assert bool(s.loc["u"].uniform)


def test_report_section_lists_missing_and_uniform(tmp_path):
    from olk.report.markdown import _kernel_weights_md

    class R:
        main = _runs()
        datasets = ["d1", "d2"]

    text = "\n".join(_kernel_weights_md(R()))
    assert "#### Which kernels won" in text
    assert ("| d1 | DD | 2/3 | Gaussian σ=2^-2 (γ=8): 0.60 ± 0.14 | (x·x')^2: 0.30 ± 0.14 | "
            "Gaussian σ=1.29 (γ=0.3): 0.10 ± 0.00 |") in text
    assert "d1 DD (1 of 3)" in text
    assert "Weights that stay uniform (not learned): U." in text
    assert "SPA" not in text and "Per" not in text
