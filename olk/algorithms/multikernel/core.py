"""The core of online multiple kernel classification (OMKC: Hoi, Jin, Zhao & Yang, Machine Learning 2013; the
SPA paper's Section 4.1 and Table 5): m single-kernel classifiers f_i on ONE shared SV pool (column i <-> kernel
i; an example several classifiers err on is stored once) and their Hedge-weighted combination, with the
parameters every OMKC row shares (``discount``, ``delta``, ``component``, ``eta``, ``combine``).

Every multi-kernel classifier of olk has :class:`KernelClassifiers` (the m classifiers on one pool, their
Hedge weights, the combination): the deterministic and stochastic OMKC rows (``omkc_dd``, ``omkc_sd``,
``omkc_u``, ``omkc_ddpa``, ``omkc_sdpa``, ``bomkc_spa_dd``: :class:`OMKCCore`), their bounded variants
(:mod:`~olk.algorithms.multikernel.bounded`), the ALT 2010 learners (:mod:`olk.algorithms.omkl`) and OKS
(:mod:`olk.algorithms.selection.oks_core`).  An OMKC row says which classifiers may update (deterministic: all
that err; stochastic: a Bernoulli draw per classifier) and how one classifier updates (Perceptron or PA-I).

>>> from olk.algorithms import make
>>> from olk.kernels import KernelSet
>>> m = make("omkc_dd", kernel=KernelSet.preset("spa16"))
>>> isinstance(m, OMKCCore), m.n_cols, len(m.kernels)
(True, 16, 16)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.svpool import dot
from ..common.inputs import check_finite_X, n_rows
from ..common.learner import OnlineKernelLearner
from ..common.losses import pa_step
from ..registry import POSITIVE, Param

#: Hedge discount factor (SPA Section 6.2.4: 0.99); Hoi et al. call it beta, the SPA paper gamma
DISCOUNT = Param("discount", 0.99, "Hedge discount: theta_i <- theta_i * discount when classifier i errs",
                 check=lambda v: 0.0 < v <= 1.0, requirement="in (0, 1]")


#: smoothing of the stochastic update's sampling probabilities (SPA Section 6.2.4: 0.001)
DELTA = Param("delta", 0.001, "smoothing: classifier i is updated with probability (1-delta) theta_i/max theta + delta",
              check=lambda v: 0.0 < v <= 1.0, requirement="in (0, 1]")


#: the single-kernel learner of each classifier f_i: the Perceptron (OMKC) or PA-I (the SPA paper's "-PA" rows)
COMPONENT = Param("component", "perceptron", "learner of each kernel classifier: perceptron (on mistakes) or pa "
                  "(PA-I on margin errors)", type=str, choices=("perceptron", "pa"))


#: the PA variants' "learning rate" (SPA Section 6.2.4: 0.1), read as PA-I's aggressiveness C
ETA = Param("eta", 0.1, "PA-I aggressiveness of each kernel classifier: tau_i = min(eta, l_i / k_i(x, x))",
            **POSITIVE)


#: how the m classifiers are combined into the prediction.  Default ``vote``: sum_i theta_i sign(f_i(x)) with
#: sign(0) = 0, the combination of the cited original -- Jin, Hoi & Yang (ALT 2010), whose OMKL-P ("by
#: Predictions", Algorithms 1-4, the Perceptron + Hedge algorithms that Hoi et al. 2013 publish as OMKC) predicts
#: sign(q_t . sign(f_t(x_t))), and the SPA paper's own Algorithms 2-4, which print sign(sum theta sign[f]).
#: Neither paper says what sign(0) is; olk's vote lets a classifier scoring exactly 0 abstain.
#: ``vote_plus``: the same vote with sign(0) = +1 (a classifier scoring 0 -- untrained, or a Gaussian so narrow
#: that k(x, x') underflows to 0 between distinct rows -- votes +1, as a C-style f >= 0 ? 1 : -1 would).
#: ``real``: sum_i theta_i f_i(x), the real-valued combination of the SPA paper's Eq. (2) (its description of
#: OMKC in Section 4.1) and of ALT 2010's OMKL-O.  The two alternatives are offered to test the paper's U and
#: stochastic rows in Table 5 (50.00 +- 0.00 on madelon): results/notes/spa_tist2018_table5.md.
#: The combination changes the prediction only: the classifiers, their updates and the Hedge weights are the same.
COMBINE = Param("combine", "vote", "prediction: vote = sign(sum_i theta_i sign(f_i(x))), sign(0) = 0 (Jin et al. "
                "ALT 2010 OMKL-P, SPA Algorithms 2-4); vote_plus = the same with sign(0) = +1; real = "
                "sign(sum_i theta_i f_i(x)) (SPA Eq. 2, ALT 2010 OMKL-O)",
                type=str, choices=("vote", "vote_plus", "real"))


#: the Hedge indicator's test, declared by the learners whose algorithm says which test it is.  ``mistake``:
#: z_i = I(y f_i(x) <= 0), the mistake of Jin, Hoi & Yang (ALT 2010, Algorithms 1-4) and Hoi et al. 2013, the
#: cited original of the SPA paper's unbounded OMKC rows, for which the SPA paper prints no algorithm.
#: ``strict``: z_i = I(y f_i(x) < 0), the indicator as the SPA paper's Algorithms 2-4 print it (BOMKC(SPA),
#: bounded OMKC(DD), bounded OMKC(SD)), under which a classifier scoring exactly 0 is never discounted.  The
#: literal reproduction configs use ``strict`` for those three and ``mistake`` for the unbounded rows; the fitted
#: Table 5 reading uses ``strict`` for SDPA alone (results/notes/spa_tist2018_table5.md, "SDPA").  Only the Hedge
#: discount reads it: the classifiers' own updates (Perceptron on y f <= 0, PA-I on a margin error) are the same.
HEDGE = Param("hedge", "mistake", "Hedge discount test: mistake = discount classifier i when y f_i(x) <= 0; strict "
              "= when y f_i(x) < 0 (SPA Algorithms 2-4 as printed)", type=str, choices=("mistake", "strict"))


class KernelClassifiers:
    """Mixin (list it before :class:`~olk.algorithms.common.learner.OnlineKernelLearner`): m single-kernel
    classifiers f_i on one shared SV pool (column i <-> kernel i) and their Hedge-weighted combination theta
    (``weights_``), what every multi-kernel classifier of olk has: OMKC (:class:`OMKCCore`), bounded OMKC
    (:mod:`~olk.algorithms.multikernel.bounded`), the ALT 2010 learners (:mod:`olk.algorithms.omkl`) and OKS
    (:mod:`olk.algorithms.selection.oks_core`).  It gives the prediction (:meth:`_predict`), the storage of x_t
    for the classifiers that learn (:meth:`_store`), the Hedge discount (:meth:`_discount`), the sampling of OMKC's
    stochastic update (:meth:`_sampled`), the per-kernel counts and the outputs; each learner writes its ``step``.
    Readings shared by every learner: see :class:`OMKCCore`.
    """

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    n_updates: int                  # the root's counters (KernelEstimator)
    t: int
    max_kernels = 64
    #: a learner that does not take ``combine`` votes (sign(0) = 0); one that does not take ``hedge`` discounts on
    #: mistakes (y f_i <= 0)
    fixed = {"combine": COMBINE.default, "hedge": HEDGE.default}

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)  # type: ignore[call-arg]  # the next base
        m = len(self.kernels)
        self.n_cols = m                                     # one coefficient column per kernel classifier
        self._buf = np.zeros(m, dtype=np.float64)
        self._ones = np.ones(m, dtype=np.float64)
        self.weights_ = np.full(m, 1.0 / m)                 # theta: combination weights, sum 1
        self.sv_per_kernel_ = np.zeros(m, dtype=np.int64)   # SVs of each classifier f_i (its updates)
        self.mistakes_per_kernel_ = np.zeros(m, dtype=np.int64)  # online mistakes z_i of each f_i

    def column_kernels(self) -> list[int]:
        return list(range(len(self.kernels)))

    @property
    def n_sv_output(self) -> int:
        """SVs summed over the m kernel classifiers (the SPA paper's #SV for OMKC)."""
        return int(self.sv_per_kernel_.sum())

    def _kernel_weights(self):
        """theta, the combination weights (kernel order)."""
        return self.weights_

    def run_summary(self) -> dict:
        """Recorded with every run: the final combination weights theta (kernel order, so a table can show
        which kernels won), each classifier's #SV and online mistakes."""
        return {"kernel_weights": self.weights_.tolist(), "sv_per_kernel": self.sv_per_kernel_.tolist(),
                "mistakes_per_kernel": self.mistakes_per_kernel_.tolist()}

    # ------------------------------------------------------------------ the algorithm
    def _vote(self, f: np.ndarray) -> float:
        """The combined score sum_i theta_i s_i, summed in kernel order, s_i from ``_signs``."""
        return dot(self.weights_, self._signs(f))

    def _signs(self, f: np.ndarray) -> np.ndarray:
        """What each classifier contributes to the combination (``combine``): sign(f_i) with sign(0) = 0
        (vote), sign(f_i) with sign(0) = +1 (vote_plus), or f_i itself (real).  A learner that does not declare
        the ``combine`` parameter (the bounded ones) votes."""
        combine = self.combine
        if combine == "real":
            return f
        if combine == "vote_plus":
            return np.where(f >= 0.0, 1.0, -1.0)
        return np.sign(f)

    def _update_probs(self) -> np.ndarray:
        """OMKC's stochastic-update probabilities p_i = (1 - delta) theta_i / max_j theta_j + delta."""
        theta = self.weights_
        return (1.0 - self.delta) * (theta / theta.max()) + self.delta

    def _sampled(self) -> np.ndarray | None:
        """Stochastic update: which classifiers may update at this step (None: all of them)."""
        if not self.stochastic:
            return None
        return self.rng.random(self.weights_.shape[0]) < self._update_probs()

    def _store(self, i, upd, coefs) -> None:
        """x_t joins the pool ONCE, with coefs[k] in the column of every classifier k that learned (upd[k])."""
        self.pool.add(self.src, i, coefs, self.t)
        self.sv_per_kernel_ += upd
        self.n_updates += 1

    def _reweight(self, theta) -> None:
        """weights_ <- theta / sum_j theta_j (summed in kernel order with olk's fixed-order ``dot``)."""
        self.weights_ = theta / dot(theta, self._ones)

    def _discount(self, mask, factor) -> None:
        """Hedge: theta_i <- theta_i factor where mask (factor: a number or one per kernel), renormalised."""
        self._reweight(np.where(mask, self.weights_ * factor, self.weights_))

    def _predict(self, i, y):
        """Step t's prediction, before any update: (f_i(x_t) for every kernel, the combined score, the
        mistakes z_i = I(y_t f_i(x_t) <= 0))."""
        self.t += 1
        f = self._buf
        self.pool.decision(self.src, i, f)                  # f_i(x_t) for every kernel, one pass over the SVs
        return f, self._vote(f), y * f <= 0.0

    def _hedge_indicator(self, y, f, wrong) -> np.ndarray:
        """Hedge's z_i (``HEDGE``): the mistakes ``wrong`` (y f_i <= 0), or y f_i < 0 for a learner whose
        ``hedge`` is ``strict``; a learner that does not declare ``hedge`` discounts on mistakes."""
        return y * f < 0.0 if self.hedge == "strict" else wrong

    # ------------------------------------------------------------------ outputs
    def classifier_scores(self, X) -> np.ndarray:
        """(n_rows, m) scores f_i(x) of the m kernel classifiers on every row of X."""
        if self.pool is None:
            check_finite_X(X)
            return np.zeros((n_rows(X), len(self.kernels)))
        return self.pool.decision_matrix(self._source_for(X))

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """The combined score sum_i theta_i sign(f_i(x)) (``combine``: see ``_signs``) on every row of X (same
        order of sums as ``step``)."""
        V = self._signs(self.classifier_scores(X))
        out = np.zeros(V.shape[0])
        for k, w in enumerate(self.weights_.tolist()):
            out += w * V[:, k]
        return out


class OMKCCore(KernelClassifiers, OnlineKernelLearner):
    """m single-kernel classifiers on one shared SV pool (column i <-> kernel i) and their Hedge-weighted vote.

    Subclasses choose ``stochastic`` (sample the classifiers allowed to update: OMKC's stochastic update);
    the parameter ``component`` picks each classifier's update (Perceptron on a mistake, or PA-I with
    aggressiveness ``eta`` on a margin error: the SPA paper's "-PA" rows; ``eta`` is unused by the
    Perceptron) and ``discount`` = 1 freezes theta at 1/m (OMKC(U)).

    PA readings: the "learning rate 0.1" of SPA Section 6.2.4 is PA-I's aggressiveness C (as ``eta`` is for
    SPA); the Hedge discount stays on mistakes z_i (Section 6.2.3 replaces only the classifier update);
    k_i(x, x) = 0 (a zero row under a polynomial kernel) gives tau_i = eta, as in ``pa1``.

    Readings shared by every variant (where Hoi et al. 2013 / the SPA paper leave a choice):

    * z_i = I(y f_i(x) <= 0) (Hoi et al.; ALT 2010 Algorithm 1), both for the Perceptron update and for the
      Hedge discount; SPA Algorithms 2-4 print "< 0", which would never discount an untrained classifier
      (f_i = 0, e.g. a Gaussian with sigma = 2^-6 whose kernel underflows to 0 between distinct rows).
    * the vote uses sign(0) = 0 for a classifier (f_i(x) = 0 abstains); the final prediction is the olk
      convention sign(score) with sign(0) = +1, where score = sum_i theta_i sign(f_i(x)) is what ``step``
      and ``decision_function`` return.
    * theta starts at 1/m and is renormalised to sum 1 after every step (SPA Algorithms 2-4; Hoi et al. start
      at w = 1 and never normalise: the same votes and probabilities, without the underflow of 0.99^T).
    * sums over the m classifiers are taken in kernel order with olk's fixed-order ``dot`` (bit-identical
      results on every machine).
    * #SV: the SPA paper counts "the total number of SVs used by all single-kernel classifiers", here
      ``n_sv_output`` (= ``sv_per_kernel_.sum()``); ``n_sv`` is the number of distinct stored rows in the
      shared pool (<= n_sv_output, the memory actually used).
    * one kernel (m = 1) is accepted: the learner is then the single-kernel Perceptron (or PA-I) itself.
    """

    def step(self, i, y):
        f, score, wrong = self._predict(i, y)               # predict first ...
        chosen = self._sampled()                            # m_i (stochastic update) or None
        z = self._hedge_indicator(y, f, wrong)              # Hedge's indicator z_i (HEDGE)
        hedged = z if chosen is None else z & chosen
        if self.component == "pa":                         # PA-I on a margin error l_i > 0
            loss = 1.0 - y * f
            upd = loss > 0.0 if chosen is None else (loss > 0.0) & chosen
            coefs = np.zeros_like(f)
            for k in np.flatnonzero(upd):
                coefs[k] = y * pa_step(self.eta, loss[k], self.pool.self_kernel(self.src, i, k))
        else:                                               # Perceptron on a mistake y f_i <= 0
            upd = wrong if chosen is None else wrong & chosen
            coefs = np.where(upd, y, 0.0)
        if upd.any():                                       # ... then learn: one stored SV for all classifiers
            self._store(i, upd, coefs)
        if hedged.any():                    # Hedge: theta_i <- theta_i gamma^{z_i m_i}
            self._discount(hedged, self.discount)
        self.mistakes_per_kernel_ += wrong
        return score
