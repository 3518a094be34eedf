"""The Overview of ``olk report``, generated from the results and their verdicts: nothing in it is hand-written.

* **Verdicts per table**: every published table, with the judged cells of its main results directories on the
  paper's own data (in tolerance / off by cause category), the cells judged on data of another size than the
  paper's, and the labelled variants apart (:func:`table_counts`); per table the three numbers of
  :mod:`olk.report.readings`: in tolerance under the literal reading, under the best fitted reading
  (in-sample) and held out (leave one dataset out);
* **What ran**: every results directory (experiment.json): the table or figure it is for, main reading, variant or
  quick run, config, datasets, permutations, scale, the command's options that change what was computed;
* **What could not run and why**: every config's ``unavailable:`` entries, and the paper's datasets no results
  directory ran;
* **Configs**: every config in ``configs/`` with the results directories made from it.

So a new results directory or config shows up here by itself, and no status sentence can go stale
(``tests/test_report_overview.py`` checks every results directory and config is named).
"""
from __future__ import annotations

import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olk.errors import OlkError
from olk.report.annotations import CATEGORIES, Annotations, load_annotations
from olk.report.catalogue import PAPERS, TABLE_CAPTIONS, paper_rank
from olk.report.compare import DATA_SIZE, DATA_SUBSTITUTE, Comparison
from olk.report.discovery import ConfigInfo, Entry, quick_reason, run_scale
from olk.report.mdtext import anchor, code, link_path, md_escape, shown, table_md
from olk.report.readings import FITTED, LITERAL, ReadingScore, TableReadings, table_readings
from olk.report.sizes import SIZE_RULE
from olk.report.tolerance import IN_TOLERANCE, JUDGED, describe_rule, parse_compare

#: How a judged cell's data relates to the paper's: the paper's own data, another size, a stand-in dataset.
PAPER_DATA, OTHER_SIZE, SUBSTITUTE = "paper's data", "other size", "substitute"
#: ``olk run`` options that change what is computed (the others only say how or where it runs).
_EXEC_FLAGS = {"--resume", "--force", "--progress", "--no-progress", "-q", "--quiet"}
_EXEC_OPTIONS = {"-j", "--n-jobs", "--backend", "--scheduler", "--memory-limit", "-o", "--out"}


# ----------------------------------------------------------------------------- counting
def cell_counts(c: Comparison) -> dict[str, Counter]:
    """Judged cells of the experiment's own datasets and algorithms by data class (:data:`PAPER_DATA`,
    :data:`OTHER_SIZE`, :data:`SUBSTITUTE`): ``judged``, ``in tolerance`` and the off cells per cause category."""
    cells = c.cells[c.cells["in_experiment"] & c.cells["verdict"].isin(JUDGED)]
    out: dict[str, Counter] = {PAPER_DATA: Counter(), OTHER_SIZE: Counter(), SUBSTITUTE: Counter()}
    for r in cells.itertuples(index=False):
        kind = SUBSTITUTE if r.data == DATA_SUBSTITUTE else OTHER_SIZE if r.data == DATA_SIZE else PAPER_DATA
        out[kind]["judged"] += 1
        out[kind]["in tolerance" if r.verdict in IN_TOLERANCE else r.cause_category] += 1
    return out


@dataclass
class TableCounts:
    """The verdicts of one published table over its results directories: the main ones summed (``counts``),
    each labelled variant apart (``variants``: directory -> (label, counts))."""

    paper: str
    table: str
    main: list[str] = field(default_factory=list)
    counts: dict[str, Counter] = field(default_factory=lambda: {PAPER_DATA: Counter(), OTHER_SIZE: Counter(),
                                                                SUBSTITUTE: Counter()})
    variants: dict[str, tuple[str, dict[str, Counter]]] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)
    dirty: list[str] = field(default_factory=list)      # main directories computed from a tree with changes

    def readings(self) -> TableReadings:
        return table_readings(self.comparisons)


def table_counts(entries: list[Entry], comparisons: dict[Path, Comparison | str]) -> dict[tuple[str, str],
                                                                                         TableCounts]:
    """(paper, table) -> :class:`TableCounts` over the reproduction entries (``comparisons``: each entry's path ->
    its comparison, or the reason it could not be made)."""
    out: dict[tuple[str, str], TableCounts] = {}
    for e in entries:
        if e.kind != "reproduction" or e.key is None or e.reason:    # a quick run shown with --include-quick
            continue
        tc = out.setdefault(e.key, TableCounts(*e.key))
        c = comparisons.get(e.path)
        if not isinstance(c, Comparison):
            tc.failed.append(e.path.name)
            continue
        counts = cell_counts(c)
        tc.comparisons.append(c)
        if c.variant:
            tc.variants[e.path.name] = (c.variant, counts)
            continue
        tc.main.append(e.path.name)
        if str(e.meta.get("git_commit") or "").endswith("-dirty"):
            tc.dirty.append(f"{e.path.name} ({e.meta['git_commit']})")
        for k, v in counts.items():
            tc.counts[k].update(v)
    return out


def _share(n: int, d: int) -> str:
    return f"{n} of {d} ({100.0 * n / d:.1f}%)" if d else "—"


def _offs(cnt: Counter) -> str:
    parts = [f"{cnt[k]} {k}" for k in CATEGORIES if cnt[k]]
    return ", ".join(parts) if parts else "none"


def counts_text(cnt: Counter) -> str:
    """'41 of 54 (75.9%) in tolerance; off: 3 evidenced, 10 open' ('no judged cell' when there is none)."""
    if not cnt["judged"]:
        return "no judged cell"
    off = cnt["judged"] - cnt["in tolerance"]
    return f"{_share(cnt['in tolerance'], cnt['judged'])} in tolerance" + (f"; off: {_offs(cnt)}" if off else "")


# ----------------------------------------------------------------------------- rendering
def overview_md(tables: list[tuple[str, str]], entries: list[Entry], comparisons: dict[Path, Comparison | str],
                configs: list[ConfigInfo], summaries: set[tuple[str, str]], out_dir: Path,
                project: Path | None, results_root: Path) -> list[str]:
    """The Overview section of REPRODUCTION.md (Markdown lines)."""
    counts = table_counts(entries, comparisons)
    out = ["## Overview", "",
           "Generated by `olk report` from every results directory's experiment.json and runs, the comparisons "
           "with results/paper/ and the causes in results/annotations.yaml: nothing here is written by hand.", ""]
    out += _verdicts_md(tables, counts, summaries, entries, configs, project)
    out += _read_md()
    out += _ran_md(entries, comparisons, out_dir, project, load_annotations(results_root))
    out += _unavailable_md(tables, entries, comparisons, configs, project)
    out += _configs_md(configs, entries, project)
    return out


def _verdicts_md(tables, counts, summaries, entries, configs, project) -> list[str]:
    out = ["### Verdicts per table", "",
           "Judged cells (accuracy or mistake rate, MSE, efficiency, #SV) of each table's main results "
           "directories, which hold the **literal** reading: what the paper prints and, where it is silent, a "
           "default fixed before looking at results.  Readings *fitted* to the paper's cells are labelled variants "
           "(below), shown twice: **best fitted (in-sample)** takes, per dataset, the reading with the most cells "
           "in tolerance, judged on the very cells it was fitted to; **held out** chooses each dataset's reading "
           "by its cells on the *other* datasets, among the literal one and the readings not chosen on this "
           "dataset, and judges it here (leave one dataset out).  A reading is scored as the literal cells with "
           "its own in their place, so the three numbers count the same cells.  Cells on a dataset whose size is "
           f"not the paper's (more than {SIZE_RULE:.0%} apart) are counted apart.", ""]
    rows = []
    for paper, table in tables:
        info = PAPERS.get(paper, {})
        head = [md_escape(info.get("short", paper)), f"[{md_escape(table)}](#{anchor(paper, table)})",
                md_escape(TABLE_CAPTIONS.get((paper, table), ""))]
        tc = counts.get((paper, table))
        if (paper, table) in summaries:
            rows.append(head + ["dataset summary (nothing to run)", "", "", "", "", "", ""])
            continue
        if tc is None:
            waiting = [e for e in entries if e.kind == "in_progress" and e.key == (paper, table)]
            cfgs = [c for c in configs if (c.paper, c.table) == (paper, table)]
            what = "not yet run" + (" (in progress)" if waiting else "") + (
                f"; config {code(shown(cfgs[0].path, project))}" if cfgs else "; no config yet")
            rows.append(head + [what, "", "", "", "", "", ""])
            continue
        same, other, subs = tc.counts[PAPER_DATA], tc.counts[OTHER_SIZE], tc.counts[SUBSTITUTE]
        runs = ", ".join(md_escape(n) for n in tc.main) or "none (variants only)"
        if tc.failed:
            runs += f"; comparison failed: {', '.join(md_escape(n) for n in tc.failed)}"
        if tc.dirty:
            runs += "; run from a tree with uncommitted changes: " + ", ".join(md_escape(n) for n in tc.dirty)
        tr = tc.readings()
        fitted = any(r.reading == FITTED for r in tr.readings)
        if not (same["judged"] or other["judged"] or subs["judged"]):
            if fitted and tr.best.judged:
                rows.append(head + [runs + "; the literal reading has no judged cell yet (*What ran*)", "0", "—",
                                    "—", tr.best.text(), tr.held_out.text(), "—"])
                continue
            rows.append(head + [runs, "0", "—", "—", "—", "—", "no cell judged: none of the paper's datasets ran "
                                "here (see *What could not run and why*)"])
            continue
        rows.append(head + [runs, str(same["judged"]), _share(same["in tolerance"], same["judged"]),
                            _offs(same) if same["judged"] - same["in tolerance"] else "none",
                            tr.best.text() if fitted else "no fitted reading",
                            tr.held_out.text() if fitted else "—",
                            "; ".join(x for x in (counts_text(other) if other["judged"] else "",
                                                  f"substitute data: {counts_text(subs)}" if subs["judged"] else "")
                                      if x) or "—"])
    out += table_md(["Paper", "Table", "Content", "Main results (literal)", "Judged (paper's data)",
                     "Literal: in tolerance", "Off, by cause", "Best fitted (in-sample)", "Fitted, held out",
                     "On data of another size"], rows,
                    [":---", ":---", ":---", ":---", "---:", "---:", ":---", "---:", "---:", ":---"]) + [""]
    total: Counter = Counter()
    per_paper: dict = {}
    for (paper, _), tc in sorted(counts.items(), key=lambda kv: paper_rank(kv[0][0])):
        total.update(tc.counts[PAPER_DATA])
        per_paper.setdefault(paper, Counter()).update(tc.counts[PAPER_DATA])
    if total["judged"]:
        parts = "; ".join(f"{md_escape(PAPERS.get(p, {}).get('short', p))}: {counts_text(c)}"
                          for p, c in per_paper.items() if c["judged"])
        out += [f"**On the paper's data, all tables, under the literal reading:** {counts_text(total)}. Per paper: "
                f"{parts}.", ""]
        out += _readings_md(counts)
    variants = [(key, d, label, cnt) for key, tc in counts.items() for d, (label, cnt) in tc.variants.items()]
    if variants:
        out += ["Labelled variants (another reading of the table; not in the literal counts above):", ""]
        for (paper, table), d, label, cnt in variants:
            other = cnt[OTHER_SIZE]
            tr = counts[(paper, table)].readings()
            r = next(x for x in tr.readings if x.name == d)
            how = _reading_label(r.reading, r.chosen_on)
            own = tr.own_held_out.get(d)
            held = (f"; held out (cells of the datasets it was not chosen on): {own.text()}" if own is not None
                    and own.judged else "; held out: no judged cell outside the datasets it was chosen on"
                    if r.reading == FITTED else "")
            out.append(f"- {md_escape(d)} ({md_escape(PAPERS.get(paper, {}).get('short', paper))} Table "
                       f"{md_escape(table)}, {how}): {md_escape(label)}. Paper's data: "
                       f"{counts_text(cnt[PAPER_DATA])}{held}"
                       + (f"; data of another size: {counts_text(other)}" if other["judged"] else "") + ".")
        out.append("")
    return out


def _sum(scores: list[ReadingScore]) -> ReadingScore:
    return ReadingScore(sum(s.in_tolerance for s in scores), sum(s.judged for s in scores))


def _readings_md(counts: dict[tuple[str, str], TableCounts]) -> list[str]:
    """The literal / best fitted / held-out sentence over all tables, and each table's picks."""
    per = {key: tc.readings() for key, tc in sorted(counts.items(), key=lambda kv: paper_rank(kv[0][0]))
           if tc.comparisons}
    fitted = {key: tr for key, tr in per.items() if any(r.reading == FITTED for r in tr.readings)}
    lit = _sum([tr.literal for tr in per.values()])
    best = _sum([tr.best if key in fitted else tr.literal for key, tr in per.items()])
    held = _sum([tr.held_out if key in fitted else tr.literal for key, tr in per.items()])
    out = [f"**Literal, fitted, held out** (every table; a table without a fitted reading counts its literal "
           f"cells in all three): literal {lit.text()}; best fitted reading, judged on the cells it was fitted to, "
           f"{best.text()}; fitted readings held out (leave one dataset out) {held.text()}.", ""]
    lines = []
    for (paper, table), tr in fitted.items():
        short = md_escape(PAPERS.get(paper, {}).get("short", paper))

        def picks(s: ReadingScore) -> str:
            moved = [f"{md_escape(d)}: {md_escape(n)}" for d, n in s.picks if n != LITERAL]
            return "; ".join(moved) if moved else "every dataset literal"

        lines.append(f"- {short} [Table {md_escape(table)}](#{anchor(paper, table)}): literal {tr.literal.text()}; "
                     f"best fitted {tr.best.text()} ({picks(tr.best)}); held out {tr.held_out.text()} "
                     f"({picks(tr.held_out)}).")
    if lines:
        out += ["Which reading each dataset took, where it is not the literal one:", ""] + lines + [""]
    return out


def _read_md() -> list[str]:
    return ["### How to read the verdicts", "", describe_rule(), "",
            "Every off cell has a cause category, from results/annotations.yaml: *evidenced* (a results "
            "directory, an ablation or a note shows the cause; linked), *paper* (an inconsistency in the paper "
            "itself, quoted) or *open* (no evidenced cause: a plausible but untested explanation stays open, and an "
            "off cell nobody annotated is open). Ours is the mean ± sample std over our runs. Where a dataset has "
            "another number of rows than the paper's table of datasets, its table says so beside the cells.", ""]


def _options(command: Any) -> str:
    """The options of a recorded ``olk run`` command that change what is computed (-d, -a, -r, --scale,
    --set ...), as one code span ('' when there is none or no command)."""
    if not command:
        return ""
    try:
        words = shlex.split(str(command))
    except ValueError:
        return code(command)
    if len(words) >= 3 and words[0].endswith("olk") and words[1] == "run":
        words = words[3:]
    keep, i = [], 0
    while i < len(words):
        w = words[i]
        name = w.split("=", 1)[0]
        if name in _EXEC_FLAGS:
            i += 1
        elif name in _EXEC_OPTIONS:
            i += 1 if "=" in w else 2
        else:
            keep.append(w)
            i += 1
    return code(shlex.join(keep)) if keep else ""


def _perms(e: Entry) -> str:
    res = e.results
    if res is None or "perm" not in res.main.columns:
        return "—"
    main = res.main
    perms = main["perm"].dropna().nunique()
    if res.shuffled:
        return str(perms)
    per = main.groupby(["dataset", "label", "setting"]).size()
    return f"file order ({per.max()} seed{'s' if per.max() != 1 else ''})" if len(per) else "file order"


def _reading_label(reading: str, chosen_on: tuple[str, ...]) -> str:
    """'literal', 'fitted on german, svmguide3' or 'reading not labelled'."""
    if reading == FITTED:
        return ("fitted on " + ", ".join(md_escape(d) for d in chosen_on)) if chosen_on else \
            "fitted (departs from the printed reading; chosen on no cell)"
    return LITERAL if reading == LITERAL else "reading not labelled"


def _reading(e: Entry, c: Comparison | str | None, ann: Annotations) -> str:
    if e.kind == "reproduction" and not e.reason and isinstance(c, Comparison):
        return f"{_reading_label(c.reading, c.chosen_on)}; {_role(c)}"
    try:
        spec = parse_compare(e.meta.get("compare"), f"{e.path}/experiment.json: compare")
        reading = (spec.reading, spec.chosen_on) if spec.reading else ann.readings.get(e.path.name, ("", ()))
    except OlkError:
        reading = ("", ())
    return f"{_reading_label(*reading)}; {_role_of(e, c)}"


def _role(c: Comparison) -> str:
    """'main', 'main (codrna_beta10 stands for codrna)' or 'variant: ...'."""
    if c.variant:
        return f"variant: {md_escape(c.variant)}"
    if c.aliases:
        subs = set(c.aliases)
        if all(d in subs for d in c.results.datasets):
            return "main (substitute data)"
        return "main (" + ", ".join(f"{md_escape(k)} stands for {md_escape(v)}" for k, v in c.aliases.items()) + ")"
    return "main"


def _role_of(e: Entry, c: Comparison | str | None) -> str:
    """What a results directory without a comparison is: a failed comparison, a quick run, a figure, ..."""
    if e.kind == "reproduction" and not e.reason:
        return "main (comparison failed)"
    if e.kind == "quick" or (e.results is not None and quick_reason(e.name, e.path.name, e.meta, e.results)):
        return f"quick run: {md_escape(quick_reason(e.name, e.path.name, e.meta, e.results))}"
    if e.key and e.key[1].lower().startswith("fig"):
        return "figure"
    return md_escape(e.kind.replace("_", " ") + (f": {e.reason}" if e.reason else ""))


def _for(e: Entry) -> str:
    if e.key is None:
        paper = str(e.meta.get("paper") or "")
        return md_escape(PAPERS.get(paper, {}).get("short", paper)) or "—"
    paper, table = e.key
    short = md_escape(PAPERS.get(paper, {}).get("short", paper))
    if table.lower().startswith("fig"):
        return f"{short} Figure {md_escape(table[3:])}"
    return f"{short} [Table {md_escape(table)}](#{anchor(paper, table)})"


def _ran_md(entries, comparisons, out_dir, project, ann: Annotations) -> list[str]:
    out = ["### What ran", "",
           "Every results directory under results/, from its experiment.json and runs: the data permutations each "
           "cell ran (or the file order with its seeds), the scale, and the options of its command that change "
           "what was computed (a dataset or algorithm subset, -r, --scale, --set).", ""]
    rows = []
    order = sorted(entries, key=lambda e: (paper_rank(e.key[0]) if e.key else len(PAPERS), e.path.name))
    for e in order:
        meta = e.meta
        ds = meta.get("datasets") or (e.results.datasets if e.results is not None else [])
        unavailable = set((e.results.unavailable if e.results is not None else meta.get("unavailable")) or {})
        ran = [d for d in ds if d not in unavailable] if isinstance(ds, list) else []
        scale = run_scale(meta, e.results)
        started = str(meta.get("started") or "")[:16]
        commit = str(meta.get("git_commit") or "")
        commit = commit[:12] + (" (uncommitted changes)" if commit.endswith("-dirty") else "")
        cfg = meta.get("config")
        rows.append([f"[{md_escape(e.path.name)}/]({link_path(e.path, out_dir)}/)", _for(e),
                     _reading(e, comparisons.get(e.path), ann), code(cfg) if cfg else "—",
                     md_escape(", ".join(map(str, ran))) or "—", _perms(e), f"{scale:g}" if scale else "1",
                     _options(meta.get("command")) or "—",
                     md_escape(" ".join(x for x in (started, commit) if x)) or "—"])
    return out + table_md(["Results directory", "For", "Reading", "Config", "Datasets run", "Permutations",
                           "Scale", "Options beyond the config", "Computed (started, git commit)"], rows,
                          [":---", ":---", ":---", ":---", ":---", "---:", "---:", ":---", ":---"]) + [""]


def _unavailable_md(tables, entries, comparisons, configs, project) -> list[str]:
    out = ["### What could not run and why", ""]
    rows = []
    reasons: dict[str, str] = {}
    for cf in configs:
        for d, why in cf.unavailable.items():
            rows.append([code(shown(cf.path, project)), md_escape(d), md_escape(why)])
            reasons.setdefault(d, why)
    if rows:
        out += ["The datasets the configs list as `unavailable:` (the report shows the paper's numbers beside "
                "'not run: data unavailable'):", ""]
        out += table_md(["Config", "Dataset", "Why"], rows, [":---", ":---", ":---"]) + [""]
    missing = []
    for paper, table in tables:
        mine = [comparisons.get(e.path) for e in entries if e.kind == "reproduction" and e.key == (paper, table)]
        mine = [c for c in mine if isinstance(c, Comparison)]
        if not mine:
            continue
        why = dict(reasons)
        why.update({d: str(r) for c in mine for d, r in c.results.unavailable.items()})
        ran = {d for c in mine for d in c.results.datasets if d not in c.results.unavailable}
        ran |= {c.aliases[d] for c in mine for d in ran if d in c.aliases}
        paper_ds = list(dict.fromkeys(d for c in mine for d in c.cells["dataset"]
                                      if not c.cells.loc[c.cells["dataset"] == d, "paper_mean"].isna().all()))
        gone = [d for d in paper_ds if d not in ran]
        if gone:
            short = md_escape(PAPERS.get(paper, {}).get("short", paper))
            missing.append(f"- {short} [Table {md_escape(table)}](#{anchor(paper, table)}): " + "; ".join(
                f"{md_escape(d)} ({md_escape(why[d]) if d in why else 'no results directory runs it'})"
                for d in gone))
    if missing:
        out += ["The paper's datasets no results directory of the table ran:", ""] + missing + [""]
    if not rows and not missing:
        out += ["Every dataset of every table with results ran; no config lists one as unavailable.", ""]
    return out


def _configs_md(configs, entries, project) -> list[str]:
    made: dict[str, list[str]] = {}
    for e in entries:
        cfg = e.meta.get("config")
        if cfg:
            made.setdefault(str(cfg), []).append(e.path.name)
    rows = []
    for cf in configs:
        p = shown(cf.path, project)
        if not cf.readable:
            what = "not a YAML mapping (cannot be run)"
        elif cf.paper:
            what = f"{md_escape(PAPERS.get(cf.paper, {}).get('short', cf.paper))} " + (
                f"Figure {md_escape(cf.table[3:])}" if cf.table.lower().startswith("fig") else
                f"Table {md_escape(cf.table)}" if cf.table else "(no table)")
            if cf.variant:
                what += f"; variant: {md_escape(cf.variant)}"
            if cf.note:
                what += f"; {md_escape(cf.note)}"
        else:
            what = "no published table" + (f": {md_escape(cf.description)}" if cf.description else "")
        dirs = made.get(p, [])
        rows.append([code(p), what, ", ".join(md_escape(d) for d in dirs) if dirs else "none"])
    if not rows:
        return []
    return ["### Configs", "", "Every config in configs/, what it produces and the results directories made from "
            "it (experiment.json `config`).", ""] + table_md(
        ["Config", "Produces", "Results directories"], rows, [":---", ":---", ":---"]) + [""]
