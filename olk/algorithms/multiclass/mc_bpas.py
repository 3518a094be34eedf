"""Multi-class BPA-S, the simple Budgeted Passive-Aggressive algorithm: Wang & Vucetic, "Online
passive-aggressive algorithms on a budget", AISTATS 2010 (BPA-Simple; SPA paper ref [47]), on the multi-class
PA-I step of Crammer et al., JMLR 2006, Section 7 (SPA ref [10]).

Multi-class PA-I (:mod:`olk.algorithms.multiclass.mc_pa1`); with B SVs, adding x_t removes the SV whose removal,
with x_t's coefficient vector re-optimised, costs the PA objective least.  ``C=1`` as the binary BPA-S.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> centres = np.array([[0.0, 1.5], [1.5, -1.0], [-1.5, -1.0]])     # three overlapping Gaussian blobs
>>> y = rng.integers(0, 3, 600); X = centres[y] + rng.normal(size=(600, 2))
>>> model = make("mc_bpas", kernel={"type": "gaussian", "gamma": 0.5}, budget=20, C=1.0)
>>> model.partial_fit(X[:400], y[:400]).n_sv, model.n_updates        # B SVs kept; deterministic
(20, 250)
>>> float((model.predict(X[400:]) == y[400:]).mean())
0.79
"""
from __future__ import annotations

import numpy as np

from ...tasks import predicted_class
from ..budget.core import budget_param
from ..registry import POSITIVE, Param, register
from .core import MulticlassKernelLearner, bpas_row_choice, hinge_rival


@register
class MulticlassBPAS(MulticlassKernelLearner):
    """Multi-class BPA-S — Wang & Vucetic, AISTATS 2010, on the max-score PA-I step; SPA refs [47], [10].

    Below the budget it is multi-class PA-I: with r_t the highest-scoring wrong class and l_t = max(0, 1 -
    s_{y_t}(x_t) + s_{r_t}(x_t)) > 0, tau_t = min(C, l_t / (2 k_tt)) and x_t joins with +tau_t on y_t, -tau_t
    on r_t.  With B SVs, x_t must be paid for by removing one SV j (a pool row, coefficient vector
    a_j = W[j] over the K classes), and BPA-S re-optimises only x_t's coefficient vector b in R^K::

        min_b 1/2 ||W - W_t||^2 + C xi  s.t.  s^W_{y_t}(x_t) - s^W_{r_t}(x_t) >= 1 - xi, xi >= 0,
                                              W = W_t - a_j k(x_j, .) + b k(x_t, .)

    Solution (r_t fixed, as in the PA step): b_j = a_j k_jt / k_tt + tau_t (e_{y_t} - e_{r_t}), with the same
    tau_t.  Then ||W - W_t||^2 = sum_c ||-a_jc k(x_j, .) + b_c k(x_t, .)||^2 = ||a_j||^2 (k_jj - k_jt^2 / k_tt)
    + 2 tau_t^2 k_tt, and the margin after the update, s_y - s_r = (s_y - s_r)(x_t) + 2 tau_t k_tt, is the same
    for every j, so::

        j = argmin_{j in S} ||a_j||^2 (k_jj - k_jt^2 / k_tt)          (the binary rule with a_j^2 -> ||a_j||^2)
        W_{t+1} = W_t - a_j k(x_j, .) + (a_j k_jt / k_tt + tau_t (e_{y_t} - e_{r_t})) k(x_t, .)

    Readings: j ranges over the B current SVs; ties go to the lowest slot; k_tt = 0 takes tau_t = C and
    scores ||a_j||^2 k_jj.  The SPA authors' MATLAB multi-class BPA-S (multiclass/BPAs.m) scores each j by the
    objective with the loss recomputed over *all* wrong classes after the update (and takes k_tt = 1); we keep
    r_t fixed, as the max-score PA step does, which gives the closed form above.  Deterministic.

    Cost: at a full budget one pass computes the B kernel values k(x_j, x_t), which give the K scores
    (summed in slot order) and the removal scores.
    """

    name = "mc_bpas"
    display = "MC-BPAS"
    aliases = ("mc_bpa_s",)
    style = ("blue", "<", "--")
    params = (budget_param(1), Param("C", 1.0, "aggressiveness (PA-I's soft-margin parameter)", **POSITIVE))
    structural_params = ("budget",)      # sizes the kernel-value buffer: a new budget restarts the learner

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self._kv = np.zeros((1, self.budget + 1))            # k(x_t, x_s) per pool slot

    def step(self, i, y):
        self.t += 1
        y, K = int(y), self.n_classes
        pool, src = self.pool, self.src
        n = pool.n_sv
        full = n >= self.budget
        if full:                                             # one pass: kernel row and the K scores
            pool.kernel_values(src, i, self._kv)
            kr = self._kv[0, :n]
            s = np.array([pool.coef_dot(c, kr) for c in range(K)])
        else:
            s = self.class_scores(i)
        p = predicted_class(s)
        loss, r = hinge_rival(s, y)
        if loss > 0.0:
            ktt = pool.self_kernel(src, i)
            tau = min(self.C, loss / (2.0 * ktt)) if ktt > 0.0 else self.C
            coef = self.pair(y, r, tau)
            if full:                                         # j = argmin ||a_j||^2 (k_jj - k_jt^2 / k_tt)
                j, carry = bpas_row_choice(pool.coefs[:, :K], pool.self_kernels(0)[:n], kr, ktt)
                coef[:K] += carry
                pool.remove(j)
            pool.add(src, i, coef, self.t)
            self.n_updates += 1
        return p
