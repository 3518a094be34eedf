"""The Overview of ``olk report``, generated from the results and their verdicts: nothing in it is hand-written.

* **The first screen** (:func:`headline_md`): one sentence on how close the reproduction came (the published cells
  in tolerance under the literal reading, held out with the range of its tie rules, best fitted, counted apart, not
  run) and one figure of it per table (:func:`olk.report.plots.plot_reproduction_overview`);
* **Verdicts per table**: every published table, with the judged cells of its main results directories on the
  paper's own data (in tolerance / off by cause category), the cells judged on data of another size or split than
  the paper's or on stand-in data (counted apart), and the labelled variants apart (:func:`table_counts`); per
  table the three numbers of :mod:`olk.report.readings`: in tolerance under the literal reading, under the best
  fitted reading (in-sample) and held out (leave one dataset out), with the held-out range over the tie rules;
* **Provenance**: per table, the commits that computed each of its results directories' runs and the latest
  verification of them (:mod:`olk.report.provenance`);
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
from olk.report.catalogue import PAPERS, paper_rank
from olk.report.compare import DATA_SIZE, DATA_SPLIT, DATA_SUBSTITUTE, Comparison
from olk.report.discovery import ConfigInfo, Entry, quick_reason, run_scale
from olk.report.mdtext import anchor, code, link_path, md_escape, shown, table_md
from olk.report.provenance import commits_text, run_commits, verification_text, verifications
from olk.report.readings import (
    CANDIDATE_RULE,
    FITTED,
    IN_TOL,
    LITERAL,
    LITERAL_ALTERNATIVE,
    TIE_RULES,
    ReadingScore,
    TableReadings,
    choice_conflicts,
    table_readings,
)
from olk.report.sizes import SIZE_RULE
from olk.report.tolerance import CONTRADICTIONS_PAGE, IN_TOLERANCE, JUDGED, describe_rule

#: How a judged cell's data relates to the paper's: the paper's own data, another size, another train / test
#: split, a stand-in dataset.
PAPER_DATA, OTHER_SIZE, OTHER_SPLIT, SUBSTITUTE = "paper's data", "other size", "other split", "substitute"
#: the classes of cells counted apart from the paper's data, and how the overview names them
APART = {OTHER_SIZE: "another size", OTHER_SPLIT: "another split", SUBSTITUTE: "stand-in data"}
_DATA_CLASS = {DATA_SIZE: OTHER_SIZE, DATA_SPLIT: OTHER_SPLIT, DATA_SUBSTITUTE: SUBSTITUTE}
#: ``olk run`` options that change what is computed (the others only say how or where it runs).
_EXEC_FLAGS = {"--resume", "--force", "--progress", "--no-progress", "-q", "--quiet"}
_EXEC_OPTIONS = {"-j", "--n-jobs", "--backend", "--scheduler", "--memory-limit", "-o", "--out"}
#: where ``olk report`` draws its first figure, relative to the report's directory
FIGURE_DIR, FIGURE_STEM = "figures", "reproduction_overview"


# ----------------------------------------------------------------------------- counting
def _classes() -> dict[str, Counter]:
    return {PAPER_DATA: Counter(), OTHER_SIZE: Counter(), OTHER_SPLIT: Counter(), SUBSTITUTE: Counter()}


def cell_counts(c: Comparison) -> dict[str, Counter]:
    """Judged cells of the experiment's own datasets and algorithms by data class (:data:`PAPER_DATA`,
    :data:`OTHER_SIZE`, :data:`OTHER_SPLIT`, :data:`SUBSTITUTE`): ``judged``, ``in tolerance`` and the off cells per
    cause category.  A cell without the paper's number is never judged, so never counted."""
    cells = c.cells[c.cells["in_experiment"] & c.cells["verdict"].isin(JUDGED)]
    out = _classes()
    for r in cells.itertuples(index=False):
        kind = _DATA_CLASS.get(r.data, PAPER_DATA)
        out[kind]["judged"] += 1
        out[kind]["in tolerance" if r.verdict in IN_TOLERANCE else r.cause_category] += 1
    return out


def published_states(comparisons: list[Comparison]) -> Counter:
    """The published cells of a table that the rule judges (not time), each counted once over the table's main
    comparisons by its state: in tolerance, off by cause category, 'other data' (judged on data of another size or
    split, or on a stand-in dataset) or 'not run'."""
    rank = {"not run": 0, "other data": 1}
    state: dict[tuple, str] = {}
    for c in comparisons:
        cells = c.cells[c.cells["paper_mean"].notna()]
        for r in cells.itertuples(index=False):
            if c.tolerances.get(r.metric, ("abs", None))[1] is None:
                continue
            key = (c.aliases.get(r.dataset, r.dataset), r.algorithm, r.paper_label, r.metric)
            if r.in_experiment and r.verdict in JUDGED:
                st = "other data" if r.data in _DATA_CLASS else (
                    IN_TOL if r.verdict in IN_TOLERANCE else str(r.cause_category or "open"))
            else:
                st = "not run"
            if rank.get(state.get(key, "not run"), 2) <= rank.get(st, 2):
                state[key] = st
    return Counter(state.values())


@dataclass
class TableCounts:
    """The verdicts of one published table over its results directories: the main ones summed (``counts``),
    each labelled variant apart (``variants``: directory -> (label, counts))."""

    paper: str
    table: str
    main: list[str] = field(default_factory=list)
    counts: dict[str, Counter] = field(default_factory=_classes)
    variants: dict[str, tuple[str, dict[str, Counter]]] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    _readings: TableReadings | None = None

    def readings(self) -> TableReadings:
        if self._readings is None:
            self._readings = table_readings(self.comparisons)
        return self._readings

    def published(self) -> Counter:
        """The table's published judged cells by state (:func:`published_states` over the main comparisons)."""
        return published_states([c for c in self.comparisons if not c.variant])


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
        tc.entries.append(e)
        if c.variant:
            tc.variants[e.path.name] = (c.variant, counts)
            continue
        tc.main.append(e.path.name)
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


def _sum(scores: list[ReadingScore]) -> ReadingScore:
    states: Counter = Counter()
    for s in scores:
        states.update(dict(s.states))
    return ReadingScore(sum(s.in_tolerance for s in scores), sum(s.judged for s in scores),
                        states=tuple(sorted(states.items())))


def _ordered(counts: dict[tuple[str, str], TableCounts]) -> list[tuple[tuple[str, str], TableCounts]]:
    return sorted(counts.items(), key=lambda kv: paper_rank(kv[0][0]))


@dataclass
class _Totals:
    """All tables summed: literal, best fitted, held out under each tie rule, counted apart, not run."""

    literal: ReadingScore
    best: ReadingScore
    held: dict[str, ReadingScore]
    apart: Counter
    not_run: int

    @property
    def held_range(self) -> tuple[int, int]:
        vals = [s.in_tolerance for s in self.held.values()]
        return min(vals), max(vals)


def _totals(counts: dict[tuple[str, str], TableCounts]) -> _Totals:
    per = [tc.readings() for _, tc in _ordered(counts) if tc.comparisons]
    lit = _sum([tr.literal for tr in per])
    best = _sum([tr.best if tr.fitted else tr.literal for tr in per])
    held = {rule: _sum([tr.held_out_by_rule[rule] if tr.fitted else tr.literal for tr in per]) for rule in TIE_RULES}
    apart: Counter = Counter()
    for _, tc in _ordered(counts):
        for k in APART:
            apart[k] += tc.counts[k]["judged"]
    not_run = sum(tc.published()["not run"] for _, tc in _ordered(counts) if tc.comparisons)
    return _Totals(lit, best, held, apart, not_run)


def _range(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


# ----------------------------------------------------------------------------- the first screen
def headline_md(entries: list[Entry], comparisons: dict[Path, Comparison | str], out_dir: Path
                ) -> tuple[list[str], list[Path]]:
    """The report's first screen: the sentence that says how close the reproduction came, and its figure (drawn
    into ``out_dir``/figures/); returns the Markdown lines and the figure files."""
    from olk.report import plots

    counts = table_counts(entries, comparisons)
    tot = _totals(counts)
    if not tot.literal.judged and not any(tc.comparisons for tc in counts.values()):
        return ["**How close we came:** no published table has results yet.", ""], []
    lo, hi = tot.held_range
    held = tot.held[next(iter(TIE_RULES))]
    others = sum(tot.apart.values()) + tot.not_run
    out = [f"**How close we came: {tot.literal.in_tolerance} of the {tot.literal.judged} published cells we ran on "
           f"the paper's own data ({_pct(tot.literal)}) are within tolerance under the literal reading** (what the "
           f"paper prints).  Held out (each dataset's reading chosen on the other datasets' cells) "
           f"{held.in_tolerance} are ({_range(lo, hi)} under the {len(TIE_RULES)} tie rules); readings fitted to the "
           f"very cells they are judged on reach {tot.best.in_tolerance}.  Of the papers' other {others} judged "
           f"cells, " + ", ".join(f"{n} ran on {APART[k]}" for k, n in tot.apart.items() if n)
           + f"{' and ' if any(tot.apart.values()) else ''}{tot.not_run} were not run (data not available offline, "
           "or not attempted).", ""]
    bars = []
    for (paper, table), tc in _ordered(counts):
        if not tc.comparisons:
            continue
        tr = tc.readings()
        pub = tc.published()
        total = sum(pub.values())
        other = pub["other data"]
        held_tr = tr.held_out if tr.fitted else tr.literal
        name = f"{PAPERS.get(paper, {}).get('short', paper).split(' (')[0]} T{table}"
        lit_cells = {k: pub[k] for k in (IN_TOL, *CATEGORIES, "other data", "not run")}
        held_cells = {IN_TOL: held_tr.state(IN_TOL), **{k: held_tr.state(k) for k in CATEGORIES},
                      "other data": other}
        held_cells["not run"] = max(0, total - sum(held_cells.values()))
        bars.append((name, plots.OverviewBar(f"{name} literal", lit_cells),
                     plots.OverviewBar(f"{name} held out", held_cells)))
    files = plots.plot_reproduction_overview(bars, out_dir / FIGURE_DIR, FIGURE_STEM) if bars else []
    png = next((f for f in files if f.suffix == ".png"), None)
    if png is not None:
        out += [f"![Per published table, its cells in tolerance, off by cause, on other data and not run: the literal "
                f"reading above, held out below]({link_path(png, out_dir)})", ""]
    return out, files


def _pct(s: ReadingScore) -> str:
    return f"{100.0 * s.in_tolerance / s.judged:.1f}%" if s.judged else "—"


# ----------------------------------------------------------------------------- rendering
def overview_md(tables: list[tuple[str, str]], entries: list[Entry], comparisons: dict[Path, Comparison | str],
                configs: list[ConfigInfo], summaries: set[tuple[str, str]], out_dir: Path,
                project: Path | None, results_root: Path) -> list[str]:
    """The Overview section of REPRODUCTION.md (Markdown lines)."""
    counts = table_counts(entries, comparisons)
    out = ["## Overview", "",
           "Generated by `olk report` from every results directory's experiment.json and runs, the comparisons "
           "with results/paper/ and the causes in results/annotations.yaml: nothing here is written by hand.", ""]
    out += _verdicts_md(tables, counts, summaries, entries, configs, project, out_dir)
    out += _provenance_md(tables, counts, out_dir)
    out += _read_md()
    out += _ran_md(entries, comparisons, out_dir, project, load_annotations(results_root))
    out += _unavailable_md(tables, entries, comparisons, configs, project)
    out += _configs_md(configs, entries, project)
    return out


def _verdicts_md(tables, counts, summaries, entries, configs, project, out_dir) -> list[str]:
    rules = "; ".join(f"*{name}*: {what}" for name, (what, _) in TIE_RULES.items())
    out = ["### Verdicts per table", "",
           "Judged cells (accuracy or mistake rate, MSE, efficiency, #SV) of each table's main results "
           "directories, which hold the **literal** reading: what the paper prints and, where it is silent, a "
           "default fixed before looking at results.  Readings *fitted* to the paper's cells are labelled variants "
           "(below), shown twice: **best fitted (in-sample)** takes, per dataset, the reading with the most cells "
           "in tolerance, judged on the very cells it was fitted to; **held out** chooses each dataset's reading "
           "by its cells on the *other* datasets and judges it here (leave one dataset out).  A reading is scored "
           "as the literal cells with its own in their place, so the three numbers count the same cells.", "",
           f"Held out, {CANDIDATE_RULE}; a *literal alternative* (the other side of a contradiction in the paper, "
           f"{_page_link(project, out_dir)}) never is.  Candidates that score alike on the other datasets tie, and the "
           f"headline breaks a tie to the literal reading.  The held-out number is computed under each tie rule "
           f"({rules}) and the range they span is printed after it: a candidate with no cells on the other datasets "
           f"ties with the literal reading by construction.", "",
           f"Cells on a dataset whose size is not the paper's (more than {SIZE_RULE:.0%} apart), whose train / test "
           f"split is not the paper's, or that stands in for the paper's are *counted apart*; a cell the paper "
           f"prints no number for gets no verdict.", ""]
    rows = []
    summary_names = []
    for paper, table in tables:
        info = PAPERS.get(paper, {})
        head = [f"{md_escape(info.get('short', paper))} [Table {md_escape(table)}](#{anchor(paper, table)})"]
        tc = counts.get((paper, table))
        if (paper, table) in summaries:
            summary_names.append(head[0])
            continue
        if tc is None:
            waiting = [e for e in entries if e.kind == "in_progress" and e.key == (paper, table)]
            cfgs = [c for c in configs if (c.paper, c.table) == (paper, table)]
            what = "not yet run" + (" (in progress)" if waiting else "") + (
                f"; config {code(shown(cfgs[0].path, project))}" if cfgs else "; no config yet")
            rows.append(head + [what, "", "", "", "", "", ""])
            continue
        same = tc.counts[PAPER_DATA]
        tr = tc.readings()
        pub = tc.published()
        apart = "; ".join(f"{tc.counts[k]['judged']} {APART[k]} ({tc.counts[k]['in tolerance']} in tolerance)"
                          for k in APART if tc.counts[k]["judged"]) or "—"
        if tc.failed:
            apart += f"; comparison failed: {', '.join(md_escape(n) for n in tc.failed)}"
        if not same["judged"] and not (tr.fitted and tr.best.judged):
            rows.append(head + ["0", "—", "—", "—", "—", apart, str(pub["not run"])])
            continue
        lo, hi = tr.held_out_range()
        held = f"{tr.held_out.text()}; {_range(lo, hi)}" if tr.fitted and lo != hi else \
            tr.held_out.text() if tr.fitted else "—"
        rows.append(head + [str(same["judged"]), _share(same["in tolerance"], same["judged"]),
                            " / ".join(str(same[k]) for k in CATEGORIES),
                            tr.best.text() if tr.fitted else "no fitted reading", held, apart, str(pub["not run"])])
    out += table_md(["Table", "Judged", "Literal: in tolerance", "Off: " + " / ".join(CATEGORIES),
                     "Best fitted (in-sample)", "Held out; tie range", "Counted apart", "Not run"], rows,
                    [":---", "---:", "---:", "---:", "---:", "---:", ":---", "---:"]) + [""]
    if summary_names:
        out += ["Dataset-summary tables (nothing to run): " + ", ".join(summary_names) + ".", ""]
    total: Counter = Counter()
    per_paper: dict = {}
    for (paper, _), tc in _ordered(counts):
        total.update(tc.counts[PAPER_DATA])
        per_paper.setdefault(paper, Counter()).update(tc.counts[PAPER_DATA])
    if total["judged"]:
        parts = "; ".join(f"{md_escape(PAPERS.get(p, {}).get('short', p))}: {counts_text(c)}"
                          for p, c in per_paper.items() if c["judged"])
        out += [f"**On the paper's data, all tables, under the literal reading:** {counts_text(total)}. Per paper: "
                f"{parts}.", ""]
        out += _readings_md(counts)
    out += _variants_md(counts, entries, project, out_dir)
    conflicts = [x for _, tc in _ordered(counts) for x in choice_conflicts(tc.comparisons)]
    if conflicts:
        out += ["**A reading choice carries two labels** (one choice, one label: fix `compare: {choices: ...}` of "
                "these results directories' configs, or `readings:` in results/annotations.yaml):", ""]
        out += [f"- {md_escape(x)}" for x in conflicts] + [""]
    return out


def _page_link(project: Path | None, out_dir: Path) -> str:
    """The contradictions page, linked when the project is known."""
    if project is None or not (project / CONTRADICTIONS_PAGE).is_file():
        return CONTRADICTIONS_PAGE
    return f"[{CONTRADICTIONS_PAGE}]({link_path(project / CONTRADICTIONS_PAGE, out_dir)})"


def _readings_md(counts: dict[tuple[str, str], TableCounts]) -> list[str]:
    """The literal / best fitted / held-out sentence over all tables, and each table's picks."""
    tot = _totals(counts)
    lo, hi = tot.held_range
    head = next(iter(TIE_RULES))
    others = ", ".join(f"{name} {tot.held[name].in_tolerance}" for name in list(TIE_RULES)[1:])
    out = [f"**Literal, fitted, held out** (every table; a table without a fitted reading counts its literal "
           f"cells in all three): literal {tot.literal.text()}; best fitted reading, judged on the cells it was "
           f"fitted to, {tot.best.text()}; fitted readings held out (leave one dataset out) "
           f"{tot.held[head].text()} with ties to the literal reading, {_range(lo, hi)} of {tot.held[head].judged} "
           f"under the tie rules ({others}).", ""]
    lines = []
    for (paper, table), tc in _ordered(counts):
        tr = tc.readings()
        if not (tc.comparisons and tr.fitted):
            continue
        short = md_escape(PAPERS.get(paper, {}).get("short", paper))

        def picks(s: ReadingScore) -> str:
            moved = [f"{md_escape(d)}: {md_escape(n)}" for d, n in s.picks if n != LITERAL]
            return "; ".join(moved) if moved else "every dataset literal"

        lo, hi = tr.held_out_range()
        rng = "" if lo == hi else (" — under the other tie rules " + ", ".join(
            f"{name} {s.in_tolerance}" + (f" ({picks(s)})" if s.picks != tr.held_out.picks else "")
            for name, s in list(tr.held_out_by_rule.items())[1:]))
        lines.append(f"- {short} [Table {md_escape(table)}](#{anchor(paper, table)}): literal {tr.literal.text()}; "
                     f"best fitted {tr.best.text()} ({picks(tr.best)}); held out {tr.held_out.text()} "
                     f"({picks(tr.held_out)}){rng}.")
    if lines:
        out += ["Which reading each dataset took, where it is not the literal one (held out: ties to the literal "
                "reading):", ""] + lines + [""]
    return out


def _designed(spec, entries: list[Entry]) -> str:
    """'candidates designed 2026-11-26, after the in-sample fit spa_table5_fitted (started 2026-11-25)'."""
    if not spec.designed:
        return ""
    fit = next((e for e in entries if e.path.name == spec.after_fit), None)
    if fit is None:
        return (f"; candidates designed {spec.designed}, after the in-sample fit {md_escape(spec.after_fit)} (no "
                f"such results directory)")
    started = str(fit.meta.get("started") or "")[:10]
    out = (f"; **its candidates were designed after an in-sample fit**: designed {spec.designed}, the fit "
           f"{md_escape(spec.after_fit)} first ran {started or 'on a date not recorded'}")
    if started and started > spec.designed:
        out += " (the design date is before the fit's: check compare.designed)"
    return out


def _variants_md(counts: dict[tuple[str, str], TableCounts], entries: list[Entry], project: Path | None,
                 out_dir: Path) -> list[str]:
    variants = [(key, d, label, cnt) for key, tc in _ordered(counts) for d, (label, cnt) in tc.variants.items()]
    if not variants:
        return []
    out = ["Labelled variants (another reading of the table; not in the literal counts above):", ""]
    for (paper, table), d, label, cnt in variants:
        tc = counts[(paper, table)]
        tr = tc.readings()
        c = next(x for x in tc.comparisons if x.results.path.name == d)
        spec = c.reading_spec
        r = next(x for x in tr.readings if x.name == d)
        own = tr.own_held_out.get(d)
        held = (f"; held out (cells of the datasets it was not chosen on): {own.text()}" if own is not None
                and own.judged else "; held out: no judged cell outside the datasets it was chosen on"
                if r.reading == FITTED else "")
        if spec.reading == LITERAL_ALTERNATIVE:
            held = ("; never a candidate of best fitted or held out; its off cells are cause *paper* "
                    f"({_page_link(project, out_dir)}, row {spec.contradiction})")
        apart = "; ".join(f"{APART[k]}: {counts_text(cnt[k])}" for k in APART if cnt[k]["judged"])
        what = "" if spec.reading == LITERAL_ALTERNATIVE and label == spec.label() else f": {md_escape(label)}"
        out.append(f"- {md_escape(d)} ({md_escape(PAPERS.get(paper, {}).get('short', paper))} Table "
                   f"{md_escape(table)}, {md_escape(spec.label())}){what}. Paper's data: "
                   f"{counts_text(cnt[PAPER_DATA])}{held}" + (f"; {apart}" if apart else "")
                   + _designed(spec, entries) + ".")
    return out + [""]


def _provenance_md(tables: list[tuple[str, str]], counts: dict[tuple[str, str], TableCounts], out_dir: Path
                   ) -> list[str]:
    """Per table, each of its results directories: the commits that computed its runs, and its verification."""
    rows = []
    for paper, table in tables:
        tc = counts.get((paper, table))
        if tc is None:
            continue
        short = md_escape(PAPERS.get(paper, {}).get("short", paper))
        for e in sorted(tc.entries, key=lambda e: (e.path.name not in tc.main, e.path.name)):
            c = next(x for x in tc.comparisons if x.results.path is e.results.path) if e.results else None
            commits, problem = run_commits(e.path, e.meta)
            found, vproblem = verifications(e.path)
            role = "main" if e.path.name in tc.main else md_escape(c.reading_spec.short_label()) if c else "variant"
            rows.append([f"{short} [Table {md_escape(table)}](#{anchor(paper, table)})",
                         f"[{md_escape(e.path.name)}/]({link_path(e.path, out_dir)}/)", role,
                         md_escape(commits_text(commits) + (f"; {problem}" if problem else "")),
                         md_escape(verification_text(found) + (f" ({vproblem})" if vproblem else ""))])
    if not rows:
        return []
    head = ["Table", "Results", "Reading", "Runs computed at", "Verification"]
    return ["### Provenance: which code computed each table, and was it rerun", "",
            "Per results directory of each table: the commits its runs were computed at (runs.jsonl: each run "
            "records its commit; a tree with uncommitted changes is said, a commit reconstructed from git history "
            "afterwards is marked, and *from experiment.json* means the runs record no commit of their own, so the "
            "one the whole `olk run` started from stands for them), and the latest verification (verified.json, "
            "written by `olk verify`: the runs recomputed and compared bit for bit; one made from a tree with "
            "uncommitted changes does not count).", ""] + table_md(head, rows, [":---"] * len(head)) + [""]


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


def _reading(e: Entry, c: Comparison | str | None, ann: Annotations) -> str:
    if e.kind == "reproduction" and not e.reason and isinstance(c, Comparison):
        return f"{md_escape(c.reading_spec.label())}; {_role(c)}"
    try:
        label = ann.reading_spec(e.path.name, e.meta.get("compare"), f"{e.path}/experiment.json: compare").label()
    except OlkError:
        label = "reading not labelled"
    return f"{md_escape(label)}; {_role_of(e, c)}"


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
