"""BOGD, Bounded Online Gradient Descent with uniform sampling: Zhao, Wang, Wu, Jin & Hoi, "Fast bounded
online gradient descent algorithms for scalable kernel-based online learning", ICML 2012 (SPA paper ref
[53]); the removal as in Wang, Crammer & Vucetic, "Breaking the curse of kernelization", JMLR 13, 2012
(SPA ref [45]).

Hinge-loss kernel OGD with L2 regularisation lam; with B SVs, a uniformly random SV is dropped and the
others are rescaled by B/(B-1), an unbiased estimate of the OGD step.  ``eta=0.1`` and ``lam=0.01`` are
mid-grid defaults (tune them); shared budget conventions and the reference implementations checked
against: :mod:`olk.algorithms.budget.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("bogd", kernel={"type": "gaussian", "gamma": 0.4}, budget=50, eta=1.0, lam=0.01,
...              random_state=0)
>>> model.partial_fit(X, y).n_sv, model.n_updates         # B SVs kept
(50, 962)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.814
"""
from __future__ import annotations

from ..._core.bogd import bogd_step, bogd_steps
from ..common.learner import OnlineKernelLearner
from ..common.losses import check_shrinkage, hinge
from ..registry import register
from .core import BOGD_PARAMS, bogd_scale, discard_random, purge


@register
class BOGD(OnlineKernelLearner):
    """BOGD — Zhao et al., ICML 2012: hinge-loss OGD; drop a random SV, rescale the rest by B/(B-1).

    Bounded Online Gradient Descent (uniform sampling): Zhao, Wang, Wu, Jin & Hoi, "Fast bounded online
    gradient descent algorithms for scalable kernel-based online learning", ICML 2012; also Wang,
    Crammer & Vucetic, "Breaking the curse of kernelization", JMLR 2012; SPA refs [53], [45].

    Kernel OGD on lam/2 ||f||^2 + [1 - y f(x)]_+ with step eta, kept at B SVs by an unbiased
    random removal::

        every step:  f <- (1 - eta lam) f_t                               (regulariser's gradient)
        if l_t = [1 - y_t f_t(x_t)]_+ > 0:
            if |S| < B:  f_{t+1} = (1 - eta lam) f_t + eta y_t k(x_t, .)
            else:        r ~ Uniform(S)
                         f_{t+1} = (1 - eta lam) B/(B-1) sum_{i in S, i != r} alpha_i k(x_i, .)
                                   + eta y_t k(x_t, .)

    E_r[B/(B-1) sum_{i != r} alpha_i k(x_i, .)] = f_t, so the budgeted step is an unbiased estimate of
    OGD's.  Readings: the (1 - eta lam) shrinkage also applies on steps with zero loss (it is the
    regulariser's gradient; olk's OGD and the SPA authors' MATLAB BOGD do the same); the update fires on
    l_t > 0 (y_t f_t(x_t) < 1) as olk's OGD.  The SPA authors' MATLAB BOGD additionally rescales the
    coefficients to max |alpha_i| <= eta*gamma after a removal; that step is in neither the brief nor
    the SPA paper's description and is not implemented.  Needs B >= 2 (B/(B-1)) and eta*lam < 1.
    """

    name = "bogd"
    display = "BOGD"
    style = ("green", "p", "--")
    stochastic = True
    params = BOGD_PARAMS

    check_params = classmethod(check_shrinkage)

    def step(self, i, y):
        self.t += 1
        pool = self.pool
        if pool.n_cols == 1 and pool.n_kernels == 1:        # one call into the core (olk._core.bogd.bogd_step),
            f, learned = bogd_step(pool, self.src, i, y, self.eta, self.lam, self.budget, self.rng, self.t)
            self.n_updates += learned                       # bit for bit the reading of reading_step
            return f
        return self.reading_step(i, y)

    def step_rows(self, rows, ys, out) -> None:
        """The engine's stretch of rows in one call into the core (:func:`olk._core.bogd.bogd_steps`: bogd_step's
        operations row after row, tags t + 1, t + 2, ...), for the pool ``step`` hands to the core."""
        pool = self.pool
        if pool.n_cols == 1 and pool.n_kernels == 1:
            self.n_updates += bogd_steps(pool, self.src, rows, ys, self.eta, self.lam, self.budget, self.rng,
                                         self.t, out)
            self.t += rows.shape[0]
            return
        super().step_rows(rows, ys, out)

    def reading_step(self, i, y):
        """The step of the docstring's pseudo-code in Python, on the pool's calls (after ``t += 1``): what
        :func:`olk._core.bogd.bogd_step` computes in one call (tests/test_bogd_core.py holds them equal)."""
        pool = self.pool
        f = pool.decision1(self.src, i)
        learns = hinge(y, f) > 0.0
        shrink = bogd_scale(pool, self.budget, self.eta, self.lam, learns,
                            lambda: purge(pool, [discard_random(pool, 0, self.rng)]))
        if shrink != 1.0 and pool.n_sv:
            pool.scale_col(0, shrink)
        if learns:
            pool.add(self.src, i, self.eta * y, self.t)
            self.n_updates += 1
        return f
