"""MuSVM: the cross-validation baseline of Yang et al., "Online Kernel Selection: Algorithms and Evaluations",
AAAI 2012 (Tables 1 and 2, column "MuSVM"): LIBSVM on every kernel, each with C tuned on the validation set,
the kernel of best validation accuracy returned (footnote 5).  Protocol: :mod:`olk.algorithms.selection.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:600], d.y[:600], d.X[1000:], d.y[1000:]
>>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
>>> m = make("musvm", kernel=kernels).fit(X, y)
>>> m.run_summary()["selected_label"], m.C_, float((m.predict(X_test) == y_test).mean())
('linear', 2.0, 0.813)
"""
from __future__ import annotations

import time

import numpy as np

from ..registry import register
from .core import KernelSelection


@register
class MuSVM(KernelSelection):
    """MuSVM (Yang et al., AAAI 2012): SVC per kernel, (kernel, C) chosen by validation accuracy.

    For each kernel (in order) and each C in 2^[-10:10]: SVC on the training rows outside the validation set,
    scored on the validation set (accuracy, ties broken by the hinge loss: ``selection.validation_score``); the
    best pair wins (then the first: kernel order, C order), and its SVC is retrained on all training rows.  The time
    includes computing every kernel's Gram matrix (the paper's footnote 4).  ``validation_accuracy_``: each kernel's
    best validation accuracy.
    """

    name = "musvm"
    display = "MuSVM"
    style = ("black", "*", "--")
    order_free = True

    def fit(self, X, y, order=None):
        y, tr, va = self.start(X, y)
        t0 = time.perf_counter()
        G = self.kernels.gram(X)
        tuned = [self.tune_C(G[k], y, tr, va) for k in range(len(self.kernels))]
        self.validation_accuracy_ = np.array([score[0] for _, score in tuned])
        k = max(range(len(tuned)), key=lambda j: (tuned[j][1], -j))        # best score, then the first kernel
        self.fit_svm(X, y, G[k], np.eye(len(self.kernels))[k], tuned[k][0])
        self.select_time_s_ = time.perf_counter() - t0
        self.selected_kernel_ = k
        self.kernel_weights_ = np.eye(len(self.kernels))[k]
        return self
