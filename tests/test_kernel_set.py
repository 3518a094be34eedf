"""One KernelSet object from the learner to the Cython core: a single kernel is a set of one, a multi-kernel
learner maps its coefficient columns to kernels (``column_kernels``) and the shared pool evaluates each column
with its own kernel from one inner product per SV."""
import numpy as np
import pytest

from olk.algorithms.common.learner import OnlineKernelLearner
from olk.errors import ConfigError
from olk.kernels import KernelSet, make_kernel

GAUSS = {"type": "gaussian", "gamma": 0.5}
POLY = {"type": "polynomial", "degree": 2, "coef0": 1.0, "gamma": 1.0}


class TwoKernelPerceptron(OnlineKernelLearner):
    """Test-only learner (not registered): one Perceptron per kernel, one coefficient column each."""
    name = "two_kernel_perceptron"
    n_cols = 2
    max_kernels = 2

    def column_kernels(self):
        return [0, 1]

    def step(self, i, y):
        self.t += 1
        f = self._buf
        self.pool.decision(self.src, i, f)
        wrong = [y * f[c] <= 0.0 for c in range(2)]
        if any(wrong):
            self.pool.add(self.src, i, [y if w else 0.0 for w in wrong], self.t)
            self.n_updates += 1
        return float(f[0] + f[1])


def test_a_single_kernel_learner_refuses_several_kernels():
    from olk.algorithms import make
    with pytest.raises(ConfigError, match="takes 1 kernel"):
        make("perceptron", kernel=[GAUSS, POLY])
    assert make("perceptron", kernel=GAUSS).kernels == KernelSet.of(GAUSS)


def test_each_column_is_evaluated_with_its_own_kernel():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    m = TwoKernelPerceptron(kernel=[GAUSS, POLY]).partial_fit(X, y)
    assert m.pool.n_kernels == 2 and m.n_sv > 0
    kg, kp = make_kernel(GAUSS), make_kernel(POLY)
    coefs = m.pool.coefs
    svs = X[[int(t) - 1 for t in m.pool.tags]]                   # tag = t at insertion = row index + 1
    x = X[7]
    expect_g = sum(c * np.exp(-0.5 * np.sum((s - x) ** 2)) for c, s in zip(coefs[:, 0], svs))
    expect_p = sum(c * (1.0 + s @ x) ** 2 for c, s in zip(coefs[:, 1], svs))
    assert kg.type.name == "gaussian" and kp.type.name == "polynomial"
    out = np.zeros(2)
    m.bind(X)
    m.pool.decision(m.src, 7, out)
    assert out == pytest.approx([expect_g, expect_p], rel=1e-12)


# ------------------------------------------------------------ kernel sets through the engine (YAML -> RunSpec)
def _cfg(text, tmp_path):
    from olk.experiment import load_config
    p = tmp_path / "k.yaml"
    p.write_text(text)
    return load_config(p)


def test_a_config_gives_a_multi_kernel_learner_its_kernel_set(tmp_path):
    import json

    import pandas as pd

    from olk.experiment import Runner
    cfg = _cfg("""
repeats: 2
kernel: {type: gaussian, gamma: 0.4}
datasets: [german-small]
algorithms:
  - perceptron
  - {name: omkc_dd, kernel: spa16}
""", tmp_path)
    out = Runner(cfg, tmp_path / "out", progress=False, log=lambda m: None).run()
    runs = pd.read_csv(out / "runs.csv")
    kern = {lab: json.loads(k) for lab, k in zip(runs.label, runs.kernel)}
    assert kern["perceptron"] == {"kind": "gaussian", "gamma": 0.4}          # a single kernel: as before
    assert isinstance(kern["omkc_dd"], list) and len(kern["omkc_dd"]) == 16
    assert kern["omkc_dd"][3] == {"kind": "gaussian", "gamma": 2048.0}       # sigma = 2^-6


def test_kernel_set_errors_are_one_line_before_anything_runs(tmp_path):
    from olk.experiment.plan import Planner
    cfg = _cfg("datasets: [german-small]\nkernel: spa16\nalgorithms: [perceptron]\n", tmp_path)
    with pytest.raises(ConfigError, match="perceptron learns with 1 kernel.*set of 16"):
        Planner(cfg, lambda d, lab: [], log=lambda m: None)
    with pytest.raises(ConfigError, match=r"unknown kernel 'spa17' \(did you mean 'spa16'\?\).*kernel set"):
        _cfg("datasets: [german-small]\nkernel: spa17\nalgorithms: [omkc_dd]\n", tmp_path)


def test_tuning_chooses_one_kernel_of_a_set_on_the_tuning_permutation(tmp_path):
    """Per(*) of SPA Table 5: the Perceptron with the best of the 16 kernels, chosen on one permutation."""
    import json

    import pandas as pd

    from olk.experiment import Runner
    cfg = _cfg("""
repeats: 2
kernel: spa16
datasets: [german-small]
algorithms:
  - {name: perceptron, label: perceptron_best, tune: {kernel: spa16}}
""", tmp_path)
    out = Runner(cfg, tmp_path / "out", progress=False, log=lambda m: None).run()
    runs = pd.read_csv(out / "runs.csv")
    tune, main = runs[runs.phase == "tune"], runs[runs.phase == "main"]
    assert len(tune) == 16 and len(main) == 2
    best = tune.loc[tune.accuracy.idxmax()]
    assert tune.accuracy.max() > tune.accuracy.min()
    chosen = {json.dumps(json.loads(k), sort_keys=True) for k in main.kernel}
    assert chosen == {json.dumps(json.loads(best.kernel), sort_keys=True)}     # the first best on ties


def test_a_dataset_kernel_given_by_name_is_one_kernel_not_a_set(tmp_path):
    """A kernel named by its type ('gaussian') on a dataset is a single kernel (its dict has two keys, which an
    earlier check mistook for a set of two)."""
    from olk.experiment.plan import Planner
    cfg = _cfg("datasets: [{name: german-small, kernel: gaussian}]\nalgorithms: [perceptron]\n", tmp_path)
    Planner(cfg, lambda d, lab: [], log=lambda m: None)          # no error
