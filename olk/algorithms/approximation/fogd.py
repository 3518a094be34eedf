"""Fourier Online Gradient Descent (FOGD): J. Lu, S. C. H. Hoi, J. Wang, P. Zhao & Z.-Y. Liu, "Large Scale
Online Kernel Learning", JMLR 17(47), 2016, Algorithm 1.

Random Fourier features (Rahimi & Recht 2007) turn the Gaussian kernel k(x, x') = exp(-gamma ||x - x'||^2)
into an explicit map: by Bochner's theorem k(x, x') = E_u[cos(u'(x - x'))] with u ~ p(u) = N(0, 2 gamma I) (the
kernel's Fourier transform; 2 gamma = 1/sigma^2 for k = exp(-||x - x'||^2 / (2 sigma^2))).  With D frequencies
u_1..u_D drawn once and

    z(x) = [sin(u_1'x), ..., sin(u_D'x), cos(u_1'x), ..., cos(u_D'x)] / sqrt(D)          (2D entries)

z(x)'z(x') = (1/D) sum_i [sin(u_i'x) sin(u_i'x') + cos(u_i'x) cos(u_i'x')] = (1/D) sum_i cos(u_i'(x - x')),
an unbiased estimate of k(x, x'), and ||z(x)||^2 = 1 exactly, like k(x, x) = 1.  FOGD is then plain linear OGD
on z: f_t(x) = w_t' z(x), w_{t+1} = w_t - eta dl(f_t(x_t), y_t)/df z(x_t) (:mod:`.core`).  The frequencies and
the data handling are olk's shared random-feature machinery (:mod:`olk.algorithms.random_features.core`:
``RandomFeatureLearner``, ``draw_frequencies`` with the ``rff`` sampler, ``feature_rng``: the same draw as Raker's
with ``sampler: rff``), from a stream of their own seeded by ``random_state``.

The option ``map: cos`` is Rahimi & Recht's other unbiased map, z(x) = sqrt(2/D) [cos(u_1'x + b_1), ...,
cos(u_D'x + b_D)] with phases b_i ~ U[0, 2 pi) (D entries: E[2 cos(u'x + b) cos(u'x' + b)] = E[cos(u'(x - x'))]);
half the features for the same D, but a noisier estimate (||z(x)||^2 is 1 only on average).  The default is the
paper's [sin; cos].

The per-example work runs in olk's own loops (:mod:`olk._core.approx`, one thread): the projection U x (a sparse
row costs its nonzeros), olk's own vectorised sin and cos (IEEE operations only: the same bits on every host and
SIMD level, unlike the C library's), and w'z in a fixed blocked order, so FOGD's results are bit-identical across
machines.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")                         # bundled sample: 2,000 rows, 123 features
>>> X, y, X_test, y_test = d.X[:1000], d.y[:1000], d.X[1000:], d.y[1000:]
>>> model = make("fogd", kernel={"type": "gaussian", "gamma": 0.4}, n_rf=1000, eta=0.1, random_state=0)
>>> model.partial_fit(X, y).fitted_attributes()["coef_"].shape     # w: 2D = 2,000 weights
(1, 2000)
>>> float((model.predict(X_test) == y_test).mean())        # accuracy on the other 1,000 rows
0.78...
>>> model.n_sv, model.kernel_evals                        # no support vectors, no kernel evaluations
(0, 0)
>>> make("fogd", kernel={"type": "gaussian", "gamma": 0.4}, n_rf=1000, map="cos", random_state=0).partial_fit(
...     X, y).fitted_attributes()["coef_"].shape             # the one-cosine map: D = 1,000 weights
(1, 1000)
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.approx import FourierFeatures
from ..common.inputs import check_finite_X, n_rows
from ..random_features.core import RandomFeatureLearner, feature_rng
from ..registry import Param, Reproducibility, register
from .core import ETA, LOSS, loss_slope

#: the maps z(x): the paper's [sin; cos] (2D entries) and the one-cosine map (D entries)
MAPS = ("sincos", "cos")

#: the spawn key of the phases b of the one-cosine map (a stream of their own: V is the same for both maps)
_PHASE_STREAM = 0x50484153  # "PHAS"


@register
class FOGD(RandomFeatureLearner):
    """Fourier Online Gradient Descent (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016, Algorithm 1).

    Pseudo-code (D = ``n_rf`` components, eta = ``eta``, l = ``loss``):
        draw u_1..u_D ~ N(0, 2 gamma I) once;  w_1 = 0 in R^{2D}
        for t = 1..T:
            z_t = [sin(U x_t); cos(U x_t)] / sqrt(D)      (map: cos -> sqrt(2/D) cos(U x_t + b))
            predict sign(f_t), f_t = w_t' z_t
            if l(f_t, y_t) > 0:  w_{t+1} = w_t - eta dl(f_t, y_t)/df z_t     (hinge: w_t + eta y_t z_t if y_t f_t < 1)

    Readings (checked against the first author's MATLAB code, github jingcoco/Online-Kernel-Learning,
    binary/FouGD.m and experiment.m; none copied):
    * the map is the paper's normalised z / sqrt(D).  The authors' code uses the unnormalised [cos; sin] with a
      smaller step (``eta_fou = 0.002``); the two give the same scores when eta = eta_code * D (then every update
      moves f by the same eta s ||z||^2), i.e. 0.4 for their D = 200;
    * the order [sin; cos] instead of the code's [cos; sin] permutes the coordinates of z and w only: OGD from
      w = 0 gives the same f_t;
    * D: the authors' code sets D = 4 B (``options.D = 4`` times the budget of the budget baselines); the
      default 400 = 4 x olk's default budget 100;
    * predictions use the last w_t (the online protocol), not an average.

    olk computes sin and cos itself (olk_sincos.h; <= 1 ulp from the C library's) and sums w'z in a fixed blocked
    order: since issue 38, FOGD's scores are the same bits on every machine (before, the C library's sin/cos made
    them host-dependent in the last bits).
    """

    name = "fogd"
    display = "FOGD"
    style = ("skyblue", "h", "-.")
    params = (Param("n_rf", 400, "D: random Fourier components (z has 2D entries); the authors' code: D = 4B",
                    type=int, check=lambda v: v >= 1, requirement=">= 1"),
              ETA, LOSS,
              Param("map", "sincos", "the feature map: sincos = the paper's [sin(Ux); cos(Ux)]/sqrt(D) (2D entries, "
                    "default) | cos = sqrt(2/D) cos(Ux + b), b ~ U[0, 2 pi) (D entries; Rahimi & Recht's other map)",
                    type=str, choices=MAPS))
    reproducibility = Reproducibility(
        exact=True, reason="olk's own loops only: the projection in one order, olk's portable sin/cos, w'z in a "
        "fixed blocked order; the frequencies are numpy's seeded Generator draw")
    structural_params = ("n_rf", "map")     # V and w depend on them: set_params restarts the learner
    #: the paper's map: i.i.d. Gaussian frequencies (the ``rff`` sampler), z / sqrt(D)
    sampler = "rff"
    normalize_features = True
    kernel_hint = "one Gaussian kernel, e.g. {type: gaussian, gamma: 0.4}"

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self._w = np.zeros(self._width())       # w_1 = 0
        self._phase: np.ndarray | None = None   # b (map: cos), drawn with V
        self._ff: FourierFeatures | None = None  # U', w and z in olk's loops; derived, rebuilt on first use

    def _width(self) -> int:
        """The entries of z: 2D ([sin; cos]) or D (one cosine)."""
        return self.n_rf if self.map == "cos" else 2 * self.n_rf

    def bind(self, X) -> np.ndarray:
        """As the base class (the first bind draws V); the one-cosine map also draws its phases b ~ U[0, 2 pi),
        from a stream of their own (V is the same draw for both maps)."""
        A = super().bind(X)
        if self.map == "cos" and self._phase is None:
            if isinstance(self.random_state, (int, np.integer)):
                rng = np.random.default_rng(np.random.SeedSequence(int(self.random_state), spawn_key=(_PHASE_STREAM,)))
            else:                               # None: fresh entropy; a Generator: its draws after V's
                rng = feature_rng(self.random_state)
            self._phase = rng.uniform(0.0, 2.0 * math.pi, self.n_rf)
        return A

    def step(self, i, y):
        self.t += 1
        f = self._map().score(self.src, i)      # z(x_t) into the map's buffer; f_t(x_t) = w_t' z(x_t): predict first
        s = loss_slope(self.loss, y, f)         # ... then s = -dl/df
        if s != 0.0:
            self._ff.update(self.eta * s)       # w_{t+1} = w_t - eta grad l(w_t; z(x_t), y_t) = w_t + eta s z(x_t)
            self.n_updates += 1
        return f

    def _map(self) -> FourierFeatures:
        """z(x) and w'z(x) in olk's own loops (:class:`olk._core.approx.FourierFeatures`: the projection U x costs
        the row's nonzeros, then one pass of olk's sin and cos, w'z in its fixed blocked order), on U' (d x D, the
        layout of the projection loop), w and the buffer z.  Built on first use (and after olk.load)."""
        if self._ff is None:
            if not self._Z.flags.writeable:     # loaded read-only (a memory-mapped pickle): buffers of our own
                self._Z = self._Z.copy()
            if not self._w.flags.writeable:
                self._w = self._w.copy()
            UT = np.ascontiguousarray(self._V.T)
            if self.map == "cos":
                self._ff = FourierFeatures(UT, self._w, self._Z[0, :self.n_rf], math.sqrt(2.0 / self.n_rf),
                                           self._phase)
            else:
                self._ff = FourierFeatures(UT, self._w, self._Z[0], 1.0 / math.sqrt(self.n_rf))
        return self._ff

    def _weight_count(self) -> int:
        return int(self._w.size)                             # w (2D; D for the one-cosine map)

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """f(x) = w' z(x) of every row of X, computed as ``step`` computes it (the same bits)."""
        if self._V is None:
            check_finite_X(X)
            return np.zeros(n_rows(X))
        A = self._source_for(X)
        ff = self._map()
        return np.array([ff.score(A, r) for r in range(A.shape[0])], dtype=np.float64)

    def __getstate__(self):
        state = super().__getstate__()
        state["_ff"] = None                     # V's transpose and views of w, z: rebuilt on first use
        return state

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        return ("coef_",)

    def fitted_attributes(self) -> dict:
        """``coef_`` = w as one row (1 x 2D, the sin part first; 1 x D for the one-cosine map); nothing before the
        first example."""
        if self._V is None:
            return {}
        return {"coef_": self._w[None, :].copy()}
