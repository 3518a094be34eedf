"""The core of sparse online kernel logistic regression (Zhang, Jin, Chen, Bu & He, "Sparse Online Learning
via Truncated ... / Online Kernel Logistic Regression", AAAI 2012): what the paper's three online learners share
(:class:`OnlineKLR`: the step size eta, a number or the rule ``R/sqrt(T)``, the projection onto the ball ||f|| <= R
as one global scale, the averaged output and the probabilities ``predict_proba``).  NC (Algorithm 1), Margin
(Algorithm 2) and Auxiliary (Algorithm 3) only say when to update (``sample_prob(z)``) and with which gradient
(``neg_grad(z)``).

>>> import numpy as np
>>> float(expit_neg(0.0)), round(float(logit_loss(0.0)), 6)       # 1/(1+e^z) at z = 0, ln(1 + e^0)
(0.5, 0.693147)
"""
from __future__ import annotations

import math

from ..._core.svpool import pexp
from ...errors import ConfigError
from ..common.averaged import OUTPUT
from ..common.learner import OnlineKernelLearner
from ..common.logistic import LogisticOutput
from ..common.projected import ProjectedAverage
from ..registry import NumberOr, Param

#: the step-size rule of the paper's Theorem 1 (eta = R / sqrt(T)); the experiments' first eta value
ETA_RULE = "R/sqrt(T)"


#: the parameters NC, Margin and Auxiliary share
KLR_PARAMS = (
    Param("R", 1e3, "radius of the domain Omega = {f : ||f||_H <= R} (Eq. 2); the paper picks it from "
          "{1, 10, ..., 1e5} by cross-validation", check=lambda v: v > 0, requirement="> 0"),
    Param("eta", 0.1, f"step size eta > 0, or '{ETA_RULE}' (Theorem 1's choice; T = horizon)",
          type=NumberOr(ETA_RULE), check=lambda v: v == ETA_RULE or v > 0, requirement=f"> 0 or '{ETA_RULE}'"),
    Param("horizon", 0, f"T of the rule eta = {ETA_RULE}; 0 = the number of rows of the data the learner is "
          "bound to (the training set in the engine, X in fit/partial_fit)", type=int,
          check=lambda v: v >= 0, requirement=">= 0"),
    OUTPUT,
)


def expit_neg(z: float) -> float:
    """1 / (1 + e^z) = -l'(z) = 1 - p(y|f) for z = y f (olk's portable exp: same bits on every host)."""
    if z >= 0.0:
        e = pexp(-z)
        return e / (1.0 + e)
    return 1.0 / (1.0 + pexp(z))


def logit_loss(z: float) -> float:
    """l(z) = ln(1 + e^-z), without overflow."""
    if z > 0.0:
        return math.log1p(pexp(-z))
    return -z + math.log1p(pexp(z))


class OnlineKLR(LogisticOutput, ProjectedAverage, OnlineKernelLearner):
    """What Algorithms 1-3 share.  For t = 1..T, with z_t = y_t f_t(x_t):

        Z_t ~ Bernoulli(p_t)                         (NC: p_t = 1; Margin: Eq. 5; Auxiliary: Eq. 6)
        if Z_t:  f'_{t+1} = f_t + eta y_t g(z_t) k(x_t, .)     g = -l'(z) (NC, Margin) or -h'(z) (Auxiliary)
                 f_{t+1} = pi_Omega(f'_{t+1}) = R / max(R, ||f'_{t+1}||_H) f'_{t+1}
        else:    f_{t+1} = f_t
        Output:  f̂ = (1/T) sum_{t=1..T} f_t

    A subclass gives ``sample_prob(z)`` (p_t) and ``neg_grad(z)`` (g).  The projection is one global
    scale factor and ||f||_H^2 is updated in O(1) per step; f̂ is exact in O(#SV)
    (:mod:`olk.algorithms.common.projected` derives both).  An example that updates the model is a support
    vector (the paper's definition), so ``n_sv`` = updates, and the sparsity is 1 - n_sv / T.

    Readings: online prediction (the engine's mistake count) uses ``output='avg'``, f̄_t = (1/t)
    sum_{tau<=t} f_tau, the classifier the paper outputs; the sampling decision and the gradient use the
    current f_t, as the pseudo-code says.  eta = 'R/sqrt(T)' needs T before the first example: the
    ``horizon`` parameter, or (0) the number of rows of the data the learner is bound to.
    """

    stochastic = True

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self.eta_: float | None = None       # the step size in use (the rule resolved at the first step)

    # ------------------------------------------------------------- the paper's quantities
    def sample_prob(self, z: float) -> float:  # pragma: no cover - abstract
        """p_t, the probability that example t updates the classifier."""
        raise NotImplementedError

    def neg_grad(self, z: float) -> float:  # pragma: no cover - abstract
        """g(z) >= 0: minus the derivative of the loss the update descends (-l'(z) or -h'(z))."""
        raise NotImplementedError

    def resolve_eta(self, T: int) -> float:
        """The step size: ``eta``, or R / sqrt(T) with T = ``horizon`` (else `T`, the bound data's rows)."""
        if self.eta != ETA_RULE:
            return self.eta
        T = self.horizon or T
        if T <= 1 and not self.horizon:
            raise ConfigError(f"{self.name}: eta = '{ETA_RULE}' needs the number of examples T; set horizon=T "
                              f"(learning one example at a time gives no T)")
        return self.R / math.sqrt(T)

    # ------------------------------------------------------------------------ one step
    def step(self, i, y):
        self.t += 1
        if self.eta_ is None:
            self.eta_ = self.resolve_eta(self.src.n_rows)
        buf = self._buf
        self.pool.decision(self.src, i, buf)
        f, f_avg = self._scores(buf)                  # f_t(x_t), f̄_t(x_t)
        z = y * f
        p = self.sample_prob(z)
        if p >= 1.0 or self.rng.random() < p:         # Z_t = 1
            g = self.neg_grad(z)
            if g > 0.0:
                self._add_projected(i, self.eta_ * y * g, f)
                self.n_updates += 1
        return f_avg if self.output == "avg" else f

    # ---------------------------------------------------------------------- inspection
    @property
    def sparsity(self) -> float:
        """The paper's sparsity: the fraction of received examples that are not support vectors (the report
        derives the same number from each run's n_sv and n_examples)."""
        return 1.0 - self.n_sv / self.t if self.t else float("nan")

    def run_summary(self) -> dict:
        return {"eta_used": self.eta_, "f_norm": math.sqrt(self._sqnorm),
                "n_projections": self.n_projections}
