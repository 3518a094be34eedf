"""What the online regressors share (``kogd_reg``, ``omkr``; ``raker``, ``omkl_aks``, ``amkl``, ``amkl_aks``): the step
schedule, with an anytime step when the stream's length is not known, and a running standardisation of the targets.

**The step** (``step_size``).  The papers (the AMKL paper's eq. 57 and its baselines, spec Section 5) take the fixed
step eta = 1/sqrt(T) for a stream of known length T: ``step_size='sqrt_T'``, T = ``horizon`` or the rows of the data
the learner is first bound to (the engine binds the whole stream); the reproduction configs say so.  A stream fed one
example at a time (River's ``learn_one``) has no T, and a 1/sqrt(T) with a guessed T is wrong for every other length.
The default ``step_size='auto'`` is 1/sqrt(``horizon``) when a horizon is given and otherwise the *anytime* step

    eta_t = 1/sqrt(t),        t = 1, 2, ... the examples seen so far,

(Zinkevich, "Online convex programming and generalized infinitesimal gradient ascent", ICML 2003, Theorem 1).  Why it
needs no T, in two lines: online gradient descent with non-increasing steps eta_t on convex losses with gradients
||g_t|| <= G, over a set of diameter D, has regret

    R_T <= D^2 / (2 eta_T) + (G^2 / 2) sum_{t<=T} eta_t,

(expand ||w_{t+1} - u||^2 <= ||w_t - u||^2 - 2 eta_t g_t'(w_t - u) + eta_t^2 G^2, divide by 2 eta_t, sum, and bound the
telescoping sum with eta_t non-increasing).  eta_t = 1/sqrt(t) gives sum_t eta_t <= 2 sqrt(T), so
R_T <= (D^2/2 + G^2) sqrt(T) at *every* T, against (D^2/2 + G^2/2) sqrt(T) for the fixed 1/sqrt(T) tuned to one
known T: the same rate, a constant at most 2x, no T to know, and no restart (the doubling trick, Cesa-Bianchi &
Lugosi 2006 Section 2.3, gets the same rate by restarting at T = 2^k, throwing the model away each time).

A capped step eta_t = min(c, 1/sqrt(t)) is still non-increasing, so the bound above holds for it with the same rate;
the random-feature learners take c = 1/(2 ||z||^2) (:func:`anytime_step`): a squared-loss gradient step of size eta on
features z moves the prediction's residual e to e (1 - 2 eta ||z||^2), which never overshoots when
2 eta ||z||^2 <= 1 (with the authors' unnormalised features ||z_k||^2 = D = 50 exactly, so c = 0.01: the literal
1/sqrt(t) would diverge for the first D^2 = 2,500 examples, the spec's stability note).

**The targets** (``standardize_y``).  The regressors' losses and steps assume targets of order 1 (the AMKL data are
scaled to [0, 1]); River's TrumpApproval has targets near 40, and a learner starting from f = 0 with steps 1/sqrt(t)
spends its stream catching up.  With ``standardize_y=True`` (the default) the learner learns z_t = (y_t - m_t) / s_t
with m_t, s_t the running mean and standard deviation of the targets it has learned from (Welford's update; s = 1
until two different targets are seen), and predicts m + s f(x) with the statistics *before* y_t (the prediction of
the online protocol never uses y_t).  ``standardize_y=False`` is the papers' (and the reproduction configs').  The
same device as River's ``preprocessing.TargetStandardScaler``, inside the learner, so that an active learner (AMKL)
updates the statistics only with the labels it asked for.

>>> s = TargetScale(True)
>>> [round(s.learn(y), 3) for y in (40.0, 42.0, 38.0)]        # each target against the statistics including it
[0.0, 1.0, -1.225]
>>> round(s.out(0.5), 3), round(s.mean, 3), round(s.std, 3)    # the prediction m + s f
(40.816, 40.0, 1.633)
>>> off = TargetScale(False); off.learn(40.0), off.out(0.5)    # the papers: y and f as they are
(40.0, 0.5)
"""
from __future__ import annotations

import math

import numpy as np

from ..registry import Param, value_type

#: the step schedule (named step_size: a parameter may not shadow the learner's ``step`` method)
STEP_SIZE = Param("step_size", "auto", "step schedule: auto (1/sqrt(horizon) when a horizon is given, else the anytime "
                  "1/sqrt(t); the default) | sqrt_T (eta = 1/sqrt(T) every round, T = horizon or the rows of the data "
                  "first bound: the papers) | sqrt_t (eta_t = 1/sqrt(t))", type=str,
                  choices=("auto", "sqrt_T", "sqrt_t"), legacy="sqrt_T")

#: T of the step 1/sqrt(T)
HORIZON = Param("horizon", 0, "T of the step 1/sqrt(T); 0 = none given: step_size=sqrt_T takes the rows of the data "
                "first bound (the engine's stream length), step_size=auto the anytime step", type=int,
                check=lambda v: v >= 0, requirement=">= 0")

STANDARDIZE_Y = Param("standardize_y", True, "learn on (y - m)/s with the running mean m and std s of the targets "
                      "learned from, predict m + s f (default); false = on y as it is (the papers)", type=bool,
                      legacy=False)


def anytime_step(t: int, cap: float = math.inf) -> float:
    """eta_t = min(cap, 1/sqrt(t)) (module docstring; t >= 1)."""
    return min(cap, 1.0 / math.sqrt(t))


def step_of(step_size: str, horizon: int, rows: int, t: int, cap: float = math.inf) -> float | None:
    """The step of round t (t >= 1) under ``step_size`` (module docstring): the fixed 1/sqrt(T) of ``sqrt_T`` with
    T = ``horizon`` or ``rows`` (None when neither is known), 1/sqrt(t) for ``sqrt_t``; ``auto`` is 1/sqrt(horizon)
    or the anytime step, both capped at ``cap``."""
    if step_size == "sqrt_t":
        return 1.0 / math.sqrt(t)
    if step_size == "sqrt_T":
        T = horizon or rows
        return 1.0 / math.sqrt(T) if T >= 1 else None
    return min(cap, 1.0 / math.sqrt(horizon)) if horizon else anytime_step(t, cap)


@value_type
class TargetScale:
    """The running standardisation of the targets (``standardize_y``, module docstring); an identity when off.
    Data only (a saved model holds it: :func:`~olk.algorithms.registry.value_type`)."""

    def __init__(self, on: bool):
        self.on = bool(on)
        self.n = 0              # targets learned from
        self.mean = 0.0
        self._m2 = 0.0          # sum of squared deviations from the mean (Welford)

    @property
    def std(self) -> float:
        """The running (population) standard deviation, 1.0 until it is positive."""
        sd = math.sqrt(self._m2 / self.n) if self.n else 0.0
        return sd if sd > 0.0 else 1.0

    def learn(self, y: float) -> float:
        """Take target y into the statistics; the value to learn: (y - m)/s (y itself when off)."""
        if not self.on:
            return y
        self.n += 1
        d = y - self.mean
        self.mean += d / self.n
        self._m2 += d * (y - self.mean)
        return (y - self.mean) / self.std

    def out(self, f):
        """A prediction in the targets' units: m + s f (f itself when off); f a number or an array."""
        if not self.on:
            return f
        return self.mean + self.std * (f if isinstance(f, float) else np.asarray(f))

    @property
    def scale(self) -> float:
        """s of f -> m + s f (1.0 when off)."""
        return self.std if self.on else 1.0

    @property
    def shift(self) -> float:
        """m of f -> m + s f (0.0 when off)."""
        return self.mean if self.on else 0.0
