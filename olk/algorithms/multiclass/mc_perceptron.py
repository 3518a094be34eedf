"""Multi-class kernel Perceptron with the max-score update: Crammer & Singer, "Ultraconservative online
algorithms for multiclass problems", JMLR 3, 2003 (SPA paper ref [12]), kernelized on olk's SV pool.

One prototype (score function) per class; on a mistake the true class's prototype gains +k(x_t, .) and the
predicted (highest-scoring wrong) class's loses k(x_t, .): the additive ultraconservative update with all of
its weight on the single top-scoring wrong class.  No budget: #SV = #mistakes.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> centres = np.array([[0.0, 1.5], [1.5, -1.0], [-1.5, -1.0]])     # three overlapping Gaussian blobs
>>> y = rng.integers(0, 3, 600); X = centres[y] + rng.normal(size=(600, 2))
>>> model = make("mc_perceptron", kernel={"type": "gaussian", "gamma": 0.5})
>>> model.partial_fit(X[:400], y[:400]).n_sv                   # one SV per mistake
79
>>> model.classes_.tolist(), float((model.predict(X[400:]) == y[400:]).mean())
([0, 1, 2], 0.78)
"""
from __future__ import annotations

from ...tasks import predicted_class
from ..registry import register
from .core import MulticlassKernelLearner


@register
class MulticlassPerceptron(MulticlassKernelLearner):
    """Multi-class kernel Perceptron, max-score update (Crammer & Singer, JMLR 2003; SPA ref [12]).

    Scores s_c(x) = sum_s W[s, c] k(x_s, x), c = 0..K-1; predict y^_t = argmax_c s_c(x_t) (ties: the smallest
    class index)::

        on a mistake (y^_t != y_t):  s_{y_t} <- s_{y_t} + k(x_t, .),   s_{y^_t} <- s_{y^_t} - k(x_t, .)

    i.e. x_t becomes one SV with coefficient +1 in column y_t and -1 in column y^_t (on a mistake y^_t is the
    highest-scoring wrong class).  In Kesler's construction (:mod:`olk.algorithms.multiclass.core`) this is the
    binary kernel Perceptron on z_t = (e_{y_t} - e_{y^_t}) (x) k(x_t, .), whose mistake bound carries over.  The
    SPA authors' MATLAB code (multiclass/perceptron.m) and LIBOL (M_PerceptronM.m) make the same update.
    """

    name = "mc_perceptron"
    display = "MC-Perceptron"
    style = ("black", "8", "-")

    def step(self, i, y):
        self.t += 1
        y = int(y)
        p = predicted_class(self.class_scores(i))
        if p != y:
            self.pool.add(self.src, i, self.pair(y, p, 1.0), self.t)
            self.n_updates += 1
        return p
