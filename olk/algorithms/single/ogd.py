"""Kernel online gradient descent with the hinge loss: Kivinen, Smola & Williamson, "Online learning with
kernels", NIPS 2001 (SPA paper ref [23]) and IEEE Trans. Signal Processing 52(8), 2004 (NORMA).

f_{t+1} = (1 - eta*lam) f_t - eta * d/df [1 - y_t f(x_t)]_+ ;  the SPA paper's setting is lam = 0
(constant learning rate eta, Section 6.1.2).  No budget.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("ogd", kernel={"type": "gaussian", "gamma": 0.4}, eta=1.0)
>>> model.partial_fit(X, y).n_sv                          # one SV per margin violation
667
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.832
"""
from __future__ import annotations

from ..common.learner import OnlineKernelLearner
from ..common.losses import check_shrinkage, hinge
from ..registry import POSITIVE, Param, register


@register
class KernelOGD(OnlineKernelLearner):
    """Kernel online gradient descent with the hinge loss (Kivinen, Smola & Williamson 2004, SPA ref [23]).

    f_{t+1} = (1 - eta*lam) f_t - eta * d/df [1 - y_t f(x_t)]_+ , i.e. when the hinge loss is positive:
    f_{t+1} = (1 - eta*lam) f_t + eta y_t k(x_t, .).  The SPA paper's setting is lam = 0 (constant
    learning rate eta chosen from {10^3..10^-3}); lam > 0 gives NORMA's shrinkage.
    """

    name = "ogd"
    display = "OGD"
    style = ("green", "^", "-")
    params = (Param("eta", 0.1, "learning rate", **POSITIVE),
              Param("lam", 0.0, "L2 regularisation (shrinks all coefficients by 1 - eta*lam each step)",
                    check=lambda v: v >= 0, requirement=">= 0"))

    check_params = classmethod(check_shrinkage)

    def step(self, i, y):
        self.t += 1
        f = self.pool.decision1(self.src, i)
        if self.lam > 0.0 and self.pool.n_sv:
            self.pool.scale_col(0, 1.0 - self.eta * self.lam)
        if hinge(y, f) > 0.0:
            self.pool.add(self.src, i, self.eta * y, self.t)
            self.n_updates += 1
        return f
