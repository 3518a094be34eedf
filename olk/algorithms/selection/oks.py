"""OKS: Online Kernel Selection for classification, Algorithm 2 of Yang, Mahdavi, Jin, Yi & Hoi, "Online Kernel
Selection: Algorithms and Evaluations", AAAI 2012; expected-mistake bound Theorem 3.  What it shares with Algorithm 1
(:mod:`olk.algorithms.selection.oks_convex`) -- the kernel classifiers on one shared pool, the importance-weighted
exponential weights, the sampling distribution and the selected kernel argmax q_T -- is ``OKSCore``
(:mod:`olk.algorithms.selection.oks_core`).

Each round ONE kernel i_t ~ p_t = (1 - delta) q_t + delta/m is sampled; only it is evaluated against the label
and may learn; its loss (here the mistake z) enters its weight divided by p_{i_t}, an unbiased estimate of the
loss vector (E[z_i m_i / p_i] = z_i), as in EXP3 (Auer et al. 2003).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> oks = make("oks", kernel="spa16", delta=0.5, random_state=0).partial_fit(X, y)
>>> oks.selected_kernel_, oks.kernels[oks.selected_kernel_].label()     # argmax q_T
(11, 'gaussian(gamma=0.03125)')
>>> round(float(oks.weights_.max()), 3), float((oks.predict(X_test) == y_test).mean())
(0.24, 0.799)
"""
from __future__ import annotations

from ..registry import register
from .oks_core import OKSCore


@register
class OKS(OKSCore):
    """OKS for classification (Yang et al., AAAI 2012, Algorithm 2; Theorem 3).

    Pseudo-code (Algorithm 2):
        f_1 = 0, w_1 = 1, p_1 = 1/m;  for t = 1..T:
            i_t ~ Multi(p_t);  z = I(y_t f_{i_t}(x_t) <= 0);
            w_{i_t} <- w_{i_t} exp(-eta z / p_{i_t});  f_{i_t} <- f_{i_t} + lambda y_t z k_{i_t}(x_t, .) / p_{i_t};
            q_t = w_t / sum_j w_j;  p_t = (1 - delta) q_t + delta/m
        output q_T (the selected kernel: argmax q_T)

    lambda is a pure scale here: every f_i is lambda times a function that does not depend on it, so z, w, p
    and the selection are the same for every lambda (tested); the paper tunes it anyway (for Algorithm 1 it
    matters), olk's two-stage ``oks_svm`` does not.  Readings: see ``OKSCore``.
    """

    name = "oks"
    display = "OKS"
    style = ("vermillion", "o", "--")

    def loss_and_grad(self, y, f):
        z = 1.0 if y * f <= 0.0 else 0.0
        return z, y * z
