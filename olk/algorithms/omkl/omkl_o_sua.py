"""OMKL-O, Algorithm 6 ("SUA for OMKL-O") of Jin, Hoi & Yang, "Online multiple kernel learning: algorithms and
mistake bounds", ALT 2010: Algorithm 5 (combine the classifiers' outputs) where, on a mistake, ONE classifier
i_t ~ p_t = (1 - delta) q_t + delta/m learns, with the importance weight m~ = 1/p_{i_t} and a step size eta:
w_i <- w_i beta^(-eta m~_i y f_i(x)), f_i <- Pi_R(f_i + eta m~_i y k_i(x, .)).  Expected-mistake bound:
Theorem 10.  Uses ``omkl_o.OMKLOCore`` (log-domain weights, incremental norms, projection by column scaling).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> gauss = [{"type": "gaussian", "gamma": g} for g in (0.5, 0.125, 0.03125)]
>>> o6 = make("omkl_o_sua", kernel=gauss, random_state=0).partial_fit(X, y)   # eta = 0: Theorem 10's printed eta
>>> round(o6.eta_, 4), o6.n_updates == o6.n_sv, bool((o6.norms_ <= 5.0 * (1 + 1e-12)).all())
(0.9753, True, True)
>>> float((o6.predict(X_test) == y_test).mean())
0.787
"""
from __future__ import annotations

import math

import numpy as np

from ..registry import Param, register
from .core import BETA, BOUND, DELTA, RADIUS, ALTCore, OMKLOCore, sample_one

#: the step size eta (0: Theorem 10's printed value sqrt(a/b))
ETA = Param("eta", 0.0, "step size eta > 0; 0 = Theorem 10's printed eta = sqrt(a(R,beta,delta)/b(R,beta,delta))",
            check=lambda v: v >= 0.0, requirement=">= 0")


def theorem10_ab(R: float, beta: float, delta: float, m: int) -> tuple[float, float]:
    """a(R, beta, delta) = R^2/2 + ln m / ln(1/beta),  b = ln(1/beta) R^2 m^2 / (2 delta^2) + m / (2 delta)
    (ALT 2010 Theorem 10).

    >>> a, b = theorem10_ab(5.0, 0.99, 0.1, 3)
    >>> round(a, 3), round(b, 3)
    (121.811, 128.066)
    """
    lib = -math.log(beta)
    return R * R / 2.0 + math.log(m) / lib, lib * R * R * m * m / (2.0 * delta * delta) + m / (2.0 * delta)


@register
class OMKLOSUA(OMKLOCore, ALTCore):
    """OMKL-O Algorithm 6 "SUA for OMKL-O" (Jin, Hoi & Yang, ALT 2010); expected-mistake bound Theorem 10.

    Pseudo-code (Algorithm 6; olk keeps q = w / W, and ln w):
        f_i = 0, w_i = 1, p_1 = 1/m;  for t = 1..T:
            predict y_hat = sign(q_t . f_t(x_t));
            if y_t (q_t . f_t(x_t)) <= 0:
                i_t ~ Multi_Sample(p_t);  m_i = I(i = i_t), m~_i = m_i / p_i;
                w_i <- w_i beta^{-eta m~_i y_t f_i(x_t)};  f_i <- Pi_R(f_i + eta m~_i y_t k_i(x_t, .));
                p = (1 - delta) q + delta/m

    Readings (where the paper leaves a choice):

    * eta: Theorem 10 prints eta = sqrt(a/b), without T, yet its bound 2 sqrt(abT) is what a/eta + eta b T gives
      at eta = sqrt(a/(bT)) (T unknown online).  ``eta = 0`` (default) uses the printed sqrt(a/b), kept in
      ``eta_``; any eta > 0 may be given.  :mod:`olk.algorithms.omkl.bounds` evaluates the proof's bound
      sum_t l(u . f(x_t)) + a/eta + eta b T, valid for every eta (= Theorem 10's at eta = sqrt(a/(bT))).
    * p: p_t = (1 - delta) q_t + delta/m from q_t at the time of the draw (line 15 recomputes it after the
      update; p_1 = 1/m is the same formula); i_t is drawn only on update rounds (line 8 is inside the
      test), with one uniform ``self.rng.random()`` (``omkl_sua.sample_one``).
    * update test, sign(0), SV storage (one SV per update, coefficient eta y_t / p_{i_t} in column i_t only),
      log-domain weights and the projection: as ``omkl_o`` (only column i_t can leave the ball).
    """

    name = "omkl_o_sua"
    display = "OMKL-O Alg.6 (SUA)"
    style = ("black", "P", "-")
    params = (BETA, RADIUS, DELTA, ETA, BOUND)
    stochastic = True
    theorem = "10"

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self._set_eta()

    def _set_eta(self) -> None:
        a, b = theorem10_ab(self.R, self.beta, self.delta, len(self.kernels))
        self.eta_ = self.eta if self.eta > 0 else math.sqrt(a / b)

    def _params_changed(self, changed: dict) -> None:
        super()._params_changed(changed)
        self._set_eta()

    def step(self, i, y):
        f, score = self._predict_outputs(i)
        if self.bound:
            self._remember(i, y)
        wrong = y * f <= 0.0
        if y * score <= 0.0:
            m = len(self.kernels)
            p = (1.0 - self.delta) * self.weights_ + self.delta / m
            it = sample_one(p, self.rng.random())
            step = self.eta_ / p[it]                        # eta m~_{i_t}
            scale = np.zeros(m)
            scale[it] = step * y * f[it]
            self._hedge(scale)                              # w_i <- w_i beta^{-eta m~_i y f_i(x_t)}
            coefs = np.zeros(m)
            coefs[it] = step * y
            self._add_and_project(i, f, coefs)
        self.mistakes_per_kernel_ += wrong
        return score

    def _extra_summary(self) -> dict:
        return {**super()._extra_summary(), "eta": self.eta_}

    def bound_value(self, comp):
        from . import bounds as b
        return b.theorem10(comp, self.beta, self.R, self.delta, self.eta_, len(self.kernels))
