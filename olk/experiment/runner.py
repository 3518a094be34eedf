"""The experiment engine: expand a config into runs, execute them in parallel, record, resume.

Protocol (SPA paper Section 6.1.2, generalised):

1. Algorithms are processed in dependency stages: an algorithm whose parameter is
   ``{match: spa, stat: n_sv}`` runs after SPA, with the mean of SPA's #SV on the same dataset.
2. Within a stage, every (dataset, algorithm) with a ``tune`` grid first runs each candidate on one
   extra permutation (the tuning permutation, r = -1); the best by the tuning metric (first on ties)
   is then fixed for all ``repeats`` permutations r = 0..R-1.
3. Each run is independent and fully determined by its spec (dataset, scale, permutation, algorithm,
   parameters, kernel, seed), so results are bit-identical whatever n_jobs or backend is used.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

from .. import __version__
from ..algorithms import registry as algo_registry
from ..errors import ConfigError, DataError, OlkError
from ..kernels import make_kernel
from ..paths import project_dir
from . import seeds
from .config import ExperimentConfig, MatchRef
from .protocol import online_pass
from .store import RunStore, atomic_write_text

# ----------------------------------------------------------------------------- one run


def execute_run(spec: dict, X, y) -> dict:
    """Run one spec on (X, y) (already scaled); return its record. Top-level so joblib can pickle it."""
    model = algo_registry.make(spec["algorithm"], kernel=spec["kernel"], random_state=spec["algo_seed"],
                               where=f"{spec['label']}", **spec["params"])
    order = seeds.permutation(X.shape[0], spec["seed"], spec["dataset"], spec["perm"], spec["shuffle"])
    res = online_pass(model, X, y, order, spec["checkpoints"])
    rec = dict(spec)
    rec.update(res)
    return rec


def run_id_of(spec: dict) -> str:
    key = {k: spec[k] for k in ("mode", "dataset", "preprocess", "scale", "shuffle", "seed", "perm", "algorithm",
                                "label", "params", "kernel", "checkpoints")}
    return hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


# ------------------------------------------------------------------------- the runner


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=project_dir(), capture_output=True,
                             text=True, timeout=5)
        if out.returncode == 0:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=project_dir(),
                                   capture_output=True, text=True, timeout=5).stdout.strip()
            return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return None


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
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def default_out_dir(cfg: ExperimentConfig, scale: float) -> Path:
    name = cfg.name if scale >= 1.0 else f"{cfg.name}_scale{scale:g}"
    return project_dir() / "results" / name


class Runner:
    """Execute an :class:`ExperimentConfig` into a results directory."""

    def __init__(self, cfg: ExperimentConfig, out_dir: str | Path | None = None, *, n_jobs: int | None = None,
                 backend: str | None = None, resume: bool = False, force: bool = False, progress: bool | None = None,
                 command: str | None = None, log=print):
        self.cfg = cfg
        self.out = Path(out_dir) if out_dir else default_out_dir(cfg, cfg.scale)
        self.n_jobs = cfg.n_jobs if n_jobs is None else n_jobs
        self.backend = backend or cfg.backend
        self.resume = resume
        self.force = force
        self.progress = progress
        self.command = command
        self.log = log
        self.store = RunStore(self.out)
        self.data: dict[str, tuple] = {}
        self.unavailable: dict[str, str] = dict(cfg.unavailable)
        self.tuning: dict = {}
        self.order: list[str] = []

    # ------------------------------------------------------------------ data
    def _load_data(self):
        from ..data import get_registry, load_dataset
        reg = get_registry()
        for d in self.cfg.datasets:
            if d.name in self.unavailable:
                continue
            try:
                ds = load_dataset(d.name, data_dir=self.cfg.data_dir, preprocess=d.preprocess or None)
            except DataError as e:
                entry = reg.get(d.name)          # None for a user's own file path
                if entry is not None and not entry.offline:
                    self.unavailable[d.name] = "data unavailable"
                    self.log(f"olk: {d.name}: not available offline, its cells will read 'not run: data unavailable'")
                    continue
                raise
            if ds.task != "binary":
                raise DataError(f"dataset '{d.name}' is a {ds.task} task; the online classifiers need binary "
                                f"labels {{-1,+1}} (set preprocess: {{positive_label: ...}})")
            X, y = ds.X, ds.y
            if self.cfg.scale < 1.0:
                idx = seeds.subsample(X.shape[0], self.cfg.scale, self.cfg.seed, d.name)
                X, y = X[idx], y[idx]
            self.data[d.name] = (X, y)

    # ----------------------------------------------------------------- specs
    def _kernel_for(self, d, a) -> dict:
        spec = d.kernel or a.kernel or self.cfg.kernel
        return make_kernel(spec).to_dict()

    def _spec(self, phase, d, a, params: dict, perm: int) -> dict:
        where = f"{self.cfg.path or self.cfg.name}: dataset {d.name}, algorithm {a.label}"
        full = algo_registry.validate_params(a.name, params, where)
        cls = algo_registry.REGISTRY[a.name]
        spec = {
            "experiment": self.cfg.name, "phase": phase, "mode": self.cfg.mode, "dataset": d.name,
            "preprocess": d.preprocess, "scale": self.cfg.scale, "shuffle": self.cfg.shuffle, "seed": self.cfg.seed,
            "perm": perm, "algorithm": a.name, "label": a.label, "display": a.display, "params": full,
            "kernel": self._kernel_for(d, a), "checkpoints": self.cfg.checkpoints,
            "algo_seed": seeds.algorithm_seed(self.cfg.seed, d.name, perm, a.label) if cls.stochastic else None,
        }
        spec["run_id"] = run_id_of(spec)
        return spec

    def _base_params(self, d, a) -> dict:
        p = dict(a.params)
        p.update(d.params.get(a.label, {}))
        return p

    def _resolve_matches(self, d, a, params: dict) -> dict:
        out = {}
        for k, v in params.items():
            if isinstance(v, MatchRef):
                recs = self._main_records(d.name, v.label)
                vals = [r.get(v.stat) for r in recs if r.get(v.stat) is not None]
                if not vals:
                    raise ConfigError(f"{self.cfg.path}: {a.label}.{k} matches {v.label}'s {v.stat}, but {v.label} has no runs on {d.name}")
                agg = {"mean": np.mean, "median": np.median, "max": np.max, "min": np.min}.get(v.agg)
                if agg is None:
                    raise ConfigError(f"{self.cfg.path}: {a.label}.{k}.agg must be mean, median, max or min")
                val = float(agg(vals))
                spec = {p.name: p for p in algo_registry.REGISTRY[a.name].params}[k]
                out[k] = int(round(val)) if spec.type is int else val
            else:
                out[k] = v
        return out

    def _main_records(self, dataset: str, label: str) -> list[dict]:
        recs = (self.store.get(rid) for rid in self.order)
        return [r for r in recs if r and r["phase"] == "main" and r["dataset"] == dataset and r["label"] == label]

    def _check_all_specs(self):
        """Fail fast on any invalid parameter combination before computing anything."""
        for d in self.cfg.datasets:
            for a in self.cfg.algorithms:
                base = self._base_params(d, a)
                specs = {p.name: p for p in algo_registry.REGISTRY[a.name].params}
                base = {k: (specs[k].default if isinstance(v, MatchRef) else v) for k, v in base.items()}
                keys = list(a.tune)
                for combo in itertools.product(*(a.tune[k] for k in keys)) if keys else [()]:
                    p = dict(base)
                    p.update(dict(zip(keys, combo)))
                    algo_registry.validate_params(a.name, p, f"{self.cfg.path or self.cfg.name}: dataset {d.name}, algorithm {a.label}")

    # -------------------------------------------------------------- execution
    def _execute(self, specs: list[dict], what: str) -> list[dict]:
        todo = [s for s in specs if self.store.get(s["run_id"]) is None]
        for s in specs:
            if s["run_id"] not in self.order:
                self.order.append(s["run_id"])
        if not todo:
            return [self.store.get(s["run_id"]) for s in specs]
        from tqdm.auto import tqdm
        disable = (not sys.stderr.isatty()) if self.progress is None else (not self.progress)
        bar = tqdm(total=len(todo), desc=f"{self.cfg.name}: {what}", unit="run", disable=disable, leave=False)
        try:
            if self.n_jobs == 1 and self.backend != "dask":
                for s in todo:
                    X, y = self.data[s["dataset"]]
                    self.store.append(execute_run(s, X, y))
                    bar.update()
            else:
                from joblib import Parallel, delayed
                par = Parallel(n_jobs=self.n_jobs, backend=self.backend, return_as="generator_unordered")
                for rec in par(delayed(execute_run)(s, *self.data[s["dataset"]]) for s in todo):
                    self.store.append(rec)
                    bar.update()
        finally:
            bar.close()
        return [self.store.get(s["run_id"]) for s in specs]

    def _stage(self, algos):
        datasets = [d for d in self.cfg.datasets if d.name in self.data]
        # 1. tuning runs for every (dataset, algorithm) with a grid
        tune_specs, groups = [], []
        for d in datasets:
            for a in algos:
                if not a.tune:
                    continue
                base = self._resolve_matches(d, a, self._base_params(d, a))
                keys = list(a.tune)
                cands = []
                for combo in itertools.product(*(a.tune[k] for k in keys)):
                    p = dict(base)
                    p.update(dict(zip(keys, combo)))
                    s = self._spec("tune", d, a, p, seeds.TUNE_PERM)
                    cands.append((dict(zip(keys, combo)), s))
                    tune_specs.append(s)
                groups.append((d, a, cands))
        if tune_specs:
            self._execute(tune_specs, "tuning")
        metric = self.cfg.tune_metric
        chosen = {}
        for d, a, cands in groups:
            best, best_score = None, -np.inf
            for values, s in cands:
                score = self.store.get(s["run_id"]).get(metric)
                if score is not None and score > best_score:
                    best, best_score = values, score
            chosen[(d.name, a.label)] = best
            self.tuning.setdefault(d.name, {})[a.label] = {"chosen": best, metric: best_score,
                                                           "grid": {k: list(v) for k, v in a.tune.items()}}
        # 2. main runs with the chosen parameters on every permutation
        main = []
        for d in datasets:
            for a in algos:
                p = self._resolve_matches(d, a, self._base_params(d, a))
                p.update(chosen.get((d.name, a.label)) or {})
                for r in range(self.cfg.repeats if self.cfg.shuffle else 1):
                    main.append(self._spec("main", d, a, p, r))
        self._execute(main, "runs")

    def _meta(self, status: str, started: str) -> dict:
        return {
            "name": self.cfg.name, "paper": self.cfg.paper, "table": self.cfg.table, "config": self.cfg.path,
            "description": self.cfg.description, "command": self.command, "olk_version": __version__,
            "git_commit": _git_commit(), "machine": machine_info(), "started": started,
            "finished": _dt.datetime.now().isoformat(timespec="seconds") if status == "finished" else None,
            "status": status, "scale": self.cfg.scale, "repeats": self.cfg.repeats, "seed": self.cfg.seed,
            "n_jobs": self.n_jobs, "backend": self.backend, "compare": self.cfg.compare,
            "table_layout": self.cfg.table_layout, "unavailable": self.unavailable, "tuning": self.tuning,
            "datasets": [d.name for d in self.cfg.datasets], "algorithms": [a.label for a in self.cfg.algorithms],
        }

    def run(self) -> Path:
        """Run everything (resuming if asked) and write runs.csv, curves.csv, experiment.json and tables."""
        if self.store.exists() and not (self.resume or self.force):
            raise OlkError(f"{self.out} already holds runs of '{self.cfg.name}': pass --resume to continue them "
                           f"(finished runs are kept) or --force to start over")
        if self.force:
            self.store.reset()
        self.out.mkdir(parents=True, exist_ok=True)
        self.store.load()
        self._check_all_specs()
        started = _dt.datetime.now().isoformat(timespec="seconds")
        self._load_data()
        atomic_write_text(self.out / "experiment.json", json.dumps(self._meta("running", started), indent=2, default=str))
        try:
            for stage in self.cfg.stages():
                self._stage(stage)
        except KeyboardInterrupt:
            self.store.write_tables([r for r in self.order if self.store.get(r)])
            done = sum(1 for r in self.order if self.store.get(r))
            raise OlkError(f"interrupted: {done} finished runs are saved in {self.out}; rerun with --resume to continue") from None
        self.store.write_tables(self.order)
        atomic_write_text(self.out / "experiment.json", json.dumps(self._meta("finished", started), indent=2, default=str))
        return self.out
