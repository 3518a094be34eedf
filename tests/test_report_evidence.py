"""The committed report's evidence holds up: every path a note or an annotation cites exists, no note says a run is
still going, every *evidenced* cause points into a committed results directory (a run, not prose), and every
results directory says how its reading was chosen (literal or fitted).  These read the repository's own results/
(the reproduction report's sources), so a stale note fails here, not in a reader's hands."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from olk.report.annotations import load_annotations
from olk.report.tolerance import parse_compare

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
NOTES = sorted((RESULTS / "notes").glob("*.md"))
SOURCES = NOTES + [RESULTS / "annotations.yaml"]

#: a results directory's name as the report's directories are named (spa_table5_fitted, amkl_fig2, ...)
_DIR = re.compile(r"(?<![\w/.-])(?:results/)?((?:spa|klr|oks|amkl)_(?:table|fig)[A-Za-z0-9_]*)")
_CONFIG = re.compile(r"(?<![\w/.-])(configs/[\w/.-]+?\.yaml)")
#: a status that goes stale the moment the run ends
_RUNNING = re.compile(r"\(running\)|\b(?:is|are|still|now) running\b|\brunning now\b|\bin progress\b", re.I)


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_cited_paths_exist(source):
    text = source.read_text(encoding="utf-8")
    missing = set()
    for m in _CONFIG.finditer(text):
        if not (ROOT / m.group(1)).is_file():
            missing.add(m.group(1))
    for m in _DIR.finditer(text):
        name = m.group(1)
        if name.endswith("_"):                   # a family written as spa_table5_select_*: one must exist
            if not any(p.name.startswith(name) for p in RESULTS.iterdir()):
                missing.add(name + "*")
            continue
        if not ((RESULTS / name).is_dir() or (ROOT / "configs" / f"{name}.yaml").is_file()
                or (RESULTS / "notes" / f"{name}.md").is_file()):
            missing.add(name)
    assert not missing, f"{_rel(source)} cites what does not exist: {', '.join(sorted(missing))}"


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
        if not meta.is_file():
            bad.append(f"line {c.line}: {c.evidence} (not a results directory)")
            continue
        cfg = json.loads(meta.read_text(encoding="utf-8")).get("config")
        if not cfg or not (ROOT / cfg).is_file():
            bad.append(f"line {c.line}: {c.evidence} (its config {cfg} is not committed)")
    assert not bad, "evidenced causes without a committed run: " + "; ".join(bad)


def test_every_results_directory_has_a_reading():
    ann = load_annotations(RESULTS)
    unlabelled = []
    for meta in sorted(RESULTS.glob("*/experiment.json")):
        spec = parse_compare(json.loads(meta.read_text(encoding="utf-8")).get("compare"), str(meta))
        if not spec.reading and meta.parent.name not in ann.readings:
            unlabelled.append(meta.parent.name)
    assert not unlabelled, ("results directories whose reading (literal | fitted) nobody says, in their config's "
                            f"compare: or results/annotations.yaml readings: {', '.join(unlabelled)}")


def test_every_paper_config_says_its_reading():
    unlabelled = []
    import yaml

    for cfg in sorted((ROOT / "configs").glob("*.yaml")):
        doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("paper") and not parse_compare(doc.get("compare"), str(cfg)).reading:
            unlabelled.append(cfg.name)
    assert not unlabelled, f"configs of a paper without compare: {{reading: literal | fitted}}: {unlabelled}"
