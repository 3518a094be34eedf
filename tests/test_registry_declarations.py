"""What every registered learner declares as class attributes (olk/algorithms/DEVELOPING.md):

* ``task`` — the task protocol it is run with (a key of ``olk.tasks.TASKS``);
* ``outputs`` — its named output classifiers: exactly the choices of its ``output`` parameter, () without one;
* ``style`` — (colour, marker, line style) of its plots: a colour of the report's colour-blind-safe palette by name;
  every triple used once, and the learners of one config differ in (colour, line) and in (colour, marker).
"""
from __future__ import annotations

from pathlib import Path

import pytest
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
    from olk.report.plots import LINESTYLES, PALETTE
    styles = {n: REGISTRY[n].style for n in LEARNERS}
    assert all(isinstance(s, tuple) and len(s) == 3 for s in styles.values()), styles
    bad = {n: s for n, s in styles.items() if s[0] not in PALETTE or s[1] not in Line2D.markers
           or s[1] in ("None", "none", "", " ") or s[2] not in LINESTYLES}
    assert not bad, bad                                                 # palette colours, real markers and lines
    assert len(set(styles.values())) == len(styles)                     # each (colour, marker, line) once


def _config_learners():
    import glob

    import yaml
    root = Path(__file__).resolve().parents[1]
    for f in sorted(glob.glob(str(root / "configs" / "*.yaml")) + glob.glob(str(root / "configs" / "ci" / "*.yaml"))):
        algos = yaml.safe_load(Path(f).read_text())["algorithms"]
        yield Path(f).name, list(dict.fromkeys(a if isinstance(a, str) else a["name"] for a in algos))


@pytest.mark.parametrize("config,names", list(_config_learners()), ids=lambda v: v if isinstance(v, str) else "")
def test_the_learners_of_every_config_look_different(config, names):
    """A config's figures tell its curves apart by colour and line style, and by colour and marker: 8 colours serve
    SPA Table 2's 11 learners because a colour's second learner has another line and another marker."""
    styles = [REGISTRY[n].style for n in names]
    assert len({(c, ls) for c, _, ls in styles}) == len(names), names
    assert len({(c, m) for c, m, _ in styles}) == len(names), names


def test_fixed_parameters_are_declared_and_read_like_parameters():
    """A learner that fixes a parameter of its family's core declares it in ``fixed`` (OMKC(U): discount 1, the
    Perceptron) instead of shadowing the core's Param with a bare class attribute; a built learner reads the value."""
    from olk.algorithms import make
    from olk.kernels import KernelSet
    u = make("omkc_u", kernel=KernelSet.preset("spa16"))
    assert (u.discount, u.component) == (1.0, "perceptron") and "discount" not in u.hyperparams
    assert make("omkc_ddpa", kernel=KernelSet.preset("spa16")).component == "pa"
    for name, cls in REGISTRY.items():
        own = {p.name for p in cls.params}
        for base in cls.__mro__:
            for k, v in vars(base).get("fixed", {}).items():
                assert k in own or getattr(cls, k) == v or any(k in vars(b).get("fixed", {}) for b in cls.__mro__
                                                               if b is not base), (name, k)


def test_the_family_contract_lists_every_family():
    """pyproject's family layers name every subpackage and module of olk.algorithms (``exhaustive = true``): a new
    family is one subpackage plus its line there, and lint-imports (make test) refuses one that has no line."""
    tomllib = pytest.importorskip("tomllib")        # Python >= 3.11
    from pathlib import Path

    import olk.algorithms
    root = Path(olk.algorithms.__file__).parent
    cfg = tomllib.loads((root.parents[1] / "pyproject.toml").read_text())
    family = next(c for c in cfg["tool"]["importlinter"]["contracts"] if c.get("containers") == ["olk.algorithms"])
    listed = {m.strip() for layer in family["layers"] for m in layer.split("|")}
    present = {p.name for p in root.iterdir() if (p / "__init__.py").is_file()} | {
        p.stem for p in root.glob("*.py") if p.stem != "__init__"}
    assert family.get("exhaustive") is True and present == listed
