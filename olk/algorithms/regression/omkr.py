"""OMKR: online multiple kernel regression, Sahoo, Hoi & Li, "Online multiple kernel regression", KDD 2014,
pp. 293-302 (doi 10.1145/2623330.2623712), as the AMKL paper's Table II reads it (Hong & Chae, arXiv 2005.03188
/ IEEE TNNLS 2022, baselines "OMKL" and "OMKL-B (=50)"; ../shared/spec/amkl_raker.md Section 5 "Benchmarks").

One kernel OGD regressor f_k per kernel k of the learner's :class:`~olk.kernels.KernelSet` (the AMKL paper:
the 17 Gaussians of ``amkl17``), each exactly :mod:`~olk.algorithms.regression.kogd_reg`'s learner on its
kernel and all updated every round, on ONE shared SV pool (x_t stored once, its coefficient for kernel k in
column k), combined by Hedge weights:

    y_hat_t = sum_k q_k f_k(x_t),                     q = w / sum_j w_j,   w_1 = 1
    l_k = (f_k(x_t) - y_t)^2,   w_k <- w_k beta^{l_k}   (beta = 0.5),
    f_k <- (1 - eta lam) f_k - eta 2 (f_k(x_t) - y_t) k_k(x_t, .)   (eta = 1/sqrt(T), lam = 0.01).

``budget`` B > 0 gives "OMKL-B": each kernel keeps at most B SVs, forgetting its OLDEST one when an update
makes it B + 1 (the truncation of Kivinen, Smola & Williamson's NORMA, IEEE TSP 2004, which the AMKL paper
cites for it); a row no kernel keeps any more leaves the pool.

Config labels: ``omkl`` = ``{name: omkr, kernel: amkl17}``, ``omkl_b`` = the same with ``params: {budget: 50}``.

>>> import numpy as np
>>> from olk.algorithms import make
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1.0, 1.0, size=(300, 2))
>>> y = 0.5 + 0.4 * X[:, 0] * X[:, 1] + 0.05 * rng.normal(size=300)     # a small synthetic regression stream
>>> paper = dict(step_size="sqrt_T", standardize_y=False)               # the spec's step 1/sqrt(T), y as it is
>>> model = make("omkr", kernel="amkl17", **paper).partial_fit(X[:200], y[:200])   # the AMKL paper's 17 Gaussians
>>> model.n_sv, model.n_sv_output                        # 200 rows stored once; 17 x 200 kernel SVs
(200, 3400)
>>> [model.kernels[k].label() for k in np.argsort(model.weights_)[::-1][:2]]    # the two heaviest kernels
['gaussian(gamma=0.5)', 'gaussian(gamma=0.05)']
>>> round(float(np.mean((model.predict(X[200:]) - y[200:]) ** 2)), 4)          # held-out MSE
0.0119
>>> b = make("omkr", kernel="amkl17", budget=50, **paper).partial_fit(X[:200], y[:200])   # "OMKL-B (=50)"
>>> b.n_sv, b.sv_per_kernel_.tolist() == [50] * 17           # the 50 newest rows, kept by every kernel
(50, True)
"""
from __future__ import annotations

import math
from collections import deque

import numpy as np

from ..._core.svpool import dot, exp_array
from ..budget.core import forget, purge
from ..registry import Param, register
from .core import HORIZON, LAM, STANDARDIZE_Y, STEP_SCALE, STEP_SIZE, KernelRegressionCore

#: Hedge factor (spec Section 5: beta = 0.5, the AMKL authors' ``all_beta``)
BETA = Param("beta", 0.5, "Hedge factor: w_k <- w_k beta^{(f_k(x_t) - y_t)^2}", check=lambda v: 0.0 < v <= 1.0,
             requirement="in (0, 1]")
#: SVs per kernel (spec Section 5: OMKL-B, B = 50); 0 = unbounded (OMKL)
BUDGET = Param("budget", 0, "maximum SVs per kernel regressor (the oldest is forgotten); 0 = unbounded", type=int,
               check=lambda v: v >= 0, requirement=">= 0", symbol="B")


@register
class OMKR(KernelRegressionCore):
    """OMKR (Sahoo, Hoi & Li, KDD 2014): m kernel OGD regressors combined by Hedge; the AMKL paper's Table II
    "OMKL" (``budget=0``) and "OMKL-B (=50)" (``budget=50``) on the 17 Gaussians ``amkl17`` (spec Section 5).

    For t = 1..T, with w = 1 (q_k = 1/m):
        predict y_hat = sum_k q_k f_k(x_t);   l_k = (f_k(x_t) - y_t)^2;
        f_k <- (1 - eta lam) f_k - eta 2 (f_k(x_t) - y_t) k_k(x_t, .)   for every k;
        budget B > 0: a kernel with B + 1 SVs forgets its oldest;
        w_k <- w_k beta^{l_k};  q = w / sum_j w_j.

    Readings (spec Section 5 and where the papers leave a choice):

    * every kernel is updated every round (Sahoo et al.'s deterministic update; the spec: "each f_k by kernel
      OGD"), with kogd_reg's step: the factor 2 of the squared loss's gradient and the shrink
      1 - eta lam, lam = 0.01 (the spec's common baseline setting; Ghari-Shen's ``mkl_algorithms.py`` OMKR has
      neither: coefficient -eta (f_k - y), no shrink);
    * eta = 1/sqrt(T) (``step_size=sqrt_T``, the spec's "step 1/sqrt(T) for all baselines"; T = ``horizon`` or
      the data's rows); ``step_size=sqrt_t`` is Ghari-Shen's eta_t = 1/sqrt(t); the targets as they are
      (``standardize_y=False``).  olk's defaults, ``step_size=auto`` (the anytime step without a horizon) and
      ``standardize_y=True``, are :mod:`olk.algorithms.common.regressor`'s; the reproduction configs state the
      spec's;
    * Hedge loss: the plain squared error of kernel k's prediction made before the update (no lam ||f||^2
      term), beta = 0.5; the weights are kept as log w (log w_k += l_k ln beta, shifted so the largest is 0)
      and normalised with olk's portable exp: the same q as w / sum w without the underflow of beta^{sum l}.
      If every log-weight becomes -inf (all regressors diverged) the weights stay as they were;
    * the prediction is the convex combination sum_k q_k f_k(x_t) (not a sign), summed in kernel order;
    * budget B (Table II "OMKL-B (=50)", the AMKL paper citing Kivinen-Smola-Williamson [11]): INFERRED as
      NORMA-style truncation, per kernel: after the update, a kernel owning B + 1 SVs forgets (coefficient 0)
      its oldest (smallest insertion step); rows no kernel owns are purged from the pool at once;
    * #SV: ``n_sv_output`` = SVs summed over the m regressors (``sv_per_kernel_``, OMKC's convention), ``n_sv``
      = distinct rows in the shared pool;
    * one kernel (m = 1) is accepted: the learner is then ``kogd_reg`` itself (the same bits).
    """

    name = "omkr"
    display = "OMKR"
    style = ("purple", "p", "-")
    params = (LAM, HORIZON, STEP_SIZE, STEP_SCALE, BETA, BUDGET, STANDARDIZE_Y)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        m = len(self.kernels)
        self._ones = np.ones(m, dtype=np.float64)
        self._logw = np.zeros(m, dtype=np.float64)             # log w_k, shifted: max_k log w_k = 0
        self.weights_ = np.full(m, 1.0 / m)                    # q: the combination weights, sum 1
        self.sv_per_kernel_ = np.zeros(m, dtype=np.int64)      # SVs each regressor f_k owns
        self.sq_loss_per_kernel_ = np.zeros(m, dtype=np.float64)   # sum_t (f_k(x_t) - y_t)^2
        # budget bookkeeping: each kernel's SVs oldest first (as insertion steps = pool tags), where each lives
        self._fifo: list[deque] = [deque() for _ in range(m)]
        self._slot_of: dict[int, int] = {}                     # tag -> slot
        self._tag_at: dict[int, int] = {}                      # slot -> tag

    @property
    def n_sv_output(self) -> int:
        """SVs summed over the m kernel regressors."""
        return int(self.sv_per_kernel_.sum())

    def _kernel_weights(self):
        """q, the Hedge combination weights (kernel order)."""
        return self.weights_

    def run_summary(self) -> dict:
        """Recorded with every run: the final Hedge weights q (kernel order), each regressor's #SV and online
        MSE (its own predictions f_k(x_t)), the T and eta used."""
        return {"kernel_weights": self.weights_.tolist(), "sv_per_kernel": self.sv_per_kernel_.tolist(),
                "mse_per_kernel": (self.sq_loss_per_kernel_ / max(self.t, 1)).tolist(),
                "horizon": self.horizon_, "eta": self.eta_}

    # ------------------------------------------------------------------ the algorithm
    def step(self, i, y):
        f = self._predict_all(i)                            # f_k(x_t), every kernel: one pass over the pool
        y_hat = self.targets.out(dot(self.weights_, f))     # predict sum_k q_k f_k(x_t) (in y's units) ...
        y = self.targets.learn(y)                           # (y, or (y - m)/s: standardize_y)
        a = self._gradient_step(i, y, f)                    # ... then learn: every f_k, x_t stored once
        if a.any():
            owners = a != 0.0
            self.sv_per_kernel_ += owners
            if self.budget:
                self._truncate(owners)
        loss = (f - y) * (f - y)
        self.sq_loss_per_kernel_ += loss
        self._hedge(loss)
        return y_hat

    def _hedge(self, loss: np.ndarray) -> None:
        """w_k <- w_k beta^{l_k}, q = w / sum w (in log space; see the readings)."""
        logw = self._logw + math.log(self.beta) * loss
        top = logw.max()
        if not math.isfinite(top):
            return
        self._logw = logw - top
        w = exp_array(self._logw)
        self.weights_ = w / dot(w, self._ones)

    def _truncate(self, owners: np.ndarray) -> None:
        """The newest row (tag t, last slot) joined the kernels in ``owners``; a kernel over budget forgets its
        oldest SV; rows no kernel owns are purged (the bookkeeping follows ``pool.remove``'s swaps)."""
        t, slot = self.t, self.pool.n_sv - 1
        self._slot_of[t] = slot
        self._tag_at[slot] = t
        forgotten = []
        for k in np.flatnonzero(owners).tolist():
            fifo = self._fifo[k]
            fifo.append(t)
            if len(fifo) > self.budget:
                forgotten.append(forget(self.pool, self._slot_of[fifo.popleft()], k))
                self.sv_per_kernel_[k] -= 1
        for r, moved in purge(self.pool, forgotten):
            del self._slot_of[self._tag_at.pop(r)]
            if moved >= 0:
                tag = self._tag_at.pop(moved)
                self._tag_at[r] = tag
                self._slot_of[tag] = r

    # ------------------------------------------------------------------ outputs
    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """The combined prediction sum_k q_k f_k(x) on every row of X (the order of sums of ``step``), in the targets'
        units."""
        F = self._learned_predictions(X)
        out = np.zeros(F.shape[0])
        for k, q in enumerate(self.weights_.tolist()):
            out += q * F[:, k]
        return self.targets.out(out)
