"""What every registered learner declares as class attributes (olk/algorithms/DEVELOPING.md):

* ``task`` — the task protocol it is run with (a key of ``olk.tasks.TASKS``);
* ``outputs`` — its named output classifiers: exactly the choices of its ``output`` parameter, () without one;
* ``style`` — (colour, marker) of its plots; each colour is used by one learner only (markers may repeat).
"""
from __future__ import annotations

import pytest
from matplotlib.colors import is_color_like, to_hex
from matplotlib.lines import Line2D

from olk.algorithms import REGISTRY, available
from olk.algorithms.common.learner import KernelEstimator

#: olk's own learners (tests may register extra ones, e.g. test_engine's ``_budget_probe``)
LEARNERS = [n for n in available() if REGISTRY[n].__module__.startswith("olk.")]


def test_base_defaults():
    assert KernelEstimator.task == "binary"
    assert KernelEstimator.outputs == ()
    assert KernelEstimator.style is None


@pytest.mark.parametrize("name", LEARNERS)
def test_task_is_declared_and_probabilistic_learners_give_probabilities(name):
    from olk.tasks import TASKS
    cls = REGISTRY[name]
    assert cls.task in TASKS
    # the KLR learners (olk.algorithms.common.logistic) are the probabilistic ones; everything else classifies
    assert (cls.task == "probabilistic") == name.startswith("klr_")
    assert hasattr(cls, "predict_proba") == (cls.task == "probabilistic")


@pytest.mark.parametrize("name", LEARNERS)
def test_outputs_are_the_choices_of_the_output_parameter(name):
    cls = REGISTRY[name]
    assert isinstance(cls.outputs, tuple) and all(isinstance(o, str) for o in cls.outputs)
    param = {p.name: p for p in cls.params}.get("output")
    if param is None:
        assert cls.outputs == ()
    else:
        assert cls.outputs == tuple(param.choices) and param.default in cls.outputs


def test_spa_oskl_and_online_klr_offer_avg_and_last():
    assert REGISTRY["spa"].outputs == REGISTRY["oskl"].outputs == ("avg", "last")
    assert [n for n in LEARNERS if REGISTRY[n].outputs] == ["klr_aux", "klr_margin", "klr_nc", "mc_spa", "oskl", "spa"]
    assert all(REGISTRY[n].outputs == ("avg", "last") for n in ("klr_aux", "klr_margin", "klr_nc"))


def test_every_style_is_declared_valid_and_distinct():
    styles = {n: REGISTRY[n].style for n in LEARNERS}
    assert all(isinstance(s, tuple) and len(s) == 2 for s in styles.values()), styles
    bad = {n: s for n, s in styles.items() if not is_color_like(s[0]) or s[1] not in Line2D.markers
           or s[1] in ("None", "none", "", " ")}
    assert not bad, bad
    colours = [to_hex(c) for c, _ in styles.values()]
    markers = [m for _, m in styles.values()]
    assert len(set(colours)) == len(colours), sorted(colours)          # each colour used once
    assert len(set(zip(colours, markers))) == len(markers)             # so every (colour, marker) pair differs
