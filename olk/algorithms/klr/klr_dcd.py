"""DCD: batch kernel logistic regression by coordinate descent on the dual, a batch baseline of Zhang, Jin,
Chen, Bu & He, "Efficient Online Learning for Large-Scale Sparse Kernel Logistic Regression", AAAI 2012
(section "Comparison with Batch-model Methods", Figure 5), "based on the coordinate descent algorithms
described in" Keerthi, Duan, Shevade & Poo, "A fast dual algorithm for kernel logistic regression", Machine
Learning 61(1-3), 2005.  Each one-variable sub-problem is solved as in Yu, Huang & Lin, "Dual coordinate
descent methods for logistic regression and maximum entropy models", Machine Learning 85(1-2), 2011
(Section 3, Algorithms 3-4; LIBLINEAR's ``solve_l2r_lr_dual``), in its kernel form.  The primal
counterpart, and what both share, is :mod:`~olk.algorithms.klr.klr_pcd`.

The dual of the paper's Eq. (1) with C = 1/(lam n) (derivation in the class docstring):

    min_{alpha in (0, C)^n}  D(alpha) = lam/2 alpha'Q alpha + lam sum_i [alpha_i log alpha_i
                                         + (C - alpha_i) log(C - alpha_i) - C log C],   Q_ij = y_i y_j k(x_i, x_j)

with f = sum_j alpha_j y_j k(x_j, .) and P(f*) = -D(alpha*): ``gap_`` = P(f) + D(alpha) >= 0 certifies
how far the model is from the optimum.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:300], d.y[:300], d.X[1000:], d.y[1000:]
>>> model = make("klr_dcd", kernel={"type": "gaussian", "gamma": 0.4}, lam=1e-3)
>>> model.fit(X, y).n_sv                                  # dense: every training row is a support vector
300
>>> bool(model.gap_ <= 1e-3 * model.objective_)            # stopped on the relative duality gap (tol)
True
>>> round(float((model.predict(X_test) == y_test).mean()), 2)   # accuracy on 1,000 held-out rows
0.82
"""
from __future__ import annotations

import numpy as np

from ..._core.klr import dcd_sweep
from ..registry import POSITIVE, Param, register
from .batch import KLR_PARAMS, KernelColumns, KLRBatchLearner, primal_objective


def dual_objective(lam: float, beta: np.ndarray, f: np.ndarray, alpha: np.ndarray, alpha_c: np.ndarray,
                   C: float) -> float:
    """D(alpha) = lam/2 alpha'Q alpha + lam sum_i [alpha_i log alpha_i + (C - alpha_i) log(C - alpha_i) - C log C]
    from beta = alpha * y, f = K beta (alpha'Q alpha = beta . f) and alpha_c = C - alpha (kept separately, as
    LIBLINEAR does, so that log(C - alpha_i) is accurate near C).  With u = alpha / C and lam C = 1/n the
    entropy term is 1/n sum_i [u_i log u_i + (1 - u_i) log(1 - u_i)]."""
    u, uc = alpha / C, alpha_c / C
    ent = float(np.mean(u * np.log(u) + uc * np.log(uc)))
    return 0.5 * lam * float(beta @ f) + ent


@register
class KLRDCD(KLRBatchLearner):
    """DCD: kernel logistic regression, Eq. (1) of Zhang, Jin, Chen, Bu & He (AAAI 2012), by coordinate descent
    on the dual; the paper's batch baseline "DCD" (Figure 5), "based on the coordinate descent algorithms
    described in" Keerthi, Duan, Shevade & Poo (Machine Learning 61, 2005), with the one-variable solver of
    Yu, Huang & Lin (Machine Learning 85, 2011, Section 3, Algorithms 3-4; LIBLINEAR's solve_l2r_lr_dual).

    The dual and its scaling.  With C = 1/(lam n), n C P(f) = 1/2 |f|^2 + C sum_i l(y_i f(x_i)), the primal
    of Yu et al.  Since C l(z) = max_{a in [0, C]} -a z - h(a) with h(a) = a log a + (C-a) log(C-a) - C log C
    (maximiser a = C sigmoid(-z)), minimising over f gives f = sum_j alpha_j y_j k(x_j, .) and the dual
    min_alpha 1/2 alpha'Q alpha + sum_i h(alpha_i), Q_ij = y_i y_j K_ij (Yu et al.'s, with the constant
    -C log C kept).  We scale it by lam = 1/(n C), so that it matches P exactly::

        D(alpha) = lam [1/2 alpha'Q alpha + sum_i h(alpha_i)],   alpha in (0, C)^n,   C = 1/(lam n)
        f = sum_j alpha_j y_j k(x_j, .)        (beta = alpha * y; no 1/(lam n) factor in this scaling)
        P(f) + D(alpha) >= 0,  = 0 at the optimum:  P(f*) = -D(alpha*),  alpha*_i = C sigmoid(-y_i f*(x_i))

    The algorithm (kernel form of LIBLINEAR's loop: f = K beta at the training rows replaces w)::

        alpha_i = min(1e-3 C, 1e-8), alpha'_i = C - alpha_i (kept separately);  f = K (alpha * y)
        eps_in = 1e-2
        for sweep = 1..max_iter:
            for i = 0..n-1:                                  # cyclic, rows in the given order
                a = K_ii,  b = y_i f_i                       # g(z) = z log z + (C-z) log(C-z) + a/2 (z-z0)^2
                                                             #        + sign b (z-z0)
                if a (alpha'_i - alpha_i) / 2 + b >= 0:  z0 = alpha_i,  sign = +1   # optimum alpha_i in (0, C/2]
                else:                                    z0 = alpha'_i, sign = -1   # optimum C - alpha_i in (0, C/2]
                z = z0 (0.1 z0 if z0 > C/2);  g' = a (z - z0) + sign b + log(z / (C - z))
                while |g'| >= eps_in (at most 100 times):            # Newton, kept inside (0, C):
                    z_N = z - g' / (a + C / (z (C - z)));  z = z_N if z_N > 0 else 0.1 z
                if z moved:  alpha_i += sign (z - z0) (and alpha'_i = C - alpha_i);  f += delta alpha_i y_i K[:, i]
            P = P(f), D = D(alpha), gap = P + D;  probe()
            stop if gap <= tol |P|
            if the sweep made <= n/10 Newton steps: eps_in = max(min(1e-8, tol), eps_in / 10)

    The variable the Newton loop moves is the one of alpha_i, C - alpha_i that is at most C/2 at the optimum,
    so it never has to come near C, and z_N <= 0 is answered by shrinking z: alpha stays strictly inside
    (0, C) (Yu et al.'s Theorem; ``alpha_`` after ``fit``).  A coordinate whose |g'| is already below eps_in
    is skipped without touching its kernel column (that is what the adaptive eps_in buys).  Each update is
    O(n) given the column (cached, or O(n d) to compute); each sweep is one call into C
    (:func:`olk._core.klr.dcd_sweep`).

    Readings we had to choose:

    * no bias -> single coordinates: Keerthi et al.'s dual algorithm is SMO-like and updates PAIRS of
      alpha because their model f(x) + b has a bias (the equality constraint sum_i alpha_i y_i = 0).  The
      paper's Eq. (1) has no bias and no such constraint, so we descend on one alpha_i at a time: the
      kernel version of Yu et al.'s Algorithm 3 with their sub-problem solver (Algorithm 4, LIBLINEAR's
      constants: eta = 0.1, the start 0.1 z0 past C/2, at most 100 inner steps, eps_in from 1e-2 down);
    * order: cyclic over the rows 0..n-1 as given, not LIBLINEAR's random permutation, so the learner is
      deterministic; the engine's ``order`` is ignored (``order_free``);
    * stopping rule: the relative duality gap, (P(f) + D(alpha)) / |P(f)| <= ``tol`` (O(n) per sweep from
      the maintained f: P(f) - P* <= gap, a certificate), or ``max_iter`` sweeps;
    * ``t`` counts coordinate sub-problems (n per sweep), ``n_updates`` those whose alpha_i moved.

    After ``fit``: ``alpha_`` (in (0, C)), ``C_``, ``dual_objective_``, ``gap_``, ``gap_path_`` (per sweep,
    index 0 the start), and the shared ``coef_`` (= alpha * y), ``objective_`` (P), ``objective_path_``,
    ``n_iter_``.
    """

    name = "klr_dcd"
    display = "DCD"
    style = ("black", "^", "--")
    params = KLR_PARAMS + (
        Param("tol", 1e-3, "stop when the duality gap P + D is at most tol * |P|", **POSITIVE),)

    ETA = 0.1               # Yu et al.'s xi: z <- ETA z when a Newton step would leave (0, C)
    MAX_INNER = 100         # Newton steps per sub-problem (LIBLINEAR's max_inner_iter)

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        self.alpha_ = np.zeros(0)
        self.C_ = float("nan")
        self.dual_objective_ = float("nan")
        self.gap_ = float("nan")
        self.gap_path_: list[float] = []

    def _solve(self, cols: KernelColumns, y: np.ndarray, publish) -> None:
        n = cols.n
        lam = self.lam
        C = 1.0 / (lam * n)
        self.C_ = C
        diag = cols.diag
        y = np.ascontiguousarray(y, dtype=np.float64)
        K = cols.K if cols.cached else None
        alpha = np.full(n, min(1e-3 * C, 1e-8))
        alpha_c = C - alpha
        f = np.ascontiguousarray(cols.matvec(alpha * y))   # K beta, beta = alpha * y
        eps_in = 1e-2
        eps_min = min(1e-8, self.tol)
        eta, max_inner = self.ETA, self.MAX_INNER

        def record(sweep: int) -> float:
            beta = alpha * y
            P = primal_objective(lam, beta, f, y)
            D = dual_objective(lam, beta, f, alpha, alpha_c, C)
            self.alpha_ = alpha.copy()
            self.dual_objective_ = D
            self.gap_ = P + D
            self.gap_path_.append(P + D)
            publish(sweep, beta, P)
            return P

        record(0)
        t_count = updates = 0
        for sweep in range(1, self.max_iter + 1):
            ups, newton_steps = dcd_sweep(K, cols.pool, cols.src, y, diag, alpha, alpha_c, f, C, eps_in, eta,
                                          max_inner)             # the sweep's n sub-problems, in C
            t_count += n
            updates += ups
            self.t, self.n_updates = t_count, updates
            P = record(sweep)
            if self.gap_ <= self.tol * abs(P):
                break
            if newton_steps <= n // 10:
                eps_in = max(eps_min, 0.1 * eps_in)
