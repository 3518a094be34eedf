"""Centered kernel-target alignment: Cortes, Mohri & Rostamizadeh, "Two-Stage Learning Kernel Algorithms",
ICML 2010, Section 2 (the centered kernel matrix and Definitions 1-2, centered alignment of kernel functions
and of kernel matrices; journal version: "Algorithms for Learning Kernels Based on Centered Alignment", JMLR
13:795-828, 2012).  The kernel-selection step of the AlSVM baseline of Yang, Jin et al., "Online Kernel
Selection", AAAI 2012 ("Empirical Studies"): compute the alignment of every kernel matrix with the target
kernel yy' built from the training labels, then train an SVM on the kernel with the largest alignment.

On precomputed Gram matrices K (n x n, numpy float64), with H = I - 11'/n::

    K_c = H K H                        (the centered kernel matrix: K_c[i, j] = K[i, j] - row mean_i
                                        - column mean_j + grand mean; H is never formed)
    rho(K, K') = <K_c, K'_c>_F / (|K_c|_F |K'_c|_F)        (kernel matrix alignment)
    alignment of K with the labels = rho(K, yy'),  (yy')_c = (Hy)(Hy)'
                                   = (Hy)'K_c(Hy) / (|K_c|_F |Hy|^2)

Both matrices are centered, as in the paper's definition; when the classes are balanced (sum_i y_i = 0)
Hy = y and this is also <K_c, yy'>_F / (|K_c|_F |yy'|_F).  It lies in [-1, 1], is 1 for K = yy' (or any
positive multiple of it), and does not change when K is scaled by c > 0 or shifted by a constant
(K + c11'), nor when the two labels are renamed (any two distinct label values give the same (yy')_c up to
a positive factor).  O(n^2) time per kernel and one n x n temporary (K_c).

>>> import numpy as np
>>> from olk.algorithms.selection.alsvm import alignments, centered_alignment
>>> rng = np.random.default_rng(0)
>>> y = np.where(rng.random(60) < 0.5, 1.0, -1.0)
>>> x = y * (0.5 + rng.random(60))                           # a feature that separates the classes
>>> G = rng.normal(size=(60, 60))
>>> Ks = [np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2),      # informative: a Gaussian kernel on x
...       G @ G.T / 60]                                       # noise: a random PSD matrix, unrelated to y
>>> a = alignments(Ks, y)
>>> a.round(2)
array([0.97, 0.08])
>>> int(np.argmax(a))                                        # AlSVM's choice: the informative kernel
0
>>> round(centered_alignment(np.outer(y, y), y), 6)          # the target kernel itself
1.0
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import DataError
from ..registry import register
from .core import KernelSelection


def _check_gram(K, name: str = "K") -> np.ndarray:
    """K as a float64 square 2-d array with finite values (no copy when it already is one)."""
    try:
        K = np.asarray(K, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(f"{name}: not a numeric matrix") from None
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise DataError(f"{name}: expected a square (n, n) Gram matrix with n >= 1, got shape {K.shape}")
    if not np.isfinite(K).all():
        raise DataError(f"{name}: contains NaN or infinite values")
    return K


def _centered_labels(y, n: int) -> np.ndarray:
    """Hy = y - mean(y), checked: one finite real label per row, not all equal."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise DataError(f"y: expected {n} labels (one per Gram matrix row), got shape {y.shape}")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError):
        raise DataError("y: labels must be numbers (e.g. -1 / +1)") from None
    if not np.isfinite(y).all():
        raise DataError("y: contains NaN or infinite values")
    if np.all(y == y[0]):
        raise DataError(f"y: all {n} labels are {y[0]:g}; alignment with yy' needs both classes")
    return y - y.mean()


def _center(K: np.ndarray) -> np.ndarray:
    """H K H without H: subtract row and column means, add back the grand mean (a new array)."""
    Kc = K - K.mean(axis=1, keepdims=True)
    Kc -= K.mean(axis=0, keepdims=True)
    Kc += K.mean()
    return Kc


def center_kernel(K) -> np.ndarray:
    """The centered kernel matrix K_c = H K H, H = I - 11'/n (Cortes et al., ICML 2010, Section 2), in
    O(n^2) without forming H: K_c[i, j] = K[i, j] - mean_k K[i, k] - mean_k K[k, j] + mean_kl K[k, l].

    Returns a new float64 array (K is not modified); its rows and columns sum to 0.

    >>> center_kernel(np.array([[2.0, 0.0], [0.0, 2.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    return _center(_check_gram(K))


def _alignment(K: np.ndarray, yc: np.ndarray, y_norm2: float) -> float:
    Kc = _center(K)
    k_norm = float(np.linalg.norm(Kc))
    # a constant kernel centers to 0 (up to round-off of the centering, ~ eps * n * max|K| in norm)
    if k_norm <= 32 * np.finfo(np.float64).eps * K.shape[0] * float(np.abs(K).max()):
        return 0.0
    return float(yc @ Kc @ yc) / (k_norm * y_norm2)


def centered_alignment(K, y) -> float:
    """rho(K, yy') = <K_c, (yy')_c>_F / (|K_c|_F |(yy')_c|_F), the centered alignment of the Gram matrix K
    with the target kernel yy' (Cortes et al., ICML 2010, Definitions 1-2; see the module docstring).

    K: (n, n) Gram matrix; y: (n,) labels (-1 / +1; any two distinct values give the same result, and real
    targets are accepted as in the paper's regression use).  A kernel whose centered matrix is 0 (a constant
    kernel, for which the paper leaves rho undefined) carries no information about y: 0.0 is returned.
    DataError on a non-square or non-finite K, a wrong number of labels, or labels that are all equal.
    """
    K = _check_gram(K)
    yc = _centered_labels(y, K.shape[0])
    return _alignment(K, yc, float(yc @ yc))


def alignments(Ks, y) -> np.ndarray:
    """(m,) centered alignments rho(K_m, yy') of m Gram matrices (a sequence, or an (m, n, n) array) with
    the labels y: AlSVM selects ``argmax``.  Each kernel is centered in turn (one n x n temporary at a time).
    """
    if isinstance(Ks, np.ndarray) and Ks.ndim != 3:
        raise DataError(f"Ks: expected m Gram matrices (a sequence, or an (m, n, n) array), "
                        f"got an array of shape {Ks.shape}")
    try:
        mats = list(Ks)
    except TypeError:
        raise DataError(f"Ks: expected a sequence of Gram matrices, got {type(Ks).__name__}") from None
    if not mats:
        raise DataError("Ks: no kernels (m = 0); need at least one Gram matrix")
    out = np.empty(len(mats))
    yc: Any = None
    y_norm2: Any = None
    n = None
    for m, K in enumerate(mats):
        K = _check_gram(K, f"Ks[{m}]")
        if n is None:
            n = K.shape[0]
            yc = _centered_labels(y, n)
            y_norm2 = float(yc @ yc)
        elif K.shape[0] != n:
            raise DataError(f"Ks[{m}]: shape {K.shape} differs from Ks[0]'s {(n, n)}")
        out[m] = _alignment(K, yc, y_norm2)
    return out


# ------------------------------------------------------------------ the AlSVM learner


@register
class AlSVM(KernelSelection):
    """AlSVM (Yang et al., AAAI 2012, after Cortes, Mohri & Rostamizadeh 2010): the kernel whose Gram matrix on
    the training set is best aligned with the labels (:func:`alignments`, centered alignment; the first on
    ties), then LIBSVM on it with C tuned on the validation set (:mod:`olk.algorithms.selection.core`).  The time
    includes every kernel's Gram matrix (the paper's footnote 4).  ``alignment_``: each kernel's alignment.

    >>> from olk.algorithms import make
    >>> from olk.data import load_dataset
    >>> d = load_dataset("a9a-small")
    >>> X, y, X_test, y_test = d.X[:600], d.y[:600], d.X[1000:], d.y[1000:]
    >>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
    >>> m = make("alsvm", kernel=kernels).fit(X, y)
    >>> m.run_summary()["selected_label"], m.alignment_.round(3).tolist()
    ('linear', [0.146, 0.143, 0.041])
    """

    name = "alsvm"
    display = "AlSVM"
    style = ("blue", "*", "-")
    order_free = True

    def fit(self, X, y, order=None):
        import time
        y, tr, va = self.start(X, y)
        t0 = time.perf_counter()
        G = self.kernels.gram(X)
        self.alignment_ = alignments(G, y)
        k = int(np.argmax(self.alignment_))
        C, _ = self.tune_C(G[k], y, tr, va)
        self.fit_svm(X, y, G[k], np.eye(len(self.kernels))[k], C)
        self.select_time_s_ = time.perf_counter() - t0
        self.selected_kernel_ = k
        self.kernel_weights_ = np.eye(len(self.kernels))[k]
        return self
