"""OMKL-AKS: online multi-kernel regression with adaptive kernel selection, S. Hong & J. Chae, "Active Learning
with Multiple Kernels", IEEE TNNLS 2022 (arXiv 2005.03188), Algorithm 1, eqs. (23)-(32), Remark 1 and
Example 1.  The formulas follow ``../shared/spec/amkl_raker.md`` Section 3 (the paper text lost its
equations).  The module also holds the subset machinery AMKL-AKS (:mod:`olk.algorithms.random_features.amkl_aks`)
reuses:
the subset size p_t (23), the Balls-Bins collection (26)-(28) and the subset PMF (29)-(30).

Kernel functions and weights are exactly Raker's (every kernel learns every round, as Theorem 1's proof
needs); only the prediction uses a random subset S_t of the kernels, drawn with probabilities that make its
conditional mean Raker's prediction.  So the literal algorithm can only match or lose to Raker in expected
squared loss (spec Section 3, Caveat): the published gains of Table II are not reproduced by it.

>>> import numpy as np
>>> from olk.algorithms import make
>>> from olk.algorithms.random_features.omkl_aks import balls_bins, subset_pmf
>>> B = balls_bins(4, 2, 2, np.random.default_rng(0))       # K = 4 kernels, p = 2, r = 2: N = 4 bins
>>> B.shape, B.sum(axis=0).tolist()                           # every kernel in exactly r = 2 bins
((4, 4), [2, 2, 2, 2])
>>> float(subset_pmf(B, np.array([0.1, 0.2, 0.3, 0.4]), 2).sum())
1.0
>>> rng = np.random.default_rng(0)
>>> X = rng.random((3000, 3))
>>> y = 0.5 + 0.3 * np.sin(4 * X[:, 0]) + 0.2 * X[:, 1] ** 2 + 0.02 * rng.standard_normal(3000)
>>> m = make("omkl_aks", kernel="amkl17", random_state=0, step_size="sqrt_T", standardize_y=False)   # eq. (57)
>>> m.bind(X).shape
(3000, 3)
>>> mse = np.mean([(m.step(i, y[i]) - y[i]) ** 2 for i in range(3000)])      # Raker on this stream: 0.015
>>> round(float(mse), 3), m.n_updates, 1 <= m.last_subset_size_ <= 17           # the Caveat: >= Raker's
(0.025, 3000, True)
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..registry import NumberOr, Param, register
from .core import CORE_PARAMS, RandomFeatureMKL

ONE_OVER_K = "1/K"
R_EQUALS_P = "p"


DELTA = Param("delta", ONE_OVER_K, f"subset-size threshold: p_t = max(1, #{{k: q_t,k >= delta}}) (23, INFERRED); "
              f"'{ONE_OVER_K}' (default) or a number in [0, 1]; 0 = all kernels = Raker", type=NumberOr(ONE_OVER_K),
              check=lambda v: v == ONE_OVER_K or 0.0 <= v <= 1.0, requirement=f"in [0, 1] or '{ONE_OVER_K}'")
R = Param("r", R_EQUALS_P, f"Balls-Bins frequency r_t: bins N_t = floor(K r_t / p_t) (26); '{R_EQUALS_P}' (default, "
          f"INFERRED: r_t = p_t, N_t = K) or an integer >= 1", type=NumberOr(R_EQUALS_P, integer=True),
          check=lambda v: v == R_EQUALS_P or v >= 1, requirement=f">= 1 or '{R_EQUALS_P}'")
ETA_G_SCHEDULE = Param("eta_g_schedule", "fixed", "ABLATION, not the paper's OMKL-AKS: 'ln_k_over_sqrt_t' uses the "
                       "time-varying weight step eta_g,t = ln K / sqrt(t) of the authors' main_OFL.m (spec Section 7) "
                       "instead of the fixed eta_g (default 'fixed')", type=str, choices=("fixed", "ln_k_over_sqrt_t"))


# --------------------------------------------------------------------------------- the subsets
def subset_size(q: np.ndarray, delta: float) -> int:
    """p_t = max{1, |{k : q_k >= delta}|} (23; INFERRED: the paper's prose only)."""
    return max(1, int(np.count_nonzero(q >= delta)))


def balls_bins(K: int, p: int, r: int, rng: np.random.Generator) -> np.ndarray:
    """The reduced collection of Remark 1 (26)-(27): N = floor(K r / p) bins; each kernel (ball) is put into r
    DISTINCT bins drawn uniformly without replacement, independently across kernels.  Returns the (N, K) boolean
    membership matrix (row n = subset S_n): every column has exactly r True entries (uniform frequency); bins hold
    p kernels on average, some may be empty.  One (K, N) uniform draw: kernel k goes into the bins of its r
    smallest keys (a uniformly random r-subset; keys tie with probability 0)."""
    N = (K * r) // p
    keys = rng.random((K, N))
    kth = np.partition(keys, r - 1, axis=1)[:, r - 1:r]      # each kernel's r-th smallest key
    return (keys <= kth).T


def subset_pmf(B: np.ndarray, q: np.ndarray, r: int) -> np.ndarray:
    """P(n) = (1/r) sum_{k in S_n} q_k (29)-(30): a PMF over the bins because every kernel is in exactly r of them."""
    return (B @ q) / r


def sample_bin(P: np.ndarray, u: float) -> int:
    """The bin n ~ P drawn with one uniform u in [0, 1): the first n with u * sum(P) < P_1 + ... + P_n (scaling by
    the sum keeps rounding from ever choosing a bin of probability 0)."""
    c = np.cumsum(P)
    return int(np.searchsorted(c, u * c[-1], side="right"))


class AKSSubsets:
    """Mixin: the random kernel subset S_t of OMKL-AKS / AMKL-AKS (23)-(30), from the weights q it is given.

    Each round (rebuilt every round, spec Section 3.3): p_t (23) from q, r_t = ``r`` or p_t, the Balls-Bins
    collection with N_t = floor(K r_t / p_t) bins, J_t ~ P_t (29), S_t = S_{J_t}.  When p_t = K every bin holds
    all K kernels (each kernel is in r_t of N_t = r_t bins), so S_t = [K] and no random number is drawn: then the
    learner is Raker (AMKL) bit for bit.  Random numbers: the learner's ``rng`` (one (K, N_t) uniform block for
    the bins, then one uniform for J_t); the random features come from their own stream.
    """

    if TYPE_CHECKING:       # the hyper-parameters (one attribute per Param) and the learner's state, set at run time
        def __getattr__(self, name: str) -> Any: ...

    def _delta(self) -> float:
        return 1.0 / len(self.kernels) if self.delta == ONE_OVER_K else self.delta

    def _subset(self, q: np.ndarray) -> np.ndarray | None:
        """The boolean mask of S_t, or None for S_t = all kernels."""
        K = q.shape[0]
        p = subset_size(q, self._delta())
        self.last_subset_size_ = p
        if p >= K:
            return None
        r = p if self.r == R_EQUALS_P else self.r
        B = balls_bins(K, p, r, self.rng)
        S = B[sample_bin(subset_pmf(B, q, r), self.rng.random())]
        return None if S.all() else S


def combine(q: np.ndarray, f: np.ndarray, S: np.ndarray | None) -> tuple[float, np.ndarray, np.ndarray]:
    """(y_hat, q_bar, f_S): the prediction on S_t with the weights renormalised on it, q_bar_k = w_k / sum_{j in S_t}
    w_j (31)-(32); S = None: all kernels, q as it is (Raker's sum_k q_k f_k, bit for bit)."""
    if S is None:
        return float(q @ f), q, f
    qs = q[S]
    qs = qs / qs.sum()
    fs = f[S]
    return float(qs @ fs), qs, fs


@register
class OMKLAKS(AKSSubsets, RandomFeatureMKL):
    """OMKL-AKS (Hong & Chae, TNNLS 2022, Algorithm 1; eqs. 23-32, Remark 1).

    Pseudo-code (spec Section 3):
        theta_1,k = 0, w_1,k = 1;  for t = 1..T:
            f_k = theta_k' z_k(x_t) for every k;  q_k = w_k / sum_j w_j
            p_t = max(1, #{k: q_k >= delta})                                    (23, INFERRED; delta = 1/K)
            Balls-Bins: N_t = floor(K r_t / p_t) bins, each kernel into r_t distinct bins  (26)-(28), r_t = p_t
            J_t ~ P_t(n) = (1/r_t) sum_{k in S_n} q_k;  S_t = S_{J_t}                  (29)-(30)
            predict y_hat = sum_{k in S_t} w_k f_k / sum_{j in S_t} w_j                 (31)-(32)
            Raker's local OGD (17) and exponential weights (21) on ALL K kernels

    Literal default vs labelled options: ``delta`` = 1/K (0: p_t = K every round = Raker bit for bit), ``r`` = p
    (INFERRED default: N_t = K bins; an integer gives a fixed r), ``eta_g_schedule`` = fixed (the literal eq. 57
    step); ``ln_k_over_sqrt_t`` is the ABLATION eta_g,t = ln K / sqrt(t) of the authors' federated code, which
    gives the pattern of Table II's OMKL-AKS gains over Raker (spec Section 7), not the paper's algorithm.
    Ties: q_k = delta counts (>=).  ``decision_function`` scores with all kernels (sum_k q_k f_k, the conditional
    mean of the randomised prediction).  Core readings: :class:`~olk.algorithms.random_features.RandomFeatureMKL`.
    """

    name = "omkl_aks"
    display = "OMKL-AKS"
    style = ("orange", "s", "--")
    params = CORE_PARAMS + (DELTA, R, ETA_G_SCHEDULE)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self.last_subset_size_ = len(self.kernels)       # p_t of the last round

    def step(self, i, y):
        self.t += 1
        Z = self._features(i)
        f = self._outputs(Z)                             # f_t,k(x_t), every kernel
        q = self.weights_
        y_hat, _, _ = combine(q, f, self._subset(q))     # predict with S_t, before seeing y_t
        y_hat = self.targets.out(y_hat)                  # (in y's units: standardize_y)
        eta_g = None if self.eta_g_schedule == "fixed" else math.log(len(self.kernels)) / math.sqrt(self.t)
        self._update(Z, f, y, eta_g)                      # every kernel learns
        return y_hat
