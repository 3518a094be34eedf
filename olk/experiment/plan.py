"""Planning: a validated config -> the :class:`~olk.experiment.spec.RunSpec` of every run.

Two parts, both pure (no data, no learning):

* **Variants of a config** — what the command line asks for on top of the YAML: subsets of datasets /
  algorithms (``--datasets``, ``--algorithms``; an entry keeps the entries it ``match:``es), ``--repeats``,
  ``--scale``, one value per parameter (``olk run --set``) or a grid (``olk sweep --set``/``--PARAM``).
  :func:`variant` returns a new :class:`ExperimentConfig`; values are validated by the learner's own
  parameter declarations, with errors naming the option as typed (``--set spa.beta: must be > 0``).
* **The plan** (:class:`Planner`) — SPA paper Section 6.1.2, generalised, stage by stage
  (:meth:`ExperimentConfig.stages`: an entry that ``match:``es another runs after it):

  1. *tune*: every (dataset, entry, sweep point) with a ``tune`` grid runs each candidate on the tuning
     permutation r = -1 (online) or by k-fold cross-validation on the training set (batch); the best by
     the tuning metric (first on ties) is chosen;
  2. *match*: ``match_tune`` picks the grid value whose run has the statistic closest to another entry's
     mean (OSKL's G vs SPA's #SV);
  3. *main*: the chosen parameters on permutations r = 0..R-1.

  Each step's specs are executed by the runner before the next step is planned from their records.
"""
from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..algorithms import registry as algo_registry
from ..algorithms.registry import Checked
from ..errors import ConfigError, did_you_mean
from ..kernels import build_kernel, kernel_count, resolve_views
from ..tasks import task_of
from . import seeds
from .config import ExperimentConfig, MatchRef, algorithm_params, check_distinct, width_key, with_widths
from .spec import RunSpec

# ----------------------------------------------------------------------------- config variants


def variant(cfg: ExperimentConfig, *, datasets: list[str] | None = None, algorithms: list[str] | None = None,
            repeats: int | None = None, scale: float | None = None, sets: dict[str, list] | None = None,
            sweep: bool = False) -> ExperimentConfig:
    """The config a command line asks for (see the module docstring); ``cfg`` is not modified."""
    cfg = restrict(cfg, datasets, algorithms)
    if repeats is not None:
        if repeats < 1:
            raise ConfigError(f"--repeats: must be >= 1 (got {repeats})")
        cfg.repeats = repeats
    if scale is not None:
        if not 0 < scale <= 1:
            raise ConfigError(f"--scale: must be in (0, 1] (got {scale})")
        cfg.scale = scale
    if sets and sweep:
        return expand_sweep(cfg, sets)
    if sets:
        for k, vals in sets.items():
            if len(vals) != 1:
                raise ConfigError(f"--set {k}: 'olk run' takes one value; use 'olk sweep' for several")
        return apply_overrides(cfg, {k: v[0] for k, v in sets.items()})
    return cfg


def _check_known(option, names, known, what, path):
    for n in names:
        if n not in known:
            raise ConfigError(f"{option}: '{n}' is not {what} of {path}{did_you_mean(n, known)}; it has: "
                              f"{', '.join(known)}")


def restrict(cfg: ExperimentConfig, datasets: list[str] | None, labels: list[str] | None) -> ExperimentConfig:
    """A copy with only the named datasets and algorithm entries, plus every entry those depend on
    (``match:``), e.g. SPA for the budget baselines."""
    cfg = copy.deepcopy(cfg)
    if datasets:
        _check_known("--datasets", datasets, [d.name for d in cfg.datasets], "a dataset", cfg.path)
        cfg.datasets = [d for d in cfg.datasets if d.name in datasets]
    if labels:
        _check_known("--algorithms", labels, [a.label for a in cfg.algorithms], "an algorithm label", cfg.path)
        keep, todo = set(), list(labels)
        while todo:
            lab = todo.pop()
            if lab not in keep:
                keep.add(lab)
                todo += sorted(cfg.algorithm(lab).depends_on())
        cfg.algorithms = [a for a in cfg.algorithms if a.label in keep]
    return cfg


def _targets(cfg: ExperimentConfig, key: str) -> list:
    """The entries a ``--set`` key applies to: 'beta' -> every entry whose learner has 'beta', 'spa.beta' -> the
    entry labelled 'spa'.  A key that applies to none is a one-line error with a did-you-mean."""
    lab, _, p = key.rpartition(".")
    labels = [a.label for a in cfg.algorithms]
    if lab and lab not in labels:
        raise ConfigError(f"--set {key}: no algorithm labelled '{lab}'{did_you_mean(lab, labels)}; the labels "
                          f"of {cfg.path} are: {', '.join(labels)}")
    algos = [cfg.algorithm(lab)] if lab else cfg.algorithms
    hits = [a for a in algos if p in {q.name for q in algo_registry.REGISTRY[a.name].params}]
    if not hits:
        allp = sorted({q.name for a in algos for q in algo_registry.REGISTRY[a.name].params})
        owner = f"algorithm '{lab}' has no" if lab else f"no algorithm in {cfg.path} has a"
        raise ConfigError(f"--set {key}: {owner} parameter '{p}'{did_you_mean(p, allp)}"
                          f"; parameters are: {', '.join(allp) or 'none'}")
    return hits


def _set_param(cfg: ExperimentConfig, a, key: str, value) -> None:
    """Fix parameter ``key`` (as typed: 'beta' or 'spa.beta') of entry ``a`` to ``value``: it is no longer
    tuned, and per-dataset overrides of it are dropped."""
    p = key.rpartition(".")[2]
    a.params[p] = algorithm_params(a.name, {p: value}, f"--set {key}", value_where=f"--set {key}")[p]
    a.tune.pop(p, None)
    for d in cfg.datasets:
        d.params.get(a.label, {}).pop(p, None)


def apply_overrides(cfg: ExperimentConfig, settings: dict[str, object]) -> ExperimentConfig:
    """A copy with parameters set: 'beta' sets it on every algorithm that has it, 'spa.beta' on one label."""
    cfg = copy.deepcopy(cfg)
    for key, val in settings.items():
        for a in _targets(cfg, key):
            _set_param(cfg, a, key, val)
    return cfg


def expand_sweep(cfg: ExperimentConfig, settings: dict[str, list]) -> ExperimentConfig:
    """A copy in which every entry a key applies to sweeps it: ``--set beta=5,10`` is ``sweep: {beta: [5, 10]}``
    on each entry with a ``beta`` (the YAML mechanism: one sweep mechanism for configs and the command line).
    The parameter is no longer fixed, tuned or overridden per dataset.  Entries that ``match:`` a swept entry
    run once per point of it, with the matched value of that point (see :meth:`Planner._settings`)."""
    hits = {key: [a.label for a in _targets(cfg, key)] for key in settings}
    new = copy.deepcopy(cfg)
    for key, values in settings.items():
        p = key.rpartition(".")[2]
        for lab in hits[key]:
            a = new.algorithm(lab)
            a.sweep[p] = [algorithm_params(a.name, {p: v}, f"--set {key}", value_where=f"--set {key}")[p]
                          for v in values]
            check_distinct(a.sweep[p], f"--set {key}")
            a.params.pop(p, None)
            a.tune.pop(p, None)
            for d in new.datasets:
                d.params.get(a.label, {}).pop(p, None)
    new.name = f"{cfg.name}_sweep"
    return new


# ----------------------------------------------------------------------------- the plan


class Point(dict):
    """A sweep point of an entry: its own parameter values (the dict, from ``sweep:``) and, in ``refs``, the
    setting of each entry it ``match:``es ({label: setting}), so that a budget baseline matching SPA's #SV
    runs once per SPA point with that point's #SV."""

    def __init__(self, own=(), refs=None):
        super().__init__(own)
        self.refs = dict(refs or {})


def setting_suffix(pt: dict) -> str:
    """'beta=5,budget=100': the point's own values, then the settings it inherits through matches."""
    own = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in pt.items()]
    inherited = [s for s in dict.fromkeys(getattr(pt, "refs", {}).values()) if s and s not in own]
    return ",".join(own + inherited)


def setting_display(pt: dict, matched: dict, name_of) -> str | None:
    """How a row whose setting is inherited through matches reads: its own values, then for each parameter it
    matches what that parameter is at this point ('budget=100; B = SPA's #SVs at beta=5' -- ``olk sweep --beta``
    on a budget baseline that has no beta).  ``matched`` maps a parameter's shown name (its symbol) to the
    MatchRef its value comes from (a ``match_tune`` target under the names of its grid); ``name_of(label, stat)``
    gives (the entry's display name, the statistic's).  None when the point inherits nothing: the plain setting
    (:func:`setting_suffix`) then reads right."""
    refs = {lab: s for lab, s in getattr(pt, "refs", {}).items() if s}
    if not refs:
        return None
    own = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in pt.items()]
    notes = []
    for shown, ref in matched.items():
        if ref.label in refs:
            who, stat = name_of(ref.label, ref.stat)
            agg = "" if ref.agg == "mean" else f" ({ref.agg})"
            notes.append(f"{shown} = {who}'s {stat}{agg} at {refs[ref.label].replace(',', ', ')}")
    return "; ".join([", ".join(own)] + notes if own else notes) if notes else None


def stat_of(rec: dict, stat: str):
    """A record's value for ``stat``; dotted names walk nested dicts (``kernel.gamma``, ``params.G``)."""
    val: Any = rec
    for part in stat.split("."):
        if not isinstance(val, dict):
            return None
        val = val.get(part)
    return val


@dataclass
class Group:
    """The candidates of one (dataset, entry, sweep point): grid values -> their specs."""
    dataset: Any                # the config's Dataset entry
    entry: Any                  # the config's Algorithm entry
    point: Any                  # the sweep point (a Point)
    candidates: list          # [(values, [RunSpec, ...])]
    target: Any = None          # a match_tune group: the MatchRef its grid is matched to
    goal: float | None = None

    @property
    def specs(self) -> list[RunSpec]:
        return [s for _, specs in self.candidates for s in specs]


class Planner:
    """The runs of a config, step by step (see the module docstring).

    ``records(dataset, label)`` returns the finished main-phase records of an entry: matches and
    ``match_tune`` targets are computed from them.  ``tuning`` collects what tuning and matching chose,
    for experiment.json."""

    def __init__(self, cfg: ExperimentConfig, records, log=print):
        self.cfg = cfg
        self.records = records
        self.log = log
        self.tuning: dict = {}
        #: dataset -> entry (and sweep point) -> parameter -> the value a ``match:`` gave it and the runs it came
        #: from (experiment.json "matched")
        self.matched: dict = {}
        self.skipped: dict = {}
        #: (dataset, WidthRef, kind, cols) -> gamma of a data-dependent kernel width; the runner fills it from
        #: the prepared data (olk.experiment.data.kernel_widths) before any spec is made
        self.widths: dict = {}
        #: dataset -> {view name: (lo, hi)} of a multi-view dataset (olk.experiment.data.prepare_data)
        self.views: dict = {}
        self.check()

    # ----------------------------------------------------------------- checks
    def _where(self, d, a) -> str:
        return f"{self.cfg.path or self.cfg.name}: dataset {d.name}, algorithm {a.label}"

    def check(self) -> None:
        """Fail fast on any invalid parameter combination before computing anything.

        Tune grids and sweeps may contain combinations a learner rejects (BOGD's eta*lam >= 1, SPA's
        beta < alpha in an alpha x beta sweep): those points are skipped (and logged), but an entry
        with no valid point at all is an error, reported with the learner's own message.
        """
        for d in self.cfg.datasets:
            for a in self.cfg.algorithms:
                specs = {p.name: p for p in algo_registry.REGISTRY[a.name].params}
                base = {k: (specs[k].default if isinstance(v, MatchRef) else v)
                        for k, v in self._base_params(d, a).items()}
                first = None
                for pt in a.settings():
                    p0 = {**base, **_algo_part(pt)}
                    cands = list(_candidates(a.tune)) if a.tune else [{}]
                    if not any(_checked(a, {**p0, **_algo_part(c)}) is not None for c in cands):
                        first = first or {**p0, **_algo_part(cands[0])}
                        self.skipped.setdefault((d.name, a.label), []).append(setting_suffix(pt))
                kern = d.kernel or a.kernel or self.cfg.kernel
                n_k = kernel_count(kern) if "kernel" not in a.tune else 1
                cls = algo_registry.REGISTRY[a.name]
                if n_k > cls.max_kernels:
                    raise ConfigError(f"{self._where(d, a)}: {a.name} learns with {cls.max_kernels} kernel(s), and "
                                      f"its kernel is a set of {n_k}; give it a single kernel (kernel: on the entry)")
                if first is not None and len(self.skipped.get((d.name, a.label), [])) == len(a.settings()):
                    algo_registry.validate_params(a.name, first, self._where(d, a))
        for (ds, lab), pts in self.skipped.items():
            if pts and pts != [""]:
                self.log(f"olk: {ds}/{lab}: skipping {len(pts)} invalid sweep point(s): {'; '.join(pts[:5])}"
                         f"{' ...' if len(pts) > 5 else ''}")

    # ------------------------------------------------------------------ specs
    def spec(self, phase, d, a, params: Checked, perm: int, *, kernel, setting: dict | None = None,
             fold: int | None = None) -> RunSpec:
        """One run: `params` checked once (:func:`_checked`), `kernel` built (:meth:`_kernel_for`)."""
        cls = algo_registry.REGISTRY[a.name]
        batch = self.cfg.mode == "batch"
        return RunSpec(
            experiment=self.cfg.name, phase=phase, mode=self.cfg.mode, task=task_of(cls).name, dataset=d.name,
            preprocess=d.preprocess, scale=self.cfg.scale, shuffle=self.cfg.shuffle, seed=self.cfg.seed, perm=perm,
            algorithm=a.name, label=a.label, display=a.display,
            params=params,
            kernel=kernel, checkpoints=self.cfg.checkpoints,
            algo_seed=seeds.algorithm_seed(self.cfg.seed, d.name, perm, a.seeds_of or a.label)
            if cls.stochastic else None,
            seeds_of=a.seeds_of if cls.stochastic else None,
            setting=(setting_suffix(setting) if setting is not None else "") or None,
            setting_display=self._setting_display(d, a, setting) if setting is not None else None,
            holdout=d.holdout if batch else None,
            test_part=(None if d.holdout is not None or d.folds else (d.test or "test")) if batch else None,
            eval_folds=d.folds if batch else None,
            eval_part=d.part if batch and d.folds else None,
            test_curve=self.cfg.test_curve if batch and phase == "main" else None,
            epochs=a.epochs if batch else None,
            fold=fold if batch else None,
            cv={"folds": self.cfg.cv_folds, "max_rows": self.cfg.cv_max_rows} if batch and fold is not None else None)

    def _setting_display(self, d, a, pt: dict) -> str | None:
        """:func:`setting_display` of entry a's point pt on dataset d: its matched parameters by their symbols
        (olk.algorithms.registry.Param.symbol), the matched entry by its display name, the statistic by its
        table header."""
        from ..report.metrics import METRICS
        specs = {p.name: p for p in algo_registry.REGISTRY[a.name].params}
        matched = {(specs[k].symbol or k) if k in specs else k: v
                   for k, v in self._base_params(d, a).items() if isinstance(v, MatchRef)}
        if isinstance(a.kernel, dict):
            matched.update({f"kernel.{k}": v for k, v in a.kernel.items() if isinstance(v, MatchRef)})
        if a.match_tune:
            matched["/".join(a.match_tune["grid"])] = a.match_tune["target"]
        return setting_display(pt, matched, lambda lab, stat: (self.cfg.algorithm(lab).display,
                                                                METRICS.get(stat, (stat,))[0]))

    def _kernel_for(self, d, a, pt: Any, values: dict | None = None):
        """The run's kernel, built (a Kernel or KernelSet): dataset's, else algorithm's (matches resolved), else the
        config's; then tuned values."""
        spec = d.kernel or (self._resolve_matches(d, a, pt, a.kernel, kernel=True)
                            if isinstance(a.kernel, dict) else a.kernel) or self.cfg.kernel
        values = values or {}
        if "kernel" in values:                  # a tuned choice among kernels (tune: {kernel: [...]})
            spec = values["kernel"]
        grid = {k.split(".", 1)[1]: v for k, v in (values or {}).items() if k.startswith("kernel.")}
        spec = resolve_views(spec, self.views.get(d.name), f"{self._where(d, a)}: kernel")
        if "gamma" not in grid:
            spec = with_widths(spec, lambda k: self.widths[(d.name, *width_key(k))])
        if grid and not isinstance(spec, dict):
            raise ConfigError(f"{self._where(d, a)}: kernel.{next(iter(grid))} is tuned, but the kernel is a set "
                              f"of several ({spec if isinstance(spec, str) else len(spec)}); tune a single kernel")
        return build_kernel({**spec, **grid} if isinstance(spec, dict) else spec, f"{self._where(d, a)}: kernel")

    def _base_params(self, d, a) -> dict:
        p = dict(a.params)
        p.update(d.params.get(a.label, {}))
        return p

    def _match_value(self, d, a, pt: Point, what: str, ref: MatchRef) -> float:
        """``ref.agg`` of ``ref.stat`` over the main runs of entry ``ref.label`` at the point ``pt`` inherits."""
        setting = pt.refs.get(ref.label, "")
        runs = [r for r in self.records(d.name, ref.label) if (r.get("setting") or "") == setting
                and stat_of(r, ref.stat) is not None]
        if not runs:
            raise ConfigError(f"{self.cfg.path}: {a.label}.{what} matches {ref.label}'s {ref.stat}, but {ref.label} "
                              f"has no runs with '{ref.stat}' on {d.name}")
        agg: Any = {"mean": np.mean, "median": np.median, "max": np.max, "min": np.min}.get(ref.agg)
        if agg is None:
            raise ConfigError(f"{self.cfg.path}: {a.label}.{what}.agg must be mean, median, max or min")
        value = float(agg([stat_of(r, ref.stat) for r in runs]))
        # recorded in experiment.json ("matched"): the value and the runs it came from
        self.matched.setdefault(d.name, {}).setdefault(self._tune_key(a, pt), {})[what] = {
            "value": value, **ref.to_json(), "runs": len(runs), "perms": sorted({int(r.get("perm", -1)) for r in runs})}
        return value

    def _resolve_matches(self, d, a, pt: Any, params: dict, kernel: bool = False) -> dict:
        specs = {p.name: p for p in algo_registry.REGISTRY[a.name].params}
        out = {}
        for k, v in params.items():
            if isinstance(v, MatchRef):
                val = self._match_value(d, a, pt, f"{'kernel.' if kernel else ''}{k}", v)
                out[k] = int(round(val)) if not kernel and specs[k].type is int else val
            else:
                out[k] = v
        return out

    def _settings(self, d, a) -> list[Point]:
        """The entry's valid sweep points on dataset d, times the points of every entry it matches: one
        sweep mechanism for YAML ``sweep:`` and ``olk sweep`` alike."""
        bad = set(self.skipped.get((d.name, a.label), []))
        refs = sorted(a.depends_on())
        ref_points = [[(lab, setting_suffix(q)) for q in self._settings(d, self.cfg.algorithm(lab))] for lab in refs]
        return [Point(pt, combo) for pt in a.settings() if setting_suffix(pt) not in bad
                for combo in itertools.product(*ref_points)]

    def _point(self, d, a, pt: dict, values: dict, base: dict | None = None) -> tuple[dict, dict]:
        """(parameters, kernel) of entry a on dataset d at sweep point pt with grid values applied
        (``kernel.*`` keys go to the kernel); ``base`` = ``_params_at(d, a, pt)`` when already known."""
        base = self._params_at(d, a, pt) if base is None else base
        return {**base, **_algo_part(values)}, self._kernel_for(d, a, pt, {**pt, **values})

    def _params_at(self, d, a, pt: dict) -> dict:
        """Base parameters (matches resolved) at one sweep point."""
        p = self._resolve_matches(d, a, pt, self._base_params(d, a))
        p.update(_algo_part(pt))
        return p

    def _tune_key(self, a, pt: dict) -> str:
        s = setting_suffix(pt)
        return a.label + (f"@{s}" if s else "")

    # ------------------------------------------------------------------ steps
    def tune(self, datasets, algos) -> list[Group]:
        """Step 1: the tuning runs of every (dataset, entry, sweep point) with a grid."""
        folds = range(self.cfg.cv_folds) if self.cfg.mode == "batch" else [None]
        groups = []
        for d in datasets:
            for a in algos:
                if not a.tune:
                    continue
                for pt in self._settings(d, a):
                    base = self._params_at(d, a, pt)
                    cands = []
                    for values in _candidates(a.tune):
                        point, kern = self._point(d, a, pt, values, base)
                        p = _checked(a, point)
                        if p is not None:
                            cands.append((values, [self.spec("tune", d, a, p, seeds.TUNE_PERM, kernel=kern,
                                                             setting=pt, fold=f) for f in folds]))
                    groups.append(Group(d, a, pt, cands))
        return groups

    def choose_tuned(self, groups: list[Group], record) -> dict:
        """The best candidate of each group by the tuning metric (mean over folds; first on ties)."""
        batch = self.cfg.mode == "batch"
        metric = "test_accuracy" if batch else self.cfg.tune_metric
        chosen = {}
        for g in groups:
            best, best_score = None, -np.inf
            for values, specs in g.candidates:
                scores = [record(s.run_id).get(metric) for s in specs]
                if any(x is None for x in scores):
                    continue
                score = float(np.mean(scores))
                if score > best_score:
                    best, best_score = values, score
            chosen[(g.dataset.name, g.entry.label, setting_suffix(g.point))] = best
            self.tuning.setdefault(g.dataset.name, {})[self._tune_key(g.entry, g.point)] = {
                "chosen": best, metric: best_score, "grid": {k: list(v) for k, v in g.entry.tune.items()},
                **({"cv_folds": self.cfg.cv_folds, "cv_max_rows": self.cfg.cv_max_rows} if batch else {})}
        return chosen

    def match(self, datasets, algos, chosen: dict) -> list[Group]:
        """Step 2: ``match_tune`` runs (tuning permutation, whole training set) of every grid value."""
        groups = []
        for d in datasets:
            for a in algos:
                if not a.match_tune:
                    continue
                target = a.match_tune["target"]
                for pt in self._settings(d, a):
                    goal = self._match_value(d, a, pt, "match_tune.target", target)
                    tuned = chosen.get((d.name, a.label, setting_suffix(pt))) or {}
                    base, kern = self._point(d, a, pt, tuned)
                    grid = _candidates(a.match_tune["grid"])
                    checked = [(values, _checked(a, {**base, **values})) for values in grid]
                    cands = [(values, [self.spec("match", d, a, p, seeds.TUNE_PERM, kernel=kern, setting=pt)])
                             for values, p in checked if p is not None]
                    groups.append(Group(d, a, pt, cands, target, goal))
        return groups

    def choose_matched(self, groups: list[Group], chosen: dict, record) -> None:
        """Add to ``chosen`` the grid value whose statistic is closest to its target (first on ties)."""
        for g in groups:
            best, best_gap, best_val = None, np.inf, None
            for values, (spec,) in g.candidates:
                val = stat_of(record(spec.run_id), g.target.stat)
                if val is not None and abs(val - g.goal) < best_gap:
                    best, best_gap, best_val = values, abs(val - g.goal), val
            key = (g.dataset.name, g.entry.label, setting_suffix(g.point))
            chosen[key] = {**(chosen.get(key) or {}), **(best or {})}
            self.tuning.setdefault(g.dataset.name, {}).setdefault(self._tune_key(g.entry, g.point), {})["match"] = {
                "chosen": best, "target": g.target.to_json(), "goal": g.goal, "achieved": best_val,
                "grid": {k: list(v) for k, v in g.entry.match_tune["grid"].items()}}

    def main(self, datasets, algos, chosen: dict) -> list[RunSpec]:
        """Step 3: the chosen parameters on every permutation (one run for an order-free, deterministic
        learner such as LIBSVM: the same model whatever the order).  Without shuffling (``shuffle: false``,
        the data's own order) a deterministic learner runs once and a stochastic one ``repeats`` times, each
        with its own seed (e.g. the AMKL paper's random features over file-order streams)."""
        specs = []
        for d in datasets:
            for a in algos:
                reps = main_repeats(self.cfg, d, a)
                for pt in self._settings(d, a):
                    point, kern = self._point(d, a, pt, chosen.get((d.name, a.label, setting_suffix(pt))) or {})
                    p = algo_registry.validate_params(a.name, point, self._where(d, a))
                    specs += [self.spec("main", d, a, p, r, kernel=kern, setting=pt) for r in range(reps)]
        return specs


def planned_runs(cfg: ExperimentConfig) -> int:
    """How many runs `cfg` plans, counted from its numbers alone -- no point, grid or spec is made: per dataset
    and entry, its sweep points (times those of the entries it matches) times its tuning candidates (times the
    cross-validation folds in batch mode), ``match_tune`` candidates and main runs (:func:`main_repeats`)."""
    from math import prod

    def points(a, seen=()) -> int:
        own = prod(len(v) for v in a.sweep.values()) if a.sweep else 1
        return own * prod(points(cfg.algorithm(lab), (*seen, a.label)) for lab in sorted(a.depends_on())
                          if lab not in seen)
    total = 0
    for a in cfg.algorithms:
        tune = prod(len(v) for v in a.tune.values()) * (cfg.cv_folds if cfg.mode == "batch" else 1) if a.tune else 0
        match = prod(len(v) for v in a.match_tune["grid"].values()) if a.match_tune else 0
        total += points(a) * sum(tune + match + main_repeats(cfg, d, a) for d in cfg.datasets)
    return total


def check_planned_runs(cfg: ExperimentConfig) -> None:
    """A config planning more runs than the ``planned_runs`` limit (:mod:`olk.limits`) is one line naming the
    count and where it comes from, before any plan is built (``repeats: 10**30`` once ran a minute into 520 MB)."""
    from ..limits import LIMITS
    lim = LIMITS["planned_runs"]
    n = planned_runs(cfg)
    if n > lim.value():
        entries = f"{len(cfg.algorithms)} entr{'y' if len(cfg.algorithms) == 1 else 'ies'}"
        raise ConfigError(f"{cfg.path or cfg.name}: the experiment plans {_count(n)} runs (repeats "
                          f"{_count(cfg.repeats)}, {len(cfg.datasets)} dataset(s), {entries} with their sweep "
                          f"points and tuning grids), " + lim.exceeded("more than") + "; lower repeats or the grids")


def _count(n: int) -> str:
    """n with thousands separators, or as 1e+30 when it is too long to read."""
    return f"{n:,}" if n < 10**12 else f"{float(n):.3g}"


def main_repeats(cfg: ExperimentConfig, d, a) -> int:
    """Main runs of entry ``a`` on dataset ``d`` per sweep point (see :meth:`Planner.main`)."""
    cls = algo_registry.REGISTRY[a.name]
    if cls.order_free and not cls.stochastic and not d.folds:
        return 1                    # (with k-fold evaluation every repeat has its own test fold)
    return cfg.repeats if cfg.shuffle or d.folds or cls.stochastic else 1


def _candidates(grid_spec: dict):
    keys = list(grid_spec)
    for combo in itertools.product(*(grid_spec[k] for k in keys)):
        yield dict(zip(keys, combo))


def _algo_part(values: dict) -> dict:
    return {k: v for k, v in values.items() if not (k == "kernel" or k.startswith("kernel."))}


def _checked(a, params: dict) -> Checked | None:
    """The parameters of entry `a` checked once (typed, defaults filled: what a spec holds), or None for a
    combination the learner refuses (a tune or sweep point that is skipped)."""
    try:
        return algo_registry.validate_params(a.name, params, a.label)
    except ConfigError:
        return None
