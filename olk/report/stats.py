"""Is a difference real?  Paired tests per dataset, ranks across datasets, a critical-difference diagram
(``olk stats RESULTS_DIR``), and the bold / † marks of the tables.

Every learner of a results directory ran on the same permutations of each dataset (permutation r is fixed by the
config's seed: :func:`olk.experiment.seeds.permutation`), so two learners' runs pair up by permutation:

* **Per dataset** (:func:`paired_tests`): each learner against the baseline (``--baseline``, else the best mean on
  that dataset), over the permutations both ran: the mean difference, the two-sided Wilcoxon signed-rank test
  (scipy's exact distribution, zero differences dropped: ``zero_method="wilcox"``) and the paired t-test
  (``scipy.stats.ttest_rel``), each Holm-corrected over the comparisons of that dataset and metric
  (:func:`holm`, equal to statsmodels' ``multipletests(method="holm")``).  With n pairs the smallest two-sided
  exact Wilcoxon p is 2 / 2^n: 0.0625 for 5 permutations, so nothing can be significant at 0.05 -- said in a
  warning line.
* **Across datasets** (:func:`friedman`, Demšar, JMLR 7, 2006): the Friedman test over blocks -- ``dataset`` (each
  learner's mean over its permutations, Demšar's setting) or ``run`` (every (dataset, permutation) all the learners
  ran) -- with the Nemenyi post-hoc test (``scikit_posthocs.posthoc_nemenyi_friedman``) and its critical
  difference CD = q_alpha sqrt(k (k + 1) / (6 N)), q_alpha the studentized range quantile / sqrt(2); the average
  ranks (1 = best) drawn as a critical-difference diagram (``scikit_posthocs.critical_difference_diagram``).
* **Table marks** (:func:`cell_marks`): per dataset and metric, the best mean in bold and a † on every cell whose
  runs are worse than the best's by the Wilcoxon test above (Holm, alpha 0.05).

Why scikit-posthocs: it is maintained (releases through 2026), does the post-hoc tests and the diagram on top of
scipy and matplotlib, which olk already uses; autorank wraps the same tests with an automatic choice of test
(normality checks, Bayesian options) olk does not want to hide, and aeon is a whole time-series toolkit.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from olk.errors import OlkError, did_you_mean
from olk.report.metrics import METRICS
from olk.report.results import Results, load_results

#: which way is better, per metric (metrics absent here get no best and no mark)
BETTER = {"accuracy": "higher", "test_accuracy": "higher", "sparsity": "higher",
          "mistake_rate": "lower", "time_s": "lower", "train_time_s": "lower", "n_sv": "lower", "mistakes": "lower",
          "kernel_evals": "lower", "mse": "lower", "test_mse": "lower", "log_loss": "lower", "mse_original": "lower",
          "select_time_s": "lower", "svm_time_s": "lower", "label_efficiency": "lower", "n_labels": "lower"}
ALPHA = 0.05
BLOCKS = ("dataset", "run")
TEST_NAME = "two-sided Wilcoxon signed-rank test (exact), Holm-corrected"


def primary_metric(res: Results) -> str:
    """The metric a results directory is judged by: test accuracy in batch mode, MSE for regression, else the
    online accuracy."""
    if res.task == "regression":
        return "test_mse" if res.is_batch else "mse"
    return "test_accuracy" if res.is_batch else "accuracy"


def _check_metric(res: Results, metric: str) -> None:
    if metric not in METRICS or metric not in res.main.columns:
        raise OlkError(f"unknown metric '{metric}'{did_you_mean(metric, BETTER)}; metrics with a direction: "
                       f"{', '.join(BETTER)}")
    if metric not in BETTER:
        raise OlkError(f"metric '{metric}' has no better direction; compare one of {', '.join(BETTER)}")
    if not res.main[metric].notna().any():
        raise OlkError(f"{res.path / 'runs.csv'}: no main run has a value of '{metric}'")


def min_wilcoxon_p(n: int) -> float:
    """The smallest two-sided p the exact Wilcoxon signed-rank test can give with n non-zero pairs: 2 / 2^n."""
    return min(1.0, 2.0 / 2.0 ** n) if n > 0 else 1.0


def _row_values(res: Results, metric: str) -> dict[tuple[str, str, str], dict]:
    """(dataset, label, setting) -> {pairing key (perm, fold): value} of the main runs."""
    main = res.main
    out: dict[tuple[str, str, str], dict] = {}
    fold = main["fold"] if "fold" in main.columns else pd.Series([""] * len(main), index=main.index)
    for ds, lab, st, perm, fo, v in zip(main["dataset"], main["label"], main["setting"], main["perm"], fold,
                                        main[metric]):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        key = (int(perm) if perm == perm else -1, str(fo or ""))
        out.setdefault((str(ds), str(lab), str(st)), {})[key] = float(v)
    return out


def _paired(a: dict, b: dict) -> tuple[np.ndarray, np.ndarray]:
    keys = sorted(set(a) & set(b))
    return np.array([a[k] for k in keys]), np.array([b[k] for k in keys])


def wilcoxon_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided exact Wilcoxon signed-rank p of the pairs (x, y), zero differences dropped; 1.0 when every
    difference is zero (no evidence of a difference) or there are no pairs."""
    from scipy.stats import wilcoxon
    d = x - y
    if len(d) == 0 or not np.any(d != 0):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(wilcoxon(x, y, zero_method="wilcox", method="exact").pvalue)


def ttest_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided paired t-test p (scipy.stats.ttest_rel); 1.0 for identical pairs, NaN for fewer than 2."""
    from scipy.stats import ttest_rel
    if len(x) < 2:
        return math.nan
    if np.array_equal(x, y):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(ttest_rel(x, y).pvalue)
    return 0.0 if math.isnan(p) else p     # every difference the same non-zero value: no variance, certain


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjustment (Holm, Scand. J. Statist. 6, 1979): the k-th smallest of m p-values becomes
    max over j <= k of min(1, (m - j + 1) p_(j)); NaNs stay NaN and do not count in m.  Written here (six lines)
    rather than imported: statsmodels' ``multipletests(method="holm")``, which tests/test_stats.py holds it equal
    to, costs a second of import in every ``olk run`` and ``olk table``, whose tables mark cells with it."""
    idx = sorted((i for i, p in enumerate(pvalues) if not math.isnan(p)), key=lambda i: pvalues[i])
    out = [math.nan] * len(pvalues)
    running = 0.0
    for k, i in enumerate(idx):
        running = max(running, min(1.0, (len(idx) - k) * pvalues[i]))
        out[i] = running
    return out


def _best(means: dict, direction: str):
    """The key of the best mean (first in order on ties)."""
    sign = 1.0 if direction == "higher" else -1.0
    return max(means, key=lambda k: (sign * means[k], -list(means).index(k)))


# ------------------------------------------------------------------------------------------ per dataset
@dataclass
class Comparison:
    dataset: str
    label: str
    setting: str
    against: str                # the display name of the baseline / best row
    n: int
    mean: float
    mean_against: float
    mean_diff: float            # mean of (this - against) over the pairs
    wilcoxon_p: float
    wilcoxon_holm: float
    ttest_p: float
    ttest_holm: float

    @property
    def significant(self) -> bool:
        return not math.isnan(self.wilcoxon_holm) and self.wilcoxon_holm <= ALPHA


@dataclass
class PairedTests:
    metric: str
    baseline: str | None
    comparisons: list[Comparison] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([c.__dict__ for c in self.comparisons])


def paired_tests(results_dir, metric: str | None = None, baseline: str | None = None,
                 alpha: float = ALPHA) -> PairedTests:
    """Each learner (table row) against `baseline` (a label, or a row's display name; default: the best mean of each
    dataset) on every dataset, paired over the permutations both ran (see the module docstring)."""
    res = load_results(results_dir)
    metric = metric or primary_metric(res)
    _check_metric(res, metric)
    direction = BETTER[metric]
    values = _row_values(res, metric)
    rows = res.rows
    out = PairedTests(metric, baseline)
    if baseline is not None:
        labels = {lab for lab, _ in rows} | {res.display(*r) for r in rows}
        if baseline not in labels:
            raise OlkError(f"--baseline {baseline}: no learner of that label in {res.path / 'runs.csv'}"
                           f"{did_you_mean(baseline, sorted(labels))}; its learners: "
                           f"{', '.join(dict.fromkeys(lab for lab, _ in rows))}")
    for ds in res.datasets:
        have = {r: values[(ds, *r)] for r in rows if (ds, *r) in values}
        if len(have) < 2:
            continue
        means = {r: float(np.mean(list(v.values()))) for r, v in have.items()}
        if baseline is None:
            ref = _best(means, direction)
        else:
            ref = next((r for r in have if baseline in (r[0], res.display(*r))), None)
            if ref is None:
                out.warnings.append(f"{ds}: the baseline {baseline} did not run here; dataset left out")
                continue
        comps = []
        for r, v in have.items():
            if r == ref:
                continue
            x, y = _paired(v, have[ref])
            comps.append(Comparison(ds, r[0], r[1], res.display(*ref), len(x), means[r], means[ref],
                                    float(np.mean(x - y)) if len(x) else math.nan, wilcoxon_p(x, y), math.nan,
                                    ttest_p(x, y), math.nan))
        for c, w, t in zip(comps, holm([c.wilcoxon_p for c in comps]), holm([c.ttest_p for c in comps])):
            c.wilcoxon_holm, c.ttest_holm = w, t
        out.comparisons += comps
        ns = sorted({c.n for c in comps})
        if ns and min_wilcoxon_p(ns[-1]) > alpha:
            out.warnings.append(f"{ds}: {ns[-1]} paired permutation(s) at most: the smallest two-sided exact "
                                f"Wilcoxon p is {min_wilcoxon_p(ns[-1]):.4g} > alpha {alpha:g}, so no difference "
                                f"can be significant by this test; run more permutations (--repeats)")
        elif ns and len(comps) * min_wilcoxon_p(ns[-1]) > alpha:
            out.warnings.append(f"{ds}: {ns[-1]} paired permutation(s) at most and Holm over {len(comps)} "
                                f"comparisons: the smallest adjusted Wilcoxon p is "
                                f"{len(comps) * min_wilcoxon_p(ns[-1]):.4g} > alpha {alpha:g}, so no difference can "
                                f"be significant by this test; run more permutations (--repeats)")
    return out


# -------------------------------------------------------------------------------------- across datasets
@dataclass
class Friedman:
    metric: str
    blocks: str                 # 'dataset' or 'run'
    block_names: list[str]
    learners: list[str]         # display names, in the table's order
    labels: dict                # display name -> its row's label (for the learner's colour)
    left_out: list[str]         # learners without a value on every block
    statistic: float
    pvalue: float
    ranks: pd.Series            # average rank per learner (1 = best)
    nemenyi: pd.DataFrame       # pairwise Nemenyi p-values
    cd: float                   # Nemenyi critical difference at alpha
    alpha: float = ALPHA

    @property
    def n_blocks(self) -> int:
        return len(self.block_names)


def _matrix(res: Results, metric: str, blocks: str) -> tuple[pd.DataFrame, list[str]]:
    """blocks x learners of the metric (a learner's mean per dataset, or its run per (dataset, permutation));
    learners lacking a block are left out (returned)."""
    values = _row_values(res, metric)
    rows = res.rows
    cols: dict[str, dict] = {}
    for r in rows:
        name = res.display(*r)
        col = {}
        for ds in res.datasets:
            v = values.get((ds, *r))
            if not v:
                continue
            if blocks == "dataset":
                col[ds] = float(np.mean(list(v.values())))
            else:
                col.update({f"{ds} r{k[0]}" + (f" f{k[1]}" if k[1] else ""): x for k, x in v.items()})
        cols[name] = col
    frame = pd.DataFrame(cols)
    if frame.empty:
        return frame, []
    full = frame.dropna(axis=0, how="any")          # the blocks every learner has
    left_out: list[str] = []
    if full.shape[0] < 2:                           # too few: the learners missing a block go instead
        left_out = [str(c) for c in frame.columns if frame[c].isna().any()]
        full = frame.drop(columns=left_out).dropna(axis=0, how="any")
    return full, left_out


def friedman(results_dir, metric: str | None = None, blocks: str = "dataset", alpha: float = ALPHA) -> Friedman:
    """The Friedman test and Nemenyi post-hoc over `blocks` (see the module docstring)."""
    import scikit_posthocs as sph
    from scipy.stats import friedmanchisquare, studentized_range
    res = load_results(results_dir)
    metric = metric or primary_metric(res)
    _check_metric(res, metric)
    if blocks not in BLOCKS:
        raise OlkError(f"--blocks {blocks}: must be one of {', '.join(BLOCKS)}")
    m, left_out = _matrix(res, metric, blocks)
    k, n = m.shape[1], m.shape[0]
    if k < 3 or n < 2:
        raise OlkError(f"{res.path}: the Friedman test needs at least 3 learners on at least 2 blocks; here "
                       f"{k} learner(s) on {n} {blocks} block(s) with a value of '{metric}' for all of them"
                       + ("; try --blocks run (every dataset x permutation a block)" if blocks == "dataset" else ""))
    sign = -1.0 if BETTER[metric] == "higher" else 1.0
    ranks = (sign * m).rank(axis=1, method="average")        # 1 = best in each block
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stat, p = friedmanchisquare(*[m[c].to_numpy() for c in m.columns])
        nemenyi = sph.posthoc_nemenyi_friedman(sign * m.to_numpy())
    nemenyi.index = nemenyi.columns = list(m.columns)
    q = float(studentized_range.ppf(1 - alpha, k, np.inf)) / math.sqrt(2.0)
    cd = q * math.sqrt(k * (k + 1) / (6.0 * n))
    labels = {res.display(*r): r[0] for r in res.rows}
    return Friedman(metric, blocks, [str(b) for b in m.index], list(m.columns), {c: labels[c] for c in m.columns},
                    left_out, float(stat), float(p), ranks.mean(axis=0), nemenyi, cd, alpha)


def cd_diagram(fr: Friedman, res: Results, algorithms: dict | None = None) -> list[Path]:
    """The critical-difference diagram of `fr` (average ranks, learners joined when Nemenyi finds no difference at
    alpha) as PNG and PDF: ``cd_<metric>.png`` / ``.pdf`` in the results directory's ``figures/``, written as every
    figure is (:func:`olk.report.plots._save`: atomically, never through a link); each learner in its figures'
    colour (``algorithms``: label -> registry name)."""
    import scikit_posthocs as sph
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from olk.report.plots import _save, algorithm_style
    colours = {name: algorithm_style(lab, (algorithms or {}).get(lab))[0] for name, lab in fr.labels.items()}
    fig = Figure(figsize=(7.0, 0.9 + 0.28 * len(fr.learners)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    sph.critical_difference_diagram(fr.ranks, fr.nemenyi, alpha=fr.alpha, ax=ax, label_fmt_left="{label} ({rank:.2f})",
                                    label_fmt_right="({rank:.2f}) {label}", color_palette=colours)
    ax.set_title(f"{METRICS[fr.metric][0]}: average rank (1 = best) over {fr.n_blocks} {fr.blocks} blocks; "
                 f"Friedman p = {fr.pvalue:.3g}; bars join learners Nemenyi does not separate at alpha "
                 f"{fr.alpha:g} (CD = {fr.cd:.2f})", fontsize=8, wrap=True)
    return _save(fig, res, f"cd_{fr.metric}" + ("" if fr.blocks == "dataset" else f"_{fr.blocks}"), None)


# ---------------------------------------------------------------------------------------------- table marks
def cell_marks(res: Results, metrics, alpha: float = ALPHA) -> dict[tuple[str, tuple[str, str], str], str]:
    """(dataset, row, metric) -> 'best' (the best mean of that dataset and metric; ties too), 'worse' (its runs
    are worse than the best row's by the Wilcoxon test, Holm over the dataset's rows, at `alpha`) or ''."""
    out: dict[tuple[str, tuple[str, str], str], str] = {}
    for metric in metrics:
        direction = BETTER.get(metric)
        if direction is None or metric not in res.main.columns or METRICS.get(metric, ("", ""))[1] == "list":
            continue
        values = _row_values(res, metric)
        for ds in res.datasets:
            have = {r: values[(ds, *r)] for r in res.rows if (ds, *r) in values}
            if len(have) < 2:
                continue
            means = {r: float(np.mean(list(v.values()))) for r, v in have.items()}
            ref = _best(means, direction)
            others = [r for r in have if r != ref]
            ps = holm([wilcoxon_p(*_paired(have[r], have[ref])) for r in others])
            for r in have:
                out[ds, r, metric] = "best" if means[r] == means[ref] else ""
            for r, p in zip(others, ps):
                if not out[ds, r, metric] and not math.isnan(p) and p <= alpha:
                    worse = means[r] < means[ref] if direction == "higher" else means[r] > means[ref]
                    out[ds, r, metric] = "worse" if worse else ""
    return out


# -------------------------------------------------------------------------------------------------- report
def _p(p: float) -> str:
    return "n/a" if p is None or math.isnan(p) else (f"{p:.2e}" if p < 1e-3 else f"{p:.4f}")


def report(results_dir, metric: str | None = None, baseline: str | None = None, blocks: str = "dataset",
           alpha: float = ALPHA, figures: bool = True) -> tuple[str, PairedTests, Friedman | None, list[Path]]:
    """``olk stats``: the Markdown report, the paired tests, the Friedman result (None when it cannot run: fewer
    than 3 learners or 2 blocks, said in the text) and the figure files written."""
    res = load_results(results_dir)
    metric = metric or primary_metric(res)
    pt = paired_tests(res, metric, baseline, alpha)
    head = METRICS[metric][0]
    vs = f"against {baseline}" if baseline else "against the best mean of each dataset"
    lines = [f"# Statistics of {res.name}: {head}", "",
             f"Each learner {vs}, paired over the permutations both ran; p-values of the two-sided Wilcoxon "
             f"signed-rank test (exact, zero differences dropped) and of the paired t-test, each Holm-corrected over "
             f"the comparisons of the dataset; * : Holm-corrected Wilcoxon p <= {alpha:g}.", ""]
    by_ds: dict[str, list[Comparison]] = {}
    for c in pt.comparisons:
        by_ds.setdefault(c.dataset, []).append(c)
    for ds, comps in by_ds.items():
        lines += [f"## {ds}", "", "| learner | vs | n | mean | mean diff | Wilcoxon p | Holm | t-test p | Holm | |",
                  "|:---|:---|---:|---:|---:|---:|---:|---:|---:|:---|"]
        for c in comps:
            lines.append(f"| {res.display(c.label, c.setting)} | {c.against} | {c.n} | {c.mean:.4g} | "
                         f"{c.mean_diff:+.4g} | {_p(c.wilcoxon_p)} | {_p(c.wilcoxon_holm)} | {_p(c.ttest_p)} | "
                         f"{_p(c.ttest_holm)} | {'*' if c.significant else ''} |")
        lines.append("")
    fr, files = None, []
    try:
        fr = friedman(res, metric, blocks, alpha)
    except OlkError as e:
        lines += ["## Ranks across datasets", "", f"Not computed: {e}", ""]
    if fr is not None:
        what = ("each learner's mean over its permutations on a dataset" if blocks == "dataset" else
                "each (dataset, permutation) every learner ran")
        lines += ["## Ranks across datasets", "",
                  f"Friedman test over {fr.n_blocks} blocks ({blocks}: {what}) and {len(fr.learners)} learners: "
                  f"chi2 = {fr.statistic:.4g}, p = {_p(fr.pvalue)}.  Nemenyi critical difference at alpha "
                  f"{alpha:g}: CD = {fr.cd:.3f} (two learners whose average ranks differ by more are different).",
                  "", "| learner | average rank |", "|:---|---:|"]
        lines += [f"| {name} | {r:.3f} |" for name, r in fr.ranks.sort_values().items()]
        if fr.left_out:
            lines += ["", f"Left out (no value on every block): {', '.join(fr.left_out)}."]
        if blocks == "dataset" and fr.n_blocks < 10:
            pt.warnings.append(f"{fr.n_blocks} datasets as blocks: Friedman's chi-square approximation is rough "
                               f"below about 10 (Demšar 2006); --blocks run treats every permutation as a block")
        if figures:
            algos = dict(zip(res.main["label"], res.main["algorithm"])) if "algorithm" in res.main.columns else {}
            files = cd_diagram(fr, res, {k: v for k, v in algos.items() if isinstance(v, str) and v})
            lines += ["", f"Critical-difference diagram: {', '.join(f.name for f in files)} (in figures/)."]
    if pt.warnings:
        lines += ["", "Warnings:", ""] + [f"* {w}" for w in pt.warnings]
    return "\n".join(lines).rstrip() + "\n", pt, fr, files
