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
with ``sampler: rff``), from a stream of their own seeded by ``random_state``; the per-example projection U x and
w'z run in olk's own loops (:mod:`olk._core.approx`: one thread, a sparse row costs its nonzeros).

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
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.approx import dot, fourier_map
from ..common.inputs import check_finite_X, n_rows
from ..random_features.core import RandomFeatureLearner
from ..registry import Param, register
from .core import APPROX_REPRODUCIBILITY, ETA, LOSS, loss_slope


@register
class FOGD(RandomFeatureLearner):
    """Fourier Online Gradient Descent (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016, Algorithm 1).

    Pseudo-code (D = ``n_rf`` components, eta = ``eta``, l = ``loss``):
        draw u_1..u_D ~ N(0, 2 gamma I) once;  w_1 = 0 in R^{2D}
        for t = 1..T:
            z_t = [sin(U x_t); cos(U x_t)] / sqrt(D)
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
    """

    name = "fogd"
    display = "FOGD"
    style = ("skyblue", "h", "-.")
    params = (Param("n_rf", 400, "D: random Fourier components (z has 2D entries); the authors' code: D = 4B",
                    type=int, check=lambda v: v >= 1, requirement=">= 1"),
              ETA, LOSS)
    reproducibility = APPROX_REPRODUCIBILITY
    structural_params = ("n_rf",)           # V and w depend on it: set_params restarts the learner
    #: the paper's map: i.i.d. Gaussian frequencies (the ``rff`` sampler), z / sqrt(D)
    sampler = "rff"
    normalize_features = True
    kernel_hint = "one Gaussian kernel, e.g. {type: gaussian, gamma: 0.4}"

    def __init__(self, kernel=None, random_state=None, *, where: str = "", **params):
        super().__init__(kernel, random_state, where=where, **params)
        self._w = np.zeros(2 * self.n_rf)       # w_1 = 0
        self._UT: np.ndarray | None = None      # U' (d x D), the layout of the projection loop; derived from V

    def step(self, i, y):
        self.t += 1
        z = self._z(self.src[i])                # z(x_t), 2D entries
        f = dot(self._w, z)                     # f_t(x_t) = w_t' z(x_t): predict first ...
        s = loss_slope(self.loss, y, f)         # ... then s = -dl/df
        if s != 0.0:
            self._w += (self.eta * s) * z       # w_{t+1} = w_t - eta grad l(w_t; z(x_t), y_t)
            self.n_updates += 1
        return f

    def _weight_count(self) -> int:
        return int(self._w.size)                             # w (2D)

    def _z(self, x: np.ndarray) -> np.ndarray:
        """z(x) = [sin(U x); cos(U x)] / sqrt(D) of one dense row, in olk's own loop (:mod:`olk._core.approx`:
        the projection costs the row's nonzeros, one pass of sin and cos).  A buffer, overwritten by the next call."""
        if self._UT is None:                    # first use (or after olk.load: the transpose is not saved)
            self._UT = np.ascontiguousarray(self._V.T)
        if not self._Z.flags.writeable:         # loaded read-only (a memory-mapped pickle): a buffer of our own
            self._Z = self._Z.copy()
        z = self._Z[0]
        fourier_map(self._UT, x, 1.0 / math.sqrt(self.n_rf), z)
        return z

    def decision_function(self, X, output: str | None = None) -> np.ndarray:
        """f(x) = w' z(x) of every row of X, computed as ``step`` computes it (the same bits)."""
        if self._V is None:
            check_finite_X(X)
            return np.zeros(n_rows(X))
        A = self._source_for(X)
        return np.array([dot(self._w, self._z(A[r])) for r in range(A.shape[0])], dtype=np.float64)

    def __getstate__(self):
        state = super().__getstate__()
        state["_UT"] = None                     # V's transpose: rebuilt on first use, not stored twice
        return state

    @classmethod
    def fitted_names(cls) -> tuple[str, ...]:
        return ("coef_",)

    def fitted_attributes(self) -> dict:
        """``coef_`` = w as one row (1 x 2D, the sin part first); nothing before the first example."""
        if self._V is None:
            return {}
        return {"coef_": self._w[None, :].copy()}
