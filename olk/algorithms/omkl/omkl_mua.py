"""OMKL-P, Algorithm 4 ("MUA for OMKL-P", multiple updates approach) of Jin, Hoi & Yang, "Online multiple
kernel learning: algorithms and mistake bounds", ALT 2010: every kernel classifier i is sampled independently
with probability p_i = (1 - delta) q_i + delta and, when sampled and wrong, learns (Perceptron step) and is
discounted (Hedge).  Mistake bound (in expectation): Theorem 7.

Relation to ``omkc_sd`` (Hoi et al., Machine Learning 2013, the SPA paper's "SD" row): the same algorithm with
a different sampling probability, p_i = (1 - delta) q_i / max_j q_j + delta there.  The two coincide (draw for
draw, with the same seed) when q / max q = q, i.e. with one kernel, and both become ``omkl_p1`` /
``omkc_dd`` with delta = 1 (tests/test_omkl_alt2010.py checks both).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> mua = make("omkl_mua", kernel="spa16", delta=0.1, random_state=0).partial_fit(X, y)
>>> mua.n_sv_output < 5705                                # fewer classifier updates than omkl_p1's 5,705
True
>>> mua.n_sv_output, float((mua.predict(X_test) == y_test).mean())
(1000, 0.807)
"""
from __future__ import annotations

import numpy as np

from ..registry import register
from .core import BETA, BOUND, DELTA, ALTCore


@register
class OMKLMUA(ALTCore):
    """OMKL-P Algorithm 4 "MUA for OMKL-P" (Jin, Hoi & Yang, ALT 2010); expected-mistake bound Theorem 7.

    Pseudo-code (Algorithm 4; olk keeps q = w / W):
        f_i = 0, w_i = 1, p_1 = 1;  for t = 1..T:
            predict y_hat = sign(q_t . sign(f_t(x_t)));  m_i ~ Bern_Sample(p_i);  z_i = I(y_t f_i(x_t) <= 0);
            w_i <- w_i beta^{m_i z_i};  f_i <- f_i + m_i z_i y_t k_i(x_t, .);  p_{t+1} = (1 - delta) q_{t+1} + delta

    Readings: p_1 = 1 (every classifier learns at t = 1) and p_t = (1 - delta) q_t + delta afterwards, from
    q_t at the top of the round (line 13 of Algorithm 4, computed one round ahead); the m Bernoulli draws are
    ``self.rng.random(m) < p`` (one uniform per kernel in kernel order, every round, as ``omkc_sd``);
    prediction, z_i and sign(0) as ``omkl_p1``; an unsampled classifier is neither updated nor discounted.
    """

    name = "omkl_mua"
    display = "OMKL-P Alg.4 (MUA)"
    style = ("purple", "v", "-")
    params = (BETA, DELTA, BOUND)
    stochastic = True
    theorem = "7"

    def step(self, i, y):
        f, score, wrong = self._predict(i, y)
        if self.bound:
            self._remember(i, y)
        p = self._ones if self.t == 1 else (1.0 - self.delta) * self.weights_ + self.delta
        upd = wrong & (self.rng.random(len(self.kernels)) < p)          # m_i z_i
        if upd.any():
            self._store(i, upd, np.where(upd, y, 0.0))
            self._discount(upd, self.beta)
        self.mistakes_per_kernel_ += wrong
        return score

    def bound_value(self, comp):
        from . import bounds as b
        return b.theorem7(comp, self.beta, self.delta, len(self.kernels))
