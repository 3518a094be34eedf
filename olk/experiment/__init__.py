"""Experiment engine: YAML configs -> typed run specs -> runs (parallel, resumable) -> tidy results.

Layers, in the order a value travels: :mod:`.config` (YAML -> validated ExperimentConfig), :mod:`.plan`
(command-line variants; tune / match / main -> RunSpec), :mod:`.data` (datasets -> arrays),
:mod:`.execute` (RunSpec + arrays -> record, under the task protocol of :mod:`.tasks`), :mod:`.store`
(the append-only run log), :mod:`.runner` (sequences them; resume).

The names below are imported on first use (PEP 562), so ``import olk.experiment.config`` (``olk train``) does
not load the runner, the store or pandas.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "ExperimentConfig": ".config", "grid": ".config", "load_config": ".config", "parse_config": ".config",
    "execute_run": ".execute",
    "apply_overrides": ".plan", "expand_sweep": ".plan", "variant": ".plan",
    "Runner": ".runner",
    "RunSpec": ".spec",
    "TASKS": "..tasks", "online_pass": "..tasks", "task_of": "..tasks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_EXPORTS})
