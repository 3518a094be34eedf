"""Raker: random-feature online multi-kernel regression, as the baseline of S. Hong & J. Chae, "Active Learning
with Multiple Kernels", IEEE TNNLS 2022 (arXiv 2005.03188), eqs. (14)-(22) and the parameters (56)-(57); the
algorithm is Y. Shen, T. Chen & G. B. Giannakis, "Random Feature-based Online Multi-kernel Learning in
Environments with Unknown Dynamics", JMLR 20 (2019).  The formulas follow ``../shared/spec/amkl_raker.md``
Section 2 (the paper text lost its equations); the random features and the shared core are in
:mod:`olk.algorithms.random_features.core`.

A small synthetic stream (3,000 rows, so that eta_l D < 1 with the literal eq. 57 steps):

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> X = rng.random((3000, 3))
>>> y = 0.5 + 0.3 * np.sin(4 * X[:, 0]) + 0.2 * X[:, 1] ** 2 + 0.02 * rng.standard_normal(3000)
>>> paper = dict(step_size="sqrt_T", standardize_y=False)     # eq. (57)'s step 1/sqrt(T), y as it is
>>> m = make("raker", kernel="amkl17", random_state=0, **paper)        # 17 Gaussians, D = 50, eta = 1/sqrt(3000)
>>> m.bind(X).shape
(3000, 3)
>>> err = [(m.step(i, y[i]) - y[i]) ** 2 for i in range(3000)]    # predict, then learn
>>> round(float(np.var(y)), 3), round(float(np.mean(err)), 3), round(float(np.mean(err[-1000:])), 4)
(0.029, 0.015, 0.0035)
>>> m.n_updates, m.n_sv, m.kernel_evals, len(m.run_summary()["kernel_weights"])
(3000, 0, 0, 17)
>>> m.kernels[int(np.argmax(m.weights_))].label()             # the heaviest kernel: sigma = 10^-0.5
'gaussian(gamma=5)'
>>> d = make("raker", kernel="amkl17", random_state=0)        # olk's defaults: the anytime step, standardised y
>>> _ = d.bind(X); err = [(d.step(i, y[i]) - y[i]) ** 2 for i in range(3000)]
>>> round(float(np.mean(err)), 3), round(float(np.mean(err[-1000:])), 4)
(0.003, 0.0015)
"""
from __future__ import annotations

from ..registry import register
from .core import RandomFeatureMKL


@register
class Raker(RandomFeatureMKL):
    """Raker (Shen, Chen & Giannakis, JMLR 2019), as in Hong & Chae (TNNLS 2022) eqs. (14)-(22), (57).

    Pseudo-code (spec Section 2; INFERRED updates from Raker and the authors' code):
        theta_1,k = 0, w_1,k = 1;  for t = 1..T:
            z_k = [sin(V_k x_t); cos(V_k x_t)];  f_k = theta_k' z_k                      (16)
            q_k = w_k / sum_j w_j;  predict y_hat = sum_k q_k f_k                       (19)-(22)
            theta_k <- theta_k - eta_l (2 (f_k - y_t) z_k + 2 lambda theta_k)   all k   (17)-(18)
            w_k <- w_k exp(-eta_g (f_k - y_t)^2)                                all k   (21)
    with D = 50, eta_l = eta_g = 1/sqrt(T), lambda = 0.01 (57); weights kept as logs.  Readings (feature map
    without 1/sqrt(D), the ``authors`` sampler, the unregularised weight loss, the stability note and
    ``eta_cap``): :class:`~olk.algorithms.random_features.RandomFeatureMKL`.
    """

    name = "raker"
    display = "Raker"
    style = ("blue", "o", "--")

    def step(self, i, y):
        self.t += 1
        Z = self._features(i)
        f = self._outputs(Z)                    # f_t,k(x_t), every kernel
        y_hat = self.targets.out(float(self.weights_ @ f))     # predict before seeing y_t (in y's units)
        self._update(Z, f, y)                    # local OGD + global exponential weights, every kernel
        return y_hat
