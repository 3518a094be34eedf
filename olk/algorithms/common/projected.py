"""The R-ball projection as one global scale, with the exact averaged classifier on top of it.

Shared by the learners that take gradient steps f'_{t+1} = f_t + a_t k(x_t, .) and then project onto
Omega = {f : ||f||_H <= R}: OSKL (ICML 2013, Algorithm 1) and the sparse online KLR learners NC, Margin
and Auxiliary (Zhang et al., AAAI 2012, Algorithms 1-3, step "f_{t+1} = pi_Omega(f'_{t+1})").

Derivation.  pi_Omega(f) = R / max(R, ||f||) * f only rescales the whole function, so

    f_t = sigma_t * sum_{s < t} b_s k(x_s, .)

with raw coefficients b_s that never change once stored and one scalar sigma_t, the product of all the
rescalings so far.  A step stores b = a / sigma_t; a projection multiplies sigma by R / ||f'||.  No
coefficient is ever rewritten, so a step costs one pool pass, O(#SV), however often it projects.

||f||_H^2 is kept up to date in O(1): with f(x_t) already computed for the prediction,

    ||f + a k(x_t, .)||^2 = ||f||^2 + 2 a f(x_t) + a^2 k(x_t, x_t).

Averaged output f̄_t = (1/t) sum_{tau=1..t} f_tau (the papers' output classifier).  SV s (stored at step s)
belongs to f_{s+1}, f_{s+2}, ... with coefficient sigma_tau b_s, so with S_t = sum_{tau<=t} sigma_tau

    (1/t) sum_{tau=1..t} f_tau(x) = (1/t) sum_s b_s (S_t - S_s) k(x_s, x) = (S_t col0(x) - col1(x)) / t,

col0 = b_s and col1 = b_s S_s: two pool columns give f_t and f̄_t in one pass, exactly.  When sigma falls
below ``renormalise_below`` it is folded into the coefficients (col1 -= S col0 ; col0 *= sigma ;
sigma = 1 ; S = 0), which leaves both formulas unchanged and keeps the stored numbers in range.
"""
from __future__ import annotations

import math

from .averaged import AveragedOutput


class ProjectedAverage(AveragedOutput):
    """Mixin (list it first among the bases of an :class:`~olk.algorithms.base.OnlineKernelLearner`): the
    state sigma, S, ||f||^2 and the two steps of the derivation above.  The learner has a parameter ``R``
    (the radius; 0 = no projection), adds :data:`~olk.algorithms.averaged.OUTPUT` to its ``params``, and in
    ``step``: ``f, f_avg = self._scores(buf)`` after ``pool.decision``, then ``self._add_projected(i, a, f)``
    for a step f_t + a k(x_i, .)."""

    #: fold sigma into the stored coefficients when it gets this small (exactness is unaffected)
    renormalise_below = 1e-4

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self._sigma = 1.0          # f_t = sigma * sum_s col0_s k(x_s, .)
        self._S = 0.0              # sum of sigma_tau over the steps since the last renormalisation
        self._sqnorm = 0.0         # ||f_t||^2, tracked only when R > 0
        self.n_projections = 0     # R-ball rescalings

    def _scores(self, buf) -> tuple[float, float]:
        """Start step t (``self.t`` already counts it): S_t = S_{t-1} + sigma_t; return (f_t(x_t), f̄_t(x_t))
        from the pool's decision buffer of x_t."""
        sigma = self._sigma
        self._S += sigma
        return sigma * buf[0], (self._S * buf[0] - buf[1]) / self.t

    def _add_projected(self, i: int, a: float, f: float) -> None:
        """f_{t+1} = pi_Omega(f_t + a k(x_i, .)), with f = f_t(x_i) (from :meth:`_scores`)."""
        sigma = self._sigma
        b = a / sigma
        self.pool.add(self.src, i, (b, b * self._S), self.t)
        if self.R > 0.0:
            self._sqnorm += 2.0 * a * f + a * a * self.pool.self_kernel(self.src, i)
            if self._sqnorm > self.R * self.R:
                self._sigma = sigma * (self.R / math.sqrt(self._sqnorm))
                self._sqnorm = self.R * self.R
                self.n_projections += 1
                if self._sigma < self.renormalise_below:
                    self._renormalise()

    def _renormalise(self) -> None:
        """col1 -= S col0 ; col0 *= sigma ; sigma = 1 ; S = 0 — f_t and f̄_t are unchanged."""
        c0 = self.pool.coefs[:, 0]
        self.pool.add_col_vector(1, -self._S * c0)
        self.pool.scale_col(0, self._sigma)
        self._sigma, self._S = 1.0, 0.0

    @property
    def sqnorm_(self) -> float:
        """||f_{t+1}||_H^2 as tracked incrementally (0 when R = 0: not tracked)."""
        return self._sqnorm

    def coef_last_(self):
        """The coefficients alpha of the last classifier f_{t+1} = sum_s alpha_s k(x_s, .), in pool order."""
        return self._sigma * self.pool.coefs[:, 0]

    def _avg_scores(self, D):
        return (self._S * D[:, 0] - D[:, 1]) / self.t       # f̄_T = (S_T col0 - col1) / T

    def _last_scores(self, D):
        return self._sigma * D[:, 0]                         # f_{T+1} = sigma col0
