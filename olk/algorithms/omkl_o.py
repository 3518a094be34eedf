"""OMKL-O, Algorithm 5 ("DA for OMKL-O") of Jin, Hoi & Yang, "Online multiple kernel learning: algorithms and
mistake bounds", ALT 2010: combine the kernel classifiers' real-valued OUTPUTS, sign(q . f(x)); on a mistake of
the combination, every weight moves by its classifier's output (w_i <- w_i beta^(-y f_i(x))) and every f_i takes
a Perceptron step and is projected back onto the ball ||f_i||_H <= R.  Mistake bound: Theorem 8 (if
R^2 ln(1/beta) < 1).  The module also holds ``_OMKLOCore`` (output combination, log-domain weights, the
incremental RKHS norms and the projection), shared with ``omkl_o_sua``.

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

import math

import numpy as np

from .._core.svpool import dot, exp_array
from .omkl_p1 import BETA, BOUND, _ALTCore
from .registry import POSITIVE, Param, register

#: the radius R of the domains Omega_i = {f : ||f||_{H_i} <= R} (the paper gives no value; 5 satisfies Theorem
#: 8's condition R^2 ln(1/beta) < 1 for beta = 0.99: 25 * 0.01005 = 0.25)
RADIUS = Param("R", 5.0, "maximum functional norm: each f_i is projected onto ||f_i||_H <= R", **POSITIVE)


class _OMKLOCore(_ALTCore):
    """OMKL-O (ALT 2010 Section 5): prediction sign(q . f(x)) from the classifiers' outputs, weights kept as
    logarithms (w_i <- w_i beta^(-y f_i(x)) multiplies by exp(y f_i(x) ln(1/beta)), which over- or underflows
    quickly), and each f_i's squared RKHS norm ``sqnorms_`` kept up to date in O(1) per update from
    f_i(x_t), which the prediction already computed:

        ||f_i + c k_i(x_t, .)||^2 = ||f_i||^2 + 2 c f_i(x_t) + c^2 k_i(x_t, x_t),

    then the projection onto Omega_i = {||f||_{H_i} <= R}, f_i <- f_i / max(1, ||f_i|| / R), is one scale of
    column i (``pool.scale_col``): never a Gram matrix.  ``n_projections_[i]`` counts the scalings of f_i.
    """

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        m = len(self.kernels)
        self._log_w = np.zeros(m)                           # ln w_i (w_1 = 1)
        self._ln_inv_beta = -math.log(self.beta)            # ln(1/beta) > 0
        self.sqnorms_ = np.zeros(m)                         # ||f_i||^2_{H_i}
        self.n_projections_ = np.zeros(m, dtype=np.int64)
        self._kxx = np.zeros(m)

    def _params_changed(self, changed: dict) -> None:
        self._ln_inv_beta = -math.log(self.beta)

    @property
    def norms_(self) -> np.ndarray:
        """||f_i||_{H_i} of every kernel classifier (<= R after every update)."""
        return np.sqrt(self.sqnorms_)

    def _predict_outputs(self, i):
        """Step t's outputs f_i(x_t) and the combined score q_t . f_t(x_t), before any update."""
        self.t += 1
        f = self._buf
        self.pool.decision(self.src, i, f)
        return f, dot(self.weights_, f)

    def _hedge(self, loss_scale: np.ndarray) -> None:
        """ln w_i += loss_scale_i ln(1/beta) (i.e. w_i <- w_i beta^(-loss_scale_i)); q = w / W."""
        self._log_w += loss_scale * self._ln_inv_beta
        self._log_w -= self._log_w.max()                    # w / max w: same q, no overflow
        w = exp_array(self._log_w)
        self._reweight(w)

    def _add_and_project(self, i, f, coefs: np.ndarray) -> None:
        """f_k <- Pi_R(f_k + coefs_k k_k(x_t, .)) for every k with coefs_k != 0 (one stored SV)."""
        cols = np.flatnonzero(coefs)
        for k in cols:
            self._kxx[k] = self.pool.self_kernel(self.src, i, k)
        self._store(i, coefs != 0.0, coefs)
        sq = self.sqnorms_ + 2.0 * coefs * f + coefs * coefs * self._kxx
        np.maximum(sq, 0.0, out=sq)
        r2 = self.R * self.R
        for k in cols:
            if sq[k] > r2:                                  # ||f~|| > R: scale by R / ||f~||
                factor = self.R / math.sqrt(sq[k])
                self.pool.scale_col(k, factor)
                sq[k] *= factor * factor
                self.n_projections_[k] += 1
        self.sqnorms_ = np.where(coefs != 0.0, sq, self.sqnorms_)

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """The combined output q . f(x) on every row of X (summed in kernel order, as ``step``)."""
        F = self.classifier_scores(X)
        out = np.zeros(F.shape[0])
        for k, w in enumerate(self.weights_.tolist()):
            out += w * F[:, k]
        return out

    def _extra_summary(self) -> dict:
        return {"norms": self.norms_.tolist(), "projections_per_kernel": self.n_projections_.tolist()}


@register
class OMKLO(_OMKLOCore):
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
      scaled if ||f~_i|| > R; ||f_i||^2 is tracked incrementally (``_OMKLOCore``), exact up to rounding
      (tests/test_omkl_alt2010.py recomputes it from the pool's SVs).
    * weights: w_i <- w_i beta^{-y f_i(x)} uses f_i^t(x_t), the outputs the prediction used (before the update);
      kept as ln w (beta^{-y f} overflows for large outputs, e.g. polynomial kernels on unnormalised data).
    * R and beta: the paper fixes neither; defaults R = 5, beta = 0.99 meet Theorem 8's R^2 ln(1/beta) < 1.
      The theorem also assumes k_i(x, x) <= 1 (true for Gaussians; not for spa16's polynomials on
      [-1, 1]-scaled data): see :mod:`olk.analysis.omkl_bounds` for how the bound is evaluated then.
    """

    name = "omkl_o"
    display = "OMKL-O Alg.5 (DA)"
    style = ("#66a61e", "D")
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
        from ..analysis import omkl_bounds as b
        return b.theorem8(comp, self.beta, self.R, len(self.kernels))
