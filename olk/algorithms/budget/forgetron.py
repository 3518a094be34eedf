"""The self-tuned Forgetron: Dekel, Shalev-Shwartz & Singer, "The Forgetron: a kernel-based perceptron on
a budget", SIAM J. Computing 37(5), 2008 (its self-tuned variant; SPA paper ref [14]).

A kernel Perceptron that, when a mistake would exceed the budget B, shrinks every coefficient by the
largest phi_t in (0, 1] its mistake bound allows and then forgets the oldest SV.  Shared budget
conventions and the reference implementations checked against (DOGMA's k_forgetron_st_train.m, the
Cognitive Foundry's Forgetron.java, the SPA authors' MATLAB forgetron.m): :mod:`olk.algorithms.budget.core`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("forgetron", kernel={"type": "gaussian", "gamma": 0.4}, budget=50)
>>> model.partial_fit(X, y).n_sv, model.M                 # B SVs kept; mistakes M (deterministic)
(50, 245)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.767
"""
from __future__ import annotations

from ..._core.forgetron import forgetron_step, forgetron_steps
from ..common.learner import OnlineKernelLearner
from ..registry import register
from .core import ForgetronLearner, purge


@register
class Forgetron(ForgetronLearner, OnlineKernelLearner):
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
    keeps no reference to the data it was trained on and learns from a stream.  On a pool of one kernel and one
    column the rows run in C (:mod:`olk._core.forgetron`), bit for bit :meth:`reading_step`, the pseudo-code above
    on the pool's calls (tests/test_forgetron_core.py).
    """

    name = "forgetron"
    display = "Forgetron"
    style = ("purple", "D", "--")
    # budget, state (M, Q, phi_last and the SVs' labels oldest first): ForgetronLearner

    def step(self, i, y):
        self.t += 1
        pool = self.pool
        if pool.n_cols == 1 and pool.n_kernels == 1:        # one call into the core (olk._core.forgetron),
            f, mistake = forgetron_step(pool, self.src, i, y, self.budget, self.t, self.state)
            self.n_updates += mistake                       # bit for bit the reading of reading_step
            return f
        return self.reading_step(i, y)

    def step_rows(self, rows, ys, out) -> None:
        """The engine's stretch of rows in one call into the core (:func:`olk._core.forgetron.forgetron_steps`:
        forgetron_step's operations row after row, tags t + 1, t + 2, ...), for the pool ``step`` hands to the core."""
        pool = self.pool
        if pool.n_cols == 1 and pool.n_kernels == 1:
            self.n_updates += forgetron_steps(pool, self.src, rows, ys, self.budget, self.t, self.state, out)
            self.t += rows.shape[0]
            return
        super().step_rows(rows, ys, out)

    def reading_step(self, i, y):
        """The step of the docstring's pseudo-code in Python, on the pool's calls (after ``t += 1``): what
        :func:`olk._core.forgetron.forgetron_step` computes in one call (tests/test_forgetron_core.py holds them
        equal)."""
        pool = self.pool
        f = pool.decision1(self.src, i)
        if y * f <= 0.0:                                      # a mistake: M_t = M_{t-1} + 1
            self.state.M += 1
            self.n_updates += 1
            pool.add(self.src, i, y, self.t)                  # (1) sigma_t = 1
            self.state.fifo.append(y)
            if pool.n_sv > self.budget:                       # (2) shrink by phi_t, (3) forget the oldest
                purge(pool, [self.state.shrink_and_forget(pool, 0, self._buf)])
        return f
