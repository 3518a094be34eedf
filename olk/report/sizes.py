"""Dataset sizes: ours (the rows our runs saw) against the paper's table of datasets, and its train / test split.

A reproduction on another number of rows than the paper's is not the paper's experiment: SPA's Table 6 rule
beta = 3 if T < 1e5 else 10 (Section 6.2.4) flips on it, a budget matched to another T is another budget.  The
paper's sizes are reference data, transcribed with the tables (``results/paper/<paper>_table<N>.csv``,
``n_instances`` rows of the dataset-summary tables: SPA Tables 1 and 4, KLR Table 1, AMKL Table I);
:data:`olk.report.catalogue.DATASET_TABLES` says which of them each result table runs on.  Ours are read from the
runs: the examples of the online pass or of training (``n_examples``) plus the held-out rows (``n_test``), the
largest over the main runs of a dataset.

A table that trains on one part and tests on another compares the two parts apart: where the paper names its split
(:data:`olk.report.catalogue.PAPER_SPLITS`: SPA Table 3 uses "the original splits of training and test sets on the
LIBSVM website"), the paper's train and test rows are the rows of the dataset's ``train`` and ``test`` files in the
data registry (``olk/data/registry.yaml``, where each LIBSVM file is recorded with its rows), and our training rows
and test rows are each compared with them.  So SPA Table 3's codrna, 41,674 + 17,861 rows of the 59,535-row training
file here (Table 1's 59,535 in all), is not the paper's 59,535 + 271,617: **another split**, counted apart as data
of another size is.

One written rule says when a size is the paper's (:data:`SIZE_RULE`), applied to the total and to each part of a
split alike: our rows within 1 % of the paper's count as the paper's data (AMKL's Twitter: 13,813 rows here and in
the authors' own file, 13,818 in the paper's Table I), and the table still prints both numbers; beyond 1 % the
cells are counted apart, as data of another size (the total) or of another split (a part).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from olk.errors import OlkError
from olk.report.catalogue import DATASET_TABLES, PAPER_SPLITS
from olk.report.results import Results

#: our rows count as the paper's data when within this fraction of the paper's (the one size rule)
SIZE_RULE = 0.01


def _apart(ours: int | None, paper: int | None) -> bool:
    """More than :data:`SIZE_RULE` apart (False when either is unknown)."""
    return ours is not None and paper is not None and abs(ours - paper) > SIZE_RULE * paper


@dataclass(frozen=True)
class SizeCheck:
    """Our rows of a dataset against the paper's (``paper_rows`` None: the paper prints no size for it), and,
    where the paper names its train / test split (``split_source``), our training and test rows against its."""

    dataset: str
    ours: int | None
    paper_rows: int | None
    source: str = ""         # 'Table 4' (the paper's table the size comes from)
    ours_train: int | None = None
    ours_test: int | None = None
    paper_train: int | None = None
    paper_test: int | None = None
    split_source: str = ""   # where the paper's split is said ('' for none)

    @property
    def exact(self) -> bool:
        return (self.ours is not None and self.ours == self.paper_rows
                and (not self.split_source or (self.ours_train, self.ours_test) == (self.paper_train,
                                                                                      self.paper_test)))

    @property
    def differs(self) -> bool:
        """Another size than the paper's by :data:`SIZE_RULE` (more than 1 % apart)."""
        return _apart(self.ours, self.paper_rows)

    @property
    def split_differs(self) -> bool:
        """The paper names its split, and our training rows or our test rows are more than 1 % from its."""
        return bool(self.split_source) and (_apart(self.ours_train, self.paper_train)
                                            or _apart(self.ours_test, self.paper_test))

    @property
    def checked(self) -> bool:
        """The paper gives a size to compare with (its table of datasets or its split)."""
        return self.paper_rows is not None or bool(self.split_source)

    @property
    def heading(self) -> str:
        """What a table says before :meth:`text`."""
        return ("Train / test split differs from the paper" if self.split_differs and not self.differs
                else "Data size differs from the paper")

    def text(self) -> str:
        """'141,691 rows here, 49,990 in the paper's Table 4' (only meaningful when not :attr:`exact`); a size
        within the rule says it counts as the paper's; a split says both parts."""
        out = "" if self.paper_rows is None or self.ours is None else (
            f"{self.ours:,} rows here, as in the paper's {self.source}" if self.ours == self.paper_rows else
            f"{self.ours:,} rows here, {self.paper_rows:,} in the paper's {self.source}")
        if self.paper_rows is not None and not self.differs and self.ours != self.paper_rows:
            out += f" (within {SIZE_RULE:.0%}: counted as the paper's data)"
        if self.split_source and (self.ours_train, self.ours_test) != (self.paper_train, self.paper_test):
            split = (f"trained on {_n(self.ours_train)} and tested on {_n(self.ours_test)} here, where the paper "
                     f"trains on {_n(self.paper_train)} and tests on {_n(self.paper_test)} ({self.split_source})")
            split += ": another split, counted apart" if self.split_differs else \
                f" (within {SIZE_RULE:.0%}: counted as the paper's split)"
            out = f"{out}, but {split}" if out else split
        return out


def _n(v: int | None) -> str:
    return f"{v:,}" if v is not None else "?"


def paper_sizes(paper: str, table: str, directory: str | Path | None = None) -> dict[str, tuple[int, str]]:
    """The paper's dataset -> (rows, 'Table N') for the datasets of ``paper`` Table ``table`` ({} when the
    catalogue names no table of datasets for it, or the reference file is missing)."""
    from olk.report.paper import load_published

    src = DATASET_TABLES.get((str(paper), str(table)))
    if src is None:
        return {}
    try:
        df = load_published(paper, src, directory=directory)
    except OlkError:
        return {}
    rows = df[(df["metric"] == "n_instances") & (df["algorithm"] == "-")]
    return {str(d): (int(v), f"Table {src}") for d, v in zip(rows["dataset"], rows["mean"]) if math.isfinite(v)}


def paper_split(paper: str, table: str, dataset: str) -> tuple[int | None, int | None] | None:
    """The paper's (train rows, test rows) of ``dataset`` in ``paper`` Table ``table``: the rows the data registry
    records for the dataset's ``train`` and ``test`` files, where the catalogue says the table uses those files
    (:data:`~olk.report.catalogue.PAPER_SPLITS`); None where it does not, or the registry has no such dataset or
    no train / test files for it."""
    if (str(paper), str(table)) not in PAPER_SPLITS:
        return None
    from olk.data.registry import get_registry

    reg = get_registry()
    if dataset not in reg:
        return None
    parts = reg[dataset].parts
    if "train" not in parts or "test" not in parts:
        return None
    return parts["train"].rows, parts["test"].rows


def our_parts(res: Results) -> dict[str, tuple[int | None, int | None]]:
    """Our dataset -> (training rows, test rows) its main runs saw (``n_examples``, ``n_test``: the largest over the
    runs; test None when no run held rows out)."""
    main = res.main
    if "n_examples" not in main.columns:
        return {}
    import pandas as pd

    n = pd.to_numeric(main["n_examples"], errors="coerce").astype(float)
    t = pd.to_numeric(main["n_test"], errors="coerce").astype(float) if "n_test" in main.columns else n * math.nan
    out: dict[str, tuple[int | None, int | None]] = {}
    for ds, g in n.groupby(main["dataset"], sort=False):
        train = g.max()
        test = t[g.index].max()
        if math.isfinite(train) and train > 0:
            out[str(ds)] = (int(train), int(test) if math.isfinite(test) and test > 0 else None)
    return out


def our_sizes(res: Results) -> dict[str, int]:
    """Our dataset -> the rows its main runs saw (n_examples + n_test, the largest over the runs)."""
    main = res.main
    if "n_examples" not in main.columns:
        return {}
    import pandas as pd

    n = pd.to_numeric(main["n_examples"], errors="coerce").astype(float)
    if "n_test" in main.columns:
        n = n + pd.to_numeric(main["n_test"], errors="coerce").astype(float).fillna(0.0)
    out = {}
    for ds, v in n.groupby(main["dataset"], sort=False).max().items():
        if math.isfinite(v) and v > 0:
            out[str(ds)] = int(v)
    return out


def size_checks(res: Results, paper: str, table: str, aliases: dict[str, str] | None = None,
                directory: str | Path | None = None) -> dict[str, SizeCheck]:
    """Our dataset -> :class:`SizeCheck` for every dataset of ``res`` that is the paper's own (a substitute
    dataset, ``compare.datasets``, is another dataset: no size check)."""
    aliases = aliases or {}
    paper_n = paper_sizes(paper, table, directory)
    parts = our_parts(res)
    out = {}
    for ds, n in our_sizes(res).items():
        if ds in aliases:
            continue
        pn = paper_n.get(ds)
        split = paper_split(paper, table, ds)
        train, test = parts.get(ds, (None, None))
        out[ds] = SizeCheck(ds, n, pn[0] if pn else None, pn[1] if pn else "",
                            ours_train=train if split else None, ours_test=test if split else None,
                            paper_train=split[0] if split else None, paper_test=split[1] if split else None,
                            split_source=PAPER_SPLITS[(str(paper), str(table))] if split else "")
    return out
