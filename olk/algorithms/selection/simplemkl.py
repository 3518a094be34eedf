"""SimpleMKL: Rakotomamonjy, Bach, Canu & Grandvalet, "SimpleMKL", JMLR 9:2491-2521, 2008 (their
Algorithm 1), on precomputed Gram matrices: the multiple kernel learning baseline SIPMKL of Yang, Jin et
al., "Online Kernel Selection", AAAI 2012 (section "Empirical Studies", where it was run with the authors'
SimpleMKL Matlab toolbox).

SimpleMKL learns the weights d of a convex combination of m Gram matrices together with a C-SVM (with
bias) on the combined kernel, by solving (their Section 3, the weighted primal of Section 2 with the
constraint sum_m d_m = 1)::

    min_d  J(d)   s.t.  sum_m d_m = 1,  d_m >= 0,          K(d) = sum_m d_m K_m
    J(d) = min_{f, b, xi} 1/2 sum_m |f_m|^2 / d_m + C sum_i xi_i   s.t.  y_i (sum_m f_m(x_i) + b) >= 1 - xi_i
         = max_a  sum_i a_i - 1/2 a'Y K(d) Y a                     s.t.  0 <= a_i <= C,  y'a = 0

J is convex and differentiable (Section 3.1), with  dJ/dd_m = -1/2 a*'Y K_m Y a*  at the SVM optimum a*,
which is all the solver needs besides the SVM itself: every J(d) is one ``sklearn.svm.SVC(kernel=
"precomputed")`` fit (LIBSVM's SMO) on K(d).  The descent over the simplex is the reduced-gradient method of
Section 3.2 / Algorithm 1; the stopping rule is the MKL duality gap (read from the authors' toolbox)::

    gap(d) = (max_m S_m - sum_m d_m S_m) / (2 J(d)),     S_m = a*'Y K_m Y a*

(the numerator over 2 is J(d) minus the MKL dual objective sum_i a*_i - 1/2 max_m S_m, a lower bound on
J(d*), so (J(d) - J(d*)) / J(d) <= gap(d) when the SVM is solved exactly).  Readings are listed on
:func:`simplemkl`.  Inputs are precomputed Gram matrices (numpy float64, n x n each); nothing is copied
but the combined kernel, so m = 60 kernels of a few thousand rows (the AAAI paper's setting) fit in memory.

>>> import numpy as np
>>> from olk.algorithms.selection.simplemkl import simplemkl, decision
>>> rng = np.random.default_rng(0)
>>> y = np.where(rng.random(60) < 0.5, 1.0, -1.0)
>>> x = y * (0.5 + rng.random(60))                           # a feature that separates the classes
>>> G = rng.normal(size=(60, 60))
>>> Ks = [np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2),      # informative: a Gaussian kernel on x
...       G @ G.T / 60]                                       # noise: a random PSD matrix, unrelated to y
>>> res = simplemkl(Ks, y, C=1.0)
>>> res.d.round(2), res.status                               # all the weight on the informative kernel
(array([1., 0.]), 'converged')
>>> res.duality_gap < 0.01 and res.history[-1] < res.history[0]   # J(d) went down from uniform d
True
>>> float((np.sign(decision(Ks, res)) == y).mean())          # training accuracy of the combined SVM
1.0
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ConfigError, DataError
from ..registry import Param, register, value_type
from .core import C_GRID, KernelSelection, validation_score

#: weights below this are set to 0 (then d is renormalised), as the authors' toolbox does
#: (``option.numericalprecision = 1e-8``): it keeps a weight that a boundary step drove to ~1e-17 from
#: counting as "positive" in the next descent direction
WEIGHT_ZERO = 1e-8
#: golden ratio conjugate (sqrt(5) - 1) / 2 for the line search
_INV_PHI = (np.sqrt(5.0) - 1.0) / 2.0


@value_type
@dataclass(frozen=True)
class SimpleMKLResult:
    """What :func:`simplemkl` returns (arrays are read-only).

    d           (m,) kernel weights on the simplex
    svc         the ``sklearn.svm.SVC`` fitted on ``combine(Ks, d)`` (``decision_function`` takes the
                combined n_test x n_train test kernel; :func:`decision` combines for you)
    dual_coef   (n,) beta_i = y_i a_i (0 off the support): f(x) = sum_i beta_i K(d)(x_i, x) + intercept
    intercept   the SVM bias b
    objective   J(d), the SVM dual objective sum_i a_i - 1/2 beta'K(d)beta at d
    duality_gap the relative MKL duality gap at d (see the module docstring)
    history     J at the start and after every iteration (len n_iter + 1; non-increasing)
    d_history   (n_iter + 1, m): d at the start and after every iteration
    gap_history the duality gap at the start and after every iteration
    n_iter      outer iterations (descent steps) run
    n_svm_fits  SVM trainings in total (line searches included)
    status      'converged' (gap < tol), 'max_iter', or 'stalled' (no descent found even with the finest
                line search: the SVM's own accuracy ``svm_tol`` limits the MKL's; lower it)
    """

    d: np.ndarray
    svc: Any                        # a fitted sklearn.svm.SVC
    dual_coef: np.ndarray
    intercept: float
    objective: float
    duality_gap: float
    history: tuple
    d_history: np.ndarray
    gap_history: tuple
    n_iter: int
    n_svm_fits: int
    status: str

    @property
    def converged(self) -> bool:
        """True when the duality gap fell below ``tol``."""
        return self.status == "converged"

    @property
    def support(self) -> np.ndarray:
        """Indices of the training rows with a_i > 0 (the SVM's support vectors)."""
        return np.asarray(self.svc.support_)


# ---------------------------------------------------------------------------------------------- input


def _as_kernels(Ks, name: str = "Ks", n: int | None = None, square: bool = True) -> list[np.ndarray]:
    """The m Gram matrices as a list of float64 2-d arrays (no copy when they already are), checked: m >= 1,
    one common shape ((n, n) when `square`, else (*, n) with n the training size), every value finite."""
    if isinstance(Ks, np.ndarray):
        if Ks.ndim != 3:
            raise DataError(f"{name}: expected m Gram matrices (a sequence, or an (m, n, n) array), "
                            f"got an array of shape {Ks.shape}")
        mats = list(Ks)
    else:
        try:
            mats = list(Ks)
        except TypeError:
            raise DataError(f"{name}: expected a sequence of Gram matrices, got {type(Ks).__name__}") from None
    if not mats:
        raise DataError(f"{name}: no kernels (m = 0); SimpleMKL needs at least one Gram matrix")
    out = []
    shape = None
    for m, K in enumerate(mats):
        try:
            K = np.asarray(K, dtype=np.float64)
        except (TypeError, ValueError):
            raise DataError(f"{name}[{m}]: not a numeric matrix") from None
        if K.ndim != 2 or (square and K.shape[0] != K.shape[1]):
            raise DataError(f"{name}[{m}]: expected a {'square (n, n)' if square else '2-d'} Gram matrix, "
                            f"got shape {K.shape}")
        if n is not None and K.shape[1] != n:
            raise DataError(f"{name}[{m}]: has {K.shape[1]} columns but the model was trained on {n} rows")
        if shape is None:
            shape = K.shape
        elif K.shape != shape:
            raise DataError(f"{name}[{m}]: shape {K.shape} differs from {name}[0]'s {shape}")
        if not np.isfinite(K).all():
            raise DataError(f"{name}[{m}]: contains NaN or infinite values")
        out.append(K)
    return out


def _check_labels(y, n: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise DataError(f"y: expected {n} labels (one per Gram matrix row), got shape {y.shape}")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError):
        raise DataError("y: labels must be -1 or +1") from None
    bad = ~((y == 1.0) | (y == -1.0))
    if bad.any():
        r = int(np.argmax(bad))
        raise DataError(f"y: row {r} (0-based) has label {y[r]!r}; SimpleMKL needs labels -1 or +1")
    if np.all(y == y[0]):
        raise DataError(f"y: only one class ({int(y[0]):+d}); SimpleMKL needs both -1 and +1")
    return y


def _check_config(C, tol, max_iter, svm_tol, line_tol):
    for key, v in (("C", C), ("tol", tol), ("svm_tol", svm_tol), ("line_tol", line_tol)):
        if not (isinstance(v, (int, float, np.floating, np.integer)) and np.isfinite(v) and v > 0):
            raise ConfigError(f"simplemkl: {key} must be a finite number > 0 (got {v!r})")
    if line_tol >= 1:
        raise ConfigError(f"simplemkl: line_tol must be < 1 (got {line_tol!r})")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise ConfigError(f"simplemkl: max_iter must be an integer >= 0 (got {max_iter!r})")


# ---------------------------------------------------------------------------------------------- pieces


def combine(Ks, d) -> np.ndarray:
    """K(d) = sum_m d_m K_m for m Gram (or n_test x n_train test-kernel) matrices and weights d (m,).

    Zero weights are skipped; the result is a new float64 array (the inputs are never modified).

    >>> combine([np.eye(2), np.ones((2, 2))], [0.25, 0.75])
    array([[1.  , 0.75],
           [0.75, 1.  ]])
    """
    mats = _as_kernels(Ks, square=False)
    d = np.asarray(d, dtype=np.float64).ravel()
    if d.shape[0] != len(mats):
        raise DataError(f"d: {d.shape[0]} weights for {len(mats)} kernels")
    return _combine(mats, d)


def _combine(mats: list[np.ndarray], d: np.ndarray) -> np.ndarray:
    out = np.zeros(mats[0].shape)
    for w, K in zip(d, mats):
        if w != 0.0:
            out += w * K
    return out


@dataclass(frozen=True)
class _Point:
    """One evaluated d: the SVM on K(d) and what the descent needs from it."""

    d: np.ndarray
    J: float                # SVM dual objective at d
    S: np.ndarray           # S_m = beta'K_m beta, so dJ/dd_m = -S_m / 2
    svc: Any                        # a fitted sklearn.svm.SVC
    beta: np.ndarray        # (n,) y_i a_i


class _Oracle:
    """J(d) and its gradient through one ``SVC(kernel='precomputed')`` fit per point (counted)."""

    def __init__(self, mats, y, C, svm_tol):
        self.mats, self.y, self.C, self.svm_tol = mats, y, float(C), float(svm_tol)
        self.n_fits = 0

    def __call__(self, d: np.ndarray) -> _Point:
        from sklearn.svm import SVC
        K = _combine(self.mats, d)
        svc = SVC(kernel="precomputed", C=self.C, tol=self.svm_tol).fit(K, self.y)
        self.n_fits += 1
        # classes_ = [-1, +1], so dual_coef_ holds y_i a_i with decision > 0 meaning +1
        sv = np.asarray(svc.support_)
        b_sv = np.asarray(svc.dual_coef_, dtype=np.float64).ravel()
        beta = np.zeros(self.y.shape[0])
        beta[sv] = b_sv
        idx = np.ix_(sv, sv)
        S = np.array([b_sv @ K_m[idx] @ b_sv for K_m in self.mats])
        J = float(np.abs(b_sv).sum() - 0.5 * (b_sv @ K[idx] @ b_sv))
        return _Point(d=d, J=J, S=S, svc=svc, beta=beta)


def _gap(p: _Point) -> float:
    """Relative MKL duality gap (max_m S_m - sum_m d_m S_m) / (2 J(d)) at an evaluated point."""
    num = 0.5 * (float(p.S.max()) - float(p.d @ p.S))
    return max(num, 0.0) / p.J if p.J > 0 else 0.0


def _clean(d: np.ndarray) -> np.ndarray:
    """Project a step's round-off back onto the simplex: clip at 0, zero weights < WEIGHT_ZERO, renormalise."""
    d = np.where(d < WEIGHT_ZERO, 0.0, d)
    return d / d.sum()


def _direction(d: np.ndarray, grad: np.ndarray, mu: int) -> np.ndarray:
    """The reduced-gradient descent direction of Section 3.2, with d_mu the largest weight::

        D_m  = -(g_m - g_mu)        if d_m > 0, or if g_m - g_mu < 0   (m != mu)
        D_m  = 0                    if d_m = 0 and g_m - g_mu >= 0      (d_m cannot decrease)
        D_mu = -sum_{m != mu} D_m                                       (stays in sum_m d_m = 1)

    g'D = -sum_{m != mu, D_m != 0} (g_m - g_mu)^2 <= 0, so D is a descent direction."""
    r = grad - grad[mu]
    D = np.where((d > 0) | (r < 0), -r, 0.0)
    D[mu] = 0.0
    D[mu] = -D.sum()
    return D


def _golden(phi, p0: _Point, p_max: _Point, gmax: float, line_tol: float) -> _Point:
    """Golden-section search for min phi(gamma) on [0, gmax] (phi(0), phi(gmax) known as p0, p_max); J is
    convex in d, so phi is convex on the segment.  Stops when the bracket is <= line_tol * gmax and returns
    the best point evaluated (endpoints included)."""
    a, b = 0.0, gmax
    best = min((p0, p_max), key=lambda p: p.J)
    c = b - _INV_PHI * (b - a)
    e = a + _INV_PHI * (b - a)
    pc, pe = phi(c), phi(e)
    for p in (pc, pe):
        if p.J < best.J:
            best = p
    while b - a > line_tol * gmax:
        if pc.J < pe.J:                  # minimum in [a, e]
            b, e, pe = e, c, pc
            c = b - _INV_PHI * (b - a)
            pc = phi(c)
            if pc.J < best.J:
                best = pc
        else:                            # minimum in [c, b]
            a, c, pc = c, e, pe
            e = a + _INV_PHI * (b - a)
            pe = phi(e)
            if pe.J < best.J:
                best = pe
    return best


def _descent_step(oracle: _Oracle, cur: _Point, line_tol: float) -> _Point:
    """One outer iteration of Algorithm 1 from `cur` (returns `cur` itself when no descent was found)."""
    d = cur.d
    mu = int(np.argmax(d))                      # first largest weight, as the toolbox's 'first' rule
    D = _direction(d, -0.5 * cur.S, mu)
    if not np.any(D < 0):                       # D = 0: stationary (the gap test should have stopped us)
        return cur
    # "descent direction update": go to the boundary while that decreases J, zeroing the weight that hits 0
    while True:
        neg = np.flatnonzero(D < 0)
        ratios = d[neg] / -D[neg]
        nu = int(neg[np.argmin(ratios)])
        gmax = float(ratios.min())
        d_edge = d + gmax * D
        d_edge[nu] = 0.0
        edge = oracle(_clean(d_edge))
        if edge.J >= cur.J:
            break
        cur, d = edge, edge.d                   # accept the boundary point and continue along D
        if nu == mu:                            # the base weight itself hit 0: D is used up; the next
            return cur                          # iteration picks a new mu and a fresh gradient
        D = np.where((d > 0) | (D > 0), D, 0.0)
        D[mu] = 0.0
        D[mu] = -D.sum()
        if not np.any(D < 0):
            return cur
    # line search on [0, gmax] along D from d (J(0) = cur.J, J(gmax) = edge.J)
    return _golden(lambda g: oracle(_clean(d + g * D)), cur, edge, gmax, line_tol)


# ---------------------------------------------------------------------------------------------- solver


def simplemkl(Ks, y, C: float, *, tol: float = 0.01, max_iter: int = 50, svm_tol: float = 1e-3,
              line_tol: float = 0.1) -> SimpleMKLResult:
    """SimpleMKL (Rakotomamonjy et al., JMLR 2008, Algorithm 1) on precomputed Gram matrices.

    Ks        m Gram matrices K_m (n, n) on the training rows (a sequence, or an (m, n, n) array)
    y         (n,) labels in {-1, +1}, both present
    C         the C-SVM's soft-margin parameter (> 0)
    tol       stop when the relative duality gap (module docstring) is < tol (the toolbox's
              ``seuildualitygap``, default 0.01 there too)
    max_iter  at most this many outer iterations (descent steps); 0 just trains the SVM at uniform d
    svm_tol   stopping tolerance of the inner SVM (``SVC(tol=...)``)
    line_tol  the golden-section line search stops when its bracket is <= line_tol * gamma_max (the
              toolbox's ``goldensearch_deltmax``, 0.1 there too)

    Algorithm 1, as implemented::

        d = 1/m (uniform); train the SVM on K(d)
        while gap(d) >= tol and fewer than max_iter iterations:
            g_m = -1/2 S_m;  mu = argmax_m d_m;  D = reduced-gradient direction (_direction)
            repeat:                                             # "descent direction update"
                nu = argmin_{D_m < 0} d_m / -D_m;  gamma_max = d_nu / -D_nu
                d_edge = d + gamma_max D  (d_edge_nu = 0);  train the SVM on K(d_edge)
                if J(d_edge) < J(d): d = d_edge; D_nu = 0; D_mu = -sum_{m != mu} D_m
                else: break
            golden-section line search for gamma in [0, gamma_max] along D; d = d + gamma D if J decreases

    Readings we chose where the paper leaves room (checked against the authors' Matlab toolbox,
    ``mklsvm.m`` / ``mklsvmupdate.m``):

    * J(d) and the gradient use the SVM's dual objective at LIBSVM's (approximate, ``svm_tol``) solution.
    * Descent direction: a weight at 0 whose reduced gradient is negative gets D_m = -(g_m - g_mu) > 0 (it
      can grow); the paper's formula only spells out D_m = 0 for the positive case.  D_mu always balances
      the sum (the toolbox's ``desc(coord) = -sum(desc)``), also after a boundary step zeroes D_nu.
    * Line search: golden section on [0, gamma_max] (J is convex in d), to a bracket of
      line_tol * gamma_max, keeping the best point evaluated; d is left unchanged when no point beats J(d).
      Such a stall (the SVM's accuracy, not the MKL's, is the limit) divides line_tol by 10 for the rest
      of the run, as the toolbox does, and ends the run as 'stalled' once line_tol < 1e-6.
    * If the boundary step zeroes d_mu itself, the iteration ends there (a new mu and a fresh gradient
      come with the next one).
    * Weights < 1e-8 are set to 0 and d renormalised after every step (``WEIGHT_ZERO``, the toolbox's
      ``numericalprecision``); no ridge is added to K(d) (the toolbox adds ``lambdareg`` = 1e-8 to the
      diagonal for its own QP solver; LIBSVM does not need it).
    * Stopping: the relative duality gap gap(d) < tol, tested before each iteration (so a converged run
      reports a gap below tol), or max_iter iterations.  With m = 1, d = (1,) and the result is the plain
      SVM on K_1.

    Raises DataError for bad input (m = 0, shapes that differ, non-finite values, labels not +-1 or one
    class only) and ConfigError for bad settings.
    """
    mats = _as_kernels(Ks)
    n = mats[0].shape[0]
    y = _check_labels(y, n)
    _check_config(C, tol, max_iter, svm_tol, line_tol)
    oracle = _Oracle(mats, y, C, svm_tol)

    m = len(mats)
    cur = oracle(np.full(m, 1.0 / m))
    gap = _gap(cur)
    history, d_hist, gaps = [cur.J], [cur.d], [gap]
    status = "max_iter"
    it = 0
    while True:
        if gap < tol:
            status = "converged"
            break
        if it >= max_iter:
            break
        nxt = _descent_step(oracle, cur, line_tol)
        it += 1
        if nxt is cur:                          # no descent found along D
            line_tol /= 10.0
            if line_tol < 1e-6:
                status = "stalled"
                history.append(cur.J)
                d_hist.append(cur.d)
                gaps.append(gap)
                break
        cur = nxt
        gap = _gap(cur)
        history.append(cur.J)
        d_hist.append(cur.d)
        gaps.append(gap)

    d = cur.d.copy()
    beta = cur.beta.copy()
    d_history = np.array(d_hist)
    for a in (d, beta, d_history):
        a.flags.writeable = False
    return SimpleMKLResult(d=d, svc=cur.svc, dual_coef=beta, intercept=float(cur.svc.intercept_[0]),
                           objective=cur.J, duality_gap=gap, history=tuple(history), d_history=d_history,
                           gap_history=tuple(gaps), n_iter=it, n_svm_fits=oracle.n_fits, status=status)


def decision(K_test, result: SimpleMKLResult) -> np.ndarray:
    """Decision values f(x) = sum_i beta_i K(d)(x_i, x) + b (> 0 means +1) on test rows.

    K_test: the m test kernels, K_test[m][t, i] = k_m(x_t, x_i) between test row t and training row i
    (shape (n_test, n_train) each; same order as the training Ks).
    """
    n = result.dual_coef.shape[0]
    mats = _as_kernels(K_test, name="K_test", n=n, square=False)
    if len(mats) != result.d.shape[0]:
        raise DataError(f"K_test: {len(mats)} kernels but the model was trained with {result.d.shape[0]}")
    return np.asarray(result.svc.decision_function(_combine(mats, result.d)), dtype=np.float64).ravel()


def objective(Ks, y, C: float, d, *, svm_tol: float = 1e-3) -> float:
    """J(d): the optimal value of the C-SVM (its dual objective at LIBSVM's solution) on K(d) = sum_m d_m K_m.

    For checking an MKL solution against other weights (e.g. a grid over the simplex)."""
    mats = _as_kernels(Ks)
    y = _check_labels(y, mats[0].shape[0])
    _check_config(C, 1.0, 0, svm_tol, 0.5)        # (tol, max_iter, line_tol unused here)
    d = np.asarray(d, dtype=np.float64).ravel()
    if d.shape[0] != len(mats) or not np.isfinite(d).all() or (d < 0).any() or d.sum() <= 0:
        raise DataError(f"d: expected {len(mats)} non-negative finite weights, not all 0")
    return _Oracle(mats, y, C, svm_tol)(d).J


# ------------------------------------------------------------------ the SimpleMKL learner


@register
class SimpleMKL(KernelSelection):
    """SimpleMKL (Rakotomamonjy et al., JMLR 2008), the SIPMKL column of Yang et al.'s Tables 1-2: the kernel
    weights d and the SVM learned together on the training set (:func:`simplemkl`), C in 2^[-10:10] tuned on
    the validation set (SimpleMKL on the other training rows, scored on the validation rows by
    ``selection.validation_score``; the first C on ties), then retrained on all training rows.  The returned
    classifier is the combined one (footnote 5); its "optimal kernel" the largest weight (footnote 6).  ``mkl_`` is
    the final :class:`SimpleMKLResult`.

    >>> from olk.algorithms import make
    >>> from olk.data import load_dataset
    >>> d = load_dataset("a9a-small")
    >>> X, y, X_test, y_test = d.X[:300], d.y[:300], d.X[1000:], d.y[1000:]
    >>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
    >>> m = make("simplemkl", kernel=kernels).fit(X, y)
    >>> m.run_summary()["selected_label"], m.kernel_weights_.round(2).tolist(), m.C_
    ('gaussian(gamma=50)', [0.49, 0.0, 0.51], 0.5)
    """

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        return 8 * (n_kernels + 2) * n_train * n_train      # one Gram matrix per kernel, their combination, a copy

    name = "simplemkl"
    display = "SIPMKL"
    style = ("purple", "P", "-")
    #: with one kernel d = (1,) is optimal before any step; the smallest set whose weights it learns: linear + Gaussian
    default_kernel = ({"type": "linear"}, {"type": "gaussian", "gamma": 1.0})
    order_free = True
    params = KernelSelection.params + (
        Param("tol", 0.01, "SimpleMKL's stopping tolerance on the relative duality gap",
              check=lambda v: v > 0, requirement="> 0"),
        Param("max_iter", 50, "SimpleMKL's maximum reduced-gradient iterations", type=int,
              check=lambda v: v >= 1, requirement=">= 1"))

    def fit(self, X, y, order=None):
        import time
        y, tr, va = self.start(X, y)
        t0 = time.perf_counter()
        G = self.kernels.gram(X)
        Gtr, Gva = G[:, tr][:, :, tr], G[:, va][:, :, tr]
        best = (None, C_GRID[0])
        for C in C_GRID:
            res = simplemkl(Gtr, y[tr], C, tol=self.tol, max_iter=self.max_iter)
            score = validation_score(decision(Gva, res), y[va])
            if best[0] is None or score > best[0]:
                best = (score, C)
        self.mkl_ = simplemkl(G, y, best[1], tol=self.tol, max_iter=self.max_iter)
        d = np.asarray(self.mkl_.d, dtype=np.float64)
        sv = np.flatnonzero(self.mkl_.dual_coef)
        self._sv_X, self._sv_coef = X[sv], np.asarray(self.mkl_.dual_coef, dtype=np.float64)[sv]
        self._b, self._weights, self.C_ = float(self.mkl_.intercept), d, float(best[1])
        self.select_time_s_ = time.perf_counter() - t0
        self.kernel_weights_ = d.copy()
        self.selected_kernel_ = int(np.argmax(d))
        return self

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        return super().fitted_names() + ("n_iter_",)

    def fitted_attributes(self) -> dict:
        """:class:`~olk.algorithms.selection.KernelSelection`'s, plus ``n_iter_``: the final SimpleMKL's
        reduced-gradient iterations (``mkl_.n_iter``)."""
        out = super().fitted_attributes()
        if getattr(self, "mkl_", None) is not None:
            out["n_iter_"] = int(self.mkl_.n_iter)
        return out
