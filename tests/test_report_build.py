"""`olk report` (olk.report.report.build_report): the reproduction report over a results root.

Offline: a temporary results root holding a copy of tests/report_fixtures/toy_table relabelled as a
reproduction of SPA (TIST 2018) Table 2, the toy_sweep fixture (scale 0.5: a quick run, SPA Table 5),
an in-progress directory (experiment.json, no runs.csv) and hand-written notes; the published values
are the real results/paper/ tables (and, in one test, the toy published table of the fixtures).
"""
from __future__ import annotations

import base64
import json
import re
import shutil
import struct
import zlib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from olk.report.catalogue import PAPERS
from olk.report.cli import report_cmd
from olk.report.html import markdown_to_html
from olk.report.markdown import GENERATED
from olk.report.paper import list_tables
from olk.report.report import build_report

FIX = Path(__file__).parent / "report_fixtures"

NOTES_T2 = """#### Why SPA's #SVs differ

- the budget rule samples *with* replacement (see `olk/algorithms/single/spa.py`);
- timing is on other hardware.

A pipe | in prose and a [link](https://example.org)."""
OVERVIEW = "## Overview\n\nHand-written overview: 1 of 12 tables attempted."


def _png_1x1() -> bytes:
    """A valid 1x1 PNG: stands in for figures where drawing them is not what a test checks (slow)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b""))


PNG_1X1 = _png_1x1()


def _make_root(root: Path) -> Path:
    toy = root / "toy_table"
    shutil.copytree(FIX / "toy_table", toy)
    meta = json.loads((toy / "experiment.json").read_text())
    meta.update(paper="spa_tist2018", table="2", status="finished")
    (toy / "experiment.json").write_text(json.dumps(meta))
    shutil.copytree(FIX / "toy_sweep", root / "toy_sweep")
    running = root / "spa_table6_run"
    running.mkdir()
    (running / "experiment.json").write_text(json.dumps(
        {"name": "spa_table6_run", "paper": "spa_tist2018", "table": "6", "status": "running",
         "started": "2024-01-02T00:00:00"}))
    (root / "notes").mkdir()
    (root / "notes" / "spa_tist2018_table2.md").write_text(NOTES_T2 + "\n")
    (root / "notes" / "overview.md").write_text(OVERVIEW + "\n")
    return root


def _configs(d: Path) -> Path:
    d.mkdir()
    (d / "spa_t3.yaml").write_text('name: spa_t3\npaper: spa_tist2018\ntable: "3"\ndatasets: [a9a]\n')
    (d / "spa_t3_quick.yaml").write_text('name: q\npaper: spa_tist2018\ntable: 3\nscale: 0.1\n')
    (d / "unrelated.yaml").write_text("name: x\ndatasets: [a9a]\n")
    return d


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    root = _make_root(base / "results")
    files = build_report(root, configs_dir=_configs(base / "configs"))
    return root, files, files[0].read_text(encoding="utf-8")


def _section(md: str, paper: str, table: str) -> str:
    """The Markdown of one published table's section (up to the next table's anchor)."""
    start = md.index(f'<a id="{re.sub(r"[^a-z0-9]+", "-", f"{paper}-table{table}".lower())}"></a>')
    nxt = md.find('<a id="', start + 1)
    end = md.find("\n## Other results", start)
    stops = [x for x in (nxt, end) if x != -1]
    return md[start:min(stops) if stops else len(md)]


def test_files_and_generated_header(built):
    root, files, md = built
    assert files[:2] == [root / "REPRODUCTION.md", root / "REPRODUCTION.html"]
    assert md.splitlines()[0] == GENERATED and "olk report" in GENERATED and "not edit" in GENERATED
    assert any(p.suffix == ".png" for p in files[2:])  # missing figures were drawn
    # the generated Overview first, then the hand-written notes/overview.md
    assert OVERVIEW in md and md.index("### Verdicts per table") < md.index(OVERVIEW) < md.index('<a id="')


def test_every_published_table_has_a_section(built):
    _, _, md = built
    tables = list_tables()
    assert len(tables) == 13
    for paper, table in tables:
        sec = _section(md, paper, table)
        assert f"## Table {table} of “{PAPERS[paper]['title']}”" in sec
        assert "### Known deviations and why" in sec
    # dataset-summary tables are a short note with the printed sizes
    assert "Dataset-summary table" in _section(md, "spa_tist2018", "1")
    assert "| a9a | 48,842 | 123 |" in _section(md, "spa_tist2018", "1")


def test_table_without_results_is_not_yet_run(built):
    _, _, md = built
    t3 = _section(md, "spa_tist2018", "3")
    assert "**Not yet run.**" in t3
    assert "spa_t3.yaml" in t3 and "olk run " in t3 and "unrelated.yaml" not in t3
    assert "quick run, not a reproduction" in t3  # the scale-0.1 config is labelled
    assert t3.index("spa_t3.yaml") < t3.index("spa_t3_quick.yaml")  # full-scale config first
    assert "No config in configs/" in _section(md, "amkl", "II")
    t6 = _section(md, "spa_tist2018", "6")  # in progress: experiment.json but no runs.csv yet
    assert "**Not yet run.**" in t6 and "no runs.csv yet (status: running" in t6


def test_comparison_with_provenance(built):
    root, _, md = built
    t2 = _section(md, "spa_tist2018", "2")
    assert "### Results: toy_table" in t2 and "(toy_table/)" in t2
    assert "olk run configs/toy_table.yaml" in t2 and "`0123456789abcdef`" in t2
    assert "**Machine:** test-box" in t2 and "2024-01-01T00:10:00" in t2 and "olk version:** 0.1.0" in t2
    assert "**Not run: data unavailable:** covtype (LIBSVM mirror unreachable)" in t2
    # ours 82.04 ± 0.05 vs SPA Table 2's a9a SPA 82.04 ± 0.25
    assert "| SPA | 82.04 ± 0.05 | 82.04 ± 0.25 | +0.00 | within paper std |" in t2
    assert "**Verdicts**" in t2 and "#### Ranking agreement" in t2 and "Kendall tau" in t2
    assert "![learning_curves](toy_table/figures/learning_curves.png)" in t2
    assert (root / "toy_table" / "figures" / "learning_curves.png").is_file()
    assert "Also in the paper, not run here:" in t2 and "Paper datasets not in this experiment:" in t2
    verdicts = md.split("### Verdicts per table")[1].split("### Provenance")[0]
    assert "| SPA (TIST 2018) [Table 2](#spa-tist2018-table2) |" in verdicts
    provenance = md.split("### Provenance")[1].split("### How to read")[0]
    assert "| [toy_table/](toy_table/) | main |" in provenance


def test_notes_included_verbatim(built):
    _, _, md = built
    t2 = _section(md, "spa_tist2018", "2")
    assert "### Known deviations and why\n\n" + NOTES_T2 + "\n" in t2
    assert "_No notes yet: write " in _section(md, "spa_tist2018", "3")


def test_quick_runs_are_not_reproductions(built):
    _, _, md = built
    t5 = _section(md, "spa_tist2018", "5")
    assert "toy_sweep" not in t5 and "**Not yet run.**" in t5
    other = md[md.index("## Other results"):]
    assert "toy_sweep/" in other and "scale 0.5" in other and "not a reproduction" in other


def test_include_quick_shows_them_marked(tmp_path):
    root = _make_root(tmp_path / "results")
    for d in ("toy_table", "toy_sweep"):
        (root / d / "figures").mkdir()
        (root / d / "figures" / "existing.png").write_bytes(PNG_1X1)
    md = build_report(root, html=False, include_quick=True)[0].read_text()
    t5 = _section(md, "spa_tist2018", "5")
    assert "### Results: toy_sweep" in t5 and "**Quick run:**" in t5
    ran = md.split("### What ran")[1].split("### What could not run")[0]
    assert ("| [toy_sweep/](toy_sweep/) | SPA (TIST 2018) [Table 5](#spa-tist2018-table5) | reading not labelled; "
            "quick run: ") in ran
    assert "toy_sweep" not in md.split("### Verdicts per table")[1].split("### How to read")[0]  # not counted
    assert "![existing](toy_sweep/figures/existing.png)" in t5  # existing figures are linked, not redrawn
    assert not (root / "toy_sweep" / "figures" / "accuracy_vs_time_s.png").exists()


def test_html_is_self_contained(built):
    root, files, md = built
    html = files[1].read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and GENERATED in html
    assert re.search(r'<img [^>]*src="data:image/png;base64,', html)
    assert 'src="toy_table/figures' not in html
    assert "<table>" in html and '<td class="r">82.04 ± 0.05</td>' in html
    assert "<h4 id=\"why-spas-svs-differ\">Why SPA's #SVs differ</h4>" in html  # notes converted
    assert ("<li>the budget rule samples <em>with</em> replacement (see <code>olk/algorithms/single/spa.py</code>);"
            "</li>") in html
    assert '<a href="https://example.org">link</a>' in html
    assert re.search(r"<pre><code[^>]*>olk run configs/toy_table.yaml\s*</code></pre>", html)
    assert "<!--" not in html.split("<body>")[1]  # comments of notes files are dropped
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids))


def test_rerun_is_identical(built):
    root, _, md = built
    first = {p: p.read_bytes() for p in (root / "figures").iterdir()}
    again = build_report(root, html=False, configs_dir=root.parent / "configs")
    # the results directories' figures exist now: only the report and its first figure (always drawn) are written
    assert again == [root / "REPRODUCTION.md", root / "figures" / "reproduction_overview.png",
                     root / "figures" / "reproduction_overview.pdf"]
    assert again[0].read_text(encoding="utf-8") == md
    assert {p: p.read_bytes() for p in (root / "figures").iterdir()} == first      # byte for byte


def test_custom_published_dir(tmp_path):
    root = tmp_path / "results"
    shutil.copytree(FIX / "toy_table", root / "toy_table")
    (root / "toy_table" / "figures").mkdir()
    (root / "toy_table" / "figures" / "f.png").write_bytes(PNG_1X1)
    md = build_report(root, out=tmp_path / "out" / "R.md", html=False, published=FIX)[0].read_text()
    assert "Table 1 of toy_paper" in md
    assert "| Perceptron | 79.30 ± 0.20 | 79.00 ± 0.50 | +0.30 | within paper std |" in md
    assert "(../results/toy_table/)" in md  # links are relative to the output file


def test_markdown_to_html_subset(tmp_path):
    md = ("# T\n\n| a | b \\| c |\n|:---|---:|\n| `x\\|y` | **2** |\n\n1. one\n2. two\n   - nested\n\n"
          "> quote *it*\n\n```\n<raw> & code\n```\n")
    html = markdown_to_html(md, tmp_path)
    assert '<th class="r">b | c</th>' in html and "<td><code>x|y</code></td>" in html
    assert "<ol>" in html and "<ul>\n<li>nested</li>" in html
    assert "<blockquote>\n<p>quote <em>it</em></p>" in html
    assert re.search(r"<pre><code>&lt;raw&gt; &amp; code\s*</code></pre>", html)


def test_markdown_to_html_table_code_anchor_image(tmp_path):
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / "a b.png").write_bytes(PNG_1X1)
    md = ("<!-- a comment -->\n\n# Report\n\nSee [the results](#results-a9a) and [anchor](#t2).\n\n"
          '<a id="t2"></a>\n\n## Results: a9a\n\n| Algorithm | Accuracy |\n|:---|---:|\n| SPA \\| avg | 82.04 |\n\n'
          "```sh\nolk run configs/x.yaml --set a=<1> & echo\n```\n\n![curves](figs/a%20b.png)\n\n"
          "![remote](https://example.org/x.png) ![missing](figs/none.png)\n")
    html = markdown_to_html(md, tmp_path, title="T & t")
    assert html.startswith("<!DOCTYPE html>\n" + GENERATED) and "<title>T &amp; t</title>" in html
    assert "td.r,th.r{text-align:right}" in html  # the same CSS
    body = html.split("<body>")[1]
    assert "<!--" not in body
    # table, alignment as CSS class, escaped pipe kept in its cell
    assert "<table>" in body and '<th class="r">Accuracy</th>' in body
    assert "<td>SPA | avg</td>" in body and '<td class="r">82.04</td>' in body
    # fenced code, escaped
    assert "olk run configs/x.yaml --set a=&lt;1&gt; &amp; echo" in body and "<pre><code" in body
    # anchor targets of the in-page links
    assert '<h2 id="results-a9a">Results: a9a</h2>' in body and '<a href="#results-a9a">the results</a>' in body
    assert '<a id="t2"></a>' in body and '<a href="#t2">anchor</a>' in body
    # local image embedded (path percent-decoded); remote and missing images left alone
    src = re.search(r'<img [^>]*alt="curves"[^>]*>', body).group(0)
    assert f'src="data:image/png;base64,{base64.b64encode(PNG_1X1).decode()}"' in src
    assert 'src="https://example.org/x.png"' in body and 'src="figs/none.png"' in body


@pytest.fixture
def olk():
    @click.group()
    def group():
        pass

    group.add_command(report_cmd)
    return group


def test_cli(olk, tmp_path):
    root = _make_root(tmp_path / "results")
    (root / "toy_table" / "figures").mkdir()
    (root / "toy_table" / "figures" / "f.png").write_bytes(PNG_1X1)
    r = CliRunner().invoke(olk, ["report", "--results", str(root), "--no-html"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert str(root / "REPRODUCTION.md") in r.output.splitlines()
    assert not (root / "REPRODUCTION.html").exists()
    r = CliRunner().invoke(olk, ["report", "--results", str(tmp_path / "nope")], catch_exceptions=False)
    assert r.exit_code == 1 and "Error: results root" in r.output and len(r.output.strip().splitlines()) == 1


def test_figure_experiments_get_their_own_section_with_figures(tmp_path):
    from olk.experiment import Runner, load_config
    cfg_file = tmp_path / "fig.yaml"
    cfg_file.write_text("""
name: tiny_fig2
paper: spa_tist2018
table: fig2
description: tiny alpha x beta sweep
seed: 1
repeats: 2
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms:
  - name: spa
    params: {eta: 0.1}
    sweep: {alpha: [0.5, 1], beta: [5, 10]}
""")
    root = tmp_path / "results"
    Runner(load_config(cfg_file), root / "tiny_fig2", progress=False, log=lambda m: None).run()
    (root / "notes").mkdir()
    (root / "notes" / "spa_tist2018_fig2.md").write_text("#### Reading\n\nHAND-WRITTEN FIGURE NOTE\n")
    md = build_report(root, html=False, configs_dir=tmp_path / "none")[0].read_text()
    fig = md[md.index("# Figures"):]
    assert "Figure 2: tiny alpha x beta sweep" in fig
    assert "HAND-WRITTEN FIGURE NOTE" in fig
    assert "sensitivity_alpha_beta_a9a-small_spa.png" in fig
    assert (root / "tiny_fig2" / "figures" / "sensitivity_alpha_beta_a9a-small_spa.png").is_file()
