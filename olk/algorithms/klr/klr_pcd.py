"""PCD: batch kernel logistic regression by cyclic coordinate descent on the primal, a batch baseline of
Zhang, Jin, Chen, Bu & He, "Efficient Online Learning for Large-Scale Sparse Kernel Logistic Regression",
AAAI 2012 (section "Comparison with Batch-model Methods", Figure 5).  The paper builds its two batch
baselines, PCD (primal) and DCD (dual, :mod:`~olk.algorithms.klr.klr_dcd`), "based on the coordinate descent
algorithms described in" Keerthi, Duan, Shevade & Poo, "A fast dual algorithm for kernel logistic
regression", Machine Learning 61(1-3), 2005, and prints neither algorithm; our reading is in the class
docstring.  Both solve the paper's Eq. (1), with no bias term:

    min_f  P(f) = lam/2 |f|_H^2 + 1/n sum_i log(1 + exp(-y_i f(x_i))),   f = sum_j beta_j k(x_j, .)

Trained with one call, ``fit(X, y)`` (:class:`~olk.algorithms.klr.batch.KLRBatchLearner`); ``fit(X, y,
probe=callback)`` calls ``callback()`` after every sweep over the coordinates (``reports_progress``), the
test accuracy vs training time curve of the paper's Figure 5.  KLR is dense: every training example ends
up with a non-zero coefficient (``n_sv`` = n), which is the paper's point against batch KLR.

What PCD and DCD share (``KLRBatchLearner``: the training rows in the shared SV pool, the kernel columns,
the primal objective) is in :mod:`olk.algorithms.klr.batch`.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:300], d.y[:300], d.X[1000:], d.y[1000:]
>>> model = make("klr_pcd", kernel={"type": "gaussian", "gamma": 0.4}, lam=1e-3)
>>> model.fit(X, y).n_sv                                  # dense: every training row is a support vector
300
>>> round(float((model.predict(X_test) == y_test).mean()), 2)   # accuracy on 1,000 held-out rows
0.82
>>> model.predict_proba(X_test[:2]).round(2)              # [P(y = -1 | x), P(y = +1 | x)]
array([[0.67, 0.33],
       [0.56, 0.44]])
"""
from __future__ import annotations

import numpy as np

from ..registry import POSITIVE, Param, register
from .batch import KLR_PARAMS, KernelColumns, KLRBatchLearner, primal_objective


@register
class KLRPCD(KLRBatchLearner):
    """PCD: kernel logistic regression, Eq. (1) of Zhang, Jin, Chen, Bu & He (AAAI 2012), by cyclic coordinate
    descent on the primal coefficients beta; the paper's batch baseline "PCD" (Figure 5), "based on the
    coordinate descent algorithms described in" Keerthi, Duan, Shevade & Poo (Machine Learning 61, 2005).

    Minimises  P(beta) = lam/2 beta'K beta + 1/n sum_i l(y_i f_i),  f = K beta,  l(z) = log(1 + e^-z),
    one coordinate at a time, with a safeguarded 1-D Newton step::

        beta = 0, f = K beta = 0, P_0 = log 2
        for sweep = 1..max_iter:
            for j = 0..n-1:                                   # cyclic, rows in the given order
                k = K[:, j];  s_i = sigmoid(-y_i f_i) = -l'(y_i f_i)
                g = lam f_j - 1/n sum_i s_i y_i k_i               # dP/dbeta_j
                h = lam K_jj + 1/n sum_i s_i (1 - s_i) k_i^2      # d2P/dbeta_j^2
                t = -g / h                                        # Newton step
                while P(beta + t e_j) - P(beta) > 0.01 t g:       # Armijo; halve (at most 30 times,
                    t = t / 2                                     #   then leave beta_j as it is)
                beta_j += t;  f += t k
            P_sweep = P(beta);  probe()
            stop if (P_{sweep-1} - P_sweep) <= tol |P_sweep|

    Every step is O(n) given the column k (cached n x n matrix, or O(n d) to compute it): the change of
    P along coordinate j is lam (t f_j + t^2/2 K_jj) + 1/n sum_i log1p(s_i expm1(-t y_i k_i)), exact
    and free of cancellation, so P never increases (``objective_path_``, one value per sweep).

    Readings we had to choose (the AAAI paper prints neither batch algorithm; Keerthi et al. 2005 give an
    SMO-type dual method for a model with a bias term):

    * "coordinate descent on the primal" = cyclic coordinate descent on the expansion coefficients
      beta of f = sum_j beta_j k(x_j, .), the representer-theorem form of Eq. (1), no bias term;
    * the 1-D step: one Newton step per coordinate per sweep with Armijo back-tracking (sigma = 0.01,
      halving), starting from beta = 0;
    * order: cyclic over the rows 0..n-1 as given; the engine's ``order`` is ignored (``order_free``);
    * stopping rule: the relative decrease of P over a sweep, (P_prev - P) / |P| <= ``tol``, or
      ``max_iter`` sweeps;
    * ``t`` counts coordinate sub-problems (n per sweep), ``n_updates`` those whose step was accepted.
    """

    name = "klr_pcd"
    display = "PCD"
    style = ("purple", "s", "--")
    params = KLR_PARAMS + (
        Param("tol", 1e-3, "stop when a sweep decreases the primal objective by at most tol * |P|", **POSITIVE),)

    ARMIJO = 0.01           # sufficient-decrease constant of the back-tracking line search
    MAX_HALVINGS = 30

    def _solve(self, cols: KernelColumns, y: np.ndarray, publish) -> None:
        from scipy.special import expit  # lazy: scipy.special takes ~0.1 s to import
        n = cols.n
        lam, inv_n = self.lam, 1.0 / n
        diag = cols.diag
        beta = np.zeros(n)
        f = np.zeros(n)                       # K beta at the training rows
        m = np.zeros(n)                       # margins y_i f_i
        s = expit(-m)                         # sigmoid(-m) = -l'(m)
        sy = s * y
        w = s * (1.0 - s)                     # l''(m)
        yk = np.empty(n)
        tmp = np.empty(n)
        P = primal_objective(lam, beta, f, y)
        publish(0, beta.copy(), P)
        t_count = updates = 0
        for sweep in range(1, self.max_iter + 1):
            for j in range(n):
                t_count += 1
                k = cols.col(j)
                g = lam * f[j] - inv_n * float(sy @ k)
                np.multiply(w, k, out=tmp)
                h = lam * diag[j] + inv_n * float(tmp @ k)
                if g == 0.0 or not h > 0.0:
                    continue
                step = -g / h
                np.multiply(y, k, out=yk)
                for _ in range(self.MAX_HALVINGS + 1):
                    np.multiply(yk, -step, out=tmp)                 # -delta margins
                    np.expm1(tmp, out=tmp)
                    tmp *= s
                    np.log1p(tmp, out=tmp)
                    dP = lam * (step * f[j] + 0.5 * step * step * diag[j]) + inv_n * float(tmp.sum())
                    if dP <= self.ARMIJO * step * g:
                        break
                    step *= 0.5
                else:
                    continue                                       # no acceptable step: beta_j unchanged
                beta[j] += step
                f += step * k
                m += step * yk
                np.negative(m, out=s)
                expit(s, out=s)
                np.multiply(s, y, out=sy)
                np.subtract(1.0, s, out=w)
                w *= s
                updates += 1
            P_prev, P = P, primal_objective(lam, beta, f, y)
            self.t, self.n_updates = t_count, updates
            publish(sweep, beta.copy(), P)
            if P_prev - P <= self.tol * abs(P):
                break
