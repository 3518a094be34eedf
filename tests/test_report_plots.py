"""Figures (olk.report.plots): the right files appear, are real PNG/PDF files, and bad input is one line."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from olk.errors import OlkError
from olk.report import plots

FIX = Path(__file__).parent / "report_fixtures"


@pytest.fixture
def toy(tmp_path):
    dst = tmp_path / "toy_table"
    shutil.copytree(FIX / "toy_table", dst)
    return dst


@pytest.fixture
def sweep(tmp_path):
    dst = tmp_path / "toy_sweep"
    shutil.copytree(FIX / "toy_sweep", dst)
    return dst


def _check(files, names):
    assert sorted(p.name for p in files) == sorted(names)
    for p in files:
        head = p.read_bytes()[:8]
        assert p.stat().st_size > 1000
        assert head.startswith(b"\x89PNG") if p.suffix == ".png" else head.startswith(b"%PDF")


def test_plot_all_on_a_table_experiment_draws_learning_curves(toy):
    files = plots.plot_all(toy)
    _check(files, ["learning_curves.png", "learning_curves.pdf"])
    assert all(p.parent == toy / "figures" for p in files)


def test_plot_all_on_a_sweep(sweep):
    files = plots.plot_all(sweep)  # no curves.csv -> no learning curves
    _check(files, ["accuracy_vs_time_s.png", "accuracy_vs_time_s.pdf",
                   "sensitivity_alpha_beta_german_spa.png", "sensitivity_alpha_beta_german_spa.pdf",
                   "sensitivity_budget_german_bogd.png", "sensitivity_budget_german_bogd.pdf"])


def test_pdf_is_reproducible(sweep, tmp_path):
    a = plots.plot_accuracy_vs_time(sweep, out_dir=tmp_path / "a")
    b = plots.plot_accuracy_vs_time(sweep, out_dir=tmp_path / "b")
    assert a[1].read_bytes() == b[1].read_bytes()


def test_sensitivity_explicit_axes_and_metrics(sweep):
    files = plots.plot_param_sensitivity(sweep, x="beta", series="alpha", metrics=("mistake_rate", "n_sv"))
    _check(files, ["sensitivity_beta_alpha_german_spa.png", "sensitivity_beta_alpha_german_spa.pdf"])


def test_varying_params(sweep):
    res = plots.load_results(sweep)
    assert plots.varying_params(res) == {("german", "spa"): ["alpha", "beta"], ("german", "bogd"): ["budget"]}


@pytest.mark.parametrize("call,expected", [
    (lambda d: plots.plot_param_sensitivity(d, x="alpah"), "parameter 'alpah' is not in the params of any main run"),
    (lambda d: plots.plot_param_sensitivity(d, x="eta", series=None), "parameter 'eta' takes a single value"),
    (lambda d: plots.plot_learning_curves(d), "curves.csv is missing or empty"),
    (lambda d: plots.plot_accuracy_vs_time(d, y="acc"), "unknown metric 'acc'"),
])
def test_errors_are_one_line(sweep, call, expected):
    with pytest.raises(OlkError) as e:
        call(sweep)
    assert expected in str(e.value) and "\n" not in str(e.value)
