"""Optional on-disk cache of parsed arrays (npz) under $OLK_CACHE or ~/.cache/olk.

The cache is never required: every failure to read or write it is ignored (a corrupt entry is deleted and the
data re-parsed).  Entries are keyed by the sha256 of the source file plus the reader settings, so one entry
serves every preprocessing (which is re-applied on each load; it is cheap next to parsing).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

CACHE_VERSION = 1


def cache_dir() -> Path:
    """$OLK_CACHE, else ~/.cache/olk."""
    env = os.environ.get("OLK_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "olk"


def data_cache_dir() -> Path:
    return cache_dir() / "data"


def cache_key(**parts) -> str:
    """A stable hex key for the given JSON-serialisable settings."""
    blob = json.dumps({"v": CACHE_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:40]


def load(key: str):
    """(X, y) for `key`, or None (missing, unreadable or corrupt: a corrupt entry is removed)."""
    path = data_cache_dir() / f"{key}.npz"
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            kind = str(z["kind"])
            y = z["y"] if "y" in z.files else None
            if kind == "csr":
                shape = tuple(int(s) for s in z["shape"])
                X = sp.csr_matrix((z["data"].astype(np.float64), z["indices"], z["indptr"]), shape=shape)
                X.has_sorted_indices = True
            else:
                X = np.ascontiguousarray(z["X"], dtype=np.float64)
        if y is not None and y.shape[0] != X.shape[0]:
            raise ValueError("rows of X and y differ")
        return X, (None if y is None else y.astype(np.float64))
    except Exception:       # noqa: BLE001 - any damage means: rebuild
        try:
            path.unlink()
        except OSError:
            pass
        return None


def save(key: str, X, y) -> None:
    """Store (X, y) atomically; silently does nothing if the cache directory is not writable."""
    d = data_cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        arrays = {"y": y} if y is not None else {}
        if sp.issparse(X):
            arrays.update(kind=np.array("csr"), data=_compact(X.data), indices=X.indices, indptr=X.indptr,
                          shape=np.array(X.shape))
        else:
            arrays.update(kind=np.array("dense"), X=_compact(X))
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".npz.tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, d / f"{key}.npz")
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass


def _compact(a: np.ndarray) -> np.ndarray:
    """Store integer-valued float arrays (e.g. raw covtype, one-hot data) as the smallest exact integer type."""
    if a.size == 0 or a.dtype != np.float64:
        return a
    lo, hi = a.min(), a.max()
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            b = a.astype(t)
            return b if np.array_equal(b, a) else a
    return a
