"""OM-1: the online multiple-kernel baseline of Yang et al., "Online Kernel Selection: Algorithms and
Evaluations", AAAI 2012 (Tables 1 and 2, column "OM-1") = the deterministic OMKL of Jin, Hoi & Yang (ALT 2010,
Algorithm 1; :mod:`olk.algorithms.omkl.omkl_p1`), one epoch, its discount beta tuned on the validation set; the
returned classifier is the combined one (the paper's footnote 5), its "optimal kernel" the largest weight
(footnote 6).  Protocol: :mod:`olk.algorithms.selection.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:600], d.y[:600], d.X[1000:], d.y[1000:]
>>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
>>> m = make("om1", kernel=kernels).fit(X, y)
>>> m.run_summary()["selected_label"], m.beta_, float((m.predict(X_test) == y_test).mean())
('gaussian(gamma=0.05)', 0.9, 0.806)
"""
from __future__ import annotations

import time

import numpy as np

from ..omkl.omkl_p1 import OMKLP1
from ..registry import register
from .core import BETA_GRID, KernelSelection, run_epochs, vote_score


@register
class OM1(KernelSelection):
    """OM-1 (Yang et al., AAAI 2012): ALT 2010 Algorithm 1 for one epoch, beta tuned on the validation set.

    beta in [0.1 : 0.04 : 0.9], scored by the combined vote's validation accuracy after one pass over the
    other training rows (the run's order; ``selection.vote_score``, then the first beta); then one pass over all
    training rows.
    """

    name = "om1"
    display = "OM-1"
    style = ("orange", "<", "-")
    online_output = True
    widens = True               # its returned online learner's pool widens to wider rows

    def fit(self, X, y, order=None):
        y, tr, va = self.start(X, y)
        order = np.arange(len(y)) if order is None else np.asarray(order)
        t0 = time.perf_counter()
        sub = order[np.isin(order, tr)]
        scores = [vote_score(run_epochs(OMKLP1(kernel=self.kernels, beta=b), X, y, sub, [None]), X[va], y[va])
                  for b in BETA_GRID]
        self.beta_ = BETA_GRID[max(range(len(scores)), key=lambda j: (scores[j], -j))]
        self._online = run_epochs(OMKLP1(kernel=self.kernels, beta=self.beta_), X, y, order, [None])
        self.select_time_s_ = time.perf_counter() - t0
        self.kernel_weights_ = self._online.weights_.copy()
        self.selected_kernel_ = int(np.argmax(self.kernel_weights_))
        return self
