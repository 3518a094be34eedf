#!/usr/bin/env python3
"""Give each run record of a committed results directory the commit that computed it (issue 48), from git history.

Since issue 48 ``olk run`` writes into every record of ``runs.jsonl`` the commit of the tree that computed it
(``"commit"``: 12 hex digits, ``"dirty"``: whether the tree had uncommitted changes outside results/).  Records written
before carry neither, and a table or report refuses them.  This script reconstructs the two keys for such records
from the git history of their results directory and marks them as reconstructed (``"commit_from"``):

    python tools/backfill_run_commits.py                      # every results/*/runs.jsonl
    python tools/backfill_run_commits.py results/klr_table2   # one directory
    python tools/backfill_run_commits.py --dry-run            # the counts, nothing written
    python tools/backfill_run_commits.py --again              # attribute the reconstructed records again

**The rule.**  For each record of ``DIR/runs.jsonl`` without a ``commit``:

1. *The git commit that introduced it*: the history of ``DIR/runs.jsonl`` is walked oldest first, following renames
   and copies (``git log --follow``: ``results/spa_table6_earlier`` was ``results/spa_table6``).  The record is
   introduced by the first git commit from which ``runs.jsonl`` holds that run's record exactly as it is now (the same
   JSON object, ``time_s`` included) in every later commit of that history.  When the record never changed this is
   the first git commit in which its ``run_id`` appears; when a later invocation computed the run again (a
   ``--force``, a directory deleted and made anew), it is the commit that brought the record of now.
2. *The invocation*: the ``experiment.json`` beside ``runs.jsonl`` in that git commit.  Its ``git_commit``
   (``abcdef123456`` or ``abcdef123456-dirty``: the tree of the invocation that wrote it, uncommitted changes outside
   results/ marked ``-dirty``) gives ``"commit"`` (the 12 hex digits) and ``"dirty"`` (the marker), and the record gets
   ``"commit_from": "history"``.  One invocation (the same ``started`` and ``command``) can be recorded with several
   commits by the committed versions of its experiment.json: olk wrote HEAD again when the run finished, and HEAD can
   move during a run (``results/spa_table5_fitted``: started at ``dbd705b5d089``, finished at ``25423bd8b93d``); and a
   history rewrite left names of commits that are gone, which a later commit mapped to their new names (f4a4c86:
   ``067cca9 -> 9fc0a2c``, "the same code").  The commit taken is the earliest of them that is a commit of this
   repository: the tree the run started from, under a name that exists.
3. *Ambiguous* (``"commit_from": "history-ambiguous"``, with the same best candidate of step 2 as ``commit`` /
   ``dirty``; ``commit`` and ``dirty`` are null when no experiment.json of that history records a commit) when that
   experiment.json cannot be the invocation that computed the run:

   * ``not-updated``: experiment.json is absent from that git commit or did not change in it (every ``olk run``
     rewrites it, so the runs came with no record of their invocation; the candidate is the last one recorded);
   * ``no-commit``: it records no ``git_commit`` of the form above (the candidate: the nearest experiment.json of the
     history that does, earlier first);
   * ``subset``: its command ran ``-d/--datasets`` without the run's dataset, or its ``scale`` or ``name`` differs
     from the run's ``scale`` / ``experiment``;
   * ``too-long``: the runs the git commit introduced took longer than that invocation could have: the sum of their
     ``time_s`` (the learner's time alone) exceeds 1.05 x its wall time (``finished`` - ``started``; the git commit's
     date when it did not finish) x its parallel jobs, plus 10 s.  Runs of several invocations were committed
     together, and experiment.json names only the last (``results/spa_table5``: 430 runs of hours under the
     experiment.json of a 2 s ``--resume``);
   * ``unknown-commit``: none of the commits recorded for that invocation is a commit of this repository (a branch
     rewritten or dropped since, with no later mapping): the candidate is the name recorded.

   A record copied from another directory's runs (its ``experiment`` names another config than the experiment.json
   does, and ``results/<experiment>``'s history holds the identical record) is attributed there by the same rule.

   A run whose record is not in the committed history at all (a working-tree change) is left without the keys and
   counted as ``unattributed``; the script then exits 1.

Only the keys ``commit``, ``dirty`` and ``commit_from`` are added (records are written back as olk writes them:
``json.dumps(record, sort_keys=True)``, which every committed line already is); records that have a ``commit`` are
left untouched.  ``--check`` verifies afterwards that every directory's records minus these keys equal the committed
ones (HEAD), and that every record has a commit.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shlex
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PROVENANCE = ("commit", "dirty", "commit_from")
_GIT_COMMIT = re.compile(r"^([0-9a-f]{12})(-dirty)?$")
#: the tolerance of the too-long rule: sum(time_s) > FACTOR x wall x jobs + SLACK_S
FACTOR, SLACK_S = 1.05, 10.0


def git(repo: Path, *args: str, check: bool = True) -> str | None:
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if out.returncode != 0:
        if check:
            raise SystemExit(f"backfill: git {' '.join(args)}: {out.stderr.strip()}")
        return None
    return out.stdout


def history(repo: Path, rel: str) -> list[tuple[str, str | None]]:
    """(git commit, the file's path there or None when the commit deleted it) for every git commit of `rel`'s
    history, oldest first, following renames and copies."""
    text = git(repo, "log", "--follow", "--name-status", "--format=%x00%H", "--", rel) or ""
    entries = []
    for block in text.split("\0")[1:]:
        lines = [ln for ln in block.splitlines() if ln.strip()]
        commit, status = lines[0].strip(), (lines[1].split("\t") if len(lines) > 1 else ["M", rel])
        entries.append((commit, None if status[0].startswith("D") else status[-1]))
    return entries[::-1]


def canon(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True)


def records_at(repo: Path, commit: str, path: str | None) -> dict[str, tuple[str, dict]]:
    """run_id -> (canonical text without the provenance keys, record) of runs.jsonl at `commit` (empty when absent)."""
    if path is None:
        return {}
    text = git(repo, "show", f"{commit}:{path}", check=False) or ""
    out = {}
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("run_id"), str):
            out[rec["run_id"]] = (canon({k: v for k, v in rec.items() if k not in PROVENANCE}), rec)
    return out


def blob(repo: Path, commit: str, path: str) -> str | None:
    out = git(repo, "rev-parse", "--verify", "-q", f"{commit}:{path}", check=False)
    return out.strip() if out else None


def json_at(repo: Path, commit: str, path: str) -> dict | None:
    text = git(repo, "show", f"{commit}:{path}", check=False)
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _time(text) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(str(text)).replace(tzinfo=None)
    except ValueError:
        return None


def _datasets_option(command) -> list[str] | None:
    """The -d/--datasets subset of an olk command line, None when it ran every dataset."""
    try:
        words = shlex.split(str(command or ""))
    except ValueError:
        return None
    for i, w in enumerate(words):
        for opt in ("-d", "--datasets"):
            if w == opt and i + 1 < len(words):
                return [v.strip() for v in words[i + 1].split(",") if v.strip()]
            if w.startswith(opt + "="):
                return [v.strip() for v in w[len(opt) + 1:].split(",") if v.strip()]
    return None


def _jobs(meta: dict) -> int:
    n = meta.get("n_jobs")
    if isinstance(n, int) and n > 0:
        return n
    cores = re.search(r"(\d+) cores", str(meta.get("machine") or ""))
    total = int(cores.group(1)) if cores else (os.cpu_count() or 1)
    return max(1, total + 1 + n) if isinstance(n, int) and n < 0 else 1


@dataclass
class Invocation:
    """What the experiment.json beside runs.jsonl in one git commit says."""
    commit: str | None = None           # 12 hex digits of its git_commit
    dirty: bool | None = None
    meta: dict = field(default_factory=dict)
    updated: bool = False               # experiment.json changed in that git commit
    known: bool = False                 # commit is a commit of this repository


@dataclass
class Counts:
    history: int = 0
    ambiguous: int = 0
    kept: int = 0                       # records that already had a commit
    unattributed: int = 0
    copied: int = 0                     # of history + ambiguous: attributed in the directory they were copied from
    reasons: Counter = field(default_factory=Counter)

    def add(self, other: "Counts") -> None:
        for k in ("history", "ambiguous", "kept", "unattributed", "copied"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.reasons.update(other.reasons)

    def line(self, name: str) -> str:
        why = ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items()))
        return (f"{name}: {self.history} history, {self.ambiguous} history-ambiguous"
                + (f" ({why})" if why else "") + (f"; {self.copied} of them copied from another directory's runs"
                                                  if self.copied else "")
                + (f", {self.kept} already recorded" if self.kept else "")
                + (f", {self.unattributed} UNATTRIBUTED (not in the committed history)" if self.unattributed else ""))


class Lineage:
    """The committed versions of one runs.jsonl (``git log --follow``, oldest first) and, for every record of every
    version, the version that introduced it (the first of the stretch of versions holding it unchanged)."""

    def __init__(self, repo: Path, rel_log: str):
        self.repo = repo
        self.entries = history(repo, rel_log)
        self.versions = [records_at(repo, c, p) for c, p in self.entries]
        self.intro: list[dict[str, int]] = []
        for k, version in enumerate(self.versions):
            before = self.versions[k - 1] if k else {}
            self.intro.append({rid: self.intro[k - 1][rid] if rid in before and before[rid][0] == text else k
                               for rid, (text, _) in version.items()})
        self._inv: dict[int, Invocation] = {}
        self._too_long: dict[int, bool] = {}
        # every committed version of the experiment.json beside it (a later one may name the same invocation's
        # commit differently: HEAD moved during the run, or a history rewrite mapped the commit to its new name)
        exp = str(Path(rel_log).parent / "experiment.json")
        self.metas = [m for m in (json_at(repo, c, p) for c, p in history(repo, exp) if p is not None) if m]
        self._exists: dict[str, bool] = {}

    def exists(self, commit: str) -> bool:
        """`commit` (12 hex digits) is a commit of this repository."""
        if commit not in self._exists:
            self._exists[commit] = git(self.repo, "rev-parse", "--verify", "-q", f"{commit}^{{commit}}",
                                       check=False) is not None
        return self._exists[commit]

    def resolve(self, meta: dict) -> tuple[str | None, bool | None, bool]:
        """(commit, dirty, whether it is a commit of this repository) of the invocation `meta` records: the
        earliest git_commit that any committed version of this experiment.json records for the same invocation
        (the same started and command) and that is a commit of this repository; else `meta`'s own."""
        same = [m for m in self.metas if (m.get("started"), m.get("command")) == (meta.get("started"),
                                                                                  meta.get("command"))]
        found = [m for m in (_GIT_COMMIT.match(str(x.get("git_commit") or "")) for x in same + [meta]) if m]
        for m in found:
            if self.exists(m.group(1)):
                return m.group(1), bool(m.group(2)), True
        own = _GIT_COMMIT.match(str(meta.get("git_commit") or ""))
        return (own.group(1), bool(own.group(2)), False) if own else (None, None, False)

    def introduced(self, rid: str, text: str, last: bool) -> int | None:
        """The version that introduced the record `text` of run `rid` as the last version holds it (`last`), else as
        the latest version holding it does."""
        for k in range(len(self.versions) - 1, -1, -1):
            got = self.versions[k].get(rid)
            if got is not None and got[0] == text:
                return self.intro[k][rid]
            if last:
                return None
        return None

    def invocation(self, i: int) -> Invocation:
        if i not in self._inv:
            commit, path = self.entries[i]
            assert path is not None
            exp = str(Path(path).parent / "experiment.json")
            meta = json_at(self.repo, commit, exp)
            if meta is None:
                self._inv[i] = Invocation()
            else:
                before = blob(self.repo, f"{commit}^", exp)
                prev = self.entries[i - 1][1] if i else None
                if before is None and prev is not None:
                    before = blob(self.repo, f"{commit}^", str(Path(prev).parent / "experiment.json"))
                sha, dirty, known = self.resolve(meta)
                self._inv[i] = Invocation(sha, dirty, meta, blob(self.repo, commit, exp) != before, known)
        return self._inv[i]

    def nearest(self, i: int) -> Invocation:
        """The invocation of version i, or when it records no commit the nearest one of this history that does
        (earlier first)."""
        order = [k for k in range(i, -1, -1)] + [k for k in range(i + 1, len(self.entries))]
        for k in order:
            if self.entries[k][1] is not None and self.invocation(k).commit:
                return self.invocation(k)
        return self.invocation(i)

    def subset(self, i: int, rec: dict) -> bool:
        """The invocation of version i did not run `rec`'s dataset, scale or experiment."""
        meta = self.invocation(i).meta
        chosen = _datasets_option(meta.get("command"))
        return ((chosen is not None and rec.get("dataset") not in chosen)
                or (meta.get("scale") is not None and rec.get("scale") != meta.get("scale"))
                or bool(meta.get("name") and rec.get("experiment") and rec["experiment"] != meta["name"]))

    def too_long(self, i: int) -> bool:
        """The records version i introduced (those of its invocation's datasets, scale and experiment) took longer
        than its invocation ran (the module docstring's rule)."""
        if i not in self._too_long:
            inv = self.invocation(i)
            runs = [rec for rid, (_, rec) in self.versions[i].items()
                    if self.intro[i][rid] == i and not self.subset(i, rec)]
            busy = sum(float(r.get("time_s") or 0.0) for r in runs)
            start, end = _time(inv.meta.get("started")), _time(inv.meta.get("finished"))
            if end is None:
                date = git(self.repo, "show", "-s", "--format=%cI", self.entries[i][0], check=False)
                end = _time(date.strip()) if date else None
            self._too_long[i] = (start is None or end is None or
                                 busy > FACTOR * max((end - start).total_seconds(), 0.0) * _jobs(inv.meta) + SLACK_S)
        return self._too_long[i]

    def verdict(self, i: int, rec: dict) -> tuple[Invocation, str | None]:
        """(the candidate invocation, the ambiguity reason or None) of a record introduced by version i."""
        inv = self.invocation(i)
        if not inv.updated:
            reason: str | None = "not-updated"
        elif inv.commit is None:
            reason = "no-commit"
        elif self.subset(i, rec):
            reason = "subset"
        elif self.too_long(i):
            reason = "too-long"
        elif not inv.known:
            reason = "unknown-commit"
        else:
            reason = None
        return (inv if inv.commit else self.nearest(i)), reason


def _todo(rec: dict, again: bool) -> bool:
    """A record to attribute: one without a commit, and with `again` one whose commit was reconstructed."""
    return "commit" not in rec or (again and "commit_from" in rec)


def attribute(repo: Path, rel_dir: str, again: bool = False) -> tuple[dict[str, tuple], Counts]:
    """run_id -> (commit, dirty, commit_from, reason) for the records of `rel_dir`/runs.jsonl without a commit (with
    `again`, also those whose commit was reconstructed: ``commit_from`` set)."""
    log = Path(rel_dir) / "runs.jsonl"
    current = {}
    for line in (repo / log).read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            current[rec["run_id"]] = rec
    counts = Counts()
    todo = {rid: rec for rid, rec in current.items() if _todo(rec, again)}
    counts.kept = len(current) - len(todo)
    own = Lineage(repo, str(log))
    others: dict[str, Lineage | None] = {}
    out = {}
    for rid, rec in todo.items():
        text = canon({k: v for k, v in rec.items() if k not in PROVENANCE})
        i = own.introduced(rid, text, last=True)
        if i is None:
            counts.unattributed += 1
            continue
        inv, reason = own.verdict(i, rec)
        name = own.invocation(i).meta.get("name")
        if reason == "subset" and rec.get("experiment") and name and rec["experiment"] != name:
            # copied from the directory of the experiment that computed it: attributed there by the same rule
            other = f"results/{rec['experiment']}/runs.jsonl"
            if other not in others:
                others[other] = Lineage(repo, other) if git(repo, "log", "-1", "--format=%H", "--", other,
                                                              check=False) else None
            lin = others[other]
            j = lin.introduced(rid, text, last=False) if lin is not None else None
            if lin is not None and j is not None:
                inv, reason = lin.verdict(j, rec)
                counts.copied += 1
        out[rid] = (inv.commit, inv.dirty, "history-ambiguous" if reason else "history", reason)
        if reason:
            counts.ambiguous += 1
            counts.reasons[reason] += 1
        else:
            counts.history += 1
    return out, counts


def rewrite(repo: Path, rel_dir: str, found: dict[str, tuple], again: bool = False) -> None:
    """Add the keys to the records of `found` (every other byte of each line as it was: olk writes sorted keys)."""
    path = repo / rel_dir / "runs.jsonl"
    lines = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if canon(rec) != line:
            raise SystemExit(f"backfill: {path}: a line is not in olk's canonical form (json.dumps(sort_keys=True)); "
                             f"not rewritten")
        if rec["run_id"] in found and _todo(rec, again):
            for k in PROVENANCE:
                rec.pop(k, None)
            commit, dirty, source, _ = found[rec["run_id"]]
            rec.update(commit=commit, dirty=dirty, commit_from=source)
        lines.append(canon(rec))
    tmp = path.with_name(f".{path.name}.backfill.tmp")
    tmp.write_text("".join(ln + "\n" for ln in lines))
    os.replace(tmp, path)


def check(repo: Path, rel_dir: str) -> list[str]:
    """Problems of `rel_dir`/runs.jsonl against HEAD: a record that differs from the committed one other than by the
    provenance keys, a run added or lost, a record without a commit."""
    path = Path(rel_dir) / "runs.jsonl"
    committed = records_at(repo, "HEAD", str(path))
    now = {}
    problems = []
    for line in (repo / path).read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            now[rec["run_id"]] = canon({k: v for k, v in rec.items() if k not in PROVENANCE})
            if not {"commit", "dirty"} <= set(rec):
                problems.append(f"{path}: run {rec['run_id']} has no commit")
    if set(now) != set(committed):
        problems.append(f"{path}: runs added or lost against HEAD ({len(set(now) ^ set(committed))})")
    problems += [f"{path}: run {rid} differs from HEAD beyond the provenance keys"
                 for rid in now if rid in committed and now[rid] != committed[rid][0]]
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", help="results directories (default: every results/*/ with a runs.jsonl)")
    ap.add_argument("--dry-run", action="store_true", help="print the counts, write nothing")
    ap.add_argument("--again", action="store_true",
                    help="attribute again the records whose commit was reconstructed (commit_from set); a commit "
                         "recorded when the run was computed is never touched")
    ap.add_argument("--check", action="store_true",
                    help="afterwards, compare every record minus the provenance keys with HEAD's")
    args = ap.parse_args(argv)
    top = git(Path(args.dirs[0]) if args.dirs else Path.cwd(), "rev-parse", "--show-toplevel")
    assert top is not None
    repo = Path(top.strip())
    dirs = [Path(d).resolve().relative_to(repo).as_posix() for d in args.dirs] or \
        sorted(p.parent.relative_to(repo).as_posix() for p in (repo / "results").glob("*/runs.jsonl"))
    status = 0
    total = Counts()
    for d in dirs:
        found, counts = attribute(repo, d, args.again)
        print(counts.line(d))
        total.add(counts)
        if counts.unattributed:
            status = 1
        if found and not args.dry_run:
            rewrite(repo, d, found, args.again)
    print(total.line(f"all {len(dirs)} directories"))
    if args.check:
        problems = [p for d in dirs for p in check(repo, d)]
        for p in problems:
            print(f"backfill: {p}")
        print(f"check: {len(problems)} problem(s) in {len(dirs)} directories")
        status = status or (1 if problems else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
