"""Multi-class kernel Passive-Aggressive PA-I: Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online
passive-aggressive algorithms", JMLR 7, 2006, Section 7 (multiclass categorization; one prototype per class
with the max-score update), PA-I's clipped step (SPA paper ref [10]).

With r_t the highest-scoring wrong class and l_t = max(0, 1 - s_{y_t}(x_t) + s_{r_t}(x_t)), x_t joins the SVs
with +tau_t on class y_t and -tau_t on r_t, tau_t = min(C, l_t / (2 k(x_t, x_t))).  No budget.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> centres = np.array([[0.0, 1.5], [1.5, -1.0], [-1.5, -1.0]])     # three overlapping Gaussian blobs
>>> y = rng.integers(0, 3, 600); X = centres[y] + rng.normal(size=(600, 2))
>>> model = make("mc_pa1", kernel={"type": "gaussian", "gamma": 0.5}, C=1.0)
>>> model.partial_fit(X[:400], y[:400]).n_sv                   # one SV per margin violation
185
>>> float((model.predict(X[400:]) == y[400:]).mean())
0.82
"""
from __future__ import annotations

from ...tasks import predicted_class
from ..common.losses import pa_step
from ..registry import POSITIVE, Param, register
from .core import MulticlassKernelLearner, hinge_rival


@register
class MulticlassPA1(MulticlassKernelLearner):
    """Multi-class kernel PA-I, max-score update (Crammer et al., JMLR 2006, Section 7; SPA ref [10]).

    The PA-I problem on the max-score multi-class hinge loss, with r_t = argmax_{c != y_t} s_c(x_t) held fixed::

        W_{t+1} = argmin_W 1/2 ||W - W_t||^2 + C xi   s.t.  s^W_{y_t}(x_t) - s^W_{r_t}(x_t) >= 1 - xi, xi >= 0

    Its constraint is <W, z_t> >= 1 - xi with the Kesler vector z_t = (e_{y_t} - e_{r_t}) (x) k(x_t, .)
    (:mod:`olk.algorithms.multiclass.core`), ||z_t||^2 = 2 k(x_t, x_t); the binary PA-I solution on z_t gives::

        l_t = max(0, 1 - s_{y_t}(x_t) + s_{r_t}(x_t));   if l_t > 0:
        tau_t = min(C, l_t / (2 k(x_t, x_t))),   s_{y_t} += tau_t k(x_t, .),   s_{r_t} -= tau_t k(x_t, .)

    (LIBOL's M_PA1.m makes the same step.)  Readings: ties in r_t go to the smallest class index; the online
    prediction is argmax_c s_c(x_t) before the update; k(x_t, x_t) = 0 (a zero row with a linear kernel) takes
    tau_t = C.
    """

    name = "mc_pa1"
    display = "MC-PA-I"
    aliases = ("mc_pa",)
    style = ("orange", "D", "-")
    params = (Param("C", 1.0, "aggressiveness (soft-margin) parameter", **POSITIVE),)

    def step(self, i, y):
        self.t += 1
        y = int(y)
        s = self.class_scores(i)
        p = predicted_class(s)
        loss, r = hinge_rival(s, y)
        if loss > 0.0:
            tau = pa_step(self.C, loss, 2.0 * self.pool.self_kernel(self.src, i))     # ||z_t||^2 = 2 k(x_t, x_t)
            self.pool.add(self.src, i, self.pair(y, r, tau), self.t)
            self.n_updates += 1
        return p
