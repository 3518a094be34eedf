"""Why a cell is off: the causes of off cells as data, ``results/annotations.yaml``, read by ``olk compare`` and
``olk report``.

Every off cell gets one cause category:

* **evidenced**: a run, an ablation or a note under ``results/`` shows the cause (``evidence:``, a path relative
  to the results root that must exist, e.g. ``spa_table5_magic04_raw/`` or ``notes/spa_tist2018_table2.md``);
* **paper**: an inconsistency in the paper itself, quoted (``quote:``, the paper's words);
* **open**: no evidenced cause.  An off cell nobody annotated is open; an annotation may say ``category: open``
  with ``tried:`` (what was tried and did not explain it), so the reader sees the question was not ignored.

A plausible but untested explanation is *open*: only a run, an ablation or the paper's own text moves a cell out
of it.  The file is a mapping with three keys::

    variants:                      # results directories that are labelled variants of their table's main config
      spa_table5_real: "the real-valued combination (combine: real)"
    readings:                      # how each results directory's reading was chosen (literal | fitted | ...)
      spa_table2: literal
      spa_table5_real: {reading: fitted, chosen_on: [madelon]}
      spa_table5_chosen: {designed: 2026-11-26, after_fit: spa_table5_fitted}   # adds to experiment.json's
    causes:
      - paper: spa_tist2018        # which published table
        table: "2"
        dataset: codrna            # our dataset name (a list names several)
        algorithm: projectron      # the row's label in our results, as compare.csv's 'algorithm' (or a list)
        metric: accuracy           # accuracy | mistake_rate | mse | efficiency | n_sv (or a list)
        row: "Projectron"          # optional: the paper's row label, when it prints the algorithm twice
        results: spa_table2        # optional: only this results directory (default: every one of the table)
        category: evidenced
        cause: "the paper's Projectron breaks down numerically on codrna"
        evidence: notes/spa_tist2018_table2.md

Every combination an entry names must be an off cell of a results directory of its table
(:func:`stale_annotations`; ``tests/test_report_annotations.py`` checks the committed results), so an annotation
cannot outlive the cell it explains; no off cell may match two entries.  A results directory's
``experiment.json`` may also label it a variant itself (``compare: {variant: ...}``, from its config), which
``variants:`` here only supplies for results written before that key existed; ``readings:`` likewise supplies
the reading keys of ``compare:`` (``reading``, ``chosen_on``, ``choices``, ``contradiction``, ``designed``,
``after_fit``: :func:`olk.report.tolerance.parse_compare`) that a results directory's experiment.json lacks, because
it was computed before the key existed (:meth:`Annotations.reading_spec`); a key experiment.json has is never
supplied here (``tests/test_report_evidence.py``).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olk.errors import ConfigError, did_you_mean

FILE_NAME = "annotations.yaml"
CATEGORIES = ("evidenced", "paper", "open")
METRICS = ("accuracy", "mistake_rate", "mse", "efficiency", "n_sv")
_KEYS = {"paper": "the paper id, e.g. spa_tist2018", "table": "the table as printed, e.g. \"5\" or II (or a list)",
         "dataset": "our dataset name (or a list)", "algorithm": "the row's label in our results (or a list)",
         "metric": f"one of {', '.join(METRICS)} (or a list)", "row": "the paper's row label (optional)",
         "results": "a results directory name (optional)", "category": " | ".join(CATEGORIES),
         "cause": "one line: why the cell is off", "evidence": "evidenced: a path under the results root",
         "quote": "paper: the paper's words", "tried": "open: what was tried"}


@dataclass(frozen=True)
class Cause:
    """One entry of ``causes:``: the cells it names and why they are off."""

    paper: str
    tables: tuple[str, ...]
    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    metrics: tuple[str, ...]
    category: str
    cause: str
    evidence: str = ""
    quote: str = ""
    tried: str = ""
    row: str | None = None
    results: str | None = None
    line: int = 0                   # where it starts in the file (1-based), for messages

    def matches(self, paper: str, table: str, results: str, dataset: str, algorithm: str, metric: str,
                row: str) -> bool:
        return (self.paper == paper and table in self.tables and dataset in self.datasets
                and algorithm in self.algorithms and metric in self.metrics
                and (self.row is None or self.row == row) and (self.results is None or self.results == results))

    def combinations(self) -> list[tuple[str, str, str, str]]:
        """Every (table, dataset, algorithm, metric) the entry names."""
        return list(itertools.product(self.tables, self.datasets, self.algorithms, self.metrics))


@dataclass
class Annotations:
    """The parsed file: ``causes`` in file order, ``variants`` (results directory name -> what it changes) and
    ``readings`` (results directory name -> the reading keys of ``compare:`` it supplies, each checked)."""

    file: Path | None = None
    causes: list[Cause] = field(default_factory=list)
    variants: dict[str, str] = field(default_factory=dict)
    readings: dict[str, dict[str, Any]] = field(default_factory=dict)

    def reading_spec(self, name: str, compare: Any, where: str):
        """The :class:`~olk.report.tolerance.CompareSpec` of results directory ``name`` whose experiment.json holds
        ``compare``: its own keys, with the reading keys it lacks taken from ``readings:`` (results computed before
        the key existed).  The one place a results directory's reading is resolved."""
        from olk.report.tolerance import parse_compare

        merged = dict(compare) if isinstance(compare, dict) else compare
        if isinstance(merged, dict):
            for k, v in self.readings.get(name, {}).items():
                merged.setdefault(k, v)
        elif merged is None and name in self.readings:
            merged = dict(self.readings[name])
        return parse_compare(merged, where)

    def cause_of(self, paper: str, table: str, results: str, dataset: str, algorithm: str, metric: str,
                 row: str) -> Cause | None:
        """The entry explaining one off cell (None: open, nothing recorded)."""
        return next((c for c in self.causes if c.matches(paper, table, results, dataset, algorithm, metric, row)),
                    None)

    def evidence_path(self, cause: Cause) -> Path | None:
        """The file or directory ``cause.evidence`` names (the part before any '#anchor')."""
        if not cause.evidence or self.file is None:
            return None
        return self.file.parent / cause.evidence.split("#", 1)[0]


def load_annotations(results_root: str | Path | None) -> Annotations:
    """``<results_root>/annotations.yaml`` parsed and checked (an empty :class:`Annotations` when there is none).

    A bad entry is one :class:`~olk.errors.ConfigError` naming the file, the line and the key."""
    if results_root is None:
        return Annotations()
    file = Path(results_root) / FILE_NAME
    if not file.is_file():
        return Annotations()
    import yaml

    from olk._lazy import yaml_load, yaml_read

    try:
        text = yaml_read(file).decode("utf-8", "replace")
        raw = yaml_load(text)
    except OSError as e:
        raise ConfigError(f"{file}: cannot be read ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{file}{at}: not valid YAML ({' '.join(str(getattr(e, 'problem', e)).split())}); "
                          "fix the file (its format is in olk/report/annotations.py)") from None
    if raw is None:
        return Annotations(file)
    lines = _item_lines(yaml, text)
    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: expected a mapping with 'variants', 'readings' and 'causes', not "
                          f"{type(raw).__name__}")
    unknown = sorted(set(raw) - set(_TOP))
    if unknown:
        raise ConfigError(f"{file}: unknown key '{unknown[0]}'{did_you_mean(unknown[0], _TOP)}; "
                          "the file has 'variants', 'readings' and 'causes'")
    variants = raw.get("variants") or {}
    if not isinstance(variants, dict) or not all(isinstance(v, str) and v.strip() for v in variants.values()):
        raise ConfigError(f"{file}: 'variants' must map results directory names to one line saying what the "
                          "variant reads differently, e.g. spa_table5_real: \"combine: real\"")
    causes = raw.get("causes") or []
    if not isinstance(causes, list):
        raise ConfigError(f"{file}: 'causes' must be a list of entries (- paper: ..., table: ..., ...)")
    out = Annotations(file, variants={str(k): " ".join(v.split()) for k, v in variants.items()},
                      readings=_readings(raw.get("readings"), f"{file}: readings"))
    for i, entry in enumerate(causes):
        out.causes.append(_cause(entry, f"{file} line {lines.get(i, '?')}: causes[{i}]", file, lines.get(i, 0)))
    return out


_TOP = ("variants", "readings", "causes")


def _readings(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    """``readings:``: directory -> ``literal`` or a mapping of reading keys (``{reading: fitted, chosen_on: [...]}``,
    or only the keys experiment.json lacks), each checked by the rule of a config's ``compare:``
    (:func:`olk.report.tolerance.parse_compare`)."""
    from olk.report.tolerance import READING_KEYS, parse_compare

    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping of results directory names to literal or "
                          "{reading: fitted, chosen_on: [DATASET, ...]}")
    out = {}
    for name, v in raw.items():
        entry = dict(v) if isinstance(v, dict) else {"reading": v}
        extra = sorted(str(k) for k in entry if k not in READING_KEYS)
        if extra:
            raise ConfigError(f"{where}.{name}: '{extra[0]}' is not a reading key; the keys are "
                              f"{', '.join(READING_KEYS)}")
        parse_compare(entry, f"{where}.{name}")
        out[str(name)] = entry
    return out


def _item_lines(yaml, text: str) -> dict[int, int]:
    """Index in ``causes`` -> the line its entry starts on (1-based)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    for k, v in node.value:
        if getattr(k, "value", None) == "causes" and isinstance(v, yaml.SequenceNode):
            return {i: item.start_mark.line + 1 for i, item in enumerate(v.value)}
    return {}


def _names(entry: dict, key: str, where: str, choices: tuple[str, ...] | None = None) -> tuple[str, ...]:
    v = entry.get(key)
    vals = v if isinstance(v, list) else [v]
    if not vals or any(not isinstance(x, (str, int)) or isinstance(x, bool) or str(x).strip() == "" for x in vals):
        raise ConfigError(f"{where}.{key}: expected {_KEYS[key]}, not {v!r}")
    names = [str(x).strip() for x in vals]
    for x in names:
        if choices is not None and x not in choices:
            raise ConfigError(f"{where}.{key}: '{x}' is not one of {', '.join(choices)}{did_you_mean(x, choices)}")
    return tuple(names)


def _text(entry: dict, key: str, where: str, required: bool) -> str:
    v = entry.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str) or not v.strip():
        raise ConfigError(f"{where}.{key}: expected {_KEYS[key]} (a non-empty string)")
    return " ".join(v.split())


def _cause(entry: Any, where: str, file: Path, line: int) -> Cause:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a mapping (paper, table, dataset, algorithm, metric, category, cause, "
                          "...), not " + type(entry).__name__)
    unknown = [k for k in entry if k not in _KEYS]
    if unknown:
        raise ConfigError(f"{where}: unknown key '{unknown[0]}'{did_you_mean(str(unknown[0]), _KEYS)}; "
                          f"keys: {', '.join(_KEYS)}")
    category = _names(entry, "category", where, CATEGORIES)
    if len(category) != 1:
        raise ConfigError(f"{where}.category: one category, not a list")
    cat = category[0]
    need = {"evidenced": "evidence", "paper": "quote", "open": "tried"}[cat]
    c = Cause(paper=_names(entry, "paper", where)[0], tables=_names(entry, "table", where),
              datasets=_names(entry, "dataset", where), algorithms=_names(entry, "algorithm", where),
              metrics=_names(entry, "metric", where, METRICS), category=cat,
              cause=_text(entry, "cause", where, True), evidence=_text(entry, "evidence", where, need == "evidence"),
              quote=_text(entry, "quote", where, need == "quote"), tried=_text(entry, "tried", where, need == "tried"),
              row=_text(entry, "row", where, False) or None, results=_text(entry, "results", where, False) or None,
              line=line)
    if c.evidence:
        target = c.evidence.split("#", 1)[0]
        if not target or Path(target).is_absolute() or not (file.parent / target).exists():
            raise ConfigError(f"{where}.evidence: '{c.evidence}' is not a file or directory under "
                              f"{file.parent} (give a path relative to it, e.g. spa_table5_real/ or "
                              "notes/spa_tist2018_table5.md#section)")
    return c


# ----------------------------------------------------------------------------- checks over a results root
def stale_annotations(results_root: str | Path, comparisons: list) -> list[str]:
    """Entries (or combinations of one) that name no off cell of any results directory of their table, and off
    cells that two entries claim: one line each ('line 12: ...', the file's line), empty when every annotation
    is live.  ``comparisons``: the :class:`~olk.report.compare.Comparison` of every reproduction under the root
    (:func:`olk.report.compare.reproduction_comparisons`)."""
    ann = load_annotations(results_root)
    if not ann.causes:
        return []
    off: dict[tuple, list[tuple]] = {}          # (paper, table) -> [(results, dataset, algorithm, metric, row)]
    for c in comparisons:
        cells = c.cells[c.cells["in_experiment"] & (c.cells["verdict"] == "off")]
        for r in cells.itertuples(index=False):
            off.setdefault((c.paper, c.table), []).append((c.results.path.name, r.dataset, r.algorithm, r.metric,
                                                           r.paper_label))
    out = []
    for cause in ann.causes:
        for table, ds, alg, m in cause.combinations():
            cells = off.get((cause.paper, table), [])
            if not any(cause.matches(cause.paper, table, res, ds, alg, m, row)
                       for res, d, a, mm, row in cells if (d, a, mm) == (ds, alg, m)):
                out.append(f"line {cause.line}: {cause.paper} Table {table} {ds} {alg} {m}"
                           + (f" [{cause.row}]" if cause.row else "") + (f" in {cause.results}" if cause.results
                                                                         else "") + " is not an off cell")
    for (paper, table), cells in off.items():
        for res, ds, alg, m, row in cells:
            hits = [c for c in ann.causes if c.matches(paper, table, res, ds, alg, m, row)]
            if len(hits) > 1:
                out.append(f"lines {', '.join(str(c.line) for c in hits)}: {paper} Table {table} {ds} "
                           f"{alg} {m} in {res} is explained twice")
    return out
