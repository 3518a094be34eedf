"""The causes of off cells (results/annotations.yaml, olk.report.annotations): every off cell gets a category
(evidenced, paper, open), the committed annotations name only off cells, and a bad entry is one line naming the
file, the line and the key.

The hand-made case is tests/report_fixtures/toy_table against toy_paper_table1.csv: its one off cell is a9a
SPA-last accuracy (81.70 vs 84.00 ± 0.40), see test_report_compare.py.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from olk.errors import OlkError
from olk.report.annotations import load_annotations, stale_annotations
from olk.report.compare import compare, reproduction_comparisons

REPO = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "report_fixtures"
PUB = FIX / "toy_paper_table1.csv"


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "results"
    shutil.copytree(FIX / "toy_table", r / "toy_table")
    (r / "notes").mkdir()
    (r / "notes" / "why.md").write_text("SPA-last collapses on one permutation.\n")
    return r


def _write(root: Path, text: str) -> None:
    (root / "annotations.yaml").write_text(text, encoding="utf-8")


def _off(c):
    return c.cells[c.cells["verdict"] == "off"]


ENTRY = """causes:
  - paper: toy_paper
    table: "1"
    dataset: a9a
    algorithm: spa_last
    metric: accuracy
    category: evidenced
    cause: the last classifier collapses
    evidence: notes/why.md#collapse
"""


def test_committed_annotations_name_only_off_cells_and_none_twice():
    """Every (table, dataset, algorithm, metric) an entry of results/annotations.yaml names is an off cell of a
    results directory of its table: an annotation cannot outlive the cell it explains."""
    assert (REPO / "results" / "annotations.yaml").is_file()
    assert stale_annotations(REPO / "results", reproduction_comparisons(REPO / "results")) == []


def test_an_unannotated_off_cell_is_open_and_an_annotated_one_takes_its_category(root):
    c = compare(root / "toy_table", published=PUB)
    assert list(_off(c)["cause_category"]) == ["open"] and c.causes() == {"open": 1}
    _write(root, ENTRY)
    c = compare(root / "toy_table", published=PUB)
    r = _off(c).iloc[0]
    assert (r["cause_category"], r["cause"], r["evidence"]) == ("evidenced", "the last classifier collapses",
                                                                "notes/why.md#collapse")
    assert c.causes() == {"evidenced": 1}
    md = c.to_markdown()
    assert "| SPA-last | accuracy | 81.70 ± 0.20 | 84.00 ± 0.40 | -2.30 | off (evidenced) |" in md
    assert ("- SPA-last, accuracy: *evidenced*: the last classifier collapses "
            "([notes/why.md#collapse](../notes/why.md#collapse))") in md
    assert "1 off (1 evidenced)" in md
    head, *rows = c.to_csv().splitlines()
    assert head.endswith(",data,cause_category,cause,evidence,quote,tried")
    assert [x for x in rows if ",evidenced,the last classifier collapses,notes/why.md#collapse,," in x]


def test_paper_and_open_entries_render_their_quote_and_what_was_tried(root):
    _write(root, ENTRY.replace("category: evidenced", "category: paper").replace(
        "evidence: notes/why.md#collapse", "quote: \"SPA-last 84.00 ± 0.40 (printed twice)\""))
    md = compare(root / "toy_table", published=PUB).to_markdown()
    assert "*paper*: the last classifier collapses; the paper: “SPA-last 84.00 ± 0.40 (printed twice)”" in md
    _write(root, ENTRY.replace("category: evidenced", "category: open").replace(
        "evidence: notes/why.md#collapse", "tried: beta = 10 (no change)"))
    md = compare(root / "toy_table", published=PUB).to_markdown()
    assert "*open*: the last classifier collapses; tried: beta = 10 (no change)" in md


def test_an_entry_naming_no_off_cell_or_claimed_twice_is_reported(root):
    item = ENTRY.split("\n", 1)[1]
    _write(root, "causes:\n" + item + item.replace("algorithm: spa_last", "algorithm: [spa_last, spa]"))
    comps = [compare(root / "toy_table", published=PUB)]
    out = stale_annotations(root, comps)
    assert out == ["line 10: toy_paper Table 1 a9a spa accuracy is not an off cell",
                   "lines 2, 10: toy_paper Table 1 a9a spa_last accuracy in toy_table is explained twice"]
    _write(root, ENTRY.replace("metric: accuracy", "metric: accuracy\n    results: other_dir"))
    assert stale_annotations(root, comps) == [
        "line 2: toy_paper Table 1 a9a spa_last accuracy in other_dir is not an off cell"]


@pytest.mark.parametrize("text, msg", [
    (ENTRY.replace("category: evidenced", "category: evidence"),
     "line 2: causes[0].category: 'evidence' is not one of evidenced, paper, open (did you mean 'evidenced'?)"),
    (ENTRY.replace("    evidence: notes/why.md#collapse\n", ""),
     "line 2: causes[0].evidence: expected evidenced: a path under the results root"),
    (ENTRY.replace("notes/why.md", "notes/missing.md"),
     "line 2: causes[0].evidence: 'notes/missing.md#collapse' is not a file or directory under"),
    (ENTRY.replace("category: evidenced", "category: paper"), "line 2: causes[0].quote: expected paper"),
    (ENTRY.replace("category: evidenced", "category: open"), "line 2: causes[0].tried: expected open"),
    (ENTRY.replace("metric: accuracy", "metric: acc"), "causes[0].metric: 'acc' is not one of"),
    (ENTRY.replace("    cause: the last classifier collapses\n", ""), "causes[0].cause: expected one line"),
    (ENTRY.replace("dataset: a9a", "datset: a9a"), "causes[0]: unknown key 'datset' (did you mean 'dataset'?)"),
    (ENTRY + "  - 3\n", "line 10: causes[1]: expected a mapping"),
    ("cause:\n  - {}\n", "unknown key 'cause' (did you mean 'causes'?)"),
    ("variants: {spa_table5_real: ''}\n", "'variants' must map results directory names to one line"),
    ("causes: [\n", "not valid YAML"),
])
def test_a_bad_entry_is_one_line_naming_file_line_and_key(root, text, msg):
    _write(root, text)
    with pytest.raises(OlkError) as e:
        load_annotations(root)
    text = str(e.value)
    assert msg in text and "annotations.yaml" in text and "\n" not in text, text


def test_a_bad_annotations_file_stops_olk_compare_in_one_line(root, capsys):
    from olk.cli import main

    _write(root, ENTRY.replace("category: evidenced", "category: maybe"))
    with pytest.raises(SystemExit) as e:
        main(["compare", str(root / "toy_table"), "--published", str(PUB)])
    assert e.value.code == 2
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(err) == 1 and err[0].startswith("olk: error: ")
    assert "annotations.yaml line 2: causes[0].category: 'maybe' is not one of evidenced, paper, open" in err[0]


def test_a_variant_is_labelled_by_the_annotations_or_by_experiment_json(root):
    c = compare(root / "toy_table", published=PUB)
    assert c.variant == ""
    _write(root, "variants:\n  toy_table: the raw data\n")
    c = compare(root / "toy_table", published=PUB)
    assert c.variant == "the raw data" and "A labelled variant of the table's main config: the raw data." in \
        c.to_markdown()
    meta = json.loads((root / "toy_table" / "experiment.json").read_text())
    meta["compare"] = {"variant": "sign(0) = +1"}                          # the config's own label wins
    (root / "toy_table" / "experiment.json").write_text(json.dumps(meta))
    assert compare(root / "toy_table", published=PUB).variant == "sign(0) = +1"
