"""BSGD, Budgeted Stochastic Gradient Descent: Wang, Crammer & Vucetic, "Breaking the curse of kernelization:
budgeted stochastic gradient descent for large-scale SVM training", JMLR 13 (2012) 3103-3131 (SPA paper ref [45]);
BPegasos, the Pegasos-rate member of the family, with the paper's three budget maintenance strategies.

Algorithm 1 (BSGD) with the Pegasos learning rate eta_t = 1/(lam t) (Table 2) on the hinge loss, no optional
projection step (footnote 4), and Algorithm 2's budget maintenance (Section 6): once an update takes the model to
B + 1 SVs, ``removal`` drops the SV of smallest ||alpha_p||^2 k(x_p, x_p) (Section 6.1), ``projection`` projects
that SV onto the other B (Section 6.2, Eq. 6.3), ``merging`` merges the SV m of smallest ||alpha_m|| with the
partner n of smallest weight degradation into one new point z = h x_m + (1 - h) x_n (Section 6.3, Eqs. 6.7-6.8;
Gaussian kernel only).  The paper's recommendation is merging (Section 7.2: "BPegasos+merge is clearly the winner").

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> for how in ("removal", "projection", "merging"):
...     model = make("bsgd", kernel={"type": "gaussian", "gamma": 0.4}, budget=50, lam=1e-3, maintenance=how)
...     acc = float((model.partial_fit(X, y).predict(X_test) == y_test).mean())
...     print(how, model.n_sv, model.n_maintenance, acc, round(model.run_summary()["avg_degradation"], 2))
removal 50 840 0.782 1.0
projection 50 763 0.799 0.99
merging 50 668 0.823 0.96

B = 50 SVs each; the accuracy on the other 1,000 rows grows as the mean weight degradation ||E_t|| of a
maintenance step falls (the paper's Table 4 ordering: removal > projection > merging).
"""
from __future__ import annotations

import numpy as np

from ..._core.merge import merge_search, sq_dists
from ..._core.packed import spmv_packed, spr_packed
from ..._core.svpool import RowSource, dot
from ...errors import ConfigError
from ..common.learner import OnlineKernelLearner
from ..registry import POSITIVE, Param, register
from .core import budget_param
from .projection import IN_SPAN_TOL, extend_inverse, pool_gram, unpack_symmetric

#: the golden-section search stops when its bracket on h is shorter than 2 * MERGE_TOL (BudgetedSVM's 0.0001)
MERGE_TOL = 1e-4

MAINTENANCE = ("removal", "projection", "merging")


def _merged_row(S, m: int, n: int, h: float):
    """The one-row matrix h S[m] + (1 - h) S[n], computed entry by entry as h a + (1 - h) b: a dense row, or for
    CSR ``S`` a CSR row on the union of the two rows' supports (entries that come out 0 are dropped)."""
    if not hasattr(S, "indptr"):
        return (h * S[m] + (1.0 - h) * S[n]).reshape(1, -1)
    import scipy.sparse as sp
    ia, va = S.indices[S.indptr[m]:S.indptr[m + 1]], S.data[S.indptr[m]:S.indptr[m + 1]]
    ib, vb = S.indices[S.indptr[n]:S.indptr[n + 1]], S.data[S.indptr[n]:S.indptr[n + 1]]
    idx = np.union1d(ia, ib)
    za = np.zeros(idx.shape[0])
    zb = np.zeros(idx.shape[0])
    za[np.searchsorted(idx, ia)] = h * va
    zb[np.searchsorted(idx, ib)] = (1.0 - h) * vb
    z = za + zb
    keep = z != 0.0
    idx, z = idx[keep], z[keep]
    return sp.csr_matrix((z, idx.astype(np.int32), np.array([0, idx.shape[0]])), shape=(1, S.shape[1]))


@register
class BSGD(OnlineKernelLearner):
    """BSGD — Wang, Crammer & Vucetic, JMLR 2012, Algorithm 1 (BPegasos): budgeted Pegasos with removal, projection or merging.

    The SVM problem min_w lam/2 ||w||^2 + (1/T) sum_t [1 - y_t w.phi(x_t)]_+ (Eq. 3.1, no bias), one SGD step per
    example with eta_t = 1/(lam t) (Pegasos, Table 2); Algorithm 1::

        w_1 = 0
        for t = 1, 2, ...:
            f_t(x_t) = w_t . phi(x_t)                               (olk: the online prediction, before learning)
            w_{t+1} = (1 - eta_t lam) w_t                            (line 3)
            if [1 - y_t f_t(x_t)]_+ > 0:                             (line 4)
                w_{t+1} = w_{t+1} + eta_t y_t phi(x_t)               (line 5: x_t becomes an SV, beta_t = eta_t y_t)
                if #SV > B:  w_{t+1} = w_{t+1} - Delta_t             (line 7: budget maintenance, Algorithm 2)

    **A global scale, exactly.**  With eta_t = 1/(lam t), 1 - eta_t lam = (t-1)/t, so by induction

        w_{t+1} = 1/(lam t) * sum_j c_j phi(x_j)

    with c_j = y_j for an SV added at step j: w_{t+1} = (t-1)/t * 1/(lam (t-1)) sum c_j phi + y_t/(lam t) phi(x_t)
    = 1/(lam t) (sum c_j phi + y_t phi(x_t)).  The pool stores the c_j, so line 3 costs nothing and never rounds;
    f_t(x) = sum_j c_j k(x_j, x) / (lam (t-1)) (w_1 = 0: f_1 = 0), and ``decision_function`` / ``dual_coef_`` use
    alpha_j = c_j / (lam T) after T examples.  Every maintenance below is linear in the coefficients and picks its
    SVs by comparisons that a common positive factor does not change, so it runs on the c_j as it would on the
    alpha_j.  In these units the gradient error of Theorem 1, E_t = Delta_t / eta_t, is the change of the c_j:
    ``avg_degradation`` (run summary) is the mean over maintenance steps of ||E_t|| = ||Delta c||_H (Table 4's
    E-bar; removal of a fresh SV gives 1, the paper's sqrt(2) being its two-class multi-class form).

    **Removal** (Algorithm 2, Section 6.1): remove p = argmin_j ||alpha_j||^2 k(x_j, x_j); Delta = alpha_p phi(x_p).
    **Projection** (Section 6.2): the same p ("we propose a simplified solution that always projects the smallest
    SV"), projected onto the remaining B SVs, Eq. 6.3: Delta alpha = alpha_p K_p^{-1} k_p, K_p the kernel matrix of
    the remaining SVs, k_p = [k(x_p, x_j)]_j.  The paper keeps the inverse by Woodbury updates, O(B^2) per step; so
    does olk, with one identity that avoids inverting K_p at all: keep G = K^{-1} of all B+1 SVs (block update
    when x_t is added, as Projectron); then by the block-inverse formula K_p^{-1} k_p = -G[-p, p] / G[p, p], so

        Delta alpha_j = -alpha_p G[j, p] / G[p, p],   weight degradation alpha_p^2 / G[p, p]   (= Eq. 6.4),

    and removing p leaves K_p^{-1} = G[-p, -p] - G[-p, p] G[p, -p] / G[p, p] (a rank-one downdate).  G is kept in
    packed storage and updated by olk's fixed-order loops (``spmv_packed``, ``spr_packed``), as Projectron's.
    **Merging** (Section 6.3): m = argmin ||alpha_j|| (the paper's simplification, O(B) instead of O(B^2) pairs);
    for every other SV n the best z = h x_m + (1-h) x_n and alpha_z = alpha_m k(x_m, z) + alpha_n k(x_n, z)
    (Eqs. 6.7-6.8), h by golden-section search on a_z(h) = alpha_m k_mn^{(1-h)^2} + alpha_n k_mn^{h^2} (the
    Gaussian kernel makes both kernel values powers of k_mn; derivation in :mod:`olk._core.merge`); n = the SV
    whose merge degrades the weight least, alpha_m^2 + alpha_n^2 + 2 alpha_m alpha_n k_mn - alpha_z^2.  z is a
    new point, not a data row: the pool stores it from a one-row RowSource (dense, or sparse on the union of
    the two supports).

    Readings (where the paper leaves a choice; checked against the authors' C++ BudgetedSVM, github
    djurikom/BudgetedSVM, src/bsgd.cpp, not copied):

    * binary hinge loss with beta_t = eta_t y_t, as Algorithm 1 (BudgetedSVM runs binary data through its
      multi-class form, alpha = (+-, -+) per SV: the same model up to a factor 2 in the margin);
    * ties of the smallest ||alpha|| go to the oldest SV.  They are the rule, not the exception: every SV added
      and never touched has |c| = 1 (the paper: "in BPegasos with SV removal ... all removal strategies are
      equivalent"); BudgetedSVM shrinks each alpha in floating point every step, which breaks the ties by
      rounding noise.  Merged and projected SVs keep their new coefficient and the newest time stamp;
    * merging's search bracket and tolerance are BudgetedSVM's: h in [0, 1] when alpha_m, alpha_n have one sign,
      else [1, 6] (z beyond x_m) or [-5, 0] (beyond x_n), whichever side has the larger |alpha|, stopping at a
      bracket shorter than 2e-4; unlike BudgetedSVM, h is not clamped at 0 afterwards (its clamp leaves z and
      alpha_z computed for different h), and its shortcut for an exact duplicate of an SV (add the two
      coefficients) is not taken: the general merge finds that pair with zero degradation;
    * projection: an x_t whose phi(x_t) lies (numerically) in the span of the SVs (delta^2 <= IN_SPAN_TOL
      k(x_t, x_t), Projectron's tolerance) is not stored: its update y_t phi(x_t) is projected onto the SVs at
      once, which is what maintenance would do with zero degradation, and keeps K invertible;
    * no bias term (Eq. 3.1 has none; BudgetedSVM's optional bias is an extra constant feature).

    Defaults: ``lam = 1e-4`` is the value of the paper's Table 4 (the other experiments choose lambda by
    10-fold cross-validation: tune it); B = 100 is one of the paper's two budgets (100, 500).  ``memory_extra``:
    projection's packed inverse; merging's merged points may be denser than data rows.
    """  # noqa: E501 - its first line is the summary of olk algorithms and docs/estimators.md: kept whole

    name = "bsgd"
    display = "BSGD"
    style = ("purple", "H", ":")
    structural_params = ("maintenance",)     # projection's K^-1 exists only if it was kept from the start
    params = (budget_param(1),
              Param("lam", 1e-4, "regularisation lambda: Pegasos step eta_t = 1/(lam t)", **POSITIVE),
              Param("maintenance", "merging", "budget maintenance: removal | projection | merging (Gaussian kernel)",
                    type=str, choices=MAINTENANCE))

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        b = min(int(params.get("budget") or n_train), n_train) + 1
        if params.get("maintenance") == "projection":
            return 2 * 8 * b * (b + 1) // 2          # the packed K^-1 and its copy while it grows
        if params.get("maintenance", "merging") == "merging":
            return 2 * 12 * b * n_features           # merged SVs (up to dense rows) and the search's copy of them
        return 0

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel=kernel, random_state=random_state, where=where, **params)
        if self.maintenance == "merging" and (self.kernel.kind != "gaussian" or self.kernel.cols is not None
                                              or self.kernel.view is not None):
            raise ConfigError(f"{where or self.name}: maintenance=merging needs a Gaussian kernel on all columns "
                              f"(got {self.kernels.label()}); use maintenance=removal or projection for this kernel")
        self._kinv_p = np.zeros(0)           # projection: K^{-1} of the SVs, packed upper triangle, slot order
        self._kbuf = np.zeros((1, 16))       # projection: k_t
        self._dbuf = np.zeros(16)            # projection: K^{-1} k_t
        self.n_maintenance = 0               # budget maintenance steps (Algorithm 1, line 7)
        self.n_absorbed = 0                  # projection: updates projected at once (x_t in the span of the SVs)
        self.degradation_sum = 0.0           # sum over maintenance steps of ||E_t|| = ||Delta c||_H
        self._lam_c = self.lam               # the lambda the stored c_j are scaled with

    def _params_changed(self, changed):
        """A new lambda keeps the model learned so far: w = 1/(lam t) sum_j c_j phi(x_j), so c_j *= new/old."""
        if "lam" in changed and self.pool is not None and self.pool.n_sv:
            self.pool.scale_col(0, changed["lam"] / self._lam_c)
        self._lam_c = self.lam

    # ------------------------------------------------------------------ Algorithm 1
    def step(self, i, y):
        self.t += 1
        pool = self.pool
        if self.maintenance == "projection":
            k = self._kvec(i)
            raw = pool.coef_dot(0, k)
        else:
            raw = pool.decision1(self.src, i)
        f = raw / (self.lam * (self.t - 1)) if self.t > 1 else 0.0     # f_t(x_t) = w_t . phi(x_t)
        if y * f < 1.0:                                                 # hinge loss > 0: c_t = y_t
            if self.maintenance == "projection":
                self._add_projected(i, y, k)
            else:
                pool.add(self.src, i, y, self.t)
            self.n_updates += 1
            if pool.n_sv > self.budget:                                 # line 7: budget maintenance
                self.n_maintenance += 1
                if self.maintenance == "removal":
                    self._remove()
                elif self.maintenance == "projection":
                    self._project()
                else:
                    self._merge()
        return f

    def _smallest(self) -> int:
        """p = argmin_j ||c_j||^2 k(x_j, x_j), ties to the oldest SV (smallest tag)."""
        pool = self.pool
        c = pool.coefs[:, 0]
        score = c * c * pool.self_kernels(0)
        cand = np.flatnonzero(score == score.min())
        return int(cand[np.argmin(pool.tags[cand])])

    # ------------------------------------------------------------------ removal (Section 6.1)
    def _remove(self) -> None:
        p = self._smallest()
        self.degradation_sum += abs(self.pool.get_coef(p, 0)) * float(np.sqrt(self.pool.self_kernels(0)[p]))
        self.pool.remove(p)

    # ------------------------------------------------------------------ projection (Section 6.2)
    def _kvec(self, i: int) -> np.ndarray:
        n = self.pool.n_sv
        if self._kbuf.shape[1] < n:
            self._kbuf = np.zeros((1, max(n, 2 * self._kbuf.shape[1])))
        if n:
            self.pool.kernel_values(self.src, i, self._kbuf)
        return self._kbuf[0, :n]

    def _add_projected(self, i: int, y: float, k: np.ndarray) -> None:
        """Add x_t with c_t = y_t and extend G = K^{-1} by the block formula (Projectron's update, O(n^2))."""
        pool = self.pool
        n = pool.n_sv
        ktt = pool.self_kernel(self.src, i)
        if n:
            if self._dbuf.shape[0] < n:
                self._dbuf = np.zeros(max(n, 2 * self._dbuf.shape[0]))
            d = self._dbuf[:n]
            spmv_packed(n, self._kinv_p, k, d)                  # d = K^{-1} k_t
            delta2 = ktt - dot(k, d)                            # ||phi(x_t) - P phi(x_t)||^2
            if delta2 <= IN_SPAN_TOL * ktt:                     # phi(x_t) in span(S): project the update at once
                pool.add_col_vector(0, y * d)
                self.n_absorbed += 1
                return
        else:
            d, delta2 = k, ktt
            if delta2 <= 0.0:                                   # k(x_t, .) = 0: nothing to add
                return
        self._kinv_p = extend_inverse(self._kinv_p, n, d, delta2, cap=min(max(2 * (n + 1), 16), self.budget + 1))
        pool.add(self.src, i, y, self.t)

    def _project(self) -> None:
        """Project SV p onto the others (Eq. 6.3 via G = K^{-1}, see the class docstring) and drop it."""
        pool = self.pool
        n = pool.n_sv
        p = self._smallest()
        P = self._kinv_p
        r = np.arange(n)
        lo, hi = np.minimum(r, p), np.maximum(r, p)
        g = P[hi * (hi + 1) // 2 + lo]                          # column p of G
        gpp = g[p]
        cp = pool.get_coef(p, 0)
        delta = g * (-cp / gpp)                                 # Delta c_j = -c_p G[j, p] / G[p, p]
        delta[p] = 0.0
        pool.add_col_vector(0, delta)
        self.degradation_sum += abs(cp) / float(np.sqrt(gpp))  # ||Delta||^2 = c_p^2 / G[p, p]  (Eq. 6.4)
        spr_packed(n, -1.0 / gpp, g, P)                         # K_p^{-1} = G - g g^T / G[p, p] (row/col p unused)
        moved = pool.remove(p)                                  # the last SV moves into slot p ...
        if moved >= 0:                                          # ... and so do its row and column of G
            last = P[moved * (moved + 1) // 2: moved * (moved + 1) // 2 + n].copy()   # G[:, n-1]
            rr = np.arange(n - 1)
            rr = rr[rr != p]
            lo, hi = np.minimum(rr, p), np.maximum(rr, p)
            P[hi * (hi + 1) // 2 + lo] = last[rr]
            P[p * (p + 1) // 2 + p] = last[n - 1]

    # ------------------------------------------------------------------ merging (Section 6.3)
    def _merge(self) -> None:
        pool = self.pool
        m = self._smallest()
        c = pool.coefs[:, 0]
        S = pool.support_vectors()
        d2 = sq_dists(S, m)
        others = np.flatnonzero(np.arange(pool.n_sv) != m)
        h, kmz, knz, wd = merge_search(float(c[m]), c[others], d2[others], self.kernel.gamma, MERGE_TOL)
        j = int(np.argmin(wd))                                  # the partner of least weight degradation
        n_ = int(others[j])
        hj = float(h[j])
        z = _merged_row(S, m, n_, hj)                           # Eq. 6.7: z = h x_m + (1 - h) x_n
        cz = c[m] * kmz[j] + c[n_] * knz[j]                     # Eq. 6.8: alpha_z
        self.degradation_sum += float(np.sqrt(max(wd[j], 0.0)))
        for s in sorted((m, n_), reverse=True):                 # the higher slot first: the lower one stays put
            pool.remove(s)
        pool.add(RowSource(z), 0, cz, self.t)

    # ------------------------------------------------------------------ outputs
    def _scale(self) -> float:
        """w_{t+1} = scale * sum_j c_j phi(x_j), scale = 1/(lam t) (0 before any example)."""
        return 1.0 / (self.lam * self.t) if self.t > 0 else 0.0

    def decision_function(self, X, output=None):
        return super().decision_function(X, output) * self._scale()

    def _expansion_coefs(self):
        return self.pool.coefs * self._scale()

    def run_summary(self) -> dict:
        return {"maintenance_steps": int(self.n_maintenance),
                "avg_degradation": self.degradation_sum / self.n_maintenance if self.n_maintenance else 0.0}

    # ------------------------------------------------------------------ inspection (tests)
    def kernel_inverse(self) -> np.ndarray:
        """projection: a dense copy of the maintained K^{-1} (slot order)."""
        return unpack_symmetric(self._kinv_p, 0 if self.pool is None else self.pool.n_sv)

    def gram_matrix(self) -> np.ndarray:
        return pool_gram(self.pool)
