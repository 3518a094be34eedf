"""The core of bounded online multiple kernel classification (the SPA paper's Algorithms 3 and 4, Table 5 and
Figure 3): OMKC (:mod:`~olk.algorithms.multikernel.core`) whose kernel classifiers keep a budget, maintained by
one of the single-kernel budget learners' steps (``maintenance``: RBP, Forgetron, BPA-S or BOGD,
:mod:`olk.algorithms.budget.core`), with a total budget shared by the m classifiers.  ``bomkc_dd`` and
``bomkc_sd`` (deterministic / stochastic update) subclass :class:`BoundedOMKC`.

>>> from olk.algorithms import make
>>> from olk.kernels import KernelSet
>>> m = make("bomkc_dd", kernel=KernelSet.preset("spa16"), budget=160)
>>> isinstance(m, BoundedOMKC), m.maintenance
(True, 'rbp')
"""
from __future__ import annotations

import numpy as np

from ..._core.bpas import bpas_choose
from ...errors import ConfigError
from ..budget.core import ForgetronState, bpas_choice, discard_random, forget, purge
from ..common.learner import OnlineKernelLearner
from ..common.losses import pa_step
from ..registry import POSITIVE, Param
from .core import KernelClassifiers

#: the single-kernel budget algorithm each kernel classifier runs (SPA Table 6's four row groups)
MAINTENANCE = Param("maintenance", "rbp", "budget algorithm of every kernel classifier: rbp | forgetron | bogd | "
                    "bpas (SPA Table 6)", type=str, choices=("rbp", "forgetron", "bogd", "bpas"))


#: B, the total number of SVs over the m kernel classifiers
TOTAL_BUDGET = Param("budget", 1600, "total SVs B over the m kernel classifiers (engine: BOMKC(SPA)'s mean #SV)",
                     type=int, check=lambda v: v >= 1, requirement=">= 1", symbol="B")


#: BOGD's step and regulariser (SPA Section 6.2.4 searches both in {1, 0.1, ..., 1e-4})
ETA = Param("eta", 0.1, "BOGD learning rate (maintenance=bogd only)", **POSITIVE)


LAM = Param("lam", 0.01, "BOGD L2 regularisation lambda (maintenance=bogd only)", check=lambda v: v >= 0,
            requirement=">= 0")


#: BPA-S's aggressiveness: "the learning rate parameters in PA-based algorithms (SPA, BPAS, DDPA, SDPA) are all
#: fixed to 0.1" (Section 6.2.4), read as PA-I's C, as for DDPA
C_PA = Param("C", 0.1, "BPA-S aggressiveness (PA-I's C; maintenance=bpas only)", **POSITIVE)


class BoundedOMKC(KernelClassifiers, OnlineKernelLearner):
    """m single-kernel budget learners on one shared SV pool, Hedge-combined as in OMKC (SPA Algorithms 3, 4).

    Subclasses set ``stochastic_update`` (Algorithm 4: classifier i updates only when sampled with probability
    p_i = (1 - delta) theta_i / max_j theta_j + delta) and implement ``_victims`` (whose SV pays for a new one).

    Each step, after predicting with sign(sum_i theta_i sign(f_i(x_t))):

    * classifier i's own update rule decides whether it learns from x_t: a mistake y f_i(x_t) <= 0 for the
      Perceptrons (rbp, forgetron), a margin error l_i = [1 - y f_i(x_t)]_+ > 0 for bogd (coefficient eta y)
      and bpas (tau_i y, tau_i = min(C, l_i / k_i(x_t, x_t)));  bogd also shrinks f_i by (1 - eta lam) every
      step it updates (every step under DD; when sampled under SD);
    * if that update would exceed the budget, the victim classifier's maintenance step forgets one of its SVs
      (Forgetron: after adding x_t, as the Forgetron prescribes; the others before);
    * x_t is stored once, with its coefficient in the column of every classifier that learned from it;
    * Hedge: theta_i <- theta_i discount^{M_i} (DD: every i; SD: sampled i), then theta /= sum_j theta_j, with
      M_i = I(y f_i(x_t) < 0) as Algorithms 3 and 4 print it (``hedge: strict``, the literal reproduction
      configs) or I(y f_i(x_t) <= 0) (``hedge: mistake``, the default: the cited OMKC's test, under which an
      untrained f_i = 0 is discounted too).

    Readings (Algorithms 3 and 4 write "Normal update; Budget maintenance" and leave the rest to [20] and the
    budget papers): the budget counts SVs per classifier, so an example stored for k
    classifiers counts k times (the paper's "total number of SVs used by all single-kernel classifiers",
    ``n_sv_output``; ``n_sv`` is the distinct stored rows); classifiers are maintained in kernel order, with
    the random draws of RBP/BOGD in that order after the step's Bernoulli draws (SD).
    """

    #: the per-kernel caps and the Forgetron states follow them: a new value restarts the learner
    structural_params = ("budget", "maintenance")
    stochastic = True
    stochastic_update = False

    @classmethod
    def check_params(cls, p, where):
        if p["maintenance"] == "bogd" and p["eta"] * p["lam"] >= 1.0:
            raise ConfigError(f"{where}: BOGD needs eta*lam < 1 (its shrinkage 1 - eta*lam must stay positive); "
                              f"got eta={p['eta']:g}, lam={p['lam']:g}")

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        m = len(self.kernels)
        self._check_budget(m, where)
        self._forgetron = [ForgetronState() for _ in range(m)] if self.maintenance == "forgetron" else None
        self._kbuf = np.zeros(m, dtype=np.float64)         # forgetron: f'(x_r) of the shrinking classifier
        self._factor = np.ones(m, dtype=np.float64)         # bogd: this step's scale of each column

    def _check_budget(self, m, where):
        """Check ``budget`` against m kernels and set ``cap_`` (the limit ``_victims`` enforces)."""
        raise NotImplementedError

    def run_summary(self) -> dict:
        out = super().run_summary()
        out["budget"] = int(self.budget)
        return out

    # ------------------------------------------------------------------ the algorithm
    def _scores(self, i):
        """f_i(x_t) for every kernel, in one pass over the pool."""
        self.t += 1
        self.pool.decision(self.src, i, self._buf)
        return self._buf

    def _wants(self, i, f, y):
        """Which classifiers learn from (x_t, y_t) by their own rule, and their coefficients before maintenance."""
        if self.maintenance in ("rbp", "forgetron"):             # Perceptron: on a mistake
            upd = y * f <= 0.0
            return upd, np.where(upd, y, 0.0)
        loss = 1.0 - y * f
        upd = loss > 0.0
        if self.maintenance == "bogd":                           # OGD on the hinge loss
            return upd, np.where(upd, self.eta * y, 0.0)
        coefs = np.zeros_like(f)                                 # BPA-S: PA-I step
        for k in np.flatnonzero(upd):
            coefs[k] = y * pa_step(self.C, loss[k], self.pool.self_kernel(self.src, i, k))
        return upd, coefs

    def _forget(self, i, victims, coefs):
        """The maintenance steps of ``victims`` (classifiers, in order; one may appear more than once in SD), each
        forgetting one of its SVs; returns the slots, for ``purge``.  BPA-S chooses for every distinct victim in
        one pass over the pool (``olk._core.bpas.bpas_choose``: each SV's product with x_t computed once, not once per
        classifier); forgetting in one column never changes another column's choice, and a classifier's second
        removal in the same step (SD) is chosen after its first, as one at a time would."""
        if self.maintenance != "bpas" or not victims:
            return [self._forget_one(i, v, coefs) for v in victims]
        first = list(dict.fromkeys(victims))
        ktt = np.array([self.pool.self_kernel(self.src, i, v) for v in first])
        chosen, carry = bpas_choose(self.pool, self.src, i, np.array(first, dtype=np.intp), ktt)
        pick = {v: j for j, v in enumerate(first)}
        out = []
        for v in victims:
            j = pick.pop(v, None)
            if j is None:                                        # a repeat: after v's first removal
                out.append(self._forget_one(i, v, coefs))
                continue
            self.sv_per_kernel_[v] -= 1
            coefs[v] += carry[j]
            out.append(forget(self.pool, int(chosen[j]), v))
        return out

    def _forget_one(self, i, v, coefs):
        """Classifier v's maintenance step: forget one of its SVs (BPA-S also moves part of its weight onto
        x_t's coefficient).  Returns the slot, for ``purge``."""
        self.sv_per_kernel_[v] -= 1
        mt = self.maintenance
        if mt == "forgetron":
            return self._forgetron[v].shrink_and_forget(self.pool, v, self._kbuf)
        if mt == "bpas":
            kxx = self.pool.self_kernel(self.src, i, v)
            slots = self.pool.owned(v)                           # k_v(x_t, .) on v's own SVs only
            krt = self.pool.kernel_row(self.src, i, v, slots)
            r, carry = bpas_choice(self.pool, v, v, krt, kxx, slots)
            coefs[v] += carry
            return r
        n = int(self.sv_per_kernel_[v]) + 1                     # its #SV before this removal
        r = discard_random(self.pool, v, self.rng)               # rbp, bogd
        if mt == "bogd" and n > 1:
            self._factor[v] *= n / (n - 1.0)                     # unbiased rescaling n/(n-1), applied in step
        return r

    def _rescale(self):
        """bogd: scale each column by its factor (1 - eta lam, times n/(n-1) after a random removal), once,
        before x_t is stored: single-kernel BOGD's order of operations."""
        if self.maintenance == "bogd" and self.pool.n_sv:
            for k in np.flatnonzero(self._factor != 1.0):
                self.pool.scale_col(int(k), float(self._factor[k]))

    def step(self, i, y):
        f = self._scores(i)
        score = self._vote(f)
        wrong = y * f <= 0.0                                     # M_i
        chosen = self._sampled() if self.stochastic_update else None
        upd, coefs = self._wants(i, f, y)
        if chosen is not None:
            upd &= chosen
            coefs = np.where(chosen, coefs, 0.0)
        if self.maintenance == "bogd":                           # regulariser: f_i <- (1 - eta lam) f_i
            self._factor[:] = 1.0                                # DD: every classifier steps; SD: the sampled
            self._factor[slice(None) if chosen is None else chosen] = 1.0 - self.eta * self.lam
        if self.maintenance != "forgetron":                      # make room, then store x_t once
            victims = self._victims(upd, coefs, after_add=False) if upd.any() else []
            purge(self.pool, self._forget(i, victims, coefs))
            self._rescale()
            if upd.any():
                self._store(i, upd, coefs)
        elif upd.any():                                          # Forgetron: store x_t, then shrink and forget
            self._store(i, upd, coefs)
            for k in np.flatnonzero(upd):
                self._forgetron[k].M += 1
                self._forgetron[k].fifo.append(y)
            victims = self._victims(upd, coefs, after_add=True)
            purge(self.pool, self._forget(i, victims, coefs))
        z = self._hedge_indicator(y, f, wrong)                   # M_i (HEDGE)
        hedged = z if chosen is None else z & chosen
        if hedged.any():                                         # Hedge: theta_i <- theta_i gamma^{M_i}
            self._discount(hedged, self.discount)
        self.mistakes_per_kernel_ += wrong
        return score
