"""Kernel online gradient descent for regression (squared loss, L2 regularisation): NORMA's regression case,
Kivinen, Smola & Williamson, "Online learning with kernels", IEEE Trans. Signal Processing 52(8), 2004
(NORMA with the squared loss), as the exact-kernel single-kernel baselines of the AMKL paper's Table II
(Hong & Chae, "Active learning with multiple kernels", arXiv 2005.03188 / IEEE TNNLS 2022;
../shared/spec/amkl_raker.md Section 5 "Benchmarks").

    f_1 = 0;   for t = 1..T:  predict f_t(x_t), then
    f_{t+1} = (1 - eta lam) f_t - eta 2 (f_t(x_t) - y_t) k(x_t, .),      eta = 1/sqrt(T), lam = 0.01,

the functional gradient of (f(x_t) - y_t)^2 + lam/2 ||f||_H^2 (spec Section 5: "exact-kernel online
functional-gradient learners (growing support set), squared loss, lambda = 0.01, step 1/sqrt(T)"; the AMKL
authors' ``test_single_kernel.m``: ``all_step = 1/sqrt(T)``, ``all_lambda = 0.01``).

The Table II rows are this learner with different kernels (config label -> ``kernel:`` entry):

=============  =============================  ===================================================================
Table II row   config label                   kernel
=============  =============================  ===================================================================
KL-RBF(0.1)    ``kl_rbf`` (sigma = 0.1)       ``{type: gaussian, gamma: 50}``      exp(-||x-x'||^2 / (2 sigma^2))
KL-RBF(1)      ``kl_rbf`` (sigma = 1)         ``{type: gaussian, gamma: 0.5}``     gamma = 1 / (2 sigma^2)
KL-RBF(10)     ``kl_rbf`` (sigma = 10)        ``{type: gaussian, gamma: 0.005}``
POLY2          ``poly2``                      ``{type: polynomial, degree: 2, coef0: 0}``   (x.x')^2  (b = 0)
POLY3          ``poly3``                      ``{type: polynomial, degree: 3, coef0: 0}``   (x.x')^3  (b = 0)
LINEAR         ``linear``                     ``{type: linear}``                             x.x'
=============  =============================  ===================================================================

(olk's polynomial default is coef0 = 1: the POLY rows must say ``coef0: 0``, spec Section 5's b = 0.)

The (1 - eta lam) shrink costs O(1): f_t = sigma_t sum_s b_s k(x_s, .) with raw coefficients b_s stored in the
pool and one global scale sigma (the device of :mod:`~olk.algorithms.common.projected`); a shrink multiplies sigma, a
new SV stores b = a / sigma, and sigma is folded into the stored coefficients (``pool.scale_col``; sigma = 1)
when it falls below ``renormalise_below``, which leaves f unchanged.  What it shares with
``omkr`` is ``KernelRegressionCore`` (:mod:`olk.algorithms.regression.core`).

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1.0, 1.0, size=(400, 2))
>>> y = 0.5 + 0.4 * X[:, 0] * X[:, 1] + 0.05 * rng.normal(size=400)     # a small synthetic regression stream
>>> paper = dict(step_size="sqrt_T", standardize_y=False)                # the spec's step 1/sqrt(T), y as it is
>>> model = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.5}, **paper)   # KL-RBF(sigma = 1)
>>> model.partial_fit(X[:300], y[:300]).n_sv, model.horizon_, round(model.eta_, 5)   # eta = 1/sqrt(300)
(300, 300, 0.05774)
>>> round(float(np.var(y[300:])), 4), round(float(np.mean((model.predict(X[300:]) - y[300:]) ** 2)), 4)
(0.0229, 0.009)
>>> d = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.5})     # olk's defaults: anytime step, standardised y
>>> d.learn_one(X[0], 40.0).predict_one(X[0]) == 40.0                 # a stream of unknown length, targets near 40
True
>>> round(float(np.mean((d.partial_fit(X[1:300], y[1:300] + 40.0).predict(X[300:]) - y[300:] - 40.0) ** 2)), 4)
0.0055
>>> p = make("kogd_reg", kernel={"type": "gaussian", "gamma": 0.5}, **paper).partial_fit(X[:300], y[:300] + 40.0)
>>> round(float(np.mean((p.predict(X[300:]) - y[300:] - 40.0) ** 2)), 1)    # the paper's, from f = 0, on y ~ 40
11.5
"""
from __future__ import annotations

from ..registry import register
from .core import HORIZON, LAM, STANDARDIZE_Y, STEP_SCALE, STEP_SIZE, KernelRegressionCore


@register
class KernelOGDRegression(KernelRegressionCore):
    """Kernel OGD for regression (Kivinen, Smola & Williamson, IEEE TSP 2004, NORMA with the squared loss; the
    AMKL paper's Table II single-kernel rows KL-RBF / POLY2 / POLY3 / LINEAR, spec Section 5).

    For t = 1..T:  predict f_t(x_t);  f_{t+1} = (1 - eta lam) f_t - eta 2 (f_t(x_t) - y_t) k(x_t, .).

    Readings (spec Section 5 and what the papers leave open):

    * loss (f(x) - y)^2 with gradient 2 (f(x) - y) k(x, .) (the factor 2 kept, as in the spec's Raker update
      and the AMKL authors' code; Ghari-Shen's OMKR drops it);  regulariser lam/2 ||f||_H^2 (NORMA's
      convention), i.e. the shrink 1 - eta lam with lam = 0.01, applied to f_t before the new term is added
      (NORMA's order).  (The spec's Raker writes lam ||theta||^2, whose gradient would shrink by 1 - 2 eta lam;
      with eta lam ~ 1e-4 the two differ negligibly; the update above is the one implemented);
    * eta = 1/sqrt(T) every round (``step_size=sqrt_T``, what the reproduction configs state), T = ``horizon``
      or, when 0, the rows of the data the first update sees (the engine's stream length; further
      ``partial_fit`` calls and passes keep it); ``step_size=sqrt_t`` gives eta_t = 1/sqrt(t); olk's default
      ``step_size=auto`` is 1/sqrt(horizon), or with no horizon the anytime 1/sqrt(t)
      (:mod:`olk.algorithms.common.regressor` derives it), so a stream of unknown length (``learn_one``) works;
    * targets as they are (``standardize_y=False``, the spec); olk's default learns the running standardisation
      (y - m)/s and predicts m + s f (:mod:`olk.algorithms.common.regressor`);
    * growing support set: every round with f_t(x_t) != y_t stores x_t (no budget); ``n_updates`` counts them;
    * the Table II rows are kernels of this learner (module docstring); POLY's b = 0 (spec, INFERRED).
    """

    name = "kogd_reg"
    display = "Kernel OGD (regression)"
    style = ("black", "s", "-")
    max_kernels = 1
    params = (LAM, HORIZON, STEP_SIZE, STEP_SCALE, STANDARDIZE_Y)

    def step(self, i, y):
        self.t += 1
        f = self._sigma * self.pool.decision1(self.src, i)       # predict first ...
        y_hat = self.targets.out(f)                               # (in y's units: m + s f, standardize_y)
        y = self.targets.learn(y)                                 # ... then learn (y, or (y - m)/s)
        eta = self._eta()
        self.eta_ = eta
        self._sigma *= 1.0 - eta * self.lam                       # f <- (1 - eta lam) f: O(1)
        a = -2.0 * eta * (f - y)                                  # f <- f + a k(x_t, .)
        if a != 0.0:
            self.pool.add(self.src, i, a / self._sigma, self.t)
            self.n_updates += 1
        if self._sigma < self.renormalise_below:
            self._fold()
        return y_hat

    def run_summary(self) -> dict:
        """The T and eta the run used."""
        return {"horizon": self.horizon_, "eta": self.eta_}
