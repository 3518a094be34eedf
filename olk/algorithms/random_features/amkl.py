"""AMKL: active multi-kernel regression, S. Hong & J. Chae, "Active Learning with Multiple Kernels", IEEE TNNLS
2022 (arXiv 2005.03188), Algorithm 2 with S_t = [K] (all kernels), eqs. (33)-(39), (54)-(55), (59).  The
formulas follow ``../shared/spec/amkl_raker.md`` Section 4 (the paper text lost its equations).  The module
also holds what AMKL-AKS (:mod:`olk.algorithms.random_features.amkl_aks`) shares: the confidence condition (33) and the
selection rule; AMKL-AKS only adds the random kernel subset S_t.

Each round the learner predicts with its (active) Raker ensemble, then asks for the label only if its
kernels disagree: the label is skipped (no update at all) when the confidence condition holds and fewer than
M labels in a row have been skipped.  The MSE counts every round, labelled or not (the engine scores step's
return value); ``n_labels`` / T is the labelling efficiency rho (34), recorded with the run.

>>> import numpy as np
>>> from olk.algorithms import make
>>> from olk.algorithms.random_features.amkl import confidence
>>> confidence(np.array([0.0, 1.0]), np.array([0.5, 0.5]))     # max_j sum_i q_i (f_i - f_j)^2
0.5
>>> rng = np.random.default_rng(0)
>>> X = rng.random((3000, 3))
>>> y = 0.5 + 0.3 * np.sin(4 * X[:, 0]) + 0.2 * X[:, 1] ** 2 + 0.02 * rng.standard_normal(3000)
>>> ks = [{"type": "gaussian", "gamma": g} for g in (0.5, 5, 50)]      # 3 widths around the right one
>>> m = make("amkl", kernel=ks, random_state=0, step_size="sqrt_T", standardize_y=False)   # eq. (57); eps 0.005, M 1
>>> m.bind(X).shape
(3000, 3)
>>> err = [(m.step(i, y[i]) - y[i]) ** 2 for i in range(3000)]          # every round counts, labelled or not
>>> round(float(np.mean(err)), 4), round(m.label_efficiency, 2), m.n_updates == m.n_labels
(0.0069, 0.88, True)
>>> m.run_summary()["label_efficiency"] == m.n_labels / 3000
True
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..registry import Param, register
from .core import CORE_PARAMS, RandomFeatureMKL
from .omkl_aks import combine

EPSILON = Param("epsilon", 0.005, "confidence threshold: skip the label if C_t < epsilon (33); 0.005 (59, INFERRED "
                "from the authors' main_DAMKL.m); 0 = ask every label = Raker", check=lambda v: v >= 0,
                requirement=">= 0")
CONFIDENCE_TEST = Param("confidence_test", "<", "how C_t is compared with epsilon in (33): '<' (default, the "
                        "authors' Confidence_condition.m) | '<=' (the typeset form of (33), INFERRED in spec Section "
                        "4): they differ only when C_t equals epsilon exactly", type=str, choices=("<", "<="))
M_CAP = Param("M", 1, "at most M consecutive unlabelled rounds (59: M = 1, INFERRED); 0 = ask every label", type=int,
              check=lambda v: v >= 0, requirement=">= 0")


def confidence(f: np.ndarray, q: np.ndarray) -> float:
    """C_t = max_{j in S} sum_{i in S} q_i (f_i - f_j)^2 (33) over the kernels given (f, q restricted to S_t, q
    renormalised on it): the largest q-weighted squared disagreement with one kernel (the authors'
    ``Confidence_condition.m``)."""
    diff = f[:, None] - f[None, :]                 # diff[i, j] = f_i - f_j
    return float((q[:, None] * (diff * diff)).sum(axis=0).max())


class ActiveMKL:
    """Mixin (list it before :class:`~olk.algorithms.random_features.core.RandomFeatureMKL`): the active learner of
    Algorithm 2 (AMKL-AKS, and AMKL = AMKL-AKS with S_t = [K]); ``_subset`` picks S_t.

    Pseudo-code (spec Section 4; kernel functions theta_t,k, active weights w~_t and the skip counter c known from
    the past; c = 0, n_labels = 0 initially):
        f_k = theta_k' z_k(x_t) for every k;  q~_k = w~_k / sum_j w~_j                           (39)
        S_t = [K] (AMKL) or the AKS subset from q~ (40)-(42);  q_bar_k = w~_k / sum_{j in S_t} w~_j
        predict y_hat = sum_{k in S_t} q_bar_k f_k                                          (43)-(44)
        C_t = max_{j in S_t} sum_{i in S_t} q_bar_i (f_i - f_j)^2                                  (33)
        if c < M and C_t < epsilon:  b_t = 0, c <- c + 1, NO update (theta, w~ unchanged)     (36)-(37)
        else:  b_t = 1, c <- 0, query y_t, Raker's local OGD (17) on all kernels and
               w~_k <- w~_k exp(-eta_g (f_k - y_t)^2)                                              (38)

    Readings: the comparison is STRICT, C_t < epsilon, as the authors' ``Confidence_condition.m`` compares (the
    typeset form of (33), INFERRED, reads <=); the two differ only when C_t = epsilon exactly, which matters at
    epsilon = 0: with < no round is ever skipped (AMKL = Raker, AMKL-AKS = OMKL-AKS), with <= every round whose
    kernels agree exactly, e.g. t = 1 (all f_k = 0), would be.  The labelled option ``confidence_test: '<='``
    is the typeset reading (spec Section 4, step 2, INFERRED).  With epsilon > 0 the first round is skipped (all
    f_k = 0, C_1 = 0) if M >= 1.  ``n_labels`` counts the labels requested (b_t = 1); the distributed variant's
    warm-up and adaptive epsilon halving (C1/C2 ``Damkl_online_rf.m``) are not part of AMKL.  The MSE (54) counts
    every round (the engine's).  ``decision_function``: sum_k q~_k f_k over all kernels.
    """

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    params: tuple[Param, ...] = CORE_PARAMS + (EPSILON, M_CAP, CONFIDENCE_TEST)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)  # type: ignore[call-arg]  # the next base
        self.n_labels: int | None = 0   # labels requested (b_t = 1)
        self._skipped = 0           # c: consecutive unlabelled rounds so far

    def _subset(self, q: np.ndarray) -> np.ndarray | None:
        """S_t as a boolean mask, None = all kernels (AMKL)."""
        return None

    def step(self, i, y):
        self.t += 1
        Z = self._features(i)
        f = self._outputs(Z)                                  # f_t,k(x_t), every kernel
        q = self.weights_                                     # q~_t (39)
        y_hat, q_bar, f_s = combine(q, f, self._subset(q))    # predict with S_t (43)-(44), before any label
        y_hat = self.targets.out(y_hat)                       # (in y's units: standardize_y)
        c = confidence(f_s, q_bar)
        if self._skipped < self.M and (c < self.epsilon if self.confidence_test == "<" else c <= self.epsilon):
            self._skipped += 1                                # b_t = 0: confident, no label, no update
        else:
            self._skipped = 0                                 # b_t = 1: ask for y_t and learn (38)
            self.n_labels += 1
            self._update(Z, f, y)
        return y_hat

    @property
    def label_efficiency(self) -> float:
        """rho = n_labels / T (34): the fraction of rounds whose label was requested."""
        return self.n_labels / self.t if self.t else float("nan")

    def run_summary(self) -> dict:
        """The final kernel weights q~_T (kernel order), the labels requested and the efficiency rho (34)."""
        return {**super().run_summary(), "n_labels": self.n_labels,  # type: ignore[misc]  # the next base's
                "label_efficiency": self.label_efficiency}


@register
class AMKL(ActiveMKL, RandomFeatureMKL):
    """AMKL (Hong & Chae, TNNLS 2022, Algorithm 2 with S_t = [K]): Raker that asks for a label only when its
    kernels disagree (confidence condition (33), at most M skips in a row; eqs. 33-39).

    Pseudo-code and readings: :class:`ActiveMKL` (with S_t = [K], q_bar = q~); parameters (57) and (59):
    D = 50, eta_l = eta_g = 1/sqrt(T), lambda = 0.01, epsilon = 0.005, M = 1 (INFERRED, spec Section 4).
    """

    name = "amkl"
    display = "AMKL"
    style = ("green", "v", "--")
