"""The core of online multiple kernel learning with mistake bounds (Jin, Hoi & Yang, "Online multiple kernel
learning: algorithms and mistake bounds", ALT 2010, Algorithms 1-6): what the six learners share.

* :class:`ALTCore`: m kernel Perceptrons on one shared SV pool (an
  :class:`~olk.algorithms.multikernel.core.KernelClassifiers`), the Hedge parameter ``beta`` (or the eq. (5) schedule
  :func:`doubling_beta`), the stochastic updates' smoothing ``delta`` and ``bound`` (evaluate the theorem's mistake
  bound on the stream learned: :mod:`olk.algorithms.omkl.bounds`);
* :class:`OMKLOCore`: OMKL by outputs (Algorithms 5 and 6): the output combination, log-domain weights, the
  incremental RKHS norms and the projection;
* :func:`sample_one`: the single-update sampling of Algorithms 3 and 6.

>>> from olk.algorithms import make
>>> from olk.kernels import KernelSet
>>> m = make("omkl_p1", kernel=KernelSet.preset("spa16"))
>>> isinstance(m, ALTCore), m.n_cols
(True, 16)
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.svpool import dot, exp_array
from ..common.learner import OnlineKernelLearner
from ..multikernel.core import KernelClassifiers
from ..registry import POSITIVE, Param

#: the Hedge discount beta of every ALT 2010 algorithm (the paper gives no value; 0.99 is the SPA paper's
#: Section 6.2.4 discount for OMKC, so omkl_p1 = omkc_dd at the defaults)
BETA = Param("beta", 0.99, "Hedge discount beta in (0, 1): w_i <- w_i * beta^(loss_i)",
             check=lambda v: 0.0 < v < 1.0, requirement="in (0, 1)")


#: smoothing of the stochastic algorithms' sampling distribution p (ALT 2010: delta in (0, 1); no value given)
DELTA = Param("delta", 0.1, "smoothing of the sampling probabilities p (ALT 2010 Algorithms 3, 4, 6)",
              check=lambda v: 0.0 < v <= 1.0, requirement="in (0, 1]")


#: evaluate the paper's mistake bound on the run (olk.algorithms.omkl.bounds)
BOUND = Param("bound", False, "evaluate the algorithm's ALT 2010 mistake bound on the stream it learned from "
              "(run_summary 'mistake_bound'; comparator: a bias-free kernel SVM per kernel, see "
              "olk.algorithms.omkl.bounds)", type=bool)


SCHEDULE = Param("schedule", "fixed", "discount schedule: fixed (beta, Theorem 2) or doubling (beta_k of eq. (5), "
                 "Theorem 5; beta is then unused)", type=str, choices=("fixed", "doubling"))


def doubling_beta(k: int, m: int) -> float:
    """beta_k = 2^(k/2) / (sqrt(ln m) + 2^(k/2)) (ALT 2010 eq. (5)); 1 for one kernel (no Hedge to tune).

    >>> [round(doubling_beta(k, 16), 4) for k in range(4)]
    [0.3752, 0.4593, 0.5457, 0.6294]
    """
    a = math.ldexp(1.0, k // 2) * (math.sqrt(2.0) if k % 2 else 1.0)    # 2^(k/2), the same bits on every host
    return a / (math.sqrt(math.log(m)) + a)


class ALTCore(KernelClassifiers, OnlineKernelLearner):
    """What the ALT 2010 learners share on top of ``KernelClassifiers`` (shared SV pool, one column per kernel,
    ``weights_`` = the normalised weights q_t = w_t / W_t, per-kernel #SV and mistakes): the stream record
    the mistake bound is evaluated on (kept only with ``bound=True``; never pickled) and ``run_summary``
    extended with each algorithm's own facts and, with ``bound=True``, its theorem's bound.

    Weights: the paper keeps w_t (w_1 = 1) and predicts / samples with q_t = w_t / W_t; olk keeps q_t itself,
    renormalised after every change (the same q_t without the underflow of beta^T), as every OMKC row does.
    """

    #: the theorem of ALT 2010 bounding this algorithm's (expected) mistakes
    theorem = ""

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self._stream: list = []          # [(RowSource, rows, labels)] seen, for the bound (bound=True only)
        self._stream_src = None

    def _remember(self, i, y) -> None:
        if self.src is not self._stream_src:
            self._stream.append((self.src, [], []))
            self._stream_src = self.src
        seg = self._stream[-1]
        seg[1].append(i)
        seg[2].append(y)

    def stream_data(self):
        """(X, y) of the examples learned from (bound=True), rows in data order: the bound does not depend on
        the order (every theorem's comparator term is a sum over the stream)."""
        import scipy.sparse as sp
        parts, ys = [], []
        for src, rows, labels in self._stream:
            order = np.argsort(np.asarray(rows), kind="stable")
            parts.append(src.matrix()[np.asarray(rows)[order]])
            ys.append(np.asarray(labels, dtype=np.float64)[order])
        if not parts:
            return None, None
        X = sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.vstack(parts)
        return X, np.concatenate(ys)

    def _extra_summary(self) -> dict:
        return {}

    def bound_value(self, comp) -> tuple[float, dict]:  # pragma: no cover - abstract
        """(the theorem's bound with comparator ``comp``, details for the run summary)."""
        raise NotImplementedError

    def run_summary(self) -> dict:
        """``KernelClassifiers``' (kernel_weights, sv_per_kernel, mistakes_per_kernel) + this algorithm's own facts;
        with ``bound=True`` also ``mistake_bound`` (the theorem's bound on this stream), ``bound_theorem`` and
        the comparator's details (see :func:`olk.algorithms.omkl.bounds.evaluate`)."""
        out = super().run_summary()
        out.update(self._extra_summary())
        if self.bound and self._stream:
            from .bounds import evaluate
            out.update(evaluate(self))
        return out

    def __getstate__(self):
        state = super().__getstate__()
        state["_stream"], state["_stream_src"] = [], None          # a pickle holds the model, not the data
        return state


def sample_one(p: np.ndarray, u: float) -> int:
    """Multi_Sample(p) with one uniform u in [0, 1): the first i with u < p_1 + ... + p_i (the last index if
    rounding leaves the cumulative sum below u)."""
    return min(int(np.searchsorted(np.cumsum(p), u, side="right")), p.shape[0] - 1)


#: the radius R of the domains Omega_i = {f : ||f||_{H_i} <= R} (the paper gives no value; 5 satisfies Theorem
#: 8's condition R^2 ln(1/beta) < 1 for beta = 0.99: 25 * 0.01005 = 0.25)
RADIUS = Param("R", 5.0, "maximum functional norm: each f_i is projected onto ||f_i||_H <= R", **POSITIVE)


class OMKLOCore:
    """Mixin (list it before :class:`ALTCore`): OMKL-O (ALT 2010 Section 5): prediction sign(q . f(x)) from the
    classifiers' outputs, weights kept as logarithms (w_i <- w_i beta^(-y f_i(x)) multiplies by exp(y f_i(x)
    ln(1/beta)), which over- or underflows quickly), and each f_i's squared RKHS norm ``sqnorms_`` kept up to date
    in O(1) per update from f_i(x_t), which the prediction already computed:

        ||f_i + c k_i(x_t, .)||^2 = ||f_i||^2 + 2 c f_i(x_t) + c^2 k_i(x_t, x_t),

    then the projection onto Omega_i = {||f||_{H_i} <= R}, f_i <- f_i / max(1, ||f_i|| / R), is one scale of
    column i (``pool.scale_col``): never a Gram matrix.  ``n_projections_[i]`` counts the scalings of f_i.
    """

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)  # type: ignore[call-arg]  # the next base
        m = len(self.kernels)
        self._log_w = np.zeros(m)                           # ln w_i (w_1 = 1)
        self._ln_inv_beta = -math.log(self.beta)            # ln(1/beta) > 0
        self.sqnorms_ = np.zeros(m)                         # ||f_i||^2_{H_i}
        self.n_projections_ = np.zeros(m, dtype=np.int64)
        self._kxx = np.zeros(m)

    def _params_changed(self, changed: dict) -> None:
        self._ln_inv_beta = -math.log(self.beta)

    @property
    def norms_(self) -> np.ndarray:
        """||f_i||_{H_i} of every kernel classifier (<= R after every update)."""
        return np.sqrt(self.sqnorms_)

    def _predict_outputs(self, i):
        """Step t's outputs f_i(x_t) and the combined score q_t . f_t(x_t), before any update."""
        self.t += 1
        f = self._buf
        self.pool.decision(self.src, i, f)
        return f, dot(self.weights_, f)

    def _hedge(self, loss_scale: np.ndarray) -> None:
        """ln w_i += loss_scale_i ln(1/beta) (i.e. w_i <- w_i beta^(-loss_scale_i)); q = w / W."""
        self._log_w += loss_scale * self._ln_inv_beta
        self._log_w -= self._log_w.max()                    # w / max w: same q, no overflow
        w = exp_array(self._log_w)
        self._reweight(w)

    def _add_and_project(self, i, f, coefs: np.ndarray) -> None:
        """f_k <- Pi_R(f_k + coefs_k k_k(x_t, .)) for every k with coefs_k != 0 (one stored SV)."""
        cols = np.flatnonzero(coefs)
        for k in cols:
            self._kxx[k] = self.pool.self_kernel(self.src, i, k)
        self._store(i, coefs != 0.0, coefs)
        sq = self.sqnorms_ + 2.0 * coefs * f + coefs * coefs * self._kxx
        np.maximum(sq, 0.0, out=sq)
        r2 = self.R * self.R
        for k in cols:
            if sq[k] > r2:                                  # ||f~|| > R: scale by R / ||f~||
                factor = self.R / math.sqrt(sq[k])
                self.pool.scale_col(k, factor)
                sq[k] *= factor * factor
                self.n_projections_[k] += 1
        self.sqnorms_ = np.where(coefs != 0.0, sq, self.sqnorms_)

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """The combined output q . f(x) on every row of X (summed in kernel order, as ``step``)."""
        F = self.classifier_scores(X)
        out = np.zeros(F.shape[0])
        for k, w in enumerate(self.weights_.tolist()):
            out += w * F[:, k]
        return out

    def _extra_summary(self) -> dict:
        return {"norms": self.norms_.tolist(), "projections_per_kernel": self.n_projections_.tolist()}
