"""Compare a reproduction with the published table it reproduces (``results/paper/<paper>_table<N>.csv``).

For each (dataset, algorithm, metric) cell the comparison shows ours mean ± std, the paper's mean ± std,
the difference ours − paper and a verdict by the one tolerance rule of :mod:`olk.report.tolerance`:

* ``within paper std``  |diff| <= paper std (the paper printed a std);
* ``within tolerance``  |diff| <= paper std + the metric's margin (1.5 points, 10% of #SV or MSE, ...);
* ``off``               neither, or our runs gave no finite value (a diverged learner);
* ``n/a``               the metric is not judged (time, measured on other hardware);
* ``no paper value``    we ran it, the paper has no number (even where our runs diverged: a cell without the paper's
                        number gets no verdict and is never counted);
* ``not run``           the paper has a number, we have no run (or the dataset was unavailable).

Every off cell gets a cause category from ``results/annotations.yaml`` (:mod:`olk.report.annotations`):
evidenced, paper, or open (nothing recorded); an off cell of a *literal alternative* (``compare: {reading:
literal_alternative, contradiction: N}``) is cause *paper* without an entry: the paper contradicts itself there
(docs/reproduction/contradictions.md, row N).  Each cell also says whether it ran on the paper's data
(``data``: ``same``, ``size differs`` from the paper's table of datasets, ``split differs`` from the paper's train /
test split (:mod:`olk.report.sizes`), ``substitute`` for a stand-in dataset, '' when the paper prints no size).

It also measures, per dataset, whether we rank the algorithms like the paper does: Kendall's tau
(``scipy.stats.kendalltau``) between our and the paper's headline metric (accuracy, else mistake rate,
else MSE) over the algorithms both report.

When the paper lists one algorithm several times (e.g. "Pegasos (λ = 1e-5)", "Pegasos (λ = 1e-7)"),
our runs are matched to a paper row when every number printed in its label is one of the run's
parameter values; unmatched rows get 'no paper value' / 'not run'.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from olk.errors import OlkError, did_you_mean
from olk.fileio import atomic_write_text
from olk.report.annotations import CATEGORIES, Annotations, load_annotations
from olk.report.results import METRICS, Results, aggregate, load_results
from olk.report.sizes import SizeCheck, size_checks
from olk.report.tables import format_cell, format_value
from olk.report.tolerance import (
    CONTRADICTIONS_PAGE,
    DEFAULT_TOLERANCES,
    LITERAL_ALTERNATIVE,
    PAPER_METRIC,
    CompareSpec,
    Tolerance,
    describe_rule,
    describe_tol,
    judge,
    margin,
    parse_tolerances,
)
from olk.tasks import TASKS

__all__ = ["DEFAULT_TOLERANCES", "PAPER_METRIC", "Comparison", "cell_texts", "compare", "load_paper_table",
           "parse_tolerances", "unit_suffix"]

HEADLINE = ("accuracy", "mistake_rate", "mse")  # ranking metric, first one the paper reports
LOWER_IS_BETTER = {"mistake_rate", "mse", "time", "n_sv"}
VERDICTS = ("within paper std", "within tolerance", "off", "n/a", "no paper value", "not run")
PUBLISHED_COLUMNS = ("paper", "table", "dataset", "algorithm", "paper_label", "metric", "mean", "std",
                     "unit", "note")
CELL_COLUMNS = ["dataset", "algorithm", "display", "setting", "paper_label", "metric", "our_metric",
                "ours_mean", "ours_std", "n_runs", "paper_mean", "paper_std", "diff", "rel_diff",
                "tolerance", "verdict", "in_experiment", "paper_note", "row", "unit", "data", "cause_category",
                "cause", "evidence", "quote", "tried"]
#: What ``data`` says of a cell's dataset.
DATA_SAME, DATA_SIZE, DATA_SPLIT, DATA_SUBSTITUTE = "same", "size differs", "split differs", "substitute"
#: The cells not on the paper's own data (counted apart from it).
DATA_APART = (DATA_SIZE, DATA_SPLIT, DATA_SUBSTITUTE)
RANK_COLUMNS = ["dataset", "metric", "n_algorithms", "tau", "p_value", "ours_order", "paper_order"]
_NUM = re.compile(r"(?<![A-Za-z0-9_.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _describe_tol(metric: str, tol: Tolerance) -> str:
    return describe_tol(metric, tol)


# ----------------------------------------------------------------------------- published values
def load_paper_table(paper: str, table: str, published: pd.DataFrame | str | Path | None = None
                     ) -> pd.DataFrame:
    """The published rows of ``paper`` Table ``table`` (values scaled by numeric units such as 1e-3)."""
    if published is None:
        df = _load_published(paper, table)
    elif isinstance(published, pd.DataFrame):
        df = published.copy()
    else:
        df = _read_published_csv(Path(published))
    missing = [c for c in ("dataset", "algorithm", "metric", "mean") if c not in df.columns]
    if missing:
        raise OlkError(f"published table for {paper} Table {table} lacks column(s) {', '.join(missing)}; "
                       f"expected {','.join(PUBLISHED_COLUMNS)}")
    for col in PUBLISHED_COLUMNS:
        if col not in df.columns:
            df[col] = paper if col == "paper" else table if col == "table" else ""
    df = df.astype({c: object for c in PUBLISHED_COLUMNS})
    for col in ("paper", "table", "dataset", "algorithm", "paper_label", "metric", "unit", "note"):
        df[col] = df[col].map(lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v))
                              else str(v).strip())
    sel = df[(df["paper"] == str(paper)) & (df["table"] == str(table))]
    if sel.empty:
        have = sorted({f"{p} Table {t}" for p, t in zip(df["paper"], df["table"])})
        raise OlkError(f"no published values for {paper} Table {table}"
                       f"{did_you_mean(f'{paper} Table {table}', have)}; add "
                       f"results/paper/{paper}_table{table}.csv or fix 'paper'/'table' in experiment.json")
    sel = sel[sel["metric"].isin(set(PAPER_METRIC.values())) & (sel["algorithm"] != "-")].copy()
    for col in ("mean", "std"):
        sel[col] = pd.to_numeric(sel[col], errors="coerce").astype(float)
    factor = pd.to_numeric(sel["unit"], errors="coerce").fillna(1.0).astype(float)
    sel["mean"] *= factor
    sel["std"] *= factor
    return sel.reset_index(drop=True)


def _load_published(paper: str, table: str) -> pd.DataFrame:
    load_published: Any
    try:
        from olk.report.paper import load_published  # written alongside; optional
    except ImportError:
        load_published = None
    if load_published is not None:
        return load_published(paper=paper, table=table)
    from olk.paths import project_dir

    folder = project_dir() / "results" / "paper"
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise OlkError(f"no published tables in {folder}; add results/paper/{paper}_table{table}.csv")
    exact = folder / f"{paper}_table{table}.csv"
    return _read_published_csv(exact) if exact in files else pd.concat(
        [_read_published_csv(f) for f in files], ignore_index=True)


def _read_published_csv(file: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(file, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise OlkError(f"published table '{file}' not found") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise OlkError(f"{file} is not a valid published table ({str(e).strip().splitlines()[0]})") from None


# ----------------------------------------------------------------------------- the comparison
@dataclass
class Comparison:
    """Cell-by-cell comparison (``cells``) and per-dataset ranking agreement (``ranking``).

    ``tolerances`` are the rule's margins with this table's reasoned deviations (``reasons``); ``ignored`` lists
    the config's overrides that gave no reason, ``overridden`` the metrics ``olk compare --tol`` set.
    ``variant`` is '' for the table's main reading (a literal alternative is always a variant); ``reading_spec``
    is how the run's reading was chosen (:class:`~olk.report.tolerance.CompareSpec`, resolved by
    :meth:`~olk.report.annotations.Annotations.reading_spec`), ``reading`` its kind (literal | fitted |
    literal_alternative | '' when nothing says) and ``chosen_on`` the datasets a fitted reading was chosen on.
    ``sizes`` holds our rows against the paper's per dataset."""

    results: Results
    paper: str
    table: str
    tolerances: dict[str, Tolerance]
    cells: pd.DataFrame = field(repr=False)
    ranking: pd.DataFrame = field(repr=False)
    aliases: dict[str, str] = field(default_factory=dict)  # our dataset -> the paper's name
    reasons: dict[str, str] = field(default_factory=dict)
    ignored: dict[str, str] = field(default_factory=dict)
    overridden: tuple[str, ...] = ()
    variant: str = ""
    reading: str = ""
    chosen_on: tuple[str, ...] = ()
    sizes: dict[str, SizeCheck] = field(default_factory=dict)
    reading_spec: CompareSpec = field(default_factory=CompareSpec, repr=False)
    annotations: Annotations = field(default_factory=Annotations, repr=False)

    def summary(self, all_cells: bool = False) -> dict[str, int]:
        """Number of cells per verdict, in :data:`VERDICTS` order; by default only cells of the
        experiment's own datasets and algorithms (``in_experiment``), not the rest of the paper's table."""
        cells = self.cells if all_cells else self.cells[self.cells["in_experiment"]]
        counts = cells["verdict"].value_counts()
        return {v: int(counts.get(v, 0)) for v in VERDICTS if counts.get(v, 0)}

    def causes(self) -> dict[str, int]:
        """Number of off cells (of the experiment's own datasets and algorithms) per cause category."""
        off = self.cells[self.cells["in_experiment"] & (self.cells["verdict"] == "off")]
        counts = off["cause_category"].value_counts()
        return {k: int(counts.get(k, 0)) for k in CATEGORIES if counts.get(k, 0)}

    def size_notes(self) -> dict[str, str]:
        """Our dataset -> 'N rows here, M in the paper's Table K' for every dataset whose size (or train / test
        split) is not the paper's exactly (within the size rule it says it counts as the paper's data)."""
        return {ds: s.text() for ds, s in self.sizes.items() if s.checked and not s.exact and s.text()}

    def to_csv(self) -> str:
        return self.cells.to_csv(index=False, float_format="%.10g", lineterminator="\n")

    def ranking_csv(self) -> str:
        return self.ranking.to_csv(index=False, float_format="%.6g", lineterminator="\n")

    def to_markdown(self) -> str:
        return _markdown(self)

    def write(self, directory: str | Path | None = None) -> list[Path]:
        """Write ``compare.md``, ``compare.csv`` and ``compare_ranking.csv``; return the paths."""
        d = Path(directory) if directory is not None else self.results.path
        files = {"compare.md": self.to_markdown(), "compare.csv": self.to_csv(),
                 "compare_ranking.csv": self.ranking_csv()}
        for name, text in files.items():
            atomic_write_text(d / name, text)
        return [d / n for n in files]


def compare(results_dir: str | Path | Results, tolerances: Mapping[str, Any] | Iterable[str] | None = None,
            *, paper: str | None = None, table: str | None = None,
            published: pd.DataFrame | str | Path | None = None, published_dir: str | Path | None = None,
            annotations: Annotations | None = None) -> Comparison:
    """Join our aggregate with the published table named in experiment.json (``paper``, ``table``).

    The cells are judged by the tolerance rule (:mod:`olk.report.tolerance`) with the reasoned deviations of
    experiment.json ``compare``; ``tolerances`` (``olk compare --tol``) override both.  ``published`` (a DataFrame
    or CSV path) replaces the results/paper lookup of the table (tests, drafts); ``published_dir`` is where the
    paper's table of datasets is read (default: results/paper).  Off cells take their cause from
    ``annotations`` (default: ``annotations.yaml`` in the directory holding the results directory).
    """
    res = load_results(results_dir)
    meta_file = res.path / "experiment.json"
    paper = paper or res.meta.get("paper")
    table = table if table is not None else res.meta.get("table")
    if not paper or table is None or str(table) == "":
        raise OlkError(f"{meta_file} does not name the published table ('paper' and 'table' keys); "
                       "add them or pass --paper/--table")
    table = str(table)
    ann = annotations if annotations is not None else load_annotations(res.path.parent)
    spec = ann.reading_spec(res.path.name, res.meta.get("compare"), f"{meta_file}: compare")
    aliases = spec.aliases
    tol = parse_tolerances(tolerances, "tolerances" if isinstance(tolerances, Mapping) else "--tol",
                           base=spec.tolerances)
    overridden = tuple(m for m in tol if tol[m] != spec.tolerances.get(m))
    sizes = size_checks(res, str(paper), table, aliases, published_dir)
    pub = load_paper_table(paper, table, published)
    # each of our datasets that stands for a paper's dataset gets a copy of its published rows; the paper's own
    # rows stay only if we also ran a dataset of that name (two readings of one paper dataset, e.g. Table 6's
    # codrna with two betas, are then both compared)
    ran = set(res.datasets)
    copies = [pub[pub["dataset"] == str(p)].assign(dataset=str(o)) for o, p in aliases.items()]
    pub = pd.concat([pub[~pub["dataset"].isin({str(p) for p in aliases.values()} - ran)], *copies],
                    ignore_index=True)

    ours_metrics = _our_metrics(res, pub)
    agg = aggregate(res, list(dict.fromkeys(ours_metrics.values())))
    ours = {(r.dataset, r.algorithm, r.setting, r.metric): r for r in agg.itertuples(index=False)}
    params = _param_numbers(res)

    datasets = list(dict.fromkeys(res.datasets + list(pub["dataset"])))
    rows = res.rows
    labels = list(dict.fromkeys([lab for lab, _ in rows] + list(pub["algorithm"])))
    records = []
    for ds in datasets:
        pds = pub[pub["dataset"] == ds]
        for lab in labels:
            settings = [s for lb, s in rows if lb == lab]
            nums = [params.get((ds, lab, s), (set(), set())) for s in settings]
            prow = pds[pds["algorithm"] == lab]
            # our settings are paired with the paper's rows metric by metric: a paper may print one algorithm's
            # metrics under different row labels (AMKL Table II: 'AMKL-AKS' for the MSE, 'Efficiency (ρ)' for
            # its efficiency).  A metric the paper does not print for the algorithm (e.g. time) takes the
            # pairing of the first metric it prints, so the row's label stays with every cell of the row.
            pairing: dict[str, list] = {}
            for pm in ours_metrics:
                plab = list(dict.fromkeys(prow.loc[prow["metric"] == pm, "paper_label"]))
                if plab:
                    pairing[pm] = [(oi, plab[pi] if pi is not None else "") for oi, pi in _match(settings, nums, plab)]
            first = next(iter(pairing.values()), None)
            if first is None:
                first = [(oi, "") for oi, _ in _match(settings, nums, [])]
            recs = []
            for pm, om in ours_metrics.items():
                for oi, pl in pairing.get(pm, [(oi, pl) for oi, pl in first if oi is not None]):
                    st = settings[oi] if oi is not None else ""
                    o = ours.get((ds, lab, st, om)) if oi is not None else None
                    p = prow[(prow["paper_label"] == pl) & (prow["metric"] == pm)] if pm in pairing else prow.iloc[:0]
                    if o is None and p.empty:
                        continue
                    rec = _cell(res, ds, lab, st, pl, pm, om, o, p, tol[pm] if pm in tol else ("abs", None))
                    # the table row a cell belongs to: one of our settings, or a paper row we did not run
                    rec["row"] = f"{lab}|{st}" if oi is not None else f"{lab}|paper:{pl}"
                    rec["unit"] = res.layout.unit(om)
                    recs.append(rec)
            order = {r: i for i, r in enumerate(dict.fromkeys(
                [f"{lab}|{st}" for st in settings] + [r["row"] for r in recs]))}
            records += sorted(recs, key=lambda r: order[r["row"]])       # stable: metrics keep their order
    cells = pd.DataFrame.from_records(records, columns=CELL_COLUMNS)
    ours_ds, ours_alg = set(res.datasets), {lab for lab, _ in rows}
    cells["in_experiment"] = [d in ours_ds and a in ours_alg for d, a in zip(cells["dataset"], cells["algorithm"])]
    cells["data"] = [DATA_SUBSTITUTE if d in aliases else DATA_SIZE if d in sizes and sizes[d].differs
                     else DATA_SPLIT if d in sizes and sizes[d].split_differs
                     else DATA_SAME if d in sizes and sizes[d].checked else "" for d in cells["dataset"]]
    _attach_causes(cells, ann, str(paper), table, res.path.name, spec)
    variant = spec.variant or ann.variants.get(res.path.name, "") or (
        spec.label() if spec.reading == LITERAL_ALTERNATIVE else "")
    return Comparison(res, str(paper), table, tol, cells, _ranking(cells, datasets), dict(aliases),
                      reasons={m: r for m, r in spec.reasons.items() if m not in overridden},
                      ignored={m: t for m, t in spec.ignored.items() if m not in overridden}, overridden=overridden,
                      variant=variant, reading=spec.reading, chosen_on=spec.chosen_on, sizes=sizes, annotations=ann,
                      reading_spec=spec)


def _attach_causes(cells: pd.DataFrame, ann: Annotations, paper: str, table: str, results: str,
                   spec: CompareSpec) -> None:
    """Fill the cause columns of the off cells: the annotation's category; else, in a literal alternative, *paper*
    (the contradiction the reading runs the other side of); else 'open' with nothing recorded."""
    cols = {k: [""] * len(cells) for k in ("cause_category", "cause", "evidence", "quote", "tried")}
    for i, r in enumerate(cells.itertuples(index=False)):
        if r.verdict != "off":
            continue
        c = ann.cause_of(paper, table, results, r.dataset, r.algorithm, r.metric, r.paper_label)
        if c is None and spec.reading == LITERAL_ALTERNATIVE:
            cols["cause_category"][i] = "paper"
            cols["cause"][i] = (f"the paper contradicts itself here (contradiction {spec.contradiction} of "
                                f"{CONTRADICTIONS_PAGE}); this is the reading the contradiction rule does not pick")
            continue
        cols["cause_category"][i] = c.category if c is not None else "open"
        if c is not None:
            cols["cause"][i], cols["evidence"][i], cols["quote"][i], cols["tried"][i] = \
                c.cause, c.evidence, c.quote, c.tried
    for k, v in cols.items():
        cells[k] = v


def _our_metrics(res: Results, pub: pd.DataFrame) -> dict[str, str]:
    """paper metric -> our metric, for the paper's metrics and our table's metrics."""
    batch = res.is_batch
    pick = {"accuracy": "test_accuracy" if batch else "accuracy",
            "time": "train_time_s" if batch and res.main["train_time_s"].notna().any() else "time_s",
            "mistake_rate": "mistake_rate", "n_sv": "n_sv", "mse": "mse", "efficiency": "label_efficiency"}
    order = [PAPER_METRIC[m] for m in res.layout.metrics if m in PAPER_METRIC]
    order += list(pub["metric"])
    out = {}
    for pm in dict.fromkeys(order):
        om = pick.get(pm)           # a published metric olk does not measure (e.g. n_instances) is skipped
        if om in METRICS:
            out[pm] = om
    return out


def _numbers(p: dict, keys) -> set[float]:
    """The numbers among parameters ``keys`` of ``p`` (a record's flattened params), with a Gaussian's width
    sigma = sqrt(1 / (2 gamma)) beside its gamma: the width papers print, exp(-|x-x'|^2 / (2 sigma^2))."""
    nums = {float(p[k]) for k in keys
            if k in p and isinstance(p[k], (int, float)) and not isinstance(p[k], bool)}
    g = p.get("kernel.gamma")
    if "kernel.gamma" in keys and p.get("kernel.kind") == "gaussian" and isinstance(g, (int, float)) and g > 0:
        nums.add(math.sqrt(1.0 / (2.0 * g)))
    return nums


def _param_numbers(res: Results) -> dict[tuple[str, str, str], tuple[set[float], set[float]]]:
    """(dataset, label, setting) -> (the numbers of the parameters that vary between the label's settings on that
    dataset, the numbers of all its parameters): :func:`_match` pairs a setting with a paper row by the first that
    names it alone (a parameter every setting shares, e.g. step_scale = 1, must not make sigma = 1 ambiguous)."""
    params: dict[tuple[str, str, str], dict] = {}
    for ds, lab, st, p in zip(res.main["dataset"], res.main["label"], res.main["setting"], res.main["_params"]):
        params.setdefault((ds, lab, st), {}).update(p)
    groups: dict[tuple[str, str], list[dict]] = {}
    for (ds, lab, _), p in params.items():
        groups.setdefault((ds, lab), []).append(p)
    varying = {key: {k for k in set().union(*ps) if len({repr(q.get(k)) for q in ps}) > 1}
               for key, ps in groups.items()}
    return {key: (_numbers(p, varying[key[:2]]), _numbers(p, p.keys())) for key, p in params.items()}


def _label_numbers(label: str) -> set[float]:
    return {float(x) for x in _NUM.findall(label)}


def _match(settings: list[str], numbers: Sequence[Sequence[set[float]]], paper_labels: list[str]
           ) -> list[tuple[int | None, int | None]]:
    """Pair our settings with the paper's rows of one (dataset, algorithm); see module docstring.  ``numbers``
    holds, per setting, its numbers from the most to the least specific (:func:`_param_numbers`): a setting takes
    the one paper row whose printed numbers are all among the first of them that names exactly one row."""
    if len(settings) <= 1 and len(paper_labels) <= 1:
        return [(0 if settings else None, 0 if paper_labels else None)]
    pairs: list[tuple[int | None, int | None]] = []
    used: set[int] = set()
    for oi, levels in enumerate(numbers):
        hit = None
        for nums in levels:
            hits = [pi for pi, pl in enumerate(paper_labels) if pi not in used and _label_numbers(pl)
                    and all(any(math.isclose(x, y, rel_tol=1e-9) for y in nums) for x in _label_numbers(pl))]
            if len(hits) == 1:
                hit = hits[0]
                break
        if hit is not None:
            used.add(hit)
        pairs.append((oi, hit))
    pairs += [(None, pi) for pi in range(len(paper_labels)) if pi not in used]
    return pairs


def _cell(res, ds, lab, st, pl, pm, om, o, p, tol) -> dict[str, Any]:
    om_mean = o.mean if o is not None else math.nan
    om_std = o.std if o is not None else math.nan
    pr = p.iloc[0] if not p.empty else None
    p_mean = float(pr["mean"]) if pr is not None else math.nan
    p_std = float(pr["std"]) if pr is not None else math.nan
    diff = om_mean - p_mean
    rel = diff / abs(p_mean) if p_mean and not math.isnan(diff) else math.nan
    tol_abs = margin(tol, p_mean)
    # it ran, but gave no finite value: an infinite mean, or no value of the task's primary metric (which every
    # finished run records: the regression task's MSE is NaN when a diverging learner overflowed)
    diverged = o is not None and int(o.n_runs) > 0 and (math.isinf(om_mean) or (
        math.isnan(om_mean) and om == TASKS[res.task].primary))
    if o is not None and (pr is None or math.isnan(p_mean)) and (diverged or not math.isnan(om_mean)):
        verdict = "no paper value"      # no verdict without the paper's number, whatever ours is
    elif diverged:
        verdict = "off"
    elif o is None or math.isnan(om_mean):
        verdict = "not run"
    else:
        verdict = judge(diff, p_mean, p_std, tol)
    note = str(pr["note"]) if pr is not None else ""
    if diverged:
        note = "; ".join(x for x in ("our runs gave no finite value (diverged)", note) if x)
    if verdict == "not run" and ds in res.unavailable:
        note = "; ".join(x for x in (f"data unavailable: {res.unavailable[ds]}", note) if x)
    return {"dataset": ds, "algorithm": lab, "display": res.display(lab, st) if o is not None or
            (res.runs["label"] == lab).any() else (pl or lab), "setting": st, "paper_label": pl,
            "metric": pm, "our_metric": om, "ours_mean": om_mean, "ours_std": om_std,
            "n_runs": int(o.n_runs) if o is not None else 0, "paper_mean": p_mean, "paper_std": p_std,
            "diff": diff, "rel_diff": rel, "tolerance": tol_abs, "verdict": verdict, "paper_note": note}


def _ranking(cells: pd.DataFrame, datasets: list[str]) -> pd.DataFrame:
    from scipy.stats import kendalltau

    recs = []
    for ds in datasets:
        c = cells[cells["dataset"] == ds]
        metric = next((m for m in HEADLINE if c.loc[c["metric"] == m, "paper_mean"].notna().any()), None)
        if metric is None:
            continue
        both = c[(c["metric"] == metric) & c["ours_mean"].notna() & c["paper_mean"].notna()]
        n = len(both)
        if n == 0:
            continue
        tau = pval = math.nan
        if n >= 2:
            r = kendalltau(both["ours_mean"].to_numpy(), both["paper_mean"].to_numpy())
            tau, pval = float(r.statistic), float(r.pvalue)
        desc = metric not in LOWER_IS_BETTER
        order = lambda col, both=both, desc=desc: " > ".join(
            both.sort_values(col, ascending=not desc, kind="stable")["display"])
        recs.append({"dataset": ds, "metric": metric, "n_algorithms": n, "tau": tau, "p_value": pval,
                     "ours_order": order("ours_mean"), "paper_order": order("paper_mean")})
    return pd.DataFrame.from_records(recs, columns=RANK_COLUMNS)


# ----------------------------------------------------------------------------- Markdown
def _signed(x: float, kind: str) -> str:
    if math.isnan(x):
        return ""
    s = format_value(abs(x), kind)
    return ("+" if x >= 0 else "-") + s


def cell_texts(c: Comparison, r: Any, sv_format: str = "int") -> tuple[str, str, str]:
    """(ours, paper, diff) of one comparison cell as the tables print them, in the results' table units
    (``table_layout: {units: {mse: 0.001}}``: the cell's ``unit``), the one place ``olk compare`` and ``olk report``
    format a cell.  compare.csv keeps the raw values (and the unit)."""
    kind = METRICS[r.our_metric][1] if r.our_metric in METRICS else "float"
    u = float(r.unit) if isinstance(r.unit, (int, float)) and not math.isnan(r.unit) and r.unit > 0 else 1.0
    ours = format_cell(r.ours_mean / u, r.ours_std / u, kind, sv_format) if math.isfinite(r.ours_mean) else \
        "not finite (diverged)" if r.verdict in ("off", "no paper value") else "—"
    paper = format_cell(r.paper_mean / u, r.paper_std / u, kind, sv_format) if not math.isnan(r.paper_mean) else "—"
    diff = _signed(r.diff / u, kind)
    if diff and c.tolerances.get(r.metric, ("abs", None))[0] == "rel" and not math.isnan(r.rel_diff):
        diff += f" ({r.rel_diff * 100:+.1f}%)"
    return ours, paper, diff


def unit_suffix(unit: Any) -> str:
    """' (x0.001)' for a cell shown in units of 0.001, '' for the metric's own unit."""
    u = float(unit) if isinstance(unit, (int, float)) and not math.isnan(unit) else 1.0
    return "" if u == 1.0 else f" (x{u:g})"


def summary_text(c: Comparison) -> str:
    """'2 within paper std, 3 within tolerance, 2 off (1 evidenced, 1 open), 1 n/a': the verdict counts of the
    experiment's own cells with the off cells' cause categories (olk compare and olk report say it alike)."""
    causes = ", ".join(f"{n} {k}" for k, n in c.causes().items())
    return ", ".join(f"{n} {v}" + (f" ({causes})" if v == "off" and causes else "")
                     for v, n in c.summary().items()) or "no cells"


def deviation_texts(c: Comparison) -> list[str]:
    """Sentences on where this comparison departs from the tolerance rule (empty when it does not)."""
    out = []
    if c.reasons:
        out.append("This table's own tolerance (its config's reason): " + "; ".join(
            f"{describe_tol(m, c.tolerances[m])} ({c.reasons[m]})" for m in c.reasons) + ".")
    if c.ignored:
        out.append("Not applied (the config gives no reason): " + "; ".join(c.ignored.values()) + ".")
    if c.overridden:
        out.append("Set on the command line (--tol), not the rule: " + "; ".join(
            describe_tol(m, c.tolerances[m]) for m in c.overridden) + ".")
    return out


def verdict_text(r: Any) -> str:
    """A cell's verdict as the tables print it: an off cell with its cause category, 'off (open)'."""
    return f"off ({r.cause_category})" if r.verdict == "off" and r.cause_category else r.verdict


def cause_texts(c: Comparison, cells: pd.DataFrame, link) -> list[str]:
    """One Markdown line per off cell of ``cells``: the row, the metric, the category and the cause, with the
    evidence linked through ``link(path) -> str`` (a relative URL) or the paper quoted."""
    out = []
    for r in cells[cells["verdict"] == "off"].itertuples(index=False):
        name = r.display + (f" [{r.paper_label}]" if r.paper_label and r.paper_label != r.display else "")
        text = f"{_md(name)}, {r.metric}: *{r.cause_category}*"
        if r.cause:
            text += f": {_md(r.cause)}"
        if r.evidence:
            target = c.annotations.evidence_path(_cause_stub(r))
            anchor = "#" + r.evidence.split("#", 1)[1] if "#" in r.evidence else ""
            text += f" ([{_md(r.evidence)}]({link(target) + anchor if target is not None else r.evidence}))"
        if r.quote:
            text += f"; the paper: “{_md(r.quote)}”"
        elif r.cause_category == "paper" and c.reading_spec.reading == LITERAL_ALTERNATIVE:
            from olk.paths import project_dir
            text += f" ([{CONTRADICTIONS_PAGE}]({link(project_dir() / CONTRADICTIONS_PAGE)}), row " \
                    f"{c.reading_spec.contradiction})"
        if r.tried:
            text += f"; tried: {_md(r.tried)}"
        if r.cause_category == "open" and not (r.cause or r.tried):
            text += ": nothing recorded in results/annotations.yaml"
        out.append(f"- {text}")
    return out


def _cause_stub(r: Any):
    from olk.report.annotations import Cause
    return Cause("", (), (), (), (), r.cause_category, r.cause, evidence=r.evidence)


def _md(s: Any) -> str:
    """Text safe inside Markdown prose and pipe tables."""
    return re.sub(r"([\\`*\[\]|<])", r"\\\1", str(s))


def _md_row(c: Comparison, r: Any) -> str:
    name = r.display + (f" [{r.paper_label}]" if r.paper_label and r.paper_label != r.display else "")
    ours, paper, diff = cell_texts(c, r, c.results.layout.sv_format)
    return f"| {name} | {r.metric}{unit_suffix(r.unit)} | {ours} | {paper} | {diff} | {verdict_text(r)} |"


def _markdown(c: Comparison) -> str:
    res = c.results
    out = [f"# {res.name} vs {c.paper} Table {c.table}", ""]
    if c.variant:
        out += [f"A labelled variant of the table's main config: {c.variant}.", ""]
    summ = summary_text(c)
    n_extra = int((~c.cells["in_experiment"]).sum())
    if n_extra:
        summ += f" ({n_extra} more published cells outside this experiment's datasets/algorithms)"
    out += [f"Verdicts: {summ}.", "", describe_rule(), ""]
    out += [t for x in deviation_texts(c) for t in (x, "")]
    out += ["Ours: mean ± std (ddof=1) over our runs. An off cell's cause category (evidenced, paper, open) comes "
            "from results/annotations.yaml; an off cell nobody annotated is open.", ""]
    if res.scale is not None:
        out += [f"Scaled-down run (scale={res.scale:g}): differences are expected.", ""]
    sizes = c.size_notes()
    rel = lambda target: os.path.relpath(target, res.path).replace(os.sep, "/")   # noqa: E731
    shown = c.cells[c.cells["in_experiment"]]
    extra = c.cells[~c.cells["in_experiment"]]
    for ds in dict.fromkeys(shown["dataset"]):
        d = shown[shown["dataset"] == ds]
        title = f"{ds} (paper: {c.aliases[ds]})" if ds in c.aliases else ds
        out += [f"## {title}", ""]
        if ds in sizes:
            out += [f"{c.sizes[ds].heading}: {sizes[ds]}.", ""]
        out += ["| Algorithm | Metric | Ours | Paper | Diff | Verdict |", "|:---|:---|---:|---:|---:|:---|"]
        for r in d.itertuples(index=False):
            out.append(_md_row(c, r))
        causes = cause_texts(c, d, rel)
        if causes:
            out += ["", "Off cells:", ""] + causes
        skipped = list(dict.fromkeys(extra.loc[extra["dataset"] == ds, "display"]))
        if skipped:
            out += ["", f"Also in the paper, not in this experiment: {', '.join(skipped)}."]
        out.append("")
    other = [d for d in dict.fromkeys(extra["dataset"]) if d not in set(shown["dataset"])]
    if other:
        out += [f"Paper datasets not in this experiment: {', '.join(other)} (all cells in compare.csv).", ""]
    if len(c.ranking):
        out += ["## Ranking agreement", "",
                "Kendall tau between our and the paper's values of the headline metric, over the "
                "algorithms both report (1 = same order).", "",
                "| Dataset | Metric | #Alg. | tau | p-value | Ours (best first) | Paper (best first) |",
                "|:---|:---|---:|---:|---:|:---|:---|"]
        for r in c.ranking.itertuples(index=False):
            tau = "" if math.isnan(r.tau) else f"{r.tau:.2f}"
            pv = "" if math.isnan(r.p_value) else f"{r.p_value:.3g}"
            out.append(f"| {r.dataset} | {r.metric} | {r.n_algorithms} | {tau} | {pv} | "
                       f"{r.ours_order} | {r.paper_order} |")
        out.append("")
    return "\n".join(out)


def reproduction_comparisons(results_root: str | Path) -> list:
    """The comparison of every reproduction under ``results_root`` (as ``olk report`` finds them)."""
    from olk.report.discovery import find_results
    from olk.report.paper import list_tables

    root = Path(results_root)
    entries = find_results(root, set(list_tables()))
    return [compare(e.results) for e in entries if e.kind == "reproduction" and e.results is not None]
