"""OM-2, the online multiple kernel learning baseline of Yang, Mahdavi, Jin, Yi & Hoi, "Online Kernel Selection:
Algorithms and Evaluations", AAAI 2012 (Section "Empirical Studies": "an online multiple kernel learning algorithm
by Jie et al. (Orabona, Luo, and Caputo 2010), to which we refer as OM-2"; run with two epochs; Tables 1-2), i.e.
the online stage of OBSCURE: Orabona, Jie (Luo) & Caputo, "Online-batch strongly convex multi kernel learning",
CVPR 2010 (journal version: "Multi Kernel Learning with Online-Batch Optimization", JMLR 13:227-253, 2012).

(2,p)-group-norm ("p-norm") multiple kernel learning by online mirror descent.  The model is one function per
kernel, w_j in H_j, and the classifier f(x) = sum_j <w_j, phi_j(x)>; the learner keeps the dual vectors
theta_j = sum_s a_s k_j(x_s, .) (every kernel receives the same hinge subgradient, so all m of them share the
coefficients a_s: ONE SV pool, m coefficient columns holding the same numbers, column j evaluated with
kernel j) and maps them to the primal by the gradient of the conjugate of h(w) = (q/2) ||w||_{2,p}^2:

    w_j = c_j theta_j,   c_j = (1/q) (||theta_j|| / ||theta||_{2,q})^(q-2),   1/p + 1/q = 1,

so a kernel whose theta_j grows faster gets a larger weight, the more so the closer p is to 1.  The learner and
every reading are described in :class:`OM2`; ``run_summary()`` records the final ||w_j|| per kernel.

The name is ``om2`` (the AAAI 2012 paper's label, results/paper's algorithm id), so the module is ``om2.py``
(olk's rule: one learner per module, named after it).

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("om2", kernel="spa16").partial_fit(X, y)  # the SPA paper's 16 kernels, p = DOGMA's default
>>> round(model.q_, 3), round(model.p_, 3), round(model.eta_, 4)      # q = 2 ln 16, eta = 2 * 16^(-2/q)
(5.545, 1.22, 0.7358)
>>> model.n_sv, model.n_updates                          # one SV per margin error, shared by the 16 kernels
(224, 224)
>>> s = model.run_summary()
>>> top = max(range(16), key=lambda j: s["kernel_weights"][j])
>>> top, model.kernels[top].label(), round(s["kernel_weights"][top], 3)   # the dominating kernel
(2, 'poly(degree=3, coef0=0, gamma=1)', 0.999)
>>> round(float((model.predict(X_test) == y_test).mean()), 2)            # accuracy on the other 1,000 rows
0.81
>>> p2 = make("om2", kernel="spa16", p=2.0).partial_fit(X, y)            # p = 2: no kernel selection
>>> round(max(p2.run_summary()["kernel_weights"]), 2), round(float((p2.predict(X_test) == y_test).mean()), 2)
(0.65, 0.8)
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.svpool import dot
from ...errors import ConfigError
from ..common.inputs import check_finite_X, n_rows
from ..common.learner import OnlineKernelLearner
from ..registry import Param, Reproducibility, register

#: p of the (2,p) group norm; 0 = DOGMA's default q = 2 ln m (kept >= 2, see the class docstring)
P = Param("p", 0.0, "p of the (2,p) group norm ||w||_{2,p}, in (1, 2] (p -> 1: sparse kernel weights, p = 2: "
          "uniform); 0 = auto: q = max(2, 2 ln m), p = q/(q-1) (the DOGMA default 1/(1 - 1/(2 ln m)))",
          check=lambda v: v == 0.0 or 1.0 < v <= 2.0, requirement="0 (auto) or in (1, 2]")
#: lambda of lambda/2 ||w||_{2,p}^2 + mean hinge; the authors' online stage does not use it (0)
LAM = Param("lam", 0.0, "lambda >= 0 of lambda/2 ||w||_{2,p}^2 + mean hinge: 0 = OBSCURE's online stage (constant "
            "step eta, no regularisation); > 0 = the strongly convex step of OBSCURE's stage 2 with R2 = inf: "
            "theta <- (1 - 1/t) theta + (q/(lam t)) y k(x, .) on y f(x) < 1",
            check=lambda v: v >= 0.0, requirement=">= 0")
#: the online stage's step; 0 = DOGMA's default m^(-2/q) of the two-class machine = 2 m^(-2/q) here
ETA = Param("eta", 0.0, "step of the online stage (lam = 0, step_rule = constant): theta_j += eta y k_j(x, .); "
            "0 = auto: 2 m^(-2/q) (DOGMA's default m^(-2/q) for its two-class machine, in binary units)",
            check=lambda v: v >= 0.0, requirement=">= 0 (0 = auto)")
#: k_obscure_online_train's constant step, or the step of the OM-2 code (k_om2_mp_multi_train)
STEP_RULE = Param("step_rule", "constant", "online-stage step: constant (eta; DOGMA k_obscure_online_train) or "
                  "om2 (eta_t = 2 min(1, 1 - y f(x) / m^(2/q)); DOGMA k_om2_mp_multi_train, Jie et al. CVPRW "
                  "2010)", type=str, choices=("constant", "om2"))


def dual_exponent(p: float, m: int) -> float:
    """q with 1/p + 1/q = 1; p = 0 (auto): q = max(2, 2 ln m) (DOGMA: q = 2 ln m).

    >>> dual_exponent(1.5, 4), dual_exponent(2.0, 4), round(dual_exponent(0.0, 16), 4), dual_exponent(0.0, 2)
    (3.0, 2.0, 5.5452, 2.0)
    """
    if p == 0.0:
        return max(2.0, 2.0 * math.log(m)) if m > 1 else 2.0
    return p / (p - 1.0)


def mirror_weights(sqnorms: np.ndarray, q: float) -> np.ndarray:
    """c_j = (1/q) (||theta_j|| / ||theta||_{2,q})^(q-2) from the squared norms ||theta_j||^2 (all zero: c = 0).

    Computed with the norms divided by the largest one (no overflow of ||theta_j||^q for a large q), in kernel
    order, with the C library's ``sqrt`` and ``pow`` (per element: never numpy's vectorised pow, which may
    take another code path on another CPU).

    >>> [round(c, 6) for c in mirror_weights(np.array([4.0, 1.0]), 3.0).tolist()]  # norms 2, 1; ||.||_3 = 9^(1/3)
    [0.3205, 0.16025]
    >>> mirror_weights(np.array([4.0, 1.0]), 2.0).tolist()                 # p = q = 2: theta / 2
    [0.5, 0.5]
    """
    norms = [math.sqrt(s) if s > 0.0 else 0.0 for s in sqnorms.tolist()]
    top = max(norms)
    if top == 0.0:
        return np.zeros(len(norms))
    r = [v / top for v in norms]
    total = 0.0
    for v in r:                                         # sum_j (n_j / n_max)^q, kernel order; >= 1
        total += math.pow(v, q)
    nq = math.pow(total, 1.0 / q)                       # ||n||_q / n_max
    e = q - 2.0
    return np.array([math.pow(v / nq, e) / q for v in r])


@register
class OM2(OnlineKernelLearner):
    """OM-2 (Yang et al., AAAI 2012) = the online stage of OBSCURE (Orabona, Jie & Caputo, CVPR 2010; JMLR 2012):
    (2,p)-norm multiple kernel learning by online mirror descent on the hinge loss, one shared SV pool.

    WHAT WAS FOUND.  The CVPR 2010 / JMLR 2012 text was not available to us (only the JMLR abstract: "a MKL
    optimization algorithm based on stochastic gradient descent ... p-norm formulation of MKL ... very few
    iterations are sufficient"), so no algorithm or equation number of that paper can be cited here.  The update
    is taken from the authors' own code, the DOGMA toolbox v0.31 (F. Orabona, 2009-2011; files read in the
    mirror github.com/denizyuret/dogma, identical update in MRLoghmani/depth_net/dogma):
    ``k_obscure_train.m`` (OBSCURE = stage 1 then stage 2; lambda = 1/(n C), default 1/n),
    ``k_obscure_online_train.m`` (stage 1, "fast online method": what this learner implements),
    ``k_obscure_batch_train.m`` (stage 2: the strongly convex stochastic step, proximal term, projection),
    ``k_om2_mp_multi_train.m`` / ``k_om2_multi_train.m`` (OM-2 of Jie, Orabona, Fornoni, Caputo & Cesa-Bianchi,
    CVPR Workshops 2010, "multiple passes": the same update with another step size) and ``obscure_test.m``
    (prediction and objective).  The AAAI 2012 paper names "OM-2" but cites the CVPR OBSCURE paper; it runs
    OM-2 for two epochs, lists no parameter tuned for it, returns the combined classifier (footnote 5) and
    prints opt-K "NA": "OM-2 does not output any weight vector corresponding to kernels" (footnote 6).

    THE AUTHORS' UPDATE (k_obscure_online_train.m; multi-class, one row of coefficients per class):
        q = 2 log m, p = 1/(1 - 1/q) (defaults), eta = m^(-2/q), beta = 0, weights = 0, sqnorms = eps
        for each epoch (randperm of the training set; stop after an epoch without updates or after T = 5):
            preds(c, j) = theta_{j,c}(x) = sum_s beta(c, s) K_j(x_s, x);  val_f = preds * weights'
            margin_true = val_f(y);  [margin_pred, yhat] = max over c != y of val_f(c)
            if margin_true <= margin_pred + 1:
                beta(y, x) += eta;  beta(yhat, x) -= eta
                sqnorms += 2 eta (preds(y, :) - preds(yhat, :)) + 2 eta^2 K(x, x, :)
                norms = sqrt(sqnorms);  weights = (norms / ||norms + eps||_q)^(q-2) / q
        prediction: argmax_c sum_j weights_j theta_{j,c}(x)
    i.e. mirror descent with the link w = grad h*(theta), h(w) = (q/2) ||w||_{2,p}^2, h*(theta) =
    ||theta||_{2,q}^2 / (2q): w_j = (1/q) (||theta_j|| / ||theta||_{2,q})^(q-2) theta_j, constant step eta on
    every margin error.  lambda does not enter the online stage (it is only used for the objective lambda/2
    ||w||_{2,p}^2 + mean hinge and R2 = 2 obj / lambda handed to stage 2).

    AS IMPLEMENTED (binary, y in {-1, +1}; theta_j = sigma sum_s b_s k_j(x_s, .), b_s in all m pool columns):
        c = 0, ||theta_j||^2 = 0;  for t = 1, 2, ...:
            theta_j(x_t) = sigma * (pool column j at x_t)         (one pass over the SVs for all m kernels)
            f = sum_j c_j theta_j(x_t)   -> predict sign(f), sign(0) = +1; ``step`` returns f
            lam = 0 (the online stage):  if y_t f <= 1:
                a = y_t eta  (step_rule='om2': a = y_t 2 min(1, 1 - y_t f / m^(2/q)))
                ||theta_j||^2 += 2 a theta_j(x_t) + a^2 k_j(x_t, x_t)   (every j, O(m));  theta_j += a k_j(x_t, .)
                c_j = (1/q) (||theta_j|| / ||theta||_{2,q})^(q-2)
            lam > 0 (stage 2's step, R2 = inf): eta_t = q/(lam t), rho = 1 - eta_t lam / q = 1 - 1/t
                if y_t f < 1:  ||theta_j||^2 = rho^2 ||theta_j||^2 + 2 eta_t y_t rho theta_j(x_t)
                                                 + eta_t^2 k_j(x_t, x_t)
                               theta <- rho theta + eta_t y_t k(x_t, .);  c recomputed
                else:          theta <- rho theta, ||theta_j||^2 <- rho^2 ||theta_j||^2  (c unchanged: scale-free)
    The scaling by rho is O(1): a global factor sigma (a new SV stores b = a / sigma), folded into the stored
    coefficients when it falls below ``renormalise_below`` (as olk.algorithms.common.projected does); the norms are
    kept incrementally, never recomputed from the Gram matrix.  With one kernel c = 1/q whatever p, so
    w = theta / q: lam = 0 is the margin Perceptron with step eta/q, lam > 0 is Pegasos' step
    w <- (1 - 1/t) w + (1/(lam t)) y k(x_t, .) on y w(x_t) < 1 (without its projection).

    READINGS (every place where we chose):

    * Binary form.  DOGMA is multi-class; on two classes its rows are theta and -theta, its score is
      val(+1) - val(-1) = 2 sum_j c_j theta_j(x) and it updates when that margin difference is <= 1.  Our
      binary learner with step 2 eta is exactly that machine (theta doubles, c_j is invariant to scaling theta,
      so f doubles: the same predictions and updates), hence the auto step 2 m^(-2/q); with lam > 0 the
      two-class objective with lambda is ours with lam = lambda / 2.  Binary units make the objective the
      brief's lam/2 ||w||_{2,p}^2 + mean [1 - y f(x)]_+ exactly.
    * Default p.  DOGMA's q = 2 ln m is < 2 for m <= 2 (p > 2, where (q/2)||w||_{2,p}^2 is not strongly convex,
      and m = 1 divides by q = 0); olk takes q = max(2, 2 ln m) and accepts p in (1, 2] only.
    * eps.  DOGMA starts sqnorms at eps and adds eps to the norms inside the q-norm (a guard against 0/0);
      we track the exact ||theta_j||^2 (clamped at 0 against rounding) and set c = 0 while theta = 0 (no
      difference to any prediction: theta_j = 0 contributes nothing; the eps shift of c_j is ~1e-8 relative).
    * Margin test: <= 1 in the online stage (k_obscure_online_train, k_om2_*), < 1 for lam > 0 (the batch
      stage's test), each as its code has it.
    * lam > 0 is k_obscure_batch_train with R2 = inf ("the proximal regularization and the projection step are
      not used") run on the stream from theta = 0, t counting every example seen.  Stage 2 proper (R2 = 2 obj /
      lambda from the objective of stage 1 over the whole training set, the proximal tau_t, the projection onto
      ||theta||_{2,q} <= q sqrt(R2)) needs a batch quantity and is not implemented; nor is the OBSCURE driver's
      switch from stage 1 to stage 2.
    * Epochs are not a parameter: the engine streams (one pass per ``partial_fit``; DOGMA's randperm epochs
      and its early stop after an epoch without updates are the caller's data passes).  A training example
      updated twice (two passes) is two SV rows here, one accumulated coefficient in DOGMA: the same function.
    * step_rule='om2' is the step of k_om2_mp_multi_train (the code named OM-2), eta_t = min(1, 1 -
      (margin_true - margin_pred) / m^(2/q)), in binary units 2 min(1, 1 - y f / m^(2/q)); lam must be 0.
    * Test-time: obscure_test.m's kbeta skips kernels with weight <= 1e-8; we sum all m (the exact f).
    * n_updates counts margin errors (= SVs added); with lam > 0 every step also shrinks theta.
    * run_summary: ``w_norms`` = ||w_j|| = c_j ||theta_j|| and ``kernel_weights`` = ||w_j|| / sum_k ||w_k||
      (the AAAI paper reports no kernel for OM-2; these show which kernel dominates), ``dual_q``, ``group_p``,
      ``step_eta`` (the q, p and online step actually used).
    * Reproducibility: c_j needs the C library's pow (q is irrational by default), so results are not declared
      bit-exact across hosts; on one machine every run is bit-identical (no RNG, fixed summation orders).
    """

    name = "om2"
    display = "OM-2 (OBSCURE online)"
    style = ("green", "X", "-")
    params = (P, LAM, ETA, STEP_RULE)
    max_kernels = 64
    reproducibility = Reproducibility(exact=False, mistakes=2, accuracy=0.05, n_sv=0.01,
                                      reason="the mirror-map weights use the C library's pow and log")
    #: fold the global scale sigma (lam > 0) into the stored coefficients when it gets this small
    renormalise_below = 1e-4

    @classmethod
    def check_params(cls, p: dict, where: str) -> None:
        if p["step_rule"] == "om2" and p["lam"] > 0.0:
            raise ConfigError(f"{where}: step_rule 'om2' is a rule of the online stage (lam = 0); got lam = "
                              f"{p['lam']!r} (lam > 0 uses the step q/(lam t))")

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        m = len(self.kernels)
        self.n_cols = m                                     # column j <-> kernel j, all holding the same b_s
        self._buf = np.zeros(m, dtype=np.float64)
        self._set_exponents()
        self._sigma = 1.0                                   # theta_j = sigma * column j of the pool
        self.sqnorms_ = np.zeros(m)                         # ||theta_j||^2, kept incrementally
        self.weights_ = np.zeros(m)                         # c_j: w_j = c_j theta_j

    def _set_exponents(self) -> None:
        m = len(self.kernels)
        self.q_ = dual_exponent(self.p, m)                  # dual exponent q (1/p + 1/q = 1)
        self.p_ = self.q_ / (self.q_ - 1.0)
        self._m2q = math.pow(m, 2.0 / self.q_)              # m^(2/q)
        self.eta_ = self.eta if self.eta > 0.0 else 2.0 / self._m2q

    def _params_changed(self, changed: dict) -> None:
        """p and eta: the exponents and the step follow (the weights c at the next update)."""
        self._set_exponents()

    def column_kernels(self) -> list[int]:
        return list(range(len(self.kernels)))

    # ------------------------------------------------------------------ the algorithm
    def step(self, i, y):
        self.t += 1
        self.pool.decision(self.src, i, self._buf)         # sum_s b_s k_j(x_s, x_t), every kernel j
        th = self._sigma * self._buf                        # theta_j(x_t)
        f = dot(self.weights_, th)                          # predict first ...
        margin = y * f
        if self.lam > 0.0:                                  # ... then learn: stage 2's step, R2 = inf
            rho = 1.0 - 1.0 / self.t                        # = 1 - eta_t lam / q
            if margin < 1.0:
                eta_t = self.q_ / (self.lam * self.t)
                self._shrink(rho)
                self._add(i, y * eta_t, rho * th)
            else:
                self._shrink(rho)
        elif margin <= 1.0:                                 # ... then learn: the online stage
            if self.step_rule == "om2":
                a = y * 2.0 * min(1.0, 1.0 - margin / self._m2q)
            else:
                a = y * self.eta_
            if a != 0.0:
                self._add(i, a, th)
        return f

    def _add(self, i, a, th) -> None:
        """theta_j += a k_j(x_i, .) for every kernel j (th = theta_j(x_i) before the step), norms and c updated."""
        m = self.n_cols
        kxx = np.array([self.pool.self_kernel(self.src, i, k) for k in range(m)])
        self.sqnorms_ = self.sqnorms_ + (2.0 * a) * th + (a * a) * kxx
        np.maximum(self.sqnorms_, 0.0, out=self.sqnorms_)  # rounding must not make a squared norm negative
        self.pool.add(self.src, i, np.full(m, a / self._sigma), self.t)
        self.n_updates += 1
        self.weights_ = mirror_weights(self.sqnorms_, self.q_)

    def _shrink(self, rho: float) -> None:
        """theta <- rho theta in O(1) (sigma *= rho); rho = 0 only at t = 1, where theta is still 0."""
        if rho == 0.0:
            self.sqnorms_ = np.zeros_like(self.sqnorms_)
            if self.pool is not None and self.pool.n_sv:        # theta_1 = 0 always; kept for safety
                for c in range(self.n_cols):
                    self.pool.scale_col(c, 0.0)
            self._sigma = 1.0
            return
        self._sigma *= rho
        self.sqnorms_ = (rho * rho) * self.sqnorms_
        if self._sigma < self.renormalise_below:
            self._renormalise()

    def _renormalise(self) -> None:
        """Fold sigma into the stored coefficients (every column), sigma = 1: theta is unchanged."""
        for c in range(self.n_cols):
            self.pool.scale_col(c, self._sigma)
        self._sigma = 1.0

    # ------------------------------------------------------------------ inspection
    @property
    def coef_(self) -> np.ndarray:
        """alpha_s with theta_j = sum_s alpha_s k_j(sv_s, .) (the same for every kernel j), pool order."""
        if self.pool is None:
            return np.zeros(0)
        return self._sigma * self.pool.coefs[:, 0]

    def _expansion_coefs(self) -> np.ndarray:
        """theta_j = sum_s (sigma b_s) k_j(sv_s, .): every column with the global scale applied."""
        return self._sigma * self.pool.coefs

    def _kernel_weights(self):
        """||w_j|| / sum_k ||w_k|| (the ``kernel_weights`` of ``run_summary``)."""
        return self.run_summary()["kernel_weights"]

    @property
    def w_norms_(self) -> np.ndarray:
        """||w_j|| = c_j ||theta_j|| per kernel."""
        return self.weights_ * np.sqrt(np.maximum(self.sqnorms_, 0.0))

    def run_summary(self) -> dict:
        """Recorded with every run: ||w_j|| per kernel (``w_norms``), the same normalised to sum 1
        (``kernel_weights``, kernel order, as the OMKC learners record theta), ``dual_q``, ``group_p`` and the
        online stage's step ``step_eta``."""
        w = self.w_norms_
        total = float(w.sum())
        share = w / total if total > 0.0 else np.zeros_like(w)
        return {"kernel_weights": share.tolist(), "w_norms": w.tolist(), "dual_q": self.q_, "group_p": self.p_,
                "step_eta": self.eta_}

    # ------------------------------------------------------------------ outputs
    def kernel_scores(self, X) -> np.ndarray:
        """(n_rows, m): theta_j(x) of every kernel on every row of X."""
        if self.pool is None:
            check_finite_X(X)
            return np.zeros((n_rows(X), len(self.kernels)))
        return self._sigma * self.pool.decision_matrix(self._source_for(X))

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """f(x) = sum_j c_j theta_j(x) on every row of X (the same order of sums as ``step``)."""
        TH = self.kernel_scores(X)
        out = np.zeros(TH.shape[0])
        for j, c in enumerate(self.weights_.tolist()):
            out += c * TH[:, j]
        return out
