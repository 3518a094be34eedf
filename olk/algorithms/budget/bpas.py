"""BPA-S, the simple Budgeted Passive-Aggressive algorithm: Wang & Vucetic, "Online passive-aggressive
algorithms on a budget", AISTATS 2010 (BPA-Simple; SPA paper ref [47]).

PA-I with the hinge loss; with B SVs, adding x_t removes the SV whose removal (with the new SV's
coefficient re-optimised) costs the PA objective least.  ``C=1`` is the SPA authors' MATLAB default
(binary/BPAs.m); shared budget conventions and the reference implementations checked against:
:mod:`olk.algorithms.budget.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("bpas", kernel={"type": "gaussian", "gamma": 0.4}, budget=50, C=1.0)
>>> model.partial_fit(X, y).n_sv, model.n_updates         # B SVs kept; deterministic
(50, 999)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.781
"""
from __future__ import annotations

from ..._core.bpas import bpas_step
from ..common.learner import OnlineKernelLearner
from ..common.losses import hinge
from ..registry import POSITIVE, Param, register
from .core import budget_param


@register
class BPAS(OnlineKernelLearner):
    """BPA-S — Wang & Vucetic, AISTATS 2010: PA-I; when full, drop the SV whose removal costs least.

    Budgeted Passive-Aggressive, simple variant: Wang & Vucetic, "Online passive-aggressive algorithms
    on a budget", AISTATS 2010 (BPA-Simple; not BPA-P/BPA-NN); SPA ref [47].

    PA-I with hinge loss l_t = [1 - y_t f_t(x_t)]_+.  Below the budget it is PA-I.  When the SV set is
    full, adding x_t must be paid for by removing one SV r, and BPA-S re-optimises only the new SV's
    coefficient: for each candidate r it solves

        min_w 1/2 ||w - f_t||^2 + C xi   s.t.  y_t w(x_t) >= 1 - xi, xi >= 0,
                                             w = f_t - alpha_r k(x_r, .) + beta k(x_t, .)

    whose solution is beta_r = alpha_r k(x_r, x_t) / k(x_t, x_t) + tau_t y_t with the PA-I step
    tau_t = min(C, l_t / k(x_t, x_t)), and then keeps the r of smallest objective.  The loss term after
    the update, [l_t - tau_t k(x_t, x_t)]_+, is the same for every r, and 1/2 ||w_r - f_t||^2 =
    1/2 alpha_r^2 (k(x_r, x_r) - k(x_r, x_t)^2 / k(x_t, x_t)) + 1/2 tau_t^2 k(x_t, x_t), so::

        if l_t > 0:
            tau_t = min(C, l_t / k_tt)
            if |S| < B:  f_{t+1} = f_t + tau_t y_t k(x_t, .)                         (PA-I)
            else:        r = argmin_{r in S} alpha_r^2 (k_rr - k_rt^2 / k_tt)        (weight degradation)
                         f_{t+1} = f_t - alpha_r k(x_r, .) + (alpha_r k_rt / k_tt + tau_t y_t) k(x_t, .)

    f_{t+1}(x_t) = f_t(x_t) + tau_t y_t k_tt whichever r is removed: the margin step is PA-I's.

    Readings: r ranges over the B current SVs (not the new example), as in the SPA authors' MATLAB code
    (binary/BPAs.m); ties go to the lowest pool slot; k_tt = 0 (only possible for a zero vector with a
    linear/polynomial kernel) takes tau_t = C and scores alpha_r^2 k_rr.  Deterministic.

    Cost: at a full budget the B kernel values k(x_r, x_t) are computed once per step and give both
    f_t(x_t) and the removal scores (no second pass); that whole step is one call into the core
    (:func:`olk._core.bpas.bpas_step`, bit for bit the reading above with
    :func:`~olk.algorithms.budget.core.bpas_choice`).
    """

    name = "bpas"
    display = "BPAS"
    style = ("blue", ">", "--")
    aliases = ("bpa_s", "bpa")
    params = (budget_param(1), Param("C", 1.0, "aggressiveness (PA-I's soft-margin parameter)", **POSITIVE))
    structural_params = ("budget",)      # a new budget restarts the learner

    def step(self, i, y):
        self.t += 1
        pool, src = self.pool, self.src
        if pool.n_sv >= self.budget:                         # full: kernel row, f_t(x_t), removal, add in C
            f, updated = bpas_step(pool, src, i, y, self.C, self.t)
            self.n_updates += updated
            return f
        f = pool.decision1(src, i)
        loss = hinge(y, f)
        if loss > 0.0:
            ktt = pool.self_kernel(src, i)
            tau = min(self.C, loss / ktt) if ktt > 0.0 else self.C
            pool.add(src, i, tau * y, self.t)
            self.n_updates += 1
        return f
