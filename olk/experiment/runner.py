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
import time
from pathlib import Path

import numpy as np

from .. import __version__
from ..algorithms import registry as algo_registry
from ..errors import ConfigError, DataError, Interrupted, OlkError
from ..kernels import make_kernel
from ..paths import project_dir
from . import fingerprint, seeds
from .config import ExperimentConfig, MatchRef, grid
from .protocol import online_pass
from .store import RunStore, atomic_write_text

# ----------------------------------------------------------------------------- one run


def execute_run(spec: dict, X, y, Xt=None, yt=None) -> dict:
    """Run one spec on (X, y) (already scaled); return its record. Top-level so joblib can pickle it.

    Online mode: one pass over permutation ``perm`` of (X, y) (:func:`online_pass`).
    Batch mode: (X, y) is the training set and (Xt, yt) the test set; a cross-validation run
    (``spec['fold']`` set) trains on the other folds of the training set and tests on fold ``fold``.
    """
    if spec["mode"] == "batch":
        return _execute_batch(spec, X, y, Xt, yt)
    model = algo_registry.make(spec["algorithm"], kernel=spec["kernel"], random_state=spec["algo_seed"],
                               where=f"{spec['label']}", **spec["params"])
    order = seeds.permutation(X.shape[0], spec["seed"], spec["dataset"], spec["perm"], spec["shuffle"])
    res = online_pass(model, X, y, order, spec["checkpoints"])
    rec = dict(spec)
    rec.update(res)
    return rec


def _execute_batch(spec: dict, X, y, Xt, yt) -> dict:
    """Train on the training set (online learners: one pass over permutation ``perm``), test every output."""
    if spec.get("fold") is not None:
        cv = spec["cv"]
        tr, va = seeds.cv_folds(y, cv["folds"], cv["max_rows"], spec["seed"], spec["dataset"])[spec["fold"]]
        X, y, Xt, yt = X[tr], y[tr], X[va], y[va]
    cls = algo_registry.REGISTRY[spec["algorithm"]]
    model = algo_registry.make(spec["algorithm"], kernel=spec["kernel"], random_state=spec["algo_seed"],
                               where=f"{spec['label']}", **spec["params"])
    order = seeds.permutation(X.shape[0], spec["seed"], spec["dataset"], spec["perm"], spec["shuffle"])
    rec = dict(spec)
    if getattr(cls, "batch", False):
        t0 = time.perf_counter()
        model.fit(X, y, order)
        elapsed = time.perf_counter() - t0
        rec.update({"n_examples": int(X.shape[0]), "n_sv": model.n_sv, "n_sv_last": model.n_sv,
                    "n_updates": model.n_updates, "time_s": elapsed, "kernel_evals": model.kernel_evals})
    else:
        rec.update(online_pass(model, X, y, order, spec["checkpoints"]))
    rec["train_time_s"] = rec["time_s"]
    choices = {p.name: p for p in cls.params}.get("output")
    outputs = list(choices.choices) if choices is not None else [None]
    yt = np.asarray(yt, dtype=np.float64)
    by_out = {}
    for o in outputs:
        pred = np.where(model.decision_function(Xt, output=o) >= 0.0, 1.0, -1.0)   # sign(0) = +1
        by_out[o or "default"] = 100.0 * float(np.mean(pred == yt)) if len(yt) else float("nan")
    rec["test_accuracy"] = by_out[spec["params"].get("output") or "default"]
    if choices is not None:
        rec["test_accuracy_by_output"] = by_out
    rec["n_test"] = int(len(yt))
    return rec


_ID_KEYS = ("mode", "dataset", "preprocess", "scale", "shuffle", "seed", "perm", "algorithm", "label", "params",
            "kernel", "checkpoints")
_OPTIONAL_ID_KEYS = ("fold", "cv", "test_part", "holdout")     # only in batch-mode specs


def run_id_of(spec: dict) -> str:
    key = {k: spec[k] for k in _ID_KEYS}
    key.update({k: spec[k] for k in _OPTIONAL_ID_KEYS if spec.get(k) is not None})
    return hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _stat(rec: dict, stat: str):
    """A record's value for ``stat``; dotted names walk nested dicts (``kernel.gamma``, ``params.G``)."""
    val = rec
    for part in stat.split("."):
        if not isinstance(val, dict):
            return None
        val = val.get(part)
    return val


def setting_suffix(pt: dict) -> str:
    return ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in pt.items())


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
        self.previous_meta: dict = {}

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
            if self.cfg.mode == "batch":
                self.data[d.name] = self._batch_parts(d, ds)
                continue
            X, y = ds.X, ds.y
            if self.cfg.scale < 1.0:
                idx = seeds.subsample(X.shape[0], self.cfg.scale, self.cfg.seed, d.name)
                X, y = X[idx], y[idx]
            self.data[d.name] = (X, y)

    def _batch_parts(self, d, ds) -> tuple:
        """(X_train, y_train, X_test, y_test): the dataset's test part, or a seeded stratified holdout."""
        where = f"{self.cfg.path or self.cfg.name}: dataset {d.name}"
        if d.holdout is not None:
            tr, te = seeds.holdout_split(ds.y, d.holdout, self.cfg.seed, d.name)
            parts = [(ds.X[tr], ds.y[tr]), (ds.X[te], ds.y[te])]
        else:
            test = d.test or "test"
            if test not in ds.splits:
                raise ConfigError(f"{where}: batch mode needs a test part, and '{d.name}' has "
                                  f"{'parts ' + ', '.join(sorted(ds.splits)) if ds.splits else 'a single file'}"
                                  f" (no '{test}'); set 'test: PART' or 'holdout: 0.3' on the dataset")
            train = [s for s in ds.splits if s != test]
            tr = ds.part(train[0]) if len(train) == 1 else None
            if tr is None:
                raise ConfigError(f"{where}: cannot tell the training part among {', '.join(train)}")
            te = ds.part(test)
            parts = [(tr.X, tr.y), (te.X, te.y)]
        out = []
        for (X, y), name in zip(parts, ("train", "test")):
            if self.cfg.scale < 1.0:
                idx = seeds.subsample(X.shape[0], self.cfg.scale, self.cfg.seed, d.name, part=name)
                X, y = X[idx], y[idx]
            out += [X, y]
        return tuple(out)

    # ----------------------------------------------------------------- specs
    def _kernel_for(self, d, a, values: dict | None = None) -> dict:
        """The run's kernel: dataset's, else algorithm's (matches resolved), else the config's; then tuned values."""
        spec = dict(d.kernel or (self._resolve_matches(d, a, a.kernel, kernel=True) if a.kernel else None)
                    or self.cfg.kernel)
        for k, v in (values or {}).items():
            if k.startswith("kernel."):
                spec[k.split(".", 1)[1]] = v
        return make_kernel(spec).to_dict()

    def _spec(self, phase, d, a, params: dict, perm: int, *, kernel: dict | None = None, setting: dict | None = None,
              fold: int | None = None) -> dict:
        where = f"{self.cfg.path or self.cfg.name}: dataset {d.name}, algorithm {a.label}"
        full = algo_registry.validate_params(a.name, params, where)
        cls = algo_registry.REGISTRY[a.name]
        spec = {
            "experiment": self.cfg.name, "phase": phase, "mode": self.cfg.mode, "dataset": d.name,
            "preprocess": d.preprocess, "scale": self.cfg.scale, "shuffle": self.cfg.shuffle, "seed": self.cfg.seed,
            "perm": perm, "algorithm": a.name, "label": a.label, "display": a.display, "params": full,
            "kernel": kernel or self._kernel_for(d, a), "checkpoints": self.cfg.checkpoints,
            "algo_seed": seeds.algorithm_seed(self.cfg.seed, d.name, perm, a.label) if cls.stochastic else None,
        }
        if setting:
            spec["setting"] = setting_suffix(setting)
        if self.cfg.mode == "batch":
            spec["holdout"] = d.holdout
            spec["test_part"] = None if d.holdout is not None else (d.test or "test")
            if fold is not None:
                spec["fold"] = fold
                spec["cv"] = {"folds": self.cfg.cv_folds, "max_rows": self.cfg.cv_max_rows}
        spec["run_id"] = run_id_of(spec)
        return spec

    def _base_params(self, d, a) -> dict:
        p = dict(a.params)
        p.update(d.params.get(a.label, {}))
        return p

    def _match_value(self, d, a, what: str, ref: MatchRef) -> float:
        recs = self._main_records(d.name, ref.label)
        vals = [_stat(r, ref.stat) for r in recs if _stat(r, ref.stat) is not None]
        if not vals:
            raise ConfigError(f"{self.cfg.path}: {a.label}.{what} matches {ref.label}'s {ref.stat}, but {ref.label} "
                              f"has no runs with '{ref.stat}' on {d.name}")
        agg = {"mean": np.mean, "median": np.median, "max": np.max, "min": np.min}.get(ref.agg)
        if agg is None:
            raise ConfigError(f"{self.cfg.path}: {a.label}.{what}.agg must be mean, median, max or min")
        return float(agg(vals))

    def _resolve_matches(self, d, a, params: dict, kernel: bool = False) -> dict:
        specs = {p.name: p for p in algo_registry.REGISTRY[a.name].params}
        out = {}
        for k, v in params.items():
            if isinstance(v, MatchRef):
                val = self._match_value(d, a, f"{'kernel.' if kernel else ''}{k}", v)
                out[k] = int(round(val)) if not kernel and specs[k].type is int else val
            else:
                out[k] = v
        return out

    def _main_records(self, dataset: str, label: str) -> list[dict]:
        recs = (self.store.get(rid) for rid in self.order)
        return [r for r in recs if r and r["phase"] == "main" and r["dataset"] == dataset and r["label"] == label]

    def _check_all_specs(self):
        """Fail fast on any invalid parameter combination before computing anything.

        Tune grids and sweeps may contain combinations a learner rejects (BOGD's eta*lam >= 1, SPA's
        beta < alpha in an alpha x beta sweep): those points are skipped (and logged), but an entry
        with no valid point at all is an error, reported with the learner's own message.
        """
        self.skipped: dict = {}
        for d in self.cfg.datasets:
            for a in self.cfg.algorithms:
                where = f"{self.cfg.path or self.cfg.name}: dataset {d.name}, algorithm {a.label}"
                specs = {p.name: p for p in algo_registry.REGISTRY[a.name].params}
                base = self._base_params(d, a)
                base = {k: (specs[k].default if isinstance(v, MatchRef) else v) for k, v in base.items()}
                first = None
                for pt in a.settings():
                    p0 = {**base, **self._algo_part(pt)}
                    cands = list(self._candidates(a.tune)) if a.tune else [{}]
                    ok = any(self._valid(a, {**p0, **self._algo_part(c)}) for c in cands)
                    if not ok:
                        first = first or {**p0, **self._algo_part(cands[0])}
                        self.skipped.setdefault((d.name, a.label), []).append(setting_suffix(pt))
                if first is not None and len(self.skipped.get((d.name, a.label), [])) == len(a.settings()):
                    algo_registry.validate_params(a.name, first, where)
        for (ds, lab), pts in self.skipped.items():
            if pts and pts != [""]:
                self.log(f"olk: {ds}/{lab}: skipping {len(pts)} invalid sweep point(s): {'; '.join(pts[:5])}"
                         f"{' ...' if len(pts) > 5 else ''}")

    def _settings(self, d, a) -> list[dict]:
        """The entry's valid sweep points on dataset d."""
        bad = set(self.skipped.get((d.name, a.label), []))
        return [pt for pt in a.settings() if setting_suffix(pt) not in bad]

    @staticmethod
    def _candidates(grid_spec: dict):
        keys = list(grid_spec)
        for combo in itertools.product(*(grid_spec[k] for k in keys)):
            yield dict(zip(keys, combo))

    @staticmethod
    def _algo_part(values: dict) -> dict:
        return {k: v for k, v in values.items() if not k.startswith("kernel.")}

    @staticmethod
    def _valid(a, params: dict) -> bool:
        try:
            algo_registry.validate_params(a.name, params, a.label)
            return True
        except ConfigError:
            return False

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
                    self.store.append(execute_run(s, *self.data[s["dataset"]]))
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

    def _tune_key(self, a, pt: dict) -> str:
        return a.label + (f"@{setting_suffix(pt)}" if pt else "")

    def _stage(self, algos):
        datasets = [d for d in self.cfg.datasets if d.name in self.data]
        batch = self.cfg.mode == "batch"
        metric = "test_accuracy" if batch else self.cfg.tune_metric
        folds = range(self.cfg.cv_folds) if batch else [None]
        # 1. tuning runs for every (dataset, algorithm, setting) with a grid: one extra permutation
        #    (online mode) or k-fold cross-validation on the training set (batch mode)
        tune_specs, groups = [], []
        for d in datasets:
            for a in algos:
                if not a.tune:
                    continue
                for pt in self._settings(d, a):
                    base = self._params_at(d, a, pt)
                    cands = []
                    for values in self._candidates(a.tune):
                        p, kern = self._point(d, a, pt, values, base)
                        if not self._valid(a, p):
                            continue
                        specs = [self._spec("tune", d, a, p, seeds.TUNE_PERM, kernel=kern, setting=pt, fold=f)
                                 for f in folds]
                        cands.append((values, specs))
                        tune_specs += specs
                    groups.append((d, a, pt, cands))
        if tune_specs:
            self._execute(tune_specs, "tuning")
        chosen = {}
        for d, a, pt, cands in groups:
            best, best_score = None, -np.inf
            for values, specs in cands:
                scores = [self.store.get(s["run_id"]).get(metric) for s in specs]
                if any(x is None for x in scores):
                    continue
                score = float(np.mean(scores))
                if score > best_score:
                    best, best_score = values, score
            chosen[(d.name, a.label, setting_suffix(pt))] = best
            self.tuning.setdefault(d.name, {})[self._tune_key(a, pt)] = {
                "chosen": best, metric: best_score, "grid": {k: list(v) for k, v in a.tune.items()},
                **({"cv_folds": self.cfg.cv_folds, "cv_max_rows": self.cfg.cv_max_rows} if batch else {})}
        # 1b. match_tune: pick the grid value whose run (tuning permutation, whole training set) has the
        #     statistic closest to another algorithm's mean (OSKL's G vs SPA's #SV, SPA paper Sec. 6.1.2)
        match_specs, mgroups = [], []
        for d in datasets:
            for a in algos:
                if not a.match_tune:
                    continue
                target = a.match_tune["target"]
                goal = self._match_value(d, a, "match_tune.target", target)
                for pt in self._settings(d, a):
                    tuned = chosen.get((d.name, a.label, setting_suffix(pt))) or {}
                    base, kern = self._point(d, a, pt, tuned)
                    cands = []
                    for values in self._candidates(a.match_tune["grid"]):
                        p = {**base, **values}
                        if not self._valid(a, p):
                            continue
                        spec = self._spec("match", d, a, p, seeds.TUNE_PERM, kernel=kern, setting=pt)
                        cands.append((values, spec))
                        match_specs.append(spec)
                    mgroups.append((d, a, pt, target, goal, cands))
        if match_specs:
            self._execute(match_specs, "matching")
        for d, a, pt, target, goal, cands in mgroups:
            best, best_gap, best_val = None, np.inf, None
            for values, spec in cands:
                val = _stat(self.store.get(spec["run_id"]), target.stat)
                if val is not None and abs(val - goal) < best_gap:
                    best, best_gap, best_val = values, abs(val - goal), val
            key = (d.name, a.label, setting_suffix(pt))
            chosen[key] = {**(chosen.get(key) or {}), **(best or {})}
            self.tuning.setdefault(d.name, {}).setdefault(self._tune_key(a, pt), {})["match"] = {
                "chosen": best, "target": target.to_json(), "goal": goal, "achieved": best_val,
                "grid": {k: list(v) for k, v in a.match_tune["grid"].items()}}
        # 2. main runs with the chosen parameters on every permutation
        main = []
        for d in datasets:
            for a in algos:
                cls = algo_registry.REGISTRY[a.name]
                reps = self.cfg.repeats if self.cfg.shuffle else 1
                if getattr(cls, "order_free", False) and not cls.stochastic:
                    reps = 1                     # e.g. LIBSVM: the same model whatever the order
                for pt in self._settings(d, a):
                    values = chosen.get((d.name, a.label, setting_suffix(pt))) or {}
                    p, kern = self._point(d, a, pt, values)
                    for r in range(reps):
                        main.append(self._spec("main", d, a, p, r, kernel=kern, setting=pt))
        self._execute(main, "runs")

    def _point(self, d, a, pt: dict, values: dict, base: dict | None = None) -> tuple[dict, dict]:
        """(parameters, kernel) of entry a on dataset d at sweep point pt with grid values applied
        (``kernel.*`` keys go to the kernel); ``base`` = ``_params_at(d, a, pt)`` when already known."""
        base = self._params_at(d, a, pt) if base is None else base
        return {**base, **self._algo_part(values)}, self._kernel_for(d, a, {**pt, **values})

    def _params_at(self, d, a, pt: dict) -> dict:
        """Base parameters (matches resolved) at one sweep point."""
        p = self._resolve_matches(d, a, self._base_params(d, a))
        p.update(self._algo_part(pt))
        return p

    def _meta(self, status: str, started: str) -> dict:
        meta = {
            "name": self.cfg.name, "paper": self.cfg.paper, "table": self.cfg.table, "config": self.cfg.path,
            "description": self.cfg.description, "command": self.command, "olk_version": __version__,
            "git_commit": _git_commit(), "machine": machine_info(), "started": started,
            "finished": _dt.datetime.now().isoformat(timespec="seconds") if status == "finished" else None,
            "status": status, "scale": self.cfg.scale, "repeats": self.cfg.repeats, "seed": self.cfg.seed,
            "n_jobs": self.n_jobs, "backend": self.backend, "compare": self.cfg.compare,
            "table_layout": self.cfg.table_layout, "unavailable": self.unavailable, "tuning": self.tuning,
            "datasets": [d.name for d in self.cfg.datasets], "mode": self.cfg.mode,
            "algorithms": [lab for a in self.cfg.algorithms for lab in (list(a.outputs) or [a.label])],
            fingerprint.KEY: fingerprint.fingerprint(self.cfg),
        }
        prev = self.previous_meta
        if prev:      # resumed with --datasets/--algorithms: keep what earlier invocations ran
            if isinstance(prev.get(fingerprint.KEY), dict):
                meta[fingerprint.KEY] = fingerprint.merge(prev[fingerprint.KEY], meta[fingerprint.KEY])
            for key in ("datasets", "algorithms"):
                meta[key] = list(dict.fromkeys(list(prev.get(key) or []) + meta[key]))
            tuning = {ds: dict(v) for ds, v in (prev.get("tuning") or {}).items()}
            for ds, v in self.tuning.items():
                tuning.setdefault(ds, {}).update(v)
            meta["tuning"] = tuning
            meta["unavailable"] = {**{k: v for k, v in (prev.get("unavailable") or {}).items()
                                      if k not in meta["datasets"] or k in self.unavailable}, **self.unavailable}
        return meta

    def _kept_from_earlier(self) -> list[str]:
        """Runs in the log from earlier invocations for (dataset, label) pairs this one does not cover
        (it was restricted with --datasets/--algorithms): they stay in runs.csv.  Runs of covered pairs
        that this config no longer produces (e.g. a changed parameter) are stale and left out."""
        if not self.resume:
            return []
        covered = {(d.name, a.label) for d in self.cfg.datasets for a in self.cfg.algorithms}
        mine = set(self.order)
        return [rid for rid, rec in self.store.records().items()
                if rid not in mine and (rec.get("dataset"), rec.get("label")) not in covered]

    def _outputs(self) -> dict:
        """label -> {result label: (output, display)} for entries reporting several outputs (batch mode)."""
        return {a.label: {lab: (o, f"{a.display}-{o}") for lab, o in a.outputs.items()}
                for a in self.cfg.algorithms if a.outputs}

    def run(self) -> Path:
        """Run everything (resuming if asked) and write runs.csv, curves.csv, experiment.json and tables."""
        if self.store.exists() and not (self.resume or self.force):
            raise OlkError(f"{self.out} already holds runs of '{self.cfg.name}': pass --resume to continue them "
                           f"(finished runs are kept) or --force to start over")
        if self.force:
            self.store.reset()
        self.out.mkdir(parents=True, exist_ok=True)
        self.store.load()
        self.previous_meta = {}
        if self.resume and not self.force and (self.out / "experiment.json").is_file():
            try:
                self.previous_meta = json.loads((self.out / "experiment.json").read_text())
            except ValueError:
                self.previous_meta = {}
        if self.resume and not self.force and self.store.records():
            # refuse to mix runs of other settings into this directory (olk.experiment.fingerprint)
            old = self.previous_meta.get(fingerprint.KEY)
            fingerprint.check_resume(self.out, old if isinstance(old, dict) else None,
                                     fingerprint.fingerprint(self.cfg), log=self.log)
        self._check_all_specs()
        started = _dt.datetime.now().isoformat(timespec="seconds")
        self._load_data()
        atomic_write_text(self.out / "experiment.json", json.dumps(self._meta("running", started), indent=2, default=str))
        try:
            for stage in self.cfg.stages():
                self._stage(stage)
        except KeyboardInterrupt:
            self.store.write_tables(self._kept_from_earlier() + [r for r in self.order if self.store.get(r)],
                                    self._outputs())
            done = sum(1 for r in self.order if self.store.get(r))
            raise Interrupted(f"interrupted: {done} finished runs are saved in {self.out}; rerun with --resume to continue") from None
        self.store.write_tables(self._kept_from_earlier() + self.order, self._outputs())
        atomic_write_text(self.out / "experiment.json", json.dumps(self._meta("finished", started), indent=2, default=str))
        return self.out
