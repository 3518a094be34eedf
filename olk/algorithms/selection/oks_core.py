"""The core of Online Kernel Selection (Yang, Mahdavi, Jin, Yi & Hoi, "Online Kernel Selection: Algorithms and
Evaluations", AAAI 2012): what Algorithm 2 (:mod:`~olk.algorithms.selection.oks`) shares with Algorithm 1
(:mod:`~olk.algorithms.selection.oks_convex`): the m kernel classifiers on ONE shared SV pool
(:class:`~olk.algorithms.multikernel.core.KernelClassifiers`, one column per kernel), the importance-weighted
exponential weights, the sampling distribution (smoothed by ``delta``), the step size (a number or ``auto``) and the
selected kernel argmax q_T.

>>> from olk.algorithms import make
>>> from olk.kernels import KernelSet
>>> isinstance(make("oks", kernel=KernelSet.preset("spa16")), OKSCore)
True
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.svpool import pexp
from ...errors import ConfigError
from ..common.learner import OnlineKernelLearner
from ..multikernel.core import KernelClassifiers
from ..omkl.core import sample_one
from ..registry import NumberOr, Param

ETA_AUTO = "auto"


#: the smoothing delta of p_t (the paper's experiments: 0.5 in the first epoch, 0.2 in the second)
DELTA = Param("delta", 0.5, "smoothing: p_t = (1 - delta) q_t + delta/m (every kernel is sampled w.p. >= delta/m)",
              check=lambda v: 0.0 < v < 1.0, requirement="in (0, 1)")


#: eta: the exponential-weights step
ETA = Param("eta", ETA_AUTO, f"weight step eta > 0, or '{ETA_AUTO}': sqrt(2 (1 - delta) ln m / (m T)) (Theorem 3's "
            "optimal value, the paper's experiments), T = horizon", type=NumberOr(ETA_AUTO),
            check=lambda v: v == ETA_AUTO or v > 0, requirement=f"> 0 or '{ETA_AUTO}'")


#: lambda: the classifiers' step
LAM = Param("lam", 1.0, "classifier step lambda: f_i <- f_i + lambda y z k_i(x, .) / p_i", check=lambda v: v > 0,
            requirement="> 0")


HORIZON = Param("horizon", 0, f"T of eta = '{ETA_AUTO}'; 0 = the rows of the data the learner is bound to (the "
                "training set; a two-epoch run passes 2n)", type=int, check=lambda v: v >= 0, requirement=">= 0")


class OKSCore(KernelClassifiers, OnlineKernelLearner):
    """Algorithms 1 and 2 of Yang et al. (AAAI 2012) on the shared pool; subclasses give the loss.

    Readings (where the paper leaves a choice):

    * weights: the paper keeps w_t (w_1 = 1) and samples with q_t = w_t / sum_j w_j; olk keeps q_t itself,
      renormalised after every change (``KernelClassifiers``): the same q_t, without the underflow of the products.
      exp() is olk's portable ``pexp`` (the same bits on every host).
    * p_t is computed from q_t at the top of round t (p_1 = 1/m, Step 2, is the same formula at q_1 = 1/m);
      i_t is drawn from one uniform ``self.rng.random()`` and the cumulative sum of p_t in kernel order
      (``sample_one``, shared with ALT 2010's SUA).
    * eta = 'auto': sqrt(2 (1 - delta) ln m / (m T)) ("eta set to its optimal value", Empirical Studies,
      from Theorem 3), with T = ``horizon`` or the rows of the bound data; a two-epoch run passes T = 2n and
      changes delta between epochs (``set_params``), so eta follows the current delta.
    * the online prediction (what the engine's mistake count and ``decision_function`` use) is the q-weighted
      vote of the classifiers' signs, sum_i q_i sign(f_i(x)), as for ALT 2010's SOM: the paper outputs q_T
      (or w_T) only; the kernel OKS *selects* is ``selected_kernel_`` = argmax_i q_T,i (the first on ties),
      recorded with every run (``run_summary``).
    * an SV is stored only when the sampled classifier learns, with its coefficient in that column alone.
    """

    params: tuple[Param, ...] = (DELTA, ETA, LAM, HORIZON)
    stochastic = True

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self._rows = 0

    def bind(self, X):
        src = super().bind(X)
        self._rows = 0 if self.horizon else src.n_rows     # T without a horizon (a chunk's rows: no state with one)
        return src

    def eta_(self) -> float:
        """The weight step: ``eta``, or sqrt(2 (1 - delta) ln m / (m T)) with T = ``horizon`` (else the rows)."""
        if self.eta != ETA_AUTO:
            return self.eta
        m, T = len(self.kernels), self.horizon or self._rows
        if T < 1:
            raise ConfigError(f"{self.name}: eta = '{ETA_AUTO}' needs the number of examples T; set horizon=T")
        if m == 1:
            return 0.0                      # one kernel: nothing to weigh (ln 1 = 0)
        return math.sqrt(2.0 * (1.0 - self.delta) * math.log(m) / (m * T))

    @property
    def selected_kernel_(self) -> int:
        """argmax_i q_T,i: the kernel OKS selects (the paper's deterministic choice; the first on ties)."""
        return int(np.argmax(self.weights_))

    def sampling_probs(self) -> np.ndarray:
        """p_t = (1 - delta) q_t + delta/m (Step 8 of Algorithm 1 / Step 9 of Algorithm 2)."""
        return (1.0 - self.delta) * self.weights_ + self.delta / len(self.kernels)

    def loss_and_grad(self, y: float, f: float) -> tuple[float, float]:  # pragma: no cover - abstract
        """(the loss entering the weight update, the factor g of the update f_i += lam g k_i(x, .) / p_i)."""
        raise NotImplementedError

    def step(self, i, y):
        f, score, wrong = self._predict(i, y)               # f_i(x_t) for every kernel, the q-weighted vote
        p = self.sampling_probs()
        it = sample_one(p, self.rng.random())               # Step 5: i_t ~ Multi(p_t)
        loss, g = self.loss_and_grad(y, float(f[it]))
        if g != 0.0:                                        # Step 7 (Alg. 1) / 8 (Alg. 2): importance-weighted
            chosen = np.arange(len(self.kernels)) == it
            self._store(i, chosen, np.where(chosen, self.lam * g / p[it], 0.0))
        if loss != 0.0:                                     # Step 6 / 7: w_i <- w_i exp(-eta loss / p_i)
            self._discount(np.arange(len(self.kernels)) == it, pexp(-self.eta_() * loss / p[it]))
        self.mistakes_per_kernel_ += wrong
        return score

    def run_summary(self) -> dict:
        """``KernelClassifiers``' weights, #SV and mistakes per kernel, and the selected kernel (index, label)."""
        k = self.selected_kernel_
        return {**super().run_summary(), "selected_kernel": k, "selected_label": self.kernels[k].label()}
