"""Non-budget online kernel classifiers: kernel Perceptron, kernel OGD (hinge loss) and kernel PA-I."""
from __future__ import annotations

from .base import OnlineKernelLearner, check_shrinkage, hinge
from .registry import Param, register

_pos = dict(check=lambda v: v > 0, requirement="> 0")


@register
class KernelPerceptron(OnlineKernelLearner):
    """Kernel Perceptron (Rosenblatt 1958; kernelized as in Freund & Schapire 1999, SPA paper ref [17]).

    On a mistake (y_t f_t(x_t) <= 0):  f_{t+1} = f_t + y_t k(x_t, .).
    """

    name = "perceptron"
    display = "Perceptron"

    def step(self, i, y):
        self.t += 1
        f = self.pool.decision1(self.src, i)
        if y * f <= 0.0:
            self.pool.add(self.src, i, y, self.t)
            self.n_updates += 1
        return f


@register
class KernelOGD(OnlineKernelLearner):
    """Kernel online gradient descent with the hinge loss (Kivinen, Smola & Williamson 2004, SPA ref [23]).

    f_{t+1} = (1 - eta*lam) f_t - eta * d/df [1 - y_t f(x_t)]_+ , i.e. when the hinge loss is positive:
    f_{t+1} = (1 - eta*lam) f_t + eta y_t k(x_t, .).  The SPA paper's setting is lam = 0 (constant
    learning rate eta chosen from {10^3..10^-3}); lam > 0 gives NORMA's shrinkage.
    """

    name = "ogd"
    display = "OGD"
    params = (Param("eta", 0.1, "learning rate", **_pos),
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


@register
class KernelPA1(OnlineKernelLearner):
    """Kernel Passive-Aggressive PA-I (Crammer et al. 2006, SPA ref [10]).

    tau_t = min(C, l_t / k(x_t, x_t)),  f_{t+1} = f_t + tau_t y_t k(x_t, .)   (SPA paper Section 3.1).
    """

    name = "pa1"
    display = "PA-I"
    aliases = ("pa_i", "pa")
    params = (Param("C", 1.0, "aggressiveness (soft-margin) parameter", **_pos),)

    def step(self, i, y):
        self.t += 1
        f = self.pool.decision1(self.src, i)
        loss = hinge(y, f)
        if loss > 0.0:
            kxx = self.pool.self_kernel(self.src, i)
            tau = min(self.C, loss / kxx) if kxx > 0 else self.C
            self.pool.add(self.src, i, tau * y, self.t)
            self.n_updates += 1
        return f
