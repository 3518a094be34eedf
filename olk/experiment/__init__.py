"""Experiment engine: YAML configs -> runs (parallel, resumable) -> tidy results."""
from .config import ExperimentConfig, apply_overrides, grid, load_config, parse_config, parse_set_options
from .runner import Runner, execute_run

__all__ = ["ExperimentConfig", "Runner", "apply_overrides", "execute_run", "grid", "load_config", "parse_config",
           "parse_set_options"]
