"""Experiment configs: YAML -> validated :class:`ExperimentConfig`.

A config names datasets, algorithms with parameters, a kernel, repeats and seeds::

    name: spa_table2
    paper: spa_tist2018          # which published table `olk compare` joins with
    table: "2"
    seed: 2018
    repeats: 20                  # permutations
    kernel: {type: gaussian, gamma: 0.4}
    tune: {metric: accuracy}     # grids below are searched on one extra permutation, then fixed
    datasets:
      - name: a9a
        params: {spa: {beta: 20}}            # per-dataset overrides, by algorithm label
      - w7a
    algorithms:
      - name: pa1
        tune: {C: [0.25, 0.5, 1, 2]}
      - name: spa
        params: {alpha: 1}
        tune: {eta: [1000, 100, 10, 1, 0.1, 0.01, 0.001]}
      - name: rbp
        params: {budget: {match: spa, stat: n_sv}}   # mean #SV of SPA's runs on the same dataset

Every key is checked; an unknown key or algorithm gets a one-line error with a did-you-mean.  The keys, their
types and ranges are declared in :mod:`olk.experiment.schema` (msgspec Structs); this module checks what
needs more than one key, the learner registry, the kernels or the datasets, and builds the result classes.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .._lazy import yaml_load, yaml_read
from ..algorithms import registry as algo_registry
from ..errors import ConfigError, did_you_mean, excerpt
from ..kernels import is_kernel_set, kernel_spec, make_kernel
from ..paths import path_name_problem

#: kernel parameters a tune/sweep grid may name (``kernel.gamma: [0.1, 1]``)
KERNEL_TUNE_KEYS = ("kernel.gamma", "kernel.degree", "kernel.coef0")


@dataclass
class MatchRef:
    """A parameter whose value is another algorithm's result on the same dataset (e.g. SPA's mean #SV)."""

    label: str
    stat: str = "n_sv"
    agg: str = "mean"

    def to_json(self):
        return {"match": self.label, "stat": self.stat, "agg": self.agg}


@dataclass(frozen=True)
class WidthRef:
    """A Gaussian kernel's width taken from the data: sigma = the ``percentile``-th percentile of the pairwise
    distances among a seeded sample of ``sample`` rows of the data the runs train on, gamma = 1/(2 sigma^2)
    (the sparse online KLR paper's choice, after Mallapragada, Jin & Jain 2010).  A chi2 kernel takes the same
    percentile of the chi-square distances sum_j (x_j - x'_j)^2 / (x_j + x'_j), and gamma = 1 / that value
    (Zhang et al., IJCV 2007, scale the chi2 distance by its mean; olk uses a percentile, the median with
    ``percentile: 50``).  A kernel on a view measures the distances on the view's columns.  Written in YAML as
    ``kernel: {type: gaussian, gamma: {percentile: 5, sample: 2000}}``; the planner resolves it per dataset
    (and view) (:func:`olk.experiment.data.kernel_width`) and every run records the resulting gamma."""

    percentile: float = 5.0
    sample: int = 2000

    def to_json(self):
        return {"percentile": self.percentile, "sample": self.sample}


def _width_rule(spec, where: str):
    """A kernel whose gamma may be {percentile: P, sample: N}: the spec with a :class:`WidthRef` in it
    (checked as a kernel with a placeholder gamma); in a list of kernels or a per-view set
    (``{views, each}``) every kernel may have one.  Anything else is returned as given."""
    if isinstance(spec, (list, tuple)):
        return [_width_rule(k, f"{where}[{i}]") for i, k in enumerate(spec)]
    if isinstance(spec, dict) and "views" in spec and isinstance(spec.get("each"), (list, tuple)):
        return {**spec, "each": [_width_rule(k, f"{where}.each[{i}]") for i, k in enumerate(spec["each"])]}
    if not (isinstance(spec, dict) and isinstance(spec.get("gamma"), dict)):
        return spec
    from . import schema
    w = schema.convert(spec["gamma"], schema.WidthSpec, f"{where}.gamma")
    out = {**spec, "gamma": WidthRef(w.percentile, w.sample)}
    kind = make_kernel({**spec, "gamma": 1.0}, where).kind
    if kind not in ("gaussian", "chi2"):
        raise ConfigError(f"{where}.gamma: a width from pairwise distances applies to the gaussian and chi2 "
                          f"kernels, not {kind}")
    return out


def has_width_rule(spec) -> bool:
    """Whether a kernel spec (one, a list, a per-view set) has a data-dependent gamma anywhere."""
    if isinstance(spec, (list, tuple)):
        return any(has_width_rule(k) for k in spec)
    if isinstance(spec, dict) and "views" in spec:
        return has_width_rule(spec.get("each") or [])
    return isinstance(spec, dict) and isinstance(spec.get("gamma"), WidthRef)


def with_widths(spec, gamma_of):
    """The spec with every data-dependent gamma replaced by ``gamma_of(kernel_dict)`` (placeholders for
    validation: ``lambda k: 1.0``)."""
    if isinstance(spec, (list, tuple)):
        return [with_widths(k, gamma_of) for k in spec]
    if isinstance(spec, dict) and "views" in spec:
        return {**spec, "each": with_widths(spec.get("each") or [], gamma_of)}
    if isinstance(spec, dict) and isinstance(spec.get("gamma"), WidthRef):
        return {**spec, "gamma": gamma_of(spec)}
    return spec


def width_key(kernel: dict) -> tuple:
    """What a data-dependent width depends on besides the dataset: (WidthRef, kernel kind, columns or None);
    ``kernel`` is one kernel's spec with its views resolved (:func:`olk.kernels.resolve_views`)."""
    k = make_kernel({**kernel, "gamma": 1.0})
    return kernel["gamma"], k.kind, k.cols


@dataclass
class DatasetEntry:
    name: str                        # the id runs, tables and -d use: the entry's `label`, else its `name`
    params: dict = field(default_factory=dict)      # label -> {param: value}
    preprocess: dict = field(default_factory=dict)
    kernel: dict | None = None
    test: str | None = None          # batch mode: name of the test part (default 'test')
    holdout: float | None = None     # batch mode: stratified test fraction when there is no test part
    folds: int | None = None         # batch mode: k-fold evaluation of all the rows: repeat r tests on fold r mod k
    part: str | None = None          # with folds: evaluate on this part of the dataset only (e.g. 'train')
    source: str = ""                 # what is loaded: the registry name or file path (the YAML `name`)

    def __post_init__(self):
        self.source = self.source or self.name


@dataclass
class AlgorithmEntry:
    name: str                  # registry name
    label: str                 # id in results / paper CSVs (e.g. spa, spa_last)
    display: str               # pretty name
    params: dict = field(default_factory=dict)
    tune: dict = field(default_factory=dict)        # param -> list of candidate values
    kernel: dict | None = None

    sweep: dict = field(default_factory=dict)       # param -> list of values: one setting per grid point
    match_tune: dict = field(default_factory=dict)  # {grid: {param: [...]}, target: MatchRef}
    outputs: dict = field(default_factory=dict)     # batch mode: result label -> output ('last'/'avg')
    epochs: int | None = None       # batch mode, online learner: passes over the training set (the OKS paper: 2)
    # a stochastic learner's RNG seeds are those of the entry with this label (common random numbers: a labelled
    # alternative then differs from its literal row only by its option, not by its random draws); None: its own
    seeds_of: str | None = None

    def depends_on(self) -> set[str]:
        refs = [v for v in self.params.values() if isinstance(v, MatchRef)]
        refs += [v for v in (self.kernel.values() if isinstance(self.kernel, dict) else ()) if isinstance(v, MatchRef)]
        if self.match_tune:
            refs.append(self.match_tune["target"])
        return {v.label for v in refs}

    def settings(self) -> list[dict]:
        """The sweep's grid points (one empty setting when there is no sweep)."""
        return grid(self.sweep) if self.sweep else [{}]


@dataclass
class ExperimentConfig:
    name: str
    path: str | None = None
    paper: str | None = None
    table: str | None = None
    description: str = ""
    mode: str = "online"
    seed: int = 0
    repeats: int = 1
    shuffle: bool = True
    scale: float = 1.0
    n_jobs: int = 1
    backend: str = "loky"
    memory_limit: int | None = None         # bytes; 0 = no limit; None = the default (olk.experiment.memory)
    checkpoints: int = 50
    data_dir: str | None = None
    kernel: dict | list | str = field(default_factory=lambda: {"type": "gaussian", "gamma": 1.0})  # a kernel or set
    tune_metric: str = "accuracy"
    datasets: list = field(default_factory=list)
    algorithms: list = field(default_factory=list)
    compare: dict = field(default_factory=dict)
    table_layout: dict = field(default_factory=dict)
    unavailable: dict = field(default_factory=dict)
    cv_folds: int = 3
    cv_max_rows: int | None = None
    test_curve: int | None = None
    plugins: dict = field(default_factory=dict)     # learner name -> its origin, for the config's plugins: entries

    def algorithm(self, label: str) -> AlgorithmEntry:
        for a in self.algorithms:
            if a.label == label:
                return a
        raise KeyError(label)

    def stages(self) -> list[list[AlgorithmEntry]]:
        """Algorithms grouped so that each group only depends on results of earlier groups."""
        done: set[str] = set()
        left = list(self.algorithms)
        stages = []
        while left:
            ready = [a for a in left if a.depends_on() <= done]
            if not ready:
                names = ", ".join(a.label for a in left)
                raise ConfigError(f"{self.path or self.name}: algorithms {names} depend on each other in a cycle "
                                  f"(match:)")
            stages.append(ready)
            done |= {a.label for a in ready}
            left = [a for a in left if a not in ready]
        return stages


def _where(path, *keys) -> str:
    return f"{path}: " + ".".join(str(k) for k in keys)


def _show(v) -> str:
    """A value from the config for a message: its repr, at most ~60 characters, non-printables escaped."""
    return excerpt(repr(v), 60)[1:-1]


def _parse_param_value(v, where):
    """A parameter value; ``{match: LABEL, stat: n_sv, agg: mean}`` is a :class:`MatchRef`."""
    if isinstance(v, dict) and "match" in v:
        from . import schema
        m = schema.convert(v, schema.MatchSpec, where)
        return MatchRef(str(m.match), str(m.stat), str(m.agg))
    return v


def algorithm_params(name: str, params: dict, where: str, allow_match=True, value_where: str | None = None) -> dict:
    """Check parameter names and (non-deferred) values against the registry; keep MatchRefs as they are.

    A bad value is reported at ``WHERE.PARAM``, or at `value_where` when given (``--set spa.beta`` names the
    key as the user typed it)."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ConfigError(f"{where}: expected a mapping of parameter: value, got {params!r}")
    cls = algo_registry.get(name, where)
    specs = {p.name: p for p in cls.params}
    out = {}
    for k, v in params.items():
        if k not in specs:
            raise algo_registry.unknown_param_error(cls, k, v, where)   # unknown, or renamed (cls.renamed)
        vw = value_where or f"{where}.{k}"
        v = _parse_param_value(v, vw)
        if isinstance(v, MatchRef):
            if not allow_match:
                raise ConfigError(f"{vw}: 'match' is not allowed here")
            out[k] = v
        else:
            out[k] = specs[k].coerce(v, vw)
    return out


def _grid_of(name: str, spec, where: str) -> dict:
    """{param: [values]} checked against the registry; 'kernel.gamma' etc. name kernel parameters."""
    out: dict = {}
    if spec is None:
        return out
    if not isinstance(spec, dict):
        raise ConfigError(f"{where}: expected a mapping of parameter: [values...]")
    for p, vals in spec.items():
        if p == "kernel":          # choose one kernel: a list of kernels or a preset (Per(*): the best of spa16)
            if isinstance(vals, str):
                vals = kernel_spec(vals, f"{where}.kernel")
                if isinstance(vals, dict):
                    vals = [vals]
            if not isinstance(vals, list) or not vals:
                raise ConfigError(f"{where}.kernel: expected a list of kernels or a kernel-set name such as spa16")
            out[p] = [kernel_spec(v, f"{where}.kernel[{i}]") for i, v in enumerate(vals)]
            if any(isinstance(v, list) for v in out[p]):
                raise ConfigError(f"{where}.kernel: each candidate must be a single kernel")
            continue
        if not isinstance(vals, list) or not vals:
            raise ConfigError(f"{where}.{p}: expected a non-empty list of candidate values")
        if str(p).startswith("kernel."):
            if p not in KERNEL_TUNE_KEYS:
                raise ConfigError(f"{where}: unknown kernel parameter '{p}'{did_you_mean(p, KERNEL_TUNE_KEYS)}")
            from . import schema
            out[p] = schema.convert(vals, schema.KernelGrid, f"{where}.{p}")
        else:
            out[p] = [algorithm_params(name, {p: v}, where, allow_match=False)[p] for v in vals]
        check_distinct(out[p], f"{where}.{p}")
    return out


def check_distinct(values: list, where: str) -> None:
    """A grid's values (typed: 1 and 1.0 are one value) are distinct, else one line naming the first one given
    twice: a repeated value is the same run computed and logged again (``--set pa1.C=1,1,1`` ran it 3 times)."""
    import json
    seen: dict = {}
    for i, v in enumerate(values):
        key = ("n", float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e308 else \
            ("v", json.dumps(v, sort_keys=True, default=str))
        if key in seen:
            n = sum(1 for w in values if w == v)
            raise ConfigError(f"{where}: the value {_show(v)} is given {n} times (values {seen[key] + 1} and {i + 1}); "
                              f"give each value once (each point is one run)")
        seen[key] = i


def _kernel_entry(spec, where: str):
    """An algorithm's kernel: a normal kernel spec whose values may be {match: LABEL, stat: kernel.gamma}."""
    if spec is None:
        return None
    if is_kernel_set(spec):
        kernel_spec(spec, where)
        return list(spec) if isinstance(spec, (list, tuple)) else dict(spec) if isinstance(spec, dict) else str(spec)
    if not isinstance(spec, dict):
        make_kernel(spec, where)
        return {"type": str(spec)}
    out = {k: _parse_param_value(v, f"{where}.{k}") for k, v in spec.items()}
    make_kernel({k: (1.0 if isinstance(v, MatchRef) else v) for k, v in out.items()}, where)
    return out


def _check_report_keys(cfg: ExperimentConfig, where0: str) -> None:
    """``table_layout`` and ``compare`` are read by the report layer after the runs; check them now, through the
    report's public hooks (:mod:`olk.report.layout`), so a typo stops the config before anything is computed."""
    from ..report.layout import parse_compare, parse_layout
    parse_layout(cfg.table_layout, Path(where0), cfg.mode == "batch")
    parse_compare(cfg.compare, _where(where0, "compare"), strict=True)


def parse_config(raw: dict, path: str | None = None) -> ExperimentConfig:
    """Validate a config mapping (as loaded from YAML) and return an ExperimentConfig.

    The shape of the mapping -- its keys, types, ranges and choices -- is declared once in
    :mod:`olk.experiment.schema`; what is checked here needs more than one key, the learner registry
    (parameters), olk.kernels (kernels) or the datasets."""
    from . import schema  # lazy: msgspec (olk train imports this module for algorithm_params only)
    algo_registry.available()
    where0 = path or "<config>"
    if raw is None:
        raise ConfigError(f"{where0}: empty config: expected a YAML mapping with at least 'algorithms' and "
                          f"'datasets' (see configs/demo.yaml)")
    if not isinstance(raw, dict):
        raise ConfigError(f"{where0}: expected a YAML mapping at the top level, got {type(raw).__name__} "
                          f"{_show(raw)} (see configs/demo.yaml)")
    doc = schema.convert(raw, schema.ConfigFile, where0, top=True)
    plugins = {}
    for k, spec in enumerate(doc.plugins or ()):       # before any learner name is looked up
        base = Path(path).resolve().parent if path else Path.cwd()
        for n in algo_registry.load_plugin(spec, base, _where(where0, f"plugins[{k}]")):
            plugins[n] = algo_registry.origin(n).to_json()
    if doc.name in (None, ""):
        name = Path(path).stem if path else "experiment"
    else:
        name = str(doc.name)
        why = path_name_problem(name)
        if why is not None:
            raise ConfigError(f"{_where(where0, 'name')}: {excerpt(name)} names the results directory, but {why}: "
                              f"give a plain name such as 'my_run' (use --out to choose another directory)")
    cv = doc.cv or schema.CVSpec()
    cfg = ExperimentConfig(
        name=name, path=path, paper=None if doc.paper is None else str(doc.paper),
        table=None if doc.table is None else str(doc.table),
        description="" if doc.description is None else str(doc.description), mode=doc.mode, seed=doc.seed,
        repeats=doc.repeats, shuffle=doc.shuffle, scale=doc.scale, n_jobs=doc.n_jobs, backend=doc.backend,
        checkpoints=doc.checkpoints, data_dir=doc.data_dir, tune_metric=(doc.tune or schema.TuneSpec()).metric,
        compare=dict(doc.compare or {}), table_layout=dict(doc.table_layout or {}),
        unavailable=dict(doc.unavailable or {}), cv_folds=cv.folds, cv_max_rows=cv.max_rows,
        test_curve=doc.test_curve, plugins=plugins)
    if cfg.n_jobs == 0:
        raise ConfigError(f"{_where(where0, 'n_jobs')}: must be >= 1, or negative for all cores but n-1 (-1 = all)")
    if doc.memory_limit is not None:
        from ..units import parse_size
        cfg.memory_limit = parse_size(doc.memory_limit, _where(where0, "memory_limit"))
    kern = _width_rule(doc.kernel, _where(where0, "kernel"))
    kernel_spec(with_widths(kern, lambda k: 1.0), _where(where0, "kernel"))
    cfg.kernel = list(kern) if isinstance(kern, (list, tuple)) else dict(kern) if isinstance(kern, dict) else \
        str(kern) if is_kernel_set(kern) else {"type": str(kern)}
    _check_report_keys(cfg, where0)
    if cfg.test_curve is not None and cfg.mode != "batch":
        raise ConfigError(f"{_where(where0, 'test_curve')}: held-out curves need a test set: set mode: batch")

    labels = set()
    for k, a in enumerate(doc.algorithms):
        w = _where(where0, f"algorithms[{k}]")
        if isinstance(a, str):
            a = schema.AlgorithmSpec(name=a)
        reg = algo_registry.resolve_name(a.name, f"{w}.name")
        cls = algo_registry.REGISTRY[reg]
        label = reg if a.label is None else str(a.label)
        if label in labels:
            raise ConfigError(f"{w}.label: '{label}' used twice; give each entry a distinct label")
        labels.add(label)
        params = algorithm_params(reg, a.params, f"{w}.params")
        tune_grid = _grid_of(reg, a.tune, f"{w}.tune")
        sweep = _grid_of(reg, a.sweep, f"{w}.sweep")
        match_tune = {}
        if a.match_tune is not None:
            mt = a.match_tune
            if "target" not in mt or len(mt) != 2:
                raise ConfigError(f"{w}.match_tune: expected {{PARAM: [values...], target: {{match: LABEL, "
                                  f"stat: n_sv}}}}")
            target = _parse_param_value(mt["target"], f"{w}.match_tune.target")
            if not isinstance(target, MatchRef):
                raise ConfigError(f"{w}.match_tune.target: expected {{match: LABEL, stat: n_sv}}")
            match_tune = {"grid": _grid_of(reg, {k: v for k, v in mt.items() if k != "target"}, f"{w}.match_tune"),
                          "target": target}
        outputs = a.outputs or {}
        if outputs:
            choices = {p.name: p for p in cls.params}.get("output")
            if choices is None:
                raise ConfigError(f"{w}.outputs: only learners with an 'output' parameter (avg/last) have several "
                                  f"outputs; expected e.g. {{spa_last: last, spa_avg: avg}}")
            for lab, o in outputs.items():
                choices.coerce(o, f"{w}.outputs.{lab}")
                if lab in labels:
                    raise ConfigError(f"{w}.outputs: label '{lab}' used twice")
                labels.add(lab)
        kern = _kernel_entry(a.kernel, f"{w}.kernel")
        if a.epochs is not None and (cfg.mode != "batch" or cls.batch):
            why = "is a batch learner" if cls.batch else "runs online here: set mode: batch"
            raise ConfigError(f"{w}.epochs: several passes over the training set are for an online learner in "
                              f"batch mode ({reg} {why})")
        display = str(a.display) if a.display is not None else cls.display if label == reg else label
        cfg.algorithms.append(AlgorithmEntry(reg, label, display, params, tune_grid, kern, sweep, match_tune,
                                             dict(outputs), a.epochs if a.epochs and a.epochs > 1 else None,
                                             a.seeds_of.strip() if a.seeds_of is not None else None))
    run_labels = {a.label for a in cfg.algorithms}
    for a in cfg.algorithms:
        if a.seeds_of is not None and a.seeds_of not in run_labels:
            raise ConfigError(f"{where0}: algorithms[{a.label}].seeds_of: no algorithm labelled '{a.seeds_of}'"
                              f"{did_you_mean(a.seeds_of, run_labels)}")
        refs = [(f"params.{p}", v) for p, v in a.params.items()]
        refs += [(f"kernel.{p}", v) for p, v in (a.kernel.items() if isinstance(a.kernel, dict) else ())]
        if a.match_tune:
            refs.append(("match_tune.target", a.match_tune["target"]))
        for p, v in refs:
            if isinstance(v, MatchRef) and v.label not in run_labels:
                raise ConfigError(f"{where0}: algorithms[{a.label}].{p}.match: no algorithm labelled '{v.label}'"
                                  f"{did_you_mean(v.label, run_labels)}")

    seen = set()
    for k, d in enumerate(doc.datasets):
        w = _where(where0, f"datasets[{k}]")
        if isinstance(d, str):
            d = schema.DatasetSpec(name=d)
        source = str(d.name)                  # what is loaded
        label = source if d.label is None else str(d.label)  # one dataset in several tasks: {label: mfeat-3v8}
        if label in seen:
            hint = "" if d.label is not None else f"; give each entry its own label: (e.g. label: {label}-2)"
            raise ConfigError(f"{w}: dataset '{label}' listed twice{hint}")
        seen.add(label)
        from ..data.preprocess import validate_preprocess  # lazy: numpy/scipy
        validate_preprocess(d.preprocess, f"{w}.preprocess")
        overrides = {}
        for lab, ps in (d.params or {}).items():
            if lab not in run_labels:
                raise ConfigError(f"{w}.params: '{lab}' is not an algorithm label of this config"
                                  f"{did_you_mean(lab, run_labels)}")
            overrides[lab] = algorithm_params(cfg.algorithm(lab).name, ps, f"{w}.params.{lab}")
        kernel = None
        if d.kernel is not None:
            kernel = _width_rule(d.kernel, f"{w}.kernel")
            kernel_spec(with_widths(kernel, lambda k: 1.0), f"{w}.kernel")
        if d.holdout is not None and d.test is not None:
            raise ConfigError(f"{w}: give either 'test' (a test part) or 'holdout' (a fraction), not both")
        if d.folds is not None:
            if d.test is not None or d.holdout is not None:
                raise ConfigError(f"{w}: 'folds' (k-fold evaluation of all rows) replaces 'test' and 'holdout'; "
                                  f"give one")
            if cfg.mode != "batch":
                raise ConfigError(f"{w}.folds: k-fold evaluation tests on held-out folds: set mode: batch")
        if d.part is not None and d.folds is None:
            raise ConfigError(f"{w}.part: only k-fold evaluation (folds: K) reads one part; batch mode otherwise "
                              f"trains on the training part and tests on 'test'")
        if label not in cfg.unavailable and source not in cfg.unavailable:
            _check_dataset(source, f"{w}.name")
        cfg.datasets.append(DatasetEntry(label, overrides, dict(d.preprocess or {}), kernel,
                                         None if d.test is None else str(d.test), d.holdout, d.folds,
                                         None if d.part is None else str(d.part), source=source))
    cfg.stages()
    return cfg


def _check_dataset(name: str, where: str) -> None:
    """A dataset entry must be a registry name or an existing file (checked before anything is computed)."""
    from ..data import get_registry  # lazy: numpy/scipy
    reg = get_registry()
    path = Path(name).expanduser()
    if name in reg or _is(path, "file"):
        return
    if _is(path, "dir"):
        raise ConfigError(f"{where}: {_show(name)} is a directory; give a registry dataset name or a LIBSVM file")
    close = did_you_mean(path.name, reg)
    if "/" in name or "\\" in name or path.suffix:
        raise ConfigError(f"{where}: {_show(name)}: no such file (and not a registry dataset{close}): check the path "
                          f"(relative to the current directory)")
    raise ConfigError(f"{where}: unknown dataset {_show(name)}{close}: run `olk datasets list` for the registered "
                      f"names, or give the path of your own LIBSVM file")


def _is(path: Path, kind: str) -> bool:
    """path.is_file() / is_dir(), False for a name the OS rejects (too long, NUL byte) instead of an OSError."""
    try:
        return path.is_file() if kind == "file" else path.is_dir()
    except (OSError, ValueError):
        return False


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a YAML config file."""
    p = Path(path)
    if not _is(p, "file"):
        try:
            exists = p.exists()
        except (OSError, ValueError):
            exists = False
        if exists and not _is(p, "dir"):        # /dev/zero, a FIFO, a socket: reading it could block or never end
            raise ConfigError(f"{path}: not a regular file; give the path of a YAML config file")
        raise ConfigError(f"{path}: config file not found")
    try:
        data = yaml_read(p)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the config file ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not a UTF-8 text YAML file (byte 0x{data[e.start]:02x} at offset {e.start}); "
                          f"pass a YAML config such as configs/demo.yaml") from None
    try:
        raw = yaml_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        if isinstance(e, yaml.reader.ReaderError):      # a control character such as NUL: binary, not YAML
            line = f":{text.count(chr(10), 0, e.position) + 1}"
            reason = f"unacceptable character {excerpt(chr(e.character))} at offset {e.position}"
        elif getattr(e, "olk_bound", False):       # beyond a limit of olk.limits: its own sentence
            raise ConfigError(f"{path}{line}: {e.problem}") from None
        else:
            reason = " ".join(str(getattr(e, "problem", None) or e).split())
        raise ConfigError(f"{path}{line}: invalid YAML ({reason})") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid YAML (nested too deeply)") from None
    return parse_config(raw, str(path))


def grid(settings: dict[str, list]) -> list[dict]:
    """Cartesian product of sweep settings, in the order given."""
    keys = list(settings)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(settings[k] for k in keys))]
