"""The mistake bounds of Jin, Hoi & Yang, "Online multiple kernel learning: algorithms and mistake bounds", ALT
2010 (Theorems 2, 3, 5, 6, 7, 8, 10), evaluated on a run of the omkl_* learners, beside its observed mistakes.

Every theorem bounds the (expected) mistakes M by a minimum over comparators: g(k_i, l) = min_f ||f||^2_{H_i} +
2 sum_t l(f(x_t), y_t) (Theorems 2-7, l the hinge loss) or min over u in the simplex and f_i in the R-balls
Omega_i (Theorems 8, 10).  Each theorem holds for EVERY comparator, so one computable comparator gives a valid
(looser) bound.  The comparator here, per kernel k_i:

* h_i = the bias-free kernel SVM with C = 1, i.e. argmin_h ||h||^2_{H'} / 2 + sum_t l(h(x_t), y_t) on the kernel
  k_i' = k_i / X_i^2, X_i^2 = max(1, max_t k_i(x_t, x_t)): for a kernel meeting the papers' assumption
  k(x, x) <= 1 this IS the minimiser defining g(k_i, l) (up to the solver's tolerance), since
  ||f||^2 + 2 sum_t l = 2 (||f||^2 / 2 + sum_t l).  No intercept: an intercept is not an element of H_i.
  Solved in the dual (0 <= alpha <= C, no equality constraint) with L-BFGS-B on at most ``max_rows`` = 2,000
  rows (all of them when T <= 2,000; a fixed random subset otherwise: then h_i is still a valid comparator,
  only looser); its hinge losses are summed over ALL T rows of the stream.
* OMKL-O (Theorems 8, 10): u = e_j (one kernel) and f_j = s h_j scaled into Omega_j (s in [0, min(1,
  R / ||h_j||)] on a 21-point grid, the best for the theorem's expression); the bound is the best over j.

Kernels with k(x, x) > 1 (spa16's polynomials (x.x')^p on [-1, 1]-scaled data reach d^p): the theorems assume
k_i(x, x) <= 1.  Their proofs go through with X_i^2 = max(1, max_t k_i(x_t, x_t)) in place of 1; the functions
below evaluate these forms, which ARE the printed theorems when every X_i^2 = 1:

* Perceptron classifiers (Algorithms 1, 3, 4) make the same mistakes with k_i / X_i^2, so sum_t z_i <=
  G_i = X_i^2 ||h||^2_{H_i} + 2 sum_t l(h(x_t)) replaces g(k_i, l) in Theorems 2, 5, 6, 7.
* Theorem 3 (Algorithm 2's nu depends on the scale): 2 sum_t nu_i <= N_i = g_i(h) + (X_i^2 - 1) G_i(h).
* Theorem 8: M <= [2 sum_t l(u.f(x_t)) + sum_i u_i ||f_i||^2 + 2 ln m / ln(1/beta)] /
  [2 - ln(1/beta) R^2 X_max^2 - sum_i u_i X_i^2] (infinite = vacuous when the denominator is <= 0), since
  |f_i(x)| <= R X_i.  With X = 1 this is Theorem 8's [g + 2 ln m / ln(1/beta)] / (1 - R^2 ln(1/beta)).
* Theorem 10 (any step eta): E[M] <= sum_t l(u.f(x_t)) + a / eta + eta b T, a = R^2/2 + ln m / ln(1/beta),
  b = ln(1/beta) R^2 X_max^2 m^2 / (2 delta^2) + m sum_i u_i X_i^2 / (2 delta): the proof's inequality before
  choosing eta (it equals Theorem 10's 2 sqrt(abT) at eta = sqrt(a / (bT)); the printed eta = sqrt(a/b) lacks T).
* Theorem 5 is evaluated as its proof gives it (see ``theorem5``), which is slightly larger than the print.

Expected-mistake bounds (Theorems 6, 7, 10) bound the mean over the algorithm's random draws; the comparator
terms are sums over the stream, so the bound is the same for every permutation and is compared with the mean
mistakes over permutations.

From the command line, after ``olk run configs/omkl_alt2010.yaml --out DIR``:
``python -m olk.report.bounds DIR`` prints bound vs observed mistakes per dataset and algorithm.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> from olk.tasks import online_pass
>>> d = load_dataset("german-small")                      # bundled sample: 300 rows, 24 features
>>> model = make("omkl_p1", kernel=[{"type": "gaussian", "gamma": g} for g in (0.5, 0.125)], bound=True)
>>> res = online_pass(model, d.X, d.y, range(300))
>>> res["mistakes"], round(res["summary"]["mistake_bound"], 1), res["summary"]["bound_theorem"]
(104, 658.5, '2')
"""
from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..._lazy import issparse, one_blas_thread_here

#: the comparator SVM is trained on at most this many rows of the stream
MAX_ROWS = 2000
#: its C: 1 makes it the minimiser of g(k, l) = ||f||^2 + 2 sum_t l(f(x_t))
SVM_C = 1.0
#: L-BFGS-B iterations of the dual solver (any iterate is a valid comparator; this bounds the time)
MAX_ITER = 2000
#: the grid of scales s of f = s h in the R-ball (Theorems 8, 10)
N_SCALES = 21


@dataclass
class Comparator:
    """Per kernel i: the comparator h_i's squared RKHS norm and margins y_t h_i(x_t) on the T stream rows, and
    X_i^2 = max(1, max_t k_i(x_t, x_t))."""

    T: int
    kmax: np.ndarray        # max_t k_i(x_t, x_t)
    xbar2: np.ndarray       # max(1, kmax)
    norm2: np.ndarray       # ||h_i||^2 in H_{k_i}
    margins: np.ndarray     # (m, T): y_t h_i(x_t)
    n_train: int            # rows the SVM was trained on

    def hinge(self, scale=1.0) -> np.ndarray:
        """sum_t max(0, 1 - s y_t h_i(x_t)) for every kernel i (s = ``scale``, scalar or per kernel)."""
        s = np.broadcast_to(np.asarray(scale, dtype=np.float64), (self.margins.shape[0],))
        return np.maximum(0.0, 1.0 - s[:, None] * self.margins).sum(axis=1)

    @property
    def G(self) -> np.ndarray:
        """X_i^2 ||h_i||^2 + 2 sum_t l(h_i(x_t)) >= the mistakes of a kernel Perceptron on k_i (= g(k_i, l)'s
        objective at h_i when X_i^2 = 1)."""
        return self.xbar2 * self.norm2 + 2.0 * self.hinge()

    @property
    def N(self) -> np.ndarray:
        """||h_i||^2 + 2 sum_t l(h_i(x_t)) + (X_i^2 - 1) G_i >= 2 sum_t nu_i^t of Algorithm 2."""
        return self.norm2 + 2.0 * self.hinge() + (self.xbar2 - 1.0) * self.G

    def best_scaled(self, j: int, R: float, objective) -> tuple[float, float]:
        """min over s in [0, min(1, R / ||h_j||)] (grid) of objective(sum_t l(s h_j(x_t)), s^2 ||h_j||^2):
        (value, s)."""
        smax = 1.0 if self.norm2[j] <= R * R else R / math.sqrt(self.norm2[j])
        best = (math.inf, 0.0)
        for s in np.linspace(0.0, smax, N_SCALES):
            loss = float(np.maximum(0.0, 1.0 - s * self.margins[j]).sum())
            best = min(best, (objective(loss, s * s * self.norm2[j]), float(s)))
        return best


# ----------------------------------------------------------------------------- kernels in numpy
def _dots(A, B) -> np.ndarray:
    P = A @ B.T
    return P.toarray() if issparse(P) else np.asarray(P)


def _sqnorms(A) -> np.ndarray:
    if issparse(A):
        return np.asarray(A.multiply(A).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", A, A)


def _kernel(k, D: np.ndarray, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """k(a, b) from the inner products D = <a, b> and squared norms (olk.kernels' formulas)."""
    if k.kind == "gaussian":
        return np.exp(-k.gamma * np.maximum(sa[:, None] + sb[None, :] - 2.0 * D, 0.0))
    if k.kind == "polynomial":
        return (k.gamma * D + k.coef0) ** k.degree
    if k.kind == "linear":
        return D.copy()
    raise ValueError(f"omkl_bounds: no formula for kernel kind {k.kind!r}")


def _self_kernel(k, s: np.ndarray) -> np.ndarray:
    """k(x, x) from the squared norms s = <x, x>."""
    if k.kind == "gaussian":
        return np.ones_like(s)
    if k.kind == "polynomial":
        return (k.gamma * s + k.coef0) ** k.degree
    return s.copy()


def _svm_dual(K: np.ndarray, y: np.ndarray, C: float, maxiter: int) -> np.ndarray:
    """Bias-free kernel SVM: max_alpha sum alpha - (alpha y)' K (alpha y) / 2, 0 <= alpha <= C; returns the
    expansion coefficients alpha_j y_j of h = sum_j alpha_j y_j k(x_j, .)."""
    from scipy.optimize import Bounds, minimize
    Q = K * np.outer(y, y)

    def fun(a):
        Qa = Q @ a
        return 0.5 * float(a @ Qa) - float(a.sum()), Qa - 1.0

    r = minimize(fun, np.zeros(len(y)), jac=True, method="L-BFGS-B", bounds=Bounds(0.0, C),
                 options={"maxiter": maxiter, "ftol": 1e-12, "gtol": 1e-7})
    return r.x * y


_CACHE: "OrderedDict[tuple, Comparator]" = OrderedDict()


def _digest(X, y) -> str:
    h = hashlib.blake2b(digest_size=16)
    if issparse(X):
        import scipy.sparse as sp
        X = sp.csr_matrix(X)
        for a in (X.indptr, X.indices, X.data):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(str(X.shape).encode())
    else:
        h.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
        h.update(str(np.shape(X)).encode())
    h.update(np.ascontiguousarray(y, dtype=np.float64).tobytes())
    return h.hexdigest()


def comparator(X, y, kernels, max_rows: int = MAX_ROWS, C: float = SVM_C, seed: int = 0,
               maxiter: int = MAX_ITER) -> Comparator:
    """The comparators h_i (one bias-free SVM per kernel of ``kernels``, a KernelSet) on the stream (X, y),
    cached in memory by (data, kernels, settings): the runs of one dataset share it."""
    key = (_digest(X, y), kernels.label(), max_rows, C, seed, maxiter)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    with one_blas_thread_here():        # one BLAS thread: olk runs one job per core (and threads contend)
        comp = _comparator(X, y, kernels, max_rows, C, seed, maxiter)
    _CACHE[key] = comp
    while len(_CACHE) > 4:
        _CACHE.popitem(last=False)
    return comp


def _comparator(X, y, kernels, max_rows, C, seed, maxiter) -> Comparator:
    y = np.asarray(y, dtype=np.float64)
    T, m = len(y), len(kernels)
    sq = _sqnorms(X)
    kmax = np.array([float(_self_kernel(k, sq).max()) for k in kernels])
    xbar2 = np.maximum(1.0, kmax)
    idx = np.arange(T) if T <= max_rows else np.sort(np.random.default_rng(seed).choice(T, max_rows, replace=False))
    Xs, ys, sqs = X[idx], y[idx], sq[idx]
    D = _dots(Xs, Xs)
    coefs = np.zeros((m, len(idx)))
    norm2 = np.zeros(m)
    for i, k in enumerate(kernels):
        K = _kernel(k, D, sqs, sqs) / xbar2[i]
        coefs[i] = _svm_dual(K, ys, C, maxiter)
        norm2[i] = max(float(coefs[i] @ K @ coefs[i]), 0.0) / xbar2[i]     # ||h||^2_{H_i} = ||h||^2_{H'} / X^2
    del D
    sv = np.flatnonzero((coefs != 0.0).any(axis=0))
    Xsv, sqsv, csv = Xs[sv], sqs[sv], coefs[:, sv]
    margins = np.zeros((m, T))
    for a in range(0, T, 2048):
        b = min(a + 2048, T)
        D = _dots(X[a:b], Xsv)
        for i, k in enumerate(kernels):
            margins[i, a:b] = y[a:b] * (_kernel(k, D, sq[a:b], sqsv) @ csv[i]) / xbar2[i]
    return Comparator(T=T, kmax=kmax, xbar2=xbar2, norm2=norm2, margins=margins, n_train=len(idx))


# ----------------------------------------------------------------------------- the theorems
def _detail(c: Comparator, j: int, value: float, **extra) -> dict:
    return {"bound_kernel": int(j), "bound_g": float(value), "bound_kmax": float(c.kmax.max()),
            "bound_svm_rows": int(c.n_train), **extra}


def theorem2(c: Comparator, beta: float, m: int) -> tuple[float, dict]:
    """Theorem 2 (eq. (4)), Algorithm 1: M <= 2 ln(1/beta)/(1-beta) min_i G_i + 2 ln m/(1-beta)."""
    G = c.G
    j = int(np.argmin(G))
    lib = -math.log(beta)
    return 2.0 * lib / (1.0 - beta) * G[j] + 2.0 * math.log(m) / (1.0 - beta), _detail(c, j, G[j])


def theorem5(c: Comparator, m: int) -> tuple[float, dict]:
    """Theorem 5, Algorithm 1 with the doubling trick (eq. (5)), as its proof gives it: with G = min_i G_i,
    s <= 1 + floor(log2(G + 1)) segments (2^(s-1) - 1 <= G) and per segment M_k <= 2(Z_k + ln m + 2 sqrt(ln m)
    2^(k/2)), Z_k <= 2^k, sum_k Z_k <= G:
        M <= 2 G + 2 s ln m + 4 sqrt(ln m) (2^(s/2) - 1) / (sqrt 2 - 1).
    (The printed 2 (G + ln m + 2/(sqrt 2 - 1) sqrt(G ln m)) + 2 ceil(log2 G) ln m is smaller: its sum over the
    segments drops a factor sqrt 2 and one segment.)"""
    G = c.G
    j = int(np.argmin(G))
    L = math.log(m)
    s = 1 + math.floor(math.log2(G[j] + 1.0))
    val = 2.0 * G[j] + 2.0 * s * L + 4.0 * math.sqrt(L) * (2.0 ** (s / 2.0) - 1.0) / (math.sqrt(2.0) - 1.0)
    return val, _detail(c, j, G[j], bound_segments_max=int(s))


def theorem3(c: Comparator, beta: float, gamma: float, m: int) -> tuple[float, dict]:
    """Theorem 3, Algorithm 2: M <= 2(1/2+gamma) ln(1/beta) min_i g_i / (1 - beta^(1/2+gamma))
    + 4 (1/2+gamma) ln m / (1 - beta^(1/2+gamma)), g_i -> N_i (= g_i when X_i^2 = 1)."""
    N = c.N
    j = int(np.argmin(N))
    cc = 0.5 + gamma
    den = 1.0 - beta ** cc
    return 2.0 * cc * -math.log(beta) * N[j] / den + 4.0 * cc * math.log(m) / den, _detail(c, j, N[j])


def theorem6(c: Comparator, beta: float, delta: float, m: int) -> tuple[float, dict]:
    """Theorem 6, Algorithm 3 (expected mistakes): (m/delta) x Theorem 2's bound."""
    val, det = theorem2(c, beta, m)
    return m / delta * val, det


def theorem7(c: Comparator, beta: float, delta: float, m: int) -> tuple[float, dict]:
    """Theorem 7, Algorithm 4 (expected mistakes): (1/delta) x Theorem 2's bound."""
    val, det = theorem2(c, beta, m)
    return val / delta, det


def theorem8(c: Comparator, beta: float, R: float, m: int) -> tuple[float, dict]:
    """Theorem 8, Algorithm 5, with u = e_j and f_j = s h_j in Omega_j, best j:
    M <= [2 sum_t l(s h_j(x_t)) + s^2 ||h_j||^2 + 2 ln m / ln(1/beta)] / [2 - ln(1/beta) R^2 X_max^2 - X_j^2]
    (Theorem 8's [g(u, f) + 2 ln m/ln(1/beta)] / (1 - R^2 ln(1/beta)) when every X_i^2 = 1; inf if the
    denominator is <= 0, e.g. R^2 ln(1/beta) >= 1)."""
    lib = -math.log(beta)
    xmax = float(c.xbar2.max())
    best = (math.inf, 0, 0.0, math.nan)
    for j in range(len(c.xbar2)):
        g, s = c.best_scaled(j, R, lambda loss, n2: 2.0 * loss + n2)
        den = 2.0 - lib * R * R * xmax - c.xbar2[j]
        val = (g + 2.0 * math.log(m) / lib) / den if den > 0 else math.inf
        if val < best[0] or math.isnan(best[3]):
            best = (val, j, s, g)
    return best[0], _detail(c, best[1], best[3], bound_scale=best[2])


def theorem10(c: Comparator, beta: float, R: float, delta: float, eta: float, m: int) -> tuple[float, dict]:
    """Theorem 10, Algorithm 6 (expected mistakes), for the step eta actually used, u = e_j, f_j = s h_j:
    E[M] <= sum_t l(s h_j(x_t)) + a / eta + eta b_j T."""
    lib = -math.log(beta)
    xmax = float(c.xbar2.max())
    a = R * R / 2.0 + math.log(m) / lib
    best = (math.inf, 0, 0.0, math.nan)
    for j in range(len(c.xbar2)):
        loss, s = c.best_scaled(j, R, lambda loss, n2: loss)
        b = lib * R * R * xmax * m * m / (2.0 * delta * delta) + m * c.xbar2[j] / (2.0 * delta)
        val = loss + a / eta + eta * b * c.T
        if val < best[0] or math.isnan(best[3]):
            best = (val, j, s, loss)
    return best[0], _detail(c, best[1], best[3], bound_scale=best[2])


def evaluate(model) -> dict:
    """The bound of ``model`` (an omkl_* learner trained with ``bound=True``) on the stream it learned from:
    {'mistake_bound' (NaN when the bound is vacuous, 'bound_vacuous' then True), 'bound_theorem',
    'bound_kernel' (the comparator's kernel), 'bound_g' (its g / G / N term), 'bound_kmax' (max_{i,t}
    k_i(x_t, x_t); the theorems assume <= 1), 'bound_svm_rows' (rows the comparator SVM was trained on), ...}."""
    X, y = model.stream_data()
    comp = comparator(X, y, model.kernels)
    val, det = model.bound_value(comp)
    vacuous = not math.isfinite(val)        # e.g. Theorem 8's denominator <= 0: recorded as NaN ('n/a' in tables)
    return {"mistake_bound": math.nan if vacuous else float(val), "bound_vacuous": vacuous,
            "bound_theorem": model.theorem, **det}
