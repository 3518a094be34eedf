"""BOMKC(SPA): bounded online multiple-kernel classification with SPA's stochastic support-vector sampling,
Lu, Sahoo, Zhao & Hoi, "Sparse passive-aggressive learning for bounded online kernel methods", ACM TIST 9(4),
2018, Section 4.2, Algorithm 2 ("Bounded OMKC Algorithm using SPA"), each kernel classifier updated by the
closed form of Proposition 1; parameters of Section 6.2.4; the "SPA" row of the paper's Table 5 / Table 6.

One SPA classifier f_i per kernel k_i of the learner's :class:`~olk.kernels.KernelSet` (one coefficient
column each on ONE shared SV pool, see :class:`~olk.algorithms.omkc_dd.OMKCCore`), combined by the
deterministic Hedge-weighted vote of OMKC(DD):

    y_hat_t = sign(sum_i theta_i sign(f_i(x_t))),   l_i = [1 - y_t f_i(x_t)]_+,
    rho_i = min(alpha, l_i) / beta,   p_i = (1 - delta) theta_i / max_j theta_j + delta,
    Z_i ~ Bernoulli(rho_i p_i);  if Z_i:  f_i <- f_i + tau_i y_t k_i(x_t, .),
    tau_i = min(eta / rho_i, l_i / k_i(x_t, x_t))   (Proposition 1, eta Z_i / rho_i with Z_i = 1),
    theta_i <- theta_i gamma^{M_i},  M_i = I(y_t f_i(x_t) < 0),   theta <- theta / sum_j theta_j.

E[#SV of f_i] <= alpha T / beta (Theorem 2), so ``n_sv_output`` (SVs summed over the m classifiers)
is at most m alpha T / beta in expectation; ``delta = 1`` drops the theta-dependent factor (p_i = 1):
every f_i is then exactly single-kernel SPA's last classifier (``make("spa", output="last")``).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> from olk.kernels import KernelSet
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("bomkc_spa_dd", kernel=KernelSet.preset("spa16"), random_state=0)   # alpha 1, beta 3
>>> model.partial_fit(X, y).n_sv_output, model.n_sv       # SVs summed over the 16 classifiers; stored once
(2424, 903)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows (OMKC(DD): 0.812)
0.818
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..common.losses import SPA_PARAMS, check_spa_params, sampling_probability, spa_step
from ..registry import register
from .core import DELTA, DISCOUNT, HEDGE, OMKCCore

ALPHA, BETA, ETA = SPA_PARAMS


@register
class BOMKCSPADD(OMKCCore):
    """BOMKC(SPA) (Lu, Sahoo, Zhao & Hoi, ACM TIST 2018, Algorithm 2; SPA Table 5 row "SPA").

    For t = 1..T, with f_i = 0 and theta_i = 1/m:
        predict sign(sum_i theta_i sign(f_i(x_t)));
        for each kernel i:  l_i = [1 - y_t f_i(x_t)]_+;  rho_i = min(alpha, l_i)/beta;
            p_i = (1 - delta) theta_i / max_j theta_j + delta;  Z_i ~ Bernoulli(rho_i p_i);
            if Z_i: f_i <- f_i + tau_i y_t k_i(x_t, .),  tau_i = min(eta / rho_i, l_i / k_i(x_t, x_t));
            theta_i <- theta_i discount^{M_i},  M_i = I(y_t f_i(x_t) < 0)  (hedge: strict; mistake: <= 0);
        theta <- theta / sum_j theta_j.

    Readings (where Algorithm 2 / Section 6.2.4 leave a choice):

    * sampling: Pr(Z_i = 1) = rho_i p_i exactly as Algorithm 2 prints it, p_i being OMKC(SD)'s
      theta-dependent probability with smoothing ``delta`` (Section 6.2.4: 0.001).  The name's "DD" is the
      deterministic (Hedge) combination; ``delta = 1`` gives p_i = 1, i.e. pure SPA sampling per kernel.
    * step size: Proposition 1 with the SPA ratio eta Z_i / rho_i, rho_i = min(alpha, l_i)/beta (NOT
      rho_i p_i): that is the update analysed in the paper's Theorem 3 ("E[Z_i] = rho_i p_i ... eta Z_i /
      rho_i"), so p_i only thins the updates.  k_i(x, x) = 0 gives tau_i = eta / rho_i, as in ``spa``.
    * eta: the "learning rate 0.1 of the PA-based algorithms (SPA, ...)" of Section 6.2.4, read as SPA's
      aggressiveness eta (``spa``'s ``eta``), default 0.1; alpha = 1 and beta = 3 (the paper's T < 1e5
      setting; pass beta = 10 for T >= 1e5).  beta >= alpha is required (rho_i <= 1), as for ``spa``.
    * Hedge: every classifier is discounted on its own mistake, whether or not it was sampled (the weight
      update sits outside "if Z_i" in Algorithm 2).  ``hedge: strict`` is Algorithm 2's printed
      M_i = I(y f_i(x) < 0) (the literal reproduction configs); the default ``mistake`` is y f_i(x) <= 0, the
      OMKC test of the cited original (Hoi et al. 2013, ALT 2010), under which an untrained f_i = 0 is
      discounted too (``HEDGE`` in :mod:`~olk.algorithms.multikernel.core`).
    * random draws: one uniform per kernel, self.rng.random(m), at a step where some l_i > 0 (none when
      every loss is 0), Z_i = I(u_i < rho_i p_i).  With one kernel and delta = 1 this consumes the RNG
      exactly as ``spa`` does, so the two learners coincide draw for draw.
    * SVs: an example sampled by several classifiers is stored once in the shared pool (its tau_i y_t in each
      sampled column, 0 elsewhere); ``n_sv_output`` = sum_i #SV(f_i) is the paper's "total number of SVs used
      by all single-kernel classifiers"; ``n_sv`` is the distinct stored rows.
    * output: the combined vote of the current classifiers f_i (no averaged classifier: Algorithm 2 predicts
      with f_t^i online, and Table 5 reports online mistake rates).  Other readings: see ``OMKCCore``.
    """

    name = "bomkc_spa_dd"
    display = "BOMKC(SPA)"
    style = ("vermillion", "P", "--")
    stochastic = True
    params = (
        replace(ALPHA, doc="cap on the loss in the sampling probability rho_i = min(alpha, l_i)/beta"),
        replace(BETA, default=3.0, doc="sampling scale: rho_i = min(alpha, l_i)/beta (paper: 3 if T < 1e5, else "
                "10); needs beta >= alpha"),
        replace(ETA, default=0.1, doc="SPA aggressiveness of each kernel classifier: tau_i = min(eta/rho_i, "
                "l_i/k_i(x, x))"),
        DISCOUNT,
        DELTA,
        HEDGE,
    )
    check_params = classmethod(check_spa_params)            # beta >= alpha

    def step(self, i, y):
        f, score, wrong = self._predict(i, y)               # predict first; wrong = M_i
        loss = np.maximum(1.0 - y * f, 0.0)                 # l_i
        if loss.max() > 0.0:
            rho = sampling_probability(self.alpha, self.beta, loss)
            sampled = self.rng.random(f.shape[0]) < rho * self._update_probs()     # Z_i (l_i = 0 -> rho_i = 0 -> never)
            if sampled.any():                               # ... then learn: one stored SV for all f_i
                coefs = np.zeros_like(f)
                for k in np.flatnonzero(sampled):
                    coefs[k] = y * spa_step(self.eta, rho[k], loss[k], self.pool.self_kernel(self.src, i, k))
                self._store(i, sampled, coefs)
        hedged = self._hedge_indicator(y, f, wrong)         # M_i (HEDGE)
        if hedged.any():                                    # Hedge: theta_i <- theta_i gamma^{M_i}
            self._discount(hedged, self.discount)
        self.mistakes_per_kernel_ += wrong
        return score
