"""The report layer's boundaries: no learner-specific code, only the registry's declarations; the public hooks
the config layer validates ``table_layout`` and ``compare`` with.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from olk.algorithms.registry import REGISTRY, available
from olk.errors import ConfigError

REPORT = Path(__file__).resolve().parent.parent / "olk" / "report"


def _report_sources() -> dict[str, str]:
    return {f.name: f.read_text(encoding="utf-8") for f in sorted(REPORT.glob("*.py"))}


def test_no_report_module_tests_a_learner_by_name():
    """A learner's behaviour in the report is declared on its class, never tested with `== "name"`."""
    available()
    names = {n for n, cls in REGISTRY.items() if cls.__module__.startswith("olk.")}
    found = []
    for file, text in _report_sources().items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Compare):
                for c in [node.left, *node.comparators]:
                    if isinstance(c, ast.Constant) and c.value in names:
                        found.append(f"{file}:{node.lineno}: {c.value!r}")
    assert not found, "learner-specific comparisons in olk/report: " + "; ".join(found)


def test_report_imports_no_learner_module():
    """The report reads records and the registry's declarations (olk.algorithms.registry or the package's
    re-export of it), no learner module; and nothing of a higher layer (cli, application, experiment, bench)."""
    bad = []
    for file, text in _report_sources().items():
        for m in re.finditer(r"^\s*(?:from|import)\s+(olk\.[\w.]+|\.\.[\w.]*)", text, re.M):
            mod = m.group(1)
            # the package itself re-exports the registry (REGISTRY, available); a learner module is off limits
            if mod.startswith(("olk.algorithms.", "..algorithms.")) and not mod.endswith(".registry"):
                bad.append(f"{file}: {mod}")
            if mod.split(".")[1 if mod.startswith("olk.") else 2] in ("cli", "application", "experiment", "bench"):
                if not (file == "cli.py" and mod == "olk.cli"):
                    bad.append(f"{file}: {mod}")
    assert not bad, bad


def test_kernel_ground_truth_is_read_from_the_registry():
    from olk.report.plots import kernel_ground_truth_algorithms

    truth = kernel_ground_truth_algorithms()
    assert "kernel_svm" in truth
    assert not truth & {"oks_svm", "som_svm", "spa", "perceptron"}     # selection methods and classifiers


def test_parse_layout_is_the_public_hook_the_config_layer_uses(tmp_path):
    import olk.experiment.config as config
    from olk.report.layout import parse_layout, parse_tolerances
    from olk.report.metrics import TableLayout

    spec = {"metrics": ["mistake_rate", "n_sv"], "datasets_per_block": 3, "units": {"mse": 0.001}}
    assert parse_layout(spec, tmp_path / "c.yaml", False) == TableLayout(("mistake_rate", "n_sv"), 3,
                                                                       units=(("mse", 0.001),))
    assert "report.layout import" in Path(config.__file__).read_text()      # the public hook, no private name
    assert parse_layout(None, "c.yaml", True).metrics[0] == "test_accuracy"
    with pytest.raises(ConfigError, match=r"c\.yaml: table_layout\.metrics has unknown metric 'acuracy'"):
        parse_layout({"metrics": ["acuracy"]}, "c.yaml", False)
    assert parse_tolerances({"accuracy": 1.5})["accuracy"] == ("abs", 1.5)
