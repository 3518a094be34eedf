"""The click commands `table`, `compare`, `plot` (olk.report.cli), mounted on a stand-in group."""
from __future__ import annotations

import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from olk.report.cli import COMMANDS, register

FIX = Path(__file__).parent / "report_fixtures"


@pytest.fixture
def olk():
    @click.group()
    def group():
        pass

    register(group)
    return group


@pytest.fixture
def toy(tmp_path):
    dst = tmp_path / "toy_table"
    shutil.copytree(FIX / "toy_table", dst)
    return dst


def _run(olk, *args):
    return CliRunner().invoke(olk, [str(a) for a in args], catch_exceptions=False)


def test_commands_are_named():
    assert [c.name for c in COMMANDS] == ["table", "compare", "plot", "report", "stats"]


def test_table_prints_and_writes(olk, toy, tmp_path):
    out = tmp_path / "t.tex"
    r = _run(olk, "table", toy, "--format", "latex", "--out", out)
    assert r.exit_code == 0, r.output
    assert r"\begin{tabular}" in r.output and out.read_text().startswith("% olk reproduction")
    assert {"table.md", "table.csv", "table.tex"} <= {p.name for p in toy.iterdir()}
    r = _run(olk, "table", toy)
    assert "| SPA | **82.04 ± 0.05** | 160 ± 10 |" in r.output


def test_compare_with_tolerances(olk, toy):
    pub = FIX / "toy_paper_table1.csv"
    r = _run(olk, "compare", toy, "--published", pub, "--tol", "time=50%", "--out", toy / "c.csv")
    assert r.exit_code == 0, r.output
    assert "| Perceptron | time | 1.20 ± 0.10 | 2.00 | -0.80 (-40.0%) | within tolerance |" in r.output
    assert (toy / "compare.md").is_file() and (toy / "c.csv").read_text().startswith("dataset,algorithm")
    r = _run(olk, "compare", toy, "--published", pub, "--strict")
    assert r.exit_code == 1 and "1 cell(s) are off" in r.output


def test_plot_kinds(olk, toy):
    r = _run(olk, "plot", toy, "--kind", "curves")
    assert r.exit_code == 0, r.output
    assert r.output.split() == [str(toy / "figures" / "learning_curves.png"),
                                str(toy / "figures" / "learning_curves.pdf")]
    r = _run(olk, "plot", toy, "--kind", "sensitivity")
    assert r.exit_code == 1 and "no parameter varies" in r.output


@pytest.mark.parametrize("args,expected", [
    (["table", "{missing}"], "does not exist"),
    (["compare", "{toy}", "--tol", "acc=1", "--published", "{pub}"], "unknown metric 'acc'"),
    (["plot", "{toy}", "--kind", "sensitivity", "--x", "alpha"], "parameter 'alpha' is not in the params"),
])
def test_errors_are_one_line(olk, toy, tmp_path, args, expected):
    fill = {"missing": tmp_path / "nope", "toy": toy, "pub": FIX / "toy_paper_table1.csv"}
    r = _run(olk, *[a.format(**fill) for a in args])
    assert r.exit_code == 1
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and expected in lines[0]
