"""Data preparation: the config's datasets -> the arrays every run of the experiment reads.

Online mode gives ``(X, y)`` per dataset; batch mode ``(X_train, y_train, X_test, y_test)`` (the
dataset's test part, or a seeded stratified holdout).  Quick mode (``scale < 1``) keeps a reproducible
fraction of the rows (:func:`olk.experiment.seeds.subsample`).  Labels are checked here, once, against
the task of every learner that will read them (:meth:`olk.tasks.Task.check_labels`).
"""
from __future__ import annotations

from ..algorithms import registry as algo_registry
from ..errors import ConfigError, DataError
from . import seeds
from .config import ExperimentConfig
from ..tasks import task_of


def prepare_data(cfg: ExperimentConfig, unavailable: dict, log=print) -> dict[str, tuple]:
    """dataset name -> arrays, for every dataset of ``cfg`` that can be loaded.  A registry dataset that is
    not available offline is added to ``unavailable`` (its cells read 'not run') instead of failing."""
    from ..data import get_registry, load_dataset
    reg = get_registry()
    tasks = {task_of(algo_registry.REGISTRY[a.name]) for a in cfg.algorithms}
    data = {}
    for d in cfg.datasets:
        if d.name in unavailable:
            continue
        try:
            ds = load_dataset(d.name, data_dir=cfg.data_dir, preprocess=d.preprocess or None)
        except DataError as e:
            entry = reg.get(d.name)          # None for a user's own file path
            if entry is not None and not entry.offline:
                unavailable[d.name] = "data unavailable"
                log(f"olk: {d.name}: not available offline, its cells will read 'not run: data unavailable'")
                continue
            raise e
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
        tr = ds.part(train[0]) if len(train) == 1 else None
        if tr is None:
            raise ConfigError(f"{where}: cannot tell the training part among {', '.join(train)}")
        te = ds.part(test)
        parts = [(tr.X, tr.y), (te.X, te.y)]
    out = []
    for (X, y), name in zip(parts, ("train", "test")):
        out += _scaled(cfg, d.name, X, y, part=name)
    return tuple(out)
