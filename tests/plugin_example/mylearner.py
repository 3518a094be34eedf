"""A margin Perceptron with a random-removal budget: the example plugin of olk's guide "Write your own learner".

The margin Perceptron (Krauth & Mezard 1987) learns from every example within a margin; RBP's rule (Cavallanti,
Cesa-Bianchi & Gentile, Machine Learning 69, 2007) keeps at most B support vectors by dropping one drawn uniformly
at random::

    if y_t f_t(x_t) <= margin:
        if |S| = B:  drop a support vector drawn uniformly at random from S
        f_{t+1} = f_t + y_t k(x_t, .)

margin = 0 is RBP; an unbounded budget is the margin Perceptron.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                    # olk's bundled sample: 2,000 rows, 123 features
>>> model = make("margin_random_budget", kernel={"type": "gaussian", "gamma": 0.4}, margin=0.2, budget=50,
...              random_state=0)
>>> model.partial_fit(d.X[:1000], d.y[:1000]).n_sv, model.n_updates     # B SVs kept
(50, 784)
>>> float((model.predict(d.X[1000:]) == d.y[1000:]).mean())              # accuracy on the other 1,000 rows
0.787
"""
from olk.algorithms import OnlineKernelLearner, Param, register


@register
class MarginRandomBudget(OnlineKernelLearner):
    """Margin Perceptron with a random-removal budget: learn when y f(x) <= margin, drop a random SV when full."""

    name = "margin_random_budget"
    display = "MRB"
    stochastic = True                   # draws from self.rng: the engine seeds it per run
    style = ("#17becf", "x", "-")       # (colour, marker, line): any matplotlib colour
    params = (Param("margin", 0.0, "learn when y f(x) <= margin", check=lambda v: v >= 0, requirement=">= 0"),
              Param("budget", 100, "maximum number of support vectors B", type=int, check=lambda v: v >= 1,
                    requirement=">= 1", symbol="B"))

    def step(self, i, y):
        self.t += 1
        pool = self.pool
        f = pool.decision1(self.src, i)             # predict first ...
        if y * f <= self.margin:                    # ... then learn
            if pool.n_sv >= self.budget:
                pool.remove(int(self.rng.integers(pool.n_sv)))
            pool.add(self.src, i, y, self.t)
            self.n_updates += 1
        return f
