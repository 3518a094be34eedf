"""What the budget online kernel classifiers that keep at most B support vectors by *removing* one SV share.

The four removal-based baselines of the SPA paper (Lu, Sahoo, Zhao & Hoi, ACM TIST 2018,
Section 6.1.2, Table 2), each in its own module with its own registry name:

* ``rbp``        (:mod:`~olk.algorithms.budget.rbp`) Randomized Budget Perceptron — remove a uniformly random SV.
* ``forgetron``  (:mod:`~olk.algorithms.budget.forgetron`) self-tuned Forgetron — shrink every coefficient by
                 phi_t, remove the oldest SV.
* ``bpas``       (:mod:`~olk.algorithms.budget.bpas`) Budgeted PA, simple variant (BPA-S) — remove the SV whose
                 removal (with the new SV's coefficient re-optimised) degrades the PA objective least.
* ``bogd``       (:mod:`~olk.algorithms.budget.bogd`) Bounded OGD — remove a uniformly random SV and rescale the
                 others by B/(B-1).

Common conventions (as the rest of olk): ``step`` returns f_t(x_t) before the update; the online
protocol predicts sign(f_t(x_t)) with sign(0) = +1; the SPA paper evaluates these algorithms with
their last classifier f_t (Section 6.1.2: "for the other budget algorithms, we report the online
prediction results of f_t"), so there is a single output classifier.  ``budget`` B is the maximum
number of SVs: an update made with B SVs also removes one (before or right after adding x_t, as each
algorithm prescribes), so #SV <= B after every step.

Defaults: ``budget=100`` is only a round placeholder — the SPA paper never fixes B; it sets B per
dataset to SPA's mean #SV (Table 2: 149 on KDD08, 1,350 on a9a, 175 on w7a, 822 on codrna, ...),
which olk's engine does with ``params: {budget: {match: spa, stat: n_sv}}``.  ``C=1`` for BPA-S is the
default of the SPA authors' MATLAB code (jingcoco/Online-Kernel-Learning, binary/BPAs.m:
"C = options.C_BPAs; % 1 by default") and lies in the paper's PA grid {0.25, 0.5, 1, 2}.  BOGD's
``eta=0.1`` and ``lam=0.01`` are mid-grid values: the paper searches eta in {10^3, ..., 10^-3}
(Section 6.1.2) and eta, lambda in {1, 0.1, ..., 10^-4} (Section 6.2.4); neither value is prescribed
by a table, so tune them (``tune: {eta: [...], lam: [...]}``) when reproducing.

Reference implementations read to check these readings (none copied): the SPA first author's MATLAB
toolbox (github jingcoco/Online-Kernel-Learning, binary/{RBP,forgetron,BPAs,BOGD}.m), F. Orabona's
DOGMA (k_forgetron_st_train.m) and the Cognitive Foundry (Forgetron.java, self-tuned variant).
"""
from __future__ import annotations

import math
from collections import deque

import numpy as np

from ..._core.svpool import uniform_int
from ..registry import POSITIVE, Param, value_type


def budget_param(minimum: int = 1) -> Param:
    """The ``budget`` parameter B (an int >= `minimum`, default 100) of the removal-based learners."""
    return Param("budget", 100, "maximum number of support vectors B (engine: SPA's mean #SV)", type=int,
                 check=lambda v: v >= minimum, requirement=f">= {minimum}", symbol="B")


#: BOGD's parameters (binary and multi-class): the budget B >= 2 (B/(B-1)), the step eta and the regulariser lambda
BOGD_PARAMS = (budget_param(2),
               Param("eta", 0.1, "learning rate", **POSITIVE),
               Param("lam", 0.01, "L2 regularisation lambda (shrinks all coefficients by 1 - eta*lam each step)",
                     check=lambda v: v >= 0, requirement=">= 0"))


# ------------------------------------------------------------------------------------------------------------
# The budget-maintenance steps, written once for "classifier `col` of an SV pool".  A single-kernel learner
# is column 0 of its own pool; a bounded multi-kernel learner (``bomkc_dd``, ``bomkc_sd``: SPA Algorithms 3
# and 4) runs the same steps on column i of the pool its m kernel classifiers share.  A step only makes the
# classifier FORGET an SV (its coefficient becomes 0; ``pool.owned(col)`` no longer lists it); the caller then
# calls :func:`purge`, which deletes the rows no classifier owns any more.  Keeping the two apart lets a
# multi-kernel step run several classifiers' maintenance against the same slot numbering (e.g. one kernel
# row shared by every BPA-S choice) before any row moves.  In a one-column pool, forget + purge is exactly
# ``pool.remove(slot)``, so the single-kernel learners keep their historical results bit for bit.

def purge(pool, slots) -> list[tuple[int, int]]:
    """Delete, among `slots`, the rows no column owns any more.  Returns [(slot, moved)] for each deletion
    (``pool.remove``'s swap: the row that was at ``moved`` now sits at ``slot``; moved = -1 if none).

    Rows are deleted from the highest slot down: every row above the one being deleted is then owned, so
    the row the swap brings down never needs deleting itself (only the given slots can be empty)."""
    if len(slots) == 1:                     # the common case (one removal), without the set and the sort
        r = int(slots[0])
        return [(r, pool.remove(r))] if pool.row_empty(r) else []
    done = []
    for r in sorted(set(int(s) for s in slots), reverse=True):
        if pool.row_empty(r):
            done.append((r, pool.remove(r)))
    return done


def forget(pool, slot: int, col: int) -> int:
    """Classifier `col` forgets the SV in `slot` (coefficient -> 0); returns the slot, for :func:`purge`."""
    pool.set_coef(slot, col, 0.0)
    return slot


def bogd_scale(pool, budget: int, eta: float, lam: float, learns: bool, remove_random) -> float:
    """BOGD's scale of the whole model at one step (Zhao et al., ICML 2012; binary and multi-class): the
    regulariser's 1 - eta lam at every step and, when the step learns at a full budget B, a uniformly random SV
    leaves (``remove_random()``) and the others are rescaled by B/(B-1) (the unbiased estimate).  Returns the
    factor every remaining coefficient is to be multiplied by, before x_t joins."""
    shrink = 1.0 - eta * lam
    if learns:
        n = pool.n_sv
        if n >= budget:
            remove_random()
            shrink *= n / (n - 1.0)                      # unbiased rescaling B/(B-1)
    return shrink


def discard_random(pool, col: int, rng) -> int:
    """Forget a uniformly random SV of classifier `col` (RBP [4]; BOGD [53] then rescales by B/(B-1)).

    One draw ``rng.integers(n)`` over the classifier's n SVs in slot order (:func:`olk._core.svpool.uniform_int`:
    the same value without numpy's Python-level dispatch): in a one-column pool exactly the draw the single-kernel
    RBP/BOGD always made.  Returns the slot forgotten."""
    if pool.n_cols == 1:                    # every SV is the column's, in slot order: the same draw, no array
        return forget(pool, uniform_int(rng, pool.n_sv), col)
    slots = pool.owned(col)
    return forget(pool, int(slots[uniform_int(rng, slots.shape[0])]), col)


class ForgetronLearner:
    """Mixin of the self-tuned Forgetron learners (binary and multi-class; list it first among the bases): their
    ``budget`` parameter, their bookkeeping ``state`` (a :class:`ForgetronState`) and its counters ``M``, ``Q``,
    ``phi_last``."""

    params: tuple = (budget_param(1),)
    structural_params: tuple[str, ...] = ("budget",)     # the Q/phi bookkeeping follows B: a new B restarts

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self.state = ForgetronState()

    M = property(lambda self: self.state.M, doc="mistakes (= updates) so far")
    Q = property(lambda self: self.state.Q, doc="accumulated removal damage sum_s Psi_s")
    phi_last = property(lambda self: self.state.phi_last, doc="last shrinking coefficient phi_t")


@value_type
class ForgetronState:
    """One self-tuned Forgetron classifier's bookkeeping (Dekel, Shalev-Shwartz & Singer, SIAM J. Computing
    2008): M mistakes so far, Q the accumulated removal damage, the labels of its SVs oldest first (see
    :class:`~olk.algorithms.forgetron.Forgetron` for the derivation of phi_t)."""

    def __init__(self):
        self.M = 0                      # mistakes (= updates) so far
        self.Q = 0.0                    # accumulated removal damage sum_s Psi_s
        self.phi_last = 1.0             # last shrinking coefficient (inspection / tests)
        self.fifo: deque = deque()      # labels y of the SVs, oldest first

    def shrink_and_forget(self, pool, col: int, buf: np.ndarray) -> int:
        """Steps (2) and (3) of the self-tuned Forgetron on classifier `col`, whose newest SV is already in
        the pool: shrink all its coefficients by phi_t, forget its oldest SV.  Returns the slot forgotten."""
        y_r = self.fifo.popleft()                            # r = min I_t: the oldest SV
        r = pool.oldest(col)                                 # its slot (tags = insertion time)
        delta = abs(pool.get_coef(r, col))                   # sigma_r
        pool.decision_sv(r, buf, col)                        # f'_t(x_r), new SV included (column col only)
        self.shrink(delta, y_r * buf[col], lambda phi: pool.scale_col(col, phi))   # (2) every sigma, the new too
        return forget(pool, r, col)                          # (3) forget the oldest

    def shrink(self, delta: float, mu: float, scale) -> None:
        """Step (2) for the SV about to be removed (coefficient delta = sigma_r, margin mu = y_r f'_t(x_r)):
        phi_t (:meth:`phi`), every coefficient multiplied by it (``scale(phi)``, skipped at phi = 1), Q charged.
        The binary and the multi-class (Kesler) Forgetron both take this step."""
        phi = self.phi(delta, mu)
        if phi != 1.0:
            scale(phi)
        self.charge(delta, phi, mu)

    def phi(self, delta: float, mu: float) -> float:
        """phi_t = max { phi in (0, 1] : Psi(delta phi, phi mu) + Q_t <= 15/32 M_t } for the removed SV's
        coefficient delta = sigma_r and margin mu = y_r f'_t(x_r) (:class:`~olk.algorithms.forgetron.Forgetron`)."""
        a = delta * delta - 2.0 * delta * mu
        b = 2.0 * delta
        c = self.Q - 15.0 / 32.0 * self.M
        if a + b + c <= 0.0:
            return 1.0
        phi = -2.0 * c / (b + math.sqrt(max(b * b - 4.0 * a * c, 0.0)))   # smallest positive root of a p^2 + b p + c
        return min(1.0, max(phi, 0.0))

    def charge(self, delta: float, phi: float, mu: float) -> None:
        """Q_{t+1} = Q_t + Psi(delta phi, phi mu), Psi(lam, m) = lam^2 + 2 lam - 2 lam m: the removal damage."""
        lam = delta * phi
        self.Q += lam * lam + 2.0 * lam - 2.0 * lam * (phi * mu)   # Psi(sigma_{r,t+1}, y_r f''_t(x_r))
        self.phi_last = phi


def bpas_choice(pool, col: int, kernel: int, krt: np.ndarray, ktt: float, slots=None) -> tuple[int, float]:
    """BPA-S's removal on classifier `col` (kernel index `kernel`; Wang & Vucetic, AISTATS 2010): among its SVs
    ``slots`` (default ``pool.owned(col)``), with krt[j] = k(x_{slots[j]}, x_t), the SV r minimising
    alpha_r^2 (k_rr - k_rt^2 / k_tt) and the coefficient alpha_r k_rt / k_tt it hands to the new SV (see
    :class:`~olk.algorithms.bpas.BPAS`).  Forgets r and returns (r, that coefficient).  Ties go to the lowest
    slot."""
    if slots is None:
        slots = pool.owned(col)
    alpha = pool.coef_at(slots, col)
    krr = pool.self_kernels(kernel)[slots]
    kr = krt[:slots.shape[0]]
    if ktt > 0.0:
        score = alpha * alpha * (krr - kr * kr / ktt)
    else:
        score = alpha * alpha * krr
    j = int(np.argmin(score))
    carry = alpha[j] * kr[j] / ktt if ktt > 0.0 else 0.0
    return forget(pool, int(slots[j]), col), carry
