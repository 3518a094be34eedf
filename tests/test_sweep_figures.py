"""A sweep's figures (olk.report.plots.plot_sweep): one figure per swept parameter, every learner that sweeps it a
line (its own style) and no other learner, no 'nan' in a legend, the swept values as readable ticks."""
from __future__ import annotations

import pytest

from olk.experiment import Runner, parse_config
from olk.experiment.plan import variant
from olk.report import plots

RAW = {"name": "sw", "seed": 1, "repeats": 2, "kernel": {"type": "gaussian", "gamma": 0.4},
       "datasets": ["a9a-small"],
       "algorithms": ["pa1", "rbp", "bpas", {"name": "spa", "params": {"alpha": 1}}]}


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "sw"
    cfg = variant(parse_config(RAW, "sw.yaml"), scale=0.5, sets={"budget": [20, 50, 200], "C": [0.5, 2]},
                  sweep=True)
    Runner(cfg, out, progress=False, log=lambda m: None).run()
    return out


def _figures(monkeypatch, fn, *args, **kw):
    drawn = {}

    def keep(fig, res, stem, out_dir):
        drawn[stem] = fig
        return [stem]
    monkeypatch.setattr(plots, "_save", keep)
    fn(*args, **kw)
    return drawn


def test_one_figure_per_swept_parameter_with_the_learners_that_have_it(swept, monkeypatch):
    figs = _figures(monkeypatch, plots.plot_all, swept)
    assert {"sweep_budget", "sweep_C"} <= set(figs)
    assert not [s for s in figs if s.startswith("sensitivity_")]          # no per-learner panel soup
    legend = {f: [t.get_text() for t in figs[f].legends[0].get_texts()] for f in ("sweep_budget", "sweep_C")}
    # budget: RBP alone, BPA-S once per C (it sweeps both); PA-I and SPA have no budget: no line
    assert legend["sweep_budget"] == ["RBP", "BPAS (C=0.5)", "BPAS (C=2)"]
    # C: PA-I, and BPA-S once per budget; RBP and SPA have no C
    assert legend["sweep_C"] == ["PA-I", "BPAS (budget=20)", "BPAS (budget=50)", "BPAS (budget=200)"]
    assert not any("nan" in t for ts in legend.values() for t in ts)
    ax = figs["sweep_budget"].axes[0]
    assert ax.get_xscale() == "log" and [t.get_text() for t in ax.get_xticklabels()] == ["20", "50", "200"]
    colours = {line.get_label(): line.get_color() for line in ax.get_lines() if not line.get_label().startswith("_")}
    rbp_style = plots.algorithm_styles()["rbp"]
    assert colours.get("RBP", rbp_style[0]) == rbp_style[0]


def test_one_parameter_on_request_and_a_bad_one_is_one_line(swept, monkeypatch):
    figs = _figures(monkeypatch, plots.plot_sweep, swept, param="C")
    assert list(figs) == ["sweep_C"]
    from olk.errors import OlkError
    with pytest.raises(OlkError, match=r"parameter 'beta' is not swept by any learner .*; swept: C, budget"):
        plots.plot_sweep(swept, param="beta")


def test_many_values_thin_and_slant_their_ticks():
    import numpy as np
    from matplotlib.figure import Figure
    ax = Figure().subplots()
    plots._numeric_ticks(ax, np.arange(1.0, 31.0))
    labels = ax.get_xticklabels()
    assert len(labels) == 10 and all(t.get_rotation() == 35 for t in labels)
