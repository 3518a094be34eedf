"""The metrics the report knows (name -> column header and number format) and how a paper lays its table out
(:class:`TableLayout`): the one table every report module reads, below :mod:`olk.report.results` (which loads
results directories) and :mod:`olk.report.layout` (which parses a config's ``table_layout`` into a layout)."""
from __future__ import annotations

from dataclasses import dataclass

#: Metrics the report knows: name -> (column header, kind).  ``kind`` selects the number format
#: (see :func:`olk.report.tables.format_cell`) and the comparison tolerance family.
#: ``mistake_rate`` is derived: 100 * mistakes / n_examples (else 100 - accuracy); so is ``sparsity``,
#: 1 - n_sv / n_examples (the sparse online KLR paper's Table 2), for every run.
METRICS: dict[str, tuple[str, str]] = {
    "accuracy": ("Accuracy (%)", "percent"),
    "mistake_rate": ("Mistake rate (%)", "percent"),
    "test_accuracy": ("Test accuracy (%)", "percent"),
    "time_s": ("Time (s)", "time"),
    "train_time_s": ("Training time (s)", "time"),
    "n_sv": ("#SVs", "count"),
    "mistakes": ("#Mistakes", "count"),
    "kernel_evals": ("#Kernel evals", "count"),
    "n_examples": ("#Examples", "count"),
    "mse": ("MSE", "float"),
    "test_mse": ("Test MSE", "float"),
    "log_loss": ("Log-loss", "float"),
    "n_updates": ("#Updates", "count"),                 # examples that changed the model (every learner)
    "mistake_bound": ("Mistake bound", "count"),        # a learner's run_summary() bound, e.g. omkl_* bound=True
    "sparsity": ("Sparsity", "float"),                  # 1 - #SV / #examples (the sparse KLR paper's Table 2)
    # a kernel-selection learner's run_summary() choice (0-based index into its kernel set), shown as the OKS
    # paper's "opt-K": every run's choice, 1-based, sorted ("10,10,11,11,13")
    "selected_kernel": ("Selected kernel", "list"),
    "label_efficiency": ("Efficiency ρ", "float"),      # an active learner's labels requested / T (AMKL's ρ)
    "mse_original": ("MSE (file units)", "float"),      # derived: the online MSE before the target scaling
    "n_labels": ("#Labels", "count"),
    # a two-stage kernel-selection method's run_summary(): its selection stage and its SVM stage (OKS's "RT")
    "select_time_s": ("Selection time (s)", "time"),
    "svm_time_s": ("SVM time (s)", "time"),
}
NUMERIC_COLUMNS = ("perm", "seed", "scale", "n_examples", "mistakes", "accuracy", "n_sv", "time_s",
                   "kernel_evals", "test_accuracy", "train_time_s", "mse", "test_mse", "log_loss", "n_updates",
                   "mistake_bound", "selected_kernel", "label_efficiency", "n_labels", "mse", "test_mse",
                   "select_time_s", "svm_time_s")

PLUS_MINUS = "±"
ONLINE_METRICS = ("accuracy", "time_s", "n_sv")     # the binary task's (olk.tasks), for old results
DEFAULT_DATASETS_PER_BLOCK = 2


@dataclass(frozen=True)
class TableLayout:
    """How the paper lays its table out: metric columns per dataset and datasets per block."""

    metrics: tuple[str, ...] = ONLINE_METRICS
    datasets_per_block: int = DEFAULT_DATASETS_PER_BLOCK
    sv_format: str = "int"  # 'int' -> 9,876 ; 'k' -> 9.9k
    units: tuple = ()       # ((metric, factor), ...): cells in units of factor, e.g. the AMKL paper's MSE x 1e-3
    # how a swept Gaussian width is named in row names: 'gamma' (olk's parameter, default) or 'sigma', the width
    # papers print, exp(-||x - x'||^2 / (2 sigma^2)): sigma = sqrt(1 / (2 gamma)) (the AMKL paper's KL-RBF rows)
    gaussian_width: str = "gamma"

    def unit(self, metric: str) -> float:
        return dict(self.units).get(metric, 1.0)

    def header(self, metric: str) -> str:
        """The column header: the metric's name, with its unit when the layout gives one ('MSE (x1e-3)')."""
        u = self.unit(metric)
        return METRICS[metric][0] + ("" if u == 1.0 else f" (x{u:g})")


