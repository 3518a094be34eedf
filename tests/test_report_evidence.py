"""The committed report's evidence holds up: every path a note or an annotation cites exists, a cited
``results/X`` is a committed results directory, no note says a run is still going, every *evidenced* cause points
into a committed results directory (a run, not prose), and every results directory says how its reading was chosen
(literal, fitted or a literal alternative).  These read the repository's own results/ (the reproduction report's
sources), so a stale note fails here, not in a reader's hands."""
from __future__ import annotations

import functools
import json
import re
import subprocess
from pathlib import Path

import pytest

from olk.report.annotations import load_annotations
from olk.report.tolerance import READING_KEYS, parse_compare

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
NOTES = sorted((RESULTS / "notes").glob("*.md"))
SOURCES = NOTES + [RESULTS / "annotations.yaml"]

#: a results directory's name as the report's directories are named (spa_table5_fitted, amkl_fig2, ...); group 1 is
#: the ``results/`` prefix when it is written
_DIR = re.compile(r"(?<![\w/.-])(results/)?((?:spa|klr|oks|amkl)_(?:table|fig)[A-Za-z0-9_]*)")
_CONFIG = re.compile(r"(?<![\w/.-])(configs/[\w/.-]+?\.yaml)")
#: a status that goes stale the moment the run ends
_RUNNING = re.compile(r"\(running\)|\b(?:is|are|still|now) running\b|\brunning now\b|\bin progress\b", re.I)


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@functools.lru_cache(maxsize=1)
def _tracked() -> frozenset[str]:
    """The files under results/ that git tracks (a results directory counts only once it is committed)."""
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "results"], capture_output=True, check=True)
    return frozenset(out.stdout.decode("utf-8").split("\0")) - {""}


def committed_results(name: str) -> bool:
    """``results/<name>`` is a committed results directory: its experiment.json and runs.jsonl are tracked."""
    return {f"results/{name}/experiment.json", f"results/{name}/runs.jsonl"} <= _tracked()


def missing_citations(text: str) -> set[str]:
    """What ``text`` cites that does not exist: a config that is not a file; ``results/X`` that is not a committed
    results directory (a config of that name is not enough: a reader follows the path to the runs); a bare name that
    is neither a results directory, a config nor a note."""
    missing = set()
    for m in _CONFIG.finditer(text):
        if not (ROOT / m.group(1)).is_file():
            missing.add(m.group(1))
    for m in _DIR.finditer(text):
        prefix, name = m.group(1), m.group(2)
        if name.endswith("_"):                   # a family written as spa_table5_select_*: one must exist
            if not any(p.name.startswith(name) and committed_results(p.name) for p in RESULTS.iterdir()):
                missing.add((prefix or "") + name + "*")
            continue
        if prefix:
            if not committed_results(name):
                missing.add(f"results/{name} (not a committed results directory)")
        elif not ((RESULTS / name).is_dir() or (ROOT / "configs" / f"{name}.yaml").is_file()
                  or (RESULTS / "notes" / f"{name}.md").is_file()):
            missing.add(name)
    return missing


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_cited_paths_exist(source):
    missing = missing_citations(source.read_text(encoding="utf-8"))
    assert not missing, f"{_rel(source)} cites what does not exist: {', '.join(sorted(missing))}"


def test_a_cited_results_directory_must_be_committed_not_only_its_config():
    """Issue 48: results/spa_table5_vote_plus has a config (configs/spa_table5_vote_plus.yaml) but no committed
    results; citing it as results/... is refused, a committed one is accepted."""
    assert (ROOT / "configs" / "spa_table5_vote_plus.yaml").is_file() and not committed_results("spa_table5_vote_plus")
    assert missing_citations("the engine run `results/spa_table5_vote_plus`") == {
        "results/spa_table5_vote_plus (not a committed results directory)"}
    assert missing_citations("see `results/spa_table5_select_plus_mistake` and spa_table5_vote_plus") == set()
    assert missing_citations("results/spa_table5_nothing_*") == {"results/spa_table5_nothing_*"}


def test_annotations_name_committed_results_directories_and_add_only_missing_reading_keys():
    """Every directory results/annotations.yaml labels (variants:, readings:) is committed, and a readings: entry
    supplies only reading keys its experiment.json lacks (one place for each value)."""
    ann = load_annotations(RESULTS)
    bad = [n for n in list(ann.variants) + list(ann.readings) if not committed_results(n)]
    assert not bad, f"results/annotations.yaml labels directories that are not committed: {bad}"
    twice = []
    for name, keys in ann.readings.items():
        meta = json.loads((RESULTS / name / "experiment.json").read_text(encoding="utf-8"))
        own = meta.get("compare") or {}
        twice += [f"{name}.{k}" for k in keys if k in own and k in READING_KEYS]
    assert not twice, f"readings: repeats what experiment.json says: {twice}"


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_no_run_is_said_to_be_running(source):
    lines = source.read_text(encoding="utf-8").splitlines()
    hits = [f"line {i}: {line.strip()[:80]}" for i, line in enumerate(lines, 1) if _RUNNING.search(line)]
    assert not hits, f"{_rel(source)} says a run is still going (say what ran instead): {hits}"


def test_evidenced_causes_point_at_committed_runs():
    """*evidenced* needs a run a reader can rerun: a results directory with its experiment.json and the config it
    names; a note alone is prose (the cause is then *open* with what was tried, or *paper* with a quote)."""
    ann = load_annotations(RESULTS)
    bad = []
    for c in ann.causes:
        if c.category != "evidenced":
            continue
        top = c.evidence.split("#", 1)[0].strip("/").split("/")[0]
        meta = RESULTS / top / "experiment.json"
        if not meta.is_file() or not committed_results(top):
            bad.append(f"line {c.line}: {c.evidence} (not a committed results directory)")
            continue
        cfg = json.loads(meta.read_text(encoding="utf-8")).get("config")
        if not cfg or not (ROOT / cfg).is_file():
            bad.append(f"line {c.line}: {c.evidence} (its config {cfg} is not committed)")
    assert not bad, "evidenced causes without a committed run: " + "; ".join(bad)


def test_every_results_directory_has_a_reading():
    ann = load_annotations(RESULTS)
    unlabelled = []
    for meta in sorted(RESULTS.glob("*/experiment.json")):
        spec = ann.reading_spec(meta.parent.name, json.loads(meta.read_text(encoding="utf-8")).get("compare"),
                                str(meta))
        if not spec.reading:
            unlabelled.append(meta.parent.name)
    assert not unlabelled, ("results directories whose reading (literal | fitted | literal_alternative) nobody says, "
                            "in their config's "
                            f"compare: or results/annotations.yaml readings: {', '.join(unlabelled)}")


def test_every_paper_config_says_its_reading():
    unlabelled = []
    import yaml

    for cfg in sorted((ROOT / "configs").glob("*.yaml")):
        doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("paper") and not parse_compare(doc.get("compare"), str(cfg)).reading:
            unlabelled.append(cfg.name)
    assert not unlabelled, ("configs of a paper without compare: {reading: literal | fitted | literal_alternative}: "
                            f"{unlabelled}")
