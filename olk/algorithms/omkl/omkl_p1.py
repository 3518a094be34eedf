"""OMKL-P, Algorithm 1 ("DA for OMKL-P (1)") of Jin, Hoi & Yang, "Online multiple kernel learning: algorithms
and mistake bounds", ALT 2010 (LNCS 6331, 390-404): one kernel Perceptron per kernel, combined by a Hedge vote of
their signs; mistake bound Theorem 2 (eq. (4)); with ``schedule='doubling'`` the discount follows the doubling
trick of eq. (5), mistake bound Theorem 5.

With ``schedule='fixed'`` this is exactly olk's ``omkc_dd`` (Hoi, Jin, Zhao & Yang, Machine Learning 2013: the
journal version of the same algorithm) with ``discount = beta``: the same votes, SVs and weights step for step
(tests/test_omkl_alt2010.py checks it bit for bit).  What the six ALT 2010 learners share
(``ALTCore``, the parameters ``beta``, ``delta``, ``bound``, the eq. (5) schedule ``doubling_beta``) is in
:mod:`olk.algorithms.omkl.core`; they subclass OMKC's core (m kernel classifiers on ONE shared SV pool).

``bound=True`` makes the learner evaluate its theorem's mistake bound on the stream it learned from
(``run_summary()['mistake_bound']``, a ``mistake_bound`` column in runs.csv); see :mod:`olk.algorithms.omkl.bounds`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> p1 = make("omkl_p1", kernel="spa16", beta=0.99).partial_fit(X, y)        # the SPA paper's 16 kernels
>>> p1.n_sv_output, float((p1.predict(X_test) == y_test).mean())     # = omkc_dd with discount 0.99
(5705, 0.812)
>>> dbl = make("omkl_p1", kernel="spa16", schedule="doubling").partial_fit(X, y)
>>> dbl.segment_, round(dbl.beta_, 4), float((dbl.predict(X_test) == y_test).mean())   # 8 segments: k = 0..7
(7, 0.8717, 0.821)
"""
from __future__ import annotations

import numpy as np

from ..registry import register
from .core import BETA, BOUND, SCHEDULE, ALTCore, doubling_beta


@register
class OMKLP1(ALTCore):
    """OMKL-P Algorithm 1 "DA for OMKL-P (1)" (Jin, Hoi & Yang, ALT 2010); bounds Theorem 2 (fixed) / 5 (doubling).

    Pseudo-code (Algorithm 1; olk keeps q = w / W):
        f_i = 0, w_i = 1;  for t = 1..T:
            predict y_hat = sign(q_t . sign(f_t(x_t)));  z_i = I(y_t f_i(x_t) <= 0);
            w_i <- w_i beta^{z_i};  f_i <- f_i + z_i y_t k_i(x_t, .)
    ``schedule='doubling'`` (eq. (5), Theorem 5): the stream is cut into segments k = 0, 1, ...; segment k uses
    beta_k = 2^(k/2) / (sqrt(ln m) + 2^(k/2)) and ends at the step where min_i (mistakes z_i of f_i within the
    segment) reaches 2^k.

    Relation to ``omkc_dd``: with ``schedule='fixed'`` it IS ``omkc_dd(discount=beta, component='perceptron')``
    (the same arithmetic, so the same predictions, SVs and weights bit for bit); ALT's w_1 = 1 without
    normalisation gives the same q_t as olk's renormalised weights (q is all Algorithm 1 uses).

    Readings (where the paper leaves a choice):

    * prediction: sign(q . sign(f(x))) with sign(0) = 0 for a classifier (f_i(x) = 0 abstains) and olk's
      sign(0) = +1 for the combined score (``step`` returns q . sign(f(x))); z_i = I(y f_i(x) <= 0) as printed
      (an untrained f_i = 0 errs).  Then a mistake implies q . z >= 1/2, which Theorem 2's proof needs.
    * doubling: at the start of every segment the Hedge weights restart at q = 1/m and the f_i are kept.  The
      per-segment bound in Theorem 5's proof is eq. (4) applied to the segment, which needs uniform weights
      at its start (KL(u || q) <= ln m); the f_i continue because the proof sums the f_i's mistakes over the
      whole stream.  The step at which min_i (segment mistakes) reaches 2^k is the segment's last step
      (T_{k+1}); its own update uses beta_k.  One kernel: ln m = 0 gives beta_k = 1 (the Perceptron).
    * Theorem 5 as printed has 2/(sqrt 2 - 1) sqrt(g ln m) and ceil(log2 g) ln m; its own proof gives
      4 sqrt(ln m) (sqrt(2(g+1)) - 1)/(sqrt 2 - 1) and (1 + floor(log2(g+1))) 2 ln m, which
      :mod:`olk.algorithms.omkl.bounds` evaluates (the printed form is smaller, so not proven).
    """

    name = "omkl_p1"
    display = "OMKL-P Alg.1 (DA)"
    style = ("green", "P", "-")
    params = (BETA, SCHEDULE, BOUND)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        m = len(self.kernels)
        self.segment_ = 0                                   # doubling: current segment k
        self._seg_z = np.zeros(m, dtype=np.int64)           # doubling: mistakes of each f_i in segment k
        self.beta_ = doubling_beta(0, m) if self.schedule == "doubling" else self.beta

    structural_params = ("schedule",)      # the doubling segments are state of their own: a new schedule restarts

    def _params_changed(self, changed: dict) -> None:
        if self.schedule != "doubling":
            self.beta_ = self.beta

    @property                       # the theorem of the schedule
    def theorem(self) -> str:  # type: ignore[override]
        return "5" if self.schedule == "doubling" else "2"

    def step(self, i, y):
        f, score, wrong = self._predict(i, y)               # f_i(x_t), q . sign(f), z_i
        if self.bound:
            self._remember(i, y)
        if wrong.any():
            self._store(i, wrong, np.where(wrong, y, 0.0))          # f_i += z_i y_t k_i(x_t, .)
            self._discount(wrong, self.beta_)                        # w_i <- w_i beta^{z_i}
        self.mistakes_per_kernel_ += wrong
        if self.schedule == "doubling":
            self._seg_z += wrong
            if self._seg_z.min() >= (1 << self.segment_):    # min_i sum_seg z_i = 2^k: segment k ends here
                self.segment_ += 1
                self._seg_z[:] = 0
                self.weights_ = np.full(len(self.kernels), 1.0 / len(self.kernels))   # Hedge restarts
                self.beta_ = doubling_beta(self.segment_, len(self.kernels))
        return score

    def _extra_summary(self) -> dict:
        if self.schedule != "doubling":
            return {}
        return {"segments": self.segment_ + 1, "beta_last": self.beta_}

    def bound_value(self, comp):
        from . import bounds as b
        if self.schedule == "doubling":
            return b.theorem5(comp, len(self.kernels))
        return b.theorem2(comp, self.beta, len(self.kernels))
