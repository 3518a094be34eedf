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

This module holds that shared machinery (``ProjectronCore``) and the Projectron (Figure 1);
Projectron++ (Figure 2) is in :mod:`olk.algorithms.budget.projectronpp`.

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

from ..registry import register
from .projection import ProjectronCore


@register
class Projectron(ProjectronCore):
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
    style = ("grey", "P", "--")

    def step(self, i, y):
        self.t += 1
        k = self._kvec(i)
        f = self._score(k)
        if y * f <= 0.0:
            self._mistake_update(i, y, k)
        return f
