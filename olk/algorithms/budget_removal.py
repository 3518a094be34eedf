"""Budget online kernel classifiers that keep at most B support vectors by *removing* one SV.

The four removal-based baselines of the SPA paper (Lu, Sahoo, Zhao & Hoi, ACM TIST 2018,
Section 6.1.2, Table 2), each with its own registry name:

* ``rbp``        Randomized Budget Perceptron — remove a uniformly random SV.
* ``forgetron``  self-tuned Forgetron — shrink every coefficient by phi_t, remove the oldest SV.
* ``bpas``       Budgeted PA, simple variant (BPA-S) — remove the SV whose removal (with the new SV's
                 coefficient re-optimised) degrades the PA objective least.
* ``bogd``       Bounded OGD — remove a uniformly random SV and rescale the others by B/(B-1).

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

from .base import OnlineKernelLearner, check_shrinkage, hinge
from .registry import Param, register

_pos = dict(check=lambda v: v > 0, requirement="> 0")


def _budget_param(minimum: int = 1) -> Param:
    return Param("budget", 100, "maximum number of support vectors B (engine: SPA's mean #SV)", type=int,
                 check=lambda v: v >= minimum, requirement=f">= {minimum}")


# ----------------------------------------------------------------------------------------------- RBP
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
    params = (_budget_param(1),)

    def step(self, i, y):
        self.t += 1
        pool = self.pool
        f = pool.decision1(self.src, i)
        if y * f <= 0.0:
            if pool.n_sv >= self.budget:
                pool.remove(int(self.rng.integers(pool.n_sv)))
            pool.add(self.src, i, y, self.t)
            self.n_updates += 1
        return f


# ----------------------------------------------------------------------------------------- Forgetron
@register
class Forgetron(OnlineKernelLearner):
    """Self-tuned Forgetron — Dekel et al., SIAM J. Computing 2008: shrink by phi_t, drop the oldest SV.

    Dekel, Shalev-Shwartz & Singer, "The Forgetron: a kernel-based perceptron on a budget", SIAM J.
    Computing 37(5), 2008 (its self-tuned variant, not the basic one); SPA ref [14].

    With f_t = sum_{i in I_t} sigma_i y_i k(x_i, .), M_t the number of mistakes so far (this one
    included) and Psi(lam, mu) = lam^2 + 2 lam - 2 lam mu::

        on a mistake (y_t f_t(x_t) <= 0):  M_t = M_{t-1} + 1
            (1) I' = I_t + {t}, sigma_t = 1                          f'_t = f_t + y_t k(x_t, .)
            if |I'| <= B:  I_{t+1} = I', Q_{t+1} = Q_t               (plain Perceptron step)
            else:
                r = min I_t (the oldest SV),  delta = sigma_r,  mu'_t = y_r f'_t(x_r)
            (2) phi_t = max { phi in (0, 1] : Psi(delta phi, phi mu'_t) + Q_t <= 15/32 M_t }
                sigma_i <- phi_t sigma_i for every i in I' (the new SV too)
                Q_{t+1} = Q_t + Psi(delta phi_t, phi_t mu'_t)
            (3) I_{t+1} = I' \\ {r}

    Psi(delta phi, phi mu') + Q - 15/32 M = a phi^2 + b phi + c with a = delta^2 - 2 delta mu',
    b = 2 delta > 0, c = Q_t - 15/32 M_t < 0 (by induction Q_t <= 15/32 M_{t-1}).  So phi_t = 1 if
    that quadratic is <= 0 at 1, otherwise its smallest positive root, computed in the cancellation-free
    form -2c / (b + sqrt(b^2 - 4ac)) (the same phi as DOGMA's and the Cognitive Foundry's case split for
    a > 0, a = 0 and a < 0).  The shrinking is what distinguishes the Forgetron from "drop the oldest":
    it keeps the removal damage Psi charged to the budget 15/32 M of the mistake bound.

    Readings and notes: M_t counts rounds with y_t f_t(x_t) <= 0 (the paper's update condition), not
    rounds where sign(f) with sign(0)=+1 is wrong (the SPA authors' MATLAB code counts the latter).  The
    paper assumes k(x, x) <= 1 (true for the Gaussian kernel); the update runs for any kernel.  The SPA
    authors' MATLAB code takes the larger root when a < 0, which exceeds 1 and so is not the paper's
    max over (0, 1]; we follow the paper.  Deterministic: no use of the RNG.

    Cost: f'_t(x_r) is one pass over the pool (B + 1 kernel evaluations) evaluated at the stored SV
    itself (``pool.decision_sv``: the same bits as at the data row it was copied from), so the model
    keeps no reference to the data it was trained on and learns from a stream.
    """

    name = "forgetron"
    display = "Forgetron"
    params = (_budget_param(1),)

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self.M = 0                      # mistakes (= updates) so far
        self.Q = 0.0                    # accumulated removal damage sum_s Psi_s
        self.phi_last = 1.0             # last shrinking coefficient (inspection / tests)
        self._fifo: deque = deque()     # labels y of the SVs, oldest first

    def step(self, i, y):
        self.t += 1
        pool, src = self.pool, self.src
        f = pool.decision1(src, i)
        if y * f <= 0.0:
            self.M += 1
            self.n_updates += 1
            pool.add(src, i, y, self.t)                       # (1) sigma_t = 1
            self._fifo.append(y)
            if pool.n_sv > self.budget:
                self._shrink_and_remove_oldest()
        return f

    def _shrink_and_remove_oldest(self):
        pool, buf = self.pool, self._buf
        y_r = self._fifo.popleft()                           # r = min I_t: the oldest SV
        r = int(np.argmin(pool.tags))                        # its slot (tags = insertion time)
        delta = abs(pool.get_coef(r, 0))                     # sigma_r
        pool.decision_sv(r, buf)                             # f'_t(x_r), new SV included
        mu = y_r * buf[0]
        a = delta * delta - 2.0 * delta * mu
        b = 2.0 * delta
        c = self.Q - 15.0 / 32.0 * self.M
        if a + b + c <= 0.0:
            phi = 1.0
        else:                                                # smallest positive root of a p^2 + b p + c
            phi = -2.0 * c / (b + math.sqrt(max(b * b - 4.0 * a * c, 0.0)))
            phi = min(1.0, max(phi, 0.0))
        if phi != 1.0:
            pool.scale_col(0, phi)                           # (2) shrink every sigma, the new one too
        lam = delta * phi
        self.Q += lam * lam + 2.0 * lam - 2.0 * lam * (phi * mu)   # Psi(sigma_{r,t+1}, y_r f''_t(x_r))
        self.phi_last = phi
        pool.remove(r)                                       # (3) forget the oldest


# ------------------------------------------------------------------------------------------- BPA-S
@register
class BPAS(OnlineKernelLearner):
    """BPA-S — Wang & Vucetic, AISTATS 2010: PA-I; when full, drop the SV whose removal costs least.

    Budgeted Passive-Aggressive, simple variant: Wang & Vucetic, "Online passive-aggressive algorithms
    on a budget", AISTATS 2010 (BPA-Simple; not BPA-P/BPA-NN); SPA ref [47].

    PA-I with hinge loss l_t = [1 - y_t f_t(x_t)]_+.  Below the budget it is PA-I.  When the SV set is
    full, adding x_t must be paid for by removing one SV r, and BPA-S re-optimises only the new SV's
    coefficient: for each candidate r it solves

        min_w 1/2 ||w - f_t||^2 + C xi   s.t.  y_t w(x_t) >= 1 - xi, xi >= 0,
                                             w = f_t - alpha_r k(x_r, .) + beta k(x_t, .)

    whose solution is beta_r = alpha_r k(x_r, x_t) / k(x_t, x_t) + tau_t y_t with the PA-I step
    tau_t = min(C, l_t / k(x_t, x_t)), and then keeps the r of smallest objective.  The loss term after
    the update, [l_t - tau_t k(x_t, x_t)]_+, is the same for every r, and 1/2 ||w_r - f_t||^2 =
    1/2 alpha_r^2 (k(x_r, x_r) - k(x_r, x_t)^2 / k(x_t, x_t)) + 1/2 tau_t^2 k(x_t, x_t), so::

        if l_t > 0:
            tau_t = min(C, l_t / k_tt)
            if |S| < B:  f_{t+1} = f_t + tau_t y_t k(x_t, .)                         (PA-I)
            else:        r = argmin_{r in S} alpha_r^2 (k_rr - k_rt^2 / k_tt)        (weight degradation)
                         f_{t+1} = f_t - alpha_r k(x_r, .) + (alpha_r k_rt / k_tt + tau_t y_t) k(x_t, .)

    f_{t+1}(x_t) = f_t(x_t) + tau_t y_t k_tt whichever r is removed: the margin step is PA-I's.

    Readings: r ranges over the B current SVs (not the new example), as in the SPA authors' MATLAB code
    (binary/BPAs.m); ties go to the lowest pool slot; k_tt = 0 (only possible for a zero vector with a
    linear/polynomial kernel) takes tau_t = C and scores alpha_r^2 k_rr.  Deterministic.

    Cost: at a full budget the B kernel values k(x_r, x_t) are computed once per step and give both
    f_t(x_t) and the removal scores (no second pass).
    """

    name = "bpas"
    display = "BPAS"
    aliases = ("bpa_s", "bpa")
    params = (_budget_param(1), Param("C", 1.0, "aggressiveness (PA-I's soft-margin parameter)", **_pos))

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self._kself = np.zeros(self.budget + 1)              # k(x_s, x_s) per pool slot
        self._kv = np.zeros((1, self.budget + 1))            # k(x_t, x_s) per pool slot

    def step(self, i, y):
        self.t += 1
        pool, src = self.pool, self.src
        n = pool.n_sv
        full = n >= self.budget
        if full:                                             # one pass: kernel row and f_t(x_t)
            pool.kernel_values(src, i, self._kv)
            krt = self._kv[0, :n]
            alpha = pool.coefs[:, 0]
            f = pool.coef_dot(0, krt)                        # f_t(x_t), summed in slot order
        else:
            f = pool.decision1(src, i)
        loss = hinge(y, f)
        if loss > 0.0:
            ktt = pool.self_kernel(src, i)
            tau = min(self.C, loss / ktt) if ktt > 0.0 else self.C
            coef = tau * y
            if full:
                if ktt > 0.0:
                    score = alpha * alpha * (self._kself[:n] - krt * krt / ktt)
                else:
                    score = alpha * alpha * self._kself[:n]
                r = int(np.argmin(score))
                if ktt > 0.0:
                    coef += alpha[r] * krt[r] / ktt
                moved = pool.remove(r)
                if moved >= 0:
                    self._kself[r] = self._kself[moved]
            slot = pool.add(src, i, coef, self.t)
            self._kself[slot] = ktt
            self.n_updates += 1
        return f


# -------------------------------------------------------------------------------------------- BOGD
@register
class BOGD(OnlineKernelLearner):
    """BOGD — Zhao et al., ICML 2012: hinge-loss OGD; drop a random SV, rescale the rest by B/(B-1).

    Bounded Online Gradient Descent (uniform sampling): Zhao, Wang, Wu, Jin & Hoi, "Fast bounded online
    gradient descent algorithms for scalable kernel-based online learning", ICML 2012; also Wang,
    Crammer & Vucetic, "Breaking the curse of kernelization", JMLR 2012; SPA refs [53], [45].

    Kernel OGD on lam/2 ||f||^2 + [1 - y f(x)]_+ with step eta, kept at B SVs by an unbiased
    random removal::

        every step:  f <- (1 - eta lam) f_t                               (regulariser's gradient)
        if l_t = [1 - y_t f_t(x_t)]_+ > 0:
            if |S| < B:  f_{t+1} = (1 - eta lam) f_t + eta y_t k(x_t, .)
            else:        r ~ Uniform(S)
                         f_{t+1} = (1 - eta lam) B/(B-1) sum_{i in S, i != r} alpha_i k(x_i, .)
                                   + eta y_t k(x_t, .)

    E_r[B/(B-1) sum_{i != r} alpha_i k(x_i, .)] = f_t, so the budgeted step is an unbiased estimate of
    OGD's.  Readings: the (1 - eta lam) shrinkage also applies on steps with zero loss (it is the
    regulariser's gradient; olk's OGD and the SPA authors' MATLAB BOGD do the same); the update fires on
    l_t > 0 (y_t f_t(x_t) < 1) as olk's OGD.  The SPA authors' MATLAB BOGD additionally rescales the
    coefficients to max |alpha_i| <= eta*gamma after a removal; that step is in neither the brief nor
    the SPA paper's description and is not implemented.  Needs B >= 2 (B/(B-1)) and eta*lam < 1.
    """

    name = "bogd"
    display = "BOGD"
    stochastic = True
    params = (_budget_param(2),
              Param("eta", 0.1, "learning rate", **_pos),
              Param("lam", 0.01, "L2 regularisation lambda (shrinks all coefficients by 1 - eta*lam each step)",
                    check=lambda v: v >= 0, requirement=">= 0"))

    check_params = classmethod(check_shrinkage)

    def step(self, i, y):
        self.t += 1
        pool = self.pool
        f = pool.decision1(self.src, i)
        shrink = 1.0 - self.eta * self.lam
        if hinge(y, f) > 0.0:
            n = pool.n_sv
            if n >= self.budget:
                pool.remove(int(self.rng.integers(n)))
                shrink *= n / (n - 1.0)                      # unbiased rescaling B/(B-1)
            if shrink != 1.0 and pool.n_sv:
                pool.scale_col(0, shrink)
            pool.add(self.src, i, self.eta * y, self.t)
            self.n_updates += 1
        elif shrink != 1.0 and pool.n_sv:
            pool.scale_col(0, shrink)
        return f
