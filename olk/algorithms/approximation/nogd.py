"""Nystrom Online Gradient Descent (NOGD): J. Lu, S. C. H. Hoi, J. Wang, P. Zhao & Z.-Y. Liu, "Large Scale
Online Kernel Learning", JMLR 17(47), 2016, Algorithm 2.

Two phases.  (1) Kernel OGD on the shared SV pool until it holds B support vectors S = {s_1..s_B}:
f_t(x) = sum_j alpha_j k(s_j, x).  (2) At the first update that would add an SV beyond B, the Nystrom method
approximates the kernel through S: with K = [k(s_i, s_j)] (B x B) and k_S(x) = [k(s_1, x), ..., k(s_B, x)],

    k(x, x') ~ k_S(x)' K^+ k_S(x') ~ k_S(x)' V_k L_k^-1 V_k' k_S(x') = z(x)'z(x'),
    z(x) = L_k^-1/2 V_k' k_S(x)                      (k entries; M = L_k^-1/2 V_k' is k x B)

where (L_k, V_k) are the k largest eigenvalues of K and their eigenvectors.  From then on NOGD runs linear OGD
on z, f_t(x) = w_t' z(x), exactly like FOGD (:mod:`.core`).  The first w carries the kernel expansion over:
w = L_k^1/2 V_k' alpha gives w'z(x) = alpha' V_k V_k' k_S(x), the expansion with alpha projected on the top-k
eigenvectors of K (the same function when k = B; the authors' code: ``w = alpha*pinv(M)``, and
pinv(M) = V_k L_k^1/2 because M M' = L_k^-1).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("nogd", kernel={"type": "gaussian", "gamma": 0.4}, budget=200, eta=1.0)
>>> model.partial_fit(X, y).n_sv, model.rank_            # B SVs span the map; k = 'auto' = 0.2 B
(200, 40)
>>> model.run_summary()                                   # the map was built at example 212
{'nystrom_rank': 40, 'nystrom_t': 212}
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.81...
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.approx import NystromScreen, axpy, project, project_dot
from ..._lazy import one_blas_thread_here
from ...errors import ConfigError
from ..budget.core import budget_param
from ..common.learner import OnlineKernelLearner
from ..registry import NumberOr, Param, register
from .core import APPROX_REPRODUCIBILITY, ETA, LOSS, loss_slope

AUTO = "auto"

RANK = Param("rank", AUTO, f"k: the eigenpairs of the B x B kernel matrix kept by the Nystrom map, or '{AUTO}' = "
             "round(0.2 B) (the authors' code: k = 0.2 B)", type=NumberOr(AUTO, integer=True),
             check=lambda v: v == AUTO or v >= 1, requirement=f">= 1 or '{AUTO}'")


def auto_rank(budget: int) -> int:
    """k = 0.2 B rounded half up (the authors' ``options.k = 0.2``), at least 1."""
    return max(1, (int(budget) + 2) // 5)


def nystrom_map(K: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, L, V) of the rank-k Nystrom map z(x) = M k_S(x), M = L^-1/2 V' (r x B), from the symmetric B x B kernel
    matrix K: its r <= k largest eigenpairs (L descending, V's columns the eigenvectors).  Eigenvalues at the
    level of rounding (<= L_max * B * machine epsilon, numpy's rank tolerance) are dropped: 1/sqrt(L) of a zero
    direction (two equal SVs, or k beyond K's rank) would only amplify rounding noise."""
    with one_blas_thread_here():                  # one LAPACK thread: idle BLAS threads spin on a busy machine
        L, V = np.linalg.eigh(K)                  # ascending
    L, V = L[::-1][:k], V[:, ::-1][:, :k]
    keep = L > max(L[0], 0.0) * K.shape[0] * np.finfo(np.float64).eps
    L, V = L[keep], V[:, keep]
    return V.T / np.sqrt(L)[:, None], L, V


@register
class NOGD(OnlineKernelLearner):
    """Nystrom Online Gradient Descent (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016, Algorithm 2).

    Pseudo-code (B = ``budget``, k = ``rank``, eta = ``eta``, l = ``loss``, s = -dl/df):
        S = {}, f_1 = 0
        for t = 1..T:
            before the map:  f_t = sum_{j in S} alpha_j k(s_j, x_t);  predict sign(f_t)
                if s != 0:  if |S| < B:  S <- S + {x_t}, alpha_t = eta s      (kernel OGD)
                            else:        K = [k(s_i, s_j)];  top-k (L, V) of K;  M = L^-1/2 V'
                                         w = L^1/2 V' alpha;  w <- w + eta s M k_S(x_t)
            after the map:   z_t = M k_S(x_t);  f_t = w' z_t;  predict sign(f_t)
                if s != 0:  w <- w + eta s z_t

    Readings (checked against the first author's MATLAB code, github jingcoco/Online-Kernel-Learning,
    binary/NysGD.m, and the C++ ``kernel_nogd`` of the authors' SOL/KOL toolbox; none copied):
    * the map is built at the first update after the pool is full (the example that would be SV B + 1), as
      both codes do, not the moment the B-th SV is added: the predictions in between use the exact expansion;
    * the expansion is carried over into w (NysGD.m's ``w = alpha*pinv(M)``); the C++ code starts w at 0;
    * k = ``rank``: 'auto' = 0.2 B (NysGD.m's ``k = options.k * B``, options.k = 0.2), capped at B; the top-k
      eigenpairs come from a symmetric eigendecomposition (LAPACK's syevd through numpy), eigenvalues at the
      rounding level dropped (so ``rank_`` may be below k: duplicate SVs, a kernel matrix of lower rank);
    * the same step eta in both phases (NysGD.m's eta_nogd);
    * #SV = the B rows of the Nystrom basis, kept in the SV pool (``support_vectors_``); ``dual_coef_`` is the
      expansion alpha before the map and M'w after it (f(x) = w'M k_S(x) = (M'w)' k_S(x)).

    Cost after the map (hinge loss): z = M k_S(x) is O(kB) per row, read from a B x k matrix that does not fit
    the first-level cache.  Most rows make no hinge step (y f >= 1), and for those f is only compared with 1:
    :class:`olk._core.approx.NystromScreen` computes g = (M'w)'k_S(x) in O(B) with a rigorous bound on |g - f|
    and takes the O(kB) exact step only where g cannot decide.  Every decision, update and bit of w is the exact
    step's (tests/test_nogd.py); the one difference is the score returned for a row without a step, which is g,
    within the bound of f (the engine reads its sign).  ``decision_function`` always computes the exact f.
    """

    name = "nogd"
    display = "NOGD"
    style = ("black", "d", "-.")
    params = (budget_param(1), RANK, ETA, LOSS)
    reproducibility = APPROX_REPRODUCIBILITY
    structural_params = ("budget", "rank")      # the map depends on them: set_params restarts the learner

    @classmethod
    def check_params(cls, p: dict, where: str) -> None:
        if p["rank"] != AUTO and p["rank"] > p["budget"]:
            raise ConfigError(f"{where}: NOGD's rank k={p['rank']} exceeds its budget B={p['budget']} (the B x B "
                              f"kernel matrix has B eigenpairs); use rank <= {p['budget']} or rank: {AUTO}")

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        b = params.get("budget", 100)
        B = int(b) if isinstance(b, (int, float)) and not isinstance(b, bool) else 100
        return 8 * (3 * B * B + B * B)          # K, its eigenvectors and LAPACK's workspace; M (k x B, k <= B)

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self._Mt: Any = None                    # M' (B x k), M = L^-1/2 V' the Nystrom map, built when the pool is full
        self._w: np.ndarray | None = None       # the linear model on z(x) = M k_S(x)
        self._t_map = 0                         # the example t at which the map was built (0: not yet)
        self._gram_evals = 0                    # kernel evaluations of the B x B matrix K
        self._kS: np.ndarray | None = None      # buffers of k_S(x) (1 x B) and z (k), reused every step
        self._zbuf: np.ndarray | None = None
        self._screen: Any = None                # the hinge step after the map (NystromScreen): derived, rebuilt

    @property
    def k_target(self) -> int:
        """k: ``rank`` ('auto' = 0.2 B), at most B."""
        return min(auto_rank(self.budget) if self.rank == AUTO else self.rank, self.budget)

    @property
    def rank_(self) -> int | None:
        """The rank of the Nystrom map (None before it is built)."""
        return None if self._Mt is None else int(self._Mt.shape[1])

    # ------------------------------------------------------------------------------------- the algorithm
    def step(self, i, y):
        self.t += 1
        if self._Mt is None:                                # phase 1: kernel OGD on the SV pool
            f = self.pool.decision1(self.src, i)
            s = loss_slope(self.loss, y, f)
            if s != 0.0:
                if self.pool.n_sv < self.budget:
                    self.pool.add(self.src, i, self.eta * s, self.t)    # alpha_t = eta s
                else:
                    self._build_map()                       # the budget is full: z(x) = M k_S(x) from now on
                    self._score(self.src, i)
                    axpy(self._w, self.eta * s, self._zbuf)
                self.n_updates += 1
            return f
        if self.loss != "hinge":                            # phase 2: linear OGD on z: z_t = M k_S(x_t), f = w'z_t
            f = self._score(self.src, i)
            s = loss_slope(self.loss, y, f)
            if s != 0.0:
                axpy(self._w, self.eta * s, self._zbuf)     # w <- w + eta s z_t
                self.n_updates += 1
            return f
        sc = self._screen or self._new_screen()             # the hinge loss: the exact f only where it can matter:
        f = sc.step(self.pool, self.src, i, y, self.eta)    # beta'k_S(x_t) when it proves y f_t >= 1 (s = 0), else
        if sc.updated:                                      # f_t = w'z_t (project_dot's bits) and, if y f_t < 1,
            self.n_updates += 1                             # w <- w + eta y z_t
        return f

    def step_rows(self, rows, ys, out) -> None:
        """The engine's stretch of rows (see the base class): step by step until the map is built, then, with the
        hinge loss, the rest in one call (:meth:`NystromScreen.steps`: the same operations as ``step``)."""
        k, n = 0, rows.shape[0]
        while k < n and self._Mt is None:                   # phase 1 until the map is built
            out[k] = self.step(int(rows[k]), float(ys[k]))
            k += 1
        if k == n:
            return
        if self.loss != "hinge":                            # another loss: every row exact, step by step
            super().step_rows(rows[k:], ys[k:], out[k:])
            return
        sc = self._screen or self._new_screen()
        self.n_updates += sc.steps(self.pool, self.src, rows[k:], ys[k:], self.eta, out[k:])
        self.t += n - k

    def _new_screen(self):
        """The screened hinge step over M' and w (:class:`olk._core.approx.NystromScreen`: the derivation that it
        gives the exact step's decisions, updates and w); built on first use after the map (and after olk.load)."""
        if not self._w.flags.writeable:                     # loaded read-only (a memory-mapped pickle)
            self._w = self._w.copy()
        self._screen = NystromScreen(self._Mt, self._w)
        return self._screen

    def _build_map(self) -> None:
        """K of the B SVs (the pool's own kernel values, :meth:`KernelSet.gram`), its top-k eigenpairs, M, and
        w = L^1/2 V' alpha (the expansion carried over)."""
        K = self.kernels.gram(self.pool.support_vectors())[0]
        self._gram_evals += K.shape[0] * K.shape[0]
        M, L, V = nystrom_map(K, self.k_target)
        self._Mt = np.ascontiguousarray(M.T)                # the layout of olk's projection loop
        self._screen = None
        self._w = np.empty(L.shape[0])
        project(np.ascontiguousarray(V), np.ascontiguousarray(self.pool.coefs[:, 0]), self._w)     # V' alpha
        self._w *= np.sqrt(L)                               # w = L^1/2 V' alpha
        self._t_map = self.t

    def _score(self, src, i: int) -> float:
        """w'z(x_i) for row i of `src`, z(x_i) = M k_S(x_i) (k entries) left in ``_zbuf``: the pool's kernel values,
        then olk's projection loop and w'z summed left to right (:func:`olk._core.approx.project_dot`)."""
        if self._kS is None or self._kS.shape[1] != self.pool.n_sv:
            self._kS = np.empty((1, self.pool.n_sv))        # first use (or after olk.load: buffers are not saved)
            self._zbuf = np.empty(self._Mt.shape[1])
        self.pool.kernel_values(src, i, self._kS)
        return project_dot(self._Mt, self._kS[0], self._w, self._zbuf)

    # ------------------------------------------------------------------------------------------ scoring
    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """f(x) of every row of X: the kernel expansion before the map, w'M k_S(x) after it (computed as ``step``
        computes it: the same bits)."""
        if self._Mt is None:
            return super().decision_function(X, output)
        src = self._source_for(X)
        return np.array([self._score(src, r) for r in range(src.n_rows)], dtype=np.float64)

    def __getstate__(self):
        state = super().__getstate__()
        state["_kS"] = state["_zbuf"] = state["_screen"] = None    # work buffers: rebuilt on first use
        return state

    def _expansion_coefs(self) -> np.ndarray:
        """alpha before the map; M'w after it (f(x) = (M'w)' k_S(x)): one column."""
        if self._Mt is None:
            return self.pool.coefs
        return (self._Mt @ self._w)[:, None]

    def model_values(self) -> int:
        """The pool's (see the base class) and, once the Nystrom map is built, its B x k entries and k weights."""
        extra = 0 if self._Mt is None else self._Mt.size + self._Mt.shape[1]
        return super().model_values() + extra

    @property
    def kernel_evals(self) -> int:
        return super().kernel_evals + self._gram_evals

    def run_summary(self) -> dict:
        """The rank of the Nystrom map and the example at which it was built (0 and 0: never built, the stream
        held fewer than B + 1 updates)."""
        return {"nystrom_rank": self.rank_ or 0, "nystrom_t": self._t_map}

