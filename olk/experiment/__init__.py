"""Experiment engine: YAML configs -> typed run specs -> runs (parallel, resumable) -> tidy results.

Layers, in the order a value travels: :mod:`.config` (YAML -> validated ExperimentConfig), :mod:`.plan`
(command-line variants; tune / match / main -> RunSpec), :mod:`.data` (datasets -> arrays),
:mod:`.execute` (RunSpec + arrays -> record, under the task protocol of :mod:`.tasks`), :mod:`.store`
(the append-only run log), :mod:`.runner` (sequences them; resume).
"""
from .config import ExperimentConfig, grid, load_config, parse_config
from .execute import execute_run
from .plan import apply_overrides, expand_sweep, variant
from .runner import Runner
from .spec import RunSpec
from ..tasks import TASKS, online_pass, task_of

__all__ = ["ExperimentConfig", "RunSpec", "Runner", "TASKS", "apply_overrides", "execute_run", "expand_sweep", "grid",
           "load_config", "online_pass", "parse_config", "task_of", "variant"]
