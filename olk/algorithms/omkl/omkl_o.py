"""OMKL-O, Algorithm 5 ("DA for OMKL-O") of Jin, Hoi & Yang, "Online multiple kernel learning: algorithms and
mistake bounds", ALT 2010: combine the kernel classifiers' real-valued OUTPUTS, sign(q . f(x)); on a mistake of
the combination, every weight moves by its classifier's output (w_i <- w_i beta^(-y f_i(x))) and every f_i takes
a Perceptron step and is projected back onto the ball ||f_i||_H <= R.  Mistake bound: Theorem 8 (if
R^2 ln(1/beta) < 1).  What it shares with ``omkl_o_sua`` (output combination, log-domain weights, the
incremental RKHS norms and the projection) is ``OMKLOCore`` in :mod:`olk.algorithms.omkl.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> gauss = [{"type": "gaussian", "gamma": g} for g in (0.5, 0.125, 0.03125)]
>>> o = make("omkl_o", kernel=gauss, beta=0.99, R=5.0).partial_fit(X, y)
>>> o.n_updates, o.n_sv, bool((o.norms_ <= 5.0 * (1 + 1e-12)).all())   # one SV per update; every ||f_i|| <= R
(217, 217, True)
>>> float((o.predict(X_test) == y_test).mean())
0.775
"""
from __future__ import annotations

import numpy as np

from ..registry import register
from .core import BETA, BOUND, RADIUS, ALTCore, OMKLOCore


@register
class OMKLO(OMKLOCore, ALTCore):
    """OMKL-O Algorithm 5 "DA for OMKL-O" (Jin, Hoi & Yang, ALT 2010); mistake bound Theorem 8.

    Pseudo-code (Algorithm 5; olk keeps q = w / W, and ln w):
        f_i = 0, w_i = 1;  for t = 1..T:
            predict y_hat = sign(q_t . f_t(x_t));
            if y_t (q_t . f_t(x_t)) <= 0:  for every i:
                w_i <- w_i beta^{-y_t f_i(x_t)};  f~_i = f_i + y_t k_i(x_t, .);
                f_i <- f~_i / max(1, ||f~_i||_{H_i} / R)

    Readings (where the paper leaves a choice):

    * update test: "y_hat_t y_t <= 0" is read on the real-valued combination, y_t q_t . f_t(x_t) <= 0: a zero
      output (e.g. t = 1) is an error to learn from.  The reported prediction is olk's sign(0) = +1, so
      ``n_updates`` >= the mistakes counted by the engine; Theorem 8 bounds the updates (its proof counts
      the rounds with y q . f <= 0), hence the mistakes too.
    * one stored SV per update, with coefficient y_t in every column (each f_i learns), then column i is
      scaled if ||f~_i|| > R; ||f_i||^2 is tracked incrementally (``OMKLOCore``), exact up to rounding
      (tests/test_omkl_alt2010.py recomputes it from the pool's SVs).
    * weights: w_i <- w_i beta^{-y f_i(x)} uses f_i^t(x_t), the outputs the prediction used (before the update);
      kept as ln w (beta^{-y f} overflows for large outputs, e.g. polynomial kernels on unnormalised data).
    * R and beta: the paper fixes neither; defaults R = 5, beta = 0.99 meet Theorem 8's R^2 ln(1/beta) < 1.
      The theorem also assumes k_i(x, x) <= 1 (true for Gaussians; not for spa16's polynomials on
      [-1, 1]-scaled data): see :mod:`olk.algorithms.omkl.bounds` for how the bound is evaluated then.
    """

    name = "omkl_o"
    display = "OMKL-O Alg.5 (DA)"
    style = ("vermillion", "D", "-")
    params = (BETA, RADIUS, BOUND)
    theorem = "8"

    def step(self, i, y):
        f, score = self._predict_outputs(i)
        if self.bound:
            self._remember(i, y)
        wrong = y * f <= 0.0
        if y * score <= 0.0:                                # the combination errs: every f_i learns
            self._hedge(y * f)                              # w_i <- w_i beta^{-y f_i(x_t)}
            self._add_and_project(i, f, np.full(len(self.kernels), y))
        self.mistakes_per_kernel_ += wrong
        return score

    def bound_value(self, comp):
        from . import bounds as b
        return b.theorem8(comp, self.beta, self.R, len(self.kernels))
