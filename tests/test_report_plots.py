"""Figures (olk.report.plots): the right files appear, are real PNG/PDF files, and bad input is one line."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from olk.errors import OlkError
from olk.report import plots

FIX = Path(__file__).parent / "report_fixtures"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    dst = tmp_path_factory.mktemp("plots") / "toy_sweep"
    shutil.copytree(FIX / "toy_sweep", dst)
    return dst


@pytest.fixture(scope="module")
def sweep_files(sweep):
    return plots.plot_all(sweep)


def _check(files, names):
    assert sorted(p.name for p in files) == sorted(names)
    for p in files:
        head = p.read_bytes()[:8]
        assert p.stat().st_size > 1000
        assert head.startswith(b"\x89PNG") if p.suffix == ".png" else head.startswith(b"%PDF")


def test_plot_all_on_a_table_experiment_draws_learning_curves(tmp_path):
    shutil.copytree(FIX / "toy_table", tmp_path / "toy_table")
    files = plots.plot_all(tmp_path / "toy_table")
    _check(files, ["learning_curves.png", "learning_curves.pdf"])
    assert all(p.parent == tmp_path / "toy_table" / "figures" for p in files)


def test_plot_all_on_a_sweep(sweep, sweep_files):
    # no curves.csv -> no learning curves; two swept algorithms -> two sensitivity figures
    _check(sweep_files, ["accuracy_vs_time_s.png", "accuracy_vs_time_s.pdf",
                         "sensitivity_alpha_beta_german_spa.png", "sensitivity_alpha_beta_german_spa.pdf",
                         "sensitivity_budget_german_bogd.png", "sensitivity_budget_german_bogd.pdf"])
    assert all(p.parent == sweep / "figures" for p in sweep_files)


def test_pdf_is_reproducible(sweep, sweep_files, tmp_path):
    again = plots.plot_accuracy_vs_time(sweep, out_dir=tmp_path)
    assert again[1].read_bytes() == (sweep / "figures" / "accuracy_vs_time_s.pdf").read_bytes()


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
