"""When two run records are the same run, though their ids differ.

A run's id (:func:`olk.experiment.spec.run_id_of`) hashes every parameter of its learner, defaults filled.  When a
learner declares a new parameter, every run planned afterwards carries it, so a run recorded before has another id
although nothing it computes changed -- provided the new parameter sits at the value that keeps the old behaviour
(``Param.before``: its default, or the ``legacy`` value of an option whose default changed the behaviour).  Such a
record is *the same run*: ``olk run --resume`` keeps it instead of computing it again (:class:`~.runner.Runner`),
``olk verify`` compares it with its rerun (:mod:`.verify`) and ``olk regress`` with its baseline (:mod:`.regress`).
"""
from __future__ import annotations

import json
from typing import Any

from ..algorithms import registry as algo_registry


def same_params(algorithm: str, current: dict, base: dict) -> bool:
    """The run's parameters equal the earlier ones, where a parameter the learner declared after the earlier run
    counts as unchanged at the value that keeps the old behaviour (``Param.before``)."""
    if current == base:
        return True
    cls = algo_registry.REGISTRY.get(algorithm)
    defaults = {p.name: p.before for p in cls.params} if cls is not None else {}
    added = set(current) - set(base)
    return (set(base) <= set(current) and all(current[k] == base[k] for k in base)
            and all(k in defaults and current[k] == defaults[k] for k in added))


def slot(rec: dict) -> tuple:
    """What a run is apart from its parameters (phase, dataset, entry, sweep point, permutation, fold, kernel):
    the same slot and the same parameters modulo ones added since at their old value make the same run."""
    return (rec.get("phase"), rec.get("dataset"), rec.get("label"), rec.get("setting") or "", rec.get("perm"),
            rec.get("fold"), json.dumps(rec.get("kernel"), sort_keys=True))


def by_slot(records: dict[str, dict]) -> dict[tuple, list[str]]:
    """The run ids of ``records`` (run id -> record) by :func:`slot`, in record order."""
    out: dict[tuple, list[str]] = {}
    for rid, rec in records.items():
        out.setdefault(slot(rec), []).append(rid)
    return out


def same_run(spec: Any, rec: dict) -> bool:
    """``spec`` (a :class:`~olk.experiment.spec.RunSpec` planned now) makes the run ``rec`` records."""
    planned = spec.to_record()
    return slot(planned) == slot(rec) and same_params(spec.algorithm, planned["params"], rec.get("params") or {})
