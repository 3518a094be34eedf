"""Which code computed a results directory, and whether a rerun gave the same bits: read from the directory.

* **The commits that computed its runs**: every line of ``runs.jsonl`` (one finished run) may carry ``"commit"``
  (12 hex digits), ``"dirty"`` (the tree had uncommitted changes) and, for a record whose commit was reconstructed
  from git history after the fact, ``"commit_from": "history"`` or ``"history-ambiguous"``.  Runs are counted per
  (commit, dirty, how it is known).  Records written before runs carried a commit count under experiment.json's
  ``git_commit`` (the commit the whole ``olk run`` started from), marked as such.
* **The machines that computed its runs** (:func:`machines_text`): each record's ``"machine"`` (written since
  2026-11-28), counted per machine over a table's runs; older records are counted apart, since experiment.json's
  ``machine`` is only the last invocation's.
* **The latest verification**: ``verified.json`` (written by ``olk verify``), ``{"verifications": [{"commit",
  "dirty", "date", "olk_version", "command", "sample" (int, or null: every run), "sample_seed", "runs_total",
  "runs_checked", "identical", "differing": [{"run_id", "label", "dataset", "perm", "fields"}], "ignored_fields",
  "wall_s"}, ...]}``.  The latest one made from a clean tree counts (a verification at a tree with uncommitted
  changes proves nothing about a commit); none: *not verified*.

Both are optional: a directory without them reads "not recorded" / "not verified", and a file that cannot be read is
said so in one line rather than stopping the report.

>>> commits_text([RunCommits("848f847cfcae", False, "", 430)])
'848f847cfcae (430 runs)'
>>> verification_text(None)
'not verified'
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from olk.errors import OlkError
from olk.fileio import read_json_object, read_own_bytes

VERIFIED_FILE = "verified.json"
#: how a run's commit is known: recorded by the run ('') or reconstructed from git history
HISTORY, HISTORY_AMBIGUOUS, FROM_EXPERIMENT = "history", "history-ambiguous", "experiment.json"
_ORIGIN_WORDS = {HISTORY: "reconstructed from git history",
                 HISTORY_AMBIGUOUS: "reconstructed from git history, ambiguous",
                 FROM_EXPERIMENT: "from experiment.json"}
_FIX = "rerun its config, or remove the file"


@dataclass(frozen=True)
class RunCommits:
    """``count`` runs computed at ``commit`` (``dirty``: with uncommitted changes); ``origin`` says how the commit is
    known ('' recorded by the run, :data:`HISTORY`, :data:`HISTORY_AMBIGUOUS` or :data:`FROM_EXPERIMENT`)."""

    commit: str
    dirty: bool
    origin: str
    count: int


def run_commits(directory: Path, meta: dict[str, Any]) -> tuple[list[RunCommits], str]:
    """The runs of ``directory`` counted per commit (in order of first appearance), and a problem ('' if none)."""
    try:
        raw = read_own_bytes(directory / "runs.jsonl", _FIX)
    except OlkError as e:
        return [], str(e)
    if raw is None:
        return [], "no runs.jsonl"
    fallback = str(meta.get("git_commit") or "")
    counts: dict[tuple[str, bool, str], int] = {}
    bad = 0
    for line in raw.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            bad += 1
            continue
        if not isinstance(rec, dict):
            bad += 1
            continue
        commit = rec.get("commit")
        if isinstance(commit, str) and commit.strip():
            key = (commit.strip()[:12], rec.get("dirty") is True, str(rec.get("commit_from") or ""))
        else:
            key = (fallback.removesuffix("-dirty")[:12], fallback.endswith("-dirty"), FROM_EXPERIMENT)
        counts[key] = counts.get(key, 0) + 1
    out = [RunCommits(c, d, o, n) for (c, d, o), n in counts.items()]
    return out, (f"{bad} line{'s' if bad != 1 else ''} of runs.jsonl not a JSON object" if bad else "")


def _runs(n: int) -> str:
    """'1 run', '1,968 runs'."""
    return f"{n:,} run{'s' if n != 1 else ''}"


def commits_text(commits: list[RunCommits]) -> str:
    """'848f847cfcae (430 runs)', '3c162727b033 with uncommitted changes (330 runs; from experiment.json)' (the
    runs record no commit of their own), several joined by '; '."""
    parts = []
    for c in commits:
        what = (c.commit or "commit not recorded") + (" with uncommitted changes" if c.dirty else "")
        notes = [_runs(c.count)] + ([_ORIGIN_WORDS[c.origin]] if c.origin in _ORIGIN_WORDS else [])
        parts.append(f"{what} ({'; '.join(notes)})")
    return "; ".join(parts) if parts else "no runs recorded"


def machines_text(provenance: dict[str, dict], run_ids, last: str | None) -> str:
    """The machines that computed the runs ``run_ids`` (a table's main-phase runs), from their records' ``machine``
    (:attr:`olk.report.results.Results.provenance`), in order of first appearance with their counts; runs recorded
    before runs carried their machine are counted apart, beside the machine experiment.json names (``last``: the
    last invocation's, which need not be theirs).

    >>> prov = {"a": {"machine": "Xeon"}, "b": {"machine": None}, "c": {"machine": "Xeon"}}
    >>> machines_text(prov, ["a", "b", "c"], "EPYC")
    "Xeon (2 runs); not recorded by the run (1 run; experiment.json names the last invocation's: EPYC)"
    >>> machines_text({}, ["a"], "EPYC")
    "EPYC (the last invocation's; the runs record no machine of their own)"
    """
    counts = Counter(m if isinstance(m := (provenance.get(str(r)) or {}).get("machine"), str) and m else None
                     for r in run_ids)
    unrecorded = counts.pop(None, 0)
    if not counts:
        return (f"{last} (the last invocation's; the runs record no machine of their own)" if last
                else "not recorded")
    parts = [f"{m} ({_runs(n)})" for m, n in counts.items()]
    if unrecorded:
        parts.append(f"not recorded by the run ({_runs(unrecorded)}"
                     + (f"; experiment.json names the last invocation's: {last})" if last else ")"))
    return "; ".join(parts)


@dataclass(frozen=True)
class Verification:
    """One entry of verified.json, as the report reads it."""

    commit: str
    dirty: bool
    date: str
    sample: int | None
    runs_total: int | None
    runs_checked: int | None
    differing: int

    @property
    def counts(self) -> bool:
        """Made from a clean tree: a verification at a dirty one does not count."""
        return not self.dirty


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def verifications(directory: Path) -> tuple[list[Verification], str]:
    """The entries of ``directory``/verified.json in file order, and a problem ('' if none; no file: [], '')."""
    try:
        doc = read_json_object(directory / VERIFIED_FILE, "run olk verify again, or remove the file")
    except OlkError as e:
        return [], str(e)
    if doc is None:
        return [], ""
    items = doc.get("verifications")
    if not isinstance(items, list):
        return [], f"{directory / VERIFIED_FILE}: 'verifications' is not a list"
    out = []
    for v in items:
        if not isinstance(v, dict):
            continue
        checked = _int(v.get("runs_checked"))
        identical, same = v.get("identical"), _int(v.get("identical"))
        differing = v.get("differing")
        if isinstance(differing, list) and differing:
            k = len(differing)
        elif isinstance(identical, bool):
            k = 0 if identical else max(1, checked or 1)
        elif same is not None and checked is not None:
            k = max(0, checked - same)
        else:
            k = 0 if isinstance(differing, list) else 1
        out.append(Verification(str(v.get("commit") or "?")[:12], v.get("dirty") is not False,
                                str(v.get("date") or "?")[:10], _int(v.get("sample")), _int(v.get("runs_total")),
                                checked, k))
    return out, ""


def latest_verification(items: list[Verification]) -> tuple[Verification | None, Verification | None]:
    """(the latest verification that counts, the latest one at all): latest by date, then by file order."""
    order = sorted(range(len(items)), key=lambda i: (items[i].date, i))
    clean = [items[i] for i in order if items[i].counts]
    return (clean[-1] if clean else None), (items[order[-1]] if order else None)


def verification_text(items: list[Verification] | None) -> str:
    """'verified bit-identical at 848f847cfcae on 2026-12-01: 430 of 430 runs' (or '...: a sample of 40 of 430
    runs', 'verified at ... on ...: 3 differ, of 430 of 430 runs', 'not verified'); a verification at a dirty tree
    is named as not counting."""
    if not items:
        return "not verified"
    good, last = latest_verification(items)
    out = "not verified" if good is None else _one(good)
    if last is not None and last.dirty and last is not good:
        out += (f" (the verification of {last.date} ran at {last.commit} with uncommitted changes: it does not "
                "count)")
    return out


def _one(v: Verification) -> str:
    total = f"{v.runs_total:,}" if v.runs_total is not None else "?"
    checked = v.runs_checked if v.runs_checked is not None else v.sample
    what = (f"a sample of {checked:,} of {total} runs" if v.sample is not None and checked is not None else
            f"{checked:,} of {total} runs" if checked is not None else f"{total} runs")
    if v.differing:
        return f"verified at {v.commit} on {v.date}: {v.differing:,} differ, of {what}"
    return f"verified bit-identical at {v.commit} on {v.date}: {what}"
