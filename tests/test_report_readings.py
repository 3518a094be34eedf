"""Readings (olk.report.readings, issue 48): the held-out number under every tie rule and the range it spans, the
literal alternative (never a candidate; its off cells cause *paper*), one label per reading choice, and a reading
whose candidates were designed after an in-sample fit; the same rules on the committed results."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from olk.report import readings
from olk.report.discovery import find_results
from olk.report.markdown import comparisons_of
from olk.report.overview import overview_md, table_counts
from olk.report.paper import list_tables

REPO = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "report_fixtures"
SUMMARIES = {("spa_tist2018", "1"), ("spa_tist2018", "4"), ("klr_aaai2012", "1"), ("amkl", "I")}


def _root(tmp_path: Path, readings_yaml: str) -> Path:
    """toy_table (SPA Table 2's literal main reading) and copies of it, labelled by ``readings_yaml``."""
    root = tmp_path / "results"
    names = re.findall(r"^  (\w+):", readings_yaml, re.M)
    for name in names:
        shutil.copytree(FIX / "toy_table", root / name)
        meta = json.loads((root / name / "experiment.json").read_text())
        meta.update(paper="spa_tist2018", table="2", status="finished", name=name, started="2024-01-01T09:00:00")
        (root / name / "experiment.json").write_text(json.dumps(meta))
    variants = "".join(f"  {n}: {n} differs\n" for n in names if n != "toy_table")
    (root / "annotations.yaml").write_text(f"variants:\n{variants}readings:\n{readings_yaml}")
    return root


def _fake_cells(states: dict[str, dict[str, str]]):
    """paper_cells as if every toy cell were on the paper's data: directory -> {dataset: state}; a dataset missing
    from a directory's mapping has no cells there."""
    def fake(c):
        judged = c.cells[c.cells["in_experiment"] & c.cells["verdict"].isin(["within paper std", "within tolerance",
                                                                             "off"])]
        mine = states[c.results.path.name]
        return {(str(r.dataset), str(r.algorithm), str(r.metric), str(r.paper_label)): mine[str(r.dataset)]
                for r in judged.itertuples(index=False) if str(r.dataset) in mine}
    return fake


TIED = ("  toy_table: literal\n"
        "  toy_fit: {reading: fitted, chosen_on: []}\n"
        "  toy_alt: {reading: literal_alternative, contradiction: 1}\n")


def _tied(tmp_path, monkeypatch):
    root = _root(tmp_path, TIED)
    # the literal reading: every cell off; toy_fit reruns a9a alone, every cell in tolerance (it has no cell on w7a,
    # so on w7a's cells it scores what the literal reading scores: a tie); toy_alt is in tolerance everywhere
    monkeypatch.setattr(readings, "paper_cells", _fake_cells({
        "toy_table": {"a9a": "open", "w7a": "open"}, "toy_fit": {"a9a": readings.IN_TOL},
        "toy_alt": {"a9a": readings.IN_TOL, "w7a": readings.IN_TOL}}))
    entries = find_results(root, set(list_tables()))
    comparisons = comparisons_of(entries)
    return root, entries, comparisons, table_counts(entries, comparisons)[("spa_tist2018", "2")]


def test_the_held_out_number_under_every_tie_rule(tmp_path, monkeypatch):
    _, _, comparisons, tc = _tied(tmp_path, monkeypatch)
    tr = tc.readings()
    n_a9a = sum(1 for k in readings.paper_cells(comparisons[tc.entries[0].path]) if k[0] == "a9a")
    assert n_a9a > 0 and set(readings.TIE_RULES) == {"literal", "fitted", "more cells"}
    by = {rule: (s.in_tolerance, dict(s.picks)) for rule, s in tr.held_out_by_rule.items()}
    assert by["literal"] == (0, {"a9a": "literal", "w7a": "literal"})          # the headline: ties to literal
    assert by["fitted"] == (n_a9a, {"a9a": "toy_fit", "w7a": "literal"})       # ties to a fitted reading
    assert by["more cells"] == (0, {"a9a": "literal", "w7a": "literal"})       # the literal reading has more cells
    assert tr.held_out == tr.held_out_by_rule["literal"] and tr.held_out_range() == (0, n_a9a)
    # the literal alternative is in tolerance everywhere, and never chosen: not in-sample, not held out
    assert "toy_alt" not in dict(tr.best.picks).values()
    assert all("toy_alt" not in dict(s.picks).values() for s in tr.held_out_by_rule.values())


def test_the_overview_states_the_rules_and_prints_the_range(tmp_path, monkeypatch):
    root, entries, comparisons, tc = _tied(tmp_path, monkeypatch)
    text = "\n".join(overview_md(list_tables(), entries, comparisons, [], SUMMARIES, root, None, root))
    lo, hi = tc.readings().held_out_range()
    judged = tc.readings().held_out.judged
    row = next(x for x in text.splitlines() if x.startswith("| SPA (TIST 2018) [Table 2]"))
    assert f"| 0 of {judged} (0.0%); {lo}–{hi} |" in row
    assert readings.CANDIDATE_RULE in text                       # the candidate rule, stated
    for what, _ in readings.TIE_RULES.values():                 # and every tie rule
        assert what in text
    from olk.report.overview import _readings_md

    total = "\n".join(_readings_md({("spa_tist2018", "2"): tc}))
    assert f"0 of {judged} (0.0%) with ties to the literal reading, {lo}–{hi} of {judged} under the tie rules" in total
    variants = text.split("Labelled variants")[1]
    assert "- toy_alt (SPA (TIST 2018) Table 2, literal alternative (contradiction 1)): toy_alt differs." in variants
    assert "never a candidate of best fitted or held out; its off cells are cause *paper*" in variants


def test_a_choice_carries_one_label_and_a_late_design_is_said(tmp_path, monkeypatch):
    root = _root(tmp_path, "  toy_table: literal\n"
                           "  toy_fit: {reading: fitted, choices: {'y f <= 0': [], 'beta = 10': [w7a]},\n"
                           "            designed: 2024-01-05, after_fit: toy_all}\n"
                           "  toy_all: {reading: fitted, choices: {'y f <= 0': [a9a], 'raw data': [a9a, w7a]}}\n")
    meta = json.loads((root / "toy_all" / "experiment.json").read_text())
    meta["started"] = "2024-01-03T10:00:00"
    (root / "toy_all" / "experiment.json").write_text(json.dumps(meta))
    entries = find_results(root, set(list_tables()))
    comparisons = comparisons_of(entries)
    cs = {p.name: c for p, c in comparisons.items()}
    assert cs["toy_fit"].chosen_on == ("w7a",) and cs["toy_all"].chosen_on == ("a9a", "w7a")
    assert readings.choice_conflicts(list(cs.values())) == [
        "spa_tist2018 Table 2: the choice 'y f <= 0' is chosen on a9a in toy_all; chosen on no cell in toy_fit"]
    text = "\n".join(overview_md(list_tables(), entries, comparisons, [], SUMMARIES, root, None, root))
    assert "**A reading choice carries two labels**" in text and "'y f \\<= 0' is chosen on a9a in toy_all" in text
    line = next(x for x in text.splitlines() if x.startswith("- toy_fit "))
    assert "fitted: y f \\<= 0 (chosen on no cell); beta = 10 (chosen on w7a)" in line
    assert ("**its candidates were designed after an in-sample fit**: designed 2024-01-05, the fit toy_all first "
            "ran 2024-01-03") in line
    ran = text.split("### What ran")[1]
    assert "| fitted: y f \\<= 0 (chosen on no cell); beta = 10 (chosen on w7a); variant: toy_fit differs |" in ran


# ----------------------------------------------------------------------------- the committed results
@pytest.fixture(scope="module")
def committed():
    tables = list_tables()
    entries = find_results(REPO / "results", set(tables))
    comparisons = comparisons_of(entries)
    return entries, comparisons, table_counts(entries, comparisons)


def test_committed_cells_without_a_paper_value_have_no_verdict(committed):
    _, comparisons, counts = committed
    for c in comparisons.values():
        judged = c.cells[c.cells["verdict"].isin(["within paper std", "within tolerance", "off"])]
        assert not judged["paper_mean"].isna().any(), c.results.path.name
    step_t = next(c for p, c in comparisons.items() if p.name == "amkl_table2_step_t")
    assert "off" not in set(step_t.cells["verdict"])          # its *_t rows have no paper value (issue 48)


def test_committed_choices_have_one_label_and_table6s_hedge_test_reads_alike(committed):
    _, comparisons, counts = committed
    for tc in counts.values():
        assert readings.choice_conflicts(tc.comparisons) == []
    cs = {p.name: c for p, c in comparisons.items()}
    hedge = [dict(cs[n].reading_spec.choices) for n in ("spa_table6_earlier", "spa_table6_fitted")]
    key = next(k for k in hedge[0] if k.startswith("the Hedge test y f <= 0"))
    assert hedge[0][key] == hedge[1][key] == ()


def test_committed_literal_alternatives_name_a_row_of_the_contradictions_page(committed):
    _, comparisons, _ = committed
    page = (REPO / "docs" / "reproduction" / "contradictions.md").read_text(encoding="utf-8")
    rows = {int(m) for m in re.findall(r"^\| (\d+) \|", page, re.M)}
    assert rows
    for c in comparisons.values():
        spec = c.reading_spec
        if spec.reading == readings.LITERAL_ALTERNATIVE:
            assert spec.contradiction in rows, (c.results.path.name, spec.contradiction)
            assert c.variant


def test_committed_late_designs_name_a_fit_that_ran_before(committed):
    entries, comparisons, _ = committed
    started = {e.path.name: str(e.meta.get("started") or "")[:10] for e in entries}
    designed = {p.name: c.reading_spec for p, c in comparisons.items() if c.reading_spec.designed}
    assert {"spa_table5_chosen", "spa_table5_select_plus_mistake"} <= set(designed)
    for name, spec in designed.items():
        assert started.get(spec.after_fit), (name, spec.after_fit)
        assert started[spec.after_fit] <= spec.designed, (name, spec.after_fit)
