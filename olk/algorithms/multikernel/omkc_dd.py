"""OMKC(DD): online multiple kernel classification with Deterministic update and Deterministic combination,
Hoi, Jin, Zhao & Yang, "Online multiple kernel classification", Machine Learning 90(2), 2013 (SPA paper
ref [20]); the same algorithm as Algorithm 1 ("DA for OMKL-P") of Jin, Hoi & Yang, "Online multiple kernel
learning: algorithms and mistake bounds", ALT 2010.  The unbounded "DD" baseline of the SPA paper's Table 5
(Lu et al., TIST 2018, Section 6.2.3; Algorithm 3 without the budget step; parameters of Section 6.2.4).

One kernel Perceptron f_i per kernel k_i of the learner's :class:`~olk.kernels.KernelSet` (one coefficient
column each, all m columns on ONE shared SV pool: an example several classifiers err on is stored once,
with its coefficient y_t in each erring classifier's column and 0 in the others), combined by a Hedge-weighted
vote of their signs:

    y_hat_t = sign(sum_i theta_i sign(f_i(x_t))),   z_i = I(y_t f_i(x_t) <= 0),
    f_i <- f_i + z_i y_t k_i(x_t, .),   theta_i <- theta_i gamma^{z_i},   theta <- theta / sum_j theta_j.

The SPA paper's other deterministic-update rows are parameter settings of this learner:
``component='pa'`` gives "DDPA" (each f_i learned by PA-I with tau_i = min(eta, l_i / k_i(x_t, x_t)) on every
margin error, eta = 0.1) and ``discount=1`` gives "U" (theta frozen at 1/m: the uniform vote).  (One
registered learner per update type: olk's plots offer a distinct marker for two more learners only.)
The core every OMKC row shares is ``OMKCCore`` (:mod:`olk.algorithms.multikernel.core`).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> from olk.kernels import KernelSet
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("omkc_dd", kernel=KernelSet.preset("spa16"))   # the SPA paper's 16 kernels
>>> model.partial_fit(X, y).n_sv_output, model.n_sv       # SVs summed over the 16 classifiers; stored once
(5705, 989)
>>> int(model.weights_.argmax()), model.kernels[int(model.weights_.argmax())].label()
(10, 'gaussian(gamma=0.125)')
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.812
>>> ddpa = make("omkc_dd", kernel=KernelSet.preset("spa16"), component="pa", eta=0.1).partial_fit(X, y)
>>> ddpa.n_sv_output, float((ddpa.predict(X_test) == y_test).mean())      # the paper's "DDPA"
(12277, 0.821)
>>> u = make("omkc_dd", kernel=KernelSet.preset("spa16"), discount=1.0).partial_fit(X, y)
>>> u.n_sv_output, float((u.predict(X_test) == y_test).mean())            # the paper's "U"
(5705, 0.812)
"""
from __future__ import annotations

from ..registry import register
from .core import COMBINE, COMPONENT, DISCOUNT, ETA, OMKCCore


@register
class OMKCDD(OMKCCore):
    """OMKC(DD) (Hoi, Jin, Zhao & Yang, Machine Learning 2013; SPA ref [20]; SPA Table 5 row "DD").

    Deterministic update, deterministic combination.  For t = 1..T, with theta_1 = 1/m:
        predict sign(sum_i theta_i sign(f_i(x_t)));  z_i = I(y_t f_i(x_t) <= 0);
        f_i <- f_i + z_i y_t k_i(x_t, .) (kernel Perceptron);  theta_i <- theta_i discount^{z_i};  theta /= sum theta.
    Each f_i is exactly the kernel Perceptron on k_i alone.  ``component='pa'``: f_i <- f_i + tau_i y_t k_i(x_t, .)
    with tau_i = min(eta, l_i / k_i(x_t, x_t)) whenever l_i = [1 - y_t f_i(x_t)]_+ > 0 (SPA Table 5 "DDPA");
    ``discount=1``: theta stays 1/m (SPA Table 5 "U"); ``combine='real'``: predict sign(sum_i theta_i f_i(x_t))
    (``vote_plus``: sign(0) = +1; see ``COMBINE``).  Readings: see ``OMKCCore``.
    """

    name = "omkc_dd"
    display = "OMKC(DD)"
    style = ("blue", "H", "-")
    params = (DISCOUNT, COMPONENT, ETA, COMBINE)
