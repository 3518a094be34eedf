"""Figures of the papers' kind, written as PNG and PDF into ``<results_dir>/figures/``.

* :func:`plot_learning_curves`  online mistake rate vs number of examples (log x), one panel per
  dataset, one line per algorithm (mean over permutations) -- the papers' mistake-rate curves.
* :func:`plot_accuracy_vs_time` SPA (TIST 2018) Fig. 1 type: accuracy vs learning time, one point per
  (algorithm, parameter setting such as budget or beta), an algorithm's settings joined in time order.
* :func:`plot_param_sensitivity` SPA Fig. 2 type: #SVs, time and accuracy as a function of one
  parameter (``x``, e.g. alpha), one line per value of another (``series``, e.g. beta).
* :func:`plot_sweep` a sweep's figures: one per swept parameter, every learner that sweeps it a line.
* :func:`plot_test_curves` the sparse online KLR paper's Figs. 1-3 and 5: held-out accuracy during training
  (``test_curves.csv``, batch mode with ``test_curve:``) against the number of examples, the number of SVs
  or the training time; one panel per dataset, one line per (algorithm, setting), mean over runs.
* :func:`plot_sparsity_tradeoff` its Fig. 4: sparsity and accuracy relative to a reference algorithm against
  a swept parameter (e.g. gamma - 1).
* :func:`plot_all` draws those that apply to the directory.
* :func:`plot_reproduction_overview` the first figure of ``olk report``: per published table, its cells in tolerance,
  off by cause and not run, under the literal reading beside the held-out one.

Uses matplotlib's object API with the Agg canvas (no pyplot, no global backend switch).  PDFs carry
no creation date, so re-plotting the same results gives the same files.
"""
from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from olk.errors import OlkError, did_you_mean
from olk.fileio import atomic_write, check_own_files
from olk.report.metrics import PLUS_MINUS
from olk.report.results import METRICS, Results, aggregate, load_results
from olk.tasks import TASKS

FIG_DIR = "figures"
PANEL_W, PANEL_H = 4.2, 3.6


# ----------------------------------------------------------------------------- helpers
def _figure(n_panels: int, ncols: int = 3) -> tuple[Figure, list[Any]]:
    ncols = max(1, min(ncols, n_panels))
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(PANEL_W * ncols, PANEL_H * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _save(fig: Figure, res: Results | None, stem: str, out_dir: str | Path | None) -> list[Path]:
    """Write the figure as PNG and PDF into `out_dir` (default: the results directory's ``figures/``, which must
    be a directory of its own there, not a link elsewhere), each file atomically and never through a link."""
    if out_dir is None and res is None:
        raise OlkError("a figure needs a results directory or an output directory")
    d = Path(out_dir) if out_dir is not None else res.path / FIG_DIR   # type: ignore[union-attr]
    if out_dir is None and res is not None:
        check_own_files(res.path, (FIG_DIR + "/",))
    d.mkdir(parents=True, exist_ok=True)
    png, pdf = d / f"{stem}.png", d / f"{stem}.pdf"
    atomic_write(png, lambda f: fig.savefig(f, format="png", dpi=150))
    atomic_write(pdf, lambda f: fig.savefig(f, format="pdf", metadata={"CreationDate": None, "ModDate": None}))
    return [png, pdf]


# ----------------------------------------------------------------------------- styles
#: The colours of every figure: Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008; Wong, "Points of
#: view: Color blindness", Nature Methods 8:441, 2011) without its yellow, too pale on white, and with a mid grey.
#: A learner declares its colour by name (its ``style``); the report resolves the name here and nowhere else.
PALETTE = {"black": "#000000", "orange": "#e69f00", "skyblue": "#56b4e9", "green": "#009e73", "blue": "#0072b2",
           "vermillion": "#d55e00", "purple": "#cc79a7", "grey": "#8c8c8c"}
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "p", "h", "d", "*", "H", "8")
LINESTYLES = ("-", "--", "-.", ":")


# One (colour, marker, line style) per registered learner, declared by the learner itself (its ``style`` class
# attribute, see olk/algorithms/DEVELOPING.md): an algorithm looks the same in every figure, whichever other algorithms
# are plotted.  tests/test_registry_declarations.py checks that every triple is used once and that the learners of
# every config differ pairwise in (colour, line style) and in (colour, marker): 8 colours serve the 11 curves of SPA's
# Table 2 because a colour's second learner has another line and another marker.
def style_problem(style) -> str:
    """'' when a learner's declared ``style`` can be drawn -- None, or (colour, marker, line style): a colour of
    :data:`PALETTE` by name or any matplotlib colour (a plugin's own, e.g. '#17becf'), a matplotlib marker, one of
    :data:`LINESTYLES` -- else what is wrong, in one line (``olk check-learner`` prints it)."""
    if style is None:
        return ""
    from matplotlib.colors import is_color_like
    from matplotlib.lines import Line2D
    if not (isinstance(style, tuple) and len(style) == 3):
        return f"style must be None or (colour, marker, line style), e.g. ('#17becf', 'x', '-') (got {style!r})"
    colour, marker, line = style
    if not (isinstance(colour, str) and (colour in PALETTE or is_color_like(colour))):
        return f"style colour {colour!r} is not a colour: a palette name ({', '.join(PALETTE)}) or a matplotlib colour"
    if not isinstance(marker, str) or marker not in Line2D.markers or marker in ("None", "none", "", " "):
        return f"style marker {marker!r} is not a matplotlib marker such as 'o', 's', 'x'"
    if line not in LINESTYLES:
        return f"style line style {line!r} must be one of {', '.join(LINESTYLES)}"
    return ""


def algorithm_styles() -> dict[str, tuple[str, str, str]]:
    """registry name -> (colour as hex, marker, line style) of every registered learner that declares a style it can
    be drawn with (:func:`style_problem`; a learner from outside olk with a bad one gets a style from its name)."""
    from matplotlib.colors import to_hex

    from olk.algorithms.registry import REGISTRY, available
    available()
    return {name: (to_hex(PALETTE.get(cls.style[0], cls.style[0])), *cls.style[1:])
            for name, cls in REGISTRY.items() if cls.style and not style_problem(cls.style)}


def kernel_ground_truth_algorithms() -> set[str]:
    """Registry names of the learners that train on one kernel of a set given in advance (no selection): their
    runs over every kernel are the ground truth the kernel-selection figure marks each method's choices on (OKS,
    AAAI 2012, Figs. 1-2: LIBSVM on each kernel).  Declared by the learner (class attribute
    ``kernel_ground_truth = True``); until the learner contract has it, a learner with a ``kernel_id`` parameter
    (which kernel of the set it trains on) counts as one."""
    from olk.algorithms.registry import REGISTRY, available
    available()
    return {name for name, cls in REGISTRY.items()
            if cls.kernel_ground_truth}


def _stable_index(key: str, n: int) -> int:
    """A deterministic index in range(n) (not Python's hash(), which changes between processes)."""
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % n


def algorithm_style(label: str, algorithm: str | None = None) -> tuple[str, str, str]:
    """(colour, marker, line style) of a result label whose learner is ``algorithm`` (registry name; default: the
    label).

    A learner's own label gets its declared ``style``.  Another label of a known learner (``spa_last``,
    ``spa@beta=5``) keeps the learner's colour with another marker and line style; an unknown learner gets a palette
    colour, marker and line style from its name.  No fallback style equals a declared one, and each depends on the
    label alone."""
    algorithm = algorithm or label
    table = algorithm_styles()
    base = table.get(algorithm)
    if base is not None and label == algorithm:
        return base
    taken = set(table.values())
    colours = [base[0]] if base is not None else list(PALETTE.values())
    markers = [m for m in MARKERS if base is None or m != base[1]]
    lines = [ls for ls in LINESTYLES if base is None or ls != base[2]]
    colour = colours[_stable_index(algorithm, len(colours))]
    i, j = _stable_index(label, len(markers)), _stable_index(label + "/line", len(lines))
    for k in range(len(markers) * len(lines)):
        style = (colour, markers[(i + k) % len(markers)], lines[(j + k // len(markers)) % len(lines)])
        if style not in taken:
            return style
    return colour, markers[i], lines[j]         # pragma: no cover - every combination of a colour declared


def _styles(res: Results) -> dict[str, tuple[str, str, str]]:
    """label -> (colour, marker, line style) for the labels of ``res`` (see :func:`algorithm_style`).  A learner's own
    label keeps its declared style; another label that would share a colour and a line style with one of the figure
    (e.g. SPA-avg and SPA-last) moves to the next free line style; the same for a shared (colour, marker)."""
    algo: dict[str, str] = {}
    if "algorithm" in res.runs.columns:
        for lab, a in zip(res.runs["label"], res.runs["algorithm"]):
            if isinstance(a, str) and a:
                algo.setdefault(str(lab), a)
    table = algorithm_styles()
    labels = list(dict.fromkeys(lab for lab, _ in res.rows))
    out = {lab: table[lab] for lab in labels if algo.get(lab, lab) == lab and lab in table}   # declared: as they are
    for lab in labels:
        if lab in out:
            continue
        colour, marker, line = algorithm_style(lab, algo.get(lab))
        used_lines = {ls for c, _, ls in out.values() if c == colour}
        used_markers = {m for c, m, _ in out.values() if c == colour}
        if line in used_lines:
            line = next((ls for ls in LINESTYLES if ls not in used_lines), line)
        if marker in used_markers:
            marker = next((m for m in MARKERS if m not in used_markers), marker)
        out[lab] = (colour, marker, line)
    return out


def _legend(fig: Figure, axes: list[Any], rename: dict[str, str] | None = None) -> None:
    """One legend for the figure with every line of every panel (first occurrence of each name); ``rename`` maps
    a line's name to the text its legend entry shows."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, name in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(name, h)
    if seen:
        rename = rename or {}
        fig.legend(list(seen.values()), [rename.get(n, n) for n in seen], loc="outside right upper", fontsize="small")


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._]+", "-", str(s)).strip("-") or "x"


def _label(metric: str) -> str:
    return METRICS[metric][0] if metric in METRICS else metric


def _check_metric(m: str) -> None:
    if m not in METRICS:
        raise OlkError(f"unknown metric '{m}'{did_you_mean(m, METRICS)}; known: {', '.join(METRICS)}")


def _default_xy(res: Results) -> tuple[str, str]:
    """(x, y) of the score-vs-time figure: the task's declaration (olk.tasks)."""
    return tuple(TASKS[res.task].tradeoff_axes(res.is_batch))


# ----------------------------------------------------------------------------- learning curves
def plot_learning_curves(results_dir: str | Path | Results, out_dir: str | Path | None = None) -> list[Path]:
    """Mistake rate (%) or the running-average online MSE vs #examples seen (log x): one panel per dataset, mean
    over permutations (seeds).  An MSE panel is on a log y axis whose range follows the curves that converge
    (:func:`_mse_range`): a curve that diverges (e.g. an unnormalised polynomial kernel's gradient steps) is drawn
    clipped at the top and named "diverged" in the legend with its final value.  MSE in the table's units."""
    res = load_results(results_dir)
    curves = res.curves
    if curves is None or curves.empty:
        raise OlkError(f"{res.path / 'curves.csv'} is missing or empty; learning curves need the "
                       "curves.csv written by `olk run`")
    main = res.main[["run_id", "dataset", "label", "setting"]]
    data = curves.merge(main, on="run_id")
    if data.empty:
        raise OlkError(f"{res.path / 'curves.csv'} has no curve for a main-phase run of runs.csv; "
                       "re-run `olk run` to rewrite both files")
    datasets = [d for d in res.datasets if (data["dataset"] == d).any()]
    fig, axes = _figure(len(datasets))
    style = _styles(res)
    y = "mistake_rate" if data.get("mistake_rate") is not None and data["mistake_rate"].notna().any() else "mse"
    u = res.layout.unit(y) if y == "mse" else 1.0
    off: dict[str, list[str]] = {}             # legend name -> "dataset: final value" of each diverged panel
    t0: float = START_EXAMPLES
    banded = False
    for ax, ds in zip(axes, datasets):
        lines = _mean_curves(res, data[data["dataset"] == ds], "t", y)
        t0, banded = min(t0, _start(lines)), banded or any(c.n > 1 for c in lines)
        lines = [c.after(_start(lines)) for c in lines]
        lo = hi = None
        if y == "mse":
            lines = [c.scaled(1.0 / u) for c in lines]
            lo, hi, diverged = _mse_range(lines)
            for (lab, st), v in diverged.items():
                off.setdefault(res.display(lab, st), []).append(
                    f"{ds}: final {v:.3g}" if math.isfinite(v) else f"{ds}: not finite (overflow)")
            if diverged:
                ax.text(0.98, 0.98, "diverged, off the axis: " + ", ".join(res.display(*k) for k in diverged),
                        transform=ax.transAxes, ha="right", va="top", fontsize=6, color="#555555")
        _draw_lines(ax, res, style, lines, markersize=5, spread_marks=True, clip=None if hi is None else 10 * hi)
        ax.set_xscale("log")
        ax.set_title(ds)
        ax.set_xlabel("Number of examples")
        ax.set_ylabel("Online mistake rate (%)" if y == "mistake_rate" else
                      "Online MSE (running average)" + ("" if u == 1.0 else f" (x{u:g})"))
        if y == "mse":
            ax.set_yscale("log")
            if lo is not None:
                ax.set_ylim(lo, hi)
        ax.grid(True, which="major", alpha=0.3)
    _legend(fig, axes, rename={name: f"{name} (diverged on {'; '.join(v)})" for name, v in off.items()})
    moves = "rate by more than 1 point" if y == "mistake_rate" else "average by more than 1%"
    _stamp(fig, res, (BAND_NOTE + "; " if banded else "") +
           f"x from {t0:g} examples: before, one example moves the running {moves}")
    return _save(fig, res, "learning_curves", out_dir)


#: a learning curve (a running average over the first t examples) is drawn from t = START_EXAMPLES, where one more
#: example moves a running mistake rate by at most 100/t = 1 point (before, the first few examples' luck); from a
#: tenth of the stream when that is shorter (a quick run of a few hundred examples keeps a decade of its curve)
START_EXAMPLES = 100


def _start(lines: list) -> float:
    """The first x of a panel of learning curves: :data:`START_EXAMPLES`, or a tenth of the longest curve."""
    longest = max((float(c.xs[-1]) for c in lines if len(c.xs)), default=0.0)
    return min(float(START_EXAMPLES), max(1.0, math.floor(longest / 10.0)))


#: an MSE curve whose final value exceeds this multiple of the panel's median final value (or is not finite) is
#: "diverged": it sets no axis range and is marked in the legend
DIVERGED = 100.0


def _mse_range(lines: list) -> tuple[float | None, float | None, dict]:
    """(bottom, top, diverged) of an MSE panel's log y axis.  ``diverged`` maps (label, setting) to the final value
    of each curve above :data:`DIVERGED` x the median final value (or not finite); the range covers the other
    curves after their first 1% of examples (a running average starts from a handful of examples): from half
    their smallest value to twice their largest."""
    finals = {(c.label, c.setting): float(c.ys[-1]) for c in lines if len(c.ys)}
    ok = [v for v in finals.values() if math.isfinite(v) and v > 0]
    if not ok:
        return None, None, {}
    med = float(np.median(ok))
    diverged = {k: v for k, v in finals.items() if not math.isfinite(v) or v > DIVERGED * med}
    vals = []
    for c in lines:
        if (c.label, c.setting) in diverged or not len(c.xs):
            continue
        keep = (c.xs >= c.xs[-1] / 100.0) & np.isfinite(c.ys) & (c.ys > 0)
        vals.append(c.ys[keep])
    v = np.concatenate(vals) if vals else np.array(ok)
    return float(v.min()) / 2.0, float(v.max()) * 2.0, diverged


class Curve(NamedTuple):
    """A mean curve of one (label, setting) over its ``n`` runs, and its band: mean +- one sample std, within the
    runs' own range (a band never leaves the values the runs took, e.g. a mistake rate's 0-100)."""
    label: str
    setting: str
    xs: np.ndarray
    ys: np.ndarray
    sd: np.ndarray
    low: np.ndarray           # the smallest run value at each x
    high: np.ndarray          # the largest
    n: int

    @property
    def band(self) -> tuple[np.ndarray, np.ndarray]:
        return np.maximum(self.ys - self.sd, self.low), np.minimum(self.ys + self.sd, self.high)

    def after(self, x0: float) -> "Curve":
        """The part from x = x0 on."""
        keep = self.xs >= x0
        return self._replace(**{k: getattr(self, k)[keep] for k in ("xs", "ys", "sd", "low", "high")})

    def scaled(self, f: float) -> "Curve":
        return self._replace(**{k: getattr(self, k) * f for k in ("ys", "sd", "low", "high")})


def _mean_curves(res: Results, d: pd.DataFrame, x: str, y: str) -> list[Curve]:
    """The mean curve (:func:`_mean_curve`) of every (label, setting) of ``res`` that has curve rows in ``d``, in the
    table's row order."""
    out = []
    for lab, st in res.rows:
        g = d[(d["label"] == lab) & (d["setting"] == st)].dropna(subset=[x, y])
        if g.empty:
            continue
        out.append(Curve(lab, st, *_mean_curve(g, x, y)))
    return out


def _draw_lines(ax, res: Results, style: dict, lines: list[Curve], markersize: float, spread_marks: bool = False,
                clip: float | None = None) -> None:
    """Draw mean curves in the label's colour, marker and line style (a label's further settings: the next line
    styles), each with a band of +- one std over its runs in its colour; values above ``clip`` (and infinite ones)
    are drawn at ``clip``, outside a y range that ends below it."""
    for c in lines:
        colour, marker, line = style[c.label]
        k = [s for lb, s in res.rows if lb == c.label].index(c.setting)
        ys, (lo, hi) = c.ys, c.band
        if clip is not None:
            ys, lo, hi = (np.where(np.isnan(v), np.nan, np.minimum(v, clip)) for v in (ys, lo, hi))
        if c.n > 1:
            ax.fill_between(c.xs, lo, hi, color=colour, alpha=0.12, linewidth=0)
        ax.plot(c.xs, ys, label=res.display(c.label, c.setting), linewidth=1.4, color=colour,
                linestyle=LINESTYLES[(LINESTYLES.index(line) + k) % len(LINESTYLES)], marker=marker,
                markersize=markersize, markevery=(0.012 * (_stable_index(c.label, 8)), 0.1) if spread_marks else None)


def _mean_curve(g: pd.DataFrame, x: str = "t", y: str = "mistake_rate") -> tuple:
    """(x grid, mean, sample std (0 for one run), smallest and largest run value, number of runs) of the runs'
    curves ``y`` vs ``x`` on the union of their x values (linear interpolation), restricted to the x range every run
    covers."""
    runs = [r.sort_values(x, kind="stable") for _, r in g.groupby("run_id", sort=False)]
    lo = max(r[x].iloc[0] for r in runs)
    hi = min(r[x].iloc[-1] for r in runs)
    grid = np.unique(np.concatenate([r[x].to_numpy(float) for r in runs]))
    grid = grid[(grid >= lo) & (grid <= hi)]
    ys = np.array([np.interp(grid, r[x].to_numpy(float), r[y].to_numpy(float)) for r in runs])
    sd = ys.std(axis=0, ddof=1) if len(runs) > 1 else np.zeros(len(grid))
    return grid, ys.mean(axis=0), sd, ys.min(axis=0), ys.max(axis=0), len(runs)


# ----------------------------------------------------------------------------- provenance on the figure
BAND_NOTE = f"band: {PLUS_MINUS}1 std over the runs"


def _runs_text(res: Results) -> str:
    """'mean of 3 permutations' (or 'of 1-5 runs' when curves differ; 'runs' when the data kept its file order and
    a run index is a learner's seed)."""
    main = res.main
    n = main.groupby(["dataset", "label", "setting"], sort=False).size() if len(main) else pd.Series([0])
    what = "permutations" if res.shuffled else "runs (file order, the learners' seeds)"
    lo, hi = int(n.min()), int(n.max())
    return f"mean of {lo} {what}" if lo == hi else f"mean of {lo}-{hi} {what} per curve"


def stamp_text(res: Results) -> str:
    """What every figure says about the results it shows: the experiment, the data scale, the runs per curve, the
    olk version and commit (experiment.json)."""
    meta = res.meta
    scale = float(meta.get("scale") or 1.0)
    data = "full data" if scale >= 1.0 else f"{scale * 100:.3g}% of each dataset (quick mode)"
    commit = str(meta.get("git_commit") or "").strip()
    version = f"olk {meta.get('olk_version')}" if meta.get("olk_version") else "olk"
    return f"{res.name}: {data}, {_runs_text(res)}; {version}" + (f", commit {commit}" if commit else "")


def _stamp(fig: Figure, res: Results, note: str = "", title: str = "") -> None:
    """``title`` (if any) over the figure, then :func:`stamp_text` and ``note`` in small grey type."""
    small = stamp_text(res) + (f"; {note}" if note else "")
    if title:
        fig.suptitle(title)
    fig.supxlabel(small, fontsize=7, color="#555555", wrap=True)


# ----------------------------------------------------------------------------- held-out curves
#: x axes of the held-out curves: column of test_curves.csv -> axis label
TEST_CURVE_X = {"t": "Number of training examples", "n_sv": "Number of support vectors",
                "train_time_s": "Training time (s)"}


def plot_test_curves(results_dir: str | Path | Results, x: str = "t", out_dir: str | Path | None = None) -> list[Path]:
    """Held-out metric (test accuracy, or test MSE) during training vs ``x`` (t, n_sv or train_time_s): one
    panel per dataset, one line per (algorithm, setting), the mean over runs (folds / permutations)."""
    res = load_results(results_dir)
    if x not in TEST_CURVE_X:
        raise OlkError(f"unknown x axis '{x}'{did_you_mean(x, TEST_CURVE_X)}; choose {', '.join(TEST_CURVE_X)}")
    tc = res.test_curves
    if tc is None or tc.empty:
        raise OlkError(f"{res.path / 'test_curves.csv'} is missing or empty; held-out curves need a batch-mode "
                       "config with 'test_curve: N'")
    y = "test_accuracy" if "test_accuracy" in tc.columns and tc["test_accuracy"].notna().any() else "test_mse"
    data = tc.merge(res.main[["run_id", "dataset", "label", "setting"]], on="run_id")
    datasets = [d for d in res.datasets if (data["dataset"] == d).any()]
    fig, axes = _figure(len(datasets))
    style = _styles(res)
    banded = False
    for ax, ds in zip(axes, datasets):
        d = data[data["dataset"] == ds]
        lines = _mean_curves(res, d, x, y)
        banded = banded or any(c.n > 1 for c in lines)
        _draw_lines(ax, res, style, lines, markersize=4)
        if x == "train_time_s":
            xs = d[x][d[x] > 0]
            if len(xs) and xs.max() / xs.min() >= 20:
                ax.set_xscale("log")
        ax.set_title(ds)
        ax.set_xlabel(TEST_CURVE_X[x])
        ax.set_ylabel(_label(y))
        ax.grid(True, alpha=0.3)
    _legend(fig, axes)
    _stamp(fig, res, BAND_NOTE if banded else "")
    return _save(fig, res, f"{_slug(y)}_vs_{_slug(x)}", out_dir)


# ----------------------------------------------------------------------------- sparsity trade-off
def plot_sparsity_tradeoff(results_dir: str | Path | Results, param: str = "gamma", reference: str | None = None,
                           offset: float = 1.0, out_dir: str | Path | None = None) -> list[Path]:
    """Sparse online KLR Fig. 4 type: sparsity (1 - #SV / #examples) and test accuracy relative to the
    ``reference`` label's mean (default: the first label that does not sweep ``param``) against
    ``param - offset`` (log x), one panel pair per dataset, mean over runs."""
    res = load_results(results_dir)
    df = param_values(res)
    if param not in df.columns or "sparsity" not in df.columns:
        raise OlkError(f"{res.path / 'runs.csv'}: a sparsity trade-off needs runs with a 'sparsity' column and a "
                       f"swept parameter '{param}'")
    swept = [lab for lab, g in df.groupby("label", sort=False) if g[param].nunique() > 1]
    if not swept:
        raise OlkError(f"parameter '{param}' takes a single value in every algorithm of {res.path / 'runs.csv'}")
    labels = list(dict.fromkeys(df["label"]))
    reference = reference or next((lab for lab in labels if lab not in swept), None)
    datasets = [d for d in res.datasets if (df["dataset"] == d).any()]
    fig, axes = _figure(2 * len(datasets), ncols=2)
    metric = "test_accuracy" if res.is_batch else "accuracy"
    for k, ds in enumerate(datasets):
        d = df[df["dataset"] == ds]
        ref = d[d["label"] == reference][metric].mean() if reference else d[metric].max()
        ax_s, ax_r = axes[2 * k], axes[2 * k + 1]
        for lab in swept:
            g = d[d["label"] == lab].groupby(param, sort=True)[["sparsity", metric]].mean()
            xv = g.index.to_numpy(float) - offset
            keep = xv > 0
            colour, marker, line = _styles(res)[lab]
            for ax, v in ((ax_s, g["sparsity"].to_numpy()), (ax_r, g[metric].to_numpy() / ref)):
                ax.plot(xv[keep], v[keep], marker=marker, color=colour, linestyle=line, label=res.display(lab))
        for ax, ylab in ((ax_s, "Sparsity"),
                         (ax_r, f"Relative accuracy (vs {res.display(reference) if reference else 'best'})")):
            ax.set_xscale("log")
            ax.set_xlabel(f"{param} - {offset:g}" if offset else param)
            ax.set_ylabel(ylab)
            ax.set_title(ds)
            ax.grid(True, alpha=0.3)
    _legend(fig, axes[:2])
    _stamp(fig, res)
    return _save(fig, res, f"sparsity_tradeoff_{_slug(param)}", out_dir)


# ----------------------------------------------------------------------------- accuracy vs time
def plot_accuracy_vs_time(results_dir: str | Path | Results, y: str | None = None, x: str | None = None,
                          out_dir: str | Path | None = None) -> list[Path]:
    """SPA Fig. 1 type: ``y`` (default accuracy) vs ``x`` (default time_s), one panel per dataset,
    one point per (algorithm, setting), an algorithm's settings joined in order of time."""
    res = load_results(results_dir)
    dx, dy = _default_xy(res)
    x, y = x or dx, y or dy
    _check_metric(x)
    _check_metric(y)
    agg = aggregate(res, [x, y])
    if agg.empty:
        raise OlkError(f"{res.path / 'runs.csv'} has no main-phase runs to plot")
    wide = agg.pivot_table(index=["dataset", "algorithm", "setting"], columns="metric", values="mean",
                           sort=False).reset_index()
    datasets = [d for d in res.datasets if (wide["dataset"] == d).any()]
    fig, axes = _figure(len(datasets))
    style = _styles(res)
    for ax, ds in zip(axes, datasets):
        d = wide[wide["dataset"] == ds]
        for lab in dict.fromkeys(lab for lab, _ in res.rows):
            g = d[d["algorithm"] == lab].dropna(subset=[x, y]).sort_values(x, kind="stable")
            if g.empty:
                continue
            colour, marker, dash = style[lab]
            line, = ax.plot(g[x], g[y], marker=marker, markersize=6, linewidth=1.2, linestyle=dash,
                            label=res.display(lab), color=colour)
            if len(g) > 1:
                for xv, yv, st in zip(g[x], g[y], g["setting"]):
                    ax.annotate(_short(st), (xv, yv), fontsize=6, color=line.get_color(),
                                xytext=(3, 3), textcoords="offset points")
        xs = d[x].dropna()
        if len(xs) and xs.min() > 0 and xs.max() / xs.min() >= 20:
            ax.set_xscale("log")
        ax.set_title(ds)
        ax.set_xlabel(_label(x))
        ax.set_ylabel(_label(y))
        ax.grid(True, alpha=0.3)
    _legend(fig, axes)
    _stamp(fig, res, "one point per setting: the mean over its runs")
    return _save(fig, res, f"{_slug(y)}_vs_{_slug(x)}", out_dir)


def _short(setting: str) -> str:
    """'beta=0.1, budget=100' -> '0.1, 100' (annotation text)."""
    return ", ".join(p.split("=", 1)[-1] for p in setting.split(", ")) if setting else ""


# ----------------------------------------------------------------------------- sensitivity
def param_values(res: Results) -> pd.DataFrame:
    """Main runs with one column per flattened parameter (``kernel.*`` included)."""
    main = res.main
    params = pd.DataFrame.from_records(list(main["_params"]), index=main.index)
    return main.drop(columns=[c for c in params.columns if c in main.columns]).join(params)


def plot_param_sensitivity(results_dir: str | Path | Results, x: str = "alpha", series: str | None = "beta",
                           metrics: Sequence[str] | None = None,
                           out_dir: str | Path | None = None) -> list[Path]:
    """SPA Fig. 2 type: one panel per metric vs parameter ``x``, one line per value of ``series``;
    one figure per (dataset, algorithm) in which ``x`` takes at least two values (mean ± std bars).
    ``metrics`` default to the task's (olk.tasks: #SV, time, accuracy for classification; MSE and the labelling
    efficiency for regression, the AMKL paper's Fig. 2)."""
    res = load_results(results_dir)
    metrics = tuple(metrics) if metrics is not None else tuple(TASKS[res.task].sensitivity_metrics(res.is_batch))
    for m in metrics:
        _check_metric(m)
    df = param_values(res)
    keys = sorted({k for p in res.main["_params"] for k in p})
    for name in (x, series):
        if name is not None and name not in keys:
            raise OlkError(f"parameter '{name}' is not in the params of any main run in "
                           f"{res.path / 'runs.csv'}{did_you_mean(name, keys)}; "
                           f"parameters: {', '.join(keys) or 'none'}")
    written: list[Path] = []
    for (ds, lab), g in df.groupby(["dataset", "label"], sort=False):
        g = g.assign(**{x: pd.to_numeric(g[x], errors="coerce")})     # a rule such as eta 'R/sqrt(T)' has no x
        g = g[g[x].notna()]
        if g[x].nunique() < 2:
            continue
        fig, axes = _figure(len(metrics), ncols=len(metrics))
        own = series if series and series in g.columns and g[series].notna().any() else None  # it has the series
        groups = g.groupby(own, sort=True, dropna=False) if own else [(None, g)]
        colours = list(PALETTE.values())
        for j, (sval, sg) in enumerate(groups):
            stats = sg.groupby(x, sort=True)[list(metrics)].agg(["mean", "std"])
            for ax, m in zip(axes, metrics):
                name = f"{own}={sval:g}" if isinstance(sval, (int, float)) and own else \
                    (f"{own}={sval}" if own else res.display(lab))
                u = res.layout.unit(m)                 # the table's unit (e.g. MSE x 1e-3)
                ax.errorbar(stats.index.to_numpy(), stats[(m, "mean")] / u, yerr=stats[(m, "std")].fillna(0) / u,
                            marker=MARKERS[j % len(MARKERS)], markersize=4, capsize=2, linewidth=1.2, label=name,
                            color=colours[j % len(colours)], linestyle=LINESTYLES[(j // len(colours)) % 4])
        xv = pd.to_numeric(g[x], errors="coerce").dropna()
        for ax, m in zip(axes, metrics):
            if len(xv) and xv.min() > 0 and xv.max() / xv.min() >= 20:
                ax.set_xscale("log")
            ax.set_xlabel(x)
            ax.set_ylabel(res.layout.header(m) if m in METRICS else m)
            ax.grid(True, alpha=0.3)
        _legend(fig, axes[:1])
        _stamp(fig, res, f"bars: {PLUS_MINUS}1 std over the runs", title=f"{res.display(lab)} on {ds}")
        stem = f"sensitivity_{_slug(x)}" + (f"_{_slug(own)}" if own else "") + f"_{_slug(ds)}_{_slug(lab)}"
        written += _save(fig, res, stem, out_dir)
    if not written:
        raise OlkError(f"parameter '{x}' takes a single value in every (dataset, algorithm) of "
                       f"{res.path / 'runs.csv'}; a sensitivity plot needs a sweep over it")
    return written


def _numeric_ticks(ax, xs: np.ndarray) -> None:
    """The swept values as the x ticks (a log axis when they span a factor of 10 or more), printed with ``:g``;
    slanted when there are more than five, thinned to at most ten: no label overprints another."""
    xs = np.unique(xs[np.isfinite(xs)])
    if not len(xs):
        return
    if xs.min() > 0 and xs.max() / xs.min() >= 10:
        ax.set_xscale("log")
    ticks = xs if len(xs) <= 10 else xs[np.unique(np.round(np.linspace(0, len(xs) - 1, 10)).astype(int))]
    ax.set_xticks(ticks)
    ax.set_xticks([], minor=True)
    ax.set_xticklabels([f"{v:g}" for v in ticks], rotation=35 if len(ticks) > 5 else 0,
                       ha="right" if len(ticks) > 5 else "center", fontsize="small")


def plot_sweep(results_dir: str | Path | Results, param: str | None = None, metrics: Sequence[str] | None = None,
               out_dir: str | Path | None = None) -> list[Path]:
    """One figure per swept parameter (``param``, default every parameter some learner sweeps): a row of panels per
    dataset, a panel per metric (the task's, as :func:`plot_param_sensitivity`), and in each panel one line per
    learner that HAS the parameter swept on that dataset -- in the learner's own style, mean ± std over its runs
    -- against the swept values; a learner without the parameter gets no line (and no panel of its own).  A
    learner that sweeps other parameters too draws one line per value of them ('SPA (beta=5)').  Written as
    ``sweep_<param>.png`` / ``.pdf``."""
    res = load_results(results_dir)
    metrics = tuple(metrics) if metrics is not None else tuple(TASKS[res.task].sensitivity_metrics(res.is_batch))
    for m in metrics:
        _check_metric(m)
    varying = varying_params(res)
    swept = list(dict.fromkeys(p for ps in varying.values() for p in ps))
    if param is not None and param not in swept:
        raise OlkError(f"parameter '{param}' is not swept by any learner in {res.path / 'runs.csv'}"
                       f"{did_you_mean(param, swept)}; swept: {', '.join(swept) or 'none'}")
    df = param_values(res)
    styles = _styles(res)
    written: list[Path] = []
    for p in [param] if param is not None else swept:
        datasets = [d for d in res.datasets if any(ds == d and p in ps for (ds, _), ps in varying.items())]
        fig, axes = _figure(len(datasets) * len(metrics), ncols=len(metrics))
        drawn = 0
        for i, ds in enumerate(datasets):
            row_axes = axes[i * len(metrics):(i + 1) * len(metrics)]
            all_x: list[np.ndarray] = []
            for lab in dict.fromkeys(lab for lab, _ in res.rows):
                if p not in varying.get((ds, lab), []):
                    continue
                g = df[(df["dataset"] == ds) & (df["label"] == lab)]
                g = g.assign(**{p: pd.to_numeric(g[p], errors="coerce")})
                g = g[g[p].notna()]
                if g[p].nunique() < 2:
                    continue
                others = [q for q in varying[(ds, lab)] if q != p and q in g.columns]
                groups = list(g.groupby(others, sort=True, dropna=False)) if others else [((), g)]
                colour, marker, line = styles.get(lab, algorithm_style(lab))
                for j, (key, sg) in enumerate(groups):
                    key = key if isinstance(key, tuple) else (key,)
                    name = res.display(lab) + (" (" + ", ".join(f"{q}={_fmt(v)}" for q, v in zip(others, key)) + ")"
                                               if others else "")
                    stats = sg.groupby(p, sort=True)[list(metrics)].agg(["mean", "std"])
                    for ax, m in zip(row_axes, metrics):
                        u = res.layout.unit(m)
                        ax.errorbar(stats.index.to_numpy(float), stats[(m, "mean")] / u,
                                    yerr=stats[(m, "std")].fillna(0) / u, color=colour,
                                    marker=marker if j == 0 else MARKERS[(MARKERS.index(marker) + j) % len(MARKERS)]
                                    if marker in MARKERS else marker,
                                    linestyle=LINESTYLES[(LINESTYLES.index(line) + j) % len(LINESTYLES)],
                                    markersize=4, capsize=2, linewidth=1.2, label=name)
                    all_x.append(stats.index.to_numpy(float))
                    drawn += 1
            for ax, m in zip(row_axes, metrics):
                _numeric_ticks(ax, np.concatenate(all_x) if all_x else np.array([]))
                ax.set_xlabel(p)
                ax.set_ylabel(res.layout.header(m) if m in METRICS else m)
                ax.set_title(ds, fontsize="medium")
                ax.grid(True, alpha=0.3)
        if not drawn:
            continue
        _legend(fig, axes)
        _stamp(fig, res, f"bars: {PLUS_MINUS}1 std over the runs; only learners that sweep {p}",
               title=f"Sweep over {p}")
        written += _save(fig, res, f"sweep_{_slug(p)}", out_dir)
    if param is not None and not written:
        raise OlkError(f"parameter '{param}' takes a single numeric value in every learner of "
                       f"{res.path / 'runs.csv'}; a sweep figure needs several")
    return written


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, (int, float, np.floating)) and not isinstance(v, bool) else str(v)


def varying_params(res: Results) -> dict[tuple[str, str], list[str]]:
    """Setting parameters (see olk.report.results) of each (dataset, label) that has several
    settings, most distinct values first."""
    df = param_values(res)
    out: dict[tuple[str, str], list[str]] = {}
    for key, g in df[df["setting"] != ""].groupby(["dataset", "label"], sort=False):
        counts = {k: g[k].astype(str).nunique() for k in sorted({k for p in g["_params"] for k in p})}
        keys = sorted((k for k, n in counts.items() if n > 1), key=lambda k: (-counts[k], k))
        if keys:
            out[key] = keys
    return out


# ----------------------------------------------------------------------------- kernel selection
def plot_kernel_selection(results_dir: str | Path | Results, selections: str | Path | Results | None = None,
                          out_dir: str | Path | None = None) -> list[Path]:
    """OKS (AAAI 2012) Figs. 1-2 type: the test accuracy of LIBSVM on every kernel of the set (the ground
    truth: the runs of a :func:`kernel_ground_truth_algorithms` learner, e.g. ``kernel_svm``, swept over
    ``kernel_id`` in ``results_dir``), one panel per dataset, with the
    kernels each method of ``selections`` (a results directory whose runs record ``selected_kernel``; default
    ``results_dir`` itself) selected marked on it, one marker row per method (marker size: how many runs chose
    that kernel).  Kernels are numbered 1-based, as in the tables; a ground-truth run's own kernel is its recorded
    ``selected_kernel`` (0-based, + 1), so results of the older 0-based ``index`` sweep plot the same."""
    res = load_results(results_dir)
    sel = res if selections is None else load_results(selections)
    df = param_values(res)
    ground = kernel_ground_truth_algorithms()
    truth = df[df["algorithm"].isin(ground)] if "algorithm" in df.columns else df.iloc[:0]
    if "selected_kernel" in truth.columns:
        truth = truth[truth["selected_kernel"].notna()]
    if truth.empty or truth["selected_kernel"].nunique() < 2:
        raise OlkError(f"{res.path / 'runs.csv'}: the kernel figure needs runs of "
                       f"{' or '.join(sorted(ground)) or 'a ground-truth learner'} with a sweep over "
                       f"'kernel_id' (LIBSVM on every kernel of the set)")
    truth = truth.assign(kernel_no=truth["selected_kernel"].astype(int) + 1)
    picks = sel.main[sel.main["selected_kernel"].notna() & ~sel.main["algorithm"].isin(ground)] \
        if "selected_kernel" in sel.main.columns else sel.main.iloc[:0]     # ground truth "selects" its own kernel
    datasets = [d for d in res.datasets if (truth["dataset"] == d).any()]
    fig, axes = _figure(len(datasets), ncols=1)
    styles = _styles(sel)
    for ax, ds in zip(axes, datasets):
        g = truth[truth["dataset"] == ds].groupby("kernel_no", sort=True)["test_accuracy"].mean()
        kx = g.index.to_numpy(int)
        ax.bar(kx, g.to_numpy(), color="#cccccc", edgecolor="#888888", label="LIBSVM on the kernel (ground truth)")
        lo = float(g.min())
        labels = [lab for lab in dict.fromkeys(picks["label"])
                  if (picks[(picks["dataset"] == ds)]["label"] == lab).any()]
        for j, lab in enumerate(labels):
            ks = picks[(picks["dataset"] == ds) & (picks["label"] == lab)]["selected_kernel"].astype(int) + 1
            counts = ks.value_counts()
            colour, marker, _ = styles.get(lab, (PALETTE["black"], "o", "-"))
            yv = [float(g.get(k, lo)) + 0.6 * (j + 1) for k in counts.index]
            ax.scatter(counts.index, yv, s=30 + 25 * counts.to_numpy(), marker=marker, color=colour,
                       label=sel.display(lab), zorder=3)
        ax.set_xticks(kx)
        ax.set_xlim(kx.min() - 0.6, kx.max() + 0.6)
        ax.set_ylim(max(0.0, lo - 5.0), 100.0 + 0.6 * (len(labels) + 2))
        ax.set_xlabel("kernel (1-based, the set's order)")
        ax.set_ylabel("Test accuracy (%)")
        ax.set_title(ds)
        ax.grid(True, axis="y", alpha=0.3)
    fig.set_size_inches(max(PANEL_W, 0.35 * truth["kernel_no"].nunique() + 2), PANEL_H * len(datasets))
    _legend(fig, axes[:1])
    _stamp(fig, res)
    return _save(fig, res, "kernel_selection", out_dir)


# ----------------------------------------------------------------------------- all
def plot_all(results_dir: str | Path | Results, out_dir: str | Path | None = None) -> list[Path]:
    """Every figure that applies: learning curves if curves.csv has data; accuracy vs time and
    parameter sensitivity if some algorithm ran several settings on a dataset.  experiment.json
    ``plots: {sensitivity: {x: alpha, series: beta, metrics: [...]}}`` picks the sensitivity axes."""
    res = load_results(results_dir)
    written: list[Path] = []
    if res.curves is not None and res.curves["run_id"].isin(res.main["run_id"]).any():
        written += plot_learning_curves(res, out_dir)
    if res.test_curves is not None and res.test_curves["run_id"].isin(res.main["run_id"]).any():
        for x in TEST_CURVE_X:
            written += plot_test_curves(res, x=x, out_dir=out_dir)
    if "sparsity" in res.main.columns and "gamma" in {k for p in res.main["_params"] for k in p}:
        try:
            written += plot_sparsity_tradeoff(res, out_dir=out_dir)
        except OlkError:            # no sweep over gamma: nothing to trade off
            pass
    if "algorithm" in res.main.columns and res.main["algorithm"].isin(kernel_ground_truth_algorithms()).any():
        written += plot_kernel_selection(res, out_dir=out_dir)
        return written
    varying = varying_params(res)
    if varying:
        written += plot_accuracy_vs_time(res, out_dir=out_dir)
        spec = (res.meta.get("plots") or {}).get("sensitivity") or {}
        metrics = tuple(spec["metrics"]) if spec.get("metrics") else None      # None: the task's
        if "x" in spec:             # the axes a config asks for
            written += plot_param_sensitivity(res, x=spec["x"], series=spec.get("series"), metrics=metrics,
                                              out_dir=out_dir)
        elif str(res.meta.get("table") or "").lower().startswith("fig"):
            # a paper's figure (SPA Fig. 2: one figure per learner, its first swept parameter against the next)
            for x, series in dict.fromkeys((k[0], k[1] if len(k) > 1 else None) for k in varying.values()):
                written += plot_param_sensitivity(res, x=x, series=series, metrics=metrics, out_dir=out_dir)
        else:                       # a sweep: one figure per swept parameter, every learner that has it a line
            written += plot_sweep(res, metrics=metrics, out_dir=out_dir)
    return written


# ----------------------------------------------------------------------------- the report's first figure
#: The states of a published cell in :func:`plot_reproduction_overview`, in bar order, with their colours.
OVERVIEW_STATES = (("in tolerance", PALETTE["green"]), ("evidenced", PALETTE["skyblue"]),
                   ("paper", PALETTE["orange"]), ("open", PALETTE["vermillion"]),
                   ("other data", PALETTE["purple"]), ("not run", "#d9d9d9"))


class OverviewBar(NamedTuple):
    """One bar of :func:`plot_reproduction_overview`: its label and its published cells per state
    (:data:`OVERVIEW_STATES`)."""

    label: str
    cells: dict[str, int]


def plot_reproduction_overview(bars: Sequence[tuple[str, OverviewBar, OverviewBar]], out_dir: str | Path,
                               stem: str = "reproduction_overview") -> list[Path]:
    """Per published table (``bars``: table name, its literal bar, its held-out bar), the published cells as
    stacked horizontal bars, in tolerance / off by cause (evidenced, paper, open) / run on other data / not run,
    as shares of the table's cells with the counts beside them; the literal reading above the held-out one.
    Written as PNG and PDF into ``out_dir``."""
    n = len(bars)
    fig = Figure(figsize=(9.0, 0.8 + 0.5 * n), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ticks, names = [], []
    for i, (_table, lit, held) in enumerate(bars):
        for j, bar in enumerate((lit, held)):
            y = i * 2.4 + j * 1.0
            total = sum(bar.cells.values()) or 1
            left = 0.0
            for state, colour in OVERVIEW_STATES:
                k = bar.cells.get(state, 0)
                if k:
                    ax.barh(y, 100.0 * k / total, left=left, height=0.82, color=colour, edgecolor="white",
                            linewidth=0.5)
                    if 100.0 * k / total >= 6:
                        ax.text(left + 50.0 * k / total, y, str(k), ha="center", va="center", fontsize=7,
                                color="white" if state in ("in tolerance", "open", "other data") else "black")
                    left += 100.0 * k / total
            ax.text(101.0, y, f"{bar.cells.get('in tolerance', 0)} of {sum(bar.cells.values())}", va="center",
                    fontsize=7)
            ticks.append(y)
            names.append(bar.label)
    ax.set_yticks(ticks, names, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the table's published cells (%)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    from matplotlib.patches import Patch
    handles = [Patch(color=colour) for _, colour in OVERVIEW_STATES]
    fig.legend(handles, [st for st, _ in OVERVIEW_STATES], loc="outside upper center", ncols=len(OVERVIEW_STATES),
               fontsize=7.5, frameon=False)
    return _save(fig, None, stem, out_dir)
