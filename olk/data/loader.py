"""load_dataset: find, verify, read (or take from the cache), check against the registry, preprocess.

Two cache levels (:mod:`olk.data.cache`, memory-mapped ``.npy`` files):

* **a parsed file**, keyed by the sha256 of its content and the reader settings: serves every preprocessing
  and split of that file;
* **a loaded dataset** (the arrays :func:`load_dataset` returns, after label mapping, row selection, scaling
  and stacking the parts), keyed by the sha256 of every file it reads, the registry entry, the split, the
  preprocessing, the storage, the code of :mod:`olk.data` and the numpy/scipy versions: a second load of
  a9a or codrna maps two or three arrays and checks them (a few ms).

A file's sha256 is recorded with its size and mtime when it is first read (:mod:`olk.data.checksum`); an
unchanged file is never read again to find it, and the registry's checksum is still checked on every load.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from olk._lazy import issparse, unique
from olk.data import cache
from olk.data.checksum import check_sha256, known_sha256, remember_sha256, sha256_bytes
from olk.data.compression import SUFFIXES, read_bytes
from olk.data.dataset import CSRArrays, Dataset, canonical_X
from olk.data.formats import READERS
from olk.data.libsvm import read_libsvm_file
from olk.data.preprocess import (
    apply_scaler,
    fit_scaler,
    fit_target_scale,
    fmt_labels,
    map_labels,
    subsample_index,
    validate_preprocess,
)
from olk.data.registry import DatasetSpec, FileSpec, Part, get_registry, is_path_like
from olk.data.search import find_file, search_path
from olk.errors import DataError, did_you_mean

READER_VERSION = 2          # bump when a reader's output changes, to invalidate cached arrays
_USER_MAX_CLASSES = 100     # own files: > 2 integer labels and at most this many distinct -> multiclass
_SPARSE_DENSITY = 0.25      # own files, sparse=None: CSR if fewer than this fraction of entries are nonzero


def load_dataset(name_or_path: str | os.PathLike, split: str | None = None, *,
                 data_dir: str | list[str] | None = None, preprocess: dict | None = None,
                 verify: bool = True, sparse: bool | None = None, progress: bool = False) -> Dataset:
    """Load a registry dataset by name (e.g. ``'a9a'``) or your own LIBSVM file by path.

    Parameters
    ----------
    name_or_path : registry name, or path to a LIBSVM file (plain, .gz, .bz2 or .xz).
    split : None for what the papers' online experiments stream (the registry's ``default_split``, e.g. a9a
        train+test = 48,842 rows); ``'train'`` / ``'test'`` / ... for one part.
    data_dir : extra directory (or list) searched after ``$OLK_DATA`` (see :func:`olk.data.search_path`).
    preprocess : overrides of the registry's preprocessing keys (``scale``, ``positive_label``, ...).
    verify : check the sha256 of each file against the registry (cached: free after the first load).
    sparse : None = the registry's storage; True / False forces CSR / dense.
    progress : show a progress bar (on a terminal only) while a large file of your own is converted to the cache.

    Your own LIBSVM file of at least :data:`STREAM_MIN` bytes on disk is converted to the dataset cache in blocks
    (:func:`_convert_user_file`: memory bounded by a block, not by the file) and returned memory-mapped from it.
    """
    pre = validate_preprocess(preprocess, "preprocess")
    name = os.fspath(name_or_path)
    reg = None if is_path_like(name) else get_registry()     # a path is not a name: no registry to read
    if reg is not None and name in reg:
        return _load_registered(reg[name], split, data_dir, pre, verify, sparse)
    path = Path(name).expanduser()
    try:
        is_file, is_dir = path.is_file(), path.is_dir()
    except (OSError, ValueError):       # a name the OS rejects (too long, NUL byte): not a file
        is_file = is_dir = False
    if is_file:
        if split is not None:
            raise DataError(f"{name}: split='{split}' applies only to registry datasets; your own file is one part")
        return _load_user_file(path, pre, sparse, progress)
    if is_dir:
        raise DataError(f"{name}: is a directory; pass a registry dataset name or a LIBSVM file")
    if reg is None:
        reg = get_registry()
    if is_path_like(name) or path.suffix.lower() in {".libsvm", ".svm", ".txt", ".t", *SUFFIXES[1:]}:
        raise DataError(f"{name}: no such file (and not a registry dataset{did_you_mean(path.name, reg)}): "
                        f"check the path")
    reg.get_spec(name)          # raises 'unknown dataset' with a suggestion
    raise AssertionError("unreachable")


# ----------------------------------------------------------------------------------------------- registry datasets
def _load_registered(spec: DatasetSpec, split, data_dir, user_pre: dict, verify: bool, sparse) -> Dataset:
    if "task" in user_pre:
        raise DataError(f"preprocess key 'task' applies only to your own files; '{spec.name}' is "
                        f"{spec.task} (registry)")
    pre = {**spec.preprocess, **user_pre}
    if split is None:
        splits = list(spec.default_split)
    elif split in spec.parts:
        splits = [split]
    else:
        raise DataError(f"dataset '{spec.name}' has no split '{split}'{did_you_mean(split, spec.parts)}: "
                        f"splits are {', '.join(spec.parts)} (split=None gives {'+'.join(spec.default_split)})")
    want_sparse = (spec.storage == "sparse") if sparse is None else bool(sparse)
    key, files = _registered_key(spec, splits, data_dir, pre, verify, want_sparse)
    if key is not None:
        ds = _cached_dataset(key, files)
        if ds is not None:
            return ds
    ds = _build_registered(spec, splits, data_dir, pre, verify, want_sparse)
    if key is None:                     # the files' hashes are known now (recorded while reading them)
        key, _ = _registered_key(spec, splits, data_dir, pre, verify, want_sparse)
    if key is not None and any(_worth_caching(Path(f["path"]), spec.format) for f in ds.meta["files"]):
        _store_dataset(key, ds)
    return ds


def _fit_part(spec: DatasetSpec, pre: dict) -> str:
    """Where the scaling is fitted: 'train' (the train part, as svm-scale -s/-r) or 'all' (the rows loaded)."""
    fit_on = pre.get("scale_fit") or ("train" if "train" in spec.parts else "all")
    return "all" if fit_on == "train" and "train" not in spec.parts else fit_on


# ------------------------------------------------------------------------------------- the loaded-dataset cache
_STAMP: str | None = None


def _code_stamp() -> str:
    """What a loaded dataset depends on besides its inputs: the code of olk.data and the numpy and scipy
    versions (a cached dataset is only reused by the code that made it)."""
    global _STAMP
    if _STAMP is None:
        h = hashlib.sha256(np.__version__.encode())
        here = Path(__file__).resolve().parent
        files = sorted(here.glob("*.py"))
        scipy_file = sys.modules["scipy"].__file__ if "scipy" in sys.modules else None
        scipy_dir = Path(scipy_file).parent if scipy_file else None
        if scipy_dir is None:
            import importlib.util
            spec = importlib.util.find_spec("scipy")
            scipy_dir = Path(spec.origin).parent if spec and spec.origin else None
        if scipy_dir is not None:
            files.append(scipy_dir / "version.py")
        for p in files:
            h.update(p.name.encode())
            try:
                h.update(p.read_bytes())
            except OSError:
                h.update(b"?")
        _STAMP = h.hexdigest()
    return _STAMP


def _registered_key(spec: DatasetSpec, splits, data_dir, pre: dict, verify: bool, want_sparse: bool):
    """(key, files) of a registry dataset's cache entry, or (None, None) while a file it reads is missing or
    its hash is not on record (changed since it was hashed).  With ``verify``, each recorded hash is checked
    against the registry here: a mismatch is the same one-line DataError as when the file is read."""
    parts = list(splits)
    scaled = pre.get("scale", "none") != "none" or pre.get("target_scale", "none") != "none"
    if scaled and _fit_part(spec, pre) == "train" and "train" not in parts:
        parts.append("train")           # the scaling is fitted on the train part: it is an input too
    shas, files = [], []
    for s in parts:
        for f in spec.parts[s].files:
            path = find_file(f.path, data_dir)
            sha = known_sha256(path) if path is not None else None
            if sha is None:
                return None, None
            if verify:
                check_sha256(path, sha, f, f"{spec.name}/{s}", spec.name)
            shas.append(sha)
            if s in splits:
                files.append({"split": s, "view": f.view, "path": str(path), "sha256": sha,
                              "verified": bool(verify and f.sha256)})
    key = cache.cache_key(level="dataset", code=_code_stamp(), spec=dataclasses.asdict(spec), splits=list(splits),
                          pre=pre, sparse=want_sparse, sha256=shas, reader=READER_VERSION)
    return key, files


def _cached_dataset(key: str, files: list) -> Dataset | None:
    """The Dataset of a cache entry (``files``: this load's ``meta['files']``), or None."""
    hit = cache.load(key, extra=True)
    if hit is None:
        return None
    X, y, extra = hit
    try:
        meta = dict(extra["meta"])
        meta["files"] = files
        meta["cache"] = {"hits": len(files), "misses": 0, "dataset": True}
        if "views" in meta:
            meta["views"] = {v: tuple(c) for v, c in meta["views"].items()}
        splits = {s: tuple(r) for s, r in extra["splits"].items()}
        return Dataset(extra["name"], X, y, extra["task"], int(extra["n_features"]), splits, meta).validate()
    except (KeyError, TypeError, ValueError, AssertionError):
        cache.discard(key)
        return None


def _store_dataset(key: str, ds: Dataset) -> None:
    meta = {k: v for k, v in ds.meta.items() if k not in ("files", "cache")}
    try:
        extra = json.loads(json.dumps({"name": ds.name, "task": ds.task, "n_features": ds.n_features,
                                       "splits": ds.splits, "meta": meta}, allow_nan=False))
    except (TypeError, ValueError):         # something JSON cannot hold exactly: not cached
        return
    cache.save(key, ds.X, ds.y, extra=extra)


def _build_registered(spec: DatasetSpec, splits, data_dir, pre: dict, verify: bool, want_sparse: bool) -> Dataset:
    meta = {"source": "registry", "registry": spec.source, "description": spec.description,
            "papers": list(spec.papers), "homepage": spec.homepage, "files": [],
            "cache": {"hits": 0, "misses": 0, "dataset": False},
            "url": {s: [f.url for f in spec.parts[s].files] for s in splits}}
    X, y, part_of_row, views = _read_parts(spec, splits, data_dir, verify, want_sparse, meta)
    if views:
        meta["views"] = views

    # labels, row selection
    y, keep, task, info = map_labels(y, spec.task, pre, f"dataset '{spec.name}'")
    meta.update(info)
    rows = np.arange(y.shape[0]) if keep is None else np.flatnonzero(keep)
    sub = subsample_index(rows.size, pre)
    if sub is not None:
        rows = rows[sub]
    if rows.size != y.shape[0]:
        X, y, part_of_row = X[rows], y[rows], part_of_row[rows]
    if y.shape[0] == 0:
        raise DataError(f"dataset '{spec.name}': no rows left after preprocessing {pre}: check "
                        f"positive_label / negative_label")

    # scaling, fitted on the train part when there is one (as svm-scale -s/-r), else on the rows loaded
    scale, tscale = pre.get("scale", "none"), pre.get("target_scale", "none")
    fit_on = _fit_part(spec, pre)
    if scale != "none" or tscale != "none":
        if fit_on == "train" and "train" in splits:
            t = splits.index("train")
            Xfit, yfit = X[part_of_row == t], y[part_of_row == t]
        elif fit_on == "train":
            Xfit, yfit, _, _ = _read_parts(spec, ["train"], data_dir, verify, want_sparse, {})
            yfit, keep_t, _, _ = map_labels(yfit, spec.task, pre, f"dataset '{spec.name}' split 'train'")
            if keep_t is not None:
                Xfit, yfit = Xfit[keep_t], yfit[keep_t]
        else:
            Xfit, yfit = X, y
        X = apply_scaler(X, fit_scaler(Xfit, scale), f"dataset '{spec.name}'")
        if task == "regression":
            t = fit_target_scale(yfit, tscale)
            if t is not None:
                y = y * t[0] + t[1]
                meta["target_scale"] = {"scale": t[0], "offset": t[1]}     # y_loaded = scale * y_file + offset
    meta["preprocess"] = {**pre, "scale": scale, "scale_fit": fit_on if scale != "none" else None}
    meta["storage"] = "sparse" if want_sparse else "dense"

    counts = np.bincount(part_of_row, minlength=len(splits))
    bounds = np.concatenate([[0], np.cumsum(counts)])
    ranges = {s: (int(bounds[i]), int(bounds[i + 1])) for i, s in enumerate(splits)} if len(splits) > 1 else {}
    X = canonical_X(X, sparse=want_sparse)
    return Dataset(spec.name, X, np.ascontiguousarray(y, dtype=np.float64), task, spec.n_features, ranges,
                   meta).validate()


def _read_parts(spec: DatasetSpec, splits, data_dir, verify, want_sparse, meta):
    """Read and check each part; return (X, raw y, part index per row, views)."""
    Xs, ys, views = [], [], {}
    for s in splits:
        X, y, views = _read_part(spec, spec.parts[s], data_dir, verify, meta)
        Xs.append(canonical_X(X, sparse=want_sparse))
        ys.append(y)
    if len(Xs) == 1:
        X = Xs[0]
    elif want_sparse:
        import scipy.sparse as sp
        X = sp.vstack(Xs, format="csr")
    else:
        X = np.vstack(Xs)
    part_of_row = np.repeat(np.arange(len(splits)), [len(y) for y in ys])
    return X, np.concatenate(ys), part_of_row, views


def _read_part(spec: DatasetSpec, part: Part, data_dir, verify, meta):
    blocks: list = []
    y: Any = None
    views: dict = {}
    col = 0
    for f in part.files:
        path = _locate(spec, part, f, data_dir)
        src = str(path)
        X, yf, sha, hit = read_file(path, spec.format, n_features=spec.n_features if f.view is None else None,
                                    options=spec.options, dataset=spec.name, fspec=f, verify=verify,
                                    fetch_name=spec.name, what=f"{spec.name}/{part.split}")
        if meta:
            meta["files"].append({"split": part.split, "view": f.view, "path": src, "sha256": sha,
                                  "verified": bool(verify and f.sha256)})
            meta["cache"]["hits" if hit else "misses"] += 1       # the parsed-file cache
        if X.shape[0] == 0:
            raise DataError(f"{src}: empty file (no data rows): re-fetch it with `olk datasets fetch {spec.name} "
                            f"--force`")
        if part.rows is not None and X.shape[0] != part.rows:
            raise DataError(f"{src}: {X.shape[0]} rows, but the registry expects {part.rows} for "
                            f"{spec.name}/{part.split}: truncated file or a different version; re-fetch with "
                            f"`olk datasets fetch {spec.name} --force`")
        ncols: Any = f.columns if f.view is not None else spec.n_features
        if X.shape[1] != ncols:
            raise DataError(f"{src}: {X.shape[1]} feature columns, but the registry declares {ncols} for "
                            f"{spec.name}{'/' + f.view if f.view else ''}: wrong file or a different version")
        if f.view is not None:
            views[f.view] = (col, col + ncols)
            col += ncols
        else:
            y = yf
            if spec.labels is not None:
                found = unique(yf)
                bad = np.setdiff1d(found, np.asarray(spec.labels, dtype=np.float64))
                if bad.size:
                    raise DataError(f"{src}: labels {fmt_labels(found)} found, but the registry declares "
                                    f"{fmt_labels(spec.labels)} for {spec.task} dataset '{spec.name}': wrong or "
                                    f"corrupt file; re-fetch it with `olk datasets fetch {spec.name} --force`")
        blocks.append(X)
    if views:
        nrows = {b.shape[0] for b in blocks}
        if len(nrows) > 1:
            raise DataError(f"dataset '{spec.name}': its view files have different row counts {sorted(nrows)}")
        X = np.hstack([b.toarray() if issparse(b) else b for b in blocks])
        rpc = int(spec.options.get("rows_per_class", X.shape[0]) or 0)
        y = (np.arange(X.shape[0]) // rpc).astype(np.float64)
        return X, y, views
    return blocks[0], y, {}


def _locate(spec: DatasetSpec, part: Part, f: FileSpec, data_dir) -> Path:
    path = find_file(f.path, data_dir)
    if path is not None:
        return path
    dirs = ", ".join(str(d) for d in search_path(data_dir))
    where = f"file '{f.path}' (or .xz/.bz2/.gz) of dataset '{spec.name}' split '{part.split}' not found in: {dirs}"
    if f.url:
        note = "" if f.offline else " (not in the offline copy)"
        raise DataError(f"{where}{note}; fix: `olk datasets fetch {spec.name}` (downloads {f.url}), or set "
                        f"OLK_DATA to the directory that holds it")
    raise DataError(f"{where}; it has no public download URL ({spec.notes or spec.homepage}): put the file in "
                    f"one of those directories or set OLK_DATA")


def read_file(path: Path, fmt: str, *, n_features=None, options=None, dataset=None, fspec: FileSpec | None = None,
              verify: bool = True, fetch_name: str | None = None, what: str | None = None):
    """Read one file through the checksum and array caches.  Returns (X, y, sha256, cache_hit); a sparse X is a
    :class:`~olk.data.dataset.CSRArrays` (no scipy import: a dense dataset never needs scipy).

    A LIBSVM file is hashed while it is parsed, in chunks (:func:`olk.data.libsvm.read_libsvm_file`: the text is
    never held whole); the registry's checksum is compared before any parse error is reported."""
    options = options or {}
    check = verify and fspec is not None
    sha = known = known_sha256(path)
    if sha is not None:
        if check:
            check_sha256(path, sha, fspec, what or str(path), fetch_name or str(dataset))
        hit = cache.load(_key(sha, fmt, n_features, options), arrays=True)
        if hit is not None:
            return hit[0], hit[1], sha, True

    def checked(digest: str) -> str:
        if digest != known:
            remember_sha256(path, digest)
        if check:
            check_sha256(path, digest, fspec, what or str(path), fetch_name or str(dataset))
        return digest

    if fmt == "libsvm":
        h = hashlib.sha256()
        X, y = read_libsvm_file(path, str(path), n_features=n_features, dataset=dataset, tee=h.update,
                                before_error=(lambda: checked(h.hexdigest())) if check else None, arrays=True)
        sha = checked(h.hexdigest())
    else:
        data = read_bytes(path)
        sha = checked(sha256_bytes(data))
        X, y = READERS[fmt](data, str(path), n_features=n_features, options=options, dataset=dataset)
        del data
    # cached as every load uses it (CSR: sorted, no explicit zeros; dense: C order)
    X = X.without_zeros() if isinstance(X, CSRArrays) else canonical_X(X)
    if _worth_caching(path, fmt):
        cache.save(_key(sha, fmt, n_features, options), X, y, extra={"file": str(path)})
    return X, y, sha, False


def _worth_caching(path: Path, fmt: str) -> bool:
    """Whether a file's arrays (and the datasets loaded from it) are cached: a LIBSVM file of at least
    ``$OLK_CACHE_MIN`` bytes on disk (:func:`olk.data.cache.min_bytes`); any other format (slow to parse)."""
    if fmt != "libsvm":
        return True
    try:
        return os.stat(path).st_size >= cache.min_bytes()
    except OSError:
        return False


def _key(sha, fmt, n_features, options) -> str:
    return cache.cache_key(sha256=sha, format=fmt, n_features=n_features, options=options, reader=READER_VERSION)


# ----------------------------------------------------------------------------------------------- own files
def _load_user_file(path: Path, pre: dict, sparse, progress: bool = False) -> Dataset:
    src = str(path)
    sha = known_sha256(path)
    key = _user_key(path.name, sha, pre, sparse) if sha is not None else None
    files = [{"split": None, "path": src, "sha256": sha, "verified": False}]
    ds = _cached_dataset(key, files) if key is not None else None
    if ds is None and _converts_in_blocks(path):
        ds = _convert_user_file(path, pre, sparse, progress)
    if ds is None:
        ds = _build_user_file(path, pre, sparse)
        if _worth_caching(path, "libsvm"):
            _store_dataset(_user_key(path.name, ds.meta["files"][0]["sha256"], pre, sparse), ds)
    return ds


#: bytes on disk from which your own LIBSVM file is converted to the dataset cache in blocks (two reads, memory
#: bounded by a block) rather than parsed whole (one read, memory a few times its arrays: about 4x measured)
STREAM_MIN = 32 * 2**20


def _converts_in_blocks(path: Path) -> bool:
    try:
        size = os.stat(path).st_size
    except OSError:
        return False
    return size >= STREAM_MIN and _worth_caching(path, "libsvm") and cache.max_bytes() > 0


def _user_task(found: np.ndarray, pre: dict, src: str) -> str:
    """The task of your own file from its distinct labels `found` (``preprocess`` key ``task``, else: at most two
    labels or a positive_label -> binary, integral and at most :data:`_USER_MAX_CLASSES` -> multiclass, else
    regression); more than two labels for a binary task need a positive_label (one-line DataError)."""
    task = pre.get("task")
    if task is None:
        integral = bool(np.all(found == np.round(found)))
        if found.size <= 2 or pre.get("positive_label") is not None:
            task = "binary"
        elif integral and found.size <= _USER_MAX_CLASSES:
            task = "multiclass"
        else:
            task = "regression"
    if task == "binary" and found.size > 2 and pre.get("positive_label") is None:
        raise DataError(f"{src}: labels {fmt_labels(found)} found ({found.size} classes), but binary needs two: "
                        f"set positive_label (preprocess={{'positive_label': L}}, YAML/CLI key positive_label) "
                        f"to map label L to +1 and the others to -1")
    return task


def _convert_user_file(path: Path, pre: dict, sparse, progress: bool = False) -> Dataset | None:
    """Your own large LIBSVM file converted to its dataset cache entry in blocks, returned memory-mapped from the
    cache: the Dataset of :func:`_build_user_file` bit for bit (the same arrays, labels and meta), in memory
    bounded by a block of text (:mod:`olk.data.stream`) instead of a few times the file's arrays.

    Two reads.  The first hashes the text (the cache key), counts the rows and the stored non-zeros of the rows
    kept, finds the labels and, for a min-max scaling, each column's extremes over the rows kept (exact in any
    order); then every decision of :func:`_build_user_file` is taken as it takes it (the task, the label map, the
    subsample, the scaler, the storage).  The second maps, selects, scales and stores each block as the whole
    arrays would be (the same element-wise operations) and appends it to the entry (:func:`cache.save_blocks`).
    None (the caller parses the file whole) where that cannot be done exactly or the entry would exceed the cache's
    cap: zscore scaling (its means are sums in one order), a subsample with scaling, a target scale or the storage
    left to the density, more than :data:`~olk.data.stream.MAX_LABELS` distinct labels outside a regression."""
    from olk.data.preprocess import _DENSE_LIMIT_BYTES, label_mapping
    from olk.data.stream import MAX_LABELS, ReadBar, Source, iter_blocks
    src = str(path)
    scale, tscale = pre.get("scale", "none"), pre.get("target_scale", "none")
    if scale not in ("none", "minmax01", "minmax11", "minmax01_global") or \
            (pre.get("subsample") and (scale != "none" or tscale != "none" or sparse is None)):
        return None
    pos, neg = pre.get("positive_label"), pre.get("negative_label")
    kept_labels = None if pos is None or neg is None else \
        [*(pos if isinstance(pos, (list, tuple)) else [pos]), *(neg if isinstance(neg, (list, tuple)) else [neg])]

    # the first read: the hash, the rows, the labels, and the statistics of the rows kept
    h = hashlib.sha256()
    rows = width = n_kept = nnz_kept = 0
    found: np.ndarray | None = np.empty(0)
    lo = hi = np.zeros(0)
    stored = np.zeros(0, dtype=np.int64)
    ylo, yhi = np.inf, -np.inf
    with Source(path) as source, ReadBar(f"olk: reading {path.name}", source.size, progress) as bar:
        for X, y in iter_blocks(source, tee=h.update, progress=bar):
            X = X.without_zeros()
            rows += y.shape[0]
            width = max(width, X.shape[1])     # the parser's: the largest index, of a zero value too
            if found is not None:
                found = np.union1d(found, y)
                if found.shape[0] > MAX_LABELS:
                    found = None
            if kept_labels is not None:
                keep = np.isin(y, kept_labels)
                X, y = _take_rows(X, keep), y[keep]
            n_kept += y.shape[0]
            nnz_kept += X.nnz
            if scale != "none" and X.nnz:
                lo, hi, stored = _extremes(X, lo, hi, stored)
            if tscale != "none" and y.shape[0]:
                ylo, yhi = min(ylo, float(y.min())), max(yhi, float(y.max()))
    sha = h.hexdigest()
    if sha != known_sha256(path):
        remember_sha256(path, sha)
    files = [{"split": None, "path": src, "sha256": sha, "verified": False}]
    key = _user_key(path.name, sha, pre, sparse)
    ds = _cached_dataset(key, files)            # the same file under another name or path, converted before
    if ds is not None:
        return ds
    if rows == 0:
        raise DataError(f"{src}: empty file (no data lines): expected '<label> <index>:<value> ...' per line")
    if found is None:                           # more distinct labels than kept: real-valued targets
        if pre.get("task") not in (None, "regression") or pos is not None:
            return None
        task = "regression"
    else:
        task = _user_task(found, pre, src)
    apply, task, info = label_mapping(np.empty(0) if found is None else found, task, pre, src)
    sub = subsample_index(n_kept, pre)
    n_final = n_kept if sub is None else int(sub.shape[0])
    d = max(width, 1)
    params = None
    if scale != "none":
        if n_kept == 0:
            return None                         # fit_scaler's own error, from the whole path
        full = stored[:d] if stored.shape[0] >= d else np.concatenate([stored, np.zeros(d - stored.shape[0], int)])
        lo_d, hi_d = (np.concatenate([a, np.zeros(d - a.shape[0])]) if a.shape[0] < d else a[:d] for a in (lo, hi))
        holes = full < n_kept                   # columns with an implicit zero in some row kept: scipy's min/max
        lo_d, hi_d = np.where(holes, np.minimum(lo_d, 0.0), lo_d), np.where(holes, np.maximum(hi_d, 0.0), hi_d)
        params = fit_scaler(np.vstack([lo_d, hi_d]), scale)
    densify = params is not None and bool(np.any((0.0 - params[0]) / params[1] * params[2] + params[3]))
    if densify and n_final * d * 8 > _DENSE_LIMIT_BYTES:
        return None                             # apply_scaler's own error, from the whole path
    storage = bool(sparse) if sparse is not None else (not densify and auto_sparse(nnz_kept, n_final, d))
    t = fit_target_scale(np.array([ylo, yhi]), tscale) if task == "regression" and n_final else None
    target = {"target_scale": {"scale": t[0], "offset": t[1]}} if t is not None else {}
    meta = {"source": "file", "files": files, "cache": {"hits": 0, "misses": 1, "dataset": False},
            "preprocess": {**pre, "scale": scale, "scale_fit": "all" if scale != "none" else None},
            "storage": "sparse" if storage else "dense", **info, **target}
    try:
        extra = json.loads(json.dumps({"name": path.name, "task": task, "n_features": d, "splits": {},
                                       "meta": {k: v for k, v in meta.items() if k not in ("files", "cache")}},
                                      allow_nan=False))
    except (TypeError, ValueError):
        return None
    size = (8 * n_final * d if not storage else 12 * nnz_kept + 4 * (n_final + 1)) + 8 * n_final
    reshaped = kept_labels is not None or sub is not None or params is not None

    def blocks():
        # the second read: each block as the whole path treats all rows (_build_user_file), in the same order
        seen = k0 = 0
        with Source(path) as source, ReadBar(f"olk: converting {path.name}", source.size, progress) as bar:
            for X, y in iter_blocks(source, width=d, progress=bar):
                seen += y.shape[0]
                X = X.without_zeros()
                y, keep = apply(y)
                if reshaped:
                    X = X.tocsr()
                if keep is not None:
                    X, y = X[keep], y[keep]
                if sub is not None:             # the subsample's rows in this block (numbered over the rows kept)
                    a, b = np.searchsorted(sub, [k0, k0 + y.shape[0]])
                    chosen = sub[a:b] - k0
                    k0 += y.shape[0]
                    X, y = X[chosen], y[chosen]
                X = apply_scaler(X, params, src)
                if t is not None:
                    y = y * t[0] + t[1]
                yield canonical_X(X, sparse=storage), np.ascontiguousarray(y, dtype=np.float64)
        if seen != rows:
            raise DataError(f"{src}: {seen:,} rows where the first read found {rows:,}: the file changed while it "
                            f"was read; load it again")

    if not cache.save_blocks(key, blocks(), width=None if storage else d, size=size, extra=extra):
        return None
    ds = _cached_dataset(key, files)
    if ds is not None:
        ds.meta["cache"] = {"hits": 0, "misses": 1, "dataset": False, "converted": "blocks"}
    return ds


def _take_rows(X: CSRArrays, keep: np.ndarray) -> CSRArrays:
    """The rows of X where `keep` is True, without scipy (the first read counts what the rows kept hold)."""
    if keep.all():
        return X
    counts = np.diff(X.indptr)[keep]
    mask = np.repeat(keep, np.diff(X.indptr))
    indptr = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return CSRArrays(X.data[mask], X.indices[mask], indptr, (int(counts.shape[0]), X.shape[1]))


def _extremes(X: CSRArrays, lo: np.ndarray, hi: np.ndarray, stored: np.ndarray):
    """Per column: the smallest and largest stored value and the count of stored values, updated with X's (the
    arrays grown to X's largest index); min and max are exact in any order."""
    d = int(X.indices.max()) + 1
    if d > lo.shape[0]:
        grow = d - lo.shape[0]
        lo = np.concatenate([lo, np.full(grow, np.inf)])
        hi = np.concatenate([hi, np.full(grow, -np.inf)])
        stored = np.concatenate([stored, np.zeros(grow, dtype=np.int64)])
    np.minimum.at(lo, X.indices, X.data)
    np.maximum.at(hi, X.indices, X.data)
    stored += np.bincount(X.indices, minlength=stored.shape[0])
    return lo, hi, stored


def auto_sparse(nnz: int, rows: int, columns: int) -> bool:
    """Whether your own file's rows are stored sparse (CSR) when ``sparse=None``: fewer than
    :data:`_SPARSE_DENSITY` of its entries are stored non-zeros; else dense.  (``olk train`` decides a streamed
    file's storage by the same rule from its first read.)"""
    return nnz < _SPARSE_DENSITY * max(1, rows * columns)


def _user_key(name: str, sha: str, pre: dict, sparse) -> str:
    return cache.cache_key(level="dataset", code=_code_stamp(), source="file", name=name, sha256=sha, pre=pre,
                           sparse=sparse, reader=READER_VERSION)


def _build_user_file(path: Path, pre: dict, sparse) -> Dataset:
    src = str(path)
    X, y, sha, hit = read_file(path, "libsvm")
    if X.shape[0] == 0:
        raise DataError(f"{src}: empty file (no data lines): expected '<label> <index>:<value> ...' per line")
    task = _user_task(unique(y), pre, src)
    y, keep, task, info = map_labels(y, task, pre, src)
    sub = subsample_index(y.shape[0] if keep is None else int(np.count_nonzero(keep)), pre)
    scale = pre.get("scale", "none")
    if isinstance(X, CSRArrays) and (keep is not None or sub is not None or scale != "none"):
        X = X.tocsr()               # row selection and scaling on the scipy matrix
    if keep is not None:
        X, y = X[keep], y[keep]
    if sub is not None:
        X, y = X[sub], y[sub]
    X = apply_scaler(X, fit_scaler(X, scale), src)
    target = {}
    if task == "regression":
        t = fit_target_scale(y, pre.get("target_scale", "none"))
        if t is not None:
            y = y * t[0] + t[1]
            target = {"target_scale": {"scale": t[0], "offset": t[1]}}
    if sparse is None:
        sparse = (isinstance(X, CSRArrays) or issparse(X)) and auto_sparse(X.nnz, X.shape[0], X.shape[1])
    X = canonical_X(X, sparse=bool(sparse))
    meta = {"source": "file", "files": [{"split": None, "path": src, "sha256": sha, "verified": False}],
            "cache": {"hits": int(hit), "misses": int(not hit), "dataset": False},
            "preprocess": {**pre, "scale": scale, "scale_fit": "all" if scale != "none" else None},
            "storage": "sparse" if sparse else "dense", **info, **target}
    return Dataset(path.name, X, np.ascontiguousarray(y, dtype=np.float64), task, int(X.shape[1]), {},
                   meta).validate()
