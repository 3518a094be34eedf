"""Multi-class self-tuned Forgetron: Dekel, Shalev-Shwartz & Singer, "The Forgetron: a kernel-based
perceptron on a budget", SIAM J. Computing 37(5), 2008 (SPA paper ref [14]), run on the multi-class max-score
Perceptron through Kesler's construction.

On a mistake x_t joins the SVs (+ on the true class, - on the predicted one); above B SVs every coefficient
of every class is shrunk by the self-tuned phi_t and the oldest SV is removed from all classes.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> centres = np.array([[0.0, 1.5], [1.5, -1.0], [-1.5, -1.0]])     # three overlapping Gaussian blobs
>>> y = rng.integers(0, 3, 600); X = centres[y] + rng.normal(size=(600, 2))
>>> model = make("mc_forgetron", kernel={"type": "gaussian", "gamma": 0.5}, budget=20)
>>> model.partial_fit(X[:400], y[:400]).n_sv, model.M              # B SVs kept; M mistakes
(20, 96)
>>> float((model.predict(X[400:]) == y[400:]).mean())
0.725
"""
from __future__ import annotations

import numpy as np

from ...tasks import predicted_class
from ..budget.core import ForgetronLearner
from ..registry import register
from .core import KESLER, MulticlassKernelLearner


@register
class MulticlassForgetron(ForgetronLearner, MulticlassKernelLearner):
    """Multi-class self-tuned Forgetron — Dekel et al., SIAM J. Computing 2008, via Kesler's construction; SPA ref [14].

    Kesler's construction turns a multi-class mistake (y_t, predicted y^_t) into the binary example
    z_t = (e_{y_t} - e_{y^_t}) (x) k(x_t, .) / sqrt(2) with label +1: <W, z_t> = (s_{y_t} - s_{y^_t})(x_t) / sqrt(2)
    and ||z_t||^2 = k(x_t, x_t) <= 1 (Gaussian kernel), the norm the Forgetron's analysis assumes; the
    max-score multi-class Perceptron is the binary Perceptron on the z_t.  This learner is the binary self-tuned
    Forgetron (:class:`~olk.algorithms.budget.forgetron.Forgetron`, whose phi_t rule and Q/M bookkeeping it
    reuses: :class:`~olk.algorithms.budget.core.ForgetronState`) on that stream.  With W = sum_{i in I}
    sigma_i z_i (SV i stores +sigma_i/sqrt(2) in column y_i and -sigma_i/sqrt(2) in column y^_i)::

        on a mistake (y^_t = argmax_c s_c(x_t) != y_t):  M_t = M_{t-1} + 1
            (1) I' = I_t + {t}, sigma_t = 1                                   W' = W_t + z_t
            if |I'| > B:
                r = the oldest SV,  delta = sigma_r,  mu' = <W', z_r> = (s'_{y_r} - s'_{y^_r})(x_r) / sqrt(2)
            (2) phi_t = max { phi in (0, 1] : Psi(delta phi, phi mu') + Q_t <= 15/32 M_t },
                Psi(lam, mu) = lam^2 + 2 lam - 2 lam mu;   every coefficient of every class *= phi_t
                Q_{t+1} = Q_t + Psi(delta phi_t, phi_t mu')
            (3) I_{t+1} = I' \\ {r}   (the row leaves all K classes)

    Since only the argmax is predicted, the global scale 1/sqrt(2) changes no prediction: without budget pressure
    this is exactly the multi-class Perceptron (:mod:`~olk.algorithms.multiclass.mc_perceptron`).  y_r and y^_r
    are read back from SV r's own coefficients (its positive and its negative column), so no label is kept
    beside the pool.  The SPA authors' MATLAB multi-class Forgetron (multiclass/forgetron.m) instead takes mu as
    the true class's score s_{y_r}(x_r) alone and sigma_r from the first coefficient of class y_r; we follow the
    Kesler reading, under which the Forgetron's mistake bound holds as stated.  Deterministic.
    """

    name = "mc_forgetron"
    display = "MC-Forgetron"
    style = ("purple", "o", "--")
    # budget, state (M, Q, phi_last; its label queue is unused: the pool's rows tell): ForgetronLearner

    def step(self, i, y):
        self.t += 1
        y = int(y)
        pool, state = self.pool, self.state
        p = predicted_class(self.class_scores(i))
        if p != y:
            state.M += 1
            self.n_updates += 1
            pool.add(self.src, i, self.pair(y, p, KESLER), self.t)      # (1) sigma_t = 1
            if pool.n_sv > self.budget:
                r = int(np.argmin(pool.tags))                           # the oldest SV
                row = pool.coefs[r, :self.n_classes]
                y_r, p_r = int(np.argmax(row)), int(np.argmin(row))
                delta = row[y_r] / KESLER                               # sigma_r
                pool.decision_sv(r, self._buf)                          # W'(x_r), the new SV included
                mu = (self._buf[y_r] - self._buf[p_r]) * KESLER         # <W', z_r>
                state.shrink(delta, mu, self.scale_all)                 # (2) shrink every sigma
                pool.remove(r)                                          # (3) forget the oldest
        return p
