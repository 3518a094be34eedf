"""Preprocessing applied after reading: label mapping, row subsampling, feature and target scaling.

Keys (registry `preprocess:` defaults, overridden by ``load_dataset(preprocess=...)`` / YAML / CLI):

============== ===================================================================================================
scale          none | minmax01 | minmax11 | zscore | minmax01_global  (per feature, except minmax01_global which
               uses one min/max over the whole matrix).  Constant features become 0.
scale_fit      train | all: statistics from the dataset's train part (like svm-scale -s/-r; default when the
               dataset has a 'train' split) or from the rows loaded.
positive_label label (or list) mapped to +1; every other label to -1 (turns multiclass data into binary)
negative_label label (or list); with positive_label, only rows labelled positive_label/negative_label are kept
target_scale   none | minmax01 (regression targets)
subsample      N: keep a seeded random N rows, in their original order; subsample_seed (default 0)
task           binary | multiclass | regression: only for your own files (default: inferred from the labels)
============== ===================================================================================================
"""
from __future__ import annotations

import numpy as np

from olk._lazy import issparse, unique
from olk.errors import DataError, did_you_mean

SCALES = ("none", "minmax01", "minmax11", "zscore", "minmax01_global")
KEYS = ("scale", "scale_fit", "positive_label", "negative_label", "target_scale", "subsample", "subsample_seed",
        "task")
_DENSE_LIMIT_BYTES = 2 * 1024**3


def validate_preprocess(pre, ctx: str) -> dict:
    """Check keys and values; return a plain dict.  `ctx` names where the dict came from (file, key)."""
    if pre is None:
        return {}
    if not isinstance(pre, dict):
        raise DataError(f"{ctx}: preprocess must be a mapping like {{scale: minmax01}}, got {pre!r}")
    for k, v in pre.items():
        if k not in KEYS:
            raise DataError(f"{ctx}: unknown preprocess key '{k}'{did_you_mean(k, KEYS)}; valid keys: "
                            f"{', '.join(KEYS)}")
        if k == "scale" and v not in SCALES:
            raise DataError(f"{ctx}: scale '{v}' is not one of {', '.join(SCALES)}{did_you_mean(v, SCALES)}")
        if k == "scale_fit" and v not in ("train", "all"):
            raise DataError(f"{ctx}: scale_fit must be 'train' or 'all', got {v!r}")
        if k == "target_scale" and v not in ("none", "minmax01"):
            raise DataError(f"{ctx}: target_scale must be 'none' or 'minmax01', got {v!r}")
        if k == "task" and v not in ("binary", "multiclass", "regression"):
            raise DataError(f"{ctx}: task must be binary, multiclass or regression, got {v!r}")
        if k in ("subsample", "subsample_seed") and (not isinstance(v, int) or isinstance(v, bool) or v < 0
                                                     or (k == "subsample" and v == 0)):
            raise DataError(f"{ctx}: {k} must be a {'positive' if k == 'subsample' else 'non-negative'} integer, "
                            f"got {v!r}")
        if k in ("positive_label", "negative_label"):
            for lab in _as_list(v):
                if isinstance(lab, bool) or not isinstance(lab, (int, float)):
                    raise DataError(f"{ctx}: {k} must be a number (or a list of numbers) as written in the "
                                    f"label column, got {lab!r}")
    if "negative_label" in pre and "positive_label" not in pre:
        raise DataError(f"{ctx}: negative_label needs positive_label (the labels mapped to +1)")
    return dict(pre)


def _as_list(v) -> list:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def fmt_labels(labels) -> str:
    """'{-1, 1, 3}' with integral floats printed as ints."""
    out = [str(int(v)) if float(v).is_integer() else repr(float(v)) for v in labels]
    return "{" + ", ".join(out) + "}"


def map_labels(y: np.ndarray, task: str, pre: dict, ctx: str):
    """Map raw labels to olk's convention.  Returns (y, keep_mask or None, task, info dict)."""
    apply, task, info = label_mapping(unique(y), task, pre, ctx)
    y, keep = apply(y)
    return y, keep, task, info


def label_mapping(found: np.ndarray, task: str, pre: dict, ctx: str):
    """The map of :func:`map_labels`, decided (and checked) from the rows' distinct labels `found` (sorted): returns
    (apply, task, info), ``apply(y) -> (y mapped, keep mask or None)`` for any of the rows (a file converted in
    blocks maps each block so: the same values as mapping all rows at once)."""
    pos, neg = pre.get("positive_label"), pre.get("negative_label")
    if task == "regression":
        if pos is not None:
            raise DataError(f"{ctx}: positive_label does not apply to a regression dataset: remove it")
        return (lambda y: (y, None)), task, {}
    if pos is not None:
        pos_l = _as_list(pos)
        missing = [p for p in pos_l if p not in found]
        if missing:
            raise DataError(f"{ctx}: positive_label {fmt_labels(missing)} not among the labels found "
                            f"{fmt_labels(found)}: pick one of them")
        kept = None
        if neg is not None:
            neg_l = _as_list(neg)
            missing = [m for m in neg_l if m not in found]
            if missing:
                raise DataError(f"{ctx}: negative_label {fmt_labels(missing)} not among the labels found "
                                f"{fmt_labels(found)}: pick one of them")
            kept = pos_l + neg_l
        info = {"label_map": f"{fmt_labels(pos_l)} -> +1, " +
                             (f"{fmt_labels(_as_list(neg))} -> -1 (other rows dropped)" if neg is not None
                              else "others -> -1")}
        return (lambda y: (np.where(np.isin(y, pos_l), 1.0, -1.0), None if kept is None else np.isin(y, kept))), \
            "binary", info
    if task == "binary":
        if not set(found.tolist()) <= {-1.0, 1.0}:
            raise DataError(
                f"{ctx}: labels {fmt_labels(found)} found, but a binary dataset needs -1/+1 labels: set "
                f"positive_label to map one label to +1 and the others to -1 (load_dataset(..., preprocess="
                f"{{'positive_label': {_first(found)}}}), YAML/CLI key positive_label)")
        return (lambda y: (y.astype(np.float64, copy=False), None)), task, {}
    # multiclass: 0..K-1 in sorted order of the raw labels
    if found.size and np.array_equal(found, np.arange(found.size)):
        return (lambda y: (y, None)), task, {"classes": found.tolist()}
    return (lambda y: (np.searchsorted(found, y).astype(np.float64), None)), task, {"classes": found.tolist()}


def _first(found) -> str:
    v = float(found[-1]) if found.size else 1.0
    return str(int(v)) if v.is_integer() else repr(v)


def subsample_index(n: int, pre: dict) -> np.ndarray | None:
    """Sorted row indices of a seeded random subset, or None when no subsampling applies."""
    k = pre.get("subsample")
    if not k or k >= n:
        return None
    rng = np.random.default_rng(pre.get("subsample_seed", 0))
    return np.sort(rng.choice(n, size=k, replace=False))


def fit_scaler(X, method: str):
    """Per-column affine map fitted on X, as arrays (c, d, m, o) with x' = (x - c) / d * m + o; None for 'none'.

    Written with a division (like svm-scale) so that the column extremes map exactly onto the interval ends.
    Constant columns get d = inf, o = 0 and so map to 0.
    """
    if method == "none":
        return None
    if X.shape[0] == 0:
        raise DataError("cannot fit feature scaling on 0 rows: use scale: none")
    if method == "zscore":
        mean = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
        sq = X.power(2).mean(axis=0) if issparse(X) else np.mean(np.square(X), axis=0)
        std = np.sqrt(np.maximum(np.asarray(sq, dtype=np.float64).ravel() - mean**2, 0.0))
        c, d, m, o = mean, std, np.ones_like(std), np.zeros_like(std)
    else:
        lo = np.asarray(X.min(axis=0).toarray() if issparse(X) else X.min(axis=0), dtype=np.float64).ravel()
        hi = np.asarray(X.max(axis=0).toarray() if issparse(X) else X.max(axis=0), dtype=np.float64).ravel()
        if method == "minmax01_global":
            lo, hi = np.full_like(lo, lo.min()), np.full_like(hi, hi.max())
        c, d = lo, hi - lo
        m = np.full_like(d, 2.0 if method == "minmax11" else 1.0)
        o = np.full_like(d, -1.0 if method == "minmax11" else 0.0)
    const = ~(d > 0)
    d, o = d.copy(), o.copy()
    d[const], o[const] = np.inf, 0.0
    return c, d, m, o


def apply_scaler(X, params, ctx: str):
    """Apply the map from :func:`fit_scaler`, in place when X is a float64 array.

    Sparse input stays sparse when every column maps 0 to 0 (e.g. minmax01 of nonnegative data).
    """
    if params is None:
        return X
    c, d, m, o = params
    if issparse(X):
        zero_to = (0.0 - c) / d * m + o
        if not np.any(zero_to):
            import scipy.sparse as sp
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            j = X.indices
            X.data = (X.data - c[j]) / d[j] * m[j] + o[j]
            return X
        if X.shape[0] * X.shape[1] * 8 > _DENSE_LIMIT_BYTES:
            raise DataError(f"{ctx}: this scaling maps zeros to nonzeros and would make the sparse matrix "
                            f"{X.shape[0]}x{X.shape[1]} dense (> 2 GB): use scale: none, or minmax01 on "
                            f"nonnegative data")
        X = X.toarray()
    if not (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.flags.c_contiguous and X.flags.writeable):
        X = np.array(X, dtype=np.float64, order="C")
    X -= c
    X /= d
    X *= m
    X += o
    return X


def fit_target_scale(y: np.ndarray, method: str):
    if method != "minmax01" or y.size == 0:
        return None
    lo, hi = float(y.min()), float(y.max())
    return (1.0 / (hi - lo), -lo / (hi - lo)) if hi > lo else (0.0, 0.0)
