"""OKS for a general convex loss, Algorithm 1 of Yang, Mahdavi, Jin, Yi & Hoi, "Online Kernel Selection:
Algorithms and Evaluations", AAAI 2012; expected regret bound Theorem 1, selection guarantee Corollary 2.
What it shares with Algorithm 2 (sampling, importance weights, selection) is ``OKSCore`` in
:mod:`olk.algorithms.selection.oks`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> oks1 = make("oks_convex", kernel="spa16", loss="hinge", lam=0.1, random_state=0).partial_fit(X, y)
>>> oks1.kernels[oks1.selected_kernel_].label(), float((oks1.predict(X_test) == y_test).mean())
('gaussian(gamma=0.125)', 0.792)
"""
from __future__ import annotations

from ..klr.core import expit_neg, logit_loss
from ..registry import Param, register
from .oks_core import OKSCore


@register
class OKSConvex(OKSCore):
    """OKS with a convex loss (Yang et al., AAAI 2012, Algorithm 1; Theorem 1).

    Pseudo-code (Algorithm 1):
        f_1 = 0, w_1 = 1, p_1 = 1/m;  for t = 1..T:
            i_t ~ Multi(p_t);  l = loss(f_{i_t}(x_t), y_t);
            w_{i_t} <- w_{i_t} exp(-eta l / p_{i_t});
            f_{i_t} <- f_{i_t} - lambda grad l(f_{i_t}(x_t), y_t) k_{i_t}(x_t, .) / p_{i_t};
            q_t = w_t / sum_j w_j;  p_t = (1 - delta) q_t + delta/m

    Losses: ``hinge`` max(0, 1 - y f) (subgradient -y on 1 - y f > 0, 0 otherwise: at the kink, 1 - y f = 0,
    the zero subgradient) and ``logistic`` ln(1 + e^{-y f}) (gradient -y / (1 + e^{y f}): every round
    stores an SV).  Theorem 1 assumes l <= L; eta = 'auto' is Algorithm 2's formula (L = 1), the paper
    gives no other.  Readings: see ``OKSCore``.
    """

    name = "oks_convex"
    display = "OKS (Alg. 1)"
    style = ("green", "d", "--")
    params = OKSCore.params + (
        Param("loss", "hinge", "convex loss: hinge max(0, 1 - y f) or logistic ln(1 + exp(-y f))", type=str,
              choices=("hinge", "logistic")),)

    def loss_and_grad(self, y, f):
        z = y * f
        if self.loss == "logistic":
            return logit_loss(z), y * expit_neg(z)
        loss = 1.0 - z
        return (loss, y) if loss > 0.0 else (0.0, 0.0)

