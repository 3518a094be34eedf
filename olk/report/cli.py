"""Click commands of the reporting layer: ``olk table``, ``olk compare``, ``olk plot``, ``olk report``, ``olk stats``.

The main ``olk`` group mounts them with :func:`register` (or by adding :data:`COMMANDS`).  Every
user-input problem arrives as :class:`olk.errors.OlkError` and leaves as a one-line
``click.ClickException``.
"""
from __future__ import annotations

import click

from olk.errors import OlkError
from olk.fileio import atomic_write_text
from olk.paths import cli_path
from olk.report.results import load_results

PLOT_KINDS = ("curves", "time", "sensitivity", "sweep", "test", "tradeoff", "kernels", "all")


def _fail(e: Exception) -> click.ClickException:
    if isinstance(e, OSError):
        return click.ClickException(" ".join(f"cannot write {e.filename or ''}: {e.strerror or e}".split()))
    return click.ClickException(str(e))


def _write(out: str, text: str) -> None:
    atomic_write_text(out, text)
    click.echo(f"wrote {out}", err=True)


@click.command("table")
@click.argument("results_dir", type=cli_path())
@click.option("--format", "fmt", type=click.Choice(["md", "csv", "latex"]), default="md", show_default=True,
              help="Format printed to stdout (and written to --out).")
@click.option("--out", type=cli_path(dir_okay=False), help="Also write the printed table to this file.")
def table_cmd(results_dir: str, fmt: str, out: str | None) -> None:
    """Paper-style mean ± std table of RESULTS_DIR.

    Prints the table and writes table.md, table.csv and table.tex into RESULTS_DIR.
    """
    from olk.report.tables import render_table, write_tables

    try:
        res = load_results(results_dir)
        written = write_tables(res)
        text = render_table(res, fmt)
        if out:
            _write(out, text)
    except (OlkError, OSError) as e:
        raise _fail(e) from None
    click.echo(text, nl=False)
    click.echo("wrote " + ", ".join(str(p) for p in written), err=True)


@click.command("compare")
@click.argument("results_dir", type=cli_path())
@click.option("--tol", "tols", multiple=True, metavar="METRIC=VALUE",
              help="Tolerance override, repeatable: accuracy=1.0 (points), n_sv=10%, time=50%, time=none.")
@click.option("--paper", help="Published paper id (default: experiment.json 'paper').")
@click.option("--table", "table_id", help="Published table number (default: experiment.json 'table').")
@click.option("--published", type=cli_path(dir_okay=False),
              help="Published-values CSV to use instead of results/paper/.")
@click.option("--out", type=cli_path(dir_okay=False),
              help="Also write the comparison here (.csv -> tidy CSV, otherwise Markdown).")
@click.option("--strict", is_flag=True, help="Exit with status 1 if any cell is 'off'.")
def compare_cmd(results_dir: str, tols: tuple[str, ...], paper: str | None, table_id: str | None,
                    published: str | None, out: str | None, strict: bool) -> None:
    """Compare RESULTS_DIR with the published table it reproduces.

    Prints ours | paper | diff | verdict per cell plus Kendall-tau ranking agreement, and writes
    compare.md, compare.csv and compare_ranking.csv into RESULTS_DIR.
    """
    from olk.report.compare import compare

    try:
        c = compare(results_dir, list(tols), paper=paper, table=table_id, published=published)
        written = c.write()
        text = c.to_markdown()
        if out:
            _write(out, c.to_csv() if out.lower().endswith(".csv") else text)
    except (OlkError, OSError) as e:
        raise _fail(e) from None
    click.echo(text, nl=False)
    click.echo("wrote " + ", ".join(str(p) for p in written), err=True)
    n_off = c.summary().get("off", 0)
    if strict and n_off:
        raise click.ClickException(f"{n_off} cell(s) are off the published values (see {written[0]})")


@click.command("plot")
@click.argument("results_dir", type=cli_path())
@click.option("--kind", type=click.Choice(PLOT_KINDS), default="all", show_default=True,
              help="curves: mistake rate vs #examples; time: accuracy vs time (SPA Fig. 1); "
                   "sensitivity: metrics vs a parameter (SPA Fig. 2); sweep: one figure per swept parameter (--x "
                   "for one), every learner that sweeps it a line; test: held-out accuracy during training "
                   "vs --x t|n_sv|train_time_s (KLR Figs. 1-3, 5); tradeoff: sparsity and relative accuracy vs "
                   "--x PARAM - 1 (KLR Fig. 4); kernels: LIBSVM's test accuracy on every kernel with the kernels "
                   "each method of --selections DIR selected (OKS Figs. 1-2); all: whichever apply.")
@click.option("--x", "x_param", default=None, help="Sensitivity / tradeoff: parameter on the x axis (e.g. alpha, "
              "gamma); test: t, n_sv or train_time_s.")
@click.option("--series", default=None, help="Sensitivity: parameter giving one line per value (e.g. beta).")
@click.option("--selections", type=cli_path(file_okay=False), default=None,
              help="Kernels: a results directory whose runs record selected_kernel (default RESULTS_DIR).")
@click.option("--out-dir", type=cli_path(file_okay=False), default=None,
              help="Directory for the figures (default RESULTS_DIR/figures).")
def plot_cmd(results_dir: str, kind: str, x_param: str | None, series: str | None, selections: str | None,
                 out_dir: str | None) -> None:
    """Figures of RESULTS_DIR as PNG and PDF (default into RESULTS_DIR/figures/)."""
    from olk.report import plots

    try:
        res = load_results(results_dir)
        if kind == "curves":
            files = plots.plot_learning_curves(res, out_dir=out_dir)
        elif kind == "time":
            files = plots.plot_accuracy_vs_time(res, out_dir=out_dir)
        elif kind == "test":
            files = plots.plot_test_curves(res, x=x_param or "t", out_dir=out_dir)
        elif kind == "tradeoff":
            files = plots.plot_sparsity_tradeoff(res, param=x_param or "gamma", out_dir=out_dir)
        elif kind == "sweep":
            files = plots.plot_sweep(res, param=x_param, out_dir=out_dir)
        elif kind == "kernels":
            files = plots.plot_kernel_selection(res, selections=selections, out_dir=out_dir)
        elif kind == "sensitivity":
            if x_param is None:
                varying = plots.varying_params(res)
                if not varying:
                    raise OlkError(f"no parameter varies within an algorithm in {res.path / 'runs.csv'}; "
                                   "pass --x PARAM or run a parameter sweep")
                keys = next(iter(varying.values()))
                x_param, series = keys[0], series or (keys[1] if len(keys) > 1 else None)
            files = plots.plot_param_sensitivity(res, x=x_param, series=series, out_dir=out_dir)
        else:
            files = plots.plot_all(res, out_dir=out_dir)
    except (OlkError, OSError) as e:
        raise _fail(e) from None
    if not files:
        click.echo("no figure applies (no curves.csv data and no parameter sweep)", err=True)
    for f in files:
        click.echo(str(f))


@click.command("report")
@click.option("--results", "results_root", type=cli_path(file_okay=False), default=None,
              help="Results root holding one directory per experiment (default: <project>/results).")
@click.option("--out", type=cli_path(dir_okay=False), default=None,
              help="Markdown file to write (default: <results>/REPRODUCTION.md); the HTML goes next to it.")
@click.option("--no-html", is_flag=True, help="Write only the Markdown, not REPRODUCTION.html.")
@click.option("--include-quick", is_flag=True,
              help="Also present quick runs (scale < 1, *_sweep) in the table sections, marked as such.")
def report_cmd(results_root: str | None, out: str | None, no_html: bool, include_quick: bool) -> None:
    """Reproduction report over every results directory: results/REPRODUCTION.md (+ .html).

    One section per published table: ours vs paper per cell, ranking agreement, figures, command and
    provenance, or 'not yet run' with the config that produces it.  Hand-written explanations come
    from results/notes/*.md.  Prints the files written.
    """
    from olk.report.report import build_report

    try:
        written = build_report(results_root, out, html=not no_html, include_quick=include_quick)
    except (OlkError, OSError) as e:
        raise _fail(e) from None
    for f in written:
        click.echo(str(f))


@click.command("stats")
@click.argument("results_dir")
@click.option("--metric", default=None, help="The metric compared (default: accuracy; test_accuracy in batch mode; "
              "mse for regression).")
@click.option("--baseline", default=None, metavar="LABEL",
              help="Compare every learner with this one (default: with the best mean on each dataset).")
@click.option("--blocks", type=click.Choice(["dataset", "run"]), default="dataset", show_default=True,
              help="Friedman / Nemenyi blocks: each dataset (a learner's mean over its permutations; Demšar 2006) "
                   "or each (dataset, permutation).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Significance level.")
@click.option("--no-figure", is_flag=True, help="Do not draw the critical-difference diagram.")
def stats_cmd(results_dir: str, metric: str | None, baseline: str | None, blocks: str, alpha: float,
              no_figure: bool) -> None:
    """Is a difference significant? Paired tests per dataset and ranks across datasets for RESULTS_DIR.

    Per dataset, each learner against --baseline (or the best mean) over the permutations both ran: mean difference,
    two-sided Wilcoxon signed-rank (exact) and paired t-test p-values, Holm-corrected.  Across datasets: the
    Friedman test, Nemenyi's critical difference and a critical-difference diagram (figures/cd_METRIC.png/.pdf).
    Writes stats.md and stats.csv into RESULTS_DIR and prints stats.md; a warning line when too few
    permutations make significance impossible."""
    from olk.report.stats import report

    try:
        text, pt, _, files = report(results_dir, metric, baseline, blocks, alpha, figures=not no_figure)
        res = load_results(results_dir)
        _write(str(res.path / "stats.md"), text)
        _write(str(res.path / "stats.csv"), pt.frame().to_csv(index=False, float_format="%.10g",
                                                               lineterminator="\n"))
    except (OlkError, OSError) as e:
        raise _fail(e) from None
    click.echo(text, nl=False)
    for w in pt.warnings:
        click.echo(f"olk: warning: {w}", err=True)
    for f in files:
        click.echo(f"wrote {f}", err=True)


COMMANDS = (table_cmd, compare_cmd, plot_cmd, report_cmd, stats_cmd)


def register(group: click.Group) -> None:
    """Add ``table``, ``compare``, ``plot`` and ``report`` to the ``olk`` click group."""
    for cmd in COMMANDS:
        group.add_command(cmd)
