"""OMKL-P, Algorithm 3 ("SUA for OMKL-P", single update approach) of Jin, Hoi & Yang, "Online multiple kernel
learning: algorithms and mistake bounds", ALT 2010: each round ONE kernel classifier i_t is sampled from
p_t = (1 - delta) q_t + delta/m and only it may learn (Perceptron step) and be discounted (Hedge), so a round
costs at most one kernel update.  Mistake bound (in expectation): Theorem 6.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> sua = make("omkl_sua", kernel="spa16", delta=0.1, random_state=0).partial_fit(X, y)
>>> sua.n_sv_output <= sua.n_updates == sua.n_sv        # one classifier per update: each SV in one column
True
>>> sua.n_sv_output, float((sua.predict(X_test) == y_test).mean())
(424, 0.795)
"""
from __future__ import annotations

import numpy as np

from ..registry import register
from .core import BETA, BOUND, DELTA, ALTCore, sample_one


@register
class OMKLSUA(ALTCore):
    """OMKL-P Algorithm 3 "SUA for OMKL-P" (Jin, Hoi & Yang, ALT 2010); expected-mistake bound Theorem 6.

    Pseudo-code (Algorithm 3; olk keeps q = w / W):
        f_i = 0, w_i = 1, p_1 = 1/m;  for t = 1..T:
            predict y_hat = sign(q_t . sign(f_t(x_t)));  i_t ~ Multi_Sample(p_t);  m_i = I(i = i_t);
            z_i = I(y_t f_i(x_t) <= 0);  w_i <- w_i beta^{m_i z_i};  f_i <- f_i + m_i z_i y_t k_i(x_t, .);
            p_{t+1} = (1 - delta) q_{t+1} + delta/m

    Readings: i_t is drawn every round (line 7 of Algorithm 3 is outside any test), from ONE uniform
    ``self.rng.random()`` and the cumulative sum of p_t in kernel order (``sample_one``); p_t is computed from
    q_t at the top of the round (p_1 = 1/m is the same formula at q_1 = 1/m); prediction, z_i and sign(0) as
    ``omkl_p1``.  An SV is stored only when the sampled classifier errs, with its coefficient in that
    classifier's column alone (so ``n_sv`` = ``n_sv_output`` = ``n_updates``).  No existing olk learner
    coincides with it (``omkc_sd`` samples every classifier, with p_i = (1 - delta) q_i / max q + delta).
    """

    name = "omkl_sua"
    display = "OMKL-P Alg.3 (SUA)"
    style = ("blue", "^", "-")
    params = (BETA, DELTA, BOUND)
    stochastic = True
    theorem = "6"

    def step(self, i, y):
        f, score, wrong = self._predict(i, y)
        if self.bound:
            self._remember(i, y)
        m = len(self.kernels)
        p = (1.0 - self.delta) * self.weights_ + self.delta / m
        it = sample_one(p, self.rng.random())
        if wrong[it]:                                       # m_i z_i = 1 for i = i_t only
            chosen = np.arange(m) == it
            self._store(i, chosen, np.where(chosen, y, 0.0))
            self._discount(chosen, self.beta)
        self.mistakes_per_kernel_ += wrong
        return score

    def bound_value(self, comp):
        from . import bounds as b
        return b.theorem6(comp, self.beta, self.delta, len(self.kernels))
