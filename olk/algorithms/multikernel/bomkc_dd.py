"""Bounded OMKC(DD): online multiple-kernel classification with the Deterministic update and a budget kept by
a single-kernel budget algorithm.  Lu, Sahoo, Zhao & Hoi, "Sparse passive-aggressive learning for bounded
online kernel methods", ACM TIST 9(4), 2018, Section 6.2.3, Algorithm 3 ("The Bounded OMKC-DD Using the
Deterministic Update"); the DD/RBP, DD/Forgetron, DD/BOGD and DD/BPAS rows of the paper's Table 6 and the
curves of its Figure 3.  What it shares with ``bomkc_sd`` is ``BoundedOMKC``
(:mod:`olk.algorithms.multikernel.bounded`).

OMKC(DD) (:mod:`~olk.algorithms.multikernel.omkc_dd`: one kernel classifier f_i per kernel, Hedge-weighted vote of their
signs) whose classifiers are the single-kernel budget learners of Table 2, chosen by ``maintenance``:

    rbp        Randomized Budget Perceptron [4]: on a mistake, at the cap forget a random SV of f_i, add x_t
    forgetron  self-tuned Forgetron [14]: on a mistake add x_t, over the cap shrink f_i by phi_t, forget its oldest
    bogd       BOGD [53]: hinge OGD (eta, lam); at the cap forget a random SV, rescale f_i by n_i/(n_i - 1)
    bpas       BPA-S [47]: PA-I (C); at the cap forget the SV of least weight degradation, re-optimise x_t's coef

Algorithm 3: each classifier holds at most B/m SVs (``budget`` B is the TOTAL over the m classifiers, the
paper's #SV, set to BOMKC(SPA)'s mean total #SV by the engine: ``budget: {match: bomkc_spa_dd, stat: n_sv}``).
The maintenance steps are the single-kernel learners' own code (:mod:`~olk.algorithms.budget.core`: the same
functions ``rbp``, ``forgetron``, ``bogd`` and ``bpas`` call on their one column), run here on column i of the
pool the m classifiers share; an SV forgotten by every classifier leaves the pool.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("bomkc_dd", kernel="spa16", maintenance="rbp", budget=320, random_state=0)
>>> model.partial_fit(X, y).n_sv_output, int(model.sv_per_kernel_.max())   # total <= B; each f_i <= B/m = 20
(320, 20)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows (unbounded DD: 0.812)
0.782
"""
from __future__ import annotations

import numpy as np

from ...errors import ConfigError
from ..registry import register
from .bounded import C_PA, ETA, LAM, MAINTENANCE, TOTAL_BUDGET, BoundedOMKC
from .core import DISCOUNT, HEDGE


@register
class BOMKCDD(BoundedOMKC):
    """Bounded OMKC(DD) (Lu et al., ACM TIST 2018, Algorithm 3; SPA Table 6 "DD" rows; Figure 3).

    For t = 1..T, with theta_i = 1/m and every f_i = 0:
        predict sign(sum_i theta_i sign(f_i(x_t)));
        for each kernel i:  theta_i <- theta_i gamma^{M_i},  M_i = I(y_t f_i(x_t) < 0)  (hedge: strict; mistake: <= 0);
            if f_i's own rule updates:  if #SV_i < B/m: normal update  else: budget maintenance of f_i;
        theta <- theta / sum_j theta_j.
    B/m is floor(B / m) (every Table 6 budget is a multiple of 16).  "Budget maintenance" is the
    ``maintenance`` algorithm's own budgeted step on f_i (e.g. RBP: forget a random SV of f_i, then add x_t).
    Readings: see ``BoundedOMKC``.
    """

    name = "bomkc_dd"
    display = "BOMKC(DD)"
    style = ("blue", "v", "--")
    params = (MAINTENANCE, TOTAL_BUDGET, DISCOUNT, ETA, LAM, C_PA, HEDGE)

    def _check_budget(self, m, where):
        need = 2 if self.maintenance == "bogd" else 1
        if self.budget // m < need:
            raise ConfigError(f"{where or self.name}: budget={self.budget} gives each of the {m} kernel "
                              f"classifiers {self.budget // m} SVs (B/m); {self.maintenance} needs >= {need}: "
                              f"set budget >= {need * m}")
        self.cap_ = self.budget // m

    def _victims(self, upd, coefs, after_add):
        """Algorithm 3: classifier i pays for its own new SV once it holds B/m (Forgetron: more than B/m)."""
        sv = self.sv_per_kernel_
        if after_add:
            return [int(k) for k in np.flatnonzero(upd) if sv[k] > self.cap_]
        return [int(k) for k in np.flatnonzero(upd) if sv[k] >= self.cap_]
