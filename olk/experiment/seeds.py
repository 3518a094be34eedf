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


def checkpoints(n: int, count: int = 50) -> np.ndarray:
    """About `count` log-spaced example counts in [1, n] (always including n) for learning curves."""
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    pts = np.unique(np.round(np.geomspace(1, n, max(count, 2))).astype(np.int64))
    return pts[(pts >= 1) & (pts <= n)]
