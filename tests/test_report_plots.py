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
    # no curves.csv -> no learning curves; three swept parameters (SPA's alpha x beta, BOGD's budget) -> one figure
    # each, every learner that sweeps it a line (tests/test_sweep_figures.py)
    _check(sweep_files, ["accuracy_vs_time_s.png", "accuracy_vs_time_s.pdf", "sweep_alpha.png", "sweep_alpha.pdf",
                         "sweep_beta.png", "sweep_beta.pdf", "sweep_budget.png", "sweep_budget.pdf"])
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


# ----------------------------------------------------------------------------- algorithm styles
def test_every_registered_algorithm_has_its_own_colour_marker_and_line():
    from olk.algorithms.registry import available

    names = available()
    styles = {n: plots.algorithm_style(n) for n in names}
    assert len(set(styles.values())) == len(names)                      # pairwise-distinct (colour, marker, line)
    assert styles["rbp"][0] != styles["oskl"][0]                        # two olive shades once (issue 35)
    table = plots.algorithm_styles()
    from olk.algorithms.registry import origin
    own = {n: st for n, st in table.items() if origin(n).kind == "built-in"}   # a plugin may pick any colour
    assert {c for c, _, _ in own.values()} <= set(plots.PALETTE.values())       # the colour-blind-safe set only
    # labels outside the table never take a table style: an unknown learner, other outputs of a known one
    for lab, algo in [("mystery", None), ("mystery_b", "mystery"), ("spa_last", "spa"), ("spa@beta=5", "spa")]:
        style = plots.algorithm_style(lab, algo)
        assert style not in table.values() and style == plots.algorithm_style(lab, algo)
        assert style[0] in plots.PALETTE.values()
    assert plots.algorithm_style("spa_last", "spa")[0] == table["spa"][0]
    last, avg = plots.algorithm_style("spa_last", "spa"), plots.algorithm_style("spa_avg", "spa")
    assert last[2] != table["spa"][2] and avg[2] != table["spa"][2]     # the learner's other outputs: other lines


def _all_algorithms_results(dst: Path, names: list[str]) -> Path:
    """toy_table's Perceptron runs copied once per algorithm in ``names`` (in that order)."""
    import json

    import pandas as pd

    from olk.algorithms.registry import REGISTRY, available

    available()
    runs = pd.read_csv(FIX / "toy_table" / "runs.csv")
    curves = pd.read_csv(FIX / "toy_table" / "curves.csv")
    base = runs[(runs.label == "perceptron") & (runs.phase == "main")]
    rows, crows = [], []
    for i, name in enumerate(names):
        r = base.copy()
        r["algorithm"] = r["label"] = name
        r["display"] = REGISTRY[name].display
        r["accuracy"] = r["accuracy"] + i
        r["time_s"] = r["time_s"] * (1 + i)
        for old, new in zip(base.run_id, base.run_id + f"-{name}"):
            c = curves[curves.run_id == old].copy()
            c["run_id"] = new
            c["mistake_rate"] = c["mistake_rate"] - i
            crows.append(c)
        r["run_id"] = base.run_id + f"-{name}"
        rows.append(r)
    dst.mkdir(parents=True)
    pd.concat(rows).to_csv(dst / "runs.csv", index=False)
    pd.concat(crows).to_csv(dst / "curves.csv", index=False)
    meta = json.loads((FIX / "toy_table" / "experiment.json").read_text())
    meta["algorithms"] = names
    (dst / "experiment.json").write_text(json.dumps(meta))
    return dst


def _drawn_styles(monkeypatch, plot, results_dir) -> dict[str, tuple[str, str, str]]:
    """legend name -> (colour, marker, line style) of every line the plot function draws."""
    from matplotlib.colors import to_hex

    figs = []
    monkeypatch.setattr(plots, "_save", lambda fig, res, stem, out_dir: figs.append(fig) or [])
    plot(results_dir)
    out = {}
    for ax in figs[0].axes:
        for line in ax.get_lines():
            out[line.get_label()] = (to_hex(line.get_color()), str(line.get_marker()), str(line.get_linestyle()))
    return out


@pytest.mark.parametrize("plot", [plots.plot_learning_curves, plots.plot_accuracy_vs_time],
                         ids=["learning_curves", "accuracy_vs_time"])
def test_an_algorithm_looks_the_same_whichever_others_are_plotted(tmp_path, monkeypatch, plot):
    from olk.algorithms.registry import available

    names = [n for n in available() if not n.startswith("_")]
    full = _drawn_styles(monkeypatch, plot, _all_algorithms_results(tmp_path / "all", names))
    subset = names[::-3]                                                 # other order, a third of them
    part = _drawn_styles(monkeypatch, plot, _all_algorithms_results(tmp_path / "part", subset))
    assert len(full) == len(names) and len(set(full.values())) == len(names)
    assert all(m not in ("None", "", " ") for _, m, _ in full.values())
    assert len(part) == len(subset) and all(part[k] == full[k] for k in part)


# ----------------------------------------------------------------------------- what a learning-curve figure says
def _figure_of(monkeypatch, plot, results_dir):
    figs = []
    monkeypatch.setattr(plots, "_save", lambda fig, res, stem, out_dir: figs.append(fig) or [])
    plot(results_dir)
    return figs[0]


def test_learning_curves_start_where_a_running_rate_means_something_and_show_the_spread(tmp_path, monkeypatch):
    """Curves from t = 100 (one example then moves the running rate by at most a point), a +-1 std band over the
    permutations under each mean, and the experiment, scale, runs and commit written on the figure."""
    from matplotlib.collections import PolyCollection
    shutil.copytree(FIX / "toy_table", tmp_path / "toy_table")
    fig = _figure_of(monkeypatch, plots.plot_learning_curves, tmp_path / "toy_table")
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_label() in ("Perceptron", "SPA")]
    assert lines and all(min(ln.get_xdata()) == plots.START_EXAMPLES for ln in lines)     # toy curves: 1..1000
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == len(ax.get_lines())                        # every curve has 3 runs: a band each
    text = fig._supxlabel.get_text()
    assert text.startswith("toy_table: full data, mean of 3 permutations; olk 0.1.0, commit 0123456789abcdef; "
                           "band: ±1 std over the runs; x from 100 examples")


def test_a_quick_run_says_so_and_a_short_stream_keeps_a_decade(tmp_path, monkeypatch):
    import json

    import pandas as pd
    d = tmp_path / "toy_table"
    shutil.copytree(FIX / "toy_table", d)
    meta = json.loads((d / "experiment.json").read_text())
    (d / "experiment.json").write_text(json.dumps({**meta, "scale": 0.05}))
    c = pd.read_csv(d / "curves.csv")
    c[c.t <= 100].to_csv(d / "curves.csv", index=False)                # a stream of 100 examples
    fig = _figure_of(monkeypatch, plots.plot_learning_curves, d)
    assert "5% of each dataset (quick mode)" in fig._supxlabel.get_text()
    assert min(min(ln.get_xdata()) for ln in fig.axes[0].get_lines()) == 10     # a tenth of the stream
    assert plots._start([]) == 1.0
