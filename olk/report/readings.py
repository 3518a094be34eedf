"""Literal, fitted and held-out: how much of a table is reproduced under the paper's own reading, and how much
only under readings chosen because they match it.

Every results directory of a table carries a *reading* (``compare: {reading: ...}`` in its config, or
``readings:`` in results/annotations.yaml for results computed before the key existed; the labels come from
:meth:`olk.report.tolerance.CompareSpec.label`):

* **literal**: what the paper prints; where it is silent, a default fixed before looking at results;
* **fitted**: chosen (or proposed) because it matches published cells, with the datasets it was chosen on
  (``chosen_on``; per departure from the literal reading in ``choices``);
* **literal alternative**: the reading the contradiction rule (docs/reproduction/contradictions.md) does not pick
  where the paper contradicts itself.  It is a labelled variant, its off cells are cause *paper*, and it is never a
  candidate below: it was not chosen because it matches.

A reading is judged on the cells of the paper's own data (the size rule of :mod:`olk.report.sizes`).  Each
reading R is read as the table's literal cells with R's own cells in their place (R may rerun only some rows or
datasets), so every reading of a table is scored on the same cells.  Three numbers per table
(:func:`table_readings`):

* **literal**: in tolerance under the literal main results directories;
* **best reading (in-sample)**: per dataset, the reading with the most cells in tolerance on that dataset, summed
  -- what fitting readings to the published cells can reach when it is judged on the cells it was fitted to;
* **held out** (leave one dataset out): per dataset d, the reading chosen by its cells in tolerance on the OTHER
  datasets, among the *candidates* of d: the literal reading and every labelled reading (not a literal
  alternative) that has its own cells on d and was not chosen on d (:data:`CANDIDATE_RULE`); its cells on d are
  the held-out score.  A reading fitted on every dataset never enters the held-out score; one that explains only
  the cells it was fitted to scores as the literal reading does.

Candidates that score alike on the other datasets tie, and a tie rule picks one of them.  The held-out number is
given under each tie rule of :data:`TIE_RULES` (the first one, ties to the literal reading, is the headline), so
the range it spans is printed beside it: a reading with no cells on the other datasets ties with the literal one
by construction.  In-sample, ties go to the literal reading, then to the directory name.

>>> s = ReadingScore(6, 10)
>>> s.text()
'6 of 10 (60.0%)'
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from olk.report.compare import DATA_APART, Comparison
from olk.report.tolerance import FITTED, IN_TOLERANCE, JUDGED, LITERAL, LITERAL_ALTERNATIVE, READINGS

__all__ = ["CANDIDATE_RULE", "FITTED", "IN_TOL", "LITERAL", "LITERAL_ALTERNATIVE", "TIE_RULES", "Reading",
           "ReadingScore", "TableReadings", "choice_conflicts", "paper_cells", "table_readings"]

#: a judged cell of the paper's own data: (dataset, algorithm, metric, the paper's row label)
Cell = tuple[str, str, str, str]
#: the state of a judged cell: in tolerance, or off by its cause category (evidenced | paper | open)
IN_TOL = "in tolerance"

#: Which readings may be chosen for a held-out dataset, in words (the overview states it).
CANDIDATE_RULE = ("a candidate for a dataset is the literal reading or a labelled reading (not a literal "
                  "alternative) that has its own judged cells on that dataset and was not chosen on it")


@dataclass(frozen=True)
class ReadingScore:
    """Cells in tolerance of cells judged, and which reading each dataset took (dataset -> directory); ``states``:
    the judged cells per state (in tolerance, or off by cause category)."""

    in_tolerance: int = 0
    judged: int = 0
    picks: tuple[tuple[str, str], ...] = ()
    states: tuple[tuple[str, int], ...] = ()

    def text(self) -> str:
        if not self.judged:
            return "—"
        return f"{self.in_tolerance} of {self.judged} ({100.0 * self.in_tolerance / self.judged:.1f}%)"

    def state(self, name: str) -> int:
        return dict(self.states).get(name, 0)


@dataclass
class Reading:
    """One results directory of a table: its reading, the datasets it was chosen on, its judged cells (cell -> its
    state: :data:`IN_TOL` or the off cell's cause category)."""

    name: str
    reading: str
    chosen_on: tuple[str, ...]
    main: bool
    cells: dict[Cell, str] = field(default_factory=dict)

    @property
    def datasets(self) -> set[str]:
        return {c[0] for c in self.cells}


#: A tie rule: the order in which tied candidates are preferred (the lowest key wins), from the candidate (None:
#: the literal reading) and the number of judged cells it has in the table.
TieKey = Callable[["Reading | None", int], tuple]

#: The tie rules of the held-out choice, each with what it says; the first is the headline's.  The held-out number is
#: computed under every one, and the range they span printed beside it.
TIE_RULES: dict[str, tuple[str, TieKey]] = {
    "literal": ("ties go to the literal reading, then to the first directory name",
                lambda r, n: (0, "") if r is None else (1, r.name)),
    "fitted": ("ties go to a fitted reading (the first by directory name), then to the literal one",
               lambda r, n: (1, "") if r is None else (0 if r.reading == FITTED else 2, r.name)),
    "more cells": ("ties go to the candidate with more judged cells in the table, then to the literal reading",
                   lambda r, n: (-n, 0, "") if r is None else (-n, 1, r.name)),
}
HEADLINE_TIE_RULE = next(iter(TIE_RULES))


@dataclass
class TableReadings:
    """The three numbers of one table, and each fitted reading's own held-out score (cells outside
    ``chosen_on``); ``held_out_by_rule``: the held-out score under each of :data:`TIE_RULES` (``held_out`` is the
    headline's)."""

    literal: ReadingScore
    best: ReadingScore
    held_out: ReadingScore
    readings: list[Reading]
    own_held_out: dict[str, ReadingScore] = field(default_factory=dict)
    unlabelled: list[str] = field(default_factory=list)
    held_out_by_rule: dict[str, ReadingScore] = field(default_factory=dict)

    @property
    def fitted(self) -> bool:
        """The table has a fitted reading (else its three numbers are the literal one)."""
        return any(r.reading == FITTED for r in self.readings)

    def held_out_range(self) -> tuple[int, int]:
        """(lowest, highest) held-out cells in tolerance over the tie rules."""
        vals = [s.in_tolerance for s in self.held_out_by_rule.values()] or [self.held_out.in_tolerance]
        return min(vals), max(vals)


def paper_cells(c: Comparison) -> dict[Cell, str]:
    """The judged cells of the paper's own data in one comparison -> :data:`IN_TOL` or the off cell's cause."""
    cells = c.cells[c.cells["in_experiment"] & c.cells["verdict"].isin(JUDGED)
                    & ~c.cells["data"].isin(DATA_APART)]
    return {(str(r.dataset), str(r.algorithm), str(r.metric), str(r.paper_label)):
            IN_TOL if r.verdict in IN_TOLERANCE else str(r.cause_category or "open")
            for r in cells.itertuples(index=False)}


def _score(cells: dict[Cell, str]) -> tuple[int, int]:
    return sum(v == IN_TOL for v in cells.values()), len(cells)


def _states(cells: list[dict[Cell, str]]) -> tuple[tuple[str, int], ...]:
    n: Counter = Counter(v for c in cells for v in c.values())
    return tuple(sorted(n.items()))


def table_readings(comparisons: list[Comparison]) -> TableReadings:
    """The literal / best / held-out numbers of one table from the comparisons of its results directories."""
    readings = [Reading(c.results.path.name, c.reading or "", tuple(c.chosen_on), not c.variant, paper_cells(c))
                for c in comparisons]
    unlabelled = [r.name for r in readings if r.reading not in READINGS]
    base: dict[Cell, str] = {}
    for r in readings:
        if r.main and r.reading == LITERAL:
            base.update(r.cells)
    datasets = sorted({c[0] for c in base} | {d for r in readings for d in r.datasets
                                               if r.reading != LITERAL_ALTERNATIVE})

    def composite(r: Reading | None, d: str) -> dict[Cell, str]:
        """The literal cells of dataset d with reading r's cells in their place."""
        out = {k: v for k, v in base.items() if k[0] == d}
        if r is not None:
            out.update({k: v for k, v in r.cells.items() if k[0] == d})
        return out

    literal = ReadingScore(*_score(base), tuple((d, LITERAL) for d in datasets if any(k[0] == d for k in base)),
                           _states([base]))
    candidates = [r for r in readings if not (r.main and r.reading == LITERAL) and r.reading != LITERAL_ALTERNATIVE]
    size = {id(r): len(r.cells) for r in candidates}

    def cells_of(r: Reading | None) -> int:
        return len(base) if r is None else size[id(r)]

    best_cells, best_picks = [], []
    held: dict[str, tuple[list, list]] = {rule: ([], []) for rule in TIE_RULES}
    for d in datasets:
        options: list[Reading | None] = [None] + [r for r in candidates if d in r.datasets]
        # in-sample: the reading with the most cells of d in tolerance
        pick = min(options, key=lambda r: (-_score(composite(r, d))[0], TIE_RULES[HEADLINE_TIE_RULE][1](r, 0)))
        best_cells.append(composite(pick, d))
        best_picks.append((d, LITERAL if pick is None else pick.name))
        # held out: chosen on the other datasets, among the candidates of d (the literal one only where it has cells
        # of d: a dataset the literal reading has not run is judged under an eligible reading, if any)
        eligible = [r for r in options if r is None or (r.reading != "" and d not in r.chosen_on)]
        if not composite(None, d) and len(eligible) > 1:
            eligible = eligible[1:]
        others = [e for e in datasets if e != d]
        for rule, (_, tie) in TIE_RULES.items():
            pick = min(eligible, key=lambda r: (-sum(_score(composite(r, e))[0] for e in others),
                                                tie(r, cells_of(r))))
            held[rule][0].append(composite(pick, d))
            held[rule][1].append((d, LITERAL if pick is None else pick.name))
    own = {}
    for r in readings:
        if r.reading == FITTED:
            out = {k: v for k, v in r.cells.items() if k[0] not in r.chosen_on}
            own[r.name] = ReadingScore(*_score(out))

    def total(cells: list[dict[Cell, str]], picks: list) -> ReadingScore:
        k = sum(_score(c)[0] for c in cells)
        return ReadingScore(k, sum(len(c) for c in cells), tuple(picks), _states(cells))

    by_rule = {rule: total(*held[rule]) for rule in TIE_RULES}
    return TableReadings(literal, total(best_cells, best_picks), by_rule[HEADLINE_TIE_RULE], readings, own,
                         unlabelled, by_rule)


def choice_conflicts(comparisons: list[Comparison]) -> list[str]:
    """One line per reading choice (``compare: {choices: ...}``) that two results directories of one table label
    differently (chosen on other datasets): one choice, one label.  Empty when every choice has one."""
    seen: dict[tuple[str, str, str], dict[tuple[str, ...], list[str]]] = {}
    for c in comparisons:
        for text, on in c.reading_spec.choices:
            seen.setdefault((c.paper, c.table, text), {}).setdefault(tuple(sorted(on)), []).append(
                c.results.path.name)
    out = []
    for (paper, table, text), labels in seen.items():
        if len(labels) > 1:
            out.append(f"{paper} Table {table}: the choice '{text}' is " + "; ".join(
                f"chosen on {', '.join(on) or 'no cell'} in {', '.join(dirs)}" for on, dirs in labels.items()))
    return out
