"""Kernel Perceptron: Rosenblatt 1958, kernelized as in Freund & Schapire, "Large margin classification
using the perceptron algorithm", Machine Learning 37(3), 1999 (SPA paper ref [17]).

On a mistake (y_t f_t(x_t) <= 0):  f_{t+1} = f_t + y_t k(x_t, .); otherwise f_{t+1} = f_t.  No budget:
#SV = #mistakes.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("perceptron", kernel={"type": "gaussian", "gamma": 0.4})
>>> model.partial_fit(X, y).n_sv                          # one SV per mistake
231
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.804
"""
from __future__ import annotations

from ..common.learner import OnlineKernelLearner
from ..registry import register


@register
class KernelPerceptron(OnlineKernelLearner):
    """Kernel Perceptron (Rosenblatt 1958; kernelized as in Freund & Schapire 1999, SPA paper ref [17]).

    On a mistake (y_t f_t(x_t) <= 0):  f_{t+1} = f_t + y_t k(x_t, .).
    """

    name = "perceptron"
    display = "Perceptron"
    style = ("black", "o", "-")

    def step(self, i, y):
        self.t += 1
        f = self.pool.decision1(self.src, i)
        if y * f <= 0.0:
            self.pool.add(self.src, i, y, self.t)
            self.n_updates += 1
        return f
