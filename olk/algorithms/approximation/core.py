"""What the functional-approximation learners ``fogd`` and ``nogd`` share (a helper module, not a learner).

Source: J. Lu, S. C. H. Hoi, J. Wang, P. Zhao & Z.-Y. Liu, "Large Scale Online Kernel Learning", JMLR 17(47),
2016: instead of bounding a kernel expansion by budget maintenance, map every example once into a fixed
finite-dimensional space z(x) whose inner products approximate the kernel, z(x)'z(x') ~ k(x, x'), and run
*linear* online gradient descent there:

    f_t(x) = w_t' z(x),     w_{t+1} = w_t - eta * dl(f_t(x_t), y_t)/df * z(x_t)

(Algorithm 1, FOGD: random Fourier features; Algorithm 2, NOGD: the Nystrom map of a budget of B support
vectors).  Both learn with a loss l(f, y) through its slope in f only (``loss_slope``), so the update is
"w <- w + eta * s * z(x_t)" with s = -dl/df:

* ``hinge``     l = max(0, 1 - y f):        s = y if y f < 1 else 0 (the authors' code, binary/FouGD.m and
  NysGD.m of github jingcoco/Online-Kernel-Learning: ``if Y(id)*f_t < 1, w = w + eta*y_t*nx_t'``);
* ``logistic``  l = log(1 + exp(-y f)):    s = y / (1 + exp(y f)) (every example updates), computed without
  overflow for any |f|.

>>> from olk.algorithms.approximation.core import loss_slope
>>> loss_slope("hinge", 1.0, 0.5), loss_slope("hinge", -1.0, -1.0), loss_slope("logistic", 1.0, 0.0)
(1.0, 0.0, 0.5)
>>> loss_slope("logistic", -1.0, 800.0), loss_slope("logistic", 1.0, 800.0) > 0.0      # no overflow
(-1.0, False)
"""
from __future__ import annotations

import math

from ..registry import POSITIVE, Param, Reproducibility

#: the losses the linear OGD step can take, by name (``loss`` parameter)
LOSSES = ("hinge", "logistic")

LOSS = Param("loss", "hinge", "the loss of the OGD step: hinge = max(0, 1 - y f) (the paper's experiments, "
             "the authors' code) | logistic = log(1 + exp(-y f))", type=str, choices=LOSSES)
ETA = Param("eta", 0.2, "step size eta of the OGD step (the authors' code: 0.2 for NOGD; tune it per data set)",
            **POSITIVE)

APPROX_REPRODUCIBILITY = Reproducibility(
    exact=False, mistakes=3, accuracy=0.05, n_sv=0.0,
    reason="numpy's BLAS (the D x d frequency products, the k x B Nystrom products) and LAPACK (NOGD's "
    "eigendecomposition), libm's sin/cos: last-bit differences between hosts can flip a margin test; "
    "bit-identical on one machine")


def loss_slope(loss: str, y: float, f: float) -> float:
    """s = -dl(f, y)/df of `loss` at score f for label y in {-1, +1}: the OGD step is w <- w + eta s z(x)."""
    if loss == "hinge":
        return y if y * f < 1.0 else 0.0
    m = y * f                                     # logistic: y * sigma(-m) = y / (1 + e^m)
    if m > 0.0:
        e = math.exp(-m)                          # underflows to 0.0 for large m, never overflows
        return y * e / (1.0 + e)
    return y / (1.0 + math.exp(m))


__all__ = ["APPROX_REPRODUCIBILITY", "ETA", "LOSS", "LOSSES", "loss_slope"]
