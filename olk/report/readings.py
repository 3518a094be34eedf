"""Literal, fitted and held-out: how much of a table is reproduced under the paper's own reading, and how much
only under readings chosen because they match it.

Every results directory of a table carries a *reading* (``compare: {reading: ...}`` in its config, or
``readings:`` in results/annotations.yaml for results computed before the key existed):

* **literal**: what the paper prints; where it is silent, a default fixed before looking at results;
* **fitted**: chosen (or proposed) because it matches published cells, with the datasets it was chosen on
  (``chosen_on``).

A reading is judged on the cells of the paper's own data (the size rule of :mod:`olk.report.sizes`).  Each
reading R is read as the table's literal cells with R's own cells in their place (R may rerun only some rows or
datasets), so every reading of a table is scored on the same cells.  Three numbers per table
(:func:`table_readings`):

* **literal**: in tolerance under the literal main results directories;
* **best reading (in-sample)**: per dataset, the reading with the most cells in tolerance on that dataset, summed
  -- what fitting readings to the published cells can reach when it is judged on the cells it was fitted to;
* **held out** (leave one dataset out): per dataset d, the reading chosen by its cells in tolerance on the OTHER
  datasets, among the literal reading and the readings not chosen on d; its cells on d are the held-out score.
  A reading fitted on every dataset never enters the held-out score; one that explains only the cells it was
  fitted to scores as the literal reading does.

Ties go to the literal reading, then to the directory name, so the numbers are reproducible.

>>> s = ReadingScore(6, 10)
>>> s.text()
'6 of 10 (60.0%)'
"""
from __future__ import annotations

from dataclasses import dataclass, field

from olk.report.compare import DATA_SIZE, DATA_SUBSTITUTE, Comparison
from olk.report.tolerance import IN_TOLERANCE, JUDGED

LITERAL, FITTED = "literal", "fitted"

#: a judged cell of the paper's own data: (dataset, algorithm, metric, the paper's row label)
Cell = tuple[str, str, str, str]


@dataclass(frozen=True)
class ReadingScore:
    """Cells in tolerance of cells judged, and which reading each dataset took (dataset -> directory)."""

    in_tolerance: int = 0
    judged: int = 0
    picks: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        if not self.judged:
            return "—"
        return f"{self.in_tolerance} of {self.judged} ({100.0 * self.in_tolerance / self.judged:.1f}%)"


@dataclass
class Reading:
    """One results directory of a table: its reading, the datasets it was chosen on, its judged cells."""

    name: str
    reading: str
    chosen_on: tuple[str, ...]
    main: bool
    cells: dict[Cell, bool] = field(default_factory=dict)

    @property
    def datasets(self) -> set[str]:
        return {c[0] for c in self.cells}


@dataclass
class TableReadings:
    """The three numbers of one table, and each fitted reading's own held-out score (cells outside
    ``chosen_on``)."""

    literal: ReadingScore
    best: ReadingScore
    held_out: ReadingScore
    readings: list[Reading]
    own_held_out: dict[str, ReadingScore] = field(default_factory=dict)
    unlabelled: list[str] = field(default_factory=list)


def paper_cells(c: Comparison) -> dict[Cell, bool]:
    """The judged cells of the paper's own data in one comparison -> in tolerance or not."""
    cells = c.cells[c.cells["in_experiment"] & c.cells["verdict"].isin(JUDGED)
                    & ~c.cells["data"].isin((DATA_SIZE, DATA_SUBSTITUTE))]
    return {(str(r.dataset), str(r.algorithm), str(r.metric), str(r.paper_label)): r.verdict in IN_TOLERANCE
            for r in cells.itertuples(index=False)}


def _score(cells: dict[Cell, bool]) -> tuple[int, int]:
    return sum(cells.values()), len(cells)


def table_readings(comparisons: list[Comparison]) -> TableReadings:
    """The literal / best / held-out numbers of one table from the comparisons of its results directories."""
    readings = [Reading(c.results.path.name, c.reading or "", tuple(c.chosen_on), not c.variant, paper_cells(c))
                for c in comparisons]
    unlabelled = [r.name for r in readings if r.reading not in (LITERAL, FITTED)]
    base: dict[Cell, bool] = {}
    for r in readings:
        if r.main and r.reading == LITERAL:
            base.update(r.cells)
    datasets = sorted({c[0] for c in base} | {d for r in readings for d in r.datasets})

    def composite(r: Reading | None, d: str) -> dict[Cell, bool]:
        """The literal cells of dataset d with reading r's cells in their place."""
        out = {k: v for k, v in base.items() if k[0] == d}
        if r is not None:
            out.update({k: v for k, v in r.cells.items() if k[0] == d})
        return out

    literal = ReadingScore(*_score(base), tuple((d, LITERAL) for d in datasets if any(k[0] == d for k in base)))
    candidates = [r for r in readings if not (r.main and r.reading == LITERAL)]

    def order(r: Reading | None) -> tuple:
        return (0, "") if r is None else (1, r.name)

    best_k = best_n = held_k = held_n = 0
    best_picks, held_picks = [], []
    for d in datasets:
        options: list[Reading | None] = [None] + [r for r in candidates if d in r.datasets]
        # in-sample: the reading with the most cells of d in tolerance
        pick = min(options, key=lambda r: (-_score(composite(r, d))[0], order(r)))
        k, n = _score(composite(pick, d))
        best_k, best_n = best_k + k, best_n + n
        best_picks.append((d, LITERAL if pick is None else pick.name))
        # held out: chosen on the other datasets, among readings not chosen on d (the literal one only where it
        # has cells of d: a dataset the literal reading has not run is judged under an eligible reading, if any)
        eligible = [r for r in options if r is None or (r.reading != "" and d not in r.chosen_on)]
        if not composite(None, d) and len(eligible) > 1:
            eligible = eligible[1:]
        others = [e for e in datasets if e != d]
        pick = min(eligible, key=lambda r: (-sum(_score(composite(r, e))[0] for e in others), order(r)))
        k, n = _score(composite(pick, d))
        held_k, held_n = held_k + k, held_n + n
        held_picks.append((d, LITERAL if pick is None else pick.name))
    own = {}
    for r in readings:
        if r.reading == FITTED:
            out = {k: v for k, v in r.cells.items() if k[0] not in r.chosen_on}
            own[r.name] = ReadingScore(*_score(out))
    return TableReadings(literal, ReadingScore(best_k, best_n, tuple(best_picks)),
                         ReadingScore(held_k, held_n, tuple(held_picks)), readings, own, unlabelled)
