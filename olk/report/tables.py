"""Mean ± std tables laid out like the papers' result tables (e.g. SPA, TIST 2018, Table 2).

Datasets are column groups (each group holds the layout's metrics, by default
Accuracy (%) | Time (s) | #SVs), algorithms are rows in config order, and the datasets are split into
blocks of ``datasets_per_block`` (SPA Table 2 stacks "a9a | w7a" above "ijcnn1 | codrna" ...).
Layout comes from experiment.json ``table_layout`` (see :class:`olk.report.results.TableLayout`).

Number formats follow the papers: percentages with 2 decimals (``82.04 ± 0.25``), times with 2
decimals or 3 significant digits above 100 s (``1,240 ± 6``), counts as integers with thousands
separators (``9,876 ± 120``; ``sv_format: k`` gives ``9.9k``).  A (dataset, algorithm) pair without
runs shows ``not run``; a dataset listed in experiment.json ``unavailable`` shows
``not run: data unavailable``.

Formats: Markdown (``table.md``), tidy CSV (``table.csv``: dataset, algorithm, display, metric, mean,
std, n_runs, setting, status) and LaTeX (``table.tex``, booktabs, hand-built, no Jinja).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from olk.errors import OlkError, did_you_mean
from olk.fileio import atomic_write_text
from olk.report.results import METRICS, Results, aggregate, load_results

FORMATS = ("md", "csv", "latex")
FILES = {"md": "table.md", "csv": "table.csv", "latex": "table.tex"}
NOT_RUN = "not run"
UNAVAILABLE = "not run: data unavailable"
PM = "±"


# ----------------------------------------------------------------------------- number formats
def format_value(x: float, kind: str, sv_format: str = "int", ref: float | None = None) -> str:
    """One number as the papers print it.  ``ref`` marks ``x`` as the std of mean ``ref``: it is shown
    with the mean's number of decimals but never rounded to tens (``1,240 ± 6``)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if kind == "percent":
        return f"{x:.2f}"
    if kind == "time":
        r = x if ref is None else ref
        if abs(r) > 100:  # 3 significant digits
            d = 3 - (int(math.floor(math.log10(abs(r)))) + 1)
            return f"{(round(x, d) if ref is None else x):,.{max(d, 0)}f}"
        return f"{x:.2f}"
    if kind == "count":
        if sv_format == "k" and abs(x) >= 1000:
            return f"{x / 1e6:.1f}M" if abs(x) >= 1e6 else f"{x / 1e3:.1f}k"
        return f"{x:,.0f}"
    return f"{x:.3g}"


def format_cell(mean: float, std: float, kind: str, sv_format: str = "int") -> str:
    """``'82.04 ± 0.25'``; the mean alone when std is undefined (one run); ``'n/a'`` when no value."""
    if mean is None or math.isnan(mean):
        return "n/a"
    m = format_value(mean, kind, sv_format)
    if std is None or math.isnan(std):
        return m
    return f"{m} {PM} {format_value(std, kind, sv_format, ref=mean)}"


# ----------------------------------------------------------------------------- table model
@dataclass
class Table:
    """The rendered cells: ``cells[(row, dataset)][metric]`` is the string shown; row = (label, setting)."""

    results: Results
    metrics: tuple[str, ...]
    blocks: list[list[str]]
    rows: list[tuple[str, str]]
    cells: dict[tuple[tuple[str, str], str], dict[str, str]]
    status: dict[tuple[tuple[str, str], str], str]
    agg: pd.DataFrame
    #: (dataset, row, metric) -> 'best' (bold), 'worse' (†: significantly worse than the best) or ''
    #: (:func:`olk.report.stats.cell_marks`)
    marks: dict = field(default_factory=dict)

    def mark(self, row: tuple[str, str], ds: str, metric: str) -> str:
        return self.marks.get((ds, row, metric), "") if self.status.get((row, ds)) == "ok" else ""

    def display(self, row: tuple[str, str]) -> str:
        return self.results.display(*row)


def build_table(results_dir: str | Path | Results) -> Table:
    """Aggregate the main runs and lay them out (rows, dataset blocks, cell strings)."""
    res = load_results(results_dir)
    layout = res.layout
    metrics = layout.metrics
    agg = aggregate(res, metrics)
    datasets = res.datasets
    blocks = [datasets[i:i + layout.datasets_per_block]
              for i in range(0, len(datasets), layout.datasets_per_block)]
    rows = res.rows
    by_key = {(r.dataset, r.algorithm, r.setting, r.metric): r for r in agg.itertuples(index=False)}
    cells, status = {}, {}
    for row in rows:
        for ds in datasets:
            have = [by_key.get((ds, row[0], row[1], m)) for m in metrics]
            if any(h is not None for h in have):
                status[row, ds] = "ok"
                cells[row, ds] = {m: (h.values or "n/a") if h is not None and METRICS[m][1] == "list" else
                                  format_cell(h.mean / layout.unit(m), h.std / layout.unit(m), METRICS[m][1],
                                              layout.sv_format)
                                  if h is not None else "n/a" for m, h in zip(metrics, have)}
            else:
                text = UNAVAILABLE if ds in res.unavailable else NOT_RUN
                status[row, ds] = "data unavailable" if ds in res.unavailable else "not run"
                cells[row, ds] = {m: text for m in metrics}
    from olk.report.stats import cell_marks
    return Table(res, metrics, blocks, rows, cells, status, agg, cell_marks(res, metrics))


# ----------------------------------------------------------------------------- captions
def _title(res: Results) -> str:
    """What ran: a reproduction of a paper's table, or -- when a learner from outside olk took part (experiment.json
    ``plugins``) -- that learner beside the table's learners, on its protocol."""
    paper, table = res.meta.get("paper"), res.meta.get("table")
    plugins: dict = res.meta["plugins"] if isinstance(res.meta.get("plugins"), dict) else {}
    new = [res.display(lab) for lab in dict.fromkeys(res.main["label"])
           if str(dict(zip(res.main["label"], res.main["algorithm"])).get(lab)) in plugins]
    if not paper:
        return f"olk results of experiment {res.name}" + (f" ({', '.join(new)}: from outside olk)" if new else "")
    table = "" if table is None else str(table)
    what = (f"{paper} Figure {table[3:]}" if table.lower().startswith("fig") else f"{paper} Table {table}") \
        if table else paper
    if new:
        return f"olk results of experiment {res.name}: {', '.join(new)} beside the learners of {what}, on its protocol"
    return f"olk reproduction of {what} (experiment {res.name})"


def _marks_note(t: Table) -> str | None:
    """What bold and † mean (the test named), when some cell has a mark."""
    from olk.report.stats import ALPHA, BETTER, TEST_NAME
    marked = [m for m in t.metrics if any(k[2] == m and v for k, v in t.marks.items())]
    if not marked:
        return None
    ways = "; ".join(f"{'higher' if BETTER[m] == 'higher' else 'lower'} {t.results.layout.header(m)}" for m in marked)
    dagger = any(v == "worse" for v in t.marks.values())
    return (f"Bold: the best mean of each dataset and metric ({ways} is better)."
            + (f" †: worse than the bold cell by a {TEST_NAME} over the learners of the dataset, alpha = {ALPHA:g}, "
               f"paired over the permutations both ran." if dagger else ""))


def _runs_phrase(t: Table) -> str:
    counts = sorted({int(n) for n in t.agg["n_runs"]}) if len(t.agg) else []
    return t.results.runs_phrase(counts)


def _notes(t: Table) -> list[str]:
    res = t.results
    if res.meta.get("mode") == "batch":
        notes = [_runs_phrase(t).capitalize() + "; accuracy is on the test set; time is training wall time in "
                 "seconds (for online learners: one pass over the training permutation); a deterministic learner "
                 "that ignores the order (LIBSVM) runs once."]
    else:
        notes = [_runs_phrase(t).capitalize() + "; time is learning-loop wall time in seconds."]
    marks = _marks_note(t)
    if marks:
        notes.append(marks)
    if res.scale is not None:
        notes.append(f"Scaled-down run: scale={res.scale:g} of each dataset; not comparable to the paper.")
    for ds, why in res.unavailable.items():
        notes.append(f"{ds}: {UNAVAILABLE} ({why}).")
    meta = res.meta
    prov = []
    if meta.get("command"):
        prov.append(f"command `{meta['command']}`")
    if meta.get("config"):
        prov.append(f"config `{meta['config']}`")
    ver = meta.get("olk_version")
    if ver:
        commit = meta.get("git_commit")
        prov.append(f"olk {ver}" + (f" (git {str(commit)[:12]})" if commit else ""))
    if meta.get("machine"):
        prov.append(f"machine {meta['machine']}")
    if meta.get("finished"):
        prov.append(f"finished {meta['finished']}")
    if prov:
        notes.append("Provenance: " + ", ".join(prov) + ".")
    return notes


# ----------------------------------------------------------------------------- Markdown
def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|")


def to_markdown(t: Table) -> str:
    """One pipe table per dataset block; headers read '<dataset>: <metric>'."""
    out = [f"# {_title(t.results)}", ""]
    heads = [t.results.layout.header(m) for m in t.metrics]
    for block in t.blocks:
        header = ["Algorithm"] + [f"{ds}: {h}" for ds in block for h in heads]
        out.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
        out.append("|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|")
        for row in t.rows:
            vals = [_md_escape(t.display(row))] + [_md_mark(_md_escape(t.cells[row, ds][m]), t.mark(row, ds, m))
                                                   for ds in block for m in t.metrics]
            out.append("| " + " | ".join(vals) + " |")
        out.append("")
    out += [n for note in _notes(t) for n in (note, "")]
    return "\n".join(out).rstrip() + "\n"


def _md_mark(text: str, mark: str) -> str:
    return f"**{text}**" if mark == "best" else f"{text}†" if mark == "worse" else text


# ----------------------------------------------------------------------------- CSV
CSV_COLUMNS = ["dataset", "algorithm", "display", "metric", "mean", "std", "n_runs", "setting", "status", "mark"]


def to_frame(t: Table) -> pd.DataFrame:
    """Tidy table: one row per (dataset, algorithm, metric) cell, including not-run cells."""
    by_key = {(r.dataset, r.algorithm, r.setting, r.metric): r for r in t.agg.itertuples(index=False)}
    recs = []
    for ds in [d for b in t.blocks for d in b]:
        for row in t.rows:
            for m in t.metrics:
                hit = by_key.get((ds, row[0], row[1], m))
                recs.append({"dataset": ds, "algorithm": row[0], "display": t.display(row), "metric": m,
                             "mean": hit.mean if hit else math.nan, "std": hit.std if hit else math.nan,
                             "n_runs": hit.n_runs if hit else 0, "setting": row[1],
                             "status": t.status[row, ds], "mark": t.mark(row, ds, m)})
    return pd.DataFrame.from_records(recs, columns=CSV_COLUMNS)


def to_csv(t: Table) -> str:
    return to_frame(t).to_csv(index=False, float_format="%.10g", lineterminator="\n")


# ----------------------------------------------------------------------------- LaTeX
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex_escape(s: str) -> str:
    """Escape LaTeX special characters in plain text."""
    return "".join(_TEX.get(c, c) for c in str(s))


def _tex_cell(s: str, mark: str = "") -> str:
    text = tex_escape(s).replace(f" {PM} ", r" $\pm$ ")
    return rf"\textbf{{{text}}}" if mark == "best" else rf"{text}$^\dagger$" if mark == "worse" else text


def to_latex(t: Table) -> str:
    """A booktabs ``table`` float: per block a \\multicolumn dataset header row, a \\cmidrule per
    dataset and a metric header row; a (row, dataset) group that did not run spans its columns."""
    k = len(t.metrics)
    per = max(len(b) for b in t.blocks) if t.blocks else 1
    ncols = 1 + per * k
    heads = " & ".join(tex_escape(t.results.layout.header(m)) for m in t.metrics)
    label = "tab:" + "".join(c if c.isalnum() else "-" for c in t.results.name)
    out = [
        f"% {_title(t.results)}",
        r"% generated by `olk table`; requires \usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{l" + "r" * (ncols - 1) + "}",
        r"\toprule",
    ]
    for bi, block in enumerate(t.blocks):
        if bi:
            out.append(r"\midrule")
        pad = " &" * ((per - len(block)) * k)
        out.append(" & " + " & ".join(rf"\multicolumn{{{k}}}{{c}}{{{tex_escape(ds)}}}" for ds in block)
                   + pad + r" \\")
        out.append("".join(rf"\cmidrule(lr){{{2 + j * k}-{1 + (j + 1) * k}}}" for j in range(len(block))))
        out.append("Algorithm & " + " & ".join([heads] * len(block)) + pad + r" \\")
        out.append(r"\midrule")
        for row in t.rows:
            parts = [tex_escape(t.display(row))]
            for ds in block:
                cell = t.cells[row, ds]
                if t.status[row, ds] != "ok" and k > 1:
                    parts.append(rf"\multicolumn{{{k}}}{{c}}{{{tex_escape(cell[t.metrics[0]])}}}")
                else:
                    parts += [_tex_cell(cell[m], t.mark(row, ds, m)) for m in t.metrics]
            out.append(" & ".join(parts) + pad + r" \\")
    caption = tex_escape(_runs_phrase(t)).replace(PM, r"$\pm$")
    marks = _marks_note(t)
    if marks:
        caption += ". " + tex_escape(marks).replace("†", r"$^\dagger$").rstrip(".")
    out += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{tex_escape(_title(t.results))}: {caption}.}}",
            rf"\label{{{label}}}", r"\end{table}"]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- API
_RENDER = {"md": to_markdown, "csv": to_csv, "latex": to_latex}
_ALIASES = {"markdown": "md", "tex": "latex"}


def render_table(results_dir: str | Path | Results, fmt: str = "md") -> str:
    """The paper-style table of ``results_dir`` as a string in ``fmt`` ('md', 'csv' or 'latex')."""
    fmt = _ALIASES.get(fmt, fmt)
    if fmt not in _RENDER:
        raise OlkError(f"unknown table format '{fmt}'{did_you_mean(fmt, FORMATS)}; use md, csv or latex")
    return _RENDER[fmt](build_table(results_dir))


def write_tables(results_dir: str | Path | Results) -> list[Path]:
    """Write ``table.md``, ``table.csv`` and ``table.tex`` into the results directory; return the paths."""
    t = build_table(results_dir)
    written = []
    for fmt, name in FILES.items():
        path = t.results.path / name
        atomic_write_text(path, _RENDER[fmt](t))        # the old table stays whole if the write fails
        written.append(path)
    return written
