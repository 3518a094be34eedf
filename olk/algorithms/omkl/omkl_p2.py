"""OMKL-P, Algorithm 2 ("DA for OMKL-P (2)") of Jin, Hoi & Yang, "Online multiple kernel learning: algorithms
and mistake bounds", ALT 2010: Algorithm 1's kernel Perceptrons, but the Hedge discount of an erring classifier
grows with how badly it errs, nu_i = 1/2 + min(gamma, -y f_i(x)) (gamma: the maximum misclassification level).
Mistake bound: Theorem 3.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> p2 = make("omkl_p2", kernel="spa16", beta=0.99, gamma=0.5).partial_fit(X, y)
>>> p2.n_sv_output                                        # the same kernel Perceptrons as omkl_p1 / omkc_dd
5705
>>> int(p2.weights_.argmax()), float((p2.predict(X_test) == y_test).mean())
(7, 0.801)
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.svpool import exp_array
from ..registry import POSITIVE, Param, register
from .core import BETA, BOUND, ALTCore

#: the maximum misclassification level gamma > 0 (the paper gives no value)
GAMMA = Param("gamma", 0.5, "max misclassification level: nu_i = z_i (1/2 + min(gamma, -y f_i(x)))", **POSITIVE)


@register
class OMKLP2(ALTCore):
    """OMKL-P Algorithm 2 "DA for OMKL-P (2)" (Jin, Hoi & Yang, ALT 2010); mistake bound Theorem 3.

    Pseudo-code (Algorithm 2; olk keeps q = w / W):
        f_i = 0, w_i = 1;  for t = 1..T:
            predict y_hat = sign(q_t . sign(f_t(x_t)));  z_i = I(y_t f_i(x_t) <= 0);
            nu_i = z_i (1/2 + min(gamma, -y_t f_i(x_t)));  w_i <- w_i beta^{nu_i};  f_i <- f_i + z_i y_t k_i(x_t, .)

    The classifiers f_i are exactly Algorithm 1's (kernel Perceptrons), only the weights differ; with
    gamma -> 0 every erring classifier is discounted by beta^(1/2) (Algorithm 1 with discount sqrt(beta)).

    Readings: prediction, z_i and sign(0) as ``omkl_p1`` (an untrained f_i = 0 errs with nu_i = 1/2);
    beta^nu is computed as exp(nu ln beta) with olk's portable exp (bit-identical on every host).
    """

    name = "omkl_p2"
    display = "OMKL-P Alg.2 (DA)"
    style = ("orange", "p", "-")
    params = (BETA, GAMMA, BOUND)
    theorem = "3"

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self._ln_beta = math.log(self.beta)

    def _params_changed(self, changed: dict) -> None:
        self._ln_beta = math.log(self.beta)

    def step(self, i, y):
        f, score, wrong = self._predict(i, y)
        if self.bound:
            self._remember(i, y)
        if wrong.any():
            nu = np.where(wrong, 0.5 + np.minimum(self.gamma, -y * f), 0.0)
            self._reweight(self.weights_ * exp_array(nu * self._ln_beta))  # w_i <- w_i beta^{nu_i}
            self._store(i, wrong, np.where(wrong, y, 0.0))                  # f_i += z_i y_t k_i(x_t, .)
        self.mistakes_per_kernel_ += wrong
        return score

    def bound_value(self, comp):
        from . import bounds as b
        return b.theorem3(comp, self.beta, self.gamma, len(self.kernels))
