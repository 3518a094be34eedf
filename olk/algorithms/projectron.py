"""Projectron and Projectron++: Orabona, Keshet & Caputo, "The Projectron: a bounded kernel-based
Perceptron" (ICML 2008) and "Bounded kernel-based online learning" (JMLR 10, 2009, Figures 1 and 2).

Both keep the Perceptron's hypothesis f = sum_j a_j k(x_j, .) but, instead of always adding the new
instance, first project k(x_t, .) onto the span of the current support set S:

    k_t   = [k(x_j, x_t)]_{j in S}            (one pass over the pool)
    d*    = K_S^{-1} k_t                       (K_S = Gram matrix of S, its inverse kept incrementally)
    P k   = sum_j d*_j k(x_j, .),  ||P k||^2 = k_t^T d*
    delta = ||P k - k(x_t, .)||,   delta^2 = k(x_t, x_t) - k_t^T d*

Adding x_t to S updates the inverse by the block (Schur complement) formula, O(|S|^2):

    K_{S+t}^{-1} = [[K_S^{-1} + d* d*^T / delta^2,  -d* / delta^2],
                    [-d*^T / delta^2,                 1 / delta^2 ]]

The pool only appends (neither algorithm removes an SV), so the pool's slot order is the row/column
order of ``K^{-1}``.  K^{-1} is kept in LAPACK packed upper-triangular storage (column j = entries
j(j+1)/2 .. j(j+1)/2 + j), so adding an SV *appends* its column.  d* = K^{-1} k_t, the rank-one term
and every inner product run in olk's own fixed-order loops (``olk._core.packed.spmv_packed``,
``spr_packed``, ``pool.coef_dot``), not BLAS: whether x_t is added or projected hangs on a threshold
test of delta^2, one ulp can flip it, and OpenBLAS sums in a CPU-dependent order.  With these loops
(and the core's portable exp) the runs are bit-identical on every host.  ``kernel_inverse`` returns
the maintained inverse and ``gram_matrix()`` the Gram matrix rebuilt from the pool
(``pool.sv_kernel``), so the two can be checked against each other (``inverse_error()``).

This module holds that shared machinery (``_ProjectronCore``) and the Projectron (Figure 1);
Projectron++ (Figure 2) is in :mod:`olk.algorithms.projectronpp`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("projectron", kernel={"type": "gaussian", "gamma": 0.4}, eta=0.1, budget=100)
>>> model.partial_fit(X, y).n_sv, model.n_projections     # mistakes that added an SV / were projected
(100, 133)
>>> model.inverse_error() < 1e-8                          # the incremental K^-1 is still K_S^-1
True
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.801
"""
from __future__ import annotations

import numpy as np

from .._core.packed import spmv_packed, spr_packed
from .._core.svpool import dot
from .base import OnlineKernelLearner
from .registry import Param, register


#: delta^2 <= IN_SPAN_TOL * k(x_t, x_t) (delta below 1% of ||k(x_t, .)||) counts as "k(x_t, .) already
#: lies in span(S)": such an x_t is never added and its delta is taken as 0.  Adding it would make K_S
#: numerically singular: with eta = 0 on codrna (8 features, B = 822) a floor of 1e-10 let cond(K_S)
#: reach 6e22 and the incremental inverse turn to garbage (max|K^-1 K - I| = 7e7); with 1e-4, cond(K_S)
#: = 2e9 and max|K^-1 K - I| = 5e-4.  It only matters when eta < 0.01.
IN_SPAN_TOL = 1e-4

_PARAMS = (
    Param("eta", 0.1, "projection threshold on delta = ||P k(x_t,.) - k(x_t,.)||: project when delta <= eta",
          check=lambda v: v >= 0, requirement=">= 0"),
    Param("budget", 100, "hard cap B on #SV (once full, every update is a projection)", type=int,
          check=lambda v: v >= 1, requirement=">= 1"),
)


class _ProjectronCore(OnlineKernelLearner):
    """Shared machinery: k_t, d*, delta^2, the incremental K^{-1}, add-or-project."""

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        b = min(int(params.get("budget") or n_train), n_train)
        return 2 * 8 * b * (b + 1) // 2             # the packed K^-1 (B(B+1)/2 values) and its copy while it grows

    params = _PARAMS

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
        0 below IN_SPAN_TOL * k(x, x) (DOGMA does the same clamp: 'max(Kii - coeff*K_f, 0)')."""
        n = k.shape[0]
        if n == 0:
            return k, 0.0, kxx
        if self._dbuf.shape[0] < n:
            self._dbuf = np.zeros(max(n, 2 * self._dbuf.shape[0]))
        d = self._dbuf[:n]
        spmv_packed(n, self._kinv_p, k, d)             # d* = K^{-1} k_t
        pk2 = dot(k, d)                                # ||P k||^2 = k_t^T d*
        delta2 = kxx - pk2
        if delta2 <= IN_SPAN_TOL * kxx:
            delta2 = 0.0
        return d, pk2, delta2

    def _add_sv(self, i: int, y: float, d: np.ndarray, delta2: float) -> None:
        """S <- S + {x_t} with coefficient y_t; K^{-1} by the block-inverse formula (O(n^2))."""
        n = self.pool.n_sv
        m = n * (n + 1) // 2                          # live packed entries of the n x n inverse
        if self._kinv_p.shape[0] < m + n + 1:
            cap = min(max(2 * n, 16), self.budget)
            grown = np.zeros(cap * (cap + 1) // 2)
            grown[:m] = self._kinv_p[:m]
            self._kinv_p = grown
        P = self._kinv_p
        if n:
            spr_packed(n, 1.0 / delta2, d, P)                  # K^{-1} += d* d*^T / delta^2 (in place)
            P[m:m + n] = d * (-1.0 / delta2)                   # new column: -d* / delta^2
        P[m + n] = 1.0 / delta2
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
        n = 0 if self.pool is None else self.pool.n_sv
        rows, cols = np.triu_indices(n)
        K = np.zeros((n, n))
        K[rows, cols] = self._kinv_p[cols * (cols + 1) // 2 + rows]
        K[cols, rows] = K[rows, cols]
        return K

    def gram_matrix(self) -> np.ndarray:
        """K_S rebuilt from the stored SVs with ``pool.sv_kernel`` (O(n^2 d); for checks, not the hot path)."""
        n = 0 if self.pool is None else self.pool.n_sv
        K = np.empty((n, n))
        for a in range(n):
            for b in range(a, n):
                K[a, b] = K[b, a] = self.pool.sv_kernel(a, b)
        return K

    def inverse_error(self) -> float:
        """max |K^{-1}_incremental K_S - I|: how far the maintained inverse has drifted."""
        n = 0 if self.pool is None else self.pool.n_sv
        return float(np.abs(self.kernel_inverse @ self.gram_matrix() - np.eye(n)).max()) if n else 0.0


@register
class Projectron(_ProjectronCore):
    """Projectron — Orabona, Keshet & Caputo, ICML 2008 / JMLR 2009, Figure 1, with a hard budget.

    For t = 1..T:  f = f_{t-1}(x_t) ;  predict sign(f)
      if y_t f <= 0 (mistake):
          d* = K^{-1} k_t ;  delta^2 = k(x_t, x_t) - k_t^T d*
          if delta <= eta or |S| = B:  f_t = f_{t-1} + y_t sum_j d*_j k(x_j, .)      (projection, S unchanged)
          else:                        f_t = f_{t-1} + y_t k(x_t, .) ;  S += {t} ;  K^{-1} block update

    Readings (where the papers leave a choice):

    * eta is compared with the distance delta itself, as in JMLR Fig. 1 (||delta_t|| <= eta).  The
      authors' MATLAB code (DOGMA, k_projectron_train.m) compares the *squared* distance with eta, so
      DOGMA's eta corresponds to eta**2 here.
    * Budget: the Projectron bounds #SV only through eta; the SPA paper (Section 6.1.2) gives every
      budget algorithm B = SPA's mean #SV.  Cap used here: while |S| < B the paper's rule applies; once
      |S| = B every mistake is a projection (never a removal).  This is what the SPA authors' own C++
      code does (LIBOKL, kernel_projectron.h: add until 'size_SV == Budget', then 'SV_alpha += y d*').
      LIBOKL has no eta at all, i.e. eta = 0 (every mistake adds an SV until the budget is full).
    * Numerics: delta^2 is clamped at 0 and an x_t with delta^2 <= 1e-4 k(x_t, x_t) (``IN_SPAN_TOL``) is
      treated as lying in span(S) (projected, never added), so K_S stays invertible on data with
      duplicate rows (a9a) and well enough conditioned for the incremental inverse in low dimension
      (codrna).  Only matters for eta < 0.01, e.g. eta = 0.
    * Empty S: P k = 0 and delta^2 = k(x_t, x_t), so the first mistake adds x_t unless k(x_t, x_t) <= eta^2
      (with eta >= 1 and a Gaussian kernel the model never leaves 0 — as in the paper).

    Cost: k_t is one pool pass per step (it also gives f); a mistake costs an O(|S|^2) matrix-vector
    product, an addition an O(|S|^2) rank-one update.
    """

    name = "projectron"
    display = "Projectron"
    style = ("#e377c2", "P")

    def step(self, i, y):
        self.t += 1
        k = self._kvec(i)
        f = self._score(k)
        if y * f <= 0.0:
            self._mistake_update(i, y, k)
        return f
