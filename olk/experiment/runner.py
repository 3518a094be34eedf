"""The experiment engine's driver: plan -> execute -> record, stage by stage, resumable.

A value travels one way: the validated config (:mod:`.config`) is planned into frozen
:class:`~olk.experiment.spec.RunSpec` s (:mod:`.plan`), the data are prepared once (:mod:`.data`),
each spec is executed into a record (:mod:`.execute`, in parallel with joblib) and appended to the run
log (:mod:`.store`), from which the tables are written.  The runner only sequences these steps:

1. Algorithms are processed in dependency stages: an algorithm whose parameter is
   ``{match: spa, stat: n_sv}`` runs after SPA, with the mean of SPA's #SV on the same dataset.
2. Within a stage, tuning runs first, then ``match_tune`` runs, then the main runs on every permutation
   (see :mod:`.plan`); each step is planned from the records of the one before.
3. Each run is independent and fully determined by its spec, so results are bit-identical whatever
   n_jobs or backend is used; a resumed run finds its finished runs by id and skips them.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import platform
import subprocess
from pathlib import Path

from .._version import __version__
from ..errors import ConfigError, Interrupted, OlkError
from ..fileio import (
    LOCK_NAME,
    RERUN_RESUME,
    DirLock,
    atomic_write_text,
    check_own_files,
    check_writable_dir,
    read_json_object,
    read_own_bytes,
    write_error,
)
from ..paths import project_dir
from . import dask_backend, fingerprint, identity, memory
from .config import ExperimentConfig
from .data import kernel_widths, prepare_data
from .execute import execute_all, execute_run
from .plan import Planner, check_planned_runs
from .spec import RunSpec
from .store import FILES, RunStore

# ------------------------------------------------------------------------- the runner


def git_state() -> tuple[str | None, bool | None]:
    """(the 12 hex digits of HEAD, whether the tree has uncommitted changes) of the project directory
    (:func:`olk.paths.project_dir`: olk's checkout unless $OLK_HOME names another), or (None, None) outside a git
    checkout (an installed wheel) or without git.  Changes under results/ do not count: they are outputs (a --force
    run overwrites its own committed directory), not the code's state; untracked files do not count either."""
    root = project_dir()
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
        if out.returncode == 0 and len(out.stdout.strip()) >= 12:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!results"],
                                   cwd=root, capture_output=True, text=True, timeout=5).stdout.strip()
            return out.stdout.strip()[:12], bool(dirty)
    except (OSError, subprocess.SubprocessError):
        pass
    return None, None


def _git_commit() -> str | None:
    """experiment.json's ``git_commit``: :func:`git_state` as ``abcdef123456`` or ``abcdef123456-dirty``."""
    commit, dirty = git_state()
    return None if commit is None else commit + ("-dirty" if dirty else "")


#: the end of the refusal of a directory whose run records name no commit, for olk run --resume
_UNATTRIBUTED_FIX = ("give its runs their commits from the git history of the results directory (python "
                     "tools/backfill_run_commits.py DIR, in olk's checkout), or pass --force to compute them again")


def run_provenance() -> dict:
    """What every record of this invocation carries besides its result (:data:`olk.fileio.RUN_PROVENANCE`): the
    commit and dirty flag of the tree (:func:`git_state`, taken when the invocation starts, before it computes
    anything) and the machine (:func:`machine_info`)."""
    commit, dirty = git_state()
    return {"commit": commit, "dirty": dirty, "machine": machine_info()}


def machine_info() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def default_out_dir(cfg: ExperimentConfig, scale: float) -> Path:
    name = cfg.name if scale >= 1.0 else f"{cfg.name}_scale{scale:g}"
    return project_dir() / "results" / name


def table_rows(path: Path, record, log=print) -> list[str]:
    """The run ids of the rows of a results directory's runs.csv (`path`) that have a record (``record(run_id)``
    is not None), in runs.csv's order: the directory's runs, those its tables show (a batch output's row
    ``<run_id>:<output>`` is its run).  [] when runs.csv is absent; an unreadable runs.csv is one warning line."""
    import csv
    import io
    ids: dict[str, None] = {}
    raw = read_own_bytes(path, RERUN_RESUME)            # no link, no FIFO, bounded (olk.fileio)
    if raw is None:
        return []
    try:
        for row in csv.DictReader(io.StringIO(raw.decode("utf-8"), newline="")):
            rid = str(row.get("run_id") or "").split(":")[0]           # a batch output's row: <run_id>:<out>
            if record(rid) is not None:
                ids[rid] = None
    except (UnicodeDecodeError, csv.Error, ValueError) as e:
        log(f"olk: warning: {path} cannot be read ({type(e).__name__}); the table shows only the runs this "
            f"command plans (the others stay in runs.jsonl)")
        return []
    return list(ids)


class Runner:
    """Execute an :class:`ExperimentConfig` into a results directory."""

    def __init__(self, cfg: ExperimentConfig, out_dir: str | Path | None = None, *, n_jobs: int | None = None,
                 backend: str | None = None, resume: bool = False, force: bool = False, rerun=(),
                 progress: bool | None = None, command: str | None = None, log=print, memory_limit: str | None = None,
                 scheduler: str | None = None):
        self.cfg = cfg
        check_planned_runs(cfg)                 # before any plan, directory or data: repeats 10**30 is one line
        if isinstance(out_dir, str) and not out_dir.strip():     # not "no --out": that would write elsewhere
            raise ConfigError("--out '': an empty path names no directory; give one, or leave --out out for "
                              f"{default_out_dir(cfg, cfg.scale)}")
        self.out = Path(out_dir) if out_dir is not None else default_out_dir(cfg, cfg.scale)
        self.n_jobs = cfg.n_jobs if n_jobs is None else n_jobs
        if scheduler and backend not in (None, "dask"):
            raise ConfigError(f"--scheduler {scheduler}: a Dask scheduler needs --backend dask, "
                              f"not --backend {backend}")
        self.backend = "dask" if scheduler else (backend or cfg.backend)
        self.scheduler = scheduler
        if self.backend == "dask":
            dask_backend.require()
        self.session = None                 # the DaskSession of a run on Dask
        self.resume = resume
        self.force = force
        #: algorithm entries computed again on --resume (--rerun, with the entries that depend on them)
        self.rerun = fingerprint.rerun_closure(cfg, list(rerun)) if rerun else []
        if self.rerun and not resume:
            raise OlkError("--rerun computes entries of a results directory again: it needs --resume")
        self.progress = progress
        self.command = command
        self.log = log
        self.store = RunStore(self.out)
        self.memory_limit, self.memory_limit_source = memory.resolve_limit(memory_limit, cfg.memory_limit)
        if self.scheduler:                  # the runs use the cluster's memory, not this machine's
            self.memory_limit, self.memory_limit_source = 0, "a remote Dask cluster"
        self.data: dict[str, tuple] = {}
        self.loads: dict[str, str | None] = {}     # dataset -> how it was loaded (prepare_data; the memory guard)
        self.unavailable: dict[str, str] = dict(cfg.unavailable)
        self.order: list[str] = []
        self.previous_meta: dict = {}
        self._previous: list[str] = []      # the rows runs.csv held when this invocation started (resume)
        self.plan: Planner | None = None
        self.kernel_widths: dict = {}       # dataset -> data-dependent Gaussian width (config gamma: {percentile: P})
        self.target_scales: dict = {}       # dataset -> {scale, offset} of a regression target scaled on loading
        #: the commit (and dirty flag) of the tree this invocation runs, taken when it starts, and the machine it runs
        #: on: every record it writes carries them (olk.fileio.RUN_PROVENANCE)
        self.provenance: dict = {}
        #: the run ids this invocation computed (a --rerun entry's run is computed once per invocation)
        self._written: set[str] = set()
        #: the directory's records by run slot (olk.experiment.identity.slot), for runs planned under a new id
        self._earlier: dict[tuple, list[str]] | None = None

    # -------------------------------------------------------------- execution
    def _execute(self, specs: list[RunSpec], what: str) -> None:
        """Execute the specs that have no record yet, appending each record to the run log as it arrives."""
        for s in specs:
            if s.run_id not in self.order:
                self.order.append(s.run_id)
        todo = [s for s in specs if (self.store.get(s.run_id) is None and not self._same_as_earlier(s))
                or self._stale(s)]
        memory.check(todo, self.data, n_jobs=self.n_jobs, backend=self.backend, limit=self.memory_limit,
                     source=self.memory_limit_source, loads=self.loads,
                     what=f"the {len(todo)} {what if what == 'runs' else what + ' runs'} of {self.cfg.name}")
        for rec in execute_all(todo, self.data, execute_run, n_jobs=self.n_jobs, backend=self.backend,
                               desc=f"{self.cfg.name}: {what}", progress=self.progress, session=self.session):
            self.store.append({**rec, **self.provenance})
            self._written.add(rec["run_id"])

    def _same_as_earlier(self, spec: RunSpec) -> bool:
        """Whether ``spec``, which no record holds under its id, is an earlier record's run under a new id (a
        parameter its learner declared since, at its old value: :func:`olk.experiment.identity.same_run`): then the
        store answers its id with that record (:attr:`RunStore.alias`) and it is not computed again."""
        if self._earlier is None:           # records by slot, built once, on the first run without a record
            self._earlier = identity.by_slot(self.store.records())
        planned = spec.to_record()
        candidates = self._earlier.get(identity.slot(planned), [])
        old = next((rid for rid in candidates if rid not in self.order
                    and identity.same_params(spec.algorithm, planned["params"],
                                             self.store.get(rid).get("params") or {})), None)
        if old is None:
            return False
        candidates.remove(old)              # one planned run per record
        self.store.alias[spec.run_id] = old
        return True

    def _stale(self, spec: RunSpec) -> bool:
        """Whether a run that has a record is computed again: a run of a ``--rerun`` entry whose record this tree
        did not write.  The same run id means the same settings, so ``--rerun`` after a code change recomputes
        the entry's runs with today's code; a record of this invocation, or of an earlier one at this same clean
        commit (an interrupted ``--rerun`` resumed), is kept: nothing computed at this tree is computed twice."""
        if spec.label not in self.rerun:
            return False
        rec = self.store.get(spec.run_id)       # (or the earlier record an alias names)
        commit, dirty = self.provenance.get("commit"), self.provenance.get("dirty")
        same_tree = commit is not None and dirty is False and rec.get("commit") == commit and rec.get("dirty") is False
        return not (same_tree or spec.run_id in self._written)

    @contextlib.contextmanager
    def _session(self):
        """The Dask client of a run on Dask (a LocalCluster of n_jobs workers, or --scheduler), for all its
        stages: each dataset is shipped to the workers once."""
        if self.backend != "dask":
            yield None
            return
        workers = self.n_jobs if self.n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + self.n_jobs)
        from ..algorithms import registry
        origins = [registry.origin(a.name) for a in self.cfg.algorithms]
        with dask_backend.DaskSession(self.scheduler, workers, log=self.log, plugins=origins) as session:
            self.session = session
            try:
                yield session
            finally:
                self.session = None

    def _main_records(self, dataset: str, label: str) -> list[dict]:
        """The main-phase runs of (dataset, label) among the directory's rows (:meth:`_rows`): what a ``match:``
        takes its value from, e.g. SPA's mean #SV over every permutation the directory holds, not only over the
        permutations this invocation happened to run."""
        recs = (self.store.get(rid) for rid in self._rows())
        return [r for r in recs if r and r["phase"] == "main" and r["dataset"] == dataset and r["label"] == label]

    def _stage(self, algos):
        plan = self.plan
        datasets = [d for d in self.cfg.datasets if d.name in self.data]
        groups = plan.tune(datasets, algos)
        self._execute([s for g in groups for s in g.specs], "tuning")
        chosen = plan.choose_tuned(groups, self.store.get)
        groups = plan.match(datasets, algos, chosen)
        self._execute([s for g in groups for s in g.specs], "matching")
        plan.choose_matched(groups, chosen, self.store.get)
        self._execute(plan.main(datasets, algos, chosen), "runs")

    def _meta(self, status: str, started: str) -> dict:
        meta: dict = {
            "name": self.cfg.name, "paper": self.cfg.paper, "table": self.cfg.table, "config": self.cfg.path,
            "description": self.cfg.description, "command": self.command, "olk_version": __version__,
            "git_commit": self._git_commit(), "machine": machine_info(), "started": started,
            "finished": _dt.datetime.now().isoformat(timespec="seconds") if status == "finished" else None,
            "status": status, "scale": self.cfg.scale, "repeats": self.cfg.repeats, "seed": self.cfg.seed,
            "n_jobs": self.n_jobs, "backend": self.backend, "scheduler": self.scheduler,
            "memory_limit": self.memory_limit or None,
            "compare": self.cfg.compare,
            "table_layout": self.cfg.table_layout, "unavailable": self.unavailable,
            "tuning": self.plan.tuning if self.plan else {},
            "matched": self.plan.matched if self.plan else {},
            "kernel_widths": self.kernel_widths,
            "target_scales": self.target_scales,
            "datasets": [d.name for d in self.cfg.datasets], "mode": self.cfg.mode,
            "algorithms": [lab for a in self.cfg.algorithms for lab in (list(a.outputs) or [a.label])],
            "plugins": self._plugins(),
            fingerprint.KEY: fingerprint.fingerprint(self.cfg),
        }
        prev = self.previous_meta
        if prev:      # resumed with --datasets/--algorithms: keep what earlier invocations ran
            if isinstance(prev.get(fingerprint.KEY), dict):
                meta[fingerprint.KEY] = fingerprint.merge(prev[fingerprint.KEY], meta[fingerprint.KEY])
            for key in ("datasets", "algorithms"):
                meta[key] = list(dict.fromkeys(list(prev.get(key) or []) + meta[key]))
            tuning = {ds: dict(v) for ds, v in (prev.get("tuning") or {}).items()}
            for ds, v in (self.plan.tuning if self.plan else {}).items():
                tuning.setdefault(ds, {}).update(v)
            meta["tuning"] = tuning
            matched = {ds: dict(v) for ds, v in (prev.get("matched") or {}).items() if isinstance(v, dict)}
            for ds, v in (self.plan.matched if self.plan else {}).items():
                matched.setdefault(ds, {}).update(v)
            meta["matched"] = matched
            meta["unavailable"] = {**{k: v for k, v in (prev.get("unavailable") or {}).items()
                                      if k not in meta["datasets"] or k in self.unavailable}, **self.unavailable}
        return meta

    def _git_commit(self) -> str | None:
        """experiment.json's ``git_commit``: the tree this invocation started from, as its records name it (HEAD can
        move while a run goes on: the finished write records where it started, not where HEAD is then)."""
        if not self.provenance:
            return _git_commit()
        commit, dirty = self.provenance["commit"], self.provenance["dirty"]
        return None if commit is None else commit + ("-dirty" if dirty else "")

    def _plugins(self) -> dict:
        """Learner name -> its origin (olk.algorithms.plugins) for every learner of the config from outside olk."""
        from ..algorithms import registry
        out = {}
        for a in self.cfg.algorithms:
            org = registry.origin(a.name)
            if org.kind != "built-in":
                out[a.name] = org.to_json()
        return out

    def _previous_rows(self) -> list[str]:
        """The run ids of the rows the directory's runs.csv holds (what the last invocation left), those with a
        record in the log, in runs.csv's order; none without --resume (:func:`table_rows`)."""
        if not self.resume or self.force:
            return []
        return table_rows(self.out / "runs.csv", self.store.get, self.log)

    def _rows(self, finished: bool = True) -> list[str]:
        """The directory's rows after this invocation -- the one rule of what ``olk table`` shows
        (docs/guide/resuming.md): every earlier row (runs.csv) is kept except those this invocation supersedes,
        then this invocation's runs.  A row is superseded when this invocation ran its (dataset, entry): its
        tuning and matching runs are replaced by this invocation's, and a main run is kept only on a permutation
        (or setting) this invocation did not run and with the parameters its runs there have (so fewer
        ``--repeats`` keep the other permutations, and runs at a ``match:``ed value that moved are dropped).  A
        record of runs.jsonl that is in no row is stale: kept in the log (a later invocation reuses it when it
        plans its id again), never shown.  ``finished=False`` (an interruption): an entry whose main runs this
        invocation had not reached keeps its earlier rows."""
        mine = [rid for rid in self.order if self.store.get(rid) is not None]
        mine_set = set(mine)
        covered = {(d.name, a.label) for d in self.cfg.datasets for a in self.cfg.algorithms}
        params: dict[tuple, set] = {}           # (dataset, label, setting) -> this invocation's main-run params
        for rid in mine:
            rec = self.store.get(rid)
            if rec.get("phase") == "main":
                key = (rec.get("dataset"), rec.get("label"), rec.get("setting") or "")
                params.setdefault(key, set()).add(json.dumps(rec.get("params"), sort_keys=True))
        slots = {(r.get("dataset"), r.get("label"), r.get("setting") or "", r.get("perm"), r.get("fold"))
                 for r in map(self.store.get, mine) if r.get("phase") == "main"}
        kept = []
        for rid in self._previous:
            if rid in mine_set:
                continue
            rec = self.store.get(rid)
            if rec is None:                     # (olk verify: a run it checks, not computed again yet)
                continue
            if (rec.get("dataset"), rec.get("label")) in covered:
                setting = rec.get("setting") or ""
                mine_params = params.get((rec.get("dataset"), rec.get("label"), setting))
                if rec.get("phase") != "main":
                    continue
                if mine_params is None:
                    if finished:
                        continue
                elif (json.dumps(rec.get("params"), sort_keys=True) not in mine_params
                      or (rec.get("dataset"), rec.get("label"), setting, rec.get("perm"), rec.get("fold")) in slots):
                    continue
            kept.append(rid)
        return kept + mine

    def _outputs(self) -> dict:
        """label -> {result label: (output, display)} for entries reporting several outputs (batch mode)."""
        return {a.label: {lab: (o, f"{a.display}-{o}") for lab, o in a.outputs.items()}
                for a in self.cfg.algorithms if a.outputs}

    def run(self) -> Path:
        """Run everything (resuming if asked) and write runs.csv, curves.csv, experiment.json and tables, holding
        the results directory's lock (``OUT/.lock``) throughout: one writer per directory."""
        check_writable_dir(self.out)                # before anything is made
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise write_error(self.out, e, "create the results directory", RERUN_RESUME) from None
        # nothing outside --out: the files a run writes there are absent or regular files of its own (no link)
        from ..report.tables import FILES as TABLES
        check_own_files(self.out, (LOCK_NAME, *FILES, "experiment.json", *TABLES.values()), RERUN_RESUME)
        with DirLock(self.out):
            return self._run_locked()

    def _previous_meta(self) -> dict:
        """experiment.json of the directory a run resumes ({} when there is none), as olk wrote it: the keys a
        resumed run reads back have the types olk writes, else one line (a hand-edited or foreign file)."""
        path = self.out / "experiment.json"
        fix = "pass --force to start over (its runs are discarded), or --out DIR to write elsewhere"
        meta = read_json_object(path, fix) or {}
        kinds = {"datasets": list, "algorithms": list, "tuning": dict, "unavailable": dict}
        for key, kind in kinds.items():
            v = meta.get(key)
            if v is not None and not isinstance(v, kind):
                raise OlkError(f"{path}: its '{key}' is a JSON {type(v).__name__}, not the "
                               f"{'list' if kind is list else 'object'} olk writes; {fix}")
        for key in ("datasets", "algorithms"):
            if not all(isinstance(v, str) for v in meta.get(key) or ()):
                raise OlkError(f"{path}: its '{key}' holds a value that is not a name; {fix}")
        if not all(isinstance(v, dict) for v in (meta.get("tuning") or {}).values()):
            raise OlkError(f"{path}: its 'tuning' holds a value that is not an object; {fix}")
        return meta

    def _prepare(self) -> None:
        """The planner (every spec checked up front) and the data it plans on: each dataset loaded and prepared
        once, data-dependent kernel widths and views given to the planner (olk verify prepares the same way)."""
        self.plan = Planner(self.cfg, self._main_records, log=self.log)
        views: dict = {}
        self.data = prepare_data(self.cfg, self.unavailable, log=self.log, views=views, targets=self.target_scales,
                                 loads=self.loads, progress=self.progress is not False)
        widths = kernel_widths(self.cfg, self.data, log=self.log, views=views)
        self.plan.views = views
        self.plan.widths = {k: w["gamma"] for k, w in widths.items()}
        self.kernel_widths = {}             # dataset -> its width, or the list of its widths (kernels on views)
        for (ds, *_), w in widths.items():
            self.kernel_widths[ds] = w if ds not in self.kernel_widths else \
                [*(v if isinstance(v := self.kernel_widths[ds], list) else [v]), w]

    def _run_locked(self) -> Path:
        if self.store.exists() and not (self.resume or self.force):
            raise OlkError(f"{self.out} already holds runs of '{self.cfg.name}': pass --resume to continue them "
                           f"(finished runs are kept) or --force to start over")
        if self.force:
            self.store.reset()
        torn = self.store.repair()
        if torn:
            self.log(f"olk: {self.store.log} ended in a torn line ({torn} bytes, a write cut short): removed; "
                     f"that run is computed again")
        self.provenance = run_provenance()
        self.store.load()
        if self.resume and not self.force:      # a table must not show runs as if this tree had computed them
            self.store.check_attributed(_UNATTRIBUTED_FIX)
        if self.store.skipped:
            (line, why), n = self.store.skipped[0], len(self.store.skipped)
            self.log(f"olk: warning: {self.store.log}: {n} line{'s are' if n > 1 else ' is'} not a run record olk "
                     f"wrote (line {line}: {why}{', ...' if n > 1 else ''}): skipped (a run held there is computed "
                     f"again)")
        self.previous_meta = self._previous_meta() if self.resume and not self.force else {}
        if self.resume and not self.force and self.store.records():
            # refuse to mix runs of other settings into this directory (olk.experiment.fingerprint)
            fingerprint.check_resume(self.out, self.previous_meta.get(fingerprint.KEY),
                                     fingerprint.fingerprint(self.cfg), log=self.log, rerun=self.rerun)
        self._previous = self._previous_rows()
        started = _dt.datetime.now().isoformat(timespec="seconds")
        self._prepare()
        atomic_write_text(self.out / "experiment.json",
                          json.dumps(self._meta("running", started), indent=2, default=str), then=RERUN_RESUME)
        try:
            with self._session():
                for stage in self.cfg.stages():
                    self._stage(stage)
        except KeyboardInterrupt:
            self.store.write_tables(self._rows(finished=False), self._outputs())
            done = sum(1 for r in self.order if self.store.get(r))
            raise Interrupted(f"interrupted: {done} finished runs are saved in {self.out}; rerun with --resume to "
                              f"continue") from None
        self.store.write_tables(self._rows(), self._outputs())
        atomic_write_text(self.out / "experiment.json",
                          json.dumps(self._meta("finished", started), indent=2, default=str), then=RERUN_RESUME)
        return self.out
