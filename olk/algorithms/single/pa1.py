"""Kernel Passive-Aggressive PA-I: Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online
passive-aggressive algorithms", JMLR 7, 2006 (SPA paper ref [10]; the update as in SPA Section 3.1).

tau_t = min(C, l_t / k(x_t, x_t)),  f_{t+1} = f_t + tau_t y_t k(x_t, .)  with l_t = [1 - y_t f_t(x_t)]_+.
No budget.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("pa1", kernel={"type": "gaussian", "gamma": 0.4}, C=1.0)
>>> model.partial_fit(X, y).n_sv                          # one SV per margin violation
824
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.833
"""
from __future__ import annotations

from ..common.learner import OnlineKernelLearner
from ..common.losses import hinge, pa_step
from ..registry import POSITIVE, Param, register


@register
class KernelPA1(OnlineKernelLearner):
    """Kernel Passive-Aggressive PA-I (Crammer et al. 2006, SPA ref [10]).

    tau_t = min(C, l_t / k(x_t, x_t)),  f_{t+1} = f_t + tau_t y_t k(x_t, .)   (SPA paper Section 3.1).
    """

    name = "pa1"
    display = "PA-I"
    aliases = ("pa_i", "pa")
    style = ("orange", "s", "-")
    params = (Param("C", 1.0, "aggressiveness (soft-margin) parameter", **POSITIVE),)

    def step(self, i, y):
        self.t += 1
        f = self.pool.decision1(self.src, i)
        loss = hinge(y, f)
        if loss > 0.0:
            tau = pa_step(self.C, loss, self.pool.self_kernel(self.src, i))
            self.pool.add(self.src, i, tau * y, self.t)
            self.n_updates += 1
        return f
