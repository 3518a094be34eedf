"""Multi-class Sparse Passive-Aggressive learning (SPA): Lu, Sahoo, Zhao & Hoi, "Sparse passive-aggressive
learning for bounded online kernel methods", ACM TIST 9(4), 2018, Algorithm 1 and Proposition 1, with the
multi-class PA step (Crammer et al., JMLR 2006, Section 7; SPA refs [10], [12]).

SPA's sampling unchanged -- an example with loss l_t > 0 becomes an SV with probability rho_t = min(alpha, l_t)
/ beta -- on the max-score multi-class hinge loss, and a sampled example takes the multi-class PA step of
Proposition 1's unbiased objective.  E[#SV] <= alpha T / beta as in Theorem 5.2 (its proof counts Z_t only).
Online prediction uses the averaged model (``output='avg'``, the SPA paper's protocol) or the last one.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> centres = np.array([[0.0, 1.5], [1.5, -1.0], [-1.5, -1.0]])     # three overlapping Gaussian blobs
>>> y = rng.integers(0, 3, 600); X = centres[y] + rng.normal(size=(600, 2))
>>> model = make("mc_spa", kernel={"type": "gaussian", "gamma": 0.5}, beta=5, random_state=0)
>>> model.partial_fit(X[:400], y[:400]).n_sv                   # sampled: far fewer SVs than MC-PA-I's 185
34
>>> [float((model.predict(X[400:], output=o) == y[400:]).mean()) for o in model.outputs]
[0.875, 0.8]
"""
from __future__ import annotations

import numpy as np

from ...tasks import predicted_class
from ..common.averaged import OUTPUT
from ..common.losses import SPA_PARAMS, check_spa_params, sampling_probability, spa_step
from ..registry import register
from .core import MulticlassKernelLearner, hinge_rival


@register
class MulticlassSPA(MulticlassKernelLearner):
    """Multi-class SPA — SPA Algorithm 1 with the multi-class PA step (Lu et al., ACM TIST 2018; JMLR 2006 Sec. 7).

    With W_t = (s_0, ..., s_{K-1}) and r_t = argmax_{c != y_t} s_c(x_t) (ties: the smallest index), for t = 1..T::

        l_t = max(0, 1 - s_{y_t}(x_t) + s_{r_t}(x_t));   rho_t = min(alpha, l_t) / beta;   Z_t ~ Bernoulli(rho_t)
        if Z_t:  W_{t+1} = argmin_W 1/2 ||W - W_t||^2 + (Z_t / rho_t) eta l_t(W)          (Algorithm 1, eq. (1))
                 = W_t + tau_t z_t,   tau_t = min(eta Z_t / rho_t, l_t / (2 k(x_t, x_t)))

    Proposition 1 in multi-class form: with r_t fixed, l_t(W) = max(0, 1 - <W, z_t>) for the Kesler vector
    z_t = (e_{y_t} - e_{r_t}) (x) k(x_t, .) (:mod:`olk.algorithms.multiclass.core`), so the binary solution
    applies with ||z_t||^2 = 2 k(x_t, x_t) in place of k(x_t, x_t): +tau_t on class y_t, -tau_t on class r_t.
    Output: the averaged model W̄_T = (1/T) sum_{t=1..T} W_t.

    Exact averaged model in O(#SV), as binary SPA (:class:`~olk.algorithms.single.spa.SPA`): a coefficient
    a added at step s is never changed, so (1/t) sum_{tau <= t} W_tau = W_t - (1/t) sum_s a_s s.  The pool keeps
    two blocks of K columns, a_s (columns 0..K-1) and a_s s (columns K..2K-1); one pass gives both.
    ``output='avg'`` (default) predicts online with argmax of W̄_t's scores, ``'last'`` with W_t's; the
    loss and the update always use the last model W_t (Algorithm 1).  The SPA paper has no multi-class
    experiment; the SPA authors' MATLAB toolbox has no multi-class SPA (its multiclass/ folder holds the
    budget baselines only), so this reading is ours.
    """

    name = "mc_spa"
    display = "MC-SPA"
    stochastic = True
    style = ("vermillion", "X", "-")
    cols_per_class = 2
    outputs = OUTPUT.choices
    params = SPA_PARAMS + (OUTPUT,)
    check_params = classmethod(check_spa_params)            # beta >= alpha

    def step(self, i, y):
        self.t += 1
        t, K, y = self.t, self.n_classes, int(y)
        self.pool.decision(self.src, i, self._buf)
        s = self._buf[:K]                                        # W_t's scores
        p = predicted_class(s - self._buf[K:2 * K] / t if self.output == "avg" else s)
        loss, r = hinge_rival(s, y)
        if loss > 0.0:
            rho = sampling_probability(self.alpha, self.beta, loss)
            if self.rng.random() < rho:                          # Z_t = 1: ||z_t||^2 = 2 k(x_t, x_t)
                tau = spa_step(self.eta, rho, loss, 2.0 * self.pool.self_kernel(self.src, i))
                v = self.pair(y, r, tau)
                v[K + y], v[K + r] = tau * t, -tau * t
                self.pool.add(self.src, i, v, t)
                self.n_updates += 1
        return p

    def _output_scores(self, D, output):
        K = self.n_classes
        if (output or self.output) == "last" or self.t == 0:
            return D[:, :K]
        return D[:, :K] - D[:, K:2 * K] / self.t          # W̄_T = W_{T+1} - (1/T) sum_s a_s s

    def _expansion_coefs(self) -> np.ndarray:
        """(n_sv, 2K): the 'avg' output's K class columns, then the 'last' output's (both linear in the pool's)."""
        C = self.pool.coefs
        return np.hstack([self._output_scores(C, o) for o in self.outputs])
