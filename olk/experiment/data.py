"""Data preparation: the config's datasets -> the arrays every run of the experiment reads.

Online mode gives ``(X, y)`` per dataset; batch mode ``(X_train, y_train, X_test, y_test)`` (the
dataset's test part, or a seeded stratified holdout).  Quick mode (``scale < 1``) keeps a reproducible
fraction of the rows (:func:`olk.experiment.seeds.subsample`).  Labels are checked here, once, against
the task of every learner that will read them (:meth:`olk.tasks.Task.check_labels`).
"""
from __future__ import annotations

from ..algorithms import registry as algo_registry
from ..errors import ConfigError, DataError
from ..kernels import resolve_views
from ..tasks import task_of
from . import seeds
from .config import ExperimentConfig, WidthRef, has_width_rule, width_key


def prepare_data(cfg: ExperimentConfig, unavailable: dict, log=print, views: dict | None = None,
                 targets: dict | None = None, loads: dict | None = None, progress: bool = False) -> dict[str, tuple]:
    """dataset name -> arrays, for every dataset of ``cfg`` that can be loaded.  A registry dataset that is
    not available offline is added to ``unavailable`` (its cells read 'not run') instead of failing.  The
    views of a multi-view dataset ({name: (lo, hi)}, from its ``meta['views']``) go into ``views``; a regression
    target the loader scaled (``target_scale: minmax01``), {scale, offset} with y = scale y_file + offset, into
    ``targets`` (the report turns MSEs back into the file's units with it).  How each dataset was loaded goes into
    ``loads`` ({name: 'blocks' (a large file converted to the cache in blocks), 'whole' (parsed whole), or None
    (from the cache)}: the memory guard counts what the load itself held); ``progress`` shows the bar of a large
    file's conversion on a terminal."""
    from ..data import get_registry, load_dataset
    reg = get_registry()
    tasks = {task_of(algo_registry.REGISTRY[a.name]) for a in cfg.algorithms}
    data = {}
    for d in cfg.datasets:
        if d.name in unavailable:
            continue
        try:
            ds = load_dataset(d.source, data_dir=cfg.data_dir, preprocess=d.preprocess or None, progress=progress)
        except DataError as e:
            entry = reg.get(d.source)        # None for a user's own file path
            if entry is not None and not entry.offline:
                unavailable[d.name] = "data unavailable"
                log(f"olk: {d.name}: not available offline, its cells will read 'not run: data unavailable'")
                continue
            raise e
        if loads is not None:           # meta['cache']: converted in blocks, built in memory, or from the cache
            c = ds.meta.get("cache") or {}
            loads[d.name] = c.get("converted") or (None if c.get("dataset") else "whole")
        if views is not None and ds.meta.get("views"):
            views[d.name] = {v: tuple(c) for v, c in ds.meta["views"].items()}
        if targets is not None and ds.meta.get("target_scale"):
            targets[d.name] = dict(ds.meta["target_scale"])
        for task in sorted(tasks, key=lambda t: t.name):
            task.check_labels(ds.y, f"dataset '{d.name}'", kind=ds.task)
        data[d.name] = _batch_parts(cfg, d, ds) if cfg.mode == "batch" else _scaled(cfg, d.name, ds.X, ds.y)
    return data


def _scaled(cfg: ExperimentConfig, name: str, X, y, part: str = "") -> tuple:
    if cfg.scale < 1.0:
        idx = seeds.subsample(X.shape[0], cfg.scale, cfg.seed, name, part=part)
        X, y = X[idx], y[idx]
    return X, y


def _batch_parts(cfg: ExperimentConfig, d, ds) -> tuple:
    """(X_train, y_train, X_test, y_test): the dataset's test part, or a seeded stratified holdout."""
    where = f"{cfg.path or cfg.name}: dataset {d.name}"
    if d.folds:                    # k-fold evaluation: every run splits the rows itself (execute.py)
        if d.part is not None:
            if d.part not in ds.splits:
                raise ConfigError(f"{where}.part: '{d.name}' has no part '{d.part}'; its parts: "
                                  f"{', '.join(sorted(ds.splits)) or 'none (a single file)'}")
            ds = ds.part(d.part)
        return _scaled(cfg, d.name, ds.X, ds.y) + (None, None)
    if d.holdout is not None:
        tr, te = seeds.holdout_split(ds.y, d.holdout, cfg.seed, d.name)
        parts = [(ds.X[tr], ds.y[tr]), (ds.X[te], ds.y[te])]
    else:
        test = d.test or "test"
        if test not in ds.splits:
            raise ConfigError(f"{where}: batch mode needs a test part, and '{d.name}' has "
                              f"{'parts ' + ', '.join(sorted(ds.splits)) if ds.splits else 'a single file'}"
                              f" (no '{test}'); set 'test: PART' or 'holdout: 0.3' on the dataset")
        train = [s for s in ds.splits if s != test]
        if len(train) != 1:
            raise ConfigError(f"{where}: cannot tell the training part among {', '.join(train)}")
        tr, te = ds.part(train[0]), ds.part(test)
        parts = [(tr.X, tr.y), (te.X, te.y)]
    out: list = []
    for (X, y), name in zip(parts, ("train", "test")):
        out += _scaled(cfg, d.name, X, y, part=name)
    return tuple(out)


def kernel_width(X, ref: WidthRef, seed: int, dataset: str, kind: str = "gaussian", cols=None) -> dict:
    """The width ``ref`` asks for on the rows of X (on columns ``cols`` = (lo, hi) of a view, default all):
    sigma = the ``ref.percentile``-th percentile of the distances between the pairs of a seeded sample of
    ``ref.sample`` rows (all rows if fewer); gaussian: Euclidean distances, gamma = 1 / (2 sigma^2); chi2:
    chi-square distances sum_j (x_j - x'_j)^2 / (x_j + x'_j), gamma = 1 / sigma.  Fully determined by
    (X, ref, seed, dataset, kind, cols)."""
    import numpy as np
    from sklearn.metrics import pairwise_distances
    from sklearn.metrics.pairwise import additive_chi2_kernel
    n = X.shape[0]
    idx = seeds.subsample(n, min(1.0, ref.sample / n), seed, dataset, part="kernel-width") if n > ref.sample \
        else np.arange(n)
    S = X[idx] if cols is None else X[idx][:, cols[0]:cols[1]]
    D = -additive_chi2_kernel(S.toarray() if hasattr(S, "toarray") else S) if kind == "chi2" else pairwise_distances(S)
    sigma = float(np.percentile(D[np.triu_indices(len(idx), k=1)], ref.percentile))
    what = "pairwise distances" if cols is None else f"pairwise distances on columns {cols[0]}..{cols[1] - 1}"
    if not sigma > 0:
        raise ConfigError(f"dataset '{dataset}': the {ref.percentile:g}th percentile of the {what} "
                          f"of {len(idx)} sampled rows is 0 (duplicate rows); use a higher percentile")
    gamma = 1.0 / sigma if kind == "chi2" else 1.0 / (2.0 * sigma * sigma)
    out: dict = {"percentile": ref.percentile, "sample": int(len(idx)), "sigma": sigma, "gamma": gamma}
    if kind != "gaussian" or cols is not None:
        out.update({"kind": kind, "cols": list(cols) if cols is not None else None})
    return out


def kernel_widths(cfg: ExperimentConfig, data: dict, log=print, views: dict | None = None) -> dict:
    """{(dataset, WidthRef, kind, cols): width} for every data-dependent kernel width of ``cfg`` (a config- or
    dataset-level ``gamma: {percentile: P}``, on one kernel or on the kernels of a set; a kernel on a view
    measures its view), on the rows the runs train on (online mode: all rows; batch mode: the training part;
    k-fold evaluation: all rows).  ``views``: dataset -> its views, from :func:`prepare_data`."""
    out = {}
    for d in cfg.datasets:
        spec = d.kernel or cfg.kernel
        if d.name not in data or not has_width_rule(spec):
            continue
        spec = resolve_views(spec, (views or {}).get(d.name), f"dataset {d.name}: kernel")
        for k in (spec if isinstance(spec, list) else [spec]):
            if not (isinstance(k, dict) and isinstance(k.get("gamma"), WidthRef)):
                continue
            ref, kind, cols = key = width_key(k)
            if (d.name, *key) in out:
                continue
            w = out[(d.name, *key)] = kernel_width(data[d.name][0], ref, cfg.seed, d.name, kind, cols)
            if cols is None and kind == "gaussian":
                log(f"olk: {d.name}: sigma = {w['sigma']:.4g} ({ref.percentile:g}th percentile of pairwise "
                    f"distances of {w['sample']} rows), gamma = {w['gamma']:.4g}")
        many = [w for (ds, *_), w in out.items() if ds == d.name and (w.get("cols") or w.get("kind"))]
        if many:
            log(f"olk: {d.name}: {len(many)} kernel widths from pairwise distances per view/kind (gamma "
                f"{min(w['gamma'] for w in many):.3g} .. {max(w['gamma'] for w in many):.3g}; all in experiment.json)")
    return out
