"""Multi-class Randomized Budget Perceptron (RBP): Cavallanti, Cesa-Bianchi & Gentile, "Tracking the best
hyperplane with a simple budget Perceptron", Machine Learning 69(2-3), 2007 (SPA paper ref [4]), on the
multi-class max-score Perceptron (:mod:`olk.algorithms.multiclass.mc_perceptron`).

On a mistake with B SVs, one SV drawn uniformly at random is discarded from every class first.  The SPA
authors' MATLAB toolbox has the same multi-class RBP (multiclass/RBP.m).

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> centres = np.array([[0.0, 1.5], [1.5, -1.0], [-1.5, -1.0]])     # three overlapping Gaussian blobs
>>> y = rng.integers(0, 3, 600); X = centres[y] + rng.normal(size=(600, 2))
>>> model = make("mc_rbp", kernel={"type": "gaussian", "gamma": 0.5}, budget=20, random_state=0)
>>> model.partial_fit(X[:400], y[:400]).n_sv, model.n_updates        # B SVs kept; one update per mistake
(20, 87)
>>> float((model.predict(X[400:]) == y[400:]).mean())
0.72
"""
from __future__ import annotations

from ...tasks import predicted_class
from ..budget.core import budget_param
from ..registry import register
from .core import MulticlassKernelLearner


@register
class MulticlassRBP(MulticlassKernelLearner):
    """Multi-class RBP — Cavallanti et al., Machine Learning 2007, on the max-score Perceptron; SPA ref [4].

    The multi-class kernel Perceptron (Crammer & Singer 2003) whose SV set S is capped at B by random
    discarding; an SV is one pool row, i.e. the same x_s in every class's score function::

        on a mistake (y^_t = argmax_c s_c(x_t) != y_t):
            if |S| = B:  pick r uniformly at random in S;  S <- S \\ {r}   (its coefficients in all K classes)
            s_{y_t} += k(x_t, .),   s_{y^_t} -= k(x_t, .)

    In Kesler's construction (:mod:`olk.algorithms.multiclass.core`) this is binary RBP on z_t = (e_{y_t} -
    e_{y^_t}) (x) k(x_t, .).  Readings: the SV dropped is drawn from the B current SVs (never the new one) with
    one draw ``rng.integers(B)`` over the pool's slots; mistakes as the ``multiclass`` task counts them (ties go
    to the smallest class index).
    """

    name = "mc_rbp"
    display = "MC-RBP"
    stochastic = True
    style = ("skyblue", ">", "--")
    params = (budget_param(1),)

    def step(self, i, y):
        self.t += 1
        y = int(y)
        pool = self.pool
        p = predicted_class(self.class_scores(i))
        if p != y:
            if pool.n_sv >= self.budget:
                pool.remove(int(self.rng.integers(pool.n_sv)))
            pool.add(self.src, i, self.pair(y, p, 1.0), self.t)
            self.n_updates += 1
        return p
