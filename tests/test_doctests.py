"""Every ``>>>`` example in olk's docstrings runs as written, and every learner module has one.

Each module under ``olk/`` is imported (``pkgutil.walk_packages``) and its doctests run with ELLIPSIS and
NORMALIZE_WHITESPACE; an example that needs data outside the repository (a full registry dataset, the
user's own file) carries ``# doctest: +SKIP``.  Each registered learner lives in its own module
(olk/algorithms/DEVELOPING.md), whose docstring shows it at work on a bundled sample in well under a second.
"""
from __future__ import annotations

import doctest
import importlib
import io
import pkgutil

import pytest

import olk
from olk.algorithms import REGISTRY, available

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MODULES = sorted(m.name for m in pkgutil.walk_packages(olk.__path__, "olk."))
#: modules of an optional extra (pyproject's [project.optional-dependencies]): skipped when it is not installed
EXTRAS = {"olk.river": "river"}
#: olk's own learners (tests may register extra ones, e.g. test_engine's ``_budget_probe``)
LEARNERS = [n for n in available() if REGISTRY[n].__module__.startswith("olk.")]


def _doctests(module) -> list[doctest.DocTest]:
    return [t for t in doctest.DocTestFinder(exclude_empty=True).find(module) if t.examples]


def test_every_module_is_found():
    assert {"olk.kernels", "olk.algorithms.single.spa", "olk.algorithms.budget.projectronpp",
            "olk.data"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    if name in EXTRAS:
        pytest.importorskip(EXTRAS[name])
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out = io.StringIO()
    for test in _doctests(module):
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, out.getvalue()


def test_kernels_doctests_are_collected():
    import olk.kernels
    assert sum(len(t.examples) for t in _doctests(olk.kernels)) >= 4


@pytest.mark.parametrize("name", LEARNERS)
def test_every_learner_module_has_a_runnable_example(name):
    module = importlib.import_module(REGISTRY[name].__module__)
    examples = [e for t in _doctests(module) for e in t.examples if not e.options.get(doctest.SKIP)]
    assert examples, f"{module.__name__} ({name}) has no runnable >>> example in its docstrings"
    assert any(f'"{name}"' in e.source or REGISTRY[name].__name__ in e.source for e in examples), \
        f"the examples of {module.__name__} never build {name}"


FAMILIES = ("single", "budget", "batch", "multikernel", "omkl", "klr", "selection", "regression", "random_features",
            "multiclass", "approximation")


def test_one_learner_per_module_named_after_it_in_its_family():
    """olk.algorithms.<family>.<registry name>: one module per learner, in the subpackage of its family."""
    modules = [REGISTRY[n].__module__ for n in LEARNERS]
    assert len(set(modules)) == len(modules), sorted(modules)
    wrong = [(n, m) for n, m in zip(LEARNERS, modules)
             if not (m.rsplit(".", 1)[-1] == n and m.split(".")[:2] == ["olk", "algorithms"] and len(m.split(".")) == 4
                     and m.split(".")[2] in FAMILIES)]
    assert not wrong, wrong
