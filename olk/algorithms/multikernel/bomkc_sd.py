"""Bounded OMKC(SD): online multiple-kernel classification with the Stochastic update and a total budget kept
by a single-kernel budget algorithm.  Lu, Sahoo, Zhao & Hoi, "Sparse passive-aggressive learning for bounded
online kernel methods", ACM TIST 9(4), 2018, Section 6.2.3, Algorithm 4 ("The Bounded OMKC-SD Using the
Stochastic update"); the SD/RBP, SD/Forgetron, SD/BOGD and SD/BPAS rows of the paper's Table 6.

OMKC(SD) (:mod:`~olk.algorithms.multikernel.omkc_sd`: classifier i is sampled with probability p_i = (1 - delta)
theta_i / max_j theta_j + delta and only then updated and discounted) whose classifiers are the budget
learners of Table 2 (``maintenance``: rbp | forgetron | bogd | bpas; see :mod:`~olk.algorithms.multikernel.bomkc_dd`),
sharing ONE budget B over all classifiers (not B/m each as in Algorithm 3): poor kernels, rarely sampled,
spend little of it.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("bomkc_sd", kernel="spa16", maintenance="rbp", budget=320, random_state=0)
>>> model.partial_fit(X, y).n_sv_output                  # total SVs over the 16 classifiers: B
320
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.774
"""
from __future__ import annotations

import numpy as np

from ..registry import register
from .bounded import C_PA, ETA, LAM, MAINTENANCE, TOTAL_BUDGET, BoundedOMKC
from .core import DELTA, DISCOUNT, HEDGE


@register
class BOMKCSD(BoundedOMKC):
    """Bounded OMKC(SD) (Lu et al., ACM TIST 2018, Algorithm 4; SPA Table 6 "SD" rows).

    For t = 1..T, with theta_i = 1/m and every f_i = 0:
        predict sign(sum_i theta_i sign(f_i(x_t)));
        for each kernel i:  p_i = (1 - delta) theta_i / max_j theta_j + delta;  Z_i ~ Bernoulli(p_i);
            if Z_i:  theta_i <- theta_i gamma^{M_i},  M_i = I(y_t f_i(x_t) < 0)  (hedge: strict; mistake: <= 0);
                     if f_i's own rule updates:  if sum_j #SV_j < B: normal update  else: budget maintenance;
        theta <- theta / sum_j theta_j.

    Readings (Algorithm 4 prints the budget test garbled, "if sum #SV_i < B then Normal update; Budget
    maintenance"): the total over the classifiers is kept <= B; the maintenance of classifier i forgets one
    of ITS OWN SVs (its budget algorithm's rule), and when i holds none (Forgetron: none but x_t itself)
    the classifier holding the most SVs (lowest index on ties) pays with its own rule instead, so a newly
    sampled kernel can still learn at a full budget.  The sampled classifiers are treated in kernel order
    against a running total.  p_i uses theta_t from before this step's discounts (as ``omkc_sd``); the m
    Bernoulli draws come first, then RBP/BOGD's removal draws.  Other readings: see ``BoundedOMKC``.
    """

    name = "bomkc_sd"
    display = "BOMKC(SD)"
    style = ("green", "^", "--")
    stochastic_update = True
    params = (MAINTENANCE, TOTAL_BUDGET, DISCOUNT, DELTA, ETA, LAM, C_PA, HEDGE)

    def _check_budget(self, m, where):
        self.cap_ = self.budget

    def _victims(self, upd, coefs, after_add):
        """Who pays, in kernel order, for each new SV that would take the total over B.  Before x_t is stored
        only SVs already in the pool can be forgotten: if no classifier holds one, classifier i's update is
        cancelled (upd, coefs edited in place; possible only when B is smaller than one step's updates)."""
        sv = self.sv_per_kernel_.copy()
        total = int(sv.sum())
        out = []
        keep = 2 if after_add else 1                         # Forgetron: x_t is already i's newest SV
        for k in np.flatnonzero(upd):
            if after_add:
                if total <= self.budget:
                    continue
            elif total < self.budget:
                total += 1
                continue
            v = int(k) if sv[k] >= keep else int(np.argmax(sv))
            if sv[v] == 0:                                   # nothing stored yet to forget: i cannot learn
                upd[k] = False
                coefs[k] = 0.0
                continue
            out.append(v)
            sv[v] -= 1
            if after_add:
                total -= 1
        return out
