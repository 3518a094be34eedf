"""AMKL-AKS: active multi-kernel regression with adaptive kernel selection, S. Hong & J. Chae, "Active Learning
with Multiple Kernels", IEEE TNNLS 2022 (arXiv 2005.03188), Algorithm 2, eqs. (33)-(44), (54)-(55), (59).
The formulas follow ``../shared/spec/amkl_raker.md`` Sections 3-4 (the paper text lost its equations).

AMKL (:mod:`olk.algorithms.random_features.amkl`) with OMKL-AKS's random kernel subset
(:mod:`olk.algorithms.random_features.omkl_aks`):
the subset S_t is drawn from the ACTIVE weights q~_t, the prediction and the confidence condition use only
the kernels of S_t (weights renormalised on it), and a labelled round updates every kernel.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> X = rng.random((3000, 3))
>>> y = 0.5 + 0.3 * np.sin(4 * X[:, 0]) + 0.2 * X[:, 1] ** 2 + 0.02 * rng.standard_normal(3000)
>>> ks = [{"type": "gaussian", "gamma": g} for g in (0.5, 5, 50)]      # 3 widths around the right one
>>> m = make("amkl_aks", kernel=ks, random_state=0, step_size="sqrt_T", standardize_y=False)   # eq. (57)
>>> m.bind(X).shape
(3000, 3)
>>> err = [(m.step(i, y[i]) - y[i]) ** 2 for i in range(3000)]          # AMKL on this stream: 0.0069, rho 0.88
>>> round(float(np.mean(err)), 4), round(m.label_efficiency, 2), m.n_updates == m.n_labels
(0.0104, 0.75, True)
>>> m.run_summary()["label_efficiency"] == m.n_labels / 3000
True
"""
from __future__ import annotations

from ..registry import register
from .amkl import ActiveMKL
from .core import RandomFeatureMKL
from .omkl_aks import DELTA, AKSSubsets, R


@register
class AMKLAKS(AKSSubsets, ActiveMKL, RandomFeatureMKL):
    """AMKL-AKS (Hong & Chae, TNNLS 2022, Algorithm 2; eqs. 33-44).

    Pseudo-code: :class:`~olk.algorithms.amkl.ActiveMKL` with S_t drawn as in OMKL-AKS (40)-(42) from the active
    weights q~_t: p_t = max(1, #{k: q~_k >= delta}) (INFERRED, delta = 1/K), Balls-Bins with r_t = p_t (INFERRED),
    J_t ~ P_t(n) = (1/r_t) sum_{k in S_n} q~_k, S_t = S_{J_t}; predict and test (33) on S_t with the weights
    renormalised on it; skip (no update) iff fewer than M skips in a row and C_t < epsilon; otherwise query y_t
    and update ALL kernels and weights.  The subset is drawn every round, labelled or not.  Defaults (57), (59):
    D = 50, eta_l = eta_g = 1/sqrt(T), lambda = 0.01, epsilon = 0.005, M = 1, delta = 1/K, r = p.
    ``decision_function``: sum_k q~_k f_k over all kernels (the conditional mean of the randomised prediction).
    """

    name = "amkl_aks"
    display = "AMKL-AKS"
    style = ("vermillion", "^", "--")
    params = ActiveMKL.params + (DELTA, R)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self.last_subset_size_ = len(self.kernels)       # p_t of the last round
