"""The core of the Projectron family (Orabona, Keshet & Caputo, "Bounded kernel-based online learning",
JMLR 2009; the SPA paper's budget baselines Projectron and Projectron++): the projection of a new example onto
the span of the stored SVs, with the inverse Gram matrix K^-1 updated incrementally (packed symmetric storage),
and the budget cap.  ``projectron`` and ``projectronpp`` subclass :class:`ProjectronCore`; they differ in when they
update (mistakes only, or margin errors too) and in how they treat a projection that is not accepted.

>>> from olk.algorithms import make
>>> isinstance(make("projectron"), ProjectronCore), IN_SPAN_TOL > 0
(True, True)
"""
from __future__ import annotations

import numpy as np

from ..._core.packed import spmv_packed, spr_packed
from ..._core.svpool import dot
from ..common.learner import OnlineKernelLearner
from ..registry import Param

#: delta^2 <= IN_SPAN_TOL * k(x_t, x_t) (delta below 1% of ||k(x_t, .)||) counts as "k(x_t, .) already
#: lies in span(S)": such an x_t is never added and its delta is taken as 0.  Adding it would make K_S
#: numerically singular: with eta = 0 on codrna (8 features, B = 822) a floor of 1e-10 let cond(K_S)
#: reach 6e22 and the incremental inverse turn to garbage (max|K^-1 K - I| = 7e7); with 1e-4, cond(K_S)
#: = 2e9 and max|K^-1 K - I| = 5e-4.  It only matters when eta < 0.01.
IN_SPAN_TOL = 1e-4


def extend_inverse(P: np.ndarray, n: int, d: np.ndarray, delta2: float, cap: int) -> np.ndarray:
    """K^{-1} of n SVs (packed upper triangle P, slot order) extended by one SV whose projection onto the n is
    d = K^{-1} k_t with residual delta^2, by the block (Schur complement) formula, O(n^2):

        [[K^{-1} + d d' / delta^2, -d / delta^2], [-d' / delta^2, 1 / delta^2]]

    P grows to room for `cap` SVs when full.  Returns P (a new array if it grew).  Projectron's and BSGD's."""
    m = n * (n + 1) // 2                          # live packed entries of the n x n inverse
    if P.shape[0] < m + n + 1:
        grown = np.zeros(cap * (cap + 1) // 2)
        grown[:m] = P[:m]
        P = grown
    if n:
        spr_packed(n, 1.0 / delta2, d, P)                  # K^{-1} += d d^T / delta^2 (in place)
        P[m:m + n] = d * (-1.0 / delta2)                   # new column: -d / delta^2
    P[m + n] = 1.0 / delta2
    return P


def unpack_symmetric(P: np.ndarray, n: int) -> np.ndarray:
    """The dense n x n symmetric matrix of the packed upper triangle P (column j at j(j+1)/2)."""
    rows, cols = np.triu_indices(n)
    K = np.zeros((n, n))
    K[rows, cols] = P[cols * (cols + 1) // 2 + rows]
    K[cols, rows] = K[rows, cols]
    return K


def pool_gram(pool) -> np.ndarray:
    """K_S rebuilt from a pool's stored SVs with ``pool.sv_kernel`` (O(n^2 d); for checks, not the hot path)."""
    n = 0 if pool is None else pool.n_sv
    K = np.empty((n, n))
    for a in range(n):
        for b in range(a, n):
            K[a, b] = K[b, a] = pool.sv_kernel(a, b)
    return K


PROJECTRON_PARAMS = (
    Param("eta", 0.1, "projection threshold on delta = ||P k(x_t,.) - k(x_t,.)||: project when delta <= eta",
          check=lambda v: v >= 0, requirement=">= 0"),
    Param("budget", 100, "hard cap B on #SV (once full, every update is a projection)", type=int,
          check=lambda v: v >= 1, requirement=">= 1", symbol="B"),
    Param("span_tol", IN_SPAN_TOL, "in-span floor: delta^2 <= span_tol * k(x,x) counts as k(x,.) in span(S) "
          "(default 1e-4 keeps K^-1 sound; 1e-10 lets it break down, as the SPA paper's codrna/covtype rows do)",
          check=lambda v: 0 <= v < 1, requirement="in [0, 1)"),
)


class ProjectronCore(OnlineKernelLearner):
    """Shared machinery: k_t, d*, delta^2, the incremental K^{-1}, add-or-project."""

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        b = min(int(params.get("budget") or n_train), n_train)
        return 2 * 8 * b * (b + 1) // 2             # the packed K^-1 (B(B+1)/2 values) and its copy while it grows

    params = PROJECTRON_PARAMS

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self._kinv_p = np.zeros(0)             # K^{-1}, packed upper triangle (prefix n(n+1)/2 is live)
        self._kbuf = np.zeros((1, 16))         # k_t buffer for pool.kernel_values
        self._dbuf = np.zeros(16)              # d* buffer
        self.n_projections = 0                 # mistakes absorbed by a projection (no new SV)
        self.n_margin_updates = 0              # Projectron++ margin-error updates

    # ----------------------------------------------------------- the algebra
    def _kvec(self, i: int) -> np.ndarray:
        """k_t = [k(sv_s, x_i)]_s in slot order (a view into a reused buffer)."""
        n = self.pool.n_sv
        if self._kbuf.shape[1] < n:
            self._kbuf = np.zeros((1, max(n, 2 * self._kbuf.shape[1])))
        if n:
            self.pool.kernel_values(self.src, i, self._kbuf)
        return self._kbuf[0, :n]

    def _projection(self, k: np.ndarray, kxx: float):
        """(d*, ||P k||^2, delta^2) for the current support set; delta^2 is clamped at 0 and snapped to
        0 below ``span_tol`` * k(x, x) (default IN_SPAN_TOL; DOGMA does the same clamp: 'max(Kii - coeff*K_f,
        0)')."""
        n = k.shape[0]
        if n == 0:
            return k, 0.0, kxx
        if self._dbuf.shape[0] < n:
            self._dbuf = np.zeros(max(n, 2 * self._dbuf.shape[0]))
        d = self._dbuf[:n]
        spmv_packed(n, self._kinv_p, k, d)             # d* = K^{-1} k_t
        pk2 = dot(k, d)                                # ||P k||^2 = k_t^T d*
        delta2 = kxx - pk2
        if delta2 <= self.span_tol * kxx:
            delta2 = 0.0
        return d, pk2, delta2

    def _add_sv(self, i: int, y: float, d: np.ndarray, delta2: float) -> None:
        """S <- S + {x_t} with coefficient y_t; K^{-1} by the block-inverse formula (O(n^2))."""
        n = self.pool.n_sv
        self._kinv_p = extend_inverse(self._kinv_p, n, d, delta2, cap=min(max(2 * n, 16), self.budget))
        slot = self.pool.add(self.src, i, y, self.t)
        assert slot == n, "Projectron needs an append-only pool (slot order = K^{-1} order)"

    def _mistake_update(self, i: int, y: float, k: np.ndarray) -> None:
        """JMLR Fig. 1 (and Fig. 2's prediction-error branch), with the budget cap."""
        kxx = self.pool.self_kernel(self.src, i)
        d, _, delta2 = self._projection(k, kxx)
        if delta2 > self.eta * self.eta and delta2 > 0.0 and self.pool.n_sv < self.budget:
            self._add_sv(i, y, d, delta2)                # f_t = f_{t-1} + y_t k(x_t, .)
            self.n_updates += 1
        elif k.shape[0]:
            self.pool.add_col_vector(0, y * d)           # f_t = f_{t-1} + y_t P_{t-1} k(x_t, .)
            self.n_projections += 1
            self.n_updates += 1
        # else: S is empty and k(x_t, .) is (numerically) 0 or within eta of 0: nothing to add

    def _score(self, k: np.ndarray) -> float:
        return self.pool.coef_dot(0, k)                  # f(x_t) = sum_j a_j k(x_j, x_t)

    # ------------------------------------------------------------ inspection
    @property
    def kernel_inverse(self) -> np.ndarray:
        """Copy of the incrementally maintained K_S^{-1} (slot order of the pool)."""
        return unpack_symmetric(self._kinv_p, 0 if self.pool is None else self.pool.n_sv)

    def gram_matrix(self) -> np.ndarray:
        """K_S rebuilt from the stored SVs with ``pool.sv_kernel`` (O(n^2 d); for checks, not the hot path)."""
        return pool_gram(self.pool)

    def inverse_error(self) -> float:
        """max |K^{-1}_incremental K_S - I|: how far the maintained inverse has drifted."""
        n = 0 if self.pool is None else self.pool.n_sv
        return float(np.abs(self.kernel_inverse @ self.gram_matrix() - np.eye(n)).max()) if n else 0.0
