"""``make reproduce-all`` (``olk reproduce``): every paper config, the expected time stated before the first run,
every config run even when an earlier one fails, the failures listed at the end.

**The estimate** (:func:`estimate`) is read from the run times olk recorded, never guessed: each record of a
``results/*/runs.jsonl`` holds the learner's ``time_s``; a run of ``n_jobs`` parallel workers takes about
sum(time_s) / n_jobs of wall time (the committed results bear this out: ``spa_fig1``, 1 job, recorded 1,362 s of
runs and took 22.8 min, ``amkl_table2`` 553 s and 9.6 min).  Data loading and test scoring are not in ``time_s``:
the estimate is a little low, never inflated.  Per config, ``olk run --resume`` keeps the finished runs of its
results directory (``results/<name>``), so:

* the *remaining* time counts the main runs the directory does not hold yet (the config's ``repeats`` minus the
  permutations recorded), at the mean time its own recorded runs of that (dataset, label, setting) took;
* a (dataset, entry) with no run in its own directory costs what that learner took on that dataset at the same
  scale in any other results directory (``repeats`` x sweep points main runs, plus one tuning run per grid
  candidate);
* a (dataset, entry) olk never ran at that scale is *unknown*: listed by name, not counted (the total says
  "at least" then);
* a directory whose recorded settings differ from the config's (:mod:`olk.experiment.fingerprint`) cannot be
  resumed: ``olk run --resume`` refuses it, and the config is marked so before anything runs.

The *from scratch* time (every run recomputed: ``--force``) is the same sum with no run kept.

**The loop** (:func:`reproduce_all`) runs ``olk run CONFIG --resume --n-jobs J`` for each config in its own process
(a crash or a memory refusal ends that config, not the loop), continues past a failure, then writes the report
(``olk report``) and returns the failures: the command exits 1 when any config failed.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..errors import OlkError
from ..paths import project_dir
from . import fingerprint
from .config import load_config
from .plan import main_repeats
from .runner import default_out_dir

#: configs ``make reproduce-all`` leaves out: the demo writes outside results/
SKIP = ("demo.yaml",)


def config_files(config_dir: str | Path | None = None) -> list[Path]:
    """The paper configs: ``configs/*.yaml`` (sorted) without the demo."""
    d = Path(config_dir) if config_dir is not None else project_dir() / "configs"
    return [p for p in sorted(d.glob("*.yaml")) if p.name not in SKIP]


# ---------------------------------------------------------------------------------------------- recorded times
def _records(log: Path) -> Iterable[dict]:
    try:
        with open(log) as fh:
            for line in fh:
                try:
                    yield json.loads(line)
                except ValueError:          # a torn last line: `olk run --resume` repairs it
                    continue
    except OSError:
        return


@dataclass
class RecordedTimes:
    """Mean main-run time per (dataset, algorithm, scale) over every results directory under ``root``."""
    root: Path
    per_learner: dict = field(default_factory=dict)       # (dataset, algorithm, scale) -> [time_s, ...]

    @classmethod
    def scan(cls, root: Path) -> "RecordedTimes":
        out = cls(root)
        for log in sorted(root.glob("*/runs.jsonl")):
            for r in _records(log):
                if r.get("phase") == "main" and isinstance(r.get("time_s"), (int, float)):
                    out.per_learner.setdefault((r.get("dataset"), r.get("algorithm"), float(r.get("scale", 1.0))),
                                               []).append(float(r["time_s"]))
        return out

    def mean(self, dataset: str, algorithm: str, scale: float) -> float | None:
        t = self.per_learner.get((dataset, algorithm, float(scale)))
        return sum(t) / len(t) if t else None


# ---------------------------------------------------------------------------------------------- estimate
@dataclass
class Estimate:
    """The expected learner seconds of one config (divide by the jobs for wall time)."""
    config: Path
    name: str = ""
    remaining_s: float = 0.0        # what `olk run --resume` computes
    scratch_s: float = 0.0          # what `olk run --force` computes
    unknown: list = field(default_factory=list)     # "dataset/label" never run at this scale: not counted
    note: str = ""                  # done / cannot resume / config invalid
    error: str = ""                 # the config does not load: the run will fail

    @property
    def done(self) -> bool:
        return not self.error and not self.unknown and self.remaining_s == 0.0


def _grid_size(grid: dict) -> int:
    return math.prod(len(v) if isinstance(v, (list, tuple)) else 1 for v in (grid or {}).values()) if grid else 0


def estimate(config: str | Path, times: RecordedTimes) -> Estimate:
    """The time :func:`reproduce_all` will spend on ``config`` (see the module docstring)."""
    est = Estimate(Path(config))
    try:
        cfg = load_config(config)
    except OlkError as e:
        est.error = str(e)
        return est
    est.name = cfg.name
    out = default_out_dir(cfg, cfg.scale)
    meta: dict = {}
    try:
        meta = json.loads((out / "experiment.json").read_text())
    except (OSError, ValueError):
        pass
    kept = True                                     # --resume keeps the directory's runs
    old = meta.get(fingerprint.KEY)
    if isinstance(old, dict) and fingerprint.differences(old, fingerprint.fingerprint(cfg)):
        kept = False
        est.note = f"{out.name}: settings changed since its runs, `olk run --resume` refuses it (needs --force)"
    own: dict = defaultdict(lambda: {"perms": set(), "times": []})    # (dataset, label, setting) -> main runs
    extra: dict = defaultdict(float)                                   # dataset -> tuning / matching seconds
    for r in _records(out / "runs.jsonl"):
        if not isinstance(r.get("time_s"), (int, float)) or r.get("scale", 1.0) != cfg.scale:
            continue
        if r.get("phase") == "main":
            g = own[(r.get("dataset"), r.get("label"), r.get("setting") or "")]
            g["perms"].add(r.get("perm"))
            g["times"].append(float(r["time_s"]))
        else:
            extra[r.get("dataset")] += float(r["time_s"])
    unavailable = {**(meta.get("unavailable") or {}), **cfg.unavailable}
    kept_s = 0.0                                    # seconds of the runs --resume keeps
    for d in cfg.datasets:
        if d.name in unavailable:
            continue
        est.scratch_s += extra.get(d.name, 0.0)
        kept_s += extra.get(d.name, 0.0)
        for a in cfg.algorithms:
            R = main_repeats(cfg, d, a)
            groups = [g for (ds, lab, _), g in own.items() if ds == d.name and lab == a.label]
            for g in groups:
                mean = sum(g["times"]) / len(g["times"])
                est.scratch_s += R * mean
                kept_s += len([p for p in g["perms"] if isinstance(p, int) and 0 <= p < R]) * mean
            if groups:
                continue
            mean = times.mean(d.name, a.name, cfg.scale)
            if mean is None:
                est.unknown.append(f"{d.name}/{a.label}")
                continue
            n = len(a.settings()) * (R + _grid_size(a.tune) + _grid_size((a.match_tune or {}).get("grid") or {}))
            est.scratch_s += n * mean
    est.remaining_s = max(0.0, est.scratch_s - kept_s) if kept else est.scratch_s
    if est.done and not est.note:
        est.note = "done: --resume re-tabulates its finished runs"
    return est


def fmt_duration(seconds: float) -> str:
    """'3 h 05 min', '12 min', '40 s'."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    h, m = divmod((s + 30) // 60, 60)
    return f"{h} h {m:02d} min" if h else f"{m} min"


def _shown(path: Path) -> str:
    """A config's path as the user knows it: relative to the project directory when inside it."""
    try:
        return str(Path(path).resolve().relative_to(project_dir().resolve()))
    except ValueError:
        return str(path)


def estimate_lines(estimates: list[Estimate], jobs: int) -> list[str]:
    """The plan printed before the first run: one line per config, then the totals (wall time on ``jobs``)."""
    jobs = max(1, jobs)
    names = [_shown(e.config) for e in estimates]
    width = max(map(len, names), default=0)
    lines = []
    for e, name in zip(estimates, names):
        if e.error:
            what = f"will fail: {e.error}"
        else:
            what = (f"~{fmt_duration(e.remaining_s / jobs)}" if e.remaining_s else "~0") + \
                   f" (from scratch ~{fmt_duration(e.scratch_s / jobs)})"
            if e.unknown:
                what += f"; not counted, never run at this scale: {', '.join(e.unknown[:4])}" + \
                        (f" (+{len(e.unknown) - 4} more)" if len(e.unknown) > 4 else "")
            if e.note:
                what += f"; {e.note}"
        lines.append(f"  {name:{width}s}  {what}")
    rem = sum(e.remaining_s for e in estimates) / jobs
    scratch = sum(e.scratch_s for e in estimates) / jobs
    n_unknown = sum(1 for e in estimates if e.unknown)
    bound = "at least " if n_unknown else ""
    lines.append(f"expected time of this run: {bound}{fmt_duration(rem)} on {jobs} job(s) (from scratch, every run "
                 f"recomputed: {bound}{fmt_duration(scratch)}); from the learner times recorded in results/*/runs.jsonl"
                 + (f"; {n_unknown} config(s) hold runs never timed at their scale, not counted" if n_unknown else ""))
    return lines


# ---------------------------------------------------------------------------------------------- the loop
def olk_command(*args: str) -> list[str]:
    """The command line of ``olk ARGS`` in a fresh Python process (this interpreter, this olk)."""
    return [sys.executable, "-c", "import sys; from olk.cli import main; sys.exit(main())", *args]


def run_config(config: Path, jobs: int) -> int:
    """``olk run CONFIG --resume --n-jobs J`` in its own process (tables to /dev/null, progress and errors on
    stderr); its exit status."""
    return subprocess.run(olk_command("run", str(config), "--resume", "--n-jobs", str(jobs)),
                          stdout=subprocess.DEVNULL).returncode


def reproduce_all(configs: list[Path], jobs: int, *, log: Callable[[str], None] = print,
                  run: Callable[[Path, int], int] | None = None, report: bool = True) -> list[tuple[Path, int]]:
    """State the expected time, run every config (past failures; ``run`` default :func:`run_config`), write the
    report; returns (config, exit status) of every config that failed."""
    run = run or run_config
    estimates = [estimate(c, RecordedTimes.scan(project_dir() / "results")) for c in configs]
    log(f"olk reproduce: {len(configs)} configs, --n-jobs {jobs}")
    for line in estimate_lines(estimates, jobs):
        log(line)
    failures: list[tuple[Path, int]] = []
    t_all = time.monotonic()
    for i, c in enumerate(configs, 1):
        log(f"== config {i}/{len(configs)}: {_shown(c)}")
        t0 = time.monotonic()
        code = run(c, jobs)
        log(f"   {'done' if code == 0 else f'FAILED (exit status {code})'} in {fmt_duration(time.monotonic() - t0)}")
        if code != 0:
            failures.append((c, code))
    if report:
        code = subprocess.run(olk_command("report")).returncode
        if code != 0:
            log(f"olk report: exit status {code} (the runs above are saved; rerun `olk report`)")
    log(f"olk reproduce: {len(configs) - len(failures)} of {len(configs)} configs done in "
        f"{fmt_duration(time.monotonic() - t_all)}")
    if failures:
        log(f"{len(failures)} failed (rerun one with `olk run CONFIG --resume` to see its error):")
        for c, code in failures:
            log(f"  {_shown(c)} (exit status {code})")
    return failures
