"""SOM-SVM: the two-stage baseline of Yang et al., "Online Kernel Selection: Algorithms and Evaluations", AAAI
2012 (Tables 1 and 2, column "SOM-SVM"): SOM, the stochastic online MKL of Jin, Hoi & Yang (ALT 2010,
Algorithm 3; :mod:`olk.algorithms.omkl.omkl_sua`), selects the kernel of largest weight after two epochs, then
LIBSVM is trained on it.  Protocol: :mod:`olk.algorithms.selection.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:600], d.y[:600], d.X[1000:], d.y[1000:]
>>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
>>> m = make("som_svm", kernel=kernels, random_state=1).fit(X, y)
>>> m.run_summary()["selected_label"], m.beta_, float((m.predict(X_test) == y_test).mean())
('linear', 0.22, 0.813)
"""
from __future__ import annotations

import time

import numpy as np

from ..omkl.omkl_sua import OMKLSUA
from ..registry import register
from .core import BETA_GRID, KernelSelection, run_epochs, vote_score
from .oks_svm import DELTAS


@register
class SOMSVM(KernelSelection):
    """SOM-SVM (Yang et al., AAAI 2012): ALT 2010 Algorithm 3 (SUA) selects argmax of its weights, then LIBSVM.

    "The same two-epoch protocol" as OKS: two passes in the run's order with the sampling smoothing delta =
    delta1 (0.5) then delta2 (0.2).  The discount beta is tuned in [0.1 : 0.04 : 0.9] on the validation set
    (SOM trained on the other training rows, scored by its own weighted vote: ``selection.vote_score``, then the
    first beta); with the chosen beta SOM runs on all training rows and its largest weight selects the kernel
    (the paper's "the best kernel of OKS and SOM is selected deterministically ... the largest value in q_T").
    """

    name = "som_svm"
    display = "SOM-SVM"
    style = ("skyblue", "s", "-")
    stochastic = True
    params = KernelSelection.params + DELTAS

    def _som(self, X, y, order, beta):
        som = OMKLSUA(kernel=self.kernels, random_state=self.random_state, beta=beta, delta=self.delta1)
        return run_epochs(som, X, y, order, [self.delta1] + [self.delta2] * (self.epochs - 1))

    def fit(self, X, y, order=None):
        y, tr, va = self.start(X, y)
        order = np.arange(len(y)) if order is None else np.asarray(order)
        t0 = time.perf_counter()
        sub = order[np.isin(order, tr)]                     # the run's order, restricted to the train rows
        scores = [vote_score(self._som(X, y, sub, b), X[va], y[va]) for b in BETA_GRID]
        self.beta_ = BETA_GRID[max(range(len(scores)), key=lambda j: (scores[j], -j))]
        som = self._som(X, y, order, self.beta_)
        self.online_summary_ = som.run_summary()
        self.select_then_svm(X, y, int(np.argmax(som.weights_)), tr, va, time.perf_counter() - t0)
        self.kernel_weights_ = som.weights_.copy()
        return self
