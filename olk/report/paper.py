"""Published reference numbers: the values printed in the five papers' result tables.

These numbers are transcribed by hand from the papers (see ``results/paper/README.md`` for every
transcription judgment); olk never computes them.  One tidy CSV per table,
``results/paper/<paper>_table<N>.csv``, with exactly the columns :data:`COLUMNS`.  A row is one printed
cell, identified by ``(paper, table, dataset, algorithm, paper_label, metric)``; ``std`` is empty when
the paper prints no std.

>>> load_published("spa_tist2018", "2").query("dataset == 'a9a' and algorithm == 'spa'")  # doctest: +SKIP
"""
from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pandas as pd

from olk.errors import OlkError, did_you_mean
from olk.paths import PACKAGE_DIR, repo_root

COLUMNS = ("paper", "table", "dataset", "algorithm", "paper_label", "metric", "mean", "std", "unit", "note")
KEY = ("paper", "table", "dataset", "algorithm", "paper_label", "metric")
_TEXT_REQUIRED = ("paper", "table", "dataset", "algorithm", "paper_label", "metric")
_FILE_RE = re.compile(r"^(?P<paper>.+)_table(?P<table>[^_]+)\.csv$")


def published_dir() -> Path:
    """The directory holding the published-value CSVs.

    ``results/paper/`` of the source checkout (via :func:`olk.paths.repo_root`); failing that, the
    same path next to the package (a checkout whose pyproject.toml is not in place); failing that,
    ``published/`` shipped inside ``olk/report/``.
    """
    cands = []
    root = repo_root()
    if root is not None:
        cands.append(root / "results" / "paper")
    cands += [PACKAGE_DIR.parent / "results" / "paper", Path(__file__).resolve().parent / "published"]
    for c in cands:
        if c.is_dir() and any(c.glob("*_table*.csv")):
            return c
    raise OlkError(f"no published-value tables found (looked in {', '.join(str(c) for c in cands)}); "
                   "run from an olk source checkout that has results/paper/")


def _files(directory: Path) -> dict[tuple[str, str], Path]:
    out = {}
    for f in sorted(directory.glob("*_table*.csv")):
        m = _FILE_RE.match(f.name)
        if m:
            out[(m["paper"], m["table"])] = f
    return out


def _table_sort_key(pt: tuple[str, str]):
    paper, table = pt
    roman = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10}
    num = int(table) if table.isdigit() else roman.get(table.upper(), 10**6)
    return (paper, num, table)


def list_tables(directory: str | Path | None = None) -> list[tuple[str, str]]:
    """All published tables as ``(paper, table)`` pairs, e.g. ``('spa_tist2018', '2')``, ``('amkl', 'II')``."""
    d = Path(directory) if directory is not None else published_dir()
    return sorted(_files(d), key=_table_sort_key)


def _number(val: str, path: Path, line: int, col: str, allow_empty: bool) -> float:
    s = val.strip()
    if s == "":
        if allow_empty:
            return math.nan
        raise OlkError(f"{path.name}:{line}: column '{col}' is empty; every published cell needs a value")
    try:
        x = float(s)
    except ValueError:
        raise OlkError(f"{path.name}:{line}: column '{col}' is {val!r}, not a number") from None
    if not math.isfinite(x):
        raise OlkError(f"{path.name}:{line}: column '{col}' is {val!r}; published values must be finite")
    if col == "std" and x < 0:
        raise OlkError(f"{path.name}:{line}: column 'std' is {val!r}; a standard deviation cannot be negative")
    return x


def _read(path: Path, paper: str, table: str) -> pd.DataFrame:
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise OlkError(f"{path.name}: not a readable UTF-8 CSV ({e})") from None
    if not rows:
        raise OlkError(f"{path.name}: empty file; expected the header {','.join(COLUMNS)}")
    if tuple(rows[0]) != COLUMNS:
        raise OlkError(f"{path.name}: columns are {','.join(rows[0])}; expected exactly {','.join(COLUMNS)}")
    body = rows[1:]
    if not body:
        raise OlkError(f"{path.name}: has a header but no rows")
    for i, r in enumerate(body, start=2):
        if len(r) != len(COLUMNS):
            raise OlkError(f"{path.name}:{i}: row has {len(r)} fields; expected {len(COLUMNS)} "
                           f"({','.join(COLUMNS)})")
    df = pd.DataFrame(body, columns=list(COLUMNS))
    means, stds = [], []
    for i, row in enumerate(df.itertuples(index=False), start=2):  # line 1 is the header
        for col in _TEXT_REQUIRED:
            if not getattr(row, col).strip():
                raise OlkError(f"{path.name}:{i}: column '{col}' is empty")
        if row.paper != paper or row.table != table:
            raise OlkError(f"{path.name}:{i}: row says paper={row.paper!r} table={row.table!r} but the file name "
                           f"says paper={paper!r} table={table!r}")
        means.append(_number(row.mean, path, i, "mean", allow_empty=False))
        stds.append(_number(row.std, path, i, "std", allow_empty=True))
    df["mean"] = pd.Series(means, index=df.index, dtype=float)
    df["std"] = pd.Series(stds, index=df.index, dtype=float)
    dup = df.duplicated(list(KEY), keep=False)
    if dup.any():
        r = df[dup].iloc[0]
        raise OlkError(f"{path.name}: duplicate cell dataset={r['dataset']!r} algorithm={r['algorithm']!r} "
                       f"paper_label={r['paper_label']!r} metric={r['metric']!r}")
    return df


def load_published(paper: str | None = None, table: str | int | None = None, *,
                   directory: str | Path | None = None) -> pd.DataFrame:
    """Published values as one DataFrame with columns :data:`COLUMNS` (``mean``/``std`` float, std NaN
    when not printed; all other columns str).

    ``paper`` (e.g. ``'spa_tist2018'``) and ``table`` (e.g. ``2``, ``'2'``, ``'II'``) filter; None means all.
    Raises :class:`olk.errors.OlkError` (one line) for an unknown paper/table or a malformed file.
    """
    d = Path(directory) if directory is not None else published_dir()
    files = _files(d)
    if not files:
        raise OlkError(f"no <paper>_table<N>.csv files in {d}")
    papers = sorted({p for p, _ in files})
    if paper is not None and paper not in papers:
        raise OlkError(f"unknown paper {paper!r}{did_you_mean(paper, papers)}; published papers: {', '.join(papers)}")
    tab = None if table is None else str(table).strip()
    chosen = [(p, t) for (p, t) in sorted(files, key=_table_sort_key)
              if (paper is None or p == paper) and (tab is None or t == tab)]
    if not chosen:
        have = sorted({t for p, t in files if paper is None or p == paper})
        raise OlkError(f"no published table {tab!r}" + (f" for paper {paper!r}" if paper else "")
                       + f"{did_you_mean(tab or '', have)}; available tables: {', '.join(have)}")
    frames = [_read(files[pt], *pt) for pt in chosen]
    return pd.concat(frames, ignore_index=True)[list(COLUMNS)]
