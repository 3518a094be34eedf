"""MuTron: the cross-validation baseline of Yang et al., "Online Kernel Selection: Algorithms and Evaluations",
AAAI 2012 (Tables 1 and 2, column "MuTron"): a kernel Perceptron per kernel, the kernel chosen by validation
accuracy, its Perceptron the returned classifier (footnote 5).  One epoch.  Protocol:
:mod:`olk.algorithms.selection.core`.

The m Perceptrons learn at once on the shared SV pool (``omkc_dd`` with discount 1: each column is one
kernel's Perceptron, bit for bit; an example several of them err on is stored once).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:600], d.y[:600], d.X[1000:], d.y[1000:]
>>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
>>> m = make("mutron", kernel=kernels).fit(X, y)
>>> m.run_summary()["selected_label"], float((m.predict(X_test) == y_test).mean())
('linear', 0.786)
"""
from __future__ import annotations

import time

import numpy as np

from ..multikernel.omkc_dd import OMKCDD
from ..registry import register
from ..single.perceptron import KernelPerceptron
from .core import KernelSelection, run_epochs


@register
class MuTron(KernelSelection):
    """MuTron (Yang et al., AAAI 2012): m kernel Perceptrons, the best on the validation set is returned.

    One pass of every kernel's Perceptron over the training rows outside the validation set (the run's
    order); the kernel whose Perceptron is most accurate on the validation set wins (ties: fewer online
    mistakes in that pass, then the first kernel); its
    Perceptron is then trained by one pass over all training rows.  The paper adds a tuned step size to the
    Perceptron (footnote 3); a kernel Perceptron without bias only scales with it (its mistakes do not change),
    so no step size is tuned.
    """

    name = "mutron"
    display = "MuTron"
    style = ("vermillion", "^", "-")
    online_output = True
    widens = True               # its returned online learner's pool widens to wider rows

    def fit(self, X, y, order=None):
        y, tr, va = self.start(X, y)
        order = np.arange(len(y)) if order is None else np.asarray(order)
        t0 = time.perf_counter()
        sub = order[np.isin(order, tr)]
        every = run_epochs(OMKCDD(kernel=self.kernels, discount=1.0), X, y, sub, [None])
        acc = np.mean(np.where(every.classifier_scores(X[va]) > 0, 1.0, -1.0) == y[va][:, None], axis=0)
        self.validation_accuracy_ = acc
        mistakes = every.mistakes_per_kernel_
        k = max(range(len(acc)), key=lambda j: (acc[j], -mistakes[j], -j))
        self._online = run_epochs(KernelPerceptron(kernel=self.kernels[k]), X, y, order, [None])
        self.select_time_s_ = time.perf_counter() - t0
        self.selected_kernel_ = k
        self.kernel_weights_ = np.eye(len(self.kernels))[k]
        return self
