"""``olk report``: one reproduction report over every results directory, ``results/REPRODUCTION.md``.

A thin facade over the report's modules, one per responsibility:

* :mod:`olk.report.catalogue`: the papers and what each published table holds (headings);
* :mod:`olk.report.discovery`: the results directories and configs found under ``results/`` and ``configs/``;
* :mod:`olk.report.markdown`: the Markdown, one section per published table (:func:`render_report`);
* :mod:`olk.report.html`: the same Markdown as one self-contained HTML page (:func:`markdown_to_html`).

:func:`build_report` writes ``REPRODUCTION.md`` (and ``REPRODUCTION.html``).  The output holds no timestamp,
so re-running on unchanged results gives identical files.
"""
from __future__ import annotations

from pathlib import Path

from olk.errors import OlkError
from olk.fileio import atomic_write_text
from olk.report.catalogue import PAPERS, TABLE_CAPTIONS
from olk.report.discovery import ConfigInfo, Entry, find_configs, find_results
from olk.report.html import markdown_to_html
from olk.report.markdown import GENERATED, md_escape, render_report

__all__ = ["GENERATED", "PAPERS", "TABLE_CAPTIONS", "ConfigInfo", "Entry", "build_report", "find_configs",
           "find_results", "markdown_to_html", "md_escape", "render_report"]


def build_report(results_root: str | Path | None = None, out: str | Path | None = None, html: bool = True,
                 *, include_quick: bool = False, configs_dir: str | Path | None = None,
                 published: str | Path | None = None) -> list[Path]:
    """Write ``REPRODUCTION.md`` (and ``REPRODUCTION.html``); return the files written.

    ``results_root`` defaults to ``<project>/results``, ``out`` to ``<results_root>/REPRODUCTION.md``;
    the HTML goes next to ``out``.  ``configs_dir`` (default ``<project>/configs``) is searched for the
    config of each table not yet run; ``published`` (default ``results/paper``) holds the published
    CSVs.  Figures missing from a results directory are drawn into its ``figures/`` and also returned.
    """
    from olk.paths import project_dir

    project = project_dir()
    root = Path(results_root) if results_root is not None else project / "results"
    if not root.is_dir():
        raise OlkError(f"results root '{root}' is not a directory; pass --results DIR "
                       "(the directory holding one sub-directory per experiment)")
    out_md = Path(out) if out is not None else root / "REPRODUCTION.md"
    if out_md.is_dir():
        raise OlkError(f"--out '{out_md}' is a directory; pass a file name such as REPRODUCTION.md")
    cfg_dir = Path(configs_dir) if configs_dir is not None else project / "configs"
    text, figures = render_report(root, out_md.parent.resolve(), include_quick, cfg_dir,
                                  Path(published) if published is not None else None, project)
    out_md.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out_md, text)
    written = [out_md]
    if html:
        out_html = out_md.with_suffix(".html")
        atomic_write_text(out_html, markdown_to_html(text, base_dir=out_md.parent, title="olk reproduction report"))
        written.append(out_html)
    return written + figures
