"""``olk report``: one reproduction report over every results directory, ``results/REPRODUCTION.md``.

:func:`build_report` walks ``results/`` for directories written by ``olk run`` (``runs.csv`` +
``experiment.json``) and writes one section per published table (:func:`olk.report.paper.list_tables`):

* a table no results directory reproduces says **not yet run** and names the config(s) in
  ``configs/`` whose ``paper:``/``table:`` keys select it;
* a table with results shows, per results directory: provenance (config, exact command, machine,
  olk version, git commit, dates, datasets that were unavailable), the verdict counts, the side-by-side
  comparison (ours mean ± std | paper | diff | verdict per dataset and algorithm, from
  :func:`olk.report.compare.compare`), the ranking agreement (Kendall tau per dataset) and the figures
  (drawn with :func:`olk.report.plots.plot_all` when ``figures/`` holds no PNG yet);
* dataset-summary tables (SPA Tables 1 and 4, KLR Table 1) are shown as a short note with the
  printed sizes.

Quick runs (experiment.json ``scale`` < 1, or a name ending in ``_sweep``) are not reproductions: they
are listed under "Other results" unless ``include_quick=True``.  Directories naming no published table,
directories that cannot be read and runs still in progress (experiment.json but no runs.csv) are
listed there too.

Hand-written text never goes into the generated file: ``results/notes/overview.md`` is copied
verbatim at the top and ``results/notes/<paper>_table<N>.md`` verbatim under each table's
"Known deviations and why" heading.

With ``html=True`` the same Markdown is converted with Python-Markdown (``markdown``: pipe tables,
fenced code, heading ids) to a self-contained ``REPRODUCTION.html`` with the figures embedded as base64
PNG.  The output holds no timestamp, so re-running on unchanged results gives identical files.
"""
from __future__ import annotations

import base64
import html as _html
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import markdown
import pandas as pd
from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from olk.fileio import atomic_write_text
from olk.errors import OlkError
from olk.report.compare import Comparison, cell_texts, compare, unit_suffix
from olk.report.results import METRICS, Results, load_results

#: Published papers: id -> short name, full title, authors, venue, short citation.  One dict, used for every heading.
PAPERS: dict[str, dict[str, str]] = {
    "spa_tist2018": {
        "short": "SPA (TIST 2018)",
        "title": "Sparse Passive-Aggressive Learning for Bounded Online Kernel Methods",
        "authors": "Jing Lu, Doyen Sahoo, Peilin Zhao, Steven C. H. Hoi",
        "venue": "ACM Transactions on Intelligent Systems and Technology (TIST), 2018",
        "cite": "Lu et al., ACM TIST 2018",
    },
    "klr_aaai2012": {
        "short": "Sparse online KLR (AAAI 2012)",
        "title": "Efficient Online Learning for Large-Scale Sparse Kernel Logistic Regression",
        "authors": "Lijun Zhang, Rong Jin, Chun Chen, Jiajun Bu, Xiaofei He",
        "venue": "AAAI 2012",
        "cite": "Zhang et al., AAAI 2012",
    },
    "oks_aaai2012": {
        "short": "Online kernel selection (AAAI 2012)",
        "title": "Online Kernel Selection: Algorithms and Evaluations",
        "authors": "Tianbao Yang, Mehrdad Mahdavi, Rong Jin, Jinfeng Yi, Steven C. H. Hoi",
        "venue": "AAAI 2012",
        "cite": "Yang et al., AAAI 2012",
    },
    "amkl": {
        "short": "AMKL",
        "title": "Active Learning with Multiple Kernels",
        "authors": "Songnam Hong, Jeongmin Chae",
        "venue": "arXiv:2005.03188",
        "cite": "Hong & Chae, arXiv 2020",
    },
    "omkl_alt2010": {
        "short": "OMKL (ALT 2010)",
        "title": "Online Multiple Kernel Learning: Algorithms and Mistake Bounds",
        "authors": "Rong Jin, Steven C. H. Hoi, Tianbao Yang",
        "venue": "ALT 2010",
        "cite": "Jin et al., ALT 2010",
    },
}

#: What each published table holds (results/paper/README.md).
TABLE_CAPTIONS: dict[tuple[str, str], str] = {
    ("spa_tist2018", "1"): "single-kernel datasets",
    ("spa_tist2018", "2"): "online single-kernel classification: accuracy, time and #SVs",
    ("spa_tist2018", "3"): "final classifiers on test data: test accuracy, training time and #SVs",
    ("spa_tist2018", "4"): "OMKC datasets",
    ("spa_tist2018", "5"): "bounded OMKC (SPA) vs unbounded OMKC: mistake rate, #SVs and time",
    ("spa_tist2018", "6"): "bounded OMKC with different budget algorithms",
    ("klr_aaai2012", "1"): "data statistics",
    ("klr_aaai2012", "2"): "Auxiliary vs Pegasos on rcv1.binary: accuracy, sparsity, #SVs, time",
    ("oks_aaai2012", "1"): "kernel selection on Pascal07: accuracy, running time, selected kernel",
    ("oks_aaai2012", "2"): "kernel selection on Corel5k: accuracy, running time, selected kernel",
    ("amkl", "II"): "MSE of single- and multiple-kernel baselines (and AMKL-AKS efficiency)",
    ("amkl", "III"): "MSE and efficiency of Raker, AMKL, OMKL-AKS and AMKL-AKS",
}

GENERATED = ("<!-- Generated by `olk report` from results/*/ and results/paper/. Do not edit by hand: "
             "write explanations in results/notes/*.md and re-run `olk report`. -->")
NOTES_DIR = "notes"
SKIP_DIRS = {"paper", NOTES_DIR, "figures"}
METRIC_ORDER = ("accuracy", "mistake_rate", "mse", "n_sv", "time")
SHORT_VERDICT = {"within paper std": "within paper std", "within tolerance": "within tolerance",
                 "off": "**off**", "n/a": "n/a", "no paper value": "no paper value", "not run": "not run"}


# ----------------------------------------------------------------------------- discovery
@dataclass
class Entry:
    """One results directory found under the results root."""

    path: Path
    meta: dict[str, Any]
    kind: str  # 'reproduction' | 'quick' | 'in_progress' | 'unmatched' | 'broken'
    reason: str = ""
    results: Results | None = None

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or self.path.name)

    @property
    def key(self) -> tuple[str, str] | None:
        paper, table = self.meta.get("paper"), self.meta.get("table")
        if not paper or table is None or str(table).strip() == "":
            return None
        return str(paper), str(table).strip()


def _scale(meta: dict[str, Any], res: Results | None) -> float | None:
    s = meta.get("scale")
    try:
        s = float(s) if s is not None and not isinstance(s, bool) else None
    except (TypeError, ValueError):
        s = None
    if (s is None or s >= 1) and res is not None and res.scale is not None:
        s = res.scale
    return s if s is not None and s < 1 else None


def _quick_reason(entry_name: str, dir_name: str, meta: dict[str, Any], res: Results | None) -> str:
    s = _scale(meta, res)
    if s is not None:
        return f"scaled-down run (scale {s:g})"
    if entry_name.endswith("_sweep") or dir_name.endswith("_sweep"):
        return "parameter sweep"
    return ""


def find_results(results_root: Path, tables: set[tuple[str, str]], include_quick: bool = False
                 ) -> list[Entry]:
    """Every directory under ``results_root`` holding experiment.json, classified (see :class:`Entry`)."""
    out = []
    for exp in sorted(results_root.rglob("experiment.json")):
        d = exp.parent
        rel = d.relative_to(results_root).parts
        if not rel or rel[0] in SKIP_DIRS or any(p.startswith(".") for p in rel) or "figures" in rel:
            continue
        try:
            meta = json.loads(exp.read_text(encoding="utf-8"))
            if not isinstance(meta, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as e:
            out.append(Entry(d, {}, "broken", f"experiment.json unreadable ({' '.join(str(e).split())})"))
            continue
        if not (d / "runs.csv").is_file():
            status = meta.get("status") or "no status"
            out.append(Entry(d, meta, "in_progress", f"no runs.csv yet (status: {status}, "
                                                     f"started {meta.get('started') or '?'})"))
            continue
        try:
            res = load_results(d)
        except OlkError as e:
            out.append(Entry(d, meta, "broken", f"cannot be read: {e}"))
            continue
        e = Entry(d, res.meta, "reproduction", results=res)
        quick = _quick_reason(e.name, d.name, res.meta, res)
        if e.key is None:
            e.kind, e.reason = "unmatched", "experiment.json names no published table ('paper', 'table')"
        elif e.key not in tables:
            e.kind, e.reason = "unmatched", f"no published table {e.key[0]} Table {e.key[1]} in results/paper/"
        elif quick:
            e.reason = f"{quick}: not a reproduction"
            if not include_quick:
                e.kind = "quick"
        out.append(e)
    return out


# ----------------------------------------------------------------------------- configs
@dataclass
class ConfigInfo:
    path: Path
    paper: str
    table: str
    note: str = ""


def find_configs(configs_dir: Path | None) -> list[ConfigInfo]:
    """Configs in ``configs_dir`` (recursively) with ``paper:`` and ``table:`` keys; full-scale first."""
    if configs_dir is None or not configs_dir.is_dir():
        return []
    import yaml
    from .._lazy import yaml_load

    out = []
    for f in sorted(list(configs_dir.rglob("*.yaml")) + list(configs_dir.rglob("*.yml"))):
        try:
            cfg = yaml_load(f.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        if not isinstance(cfg, dict) or not cfg.get("paper") or cfg.get("table") is None:
            continue
        notes = []
        try:
            if cfg.get("scale") is not None and float(cfg["scale"]) < 1:
                notes.append(f"scale {float(cfg['scale']):g}: quick run, not a reproduction")
        except (TypeError, ValueError):
            pass
        cmp = cfg.get("compare")
        if isinstance(cmp, dict) and cmp.get("datasets"):
            notes.append("runs on substitute datasets: a protocol check, not a reproduction")
        out.append(ConfigInfo(f, str(cfg["paper"]), str(cfg["table"]).strip(), "; ".join(notes)))
    return sorted(out, key=lambda c: (bool(c.note), str(c.path)))


# ----------------------------------------------------------------------------- Markdown helpers
def md_escape(s: Any) -> str:
    """Text safe inside Markdown prose and pipe tables."""
    return re.sub(r"([\\`*\[\]|<])", r"\\\1", str(s))


def _code(s: Any) -> str:
    s = str(s)
    tick = "``" if "`" in s else "`"
    return f"{tick}{s}{tick}" if tick == "`" else f"`` {s} ``"


def _anchor(paper: str, table: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{paper}-table{table}".lower()).strip("-")


def _link_path(target: Path, base: Path) -> str:
    return quote(os.path.relpath(target, base).replace(os.sep, "/"), safe="/._-~")


def _shown(p: Path, root: Path | None) -> str:
    """``p`` relative to the project root when inside it."""
    if root is not None:
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return str(p)


def _table_md(header: list[str], rows: list[list[str]], align: list[str]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


# ----------------------------------------------------------------------------- one results directory
@dataclass
class _Ctx:
    results_root: Path
    out_dir: Path
    project: Path | None
    published: Path | None
    written: list[Path] = field(default_factory=list)


def _paper_metrics(cells: pd.DataFrame) -> list[str]:
    have = list(dict.fromkeys(cells["metric"]))
    return [m for m in METRIC_ORDER if m in have] + [m for m in have if m not in METRIC_ORDER]


def _metric_head(cells: pd.DataFrame, metric: str) -> str:
    hit = cells[cells["metric"] == metric]
    if not len(hit):
        return metric
    om, unit = hit["our_metric"].iloc[0], hit["unit"].iloc[0]
    return (METRICS[om][0] if om in METRICS else metric) + unit_suffix(unit)


def _comparison_md(c: Comparison, ctx: _Ctx) -> list[str]:
    res = c.results
    sv = res.layout.sv_format
    shown = c.cells[c.cells["in_experiment"]]
    extra = c.cells[~c.cells["in_experiment"]]
    out: list[str] = []
    for ds in dict.fromkeys(shown["dataset"]):
        d = shown[shown["dataset"] == ds]
        title = f"{ds} (paper: {c.aliases[ds]})" if ds in c.aliases else ds
        unavailable = ds in res.unavailable
        if unavailable:     # the paper's numbers, with ours 'not run: data unavailable' (why: under Runs above)
            title += " — not run: data unavailable"
        metrics = _paper_metrics(d)
        header = ["Algorithm"]
        for m in metrics:
            h = md_escape(_metric_head(d, m))
            header += [f"{h}: ours", "paper", "diff", "verdict"]
        align = [":---"] + [a for _ in metrics for a in ("---:", "---:", "---:", ":---")]
        rows = []
        for key in dict.fromkeys(d["row"]):
            g = d[d["row"] == key]
            disp = g["display"].iloc[0]
            labels = [pl for pl in dict.fromkeys(g["paper_label"]) if pl and pl != disp]
            name = md_escape(disp) + "".join(f" \\[{md_escape(pl)}\\]" for pl in labels)
            row = [name]
            for m in metrics:
                hit = g[g["metric"] == m]
                if hit.empty:
                    row += ["", "", "", ""]
                    continue
                r = next(hit.itertuples(index=False))
                ours, paper, diff = cell_texts(c, r, sv)
                verdict = "not run: data unavailable" if unavailable and r.verdict == "not run" else \
                    SHORT_VERDICT.get(r.verdict, r.verdict)
                row += [ours, paper, diff, verdict]
            rows.append(row)
        out += [f"#### {md_escape(title)}", ""] + _table_md(header, rows, align) + [""]
        skipped = list(dict.fromkeys(extra.loc[extra["dataset"] == ds, "display"]))
        if skipped:
            out += [f"Also in the paper, not run here: {', '.join(md_escape(s) for s in skipped)}.", ""]
    other = [d for d in dict.fromkeys(extra["dataset"]) if d not in set(shown["dataset"])]
    if other:
        out += [f"Paper datasets not in this experiment: {', '.join(md_escape(d) for d in other)}.", ""]
    return out


def _ranking_md(c: Comparison) -> list[str]:
    if not len(c.ranking):
        return []
    out = ["#### Ranking agreement", "",
           "Kendall tau between our and the paper's values of the headline metric over the algorithms "
           "both report (1 = same order; undefined with one algorithm).", ""]
    rows = []
    for r in c.ranking.itertuples(index=False):
        tau = "" if math.isnan(r.tau) else f"{r.tau:.2f}"
        pv = "" if math.isnan(r.p_value) else f"{r.p_value:.3g}"
        rows.append([md_escape(r.dataset), md_escape(r.metric), str(r.n_algorithms), tau, pv,
                     md_escape(r.ours_order), md_escape(r.paper_order)])
    out += _table_md(["Dataset", "Metric", "#Alg.", "Kendall tau", "p-value", "Ours (best first)",
                      "Paper (best first)"], rows, [":---", ":---", "---:", "---:", "---:", ":---", ":---"])
    return out + [""]


def _kernel_weights_md(res: Results) -> list[str]:
    """"Which kernels won": the top kernels by mean final combination weight, per dataset and algorithm, from
    the runs' recorded ``kernel_weights`` (multi-kernel learners only; nothing when no run recorded any)."""
    from olk.report.kernel_weights import kernel_weights_summary

    main = res.main
    if "kernel_weights" not in main.columns:
        return []
    order = {d: i for i, d in enumerate(res.datasets)}
    s = kernel_weights_summary(main, top=3)
    if not len(s):
        return []
    s = s.assign(_o=s["dataset"].map(lambda d: order.get(d, len(order)))).sort_values("_o", kind="stable")
    moving, fixed = s[~s["uniform"]], s[s["uniform"]]
    out = ["#### Which kernels won (final combination weights)", "",
           "The three kernels with the largest mean final weight theta_i, per dataset and algorithm "
           "(mean ± sample std over the runs that recorded weights; the weights sum to 1 in each run).", ""]
    rows = []
    for r in moving.itertuples(index=False):
        cells = [f"{md_escape(n)}: {m:.2f}" + ("" if math.isnan(sd) else f" ± {sd:.2f}") for n, m, sd, _ in r.top]
        cells += [""] * (3 - len(cells))
        runs = f"{r.n_weights}/{r.n_runs}"
        rows.append([md_escape(r.dataset), md_escape(r.display), runs] + cells)
    if rows:
        out += _table_md(["Dataset", "Algorithm", "Runs with weights", "1st", "2nd", "3rd"], rows,
                         [":---", ":---", "---:", ":---", ":---", ":---"])
        out.append("")
    missing = []
    for (ds, label), g in main.groupby(["dataset", "label"], sort=False):
        n_w = int(g["kernel_weights"].map(lambda v: isinstance(v, str) and v.strip().startswith("[")).sum())
        if 0 < n_w < len(g) or (n_w == 0 and label in set(s["label"])):
            missing.append(f"{md_escape(ds)} {md_escape(g['display'].iloc[0])} ({len(g) - n_w} of {len(g)})")
    if missing:
        out += ["Runs without recorded weights (not in the means): " + "; ".join(missing) + ".", ""]
    if len(fixed):
        names = sorted(set(md_escape(d) for d in fixed["display"]))
        out += [f"Weights that stay uniform (not learned): {', '.join(names)}.", ""]
    return out


def _figures_md(res: Results, ctx: _Ctx) -> list[str]:
    from olk.report import plots

    fig_dir = res.path / plots.FIG_DIR
    pngs = sorted(fig_dir.glob("*.png")) if fig_dir.is_dir() else []
    problem = ""
    if not pngs:
        try:
            new = plots.plot_all(res)
        except (OlkError, OSError, ValueError) as e:
            new, problem = [], f"figures could not be drawn: {' '.join(str(e).split())}"
        ctx.written += new
        pngs = sorted(p for p in new if p.suffix == ".png")
    out = ["#### Figures", ""]
    if not pngs:
        out += [md_escape(problem) if problem else
                "No figure applies (no learning curves in curves.csv and no parameter sweep).", ""]
        return out
    for p in pngs:
        out += [f"![{md_escape(p.stem)}]({_link_path(p, ctx.out_dir)})", ""]
    return out


def _provenance_md(e: Entry, ctx: _Ctx) -> list[str]:
    res, meta = e.results, e.meta
    main = res.main
    perms = main["perm"].dropna().nunique()
    items = []
    cfg = meta.get("config")
    items.append(f"**Config:** {_code(cfg) if cfg else 'not recorded'}")
    items.append(f"**Machine:** {md_escape(meta.get('machine') or 'not recorded')}")
    items.append(f"**olk version:** {md_escape(meta.get('olk_version') or 'not recorded')}; "
                 f"**git commit:** {_code(meta['git_commit']) if meta.get('git_commit') else 'not recorded'}")
    items.append(f"**Started:** {md_escape(meta.get('started') or '?')}; "
                 f"**finished:** {md_escape(meta.get('finished') or 'not finished')}")
    runs = f"{len(main)} main-phase runs"
    if perms and res.shuffled:
        runs += f" ({perms} permutation{'s' if perms != 1 else ''} per cell)"
    elif perms:
        per = main.groupby(["dataset", "label", "setting"]).size()
        runs += (f" (file order, no permutation: {per.max()} seed{'s' if per.max() != 1 else ''} per cell for a "
                 f"learner with random draws, {per.min()} run for a deterministic one)" if per.min() != per.max()
                 else f" (file order, no permutation: {per.max()} run{'s' if per.max() != 1 else ''} per cell, one "
                      f"per seed)")
    if meta.get("repeats") is not None:
        runs += f"; repeats {md_escape(meta['repeats'])}"
    if meta.get("seed") is not None:
        runs += f"; seed {md_escape(meta['seed'])}"
    s = _scale(meta, res)
    runs += f"; scale {s:g}" if s is not None else "; full data (scale 1)"
    items.append(f"**Runs:** {runs}")
    if res.unavailable:
        items.append("**Not run: data unavailable:** " + "; ".join(
            f"{md_escape(d)} ({md_escape(why)})" for d, why in res.unavailable.items()))
    out = [f"- {i}" for i in items] + [""]
    if meta.get("command"):
        out += ["Command:", "", "```sh", str(meta["command"]), "```", ""]
    else:
        out += ["Command: not recorded in experiment.json.", ""]
    return out


def _caveats(e: Entry, c: Comparison | None) -> tuple[list[str], list[str]]:
    """Warning block lines and short tags (for the status table) of one results directory."""
    out, tags = [], []
    if e.reason:
        out.append(f"**Quick run:** {md_escape(e.reason)}; differences from the paper are expected.")
        tags.append("quick run")
    if c is not None and c.aliases:
        subs = ", ".join(f"{md_escape(k)} → {md_escape(v)}" for k, v in c.aliases.items())
        out.append(f"**Substitute data:** ran on {subs} (ours → paper's dataset) and compared with the "
                   "paper's full-data numbers: a protocol check, not a reproduction of them.")
        tags.append("substitute data")
    status = e.meta.get("status")
    if (status and status != "finished") or (e.meta.get("started") and not e.meta.get("finished")):
        out.append(f"**Unfinished:** experiment.json status is '{md_escape(status or 'unknown')}' "
                   f"(finished: {md_escape(e.meta.get('finished') or 'not recorded')}); the numbers may be partial.")
        tags.append("unfinished")
    return [f"> {x}" for x in out] + ([""] if out else []), tags


def _entry_md(e: Entry, ctx: _Ctx, pub: pd.DataFrame) -> tuple[list[str], dict[str, int] | None, list[str]]:
    res = e.results
    link = _link_path(e.path, ctx.out_dir)
    out = [f"### Results: {md_escape(e.name)} ([{md_escape(_shown(e.path, ctx.project))}/]({link}/))", ""]
    c = None
    problem = ""
    try:
        c = compare(res, published=pub)
    except (OlkError, ValueError, KeyError) as err:
        problem = " ".join(str(err).split())
    warn, tags = _caveats(e, c)
    out += warn
    out += _provenance_md(e, ctx)
    summary = None
    if c is None:
        out += [f"The comparison could not be made: {md_escape(problem)}", ""]
    else:
        summary = c.summary()
        n = sum(summary.values())
        counts = ", ".join(f"{n_cells} {verdict}" for verdict, n_cells in summary.items())
        out += [f"**Verdicts** ({n} cells of this experiment's datasets and algorithms): "
                f"{md_escape(counts) if counts else 'no cells'}.", ""]
        tols = "; ".join(_describe_tol(m, t) for m, t in c.tolerances.items())
        out += [f"Tolerances: {md_escape(tols)}. 'within paper std': |ours − paper| ≤ the paper's std; "
                "'within tolerance': |ours − paper| ≤ tolerance; otherwise **off**. "
                "Ours: mean ± sample std over our runs.", ""]
        out += _comparison_md(c, ctx)
        out += _ranking_md(c)
    out += _kernel_weights_md(res)
    out += _figures_md(res, ctx)
    return out, summary, tags


def _describe_tol(metric: str, tol: tuple[str, float | None]) -> str:
    kind, val = tol
    if val is None:
        return f"{metric} not judged"
    if kind == "rel":
        return f"{metric} ±{val * 100:g}%"
    return f"{metric} ±{val:g}" + (" points" if metric in ("accuracy", "mistake_rate") else "")


# ----------------------------------------------------------------------------- one published table
def _is_summary_table(pub: pd.DataFrame) -> bool:
    return bool(len(pub)) and bool((pub["algorithm"] == "-").all())


def _summary_table_md(pub: pd.DataFrame) -> list[str]:
    out = ["Dataset-summary table: the paper's dataset sizes, nothing to run. "
           "The datasets are described by `olk datasets`.", ""]
    wide = pub.pivot_table(index="dataset", columns="metric", values="mean", aggfunc="first", sort=False)
    cols = [m for m in ("n_instances", "n_features") if m in wide.columns]
    heads = {"n_instances": "#Instances", "n_features": "#Features"}
    rows = [[md_escape(ds)] + [f"{wide.at[ds, m]:,.0f}" if not math.isnan(wide.at[ds, m]) else ""
                              for m in cols] for ds in wide.index]
    return out + _table_md(["Dataset"] + [heads[m] for m in cols], rows, [":---"] + ["---:"] * len(cols)) + [""]


def _notes_md(paper: str, table: str, ctx: _Ctx) -> list[str]:
    f = ctx.results_root / NOTES_DIR / f"{paper}_table{table}.md"
    out = ["### Known deviations and why", ""]
    if f.is_file():
        text = f.read_text(encoding="utf-8").strip("\n")
        return out + ([text, ""] if text.strip() else [f"_{_shown(f, ctx.project)} is empty._", ""])
    return out + [f"_No notes yet: write {_shown(f, ctx.project)}._", ""]


def _table_title(paper: str, table: str) -> str:
    info = PAPERS.get(paper)
    if info is None:
        return f"Table {table} of {paper}"
    return f"Table {table} of “{info['title']}” ({info['cite']})"


def _waiting_md(w: Entry, ctx: _Ctx) -> str:
    cmd = f"; command {_code(w.meta['command'])}" if w.meta.get("command") else ""
    return f"- {_code(_shown(w.path, ctx.project))}: {md_escape(w.reason)}{cmd}"


@dataclass
class _Status:
    paper: str
    table: str
    text: str


def _table_md_section(paper: str, table: str, pub: pd.DataFrame, entries: list[Entry],
                      waiting: list[Entry], configs: list[ConfigInfo], ctx: _Ctx) -> tuple[list[str], _Status]:
    from olk.report.paper import published_dir

    info = PAPERS.get(paper, {})
    caption = TABLE_CAPTIONS.get((paper, table), "")
    out = [f'<a id="{_anchor(paper, table)}"></a>', "", f"## {md_escape(_table_title(paper, table))}", ""]
    line = []
    if caption:
        line.append(f"*{md_escape(caption[0].upper() + caption[1:])}.*")
    if info:
        line.append(f"{md_escape(info['authors'])}, {md_escape(info['venue'])}.")
    pub_file = (ctx.published or published_dir()) / f"{paper}_table{table}.csv"
    line.append(f"Published values: {_code(_shown(pub_file, ctx.project))}.")
    out += [" ".join(line), ""]
    if _is_summary_table(pub):
        out += _summary_table_md(pub)
        status = "dataset summary (nothing to run)"
    elif not entries:
        cfgs = [c for c in configs if (c.paper, c.table) == (paper, table)]
        out += ["**Not yet run.**", ""]
        for w in waiting:
            out += [_waiting_md(w, ctx)]
        if waiting:
            out += [""]
        if cfgs:
            out += ["It is produced by:", ""]
            for cf in cfgs:
                p = _shown(cf.path, ctx.project)
                out.append(f"- {_code(p)}: {_code('olk run ' + p)}" + (f" ({md_escape(cf.note)})" if cf.note else ""))
            out.append("")
        else:
            out += [f"No config in configs/ has `paper: {paper}` and `table: \"{table}\"` yet.", ""]
        status = "not yet run" + (" (in progress)" if waiting else "") + \
                 (f"; config {_code(_shown(cfgs[0].path, ctx.project))}" if cfgs else "; no config yet")
    else:
        parts = []
        for w in waiting:
            out += [_waiting_md(w, ctx), ""]
        for e in entries:
            body, summary, tags = _entry_md(e, ctx, pub)
            out += body
            counts = ", ".join(f"{n} {v}" for v, n in (summary or {}).items())
            tag = f" ({', '.join(tags)})" if tags else ""
            # two directories of one experiment (e.g. a --repeats 20 rerun with --out): name them by directory
            name = e.path.name if sum(x.name == e.name for x in entries) > 1 else e.name
            parts.append(f"[{md_escape(name)}](#{_anchor(paper, table)}){tag}: {md_escape(counts or 'no comparison')}")
        status = "; ".join(parts)
    out += _notes_md(paper, table, ctx)
    return out, _Status(paper, table, status)


# ----------------------------------------------------------------------------- the report
def _paper_rank(paper: str) -> int:
    order = list(PAPERS)
    return order.index(paper) if paper in order else len(order)


def render_report(results_root: Path, out_dir: Path, include_quick: bool = False,
                  configs_dir: Path | None = None, published: Path | None = None,
                  project: Path | None = None) -> tuple[str, list[Path]]:
    """The report Markdown (links relative to ``out_dir``) and the figure files drawn for it."""
    from olk.report.paper import list_tables, load_published

    tables = list_tables(published)
    tables = sorted(tables, key=lambda pt: (_paper_rank(pt[0]), tables.index(pt)))
    entries = find_results(results_root, set(tables), include_quick)
    configs = find_configs(configs_dir)
    ctx = _Ctx(results_root, out_dir, project, published)

    body: list[str] = []
    statuses: list[_Status] = []
    for paper, table in tables:
        pub = load_published(paper, table, directory=published)
        mine = [e for e in entries if e.kind == "reproduction" and e.key == (paper, table)]
        waiting = [e for e in entries if e.kind == "in_progress" and e.key == (paper, table)]
        sec, st = _table_md_section(paper, table, pub, mine, waiting, configs, ctx)
        body += sec
        statuses.append(st)

    head = [GENERATED, "", "# olk reproduction report", "",
            "One section per table the papers publish: our numbers next to the paper's, the verdict per "
            "cell, ranking agreement and figures, with the exact command and provenance of every run. "
            "Regenerate with `olk report`.", ""]
    overview = results_root / NOTES_DIR / "overview.md"
    if overview.is_file() and overview.read_text(encoding="utf-8").strip():
        head += [overview.read_text(encoding="utf-8").strip("\n"), ""]
    else:
        head += [f"_No overview yet: write {_shown(overview, project)}._", ""]
    head += ["## Status", ""]
    rows = []
    for st in statuses:
        info = PAPERS.get(st.paper, {})
        rows.append([md_escape(info.get("short", st.paper)),
                     f"[{md_escape(st.table)}](#{_anchor(st.paper, st.table)})",
                     md_escape(TABLE_CAPTIONS.get((st.paper, st.table), "")), st.text])
    head += _table_md(["Paper", "Table", "Content", "Status"], rows, [":---", ":---", ":---", ":---"]) + [""]
    if "omkl_alt2010" in PAPERS and not any(p == "omkl_alt2010" for p, _ in tables):
        info = PAPERS["omkl_alt2010"]
        head += [f"“{md_escape(info['title'])}” ({md_escape(info['venue'])}) is theory only: it has no "
                 "experiments and no result tables to reproduce.", ""]
    head += ["Verdicts: 'within paper std' (|ours − paper| ≤ the paper's std), 'within tolerance', "
             "'off', 'n/a' (not judged, e.g. wall-clock time measured on other hardware), "
             "'no paper value', 'not run'.", ""]

    figs = [e for e in entries if e.kind == "unmatched" and e.key and e.key[1].lower().startswith("fig")
            and e.results is not None and not _quick_reason(e.name, e.path.name, e.meta, e.results)]
    fig_body: list[str] = []
    for e in sorted(figs, key=lambda e: (_paper_rank(e.key[0]), e.key[1])):
        info = PAPERS.get(e.key[0], {})
        fig_body += [f"## {md_escape(info.get('short', e.key[0]))} Figure {md_escape(e.key[1][3:])}: "
                     f"{md_escape(e.meta.get('description') or e.name)}", ""]
        fig_body += _provenance_md(e, ctx)
        note = results_root / NOTES_DIR / f"{e.key[0]}_{e.key[1]}.md"
        if note.is_file() and note.read_text(encoding="utf-8").strip():
            fig_body += [note.read_text(encoding="utf-8").strip("\n"), ""]
        fig_body += _figures_md(e.results, ctx)
    if fig_body:
        body += ["# Figures", "", "The papers' figures have no numbers to compare cell by cell; ours are drawn "
                 "from the runs below with `olk plot`.", ""] + fig_body
    others = [e for e in entries if e.kind != "reproduction" and e not in figs
              and not (e.kind == "in_progress" and e.key in set(tables))]
    tail: list[str] = []
    if others:
        tail += ["## Other results", "",
                 "Results directories that are not reproductions of a published table "
                 + ("" if include_quick else "(quick runs are shown in full with `olk report --include-quick`)")
                 + ":", ""]
        for e in others:
            what = f" ({md_escape(e.key[0])} Table {md_escape(e.key[1])})" if e.key else ""
            cmd = f"; command {_code(e.meta['command'])}" if e.meta.get("command") else ""
            tail.append(f"- [{md_escape(_shown(e.path, project))}/]({_link_path(e.path, out_dir)}/){what}: "
                        f"{md_escape(e.reason)}{cmd}")
        tail.append("")
    text = "\n".join(head + body + tail).rstrip("\n") + "\n"
    return text, ctx.written


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


# ----------------------------------------------------------------------------- Markdown -> HTML
_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;line-height:1.45;color:#222}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:.25em .5em}th{background:#f3f3f3}
td.r,th.r{text-align:right}td.c,th.c{text-align:center}
code{background:#f4f4f4;padding:0 .2em;border-radius:3px}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto}pre code{padding:0}
blockquote{border-left:4px solid #e0a800;margin:.6em 0;padding:.2em .8em;background:#fffbea}
img{max-width:100%;height:auto}h2{border-bottom:1px solid #ddd;margin-top:2em}
"""


_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
         ".svg": "image/svg+xml"}
_ALIGN_CLASS = {"right": "r", "center": "c"}


def markdown_to_html(text: str, base_dir: str | Path = ".", title: str = "") -> str:
    """A self-contained HTML page from Markdown (Python-Markdown with pipe tables, fenced code and heading
    ids); local PNG/JPEG/GIF/SVG images, relative to ``base_dir``, are embedded as base64 data URIs."""
    md = markdown.Markdown(
        extensions=["tables", "fenced_code", "toc", _ReportExtension(base_dir=str(base_dir))],
        extension_configs={"toc": {"slugify": _slug}},
        tab_length=2,  # GitHub-style lists: items nested by two spaces are sub-lists
        output_format="html")
    body = md.convert(text)
    return ("<!DOCTYPE html>\n" + GENERATED + "\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{_html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            + body + "\n</body>\n</html>\n")


def _slug(value: str, separator: str) -> str:
    """Heading id as GitHub makes it (lower case, punctuation dropped, spaces to hyphens), so links written
    for the Markdown also work in the HTML."""
    return re.sub(r"[^\w\- ]", "", value.lower()).strip().replace(" ", separator) or "section"


def _image_src(src: str, base: Path) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I) or src.startswith(("/", "#")):
        return src
    f = base / unquote(src)
    mime = _MIME.get(f.suffix.lower())
    if mime and f.is_file():
        return f"data:{mime};base64," + base64.b64encode(f.read_bytes()).decode("ascii")
    return src


class _ReportTweaks(Treeprocessor):
    """Embed local images, mark table alignment with the CSS classes ``r``/``c``, and read ``\\|`` inside a
    code span of a table cell as ``|`` (as GFM does: the escape only keeps the pipe from splitting the cell)."""

    def __init__(self, md: markdown.Markdown, base: Path):
        super().__init__(md)
        self.base = base

    def run(self, root: Any) -> None:
        for el in root.iter():
            if el.tag == "img" and el.get("src"):
                el.set("src", _image_src(el.get("src"), self.base))
            elif el.tag in ("td", "th"):
                m = re.match(r"text-align:\s*(\w+)", el.attrib.pop("style", ""))
                if m and m.group(1) in _ALIGN_CLASS:
                    el.set("class", _ALIGN_CLASS[m.group(1)])
                for code in el.iter("code"):
                    if code.text and "\\|" in code.text:
                        code.text = type(code.text)(code.text.replace("\\|", "|"))  # keep AtomicString


class _DropComments(Postprocessor):
    """Leave HTML comments (the GENERATED marker, comments in notes) out of the body."""

    def run(self, text: str) -> str:
        stash = self.md.htmlStash
        for i, raw in enumerate(stash.rawHtmlBlocks):
            if re.fullmatch(r"\s*<!--(?:(?!-->).)*-->\s*", str(raw), re.S):
                ph = stash.get_placeholder(i)
                text = text.replace(f"<p>{ph}</p>\n", "").replace(f"<p>{ph}</p>", "").replace(ph, "")
        return text


class _ReportExtension(Extension):
    def __init__(self, **kwargs: Any):
        self.config = {"base_dir": [".", "directory relative image paths start from"]}
        super().__init__(**kwargs)

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        # md_escape writes \< (and notes may write \~): Python-Markdown does not treat them as escapes by default
        md.ESCAPED_CHARS.extend(c for c in "<~|" if c not in md.ESCAPED_CHARS)
        # after inline parsing (20) and unescaping (0), so src and style hold their final values
        md.treeprocessors.register(_ReportTweaks(md, Path(self.getConfig("base_dir"))), "olk_report", -10)
        md.postprocessors.register(_DropComments(md), "olk_drop_comments", 35)  # before raw_html (30)
