"""On-disk cache of parsed arrays under $OLK_CACHE or ~/.cache/olk: memory-mapped ``.npy`` files.

A text file (LIBSVM, CSV, ...) is parsed once; later loads map the arrays from the cache in milliseconds.
An entry is a directory ``<cache>/data/<key>/`` holding

* ``data.npy``, ``indices.npy``, ``indptr.npy`` (a CSR matrix: float64, int32, int32) or ``X.npy`` (a dense
  C-contiguous float64 matrix), and ``y.npy`` (float64) when the file has labels;
* ``entry.json``: the layout version, the matrix kind and shape, for every array its dtype, shape, size in
  bytes and CRC-32, and the caller's ``extra`` JSON (a loaded dataset's name, task, parts and meta).

Keys are made by :func:`cache_key` from the sha256 of the source file's content plus the reader settings
(format, n_features, options, reader version), so an edited file or a changed reader never meets an old
entry; the loader finds the sha256 of an unchanged file without reading it (:mod:`olk.data.checksum`).

**Never trusted.**  An entry is written into a temporary directory and renamed into place (atomic: a reader
sees a whole entry or none).  On loading, every array's header, dtype, shape and byte size and the CRC-32
of its bytes are checked against ``entry.json``, and a CSR matrix's ``indptr`` must run from 0 to the number
of stored values; anything else (a truncated, corrupt or foreign entry) is deleted and the file parsed again.
The check reads every byte once (about 3 GB/s: 2 ms for a9a's 7 MB).  The arrays are mapped copy-on-write
(``mmap.ACCESS_COPY``): they can be modified in memory, the file never is, and processes that load the same
dataset share its pages until one writes to them.

The cache is never required: every failure to read or write it is ignored.  Entries serve every
preprocessing, which is re-applied on each load.

**Worth it.**  Parsing is cheap now (olk's C LIBSVM parser: about 500 MB/s), so a small LIBSVM file is not cached:
storing and mapping its arrays would cost about as much as reading it again.  A LIBSVM file is cached (its parsed
arrays, and the datasets loaded from it) only when it holds at least ``$OLK_CACHE_MIN`` bytes on disk (a size;
default :data:`DEFAULT_MIN`; ``0`` = every file); other formats (delimited text, ``.mat``) always are.

**Bounded.**  The cache holds at most ``$OLK_CACHE_MAX`` bytes (a size: ``2G``, ``500M``; ``0`` = cache nothing;
default :data:`DEFAULT_MAX`).  Every load of an entry marks it used (the mtime of its ``entry.json``); after a
store, the least recently used entries are evicted until the cache fits, and an entry larger than the cap is
never stored.  ``olk cache info`` lists the entries, ``olk cache clear`` empties the cache.
"""
from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

CACHE_VERSION = 2           # 1: one .npz file per entry (ignored now); 2: a directory of .npy files
_ENTRY = "entry.json"
DEFAULT_MAX = 4 * 2**30     # bytes of arrays the cache may hold unless $OLK_CACHE_MAX says otherwise
DEFAULT_MIN = 64 * 2**10    # bytes on disk below which a LIBSVM file is not cached unless $OLK_CACHE_MIN says otherwise


def max_bytes() -> int:
    """The cap: ``$OLK_CACHE_MAX`` (a size such as 2G or 500M; 0 = cache nothing), else :data:`DEFAULT_MAX`.
    A value that is not a size is a one-line ConfigError naming the variable."""
    env = os.environ.get("OLK_CACHE_MAX")
    if env is None or not env.strip():
        return DEFAULT_MAX
    from olk.units import parse_size
    return parse_size(env, "$OLK_CACHE_MAX", zero="cache nothing")


def min_bytes() -> int:
    """The smallest LIBSVM file (bytes on disk) worth caching: ``$OLK_CACHE_MIN`` (a size; 0 = every file), else
    :data:`DEFAULT_MIN` (docs/speed/startup.md: below it, a read costs less than storing and mapping the arrays).  A
    value that is not a size is a one-line ConfigError naming the variable."""
    env = os.environ.get("OLK_CACHE_MIN")
    if env is None or not env.strip():
        return DEFAULT_MIN
    from olk.units import parse_size
    return parse_size(env, "$OLK_CACHE_MIN", zero="cache every file")


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


def entry_dir(key: str) -> Path:
    return data_cache_dir() / key


def _crc(a: np.ndarray) -> int:
    raw: Any = a.reshape(-1).view(np.uint8)        # a buffer (numpy's stubs do not say so), read without a copy
    return zlib.crc32(raw) if a.size else 0


class _Corrupt(Exception):
    pass


def _map(path: Path) -> np.ndarray:
    """The array of a ``.npy`` file, mapped copy-on-write: writable in memory, the file never changes.

    Deliberately not a ``np.memmap``: joblib sends an array backed by a ``np.memmap`` to its workers as a
    reference to the file, which would lose changes made in memory (e.g. scaling in place); an array on a
    plain ``mmap`` is pickled with its current values."""
    fmt = np.lib.format
    with open(path, "rb") as f:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(f)
        else:
            raise _Corrupt(f"{path.name}: .npy version {version}")
        if fortran or dtype.hasobject:
            raise _Corrupt(f"{path.name}: not a C-ordered numeric array")
        offset = f.tell()
        count = int(np.prod(shape, dtype=np.int64))
        if os.fstat(f.fileno()).st_size != offset + count * dtype.itemsize:
            raise _Corrupt(f"{path.name}: {os.fstat(f.fileno()).st_size} bytes, the header says "
                           f"{offset + count * dtype.itemsize}")
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    return np.frombuffer(mm, dtype=dtype, count=count, offset=offset).reshape(shape)


def _load_array(d: Path, name: str, info: dict) -> np.ndarray:
    a = _map(d / info["file"])
    if a.dtype.str != info["dtype"] or list(a.shape) != info["shape"] or a.nbytes != info["bytes"] \
            or not a.flags.c_contiguous:
        raise _Corrupt(f"{name}: layout differs from {_ENTRY}")
    if _crc(a) != info["crc32"]:
        raise _Corrupt(f"{name}: CRC-32 mismatch")
    return a


def load(key: str, extra: bool = False, arrays: bool = False):
    """(X, y) for `key` (y None if the file had no labels), or None: missing, unreadable, or corrupt (a corrupt
    entry is removed).  A sparse X is a ``scipy.sparse.csr_matrix`` with sorted indices (with ``arrays``: a
    :class:`~olk.data.dataset.CSRArrays`, without importing scipy).  With ``extra``: (X, y, the ``extra`` stored
    with the entry)."""
    d = entry_dir(key)
    if not d.is_dir():
        return None
    try:
        entry = json.loads((d / _ENTRY).read_text())
        if entry.get("version") != CACHE_VERSION:
            raise _Corrupt("version")
        stored = {name: _load_array(d, name, info) for name, info in entry["arrays"].items()}
        shape = tuple(int(s) for s in entry["shape"])
        y = stored.get("y")
        if entry["kind"] == "csr":
            from olk.data.dataset import CSRArrays
            data, indices, indptr = stored["data"], stored["indices"], stored["indptr"]
            if indptr.shape != (shape[0] + 1,) or (indptr[0] if indptr.size else -1) != 0 \
                    or indptr[-1] != data.shape[0] or indices.shape != data.shape:
                raise _Corrupt("CSR structure")
            X: Any = CSRArrays(data, indices, indptr, (int(shape[0]), int(shape[1])))
            if not arrays:
                X = X.tocsr()
        elif entry["kind"] == "dense":
            X = stored["X"]
            if X.shape != shape:
                raise _Corrupt("shape")
        else:
            raise _Corrupt("kind")
        if y is not None and y.shape != (shape[0],):
            raise _Corrupt("rows of X and y differ")
        try:
            os.utime(d / _ENTRY)            # used now: the last to be evicted
        except OSError:
            pass
        return (X, y, entry["extra"]) if extra else (X, y)
    except Exception:       # noqa: BLE001 - any damage means: parse again
        discard(key)
        return None


def save(key: str, X, y, extra=None) -> None:
    """Store (X, y) atomically (see the module docstring); silently does nothing if the cache directory is not
    writable.  X: a CSR matrix (sorted indices, int32 indices) or a dense array; both are stored as float64."""
    root = data_cache_dir()
    tmp = None
    try:
        cap = max_bytes()
        size = (12 * X.data.shape[0] + 4 * (X.shape[0] + 1) if hasattr(X, "indptr")
                else 8 * int(np.prod(X.shape))) + (8 * len(y) if y is not None else 0)
        if size > cap:                      # would not fit even alone (or caching is off: cap 0)
            return
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".tmp-{key[:12]}-"))
        if hasattr(X, "indptr"):
            kind = "csr"
            arrays = {"data": np.ascontiguousarray(X.data, dtype=np.float64),
                      "indices": np.ascontiguousarray(X.indices, dtype=np.int32),
                      "indptr": np.ascontiguousarray(X.indptr, dtype=np.int32)}
        else:
            kind = "dense"
            arrays = {"X": np.ascontiguousarray(X, dtype=np.float64)}
        if y is not None:
            arrays["y"] = np.ascontiguousarray(y, dtype=np.float64)
        info = {}
        a: Any
        for name, a in arrays.items():
            np.save(tmp / f"{name}.npy", a, allow_pickle=False)
            info[name] = {"file": f"{name}.npy", "dtype": a.dtype.str, "shape": list(a.shape), "bytes": int(a.nbytes),
                          "crc32": _crc(a)}
        entry = {"version": CACHE_VERSION, "kind": kind, "shape": [int(s) for s in X.shape], "arrays": info,
                 "extra": extra}
        (tmp / _ENTRY).write_text(json.dumps(entry, indent=1))
        try:
            os.rename(tmp, entry_dir(key))      # atomic; fails if another process stored the same entry first
            tmp = None
        except OSError:
            pass
        evict(cap, keep=key)
    except OSError:
        pass
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


class _Appender:
    """A ``.npy`` file written a block of rows at a time: a header of :data:`HEADER` bytes, written again at the
    end with the final shape (numpy's format 1.0, padded with spaces), then the rows as they come, with their CRC-32:
    the bytes :func:`numpy.save` writes for the whole array (whose header is 128 bytes for any shape of up to two
    dimensions this cache holds)."""

    HEADER = 128

    def __init__(self, path: Path, dtype: str, width: int | None = None):
        self.path, self.dtype, self.width = path, np.dtype(dtype), width
        self.rows = self.crc = 0
        self.f = open(path, "wb")
        self.f.write(b" " * self.HEADER)

    def append(self, a) -> None:
        a = np.ascontiguousarray(a, dtype=self.dtype)
        raw: Any = a.reshape(-1).view(np.uint8)
        self.f.write(raw)
        self.crc = zlib.crc32(raw, self.crc)
        self.rows += a.shape[0]

    def close(self) -> dict:
        shape = (self.rows,) if self.width is None else (self.rows, self.width)
        text = "{" + "".join(f"{k!r}: {v!r}, " for k, v in (("descr", self.dtype.str), ("fortran_order", False),
                                                               ("shape", shape))) + "}"    # as numpy writes it
        body = text.ljust(self.HEADER - 11) + "\n"
        if len(body) != self.HEADER - 10:
            raise OSError(f"{self.path.name}: a .npy header for shape {shape} does not fit {self.HEADER} bytes")
        self.f.seek(0)
        self.f.write(b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body.encode("latin1"))
        self.f.close()
        nbytes = self.rows * (self.width or 1) * self.dtype.itemsize
        return {"file": self.path.name, "dtype": self.dtype.str, "shape": list(shape), "bytes": nbytes,
                "crc32": self.crc if nbytes else 0}


def save_blocks(key: str, blocks, *, width: int | None, size: int, extra=None) -> bool:
    """Store an entry whose arrays come in blocks of rows, never held whole: `blocks` yields (X, y) with X a dense
    block of `width` columns (``width``) or a CSR block (``width=None``: data, indices, indptr of its rows; the
    entry's width is ``extra['n_features']``), y its labels.  The same entry as :func:`save` of the stacked arrays
    (layout, CRCs, atomic rename, eviction); `size` bounds its bytes beforehand (an entry over the cap is not
    written).  Returns whether it was stored (False: caching off or too large, or the directory not writable;
    `blocks` is then not consumed, or consumed in part)."""
    root = data_cache_dir()
    tmp = None
    files: list[_Appender] = []
    try:
        cap = max_bytes()
        if size > cap:
            return False
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".tmp-{key[:12]}-"))
        if width is None:
            names = {"data": _Appender(tmp / "data.npy", "<f8"), "indices": _Appender(tmp / "indices.npy", "<i4"),
                     "indptr": _Appender(tmp / "indptr.npy", "<i4"), "y": _Appender(tmp / "y.npy", "<f8")}
            names["indptr"].append(np.zeros(1, dtype=np.int32))
        else:
            names = {"X": _Appender(tmp / "X.npy", "<f8", width), "y": _Appender(tmp / "y.npy", "<f8")}
        files = list(names.values())
        rows = nnz = 0
        for X, y in blocks:
            if width is None:
                if nnz + X.data.shape[0] >= np.iinfo(np.int32).max:
                    raise OverflowError("too many nonzeros for int32 CSR indices")
                names["data"].append(X.data)
                names["indices"].append(X.indices)
                names["indptr"].append(np.asarray(X.indptr[1:], dtype=np.int64) + nnz)
                nnz += X.data.shape[0]
            else:
                names["X"].append(X)
            names["y"].append(y)
            rows += y.shape[0]
        info = {name: a.close() for name, a in names.items()}
        files = []
        cols = width if width is not None else int((extra or {})["n_features"])
        entry = {"version": CACHE_VERSION, "kind": "dense" if width is not None else "csr", "shape": [rows, cols],
                 "arrays": info, "extra": extra}
        (tmp / _ENTRY).write_text(json.dumps(entry, indent=1))
        try:
            os.rename(tmp, entry_dir(key))
            tmp = None
        except OSError:
            pass
        evict(cap, keep=key)
        return True
    except OSError:
        return False
    finally:
        for a in files:
            a.f.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def discard(key: str) -> None:
    """Remove an entry (first renamed away, so no reader ever sees it half-deleted)."""
    d = entry_dir(key)
    gone = None
    try:
        gone = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".del-{key[:12]}-"))
        os.rename(d, gone / "x")
    except OSError:
        shutil.rmtree(d, ignore_errors=True)
    if gone is not None:
        shutil.rmtree(gone, ignore_errors=True)


# ----------------------------------------------------------------------------------------------- the cap
def entries() -> list[dict]:
    """Every entry: {key, bytes (on disk), used (mtime of its entry.json, seconds since the epoch), what (the
    dataset or file it holds)}, least recently used first."""
    root = data_cache_dir()
    out = []
    try:
        dirs = [d for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")]
    except OSError:
        return []
    for d in dirs:
        try:
            used = (d / _ENTRY).stat().st_mtime
            size = sum(f.stat().st_size for f in d.iterdir() if f.is_file())
        except OSError:
            continue
        what = "?"
        try:
            extra = json.loads((d / _ENTRY).read_text()).get("extra") or {}
            what = extra.get("name") or extra.get("file") or "?"
            what = f"dataset {what}" if "name" in extra else f"parsed file {what}"
        except (OSError, ValueError, AttributeError):
            pass
        out.append({"key": d.name, "bytes": size, "used": used, "what": what})
    return sorted(out, key=lambda e: (e["used"], e["key"]))


def evict(cap: int, keep: str | None = None) -> list[str]:
    """Remove least recently used entries (never `keep`) until the cache holds at most `cap` bytes; returns the
    removed keys."""
    es = entries()
    total = sum(e["bytes"] for e in es)
    gone = []
    for e in es:
        if total <= cap:
            break
        if e["key"] == keep:
            continue
        discard(e["key"])
        total -= e["bytes"]
        gone.append(e["key"])
    return gone


def clear() -> tuple[int, int]:
    """Empty the cache (every entry, leftovers of interrupted writes, the sha256 records and the parsed copies of
    the dataset registry); returns (entries, bytes) removed."""
    root = data_cache_dir()
    es = entries()
    for e in es:
        discard(e["key"])
    try:
        for d in root.iterdir():
            if d.name.startswith((".tmp-", ".del-")):
                if d.is_dir():
                    shutil.rmtree(d, ignore_errors=True)
                else:
                    d.unlink()
            elif d.name == "sha256.json" or (d.name.startswith("registry-") and d.name.endswith(".json")):
                d.unlink()
    except OSError:
        pass
    return len(es), sum(e["bytes"] for e in es)
