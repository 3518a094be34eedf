"""Randomized Budget Perceptron (RBP): Cavallanti, Cesa-Bianchi & Gentile, "Tracking the best hyperplane
with a simple budget Perceptron", Machine Learning 69(2-3), 2007 (SPA paper ref [4]).

A kernel Perceptron whose SV set is capped at B: on a mistake with B SVs, one SV drawn uniformly at
random is discarded first.  Shared budget conventions and the reference implementations checked
against: :mod:`olk.algorithms.budget.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("rbp", kernel={"type": "gaussian", "gamma": 0.4}, budget=50, random_state=0)
>>> model.partial_fit(X, y).n_sv, model.n_updates         # B SVs kept; one update per mistake
(50, 256)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.739
"""
from __future__ import annotations

from ..common.learner import OnlineKernelLearner
from ..registry import register
from .core import budget_param, discard_random, purge


@register
class RBP(OnlineKernelLearner):
    """Randomized Budget Perceptron — Cavallanti et al., Machine Learning 2007: drop a random SV when full.

    Cavallanti, Cesa-Bianchi & Gentile, "Tracking the best hyperplane with a simple budget Perceptron",
    Machine Learning 69 (2007); SPA ref [4].

    Kernel Perceptron whose SV set is capped at B by random discarding::

        on a mistake (y_t f_t(x_t) <= 0):
            if |S| = B:  pick r uniformly at random in S;  S <- S \\ {r}
            f_{t+1} = f_t (without r) + y_t k(x_t, .)

    Readings: a mistake is y_t f_t(x_t) <= 0, as in olk's Perceptron and the Forgetron (so f = 0
    triggers an update whatever y_t is); the SV to drop is drawn from the B current SVs (never the new
    one), with ``self.rng`` (seeded per run by the engine).
    """

    name = "rbp"
    display = "RBP"
    aliases = ("randomized_budget_perceptron",)
    stochastic = True
    style = ("skyblue", "<", "--")
    params = (budget_param(1),)

    def step(self, i, y):
        self.t += 1
        pool = self.pool
        f = pool.decision1(self.src, i)
        if y * f <= 0.0:
            if pool.n_sv >= self.budget:
                purge(pool, [discard_random(pool, 0, self.rng)])
            pool.add(self.src, i, y, self.t)
            self.n_updates += 1
        return f
