"""The report's public hooks for the config layer: ``table_layout`` and ``compare`` parsed by the report's rules.

A config's ``table_layout:`` and ``compare:`` keys are read by the report after the runs; the config layer checks
them before anything runs, with these same parsers, so a typo stops the config at once:

* :func:`parse_layout`: ``table_layout`` (metric columns, datasets per block, #SV format, units, how a Gaussian
  width is named) -> :class:`~olk.report.results.TableLayout`;
* :func:`parse_compare`: ``compare`` (the tolerance rule's reasoned deviations, ``datasets``, ``variant``) ->
  :class:`~olk.report.tolerance.CompareSpec`, one :class:`~olk.errors.ConfigError` for a bad key or a deviation
  without a reason;
* :func:`parse_tolerances`: tolerance overrides (``olk compare --tol``) -> ``{metric: (kind, value)}``; given a
  ``compare`` mapping it checks it as :func:`parse_compare` does.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from olk.errors import ConfigError, did_you_mean
from olk.report.metrics import DEFAULT_DATASETS_PER_BLOCK, METRICS, TableLayout
from olk.report.tolerance import parse_compare, parse_tolerances
from olk.tasks import TASKS

__all__ = ["parse_compare", "parse_layout", "parse_tolerances"]


def parse_layout(spec: Any, file: Path | str, batch: bool, task: str = "binary") -> TableLayout:
    """The :class:`~olk.report.results.TableLayout` a config's or experiment.json's ``table_layout`` asks for.

    ``spec`` is the mapping as written (None: the task's default columns); ``file`` names the config or
    experiment.json in every error; ``batch`` and ``task`` choose the default metric columns
    (:meth:`olk.tasks.Task.table_metrics`).  A bad key is one :class:`~olk.errors.ConfigError` naming the key
    and what it must be.

    >>> parse_layout({"metrics": ["mistake_rate", "n_sv"], "units": {"mse": 0.001}}, "x.yaml", False).metrics
    ('mistake_rate', 'n_sv')
    """
    spec = spec or {}
    default = TASKS[task].table_metrics(batch)
    metrics = spec.get("metrics", list(default))
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, list) or not metrics:
        raise ConfigError(f"{file}: table_layout.metrics must be a non-empty list such as "
                          f"{json.dumps(list(default))}")
    for m in metrics:
        if m not in METRICS:
            raise ConfigError(f"{file}: table_layout.metrics has unknown metric '{m}'"
                              f"{did_you_mean(m, METRICS)}; known: {', '.join(METRICS)}")
    per = spec.get("datasets_per_block", DEFAULT_DATASETS_PER_BLOCK)
    if isinstance(per, bool) or not isinstance(per, int) or per < 1:
        raise ConfigError(f"{file}: table_layout.datasets_per_block must be a positive integer, not {per!r}")
    sv = spec.get("sv_format", "int")
    if sv not in ("int", "k"):
        raise ConfigError(f"{file}: table_layout.sv_format must be 'int' or 'k', not {sv!r}")
    units = spec.get("units") or {}
    if not isinstance(units, dict) or any(m not in METRICS or isinstance(v, bool) or not isinstance(v, (int, float))
                                          or not v > 0 for m, v in units.items()):
        raise ConfigError(f"{file}: table_layout.units must map metrics to positive factors, e.g. {{mse: 0.001}}; "
                          f"got {units!r}")
    width = spec.get("gaussian_width", "gamma")
    if width not in ("gamma", "sigma"):
        raise ConfigError(f"{file}: table_layout.gaussian_width must be 'gamma' or 'sigma', not {width!r}")
    return TableLayout(metrics=tuple(metrics), datasets_per_block=per, sv_format=sv,
                       units=tuple((m, float(v)) for m, v in units.items()), gaussian_width=width)
