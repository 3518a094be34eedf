"""The config schema (olk/experiment/schema.py, issue 26): every shipped config parses to the same typed values,
and each kind of mistake the schema catches is one line naming the key, the value and the fix.

The messages of whole ``olk run`` invocations are in tests/test_bad_inputs.py, the fuzzers in
tests/test_fuzz_inputs.py; here the schema's own cases, through :func:`parse_config` and :func:`convert`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import msgspec
import pytest
import yaml

from olk.errors import ConfigError
from olk.experiment import schema
from olk.experiment.config import MatchRef, WidthRef, load_config, parse_config

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted((REPO / "configs").glob("*.yaml")) + sorted((REPO / "configs" / "ci").glob("*.yaml"))
BASE = {"algorithms": ["pa1"], "datasets": ["a9a-small"]}


@pytest.fixture(autouse=True)
def _bundled_data(monkeypatch):
    monkeypatch.setenv("OLK_DATA", str(REPO / "datasets"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_shipped_config_parses_to_typed_values(path):
    cfg = load_config(path)
    assert type(cfg.seed) is int and type(cfg.repeats) is int and type(cfg.checkpoints) is int
    assert type(cfg.scale) is float and type(cfg.shuffle) is bool and cfg.mode in schema.MODES
    assert all(type(d.name) is str and type(d.source) is str for d in cfg.datasets)
    assert all(d.holdout is None or type(d.holdout) is float for d in cfg.datasets)
    assert all(type(a.label) is str and type(a.display) is str for a in cfg.algorithms)
    assert cfg.stages()


def _error(change: dict, path="c.yaml") -> str:
    with pytest.raises(ConfigError) as e:
        parse_config({**BASE, **change}, path)
    msg = str(e.value)
    assert "\n" not in msg and msg.isprintable()
    return msg


@pytest.mark.parametrize("change, expect", [
    # unknown keys, at every level, with a did-you-mean and the keys there are
    ({"repeat": 2}, "c.yaml: unknown key 'repeat' (did you mean 'repeats'?); allowed keys: algorithms, backend,"),
    ({"cv": {"fold": 3}}, "c.yaml: cv: unknown key 'fold' (did you mean 'folds'?); allowed keys: folds, max_rows"),
    ({"algorithms": [{"name": "pa1", "parms": {}}]},
     "c.yaml: algorithms[0]: unknown key 'parms' (did you mean 'params'?)"),
    ({"algorithms": ["spa", {"name": "rbp", "params": {"budget": {"match": "spa", "stt": "n_sv"}}}]},
     "c.yaml: algorithms[1].params.budget: unknown key 'stt' (did you mean 'stat'?); allowed keys: agg, match, stat"),
    ({"kernel": {"type": "gaussian", "gamma": {"percentil": 5}}},
     "c.yaml: kernel.gamma: unknown key 'percentil' (did you mean 'percentile'?)"),
    ({7: 1}, "c.yaml: unknown key '7'; allowed keys:"),
    ({"tune": {"perm": 1}}, "c.yaml: tune: unknown key 'perm'; allowed keys: metric"),
    # a removed key says what replaced it
    ({"regress": {"accuracy": 0.1}}, "c.yaml: regress: regression tolerances are declared by each learner"),
    # missing keys say what they are for
    ({"datasets": [{"label": "x"}]}, "c.yaml: datasets[0]: missing key 'name' (a registry dataset"),
    ({"kernel": {"type": "gaussian", "gamma": {"sample": 100}}},
     "c.yaml: kernel.gamma: missing key 'percentile' (percentile of the pairwise distances, e.g. {percentile: 5})"),
    # wrong types: the key, what to write, the value
    ({"shuffle": "maybe"}, "c.yaml: shuffle: expected true or false, got 'maybe'"),
    ({"seed": 2.5}, "c.yaml: seed: expected an integer, got 2.5"),
    ({"repeats": True}, "c.yaml: repeats: expected an integer, got True"),
    ({"datasets": [["a9a-small"]]}, "c.yaml: datasets[0]: expected a dataset name or a mapping with 'name', got ["),
    ({"datasets": [{"name": True}]}, "c.yaml: datasets[0].name: expected a dataset name or path, got True"),
    ({"algorithms": [{"name": "pa1", "label": ["a"]}]},
     "c.yaml: algorithms[0].label: expected a label such as spa_last, got ['a']"),
    ({"data_dir": ["d", 3]}, "c.yaml: data_dir[1]: expected a directory path, got 3"),
    ({"cv": [3]}, "c.yaml: cv: expected a mapping like {folds: 3, max_rows: 5000}, got [3]"),
    ({"compare": {1: 2}}, "c.yaml: compare: expected names (strings) as keys, got 1"),
    ({"memory_limit": False}, "c.yaml: memory_limit: expected a size such as 12G, 500M or 80%"),
    ({"datasets": []}, "c.yaml: datasets: expected a non-empty list of dataset names, got []"),
    ({"algorithms": None}, "c.yaml: algorithms: expected a non-empty list of algorithms, got None"),
    ({"algorithms": [{"name": "pa1", "seeds_of": " "}]},
     "c.yaml: algorithms[0].seeds_of: expected the label of another algorithm entry"),
    # choices
    ({"mode": "onlin"}, "c.yaml: mode: 'onlin' is not one of online, batch (did you mean 'online'?)"),
    ({"backend": "dusk"}, "c.yaml: backend: 'dusk' is not one of loky, threading, multiprocessing, dask "
                          "(did you mean 'dask'?)"),
    ({"tune": {"metric": "acc"}}, "c.yaml: tune.metric: 'acc' is not one of accuracy, test_accuracy"),
    # ranges: the violated bound of an integer, the interval of a bounded number, finite numbers
    ({"repeats": 0}, "c.yaml: repeats: must be >= 1 (got 0)"),
    ({"checkpoints": 10 ** 6}, "c.yaml: checkpoints: must be <= 100000 (got 1000000)"),
    ({"scale": 1.5}, "c.yaml: scale: must be in (0, 1] (got 1.5)"),
    ({"scale": -1}, "c.yaml: scale: must be in (0, 1] (got -1.0)"),
    ({"scale": float("nan")}, "c.yaml: scale: expected a finite number, got nan"),
    ({"mode": "batch", "datasets": [{"name": "a9a-small", "holdout": 1}]},
     "c.yaml: datasets[0].holdout: the test fraction must be in (0, 1) (got 1.0)"),
    ({"kernel": {"type": "gaussian", "gamma": {"percentile": 0}}},
     "c.yaml: kernel.gamma.percentile: must be in (0, 100] (got 0.0)"),
    ({"algorithms": [{"name": "pa1", "tune": {"kernel.gamma": [0.5, float("inf")]}}]},
     "c.yaml: algorithms[0].tune.kernel.gamma[1]: expected a finite number, got inf"),
    ({"algorithms": [{"name": "pa1", "sweep": {"kernel.gamma": [0.5, -2]}}]},
     "c.yaml: algorithms[0].sweep.kernel.gamma[1]: must be > 0 (got -2.0)"),
    # checks across keys stay in config.py
    ({"n_jobs": 0}, "c.yaml: n_jobs: must be >= 1, or negative for all cores but n-1"),
    ({"test_curve": 5}, "c.yaml: test_curve: held-out curves need a test set: set mode: batch"),
])
def test_schema_errors_name_key_value_and_fix(change, expect):
    assert expect in _error(change)


def test_values_are_read_as_before():
    """msgspec's lax mode: a quoted or exponent number (PyYAML reads 5e-1 as a string), an integral float."""
    cfg = parse_config({**BASE, **yaml.safe_load("scale: 5e-1\nrepeats: 3.0\nseed: '7'\ncheckpoints: 20\n")})
    assert (cfg.scale, cfg.repeats, cfg.seed, cfg.checkpoints) == (0.5, 3, 7, 20)
    assert type(cfg.repeats) is int and type(cfg.scale) is float
    cfg = parse_config({**BASE, "name": 2, "table": 3, "description": None, "tune": None, "cv": None})
    assert (cfg.name, cfg.table, cfg.description, cfg.tune_metric, cfg.cv_folds) == ("2", "3", "", "accuracy", 3)


def test_refs_are_the_typed_classes():
    cfg = parse_config({"algorithms": ["spa", {"name": "rbp", "params": {"budget": {"match": "spa"}}}],
                        "datasets": ["a9a-small"], "kernel": {"type": "gaussian", "gamma": {"percentile": 5}}})
    assert cfg.algorithm("rbp").params["budget"] == MatchRef("spa", "n_sv", "mean")
    assert cfg.kernel["gamma"] == WidthRef(5.0, 2000) and type(cfg.kernel["gamma"].percentile) is float


def test_every_key_is_described():
    """Each key's Meta says what it is for: the schema is the config's reference."""
    for shape in (schema.ConfigFile, schema.DatasetSpec, schema.AlgorithmSpec, schema.TuneSpec, schema.CVSpec,
                  schema.MatchSpec, schema.WidthSpec):
        for f in msgspec.structs.fields(shape):
            assert schema._notes(f.type)[0], f"{shape.__name__}.{f.name}"


class _Grid(msgspec.Struct, forbid_unknown_fields=True):
    grid: Dict[str, List[int]] = {}


def test_a_dict_value_is_located_by_its_key():
    """msgspec says only ``$.grid[...]`` for a dict value; convert finds which key holds the bad value."""
    with pytest.raises(ConfigError, match=r"^c.yaml: grid.b\[1\]: expected an integer, got 'x'$"):
        schema.convert({"grid": {"a": [1], "b": [2, "x"], "c": [3]}}, _Grid, "c.yaml", top=True)


def test_an_unexpected_msgspec_message_is_still_one_line():
    assert schema._message({}, _Grid, "c.yaml", True, "Something new - at `$.nowhere[7]`") == \
        "c.yaml: Something new - at `$.nowhere[7]`"
