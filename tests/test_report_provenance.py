"""Provenance beside each table (olk.report.provenance, issue 48): the commits that computed a results directory's
runs (runs.jsonl: commit, dirty, commit_from) and its latest verification (verified.json, written by olk verify).
The verified.json files here are made by hand in temporary fixtures only, never under results/."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from olk.report.discovery import find_results
from olk.report.markdown import comparisons_of
from olk.report.overview import overview_md
from olk.report.paper import list_tables
from olk.report.provenance import (
    commits_text,
    latest_verification,
    run_commits,
    verification_text,
    verifications,
)

FIX = Path(__file__).parent / "report_fixtures"


def _records(d: Path, recs: list[dict]) -> None:
    (d / "runs.jsonl").write_text("".join(json.dumps({"run_id": f"r{i}", **r}) + "\n" for i, r in enumerate(recs)))


def _verified(d: Path, *entries: dict) -> None:
    base = {"olk_version": "0.9", "command": "olk verify", "sample_seed": 0, "ignored_fields": ["time_s"],
            "wall_s": 1.0}
    (d / "verified.json").write_text(json.dumps({"verifications": [{**base, **e} for e in entries]}))


def test_runs_are_counted_per_commit_dirty_and_reconstructed_marked(tmp_path):
    _records(tmp_path, [{"commit": "848f847cfcae", "dirty": False}] * 3
             + [{"commit": "3c162727b033", "dirty": True}] * 2
             + [{"commit": "0bc366ad1ea8", "dirty": False, "commit_from": "history"}]
             + [{"commit": "e41e7ca88c3d", "dirty": False, "commit_from": "history-ambiguous"}])
    commits, problem = run_commits(tmp_path, {"git_commit": "ffffffffffff"})
    assert problem == "" and [(c.commit, c.dirty, c.origin, c.count) for c in commits] == [
        ("848f847cfcae", False, "", 3), ("3c162727b033", True, "", 2), ("0bc366ad1ea8", False, "history", 1),
        ("e41e7ca88c3d", False, "history-ambiguous", 1)]
    assert commits_text(commits) == (
        "848f847cfcae (3 runs); 3c162727b033 with uncommitted changes (2 runs); 0bc366ad1ea8 (1 run; reconstructed "
        "from git history); e41e7ca88c3d (1 run; reconstructed from git history, ambiguous)")


def test_runs_without_a_commit_stand_under_experiment_json_and_nothing_is_robust(tmp_path):
    _records(tmp_path, [{}, {}])
    (tmp_path / "runs.jsonl").write_text((tmp_path / "runs.jsonl").read_text() + "not json\n")
    commits, problem = run_commits(tmp_path, {"git_commit": "f1237c2f9dc1-dirty"})
    assert commits_text(commits) == "f1237c2f9dc1 with uncommitted changes (2 runs; from experiment.json)"
    assert problem == "1 line of runs.jsonl not a JSON object"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_commits(empty, {}) == ([], "no runs.jsonl")
    assert verifications(empty) == ([], "") and verification_text([]) == "not verified"
    (empty / "verified.json").write_text("[1, 2]")
    found, problem = verifications(empty)
    assert found == [] and "verified.json must hold a JSON object" in problem


def test_the_latest_clean_verification_counts(tmp_path):
    full = {"commit": "848f847cfcae", "dirty": False, "date": "2026-12-01T10:00:00", "sample": None,
            "runs_total": 430, "runs_checked": 430, "identical": 430, "differing": []}
    _verified(tmp_path, full)
    assert verification_text(verifications(tmp_path)[0]) == \
        "verified bit-identical at 848f847cfcae on 2026-12-01: 430 of 430 runs"
    sample = {**full, "date": "2026-12-02", "sample": 40, "runs_checked": 40, "identical": 40}
    _verified(tmp_path, full, sample)
    assert verification_text(verifications(tmp_path)[0]) == \
        "verified bit-identical at 848f847cfcae on 2026-12-02: a sample of 40 of 430 runs"
    differ = {**full, "date": "2026-12-03", "identical": 427, "differing": [
        {"run_id": f"r{i}", "label": "spa", "dataset": "a9a", "perm": i, "fields": ["n_sv"]} for i in range(3)]}
    _verified(tmp_path, full, differ)
    assert verification_text(verifications(tmp_path)[0]) == \
        "verified at 848f847cfcae on 2026-12-03: 3 differ, of 430 of 430 runs"
    # a verification at a tree with uncommitted changes does not count, even the latest
    dirty = {**full, "commit": "aaaaaaaaaaaa", "dirty": True, "date": "2026-12-04"}
    _verified(tmp_path, full, dirty)
    good, last = latest_verification(verifications(tmp_path)[0])
    assert good.commit == "848f847cfcae" and last.commit == "aaaaaaaaaaaa"
    assert verification_text(verifications(tmp_path)[0]) == (
        "verified bit-identical at 848f847cfcae on 2026-12-01: 430 of 430 runs (the verification of 2026-12-04 ran "
        "at aaaaaaaaaaaa with uncommitted changes: it does not count)")
    _verified(tmp_path, dirty)
    assert verification_text(verifications(tmp_path)[0]).startswith("not verified (the verification of 2026-12-04")


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "results"
    shutil.copytree(FIX / "toy_table", r / "toy_table")
    meta = json.loads((r / "toy_table" / "experiment.json").read_text())
    meta.update(paper="spa_tist2018", table="2", status="finished")
    (r / "toy_table" / "experiment.json").write_text(json.dumps(meta))
    return r


def test_the_overview_and_the_tables_section_show_it(root):
    from olk.report.report import build_report

    _records(root / "toy_table", [{"commit": "848f847cfcae", "dirty": False}] * 4)
    _verified(root / "toy_table", {"commit": "848f847cfcae", "dirty": False, "date": "2026-12-01", "sample": 2,
                                   "runs_total": 4, "runs_checked": 2, "identical": 2, "differing": []})
    entries = find_results(root, set(list_tables()))
    text = "\n".join(overview_md(list_tables(), entries, comparisons_of(entries), [], set(), root, None, root))
    prov = text.split("### Provenance")[1].split("###")[0]
    assert ("| SPA (TIST 2018) [Table 2](#spa-tist2018-table2) | [toy_table/](toy_table/) | main | 848f847cfcae (4 "
            "runs) | verified bit-identical at 848f847cfcae on 2026-12-01: a sample of 2 of 4 runs |") in prov
    assert "uncommitted changes" not in text.split("### Verdicts per table")[1].split("### Provenance")[0]
    md = build_report(root, html=False)[0].read_text(encoding="utf-8")
    assert ("**Runs computed at:** 848f847cfcae (4 runs); **verification:** verified bit-identical at 848f847cfcae "
            "on 2026-12-01: a sample of 2 of 4 runs") in md


def test_no_verified_json_is_committed_by_hand():
    """Until olk verify writes them, results/ holds no verified.json (fixtures make theirs in temporary
    directories)."""
    import subprocess

    repo = Path(__file__).resolve().parent.parent
    tracked = subprocess.run(["git", "-C", str(repo), "ls-files", "results"], capture_output=True, text=True,
                             check=True).stdout.split()
    written_by_verify = [p for p in tracked if p.endswith("/verified.json")]
    for p in written_by_verify:      # once olk verify exists, its files say which command wrote them
        doc = json.loads((repo / p).read_text(encoding="utf-8"))
        assert all(str(v.get("command", "")).startswith("olk verify") for v in doc.get("verifications", [])), p


def test_the_machine_of_each_run_is_said_beside_the_table_and_old_records_are_counted_apart(tmp_path):
    """A resumed directory whose runs ran on two machines says both (with counts); records written before runs
    carried their machine are not attributed to the machine experiment.json names (the last invocation's)."""
    from olk.report.provenance import machines_text
    prov = {"a": {"machine": "Intel Xeon, 2 cores"}, "b": {"machine": "AMD EPYC, 2 cores"},
            "c": {"machine": "Intel Xeon, 2 cores"}, "d": {"commit": "848f847cfcae"}, "e": {"machine": None}}
    assert machines_text(prov, ["a", "b", "c"], "AMD EPYC, 2 cores") == \
        "Intel Xeon, 2 cores (2 runs); AMD EPYC, 2 cores (1 run)"
    assert machines_text(prov, ["a", "d", "e"], "AMD EPYC, 2 cores") == (
        "Intel Xeon, 2 cores (1 run); not recorded by the run (2 runs; experiment.json names the last "
        "invocation's: AMD EPYC, 2 cores)")
    assert machines_text(prov, ["d"], None) == "not recorded"
    assert machines_text(prov, ["d", "e"], "AMD EPYC") == \
        "AMD EPYC (the last invocation's; the runs record no machine of their own)"
