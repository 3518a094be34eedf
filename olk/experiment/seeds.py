"""Seeds, permutations and subsamples derived from the config alone.

Permutation r of dataset D under config seed S is ``default_rng(SeedSequence([S, crc32(D), r]))``:
it does not depend on n_jobs, on the order runs execute in, or on which other runs exist.  The
tuning permutation is a separate stream (r = -1 maps to spawn key 2**31).
"""
from __future__ import annotations

import math
import zlib

import numpy as np

TUNE_PERM = -1
_TUNE_KEY = 2 ** 31
_SCALE_KEY = 2 ** 31 + 1


def _key(text: str) -> int:
    return zlib.crc32(str(text).encode("utf-8"))


def _perm_key(r: int) -> int:
    return _TUNE_KEY if r == TUNE_PERM else int(r)


def permutation(n: int, seed: int, dataset: str, r: int, shuffle: bool = True) -> np.ndarray:
    """Order in which permutation r presents the n examples (identity when shuffle is False)."""
    if not shuffle:
        return np.arange(n)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _key(dataset), _perm_key(r)]))
    return rng.permutation(n)


def algorithm_seed(seed: int, dataset: str, r: int, label: str) -> int:
    """Seed of a stochastic learner's own RNG in run (dataset, r, label)."""
    ss = np.random.SeedSequence([int(seed), _key(dataset), _perm_key(r), _key(label)])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def subsample(n: int, fraction: float, seed: int, dataset: str, part: str = "") -> np.ndarray:
    """Sorted row indices of a reproducible fraction of n rows (all rows when fraction >= 1)."""
    if fraction >= 1.0:
        return np.arange(n)
    m = max(2, int(math.ceil(fraction * n)))
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _key(dataset), _SCALE_KEY, _key(part)]))
    return np.sort(rng.choice(n, size=min(m, n), replace=False))


_HOLDOUT_KEY = 2 ** 31 + 2
_CV_KEY = 2 ** 31 + 3
_EVAL_KEY = 2 ** 31 + 4


def _sklearn_seed(*keys: int) -> int:
    return int(np.random.SeedSequence([int(k) for k in keys]).generate_state(1, dtype=np.uint32)[0])


def holdout_split(y: np.ndarray, test_fraction: float, seed: int, dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """Seeded stratified train/test split (sorted row indices) for a dataset without a test part."""
    from sklearn.model_selection import train_test_split
    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=test_fraction, stratify=y,
                              random_state=_sklearn_seed(seed, _key(dataset), _HOLDOUT_KEY))
    return np.sort(tr), np.sort(te)


def cv_folds(y: np.ndarray, folds: int, max_rows: int | None, seed: int,
             dataset: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified k-fold (train rows, validation rows) over the training set, or over a stratified
    subsample of ``max_rows`` rows of it; fully determined by (seed, dataset, folds, max_rows)."""
    from sklearn.model_selection import StratifiedKFold, train_test_split
    rs = _sklearn_seed(seed, _key(dataset), _CV_KEY)
    idx = np.arange(len(y))
    if max_rows is not None and max_rows < len(y):
        idx, _ = train_test_split(idx, train_size=max_rows, stratify=y, random_state=rs)
        idx = np.sort(idx)
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=rs)
    return [(idx[a], idx[b]) for a, b in skf.split(idx, y[idx])]


def eval_folds(y: np.ndarray, folds: int, seed: int, dataset: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified k-fold (train rows, test rows) over all the rows of a dataset: the k-fold *evaluation*
    (dataset key ``folds``; permutation r tests on fold r mod k), seeded apart from the tuning folds of
    :func:`cv_folds`; fully determined by (seed, dataset, folds)."""
    from sklearn.model_selection import StratifiedKFold
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=_sklearn_seed(seed, _key(dataset), _EVAL_KEY))
    idx = np.arange(len(y))
    return [(a, b) for a, b in skf.split(idx, y)]


def run_split(spec, X, y, Xt, yt) -> tuple:
    """The (training, test) rows of one batch-mode run (a :class:`~olk.experiment.spec.RunSpec`): with k-fold
    evaluation (``eval_folds`` = k, no ``fold``) permutation r trains on the folds other than r mod k and tests on
    fold r mod k; a cross-validation run (``fold`` set) trains on the other folds of the training set and tests on
    fold ``fold``; otherwise (X, y, Xt, yt) as given."""
    if spec.eval_folds and spec.fold is None:
        tr, te = eval_folds(y, spec.eval_folds, spec.seed, spec.dataset)[spec.perm % spec.eval_folds]
        X, y, Xt, yt = X[tr], y[tr], X[te], y[te]
    if spec.fold is not None:
        cv = spec.cv or {}
        tr, va = cv_folds(y, cv["folds"], cv["max_rows"], spec.seed, spec.dataset)[spec.fold]
        X, y, Xt, yt = X[tr], y[tr], X[va], y[va]
    return X, y, Xt, yt
