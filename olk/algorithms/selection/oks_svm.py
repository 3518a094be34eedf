"""OKS-SVM: the two-stage method of Yang et al., "Online Kernel Selection: Algorithms and Evaluations", AAAI
2012 (Tables 1 and 2, column "OKS-SVM"): OKS (Algorithm 2, :mod:`olk.algorithms.selection.oks`) selects a kernel in two
epochs over the training set, then LIBSVM is trained on the selected kernel.  Protocol:
:mod:`olk.algorithms.selection.core`.

>>> import numpy as np
>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:600], d.y[:600], d.X[1000:], d.y[1000:]
>>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
>>> m = make("oks_svm", kernel=kernels, random_state=1).fit(X, y)
>>> m.run_summary()["selected_label"], m.C_, float((m.predict(X_test) == y_test).mean())
('gaussian(gamma=0.05)', 0.25, 0.784)
"""
from __future__ import annotations

import time

import numpy as np

from ..registry import Param, register
from .core import KernelSelection, run_epochs
from .oks import OKS

DELTAS = (Param("delta1", 0.5, "OKS's smoothing delta in the first epoch (the paper: 0.5)",
                check=lambda v: 0.0 < v < 1.0, requirement="in (0, 1)"),
          Param("delta2", 0.2, "OKS's smoothing delta in the second epoch (the paper: 0.2)",
                check=lambda v: 0.0 < v < 1.0, requirement="in (0, 1)"),
          Param("epochs", 2, "passes of the online stage over the training set (the paper: 2; from the second "
                "on, delta2)", type=int, check=lambda v: v >= 1, requirement=">= 1"))


@register
class OKSSVM(KernelSelection):
    """OKS-SVM (Yang et al., AAAI 2012, Empirical Studies): select with OKS, then LIBSVM on that kernel.

    Stage 1: OKS Algorithm 2 on the training rows in the run's order, ``epochs`` passes (delta1, then delta2),
    eta = sqrt(2 (1 - delta) ln m / (m T)) with T = epochs x n (Theorem 3's value, "eta set to its optimal
    value"); the selected kernel is argmax q_T.  Stage 2: C in 2^[-10:10] on the validation set, SVC on all
    training rows.  The paper also tunes lambda on the validation set; in Algorithm 2 lambda only scales every
    f_i (the mistakes, weights and selection do not depend on it, see ``oks``), so it is not tuned here.
    """

    name = "oks_svm"
    display = "OKS-SVM"
    style = ("grey", "D", "-")
    stochastic = True
    params = KernelSelection.params + DELTAS

    def fit(self, X, y, order=None):
        y, tr, va = self.start(X, y)
        order = np.arange(len(y)) if order is None else np.asarray(order)
        t0 = time.perf_counter()
        oks = OKS(kernel=self.kernels, random_state=self.random_state, delta=self.delta1,
                  horizon=self.epochs * len(y))
        run_epochs(oks, X, y, order, [self.delta1] + [self.delta2] * (self.epochs - 1))
        self.online_summary_ = oks.run_summary()
        self.select_then_svm(X, y, oks.selected_kernel_, tr, va, time.perf_counter() - t0)
        self.kernel_weights_ = oks.weights_.copy()          # q_T (the selection is its argmax)
        return self
