"""Paper-style tables (olk.report.tables) on hand-computed fixtures in tests/report_fixtures/.

toy_table: a9a and w7a run, covtype marked unavailable, Perceptron not run on w7a; 3 permutations each.
Every expected string below was computed by hand from toy_table/runs.csv (sample std, ddof=1).
"""
from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path

import pytest

from olk.report.tables import build_table, format_cell, render_table, write_tables

FIX = Path(__file__).parent / "report_fixtures"


@pytest.fixture
def toy(tmp_path):
    dst = tmp_path / "toy_table"
    shutil.copytree(FIX / "toy_table", dst)
    return dst


def _md_rows(md: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in md.splitlines() if line.startswith("|") and not line.startswith("|:")]


def test_markdown_cells_are_hand_computed(toy):
    rows = _md_rows(render_table(toy, "md"))
    # block 1: a9a | w7a
    assert rows[0] == ["Algorithm", "a9a: Accuracy (%)", "a9a: Time (s)", "a9a: #SVs",
                       "w7a: Accuracy (%)", "w7a: Time (s)", "w7a: #SVs"]
    assert rows[1] == ["Perceptron", "79.30 ± 0.20", "1.20 ± 0.10", "8,000 ± 50",
                       "not run", "not run", "not run"]
    # time > 100 s -> 3 significant digits; bold: the best mean of each dataset and metric (higher accuracy, lower
    # time and #SVs; both 1,000 #SVs tie); with 3 permutations no difference can be significant: no dagger
    assert rows[2] == ["SPA", "**82.04 ± 0.05**", "160 ± 10", "**1,000 ± 0**", "**97.20 ± 0.20**", "**2.20 ± 0.20**",
                       "520 ± 20"]
    assert rows[3] == ["SPA-last", "81.70 ± 0.20", "**0.50 ± 0.00**", "**1,000 ± 0**",
                       "97.10 ± 0.20", "1,240 ± 6", "**500 ± 0**"]
    # block 2: the unavailable dataset alone (datasets_per_block = 2)
    assert rows[4] == ["Algorithm", "covtype: Accuracy (%)", "covtype: Time (s)", "covtype: #SVs"]
    assert rows[5] == ["Perceptron"] + ["not run: data unavailable"] * 3
    assert len(rows) == 8


def test_markdown_notes_and_provenance(toy):
    md = render_table(toy, "md")
    assert md.startswith("# olk reproduction of toy_paper Table 1 (experiment toy_table)")
    assert "over 3 runs per cell" in md
    assert "covtype: not run: data unavailable (LIBSVM mirror unreachable)." in md
    assert "git 0123456789ab" in md


def test_rows_follow_config_order_and_tune_runs_are_ignored(toy):
    t = build_table(toy)
    assert [r[0] for r in t.rows] == ["perceptron", "spa", "spa_last"]
    assert t.blocks == [["a9a", "w7a"], ["covtype"]]
    # tune rows in the fixture have accuracy 50/60; they must not leak into the main aggregate
    assert t.cells[("spa", ""), "a9a"]["accuracy"] == "82.04 ± 0.05"


def test_tidy_csv(toy):
    rows = list(csv.DictReader(io.StringIO(render_table(toy, "csv"))))
    assert list(rows[0]) == ["dataset", "algorithm", "display", "metric", "mean", "std", "n_runs",
                             "setting", "status", "mark"]
    assert len(rows) == 3 * 3 * 3  # datasets x algorithms x metrics
    r = next(r for r in rows if r["dataset"] == "a9a" and r["algorithm"] == "spa" and r["metric"] == "accuracy")
    assert math.isclose(float(r["mean"]), 82.04) and math.isclose(float(r["std"]), math.sqrt(0.0028))
    assert r["n_runs"] == "3" and r["display"] == "SPA" and r["status"] == "ok" and r["mark"] == "best"
    r = next(r for r in rows if r["dataset"] == "w7a" and r["algorithm"] == "perceptron")
    assert r["status"] == "not run" and r["n_runs"] == "0" and r["mean"] == ""
    assert {r["status"] for r in rows if r["dataset"] == "covtype"} == {"data unavailable"}


def test_latex_structure(toy):
    tex = render_table(toy, "latex")
    assert tex.count("{") == tex.count("}")
    assert r"\begin{tabular}{lrrrrrr}" in tex and tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 1
    assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
    assert r"\multicolumn{3}{c}{a9a} & \multicolumn{3}{c}{w7a} \\" in tex
    assert r"\cmidrule(lr){2-4}\cmidrule(lr){5-7}" in tex
    assert r"Accuracy (\%) & Time (s) & \#SVs" in tex
    assert (r"SPA & \textbf{82.04 $\pm$ 0.05} & 160 $\pm$ 10 & \textbf{1,000 $\pm$ 0} & \textbf{97.20 $\pm$ 0.20}"
            in tex)
    assert r"Perceptron & 79.30 $\pm$ 0.20 & 1.20 $\pm$ 0.10 & 8,000 $\pm$ 50 & \multicolumn{3}{c}{not run} \\" in tex
    assert r"\multicolumn{3}{c}{not run: data unavailable} & & & \\" in tex
    assert r"toy\_paper" in tex and "±" not in tex
    for line in tex.splitlines():  # every body row has 7 columns (multicolumn counts its span)
        if line.endswith(r"\\"):
            spans = line.count("&") + 1 + sum(int(s) - 1 for s in
                                              [p.split("}")[0] for p in line.split(r"\multicolumn{")[1:]])
            assert spans == 7, line


def test_write_tables_writes_three_files(toy):
    written = write_tables(toy)
    assert [p.name for p in written] == ["table.md", "table.csv", "table.tex"]
    for p in written:
        assert p.parent == toy and p.stat().st_size > 0
    assert (toy / "table.md").read_text() == render_table(toy, "md")


@pytest.mark.parametrize("mean,std,kind,fmt,expected", [
    (82.0412, 0.2549, "percent", "int", "82.04 ± 0.25"),
    (3.8449, 0.01, "time", "int", "3.84 ± 0.01"),
    (151.2, 3.4, "time", "int", "151 ± 3"),
    (2863.0, 40.4, "time", "int", "2,860 ± 40"),
    (23456.0, 120.0, "count", "int", "23,456 ± 120"),
    (9876.0, 120.0, "count", "k", "9.9k ± 120"),
    (156000.0, 2000.0, "count", "k", "156.0k ± 2.0k"),
    (81.7, float("nan"), "percent", "int", "81.70"),
    (float("nan"), float("nan"), "percent", "int", "n/a"),
])
def test_number_formats(mean, std, kind, fmt, expected):
    assert format_cell(mean, std, kind, fmt) == expected


def test_sweep_rows_carry_their_setting():
    rows = _md_rows(render_table(FIX / "toy_sweep", "md"))
    names = [r[0] for r in rows[1:]]
    assert names[:3] == ["Perceptron", "SPA (alpha=0.1, beta=0.01)", "SPA (alpha=0.1, beta=0.1)"]
    assert names[-1] == "BOGD (budget=200)"
    assert rows[0][1] == "german: Mistake rate (%)"  # table_layout.metrics from experiment.json
    assert rows[1][1:] == ["33.50 ± 0.71", "0.04 ± 0.00", "335 ± 7"]


def test_experiment_json_datasets_and_single_run(tmp_path):
    d = tmp_path / "one"
    shutil.copytree(FIX / "toy_table", d)
    lines = (d / "runs.csv").read_text().splitlines()
    keep = [lines[0]] + [ln for ln in lines[1:] if ln.startswith("a9a-spa-main-0,")]
    (d / "runs.csv").write_text("\n".join(keep) + "\n")
    meta = json.loads((d / "experiment.json").read_text())
    meta.update(datasets=["ijcnn1", "a9a"], table_layout={"metrics": ["accuracy"], "datasets_per_block": 3})
    (d / "experiment.json").write_text(json.dumps(meta))
    rows = _md_rows(render_table(d, "md"))
    assert rows[0] == ["Algorithm", "ijcnn1: Accuracy (%)", "a9a: Accuracy (%)", "covtype: Accuracy (%)"]
    assert rows[1] == ["SPA", "not run", "82.00", "not run: data unavailable"]
    assert "over 1 run per cell" in render_table(d, "md")


def test_unknown_format_is_one_line_error(toy):
    from olk.errors import OlkError

    with pytest.raises(OlkError, match=r"unknown table format 'html'.*use md, csv or latex") as e:
        render_table(toy, "html")
    assert "\n" not in str(e.value)
