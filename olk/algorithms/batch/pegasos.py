"""Kernelized Pegasos: Shalev-Shwartz, Singer & Srebro, "Pegasos: Primal Estimated sub-GrAdient SOlver for
SVM", ICML 2007 (SPA paper ref [37]); the kernelized algorithm is Figure 3 of the journal version,
Mathematical Programming 127(1), 2011.  A batch baseline of the SPA paper's Table 3 (Section 6.1.4).

Trained with one call, ``fit(X, y)`` (:class:`~olk.algorithms.common.learner.KernelExpansion` on a batch learner): T
stochastic sub-gradient steps on rows drawn with the learner's RNG.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("pegasos", kernel={"type": "gaussian", "gamma": 0.4}, lam=0.001, random_state=0)
>>> model.fit(X, y).t, model.n_sv                         # T = one epoch of draws (epochs=1)
(1000, 428)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.827
"""
from __future__ import annotations

import numpy as np

from ..common.batch import BatchKernelLearner
from ..common.learner import KernelExpansion
from ..registry import POSITIVE, Param, register


@register
class Pegasos(KernelExpansion, BatchKernelLearner):
    """Kernelized Pegasos (Shalev-Shwartz, Singer & Srebro, "Pegasos: Primal Estimated sub-GrAdient
    SOlver for SVM", ICML 2007, SPA paper ref [37]; the kernelized algorithm is Figure 3, "Pegasos
    kernelized", of the journal version, Mathematical Programming 127(1), 2011).

    Stochastic sub-gradient descent on  lam/2 |w|^2 + 1/n sum_i [1 - y_i <w, phi(x_i)>]_+  with step
    1/(lam t), written in the dual counts alpha (Figure 3)::

        alpha_1 = 0
        for t = 1..T:
            draw i_t uniformly from {1..n} (with replacement, self.rng)
            if y_{i_t} (1/(lam t)) sum_j alpha_t[j] y_j k(x_j, x_{i_t}) < 1:
                alpha_{t+1}[i_t] = alpha_t[i_t] + 1          (else unchanged)
        output  f(x) = (1/(lam T)) sum_j alpha_{T+1}[j] y_j k(x_j, x)

    Implementation: the SVs live in the shared Cython pool with coefficient alpha_j y_j (the
    1/(lam t) factor is applied to the score, never stored); a dict training row -> pool slot makes a
    repeated i_t increment its existing SV's coefficient, so ``n_sv`` = #{j : alpha_j > 0}.

    Readings we had to choose (neither the SPA paper nor Figure 3 fixes them):

    * T, the number of iterations: the SPA paper does not say how many it ran.  We use
      T = round(epochs * n) with ``epochs = 1`` by default (one pass's worth of draws; at least 1).
    * Figure 3 has no projection onto the ball of radius 1/sqrt(lam) (the optional step of the linear
      Pegasos, Figure 1) and no bias term; neither do we.
    * The SPA paper adapted the authors' code (http://www.cs.huji.ac.il/~shais/code/) and picked lam
      from {10^-3..10^3} by cross validation; our default lam = 1e-4 is only a starting point.

    The order of the training rows is ignored (the draws come from the learner's RNG), so
    ``stochastic = True`` and ``order_free = False``: repeat it over algorithm seeds, not permutations.
    """

    name = "pegasos"
    display = "Pegasos"
    style = ("purple", "v", "-.")
    stochastic = True
    order_free = False
    params = (Param("lam", 1e-4, "regularisation parameter lambda of the SVM objective", **POSITIVE),
              Param("epochs", 1.0, "iterations T = round(epochs * n_train) (at least 1)", **POSITIVE))

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self.sv_slot_: dict[int, int] = {}     # training row -> pool slot
        self.n_train_ = 0
        self._scale = 0.0                      # 1 / (lam T) of the output classifier

    def _draw(self, n: int, T: int) -> np.ndarray:
        """The T training rows i_1..i_T, uniform with replacement (override to fix them in tests)."""
        return self.rng.integers(0, n, size=T)

    def fit(self, X, y, order=None):
        """Run Figure 3 on (X, y) from alpha = 0; `order` is accepted and ignored (draws use self.rng)."""
        y = self._check_xy(X, y)
        self.pool = None                                   # a fresh model each fit
        src = self.bind(X)
        pool = self.pool
        n = src.n_rows
        T = max(1, int(round(self.epochs * n)))
        draws = np.asarray(self._draw(n, T), dtype=np.int64)
        if draws.shape != (T,) or (T and (draws.min() < 0 or draws.max() >= n)):
            raise ValueError(f"_draw must return {T} row indices in [0, {n})")
        ylist = y.tolist()
        slot = {}
        lam = self.lam
        updates = 0
        t = 0
        for i in draws.tolist():
            t += 1
            yi = ylist[i]
            if yi * pool.decision1(src, i) / (lam * t) < 1.0:     # margin of w_t on (x_i, y_i) < 1
                s = slot.get(i)
                if s is None:
                    slot[i] = pool.add(src, i, yi, t)                # alpha_i: 0 -> 1
                else:
                    pool.add_coef(s, 0, yi)                          # alpha_i += 1
                updates += 1
        self.sv_slot_ = slot
        self.t = T
        self.n_updates = updates
        self.n_train_ = n
        self.n_features_ = src.n_features
        self._scale = 1.0 / (lam * T)
        return self

    @property
    def alpha_(self) -> np.ndarray:
        """alpha_{T+1}: how many times each training row triggered an update (length n_train)."""
        a = np.zeros(self.n_train_, dtype=np.float64)
        if self.pool is not None and self.sv_slot_:
            rows = np.fromiter(self.sv_slot_.keys(), dtype=np.int64)
            slots = np.fromiter(self.sv_slot_.values(), dtype=np.int64)
            a[rows] = np.abs(self.pool.coefs[slots, 0])
        return a

    def _expansion_coefs(self) -> np.ndarray:
        """alpha_j y_j / (lam T): the 1/(lam T) factor of the output applied."""
        return self.pool.coefs * self._scale

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """f(x) = (1/(lam T)) sum_j alpha_j y_j k(x_j, x) for every row; `output` is ignored."""
        return self._pool_scores(X) * self._scale

    @property
    def n_sv(self) -> int:
        return 0 if self.pool is None else int(self.pool.n_sv)

