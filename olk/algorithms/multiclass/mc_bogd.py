"""Multi-class BOGD, Bounded Online Gradient Descent with uniform sampling: Zhao, Wang, Wu, Jin & Hoi, "Fast
bounded online gradient descent algorithms for scalable kernel-based online learning", ICML 2012 (SPA paper
ref [53]), on the multi-class max-score hinge loss (Crammer & Singer 2003; SPA ref [12]).

Kernel OGD on lam/2 ||W||^2 + max(0, 1 - s_y(x) + s_r(x)); with B SVs a uniformly random SV (a pool row: all
K classes) is dropped and the rest rescaled by B/(B-1), an unbiased estimate of the OGD step.  ``eta=0.1`` and
``lam=0.01`` are the binary BOGD's mid-grid defaults (tune them).

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> centres = np.array([[0.0, 1.5], [1.5, -1.0], [-1.5, -1.0]])     # three overlapping Gaussian blobs
>>> y = rng.integers(0, 3, 600); X = centres[y] + rng.normal(size=(600, 2))
>>> model = make("mc_bogd", kernel={"type": "gaussian", "gamma": 0.5}, budget=20, eta=0.5, random_state=0)
>>> model.partial_fit(X[:400], y[:400]).n_sv, model.n_updates        # B SVs kept
(20, 195)
>>> float((model.predict(X[400:]) == y[400:]).mean())
0.855
"""
from __future__ import annotations

from ...tasks import predicted_class
from ..budget.core import BOGD_PARAMS, bogd_scale
from ..common.losses import check_shrinkage
from ..registry import register
from .core import MulticlassKernelLearner, hinge_rival


@register
class MulticlassBOGD(MulticlassKernelLearner):
    """Multi-class BOGD — Zhao et al., ICML 2012, on the max-score hinge loss; SPA refs [53], [12].

    OGD on lam/2 ||W||^2 + l_t(W), l_t(W) = max(0, 1 - s_{y_t}(x_t) + s_{r_t}(x_t)) with r_t the
    highest-scoring wrong class (a subgradient: +k(x_t, .) on y_t, -k(x_t, .) on r_t), kept at B SVs by an
    unbiased random removal of whole SVs (pool rows)::

        every step:  W <- (1 - eta lam) W_t                                    (regulariser's gradient)
        if l_t > 0:
            if |S| < B:  W_{t+1} = (1 - eta lam) W_t + eta (e_{y_t} - e_{r_t}) k(x_t, .)
            else:        j ~ Uniform(S)
                         W_{t+1} = (1 - eta lam) B/(B-1) sum_{s in S, s != j} W[s] k(x_s, .)
                                   + eta (e_{y_t} - e_{r_t}) k(x_t, .)

    E_j[B/(B-1) sum_{s != j} W[s] k(x_s, .)] = W_t (every class column at once).  The readings of olk's binary
    BOGD (:class:`~olk.algorithms.budget.bogd.BOGD`) hold: shrinkage on zero-loss steps too, the update fires
    on l_t > 0, no extra clipping of the coefficients.  The SPA authors' MATLAB multi-class BOGD
    (multiclass/BOGD.m) removes the *oldest* SV without the B/(B-1) rescaling; we follow the paper's uniform,
    unbiased removal, as the binary learner does.  Needs B >= 2 and eta*lam < 1.
    """

    name = "mc_bogd"
    display = "MC-BOGD"
    stochastic = True
    style = ("green", "h", "--")
    params = BOGD_PARAMS

    check_params = classmethod(check_shrinkage)

    def step(self, i, y):
        self.t += 1
        y = int(y)
        pool = self.pool
        s = self.class_scores(i)
        p = predicted_class(s)
        loss, r = hinge_rival(s, y)
        learns = loss > 0.0
        shrink = bogd_scale(pool, self.budget, self.eta, self.lam, learns,       # a random whole row leaves
                            lambda: pool.remove(int(self.rng.integers(pool.n_sv))))
        if shrink != 1.0 and pool.n_sv:
            self.scale_all(shrink)
        if learns:
            pool.add(self.src, i, self.pair(y, r, self.eta), self.t)
            self.n_updates += 1
        return p
