"""The report layer on regression results (the AMKL tables): pairing with the paper's rows per metric, the
table's units in every ours-vs-paper table, the Gaussian width as sigma, the run-count wording of file-order
streams, the figures' task-declared metrics and the learning curves of a diverging learner.

The results directory is fabricated (runs.csv, curves.csv, experiment.json as ``olk run`` writes them) so the
expected cells are known exactly."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from olk.report import plots
from olk.report.compare import compare
from olk.report.markdown import render_report
from olk.report.tables import render_table

PUB_COLUMNS = ["paper", "table", "dataset", "algorithm", "paper_label", "metric", "mean", "std", "unit", "note"]
PUB = [
    ["amkl", "II", "tom", "kl_rbf", "KL-RBF (=0.1)", "mse", "14.36", "", "1e-3", ""],
    ["amkl", "II", "tom", "kl_rbf", "KL-RBF (=1)", "mse", "16.82", "", "1e-3", ""],
    ["amkl", "II", "tom", "poly3", "POLY3", "mse", "22.67", "", "1e-3", ""],
    ["amkl", "II", "tom", "amkl_aks", "AMKL-AKS", "mse", "3.46", "", "1e-3", ""],
    # the paper prints AMKL-AKS's efficiency in a row of its own, under another label
    ["amkl", "II", "tom", "amkl_aks", "Efficiency ()", "efficiency", "0.65", "", "fraction", ""],
]


def _run(rid, label, algorithm, display, mse, perm=0, eff=1.0, setting="", kernel=None, params=None, t=9725):
    return {"run_id": rid, "experiment": "amkl_table2", "phase": "main", "dataset": "tom", "algorithm": algorithm,
            "label": label, "display": display, "params": json.dumps(params or {}), "task": "regression",
            "kernel": json.dumps(kernel or {"kind": "gaussian", "gamma": 0.5}), "perm": perm, "seed": 2020,
            "scale": 1.0, "n_examples": t, "n_sv": 0, "time_s": 1.0 + perm, "mse": mse,
            "label_efficiency": eff, "n_labels": int(eff * t), "setting": setting}


@pytest.fixture
def amkl(tmp_path):
    d = tmp_path / "results" / "amkl_table2"
    d.mkdir(parents=True)
    runs = [_run("g1", "kl_rbf", "kogd_reg", "KL-RBF", 0.00566, setting="kernel.gamma=50",
                 kernel={"kind": "gaussian", "gamma": 50.0}),
            _run("g2", "kl_rbf", "kogd_reg", "KL-RBF", 0.00896, setting="kernel.gamma=0.5",
                 kernel={"kind": "gaussian", "gamma": 0.5}),
            _run("p3", "poly3", "kogd_reg", "POLY3", float("nan"), kernel={"kind": "polynomial", "degree": 3})]
    runs += [_run(f"a{p}", "amkl_aks", "amkl_aks", "AMKL-AKS", m, perm=p, eff=e, params={"epsilon": 0.005})
             for p, (m, e) in enumerate([(0.0040, 0.60), (0.0042, 0.61), (0.0041, 0.62)])]
    pd.DataFrame(runs).to_csv(d / "runs.csv", index=False)
    t = np.array([1, 10, 100, 1000, 9725])
    curves = [{"run_id": "g1", "t": int(x), "mse": v} for x, v in zip(t, [1e-3, 8e-3, 7e-3, 6e-3, 5.66e-3])]
    curves += [{"run_id": "g2", "t": int(x), "mse": v} for x, v in zip(t, [1e-3, 9e-3, 9e-3, 9e-3, 8.96e-3])]
    curves += [{"run_id": "p3", "t": int(x), "mse": v} for x, v in zip(t, [1e-3, 1e-2, 1e40, 1e120, 1e251])]
    for p in range(3):
        curves += [{"run_id": f"a{p}", "t": int(x), "mse": v} for x, v in zip(t, [1e-3, 5e-3, 4.5e-3, 4.2e-3, 4.1e-3])]
    pd.DataFrame(curves, columns=["run_id", "t", "mistake_rate", "mse"]).to_csv(d / "curves.csv", index=False)
    meta = {"name": "amkl_table2", "paper": "amkl", "table": "II", "datasets": ["tom"], "repeats": 3,
            "settings": {"shuffle": False},
            "table_layout": {"metrics": ["mse", "label_efficiency", "time_s"], "units": {"mse": 0.001},
                             "gaussian_width": "sigma"}}
    (d / "experiment.json").write_text(json.dumps(meta))
    paper = tmp_path / "paper"
    paper.mkdir()
    pd.DataFrame(PUB, columns=PUB_COLUMNS).to_csv(paper / "amkl_tableII.csv", index=False)
    return d, paper / "amkl_tableII.csv"


def _cell(c, algorithm, metric, **kw):
    sel = c.cells[(c.cells["algorithm"] == algorithm) & (c.cells["metric"] == metric)]
    for k, v in kw.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, sel
    return sel.iloc[0]


def test_an_algorithm_printed_under_two_paper_labels_is_compared_on_both_metrics(amkl):
    d, pub = amkl
    c = compare(d, published=pub)
    mse = _cell(c, "amkl_aks", "mse")
    eff = _cell(c, "amkl_aks", "efficiency")
    assert (mse["paper_label"], mse["paper_mean"]) == ("AMKL-AKS", pytest.approx(0.00346))
    assert mse["ours_mean"] == pytest.approx(0.0041) and mse["verdict"] == "off"          # +18.5%
    assert (eff["paper_label"], eff["paper_mean"]) == ("Efficiency ()", 0.65)
    assert eff["ours_mean"] == pytest.approx(0.61) and eff["verdict"] == "within tolerance"
    assert mse["row"] == eff["row"] == "amkl_aks|"          # one table row: our one setting
    assert not (c.cells["algorithm"] == "amkl_aks").any() or "not run" not in set(
        c.cells.loc[c.cells["algorithm"] == "amkl_aks", "verdict"])
    # a metric the paper does not print for the row (time) keeps the row's label; settings still pair by number
    assert _cell(c, "amkl_aks", "time")["paper_label"] == "AMKL-AKS"
    assert _cell(c, "kl_rbf", "mse", setting="kernel.gamma=50")["paper_label"] == "KL-RBF (=0.1)"
    assert _cell(c, "kl_rbf", "mse", setting="kernel.gamma=0.5")["paper_label"] == "KL-RBF (=1)"
    # POLY3 ran but its MSE overflowed (NaN): 'off', not 'not run'
    poly = _cell(c, "poly3", "mse")
    assert poly["verdict"] == "off" and poly["n_runs"] == 1 and "diverged" in poly["paper_note"]
    assert "| POLY3 | mse (x0.001) | not finite (diverged) | 22.7 |  | off (open) |" in c.to_markdown()


def test_ours_vs_paper_tables_use_the_layouts_units_and_sigma(amkl):
    d, pub = amkl
    md = compare(d, published=pub).to_markdown()
    assert "| AMKL-AKS | mse (x0.001) | 4.1 ± 0.1 | 3.46 | +0.64 (+18.5%) | off (open) |" in md
    assert "| AMKL-AKS [Efficiency ()] | efficiency | 0.61 ± 0.01 | 0.65 | -0.04 | within tolerance |" in md
    assert "| KL-RBF (σ=0.1) [KL-RBF (=0.1)] | mse (x0.001) | 5.66 | 14.4 |" in md
    assert "0.0041" not in md and "0.00346" not in md
    table = render_table(d)
    assert "KL-RBF (σ=0.1)" in table and "KL-RBF (σ=1)" in table and "kernel.gamma" not in table
    text, _ = render_report(d.parent, d.parent, published=pub.parent)
    assert "| MSE (x0.001): ours | paper | diff | verdict |" in text
    # AMKL-AKS is one row, compared on both of its paper labels
    row = next(line for line in text.splitlines() if line.startswith("| AMKL-AKS"))
    assert row.startswith("| AMKL-AKS \\[Efficiency ()\\] | 4.1 ± 0.1 | 3.46 | +0.64 (+18.5%) | **off** (open) |")
    assert "| 0.61 ± 0.01 | 0.65 | -0.04 | within tolerance |" in row
    assert len([line for line in text.splitlines() if line.startswith("| AMKL-AKS")]) == 1


def test_file_order_runs_are_not_called_permutations(amkl):
    d, pub = amkl
    table = render_table(d)
    assert "one per data permutation" not in table
    assert "over 1-3 runs per cell; the data are streamed in file order (shuffle: false), so a learner with " \
           "random draws (e.g. random features) runs once per seed (3 seeds)" in table
    text, _ = render_report(d.parent, d.parent, published=pub.parent)
    assert "permutations per cell" not in text
    assert "(file order, no permutation: 3 seeds per cell for a learner with random draws, 1 run for a " \
           "deterministic one)" in text


def _captured(monkeypatch):
    figs = []
    monkeypatch.setattr(plots, "_save", lambda fig, res, stem, out_dir: figs.append((stem, fig)) or [stem])
    return figs


def test_sensitivity_panels_are_the_tasks_metrics(tmp_path, monkeypatch):
    d = tmp_path / "fig2"
    d.mkdir()
    runs = [_run(f"r{i}{p}", "amkl_aks", "amkl_aks", "AMKL-AKS", 0.004 + 0.0001 * i, perm=p, eff=0.7 - 0.05 * i,
                 setting=f"M=1, epsilon={eps}", params={"epsilon": eps, "M": 1})
            for i, eps in enumerate([0.001, 0.005, 0.02]) for p in range(2)]
    pd.DataFrame(runs).to_csv(d / "runs.csv", index=False)
    (d / "experiment.json").write_text(json.dumps({"name": "fig2", "table_layout": {"units": {"mse": 0.001}}}))
    figs = _captured(monkeypatch)
    plots.plot_param_sensitivity(d, x="epsilon", series="M")
    (stem, fig), = figs
    assert [ax.get_ylabel() for ax in fig.axes] == ["MSE (x0.001)", "Efficiency ρ"]     # not #SVs / accuracy
    line = fig.axes[0].lines[0]
    assert np.allclose(line.get_ydata(), [4.0, 4.1, 4.2])                               # in the table's unit
    figs.clear()
    plots.plot_param_sensitivity(d, x="epsilon", series="M", metrics=["time_s"])          # an explicit choice wins
    assert [ax.get_ylabel() for ax in figs[0][1].axes] == ["Time (s)"]


def test_learning_curves_range_the_converging_curves_and_name_the_diverged_one(amkl, monkeypatch):
    d, _ = amkl
    figs = _captured(monkeypatch)
    plots.plot_learning_curves(d)
    (stem, fig), = figs
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "Online MSE (running average) (x0.001)"
    assert lo == pytest.approx(4.1 / 2) and hi == pytest.approx(9.0 * 2)     # converging curves from t >= T/100
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "POLY3 (diverged on tom: final 1e+254)" in legend                 # 1e251 in units of 1e-3
    assert "KL-RBF (σ=0.1)" in legend and "AMKL-AKS" in legend
    assert any("diverged, off the axis: POLY3" in t.get_text() for t in ax.texts)
    assert max(np.nanmax(line.get_ydata()) for line in ax.lines) <= 10 * hi  # drawn clipped


def test_an_unavailable_dataset_shows_the_papers_numbers_beside_not_run(amkl):
    d, pub = amkl
    meta = json.loads((d / "experiment.json").read_text())
    meta["unavailable"] = {"twitter_l": "not public"}
    meta["datasets"] = ["tom", "twitter_l"]
    (d / "experiment.json").write_text(json.dumps(meta))
    rows = pd.read_csv(pub, dtype=str, keep_default_na=False)
    extra = rows[rows["algorithm"] == "amkl_aks"].assign(dataset="twitter_l")
    extra.loc[extra["metric"] == "mse", "mean"] = "3.18"
    pd.concat([rows, extra]).to_csv(pub, index=False)
    text, _ = render_report(d.parent, d.parent, published=pub.parent)
    section = text[text.index("#### twitter_l — not run: data unavailable"):]
    row = next(line for line in section.splitlines() if line.startswith("| AMKL-AKS"))
    assert "| — | 3.18 |  | not run: data unavailable |" in row and "| — | 0.65 |  | not run: data unavailable |" in row
    assert "**Not run: data unavailable:** twitter_l (not public)" in text
