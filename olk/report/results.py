"""Load an olk results directory and aggregate its runs the way the papers report them.

A results directory ``results/<experiment>/`` is written by ``olk run`` and holds

* ``runs.csv``        one row per finished run (config order), see :data:`RUN_COLUMNS`;
* ``curves.csv``      learning curves ``run_id,t,mistake_rate`` (optional);
* ``experiment.json`` provenance and reporting options (optional, every key optional);
* ``runs.jsonl``      the run log: every record names the commit that computed it (``commit``, ``dirty``), and a
  directory whose log holds a record without one is refused in one line (:attr:`Results.provenance`).

:func:`load_results` validates them and returns a :class:`Results`; :func:`aggregate` turns the
main-phase runs into one mean/std per (dataset, algorithm, setting, metric).

**Standard deviation.** ``std`` is the *sample* standard deviation (``ddof=1``) over the runs
(one run per permutation of the data), which is what the papers' "mean ± std over 20 runs" report
(MATLAB's ``std`` default).  With a single run the std is undefined (NaN) and tables show the mean only.

**Settings.** Usually every (dataset, algorithm) pair has one parameter setting (possibly tuned per
dataset).  Sweep experiments (SPA Fig. 1/2: budgets, alpha/beta grids) run several settings of the
same algorithm on the same data; a parameter is a *setting parameter* of a (dataset, label) group when
its value varies across the group's runs *and* a permutation index repeats within the group (so
per-permutation tuning is not mistaken for a sweep).  ``Results.runs['setting']`` holds e.g.
``'beta=0.1, budget=100'`` ('' when nothing varies) and aggregation is per (dataset, label, setting).
"""
from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from olk.errors import ConfigError, OlkError, did_you_mean
from olk.report.metrics import (  # noqa: F401  (re-exported: callers read them from here)
    DEFAULT_DATASETS_PER_BLOCK,
    METRICS,
    NUMERIC_COLUMNS,
    ONLINE_METRICS,
    PLUS_MINUS,
    TableLayout,
)
from olk.tasks import TEST_CURVE_COLUMNS, TEST_CURVES

#: Columns ``olk run`` writes to runs.csv (unknown extra columns are ignored).
RUN_COLUMNS = (
    "run_id", "experiment", "phase", "dataset", "algorithm", "label", "display", "params", "kernel",
    "perm", "seed", "scale", "n_examples", "mistakes", "accuracy", "n_sv", "time_s", "kernel_evals",
    "test_accuracy", "train_time_s",
)
REQUIRED_RUN_COLUMNS = ("run_id", "dataset")
CURVE_COLUMNS = ("run_id", "t", "mistake_rate")
PHASES = ("tune", "match", "main")

@dataclass
class Results:
    """A loaded results directory (all phases); use :attr:`main` for the runs tables are built from."""

    path: Path
    runs: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    curves: pd.DataFrame | None = None
    test_curves: pd.DataFrame | None = None     # held-out curves (test_curves.csv), batch mode with test_curve:
    #: run_id -> {commit, dirty, commit_from, machine} of every record of runs.jsonl (olk.fileio.read_run_provenance):
    #: the commit and machine that computed each run; {} for a directory without a run log (hand-made tables)
    provenance: dict[str, dict] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or self.path.name)

    @property
    def main(self) -> pd.DataFrame:
        return self.runs[self.runs["phase"] == "main"]

    @property
    def is_batch(self) -> bool:
        """True when runs carry a held-out test accuracy (batch experiments)."""
        return bool(self.main["test_accuracy"].notna().any())

    @property
    def unavailable(self) -> dict[str, str]:
        """experiment.json ``unavailable: {dataset: reason}`` (datasets that could not be obtained)."""
        return {str(k): str(v) for k, v in (self.meta.get("unavailable") or {}).items()}

    @property
    def datasets(self) -> list[str]:
        """Datasets in config order: experiment.json ``datasets`` if given, then as runs.csv lists them,
        then unavailable ones."""
        order = [str(d) for d in self.meta.get("datasets") or []]
        order += list(pd.unique(self.runs["dataset"]))
        order += list(self.unavailable)
        return list(dict.fromkeys(order))

    @property
    def rows(self) -> list[tuple[str, str]]:
        """Table rows ``(label, setting)`` in config order (first appearance in runs.csv)."""
        main = self.main
        algos = []  # experiment.json 'algorithms' (config order) may hold registry names: map to labels
        for a in (str(a) for a in self.meta.get("algorithms") or []):
            labs = list(pd.unique(self.runs.loc[self.runs["algorithm"] == a, "label"]))
            algos += labs or [a]
        seen = list(dict.fromkeys(zip(main["label"], main["setting"])))
        labels = list(dict.fromkeys(algos + [lab for lab, _ in seen]))
        rank = {lab: i for i, lab in enumerate(labels)}
        out = sorted(seen, key=lambda r: rank[r[0]])  # stable: settings keep run order
        have = {lab for lab, _ in seen}
        out += [(lab, "") for lab in algos if lab not in have]
        return out

    def display(self, label: str, setting: str = "") -> str:
        """Pretty row name, e.g. 'SPA-last' or 'SPA (budget=100)'; with ``table_layout: {gaussian_width: sigma}``
        a swept Gaussian width reads 'KL-RBF (σ=0.1)' instead of 'KL-RBF (kernel.gamma=50)'; a point inherited
        through a match reads as the run recorded it (``setting_display``: 'RBP (B = SPA's #SVs at beta=5)')."""
        hit = self.runs.loc[self.runs["label"] == label, "display"]
        name = str(hit.iloc[0]) if len(hit) else label
        if setting and "setting_display" in self.runs.columns:     # a point inherited through a match (olk sweep)
            shown = self.runs.loc[(self.runs["label"] == label) & (self.runs["setting"] == setting), "setting_display"]
            shown = [str(v) for v in shown if isinstance(v, str) and v.strip()]
            if shown:
                return f"{name} ({shown[0]})"
        if setting and self.layout.gaussian_width == "sigma":
            setting = ", ".join(_as_sigma(part) for part in setting.split(", "))
        return f"{name} ({setting})" if setting else name

    @property
    def layout(self) -> TableLayout:
        from olk.report.layout import parse_layout
        return parse_layout(self.meta.get("table_layout"), self.path / "experiment.json", self.is_batch, self.task)

    @property
    def task(self) -> str:
        """The task protocol of the main runs (olk.tasks); 'binary' for results written before
        runs recorded it, or when tasks are mixed (the table then shows the binary columns)."""
        tasks = {str(t) for t in self.main["task"].dropna() if str(t).strip()} if "task" in self.main.columns else set()
        if not tasks and "mse" in self.main.columns and self.main["mse"].notna().any():
            return "regression"         # runs.csv written before it recorded the task: its MSE column says it
        return tasks.pop() if len(tasks) == 1 else "binary"

    @property
    def shuffled(self) -> bool:
        """False when the runs streamed each dataset in its file order (config ``shuffle: false``): a run index is
        then a seed of the learner's random draws, not a data permutation.  experiment.json ``settings.shuffle``
        (or a top-level ``shuffle``); True when not recorded."""
        settings: Any = self.meta.get("settings") if isinstance(self.meta.get("settings"), dict) else {}
        value = settings.get("shuffle", self.meta.get("shuffle", True))
        return value is not False

    def runs_phrase(self, counts: list[int]) -> str:
        """What one cell's mean ± std is taken over, for runs-per-cell ``counts`` (sorted distinct values): the
        tables' footer and the report's provenance say it the same way."""
        if not counts:
            return "no main-phase runs yet"
        n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        word = "run" if counts == [1] else "runs"
        head = f"mean {PLUS_MINUS} std (sample std, ddof=1) over {n} {word} per cell"
        if self.shuffled:
            return head + " (one per data permutation)"
        seeds = counts[-1]
        return (head + f"; the data are streamed in file order (shuffle: false), so a learner with random draws "
                f"(e.g. random features) runs once per seed ({seeds} seed{'s' if seeds != 1 else ''}) and a "
                f"deterministic learner, whose result the stream fixes, runs once")

    @property
    def scale(self) -> float | None:
        """Data fraction used by the main runs if below 1 (scaled-down run), else None."""
        s = self.main["scale"].dropna()
        return float(s.min()) if len(s) and s.min() < 1.0 else None


def _as_sigma(part: str) -> str:
    """'kernel.gamma=50' -> 'σ=0.1' (sigma = sqrt(1 / (2 gamma)), 4 significant digits); other parts unchanged."""
    key, _, val = part.partition("=")
    if key != "kernel.gamma":
        return part
    try:
        g = float(val)
    except ValueError:
        return part
    return f"σ={math.sqrt(1.0 / (2.0 * g)):.4g}" if g > 0 else part


def load_results(results_dir: str | Path | Results) -> Results:
    """Read and validate ``results_dir``; raise :class:`OlkError` with a one-line message if broken, or if an
    ``olk run`` is writing into it now (it holds the directory's lock)."""
    if isinstance(results_dir, Results):
        return results_dir
    path = resolve_results_dir(results_dir)
    from olk.fileio import lock_holder
    holder = lock_holder(path)
    if holder is not None:              # its tables are half-way: runs.csv is written when the run ends
        raise OlkError(f"{path}: run in progress (pid {holder}); its results are written when it finishes: wait "
                       f"for it (olk run prints the table then), or stop it and continue later with --resume")
    meta = _read_meta(path / "experiment.json")
    from olk.fileio import read_run_provenance
    provenance = read_run_provenance(path / "runs.jsonl")      # a run that names no commit is refused, one line
    runs = _read_runs(path / "runs.csv")
    if "mse" in runs.columns:
        # the MSE in the data file's target units: the loader's target scaling (y = a y_file + b) undone,
        # MSE_file = MSE / a^2 (experiment.json target_scales; no scaling: the same number)
        a = runs["dataset"].map(lambda d: ((meta.get("target_scales") or {}).get(d) or {}).get("scale", 1.0))
        runs["mse_original"] = runs["mse"] / (a.astype(float) ** 2).where(a.astype(float) != 0)
    curves = _read_curves(path / "curves.csv")
    return Results(path=path, runs=runs, meta=meta, curves=curves, test_curves=_read_test_curves(path / TEST_CURVES),
                   provenance=provenance)


def resolve_results_dir(arg: str | Path) -> Path:
    """``arg`` as a directory, or ``<project>/results/<arg>`` when given an experiment name."""
    from olk.paths import project_dir

    path = Path(arg)
    if path.is_dir():
        return path
    if path.exists():
        raise OlkError(f"'{path}' is a file, not a results directory; pass the directory "
                       "holding runs.csv (e.g. results/<experiment>)")
    cand = project_dir() / "results" / str(arg)
    if not path.is_absolute() and len(path.parts) == 1 and cand.is_dir():
        return cand
    parent = path.parent if path.parent.is_dir() else project_dir() / "results"
    siblings = [p.name for p in parent.iterdir() if p.is_dir()] if parent.is_dir() else []
    raise OlkError(f"results directory '{path}' does not exist{did_you_mean(path.name, siblings)}; "
                   "run `olk run CONFIG` first or pass the directory it printed")


def _own_bytes(file: Path, fix: str) -> io.BytesIO | None:
    """A results file's bytes (None when absent), read as :func:`olk.fileio.read_own_bytes` reads them: no link,
    no FIFO, no larger than the ``results_file_bytes`` limit."""
    from olk.fileio import read_own_bytes
    raw = read_own_bytes(file, fix)
    return None if raw is None else io.BytesIO(raw)


def _read_csv(file: Path, what: str) -> pd.DataFrame:
    try:
        return pd.read_csv(_own_bytes(file, what), dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise OlkError(f"{file} is empty; {what}") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise OlkError(f"{file} is not valid CSV ({first}); {what}") from None


def _read_runs(file: Path) -> pd.DataFrame:
    redo = "re-run `olk run` to rewrite it"
    if not file.is_file():
        raise OlkError(f"'{file}' not found: '{file.parent}' is not an olk results directory "
                       "(expected runs.csv written by `olk run`)")
    df = _read_csv(file, redo)
    df.columns = [str(c).strip() for c in df.columns]
    if "label" not in df.columns and "algorithm" in df.columns:
        df["label"] = df["algorithm"]
    missing = [c for c in REQUIRED_RUN_COLUMNS + ("label",) if c not in df.columns]
    if missing:
        raise OlkError(f"{file} is missing column(s) {', '.join(repr(c) for c in missing)} "
                       f"(has: {', '.join(df.columns) or 'none'}); {redo}")
    for col in RUN_COLUMNS + NUMERIC_COLUMNS:
        if col not in df.columns:
            df[col] = ""
    df = df.astype({c: object for c in df.columns})
    for col in ("run_id", "dataset", "label", "display", "algorithm", "phase"):
        df[col] = df[col].map(lambda v: str(v).strip())
    df.loc[df["phase"] == "", "phase"] = "main"
    df.loc[df["display"] == "", "display"] = df.loc[df["display"] == "", "label"]
    for i, (rid, ds, lab, ph) in enumerate(zip(df["run_id"], df["dataset"], df["label"], df["phase"])):
        where = f"{file} line {i + 2}"
        if not rid or not ds or not lab:
            empty = "run_id" if not rid else "dataset" if not ds else "label"
            raise OlkError(f"{where}: column '{empty}' is empty; {redo}")
        if ph not in PHASES:
            raise OlkError(f"{where}: phase '{ph}' must be 'tune', 'match' or 'main'{did_you_mean(ph, PHASES)}")
    dup = df["run_id"].duplicated(keep=False)
    if dup.any():
        rid = df.loc[dup, "run_id"].iloc[0]
        lines = ", ".join(str(i + 2) for i in np.flatnonzero(df["run_id"] == rid))
        raise OlkError(f"{file}: run_id '{rid}' appears on lines {lines}; "
                       "keep one row per run (delete the stale rows)")
    for col in NUMERIC_COLUMNS:
        df[col] = _numeric(df[col], file, col)
    df["mistake_rate"] = np.where(
        df["mistakes"].notna() & (df["n_examples"] > 0),
        100.0 * df["mistakes"] / df["n_examples"].where(df["n_examples"] > 0),
        100.0 - df["accuracy"])
    # the sparse online KLR paper's sparsity: the fraction of the training examples that are not SVs
    df["sparsity"] = 1.0 - df["n_sv"] / df["n_examples"].where(df["n_examples"] > 0)
    df["_params"] = [_flat_params(p, k, file, i) for i, (p, k) in enumerate(zip(df["params"], df["kernel"]))]
    df["setting"] = _settings(df)
    return df.reset_index(drop=True)


def _numeric(col: pd.Series, file: Path, name: str) -> pd.Series:
    text = col.map(lambda v: str(v).strip())
    out = pd.to_numeric(text.where(text != "", None), errors="coerce").astype(float)
    bad = out.isna() & (text != "") & ~text.str.lower().isin(["nan", "na", "none", "null"])
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise OlkError(f"{file} line {i + 2}: column '{name}' has non-numeric value '{text.iloc[i]}'; "
                       "leave the cell empty if the value is unknown")
    return out


def _flat_params(params: str, kernel: str, file: Path, i: int) -> dict[str, Any]:
    """params and kernel JSON flattened to {'beta': 0.1, 'kernel.gamma': 1.0} (nested keys dotted)."""
    out: dict[str, Any] = {}
    for col, text, prefix in (("params", params, ""), ("kernel", kernel, "kernel")):
        text = str(text).strip()
        if not text:
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise OlkError(f"{file} line {i + 2}: column '{col}' is not valid JSON ({e.msg} at "
                           f"char {e.pos}); {col} must be a JSON object like {{\"beta\": 0.1}}") from None
        _flatten(value, prefix, out)
    return out


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list):
        out[prefix or "value"] = json.dumps(value)
    else:
        out[prefix or "value"] = value


def _settings(df: pd.DataFrame) -> list[str]:
    """The 'setting' string of each run (see module docstring)."""
    setting = [""] * len(df)
    given = df["setting"] if "setting" in df.columns else None    # written by olk run for YAML sweeps
    for _, idx in df.groupby(["phase", "dataset", "label"], sort=False).indices.items():
        if given is not None:
            vals = [given.iloc[i] for i in idx]
            if all(isinstance(v, str) and v.strip() for v in vals):
                # the sweep's own points: tuned parameters that differ between points stay out of the name
                for i, v in zip(idx, vals):
                    setting[i] = ", ".join(f"{k}={_fmt_param(_num(x))}" for k, x in
                                           (part.split("=", 1) for part in v.split(",")))
                continue
        if len(idx) < 2:
            continue
        perms = df["perm"].iloc[idx]
        if perms.notna().all() and not perms.duplicated().any():
            continue  # one run per permutation: differing params are per-run tuning, not a sweep
        keys = sorted({k for i in idx for k in df["_params"].iloc[i]})
        varying = [k for k in keys
                   if len({json.dumps(df["_params"].iloc[i].get(k), sort_keys=True) for i in idx}) > 1]
        for i in idx:
            p = df["_params"].iloc[i]
            setting[i] = ", ".join(f"{k}={_fmt_param(p.get(k))}" for k in varying)
    return setting


def _num(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _fmt_param(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, (int, float)):
        return f"{v:g}"
    return str(v)


def _read_meta(file: Path) -> dict[str, Any]:
    from olk.fileio import read_json_object
    meta = read_json_object(file, "fix it or delete it to use defaults")
    if meta is None:
        return {}
    for key, kind in (("unavailable", dict), ("compare", dict), ("table_layout", dict), ("target_scales", dict),
                      ("plots", dict), ("settings", dict), ("datasets", list), ("algorithms", list),
                      ("scale", (int, float))):
        if meta.get(key) is not None and (not isinstance(meta[key], kind) or isinstance(meta[key], bool)):
            want = "object" if kind is dict else "list" if kind is list else "number"
            raise ConfigError(f"{file}: key '{key}' must be a JSON {want}, not {type(meta[key]).__name__}")
    for ds, t in (meta.get("target_scales") or {}).items():
        if not isinstance(t, dict) or type(t.get("scale", 1.0)) not in (int, float):
            raise ConfigError(f"{file}: target_scales.{str(ds)[:40]} must be a JSON object with a number 'scale', "
                              f"as olk run writes it; re-run the config or delete the file")
    return meta


def _read_curve_file(file: Path, required, expected: str) -> pd.DataFrame | None:
    """A curves CSV written by `olk run` (None when absent or empty), with the `required` columns; a broken
    file is a one-line OlkError naming it."""
    raw = _own_bytes(file, "re-run `olk run` or delete the file")
    if raw is None:
        return None
    try:
        df = pd.read_csv(raw, dtype={"run_id": str})
    except pd.errors.EmptyDataError:
        return None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise OlkError(f"{file} is not valid CSV ({str(e).strip().splitlines()[0]}); "
                       "re-run `olk run` or delete the file") from None
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise OlkError(f"{file} is missing column(s) {', '.join(repr(c) for c in missing)}; expected {expected}")
    return df


def _read_test_curves(file: Path) -> pd.DataFrame | None:
    """test_curves.csv (run_id, t, n_sv, train_time_s, and the test metric), or None when absent."""
    return _read_curve_file(file, TEST_CURVE_COLUMNS[:4], f"{','.join(TEST_CURVE_COLUMNS[:4])},<test metric>")


def _read_curves(file: Path) -> pd.DataFrame | None:
    df = _read_curve_file(file, CURVE_COLUMNS, "run_id,t,mistake_rate")
    if df is None:
        return None
    values = [c for c in ("mistake_rate", "mse") if c in df.columns]       # by task: classification / regression
    df = df[["run_id", "t", *values]].copy()
    df["run_id"] = df["run_id"].astype(str).str.strip()
    for col in ("t", *values):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    return df.dropna(subset=["t"]).dropna(subset=values, how="all")


def aggregate(results: str | Path | Results, metrics: tuple[str, ...] | list[str] | None = None,
              phase: str = "main") -> pd.DataFrame:
    """Mean and sample std (ddof=1) of each metric per (dataset, label, setting) over ``phase`` runs.

    Returns a tidy frame with columns ``dataset, algorithm, display, setting, metric, mean, std,
    n_runs, values`` (``algorithm`` is the paper-algorithm label); groups in config order.  ``n_runs`` counts
    the runs in the group; mean/std skip empty cells; ``values`` lists a "list" metric's runs (1-based ids).
    """
    res = load_results(results)
    metrics = list(metrics or METRICS)
    for m in metrics:
        if m not in METRICS:
            raise OlkError(f"unknown metric '{m}'{did_you_mean(m, METRICS)}; known: {', '.join(METRICS)}")
    runs = res.runs[res.runs["phase"] == phase]
    records = []
    for (ds, lab, st), g in runs.groupby(["dataset", "label", "setting"], sort=False):
        for m in metrics:
            vals = g[m].dropna().to_numpy(dtype=float)
            records.append({
                "dataset": ds, "algorithm": lab, "display": res.display(lab, st), "setting": st,
                "metric": m,
                "mean": float(vals.mean()) if len(vals) else math.nan,
                "std": float(vals.std(ddof=1)) if len(vals) > 1 else math.nan,
                "n_runs": int(len(g)),
                "values": ",".join(str(int(v) + 1) for v in sorted(vals)) if METRICS[m][1] == "list" else "",
            })
    cols = ["dataset", "algorithm", "display", "setting", "metric", "mean", "std", "n_runs", "values"]
    return pd.DataFrame.from_records(records, columns=cols)
