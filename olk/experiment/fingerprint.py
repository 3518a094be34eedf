"""The settings a results directory was computed with, and the ``--resume`` check against them.

``olk run --resume`` adds runs to an existing results directory.  That is only sound when the runs
already there were computed with the same settings, so the runner stores a *settings fingerprint* in
experiment.json (key ``settings``) when a run starts, and a resumed run compares its own against it:

* what is compared: the olk version, mode, scale, seed, shuffle, checkpoints, the config's kernel, the
  tuning metric (online) or cross-validation (batch), and for every dataset and algorithm entry present
  in both runs its settings (preprocess, test part/holdout, kernel; algorithm name, parameters, tune /
  match_tune / sweep grids, kernel, outputs; per-dataset parameter overrides);
* what is not: ``repeats`` (run ids do not depend on it: more repeats extends the runs, fewer reports a
  subset), which datasets and algorithm entries take part (``--datasets`` / ``--algorithms`` subsets and
  entries added later only add runs, the others' earlier runs are kept), and cosmetic or execution-only
  fields (name, paper, table, description, display names, compare / table_layout / regress tolerances,
  n_jobs, backend, scheduler, memory_limit, data_dir, unavailable).

A difference is refused with one line naming it, unless ``--force`` (start over).  An experiment.json
from an olk without fingerprints is resumed with a one-line warning.
"""
from __future__ import annotations

import json

from .._version import __version__
from ..errors import OlkError
from ..kernels import kernel_spec
from .config import ExperimentConfig, MatchRef, WidthRef

KEY = "settings"            # experiment.json key holding the fingerprint
_UNSET = object()


def _default(o):
    if isinstance(o, (MatchRef, WidthRef)):
        return o.to_json()
    if hasattr(o, "item"):          # numpy scalar
        return o.item()
    return str(o)


def _plain(v):
    """Canonical JSON form (MatchRef as its mapping, tuples as lists), as it reads back from experiment.json."""
    return json.loads(json.dumps(v, sort_keys=True, default=_default))


def _kernel(spec):
    """A kernel spec in canonical form ('gaussian' == {type: gaussian, gamma: 1}); as given if it has matches."""
    if spec is None:
        return None
    if isinstance(spec, dict) and any(isinstance(v, (MatchRef, WidthRef)) for v in spec.values()):
        return spec
    try:
        return kernel_spec(spec)
    except OlkError:
        return spec


def fingerprint(cfg: ExperimentConfig) -> dict:
    """What determines the results of ``cfg`` (see the module docstring), as a JSON-able mapping."""
    fp = {
        "olk_version": __version__, "mode": cfg.mode, "scale": cfg.scale, "seed": cfg.seed, "shuffle": cfg.shuffle,
        "checkpoints": cfg.checkpoints, "kernel": _kernel(cfg.kernel),
        "datasets": {d.name: {"preprocess": d.preprocess, "kernel": _kernel(d.kernel), "test": d.test,
                              "holdout": d.holdout,
                              **({"folds": d.folds, "part": d.part} if d.folds else {}),
                              **({"source": d.source} if d.source != d.name else {})}
                     for d in cfg.datasets},
        "overrides": {d.name: d.params for d in cfg.datasets if d.params},
        "algorithms": {a.label: {"algorithm": a.name, "params": a.params, "tune": a.tune, "kernel": _kernel(a.kernel),
                                 "sweep": a.sweep, "match_tune": a.match_tune, "outputs": a.outputs,
                                 **({"epochs": a.epochs} if a.epochs else {}),
                                 **({"seeds_of": a.seeds_of} if a.seeds_of else {})}
                       for a in cfg.algorithms},
    }
    if cfg.mode == "batch":
        fp["cv"] = {"folds": cfg.cv_folds, "max_rows": cfg.cv_max_rows}
        if cfg.test_curve:
            fp["test_curve"] = cfg.test_curve
    else:
        fp["tune_metric"] = cfg.tune_metric
    return _plain(fp)


def _diff(path: str, a, b, out: list) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in dict.fromkeys([*a, *b]):
            _diff(f"{path}.{k}" if path else str(k), a.get(k, _UNSET), b.get(k, _UNSET), out)
    elif a != b:
        out.append((path, a, b))


def differences(old: dict, new: dict) -> list[tuple[str, object, object]]:
    """(setting, old value, new value) for every setting that differs; entries in only one side are not
    differences (subsets and additions)."""
    out: list = []
    for k in dict.fromkeys([*old, *new]):
        if k not in ("datasets", "algorithms", "overrides"):
            _diff(k, old.get(k, _UNSET), new.get(k, _UNSET), out)
    od, nd = old.get("datasets") or {}, new.get("datasets") or {}
    oa, na = old.get("algorithms") or {}, new.get("algorithms") or {}
    for ds in nd:
        if ds in od:
            _diff(f"datasets[{ds}]", od[ds], nd[ds], out)
    for lab in na:
        if lab in oa:
            _diff(f"algorithms[{lab}]", oa[lab], na[lab], out)
    oo, no = old.get("overrides") or {}, new.get("overrides") or {}
    for ds in nd:
        if ds not in od:
            continue
        for lab in na:
            if lab in oa:
                _diff(f"datasets[{ds}].params.{lab}", (oo.get(ds) or {}).get(lab, {}),
                      (no.get(ds) or {}).get(lab, {}), out)
    return out


def merge(old: dict, new: dict) -> dict:
    """The fingerprint of a directory after a resumed run (same settings): entries of both runs."""
    out = dict(new)
    for k in ("datasets", "algorithms"):
        out[k] = {**(old.get(k) or {}), **(new.get(k) or {})}
    out["overrides"] = {ds: {**((old.get("overrides") or {}).get(ds) or {}), **v}
                        for ds, v in {**(old.get("overrides") or {}), **(new.get("overrides") or {})}.items()}
    return out


def _fmt(v) -> str:
    if v is _UNSET:
        return "(unset)"
    if isinstance(v, str):
        return v
    return json.dumps(v, sort_keys=True, separators=(", ", ": "))


def record_problem(old) -> str | None:
    """Why `old` (experiment.json's ``settings``) is not a settings record olk writes, or None if it is one: an
    object whose ``datasets``, ``algorithms`` and ``overrides`` are objects, and each override an object."""
    if not isinstance(old, dict):
        return f"it is a JSON {type(old).__name__}, not an object"
    for key in ("datasets", "algorithms", "overrides"):
        v = old.get(key)
        if v is not None and not isinstance(v, dict):
            return f"its '{key}' is a JSON {type(v).__name__}, not an object"
    for ds, v in (old.get("overrides") or {}).items():
        if v is not None and not isinstance(v, dict):
            return f"its 'overrides.{str(ds)[:40]}' is a JSON {type(v).__name__}, not an object"
    return None


def rerun_closure(cfg: ExperimentConfig, labels: list[str]) -> list[str]:
    """``labels`` and every entry that depends on one of them (:meth:`AlgorithmEntry.depends_on`: a ``match:`` on it
    in its parameters or kernel, or its ``match_tune`` target; or its ``seeds_of``), transitively, in config order:
    what ``olk run --resume --rerun LABEL`` computes again.  An unknown label is refused in one line."""
    known = [a.label for a in cfg.algorithms]
    for lab in labels:
        if lab not in known:
            from ..errors import did_you_mean
            raise OlkError(f"--rerun {lab}: no algorithm entry of {cfg.name} has that label (labels: "
                           f"{', '.join(known)}){did_you_mean(lab, known)}")
    out = set(labels)

    def refs(a) -> set:
        return a.depends_on() | ({a.seeds_of} if a.seeds_of else set())

    grew = True
    while grew:
        grew = False
        for a in cfg.algorithms:
            if a.label not in out and refs(a) & out:
                out.add(a.label)
                grew = True
    return [lab for lab in known if lab in out]


def forget(old: dict, labels) -> dict:
    """``old`` (experiment.json's ``settings``) without the algorithm entries ``labels`` and their per-dataset
    overrides: those entries are computed again (``--rerun``), so their earlier settings are not compared."""
    out = dict(old)
    out["algorithms"] = {k: v for k, v in (old.get("algorithms") or {}).items() if k not in labels}
    out["overrides"] = {ds: {k: v for k, v in (o or {}).items() if k not in labels}
                        for ds, o in (old.get("overrides") or {}).items()}
    return out


def check_resume(out, old: dict | None, new: dict, log=print, max_shown: int = 4, rerun=()) -> None:
    """Refuse (OlkError) to resume results written with other settings; warn when ``old`` is missing.  The entries
    ``rerun`` (:func:`rerun_closure`) are computed again, so their settings may differ."""
    if old is None:
        log(f"olk: warning: {out}/experiment.json has no settings record (written by an older olk), so --resume "
            f"cannot check that its runs used the same settings as this one")
        return
    why = record_problem(old)
    if why is not None:
        raise OlkError(f"{out}/experiment.json: its settings record is not one olk writes ({why}); pass --force to "
                       f"start over (its runs are discarded), or --out DIR to write elsewhere")
    diffs = differences(forget(old, rerun) if rerun else old, new)
    if not diffs:
        return
    shown = diffs[:max_shown]
    more = f" (and {len(diffs) - len(shown)} more)" if len(diffs) > len(shown) else ""
    was = ", ".join(f"{k}={_fmt(a)}" for k, a, _ in shown)
    now = ", ".join(f"{k}={_fmt(b)}" for k, _, b in shown)
    keys = {k for k, _, _ in diffs}
    fixes = []
    named = {k for k in ("scale", "seed", "olk_version") if k in keys and k in old}    # a value to go back to
    if "scale" in named:
        fixes.append(f"--scale {_fmt(old['scale'])}")
    if "seed" in named:
        fixes.append(f"seed: {_fmt(old['seed'])} in the config")
    if "olk_version" in named:
        fixes.append(f"olk {_fmt(old['olk_version'])}")
    if keys - named:
        fixes.append("the settings above" if not fixes else "the other settings above")
    labels = sorted({k.split("[", 1)[1].split("]", 1)[0] for k, _, _ in diffs if k.startswith("algorithms[")})
    entry = f", --rerun {','.join(labels)} to compute only {'that entry' if len(labels) == 1 else 'those entries'} " \
            f"again" if labels and len(labels) == len(keys) else ""
    raise OlkError(f"{out} was written with {was}, this run has {now}{more}; pass --force to start over{entry}, "
                   f"--out DIR to write elsewhere, or rerun with {' and '.join(fixes)}")
