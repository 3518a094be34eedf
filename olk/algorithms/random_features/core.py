"""Random Fourier features for online multi-kernel regression, and the Raker core shared by ``raker``,
``omkl_aks``, ``amkl`` and ``amkl_aks`` (a helper module, not a learner).

Sources: Y. Shen, T. Chen & G. B. Giannakis, "Random Feature-based Online Multi-kernel Learning in
Environments with Unknown Dynamics", JMLR 20 (2019) (Raker); S. Hong & J. Chae, "Active Learning with
Multiple Kernels", IEEE TNNLS 2022 / arXiv 2005.03188 (the AMKL paper), eqs. (2), (7)-(10), (14)-(22), (56),
(57).  The paper text olk has lost its equations; every formula here follows ``../shared/spec/amkl_raker.md``
(Sections 1-2), which marks what is INFERRED.

* **Kernel dictionary** (eq. 56): any set of Gaussian kernels exp(-gamma ||x - x'||^2) = exp(-||x - x'||^2 /
  (2 sigma^2)) from the learner's ordinary ``kernel`` (the preset ``amkl17``: sigma_i = 10^((i-9)/2), i = 1..17).
  Kernel k's frequencies are v = s_k u with s_k = 1/sigma_k = sqrt(2 gamma_k) (spectral density N(0, sigma^-2 I),
  eq. 7).  Any other kernel type is refused with a one-line ConfigError.  A kernel on a view (column range) draws
  frequencies on its columns only (zeros elsewhere).
* **Frequency samplers** (config key ``sampler``):
  ``rff``: u ~ N(0, I_d) i.i.d. (the textbook eq. 8);
  ``authors`` (default, the authors' ``random_feature_map.m``): ceil(D/d) independent Haar-orthogonal d x d
  blocks (QR of a Gaussian matrix, column signs fixed by sign(diag R) so the block is exactly Haar) stacked, the
  first D rows kept, row j scaled by sqrt(c_j), c_j ~ chi^2_1 (proper ORF would use chi^2_d: the authors' choice
  changes the implied kernel but reproduces the published Raker MSEs best, spec Section 7).
* **Drawn once** per learner, at its first ``bind`` (when the width d is known), from a generator of its own
  seeded by ``random_state`` only (``feature_rng``): the same seed gives the same V_k whatever the data, the
  learner (``raker`` and ``amkl`` share V for one seed) or the learner's other random draws.  Per kernel: the
  Gaussian/QR blocks, then the chi^2 scales; kernels in kernel order.
* **Feature map** z_k(x) = [sin(V_k x); cos(V_k x)] in R^{2D} WITHOUT the 1/sqrt(D) of eq. (10) by default: the
  authors' code (spec Section 1, last bullet; with 1/sqrt(D) and the eq. 57 steps the MSEs come out ~5x too
  large).  ``normalize_features: true`` gives the textbook map z/sqrt(D), for which z(x)'z(x') ~ k(x, x').
  All kernels at once: one (K*D x d) matrix-vector product per example, then sin and cos of the K*D values.

>>> import numpy as np
>>> from olk.kernels import KernelSet
>>> from olk.algorithms.random_features.core import draw_frequencies, feature_map, feature_rng
>>> ks = KernelSet.of({"type": "gaussian", "gamma": 0.5})                  # sigma = 1
>>> V = draw_frequencies(ks, 3, 2000, "rff", feature_rng(0))
>>> x, x2 = np.array([[0.1, 0.2, 0.3]]), np.array([[0.4, -0.2, 0.5]])
>>> approx = float(feature_map(V, x, 2000, True)[0, 0] @ feature_map(V, x2, 2000, True)[0, 0])
>>> exact = float(np.exp(-0.5 * np.sum((x - x2) ** 2)))
>>> round(exact, 3), abs(approx - exact) < 0.05
(0.865, True)
>>> V.shape, bool(np.array_equal(V, draw_frequencies(ks, 3, 2000, "rff", feature_rng(0))))   # same seed, same V
((2000, 3), True)
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._core.svpool import RowSource
from ..._lazy import issparse
from ...errors import ConfigError, DataError
from ..common.arrays import ArrayAPI
from ..common.inputs import check_finite_X, n_rows
from ..common.learner import KernelEstimator
from ..common.regressor import STANDARDIZE_Y, STEP_SIZE, TargetScale, step_of
from ..registry import NumberOr, Param, Reproducibility

AUTO = "auto"

#: the spawn key of the random-feature stream (so V never shares draws with the learner's own ``rng``)
_FEATURE_STREAM = 0x52414B  # "RAK"


# ---------------------------------------------------------------------------------------- samplers
def sample_rff(D: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """``rff``: D x d i.i.d. N(0, 1) directions u_j (eq. 8, before the kernel's scale s_k)."""
    return rng.standard_normal((D, d))


def _haar(d: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-distributed d x d orthogonal matrix: Q of the QR of a Gaussian matrix with its columns' signs fixed
    by sign(diag R) (Mezzadri 2007).  The authors' MATLAB ``qr`` has no sign fix; flipping a frequency's sign only
    flips the sign of its sin feature, which OGD from theta = 0 mirrors exactly, so predictions do not change."""
    Q, R = np.linalg.qr(rng.standard_normal((d, d)))
    s = np.sign(np.diag(R))
    s[s == 0.0] = 1.0
    return Q * s


def sample_authors(D: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """``authors``: ceil(D/d) stacked Haar-orthogonal d x d blocks, first D rows, row j times sqrt(c_j),
    c_j ~ chi^2_1 (the authors' ``random_feature_map.m``; spec Section 1)."""
    if d == 0:
        return np.zeros((D, 0))
    Q = np.vstack([_haar(d, rng) for _ in range(-(-D // d))])[:D]
    return np.sqrt(rng.chisquare(1.0, size=D))[:, None] * Q


SAMPLERS = {"authors": sample_authors, "rff": sample_rff}


def feature_rng(random_state) -> np.random.Generator:
    """The generator the frequencies are drawn from: seeded by ``random_state`` alone (an int, or None for fresh
    entropy) on a stream of its own, so V depends on nothing else.  A Generator passed as ``random_state`` is used
    as it is (then V shares its draws with the learner's ``rng``)."""
    if random_state is None or isinstance(random_state, (int, np.integer)):
        seed = None if random_state is None else int(random_state)
        return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_FEATURE_STREAM,)))
    return np.random.default_rng(random_state)


def kernel_scales(kernels, where: str, hint: str = "kernel: amkl17 or {type: gaussian, gamma: ...}") -> np.ndarray:
    """s_k = 1/sigma_k = sqrt(2 gamma_k) of every kernel (all must be Gaussian: a one-line ConfigError otherwise,
    ending in `hint`)."""
    for k in kernels:
        if k.kind != "gaussian":
            raise ConfigError(f"{where}: random Fourier features need Gaussian kernels, got {k.label()}; use {hint}")
        if k.view is not None and k.cols is None:
            raise ConfigError(f"{where}: kernel {k.label()}: view '{k.view}' is not resolved to columns; give "
                              f"view: [lo, hi] (0-based column range)")
    return np.array([math.sqrt(2.0 * k.gamma) for k in kernels])


def draw_frequencies(kernels, n_features: int, D: int, sampler: str, rng: np.random.Generator) -> np.ndarray:
    """The stacked frequency matrix [V_1; ...; V_K] (K*D x n_features), V_k = s_k * (sampler's D x d_k draw) on
    kernel k's columns (all of them, or its view), zeros elsewhere; kernels in kernel order."""
    scales = kernel_scales(kernels, "kernel")
    V = np.zeros((len(scales) * D, n_features))
    for k, (kern, s) in enumerate(zip(kernels, scales)):
        lo, hi = kern.cols if kern.cols is not None else (0, n_features)
        V[k * D:(k + 1) * D, lo:hi] = s * SAMPLERS[sampler](D, hi - lo, rng)
    return V


def feature_map(V: np.ndarray, X: np.ndarray, D: int, normalize: bool = False) -> np.ndarray:
    """z_k(x) = [sin(V_k x); cos(V_k x)] (times 1/sqrt(D) if ``normalize``) for every row of X (n x d) and every
    kernel: an (n, K, 2D) array (eq. 10 up to the scale)."""
    P = (np.asarray(X, dtype=np.float64) @ V.T).reshape(X.shape[0], -1, D)
    Z = np.concatenate([np.sin(P), np.cos(P)], axis=2)
    return Z / math.sqrt(D) if normalize else Z


# ------------------------------------------------------------------------------------- parameters


N_RF = Param("n_rf", 50, "D: random features per kernel (z_k has 2D entries); eq. (57): D = 50", type=int,
             check=lambda v: v >= 1, requirement=">= 1")
ETA_L = Param("eta_l", AUTO, f"local OGD step eta_l > 0, or '{AUTO}' = 1/sqrt(T) (eq. 57, INFERRED)",
              type=NumberOr(AUTO), check=lambda v: v == AUTO or v > 0, requirement=f"> 0 or '{AUTO}'")
ETA_G = Param("eta_g", AUTO, f"global exponential-weights step eta_g >= 0, or '{AUTO}' = 1/sqrt(T) (eq. 57, "
              "INFERRED)", type=NumberOr(AUTO), check=lambda v: v == AUTO or v >= 0, requirement=f">= 0 or '{AUTO}'")
LAM = Param("lam", 0.01, "lambda: the ridge term of the local loss (18), eq. (57): 0.01", check=lambda v: v >= 0,
            requirement=">= 0")
HORIZON = Param("horizon", 0, f"T of the '{AUTO}' steps 1/sqrt(T); 0 = none given: step_size=sqrt_T takes the rows "
                "of the data the learner is bound to (the stream the engine runs; a multi-epoch run: epochs x rows), "
                "step_size=auto the anytime step", type=int, check=lambda v: v >= 0, requirement=">= 0")
ETA_CAP = Param("eta_cap", None, "optional cap on the local step: eta_l <- min(eta_l, eta_cap); none (default) = "
                "the literal eq. (57) step.  Stability needs eta_l ||z||^2 = eta_l D < 1 (unnormalised z)",
                type=NumberOr("none"), check=lambda v: v is None or v > 0, requirement="> 0 or none")
SAMPLER = Param("sampler", "authors", "frequency sampler: authors (stacked Haar-orthogonal blocks, chi^2_1 row "
                "scales; default) | rff (i.i.d. Gaussian, eq. 8)", type=str, choices=tuple(SAMPLERS))
NORMALIZE = Param("normalize_features", False, "z/sqrt(D) (the textbook map of eq. 10) instead of the authors' "
                  "unnormalised z (default)", type=bool)
WEIGHT_LOSS = Param("weight_loss", "squared", "the loss of the exponential weights (21): squared (default) = the "
                    "unregularised (f_k - y)^2 of the authors' omkl_rs_final.m / ofl_function.m | regularised = "
                    "(f_k - y)^2 + lambda ||theta_k||^2, the local loss (18) as Ghari's Python Raker uses it (spec "
                    "Section 2, step 5: INFERRED)", type=str, choices=("squared", "regularised"))

#: the parameters of the Raker core, shared by the four learners
CORE_PARAMS = (N_RF, ETA_L, ETA_G, LAM, HORIZON, ETA_CAP, SAMPLER, NORMALIZE, WEIGHT_LOSS, STEP_SIZE, STANDARDIZE_Y)
#: parameters that fix V's or theta's shape (or its units): changing one with set_params restarts the learner untrained
_STRUCTURAL = ("n_rf", "sampler", "normalize_features", "standardize_y")

RF_REPRODUCIBILITY = Reproducibility(
    exact=False, mse=1e-3,
    reason="numpy's BLAS/LAPACK (the K*D x d matrix-vector products, the QR of the authors' sampler) "
    "and libm's sin/cos/exp: last-bit differences between hosts; results are bit-identical on one machine.  "
    "Declared: the mean online MSE and labelling efficiency within 0.1% (a last-bit flip of one confidence "
    "test changes rho by 1/T)")


class RandomFeatureLearner(ArrayAPI, KernelEstimator):
    """An online learner on random Fourier features of its Gaussian kernel(s), shared by the Raker core
    (:class:`RandomFeatureMKL`) and FOGD (``olk.algorithms.approximation.fogd``): the frequencies V, drawn once at
    the first ``bind`` (:func:`draw_frequencies` with the subclass's ``n_rf``, ``sampler`` and
    ``feature_rng(random_state)``), the rows kept as one dense array, and z_k(x_t) for every kernel
    (:meth:`_features`, with the subclass's ``normalize_features``).

    Not a kernel expansion: there are no support vectors (``n_sv`` = 0) and no kernel evaluations
    (``kernel_evals`` = 0).  ``bind`` keeps the rows as one dense float64 array (sparse input is densified); a
    narrower matrix later is padded with zero columns, a wider one refused.
    """

    @classmethod
    def memory_max_sv(cls, params, n_train):
        return 0                                    # no support vectors: random features

    @classmethod
    def memory_extra(cls, params, n_train, n_features, n_kernels):
        d2 = 2 * int(params.get("n_rf", 50))         # dense rows, and per kernel: D frequencies, 2D weights
        return 8 * (n_train * n_features + n_kernels * (d2 * n_features + 4 * d2))

    stochastic = True
    #: the end of the one-line error for a non-Gaussian kernel: what to give instead
    kernel_hint = "kernel: amkl17 or {type: gaussian, gamma: ...}"

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        kernel_scales(self.kernels, where or self.name, self.kernel_hint)    # refuses non-Gaussian kernels
        self._V: Any = None                     # [V_1; ...; V_K] (an array), drawn at the first bind
        self._d: int | None = None              # the width V was drawn for
        K, D = len(self.kernels), self.n_rf
        self._proj = np.empty(K * D)            # V x_t (reused every step)
        self._Z = np.empty((K, 2 * D))          # z_k(x_t), one row per kernel (reused every step)
        self._rows = 0                          # rows of the bound data (T of the 'auto' steps without a horizon)

    # ------------------------------------------------------------------------------------------ data
    def _dense(self, X) -> np.ndarray:
        """X as a C-contiguous float64 (n, d) array of this model's width (padded with zero columns if narrower)."""
        if isinstance(X, RowSource):
            raise DataError(f"{self.name} reads the rows as a numpy array: pass the data matrix (dense or scipy "
                            f"sparse), not a RowSource")
        if issparse(X):
            X = X.toarray()
        A = np.asarray(X, dtype=np.float64)
        if A.ndim == 1:
            A = A.reshape(1, -1)
        if A.ndim != 2:
            raise DataError(f"X: expected a 2-d data matrix, got shape {A.shape}")
        if self._d is not None:
            if A.shape[1] > self._d:
                raise DataError(f"data has {A.shape[1]} features but {self.display}'s random features were drawn "
                                f"for {self._d}: a feature it never saw has no frequencies, so wider rows cannot be "
                                f"mapped; remove the columns beyond {self._d} (exact only if they are zero)")
            if A.shape[1] < self._d:
                A = np.hstack([A, np.zeros((A.shape[0], self._d - A.shape[1]))])
        return np.ascontiguousarray(A)

    def _source_for(self, X) -> np.ndarray:
        check_finite_X(X)
        return self._dense(X)

    def _model_width(self) -> int:
        return self._d or 0

    def bind(self, X) -> np.ndarray:
        """Keep the rows of X (dense float64; sparse is densified) for ``step(i, y)``; the first bind draws V."""
        A = self._dense(X)
        self.kernels.check_data(A)              # a kernel's view inside the columns
        if self._V is None:
            self._d = A.shape[1]
            self._V = draw_frequencies(self.kernels, self._d, self.n_rf, self.sampler, feature_rng(self.random_state))
        self.src = A
        self._rows = 0 if getattr(self, "horizon", 0) else A.shape[0]     # with a horizon T is known: no chunk state
        return A

    @property
    def frequencies_(self) -> np.ndarray | None:
        """The drawn [V_1; ...; V_K] (K*D x d), a copy; None before the first bind."""
        return None if self._V is None else self._V.copy()

    def _features(self, i: int) -> np.ndarray:
        """z_k(x_i) for every kernel, (K, 2D): one (K*D x d) product, then sin and cos (10)."""
        if i < 0:
            raise IndexError(f"row {i} is negative")
        D = self.n_rf
        np.dot(self._V, self.src[i], out=self._proj)
        P = self._proj.reshape(-1, D)
        Z = self._Z
        np.sin(P, out=Z[:, :D])
        np.cos(P, out=Z[:, D:])
        if self.normalize_features:
            Z *= 1.0 / math.sqrt(D)
        return Z

    @property
    def model_size(self) -> int:
        """D, the random features per kernel (the size of the model's basis; there are no SVs)."""
        return self.n_rf

    def model_values(self) -> int:
        """The frequencies V (K*D x d) and the weights :meth:`_weight_count` counts; none before the first bind."""
        return 0 if self._V is None else int(self._V.size) + self._weight_count()

    def _weight_count(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    @property                       # read-only here: the width V was drawn for
    def n_features_in_(self) -> int | None:  # type: ignore[override]
        return self._d


class RandomFeatureMKL(RandomFeatureLearner):
    """The Raker core (Shen et al. 2019; AMKL paper eqs. 14-22; spec Section 2): K random-feature kernel
    regressors f_k(x) = theta_k' z_k(x) (16) and exponential weights over them, shared by ``raker``, ``omkl_aks``,
    ``amkl`` and ``amkl_aks`` (which differ only in how they predict and whether they learn a round).

    State: theta_k in R^{2D} (theta_1,k = 0), log-weights log w_k (w_1,k = 1), kept as logs so that no weight
    under- or overflows; q_k = w_k / sum_j w_j (22) is computed from them (``weights_``, kernel order).

    One learning round on (x_t, y_t) (``_update``), every kernel:
        e_k = f_k(x_t) - y_t
        theta_k <- theta_k - eta_l (2 e_k z_k(x_t) + 2 lambda theta_k)     (17), gradient of the loss (18)
        log w_k <- log w_k - eta_g e_k^2                                   (21), the UNREGULARISED squared
                   error (the authors' ``omkl_rs_final.m``/``ofl_function.m``; INFERRED).  The labelled option
                   ``weight_loss: regularised`` uses e_k^2 + lambda ||theta_k||^2 (theta_k before this round's
                   step: the local loss (18) at theta_t,k), as Ghari's Python Raker does.

    Parameters (57): D = 50, eta_l = eta_g = 1/sqrt(T), lambda = 0.01 (INFERRED from the authors' code and
    Theorem 1's rates, spec Section 2): ``step_size='sqrt_T'`` with raw targets (``standardize_y=False``), what the
    reproduction configs state.  T = ``horizon`` or, if 0, the rows of the data the learner is bound to (the engine
    binds the whole stream once; ``partial_fit`` in chunks sees each chunk's rows: set ``horizon``).  olk's
    defaults (:mod:`olk.algorithms.common.regressor`): ``step_size='auto'``, i.e. 1/sqrt(horizon) or, with no
    horizon, the anytime 1/sqrt(t), with eta_l at most 1/(2 ||z||^2) (the stability note below: it never
    overshoots), and ``standardize_y=True``: the running standardisation of the targets.

    Stability note (spec Section 2): with the unnormalised z, ||z_k||^2 = D exactly, and the update of f_k(x_t)
    is an LMS step with gain 2 eta_l D; it is stable only if eta_l D < 1, i.e. T > D^2 = 2,500 with eta_l =
    1/sqrt(T).  Shorter streams (quick/CI runs) diverge with the literal steps; ``eta_cap`` (default none = the
    literal eq. 57) caps eta_l, e.g. ``eta_cap: 0.01`` = 0.5/D.

    Not a kernel expansion (:class:`RandomFeatureLearner`): the model is theta (K x 2D) and the weights.
    """

    task = "regression"
    max_kernels = 1_000_000
    default_kernel = "amkl17"           # the papers' dictionary (AMKL eq. (56)): the confidence test needs several
    reproducibility = RF_REPRODUCIBILITY
    params: tuple[Param, ...] = CORE_PARAMS
    structural_params = _STRUCTURAL     # V and theta depend on them: set_params restarts the learner

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        K, D = len(self.kernels), self.n_rf
        self._theta = np.zeros((K, 2 * D))      # theta_k, one row per kernel
        self._logw = np.zeros(K)                # log w_k
        self.targets = TargetScale(self.standardize_y)     # y -> what is learned, f -> the prediction

    def learn_one(self, x, y):
        """As the base class; with ``step_size='sqrt_T'`` the 'auto' steps 1/sqrt(T) need the stream's length: set
        ``horizon`` for a stream (the default ``step_size='auto'`` needs none: the anytime step)."""
        if self.step_size == "sqrt_T" and self.horizon == 0 and AUTO in (self.eta_l, self.eta_g):
            raise ConfigError(f"{self.name}: learn_one cannot know the stream length T of eta = 1/sqrt(T) (eq. 57); "
                              f"set horizon=T (or step_size='auto', the anytime step; or numeric eta_l and eta_g)")
        return super().learn_one(x, y)

    # ------------------------------------------------------------------------------------- the model
    def steps(self) -> tuple[float, float]:
        """(eta_l, eta_g) now: the given numbers, or for 'auto' the step of ``step_size``
        (:func:`~olk.algorithms.common.regressor.step_of`: 1/sqrt(T), T = ``horizon`` or the bound rows, or the anytime
        1/sqrt(t)); with ``step_size='auto'`` eta_l is at most 1/(2 ||z||^2), the step that never overshoots (the
        module :mod:`~olk.algorithms.common.regressor`); eta_l capped at ``eta_cap`` if set."""
        cap = 0.5 / (1.0 if self.normalize_features else self.n_rf)      # 1/(2 ||z_k||^2): ||z_k||^2 = D, or 1
        eta_l = step_of(self.step_size, self.horizon, self._rows, max(self.t, 1), cap) if self.eta_l == AUTO \
            else self.eta_l
        eta_g = step_of(self.step_size, self.horizon, self._rows, max(self.t, 1)) if self.eta_g == AUTO \
            else self.eta_g
        if eta_l is None or eta_g is None:
            raise ConfigError(f"{self.name}: eta = '{AUTO}' (1/sqrt(T)) needs the number of examples T; set horizon=T")
        if self.eta_cap is not None and eta_l > self.eta_cap:
            eta_l = self.eta_cap
        return eta_l, eta_g

    def _weight_count(self) -> int:
        return int(self._theta.size + self._logw.size)       # theta (K x 2D) and the kernel weights

    @property
    def weights_(self) -> np.ndarray:
        """q_k = w_k / sum_j w_j (22), kernel order, from the log-weights."""
        e = np.exp(self._logw - self._logw.max())
        return e / e.sum()

    @property
    def theta_(self) -> np.ndarray:
        """theta_k (K x 2D; sin part first), a copy."""
        return self._theta.copy()

    def _outputs(self, Z: np.ndarray) -> np.ndarray:
        """f_k(x) = theta_k' z_k(x) (16), every kernel."""
        return np.einsum("kj,kj->k", self._theta, Z)

    def _update(self, Z: np.ndarray, f: np.ndarray, y: float, eta_g: float | None = None) -> None:
        """Local OGD (17) on every kernel and the global exponential weights (21) on the learned target
        (``targets.learn(y)``: y, or (y - m)/s); ``eta_g`` overrides the step."""
        y = self.targets.learn(y)
        eta_l, eta_g0 = self.steps()
        e = f - y
        loss = e * e
        if self.weight_loss == "regularised":         # (18) at theta_t,k, before the local step
            loss = loss + self.lam * np.einsum("kj,kj->k", self._theta, self._theta)
        grad = Z * (2.0 * e)[:, None]
        grad += (2.0 * self.lam) * self._theta        # gradient of (18): 2 (f_k - y) z_k + 2 lambda theta_k
        self._theta -= eta_l * grad
        self._logw -= (eta_g0 if eta_g is None else eta_g) * loss
        self.n_updates += 1

    # --------------------------------------------------------------------------- batch scoring
    def kernel_outputs(self, X) -> np.ndarray:
        """f_k(x) of every row of X and every kernel, (n, K), in the targets' units (``targets.out``)."""
        return self.targets.out(self._learned_outputs(X))

    def _learned_outputs(self, X) -> np.ndarray:
        """f_k(x) in the units learned, (n, K) (rows in blocks: one matrix product per block)."""
        A = self._source_for(X)
        K = len(self.kernels)
        if self._V is None:
            return np.zeros((A.shape[0], K))
        out = np.empty((A.shape[0], K))
        for a in range(0, A.shape[0], 1024):
            Z = feature_map(self._V, A[a:a + 1024], self.n_rf, self.normalize_features)
            out[a:a + 1024] = np.einsum("nkj,kj->nk", Z, self._theta)
        return out

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """The current combined prediction sum_k q_k f_k(x) (19)-(20) of every row of X (the full q-weighted
        combination; for the subset learners it is the expectation of their randomised prediction)."""
        if self._V is None:
            check_finite_X(X)
            return self.targets.out(np.zeros(n_rows(X)))
        return self.targets.out(self._learned_outputs(X) @ self.weights_)

    # ------------------------------------------------------------------------------ inspection
    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        return ("coef_", "intercept_", "kernel_weights_")

    def fitted_attributes(self) -> dict:
        """Not a kernel expansion: ``coef_`` = s theta (K x 2D, one row per kernel, the sin part first; theta in the
        targets' units, s of ``standardize_y``, 1 when off), ``intercept_`` = (m,) (0 when off) and
        ``kernel_weights_`` = q (kernel order): prediction = sum_k q_k coef_[k]' z_k(x) + intercept_; nothing before
        the first example."""
        if self._V is None:
            return {}
        return {"coef_": self.theta_ if not self.targets.on else self.targets.scale * self.theta_,
                "intercept_": np.array([self.targets.shift]), "kernel_weights_": self.weights_}

    def run_summary(self) -> dict:
        """The final kernel weights q_T (kernel order)."""
        return {"kernel_weights": self.weights_.tolist()}
