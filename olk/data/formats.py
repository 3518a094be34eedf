"""Readers for the non-LIBSVM formats of the registry: delimited text (raw UCI), MATLAB .mat, mfeat views.

Every reader takes the uncompressed bytes and returns ``(X, y)`` (``y`` None for a view file), raising DataError
with the file (and line, where known) on bad input.  LIBSVM is in :mod:`olk.data.libsvm`.
"""
from __future__ import annotations

import io
from collections import defaultdict

import numpy as np

from olk.data.libsvm import read_libsvm
from olk.errors import DataError


def _read_table(data: bytes, src: str, sep: str | None, text_column: int | None = None):
    """Parse the table (a pandas DataFrame): all columns as float64 (fast path; `text_column` kept as text),
    falling back to per-column type inference when some value is not a number (so the bad line can be named)."""
    import pandas as pd  # lazy: pandas takes ~0.3 s to import

    what = "whitespace" if sep in (None, "whitespace") else repr(sep)
    sep = r"\s+" if sep in (None, "whitespace") else sep
    kw = dict(sep=sep, header=None, engine="c", skip_blank_lines=True)
    try:
        dtype = defaultdict(lambda: np.float64, {} if text_column is None else {text_column: object})
        try:
            return pd.read_csv(io.BytesIO(data), dtype=dtype, **kw)
        except (ValueError, TypeError):
            return pd.read_csv(io.BytesIO(data), low_memory=False, **kw)
    except pd.errors.EmptyDataError:
        raise DataError(f"{src}: empty file (no data rows): re-fetch it or check the path") from None
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as e:
        raise DataError(f"{src}: cannot parse as {what}-separated text: {' '.join(str(e).split())}") from None


def _numeric(df, src: str, cols=None, role: str = "") -> np.ndarray:
    """C-contiguous float64 array of the columns `cols` of `df` (default: all), or DataError naming the first
    line with a missing (NaN), infinite or non-numeric value (``role``, e.g. 'the target', names the column's use)."""
    import pandas as pd

    cols = range(df.shape[1]) if cols is None else cols
    out = np.empty((df.shape[0], len(cols)), dtype=np.float64)
    for j, c in enumerate(cols):
        col = df.iloc[:, c]
        out[:, j] = col.to_numpy(dtype=np.float64) if col.dtype.kind in "fiub" else \
            pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        row, j = np.argwhere(bad)[0]
        value = df.iat[row, cols[j]]
        text = str(value).strip()
        if np.isinf(out[row, j]):
            what = f"infinite value {text[:30]!r}"
        elif pd.isna(value) or text.lower() in ("nan", "na", "n/a", ""):
            what = f"missing value {text[:30]!r}" if text and text.lower() != "nan" else "missing value (NaN)"
        else:
            what = f"non-numeric value {text[:30]!r}"
        raise DataError(f"{src}:{row + 1}: {what} in column {cols[j] + 1}{f' ({role})' if role else ''}: "
                        f"fix or remove that line")
    return out


def read_delimited(data: bytes, src: str, *, options: dict, n_features: int | None = None, **_):
    """Delimited text (comma or whitespace), no header: feature columns [a, b) and one target column."""
    target = int(options["target_column"])
    df = _read_table(data, src, options.get("sep", ","), target if options.get("label_map") else None)
    a, b = options.get("feature_columns", [0, df.shape[1] - 1])
    need = max(target, b - 1) + 1
    if df.shape[1] < need:
        raise DataError(f"{src}: {df.shape[1]} columns, but the registry reads features {a + 1}-{b} and the "
                        f"target from column {target + 1}: wrong file or separator")
    ycol = df.iloc[:, target]
    label_map = options.get("label_map")
    if label_map:
        mapped = ycol.astype(str).str.strip().map({str(k): float(v) for k, v in label_map.items()})
        if mapped.isna().any():
            row = int(np.flatnonzero(mapped.isna().to_numpy())[0])
            raise DataError(f"{src}:{row + 1}: label {str(ycol.iat[row])[:30]!r} in column {target + 1} is not "
                            f"one of {sorted(map(str, label_map))}: wrong file, or extend label_map in the registry")
        y = mapped.to_numpy(dtype=np.float64)
    else:
        y = _numeric(df, src, [target], role="the target").ravel()
    X = _numeric(df, src, list(range(a, b)))
    return X, y


def read_mat(data: bytes, src: str, *, options: dict, **_):
    """MATLAB .mat (v4-v7.2, via scipy.io.loadmat): arrays `x_key` and `y_key`."""
    import scipy.io

    try:
        m = scipy.io.loadmat(io.BytesIO(data))
    except (ValueError, TypeError, OSError, NotImplementedError) as e:
        raise DataError(f"{src}: cannot read as a MATLAB .mat file ({' '.join(str(e).split())}); v7.3 (HDF5) "
                        f"files are not supported: re-save with -v7") from None
    xk, yk = options.get("x_key", "X"), options.get("y_key", "y")
    keys = sorted(k for k in m if not k.startswith("__"))
    for k in (xk, yk):
        if k not in m:
            raise DataError(f"{src}: no variable '{k}' in the .mat file (it has {', '.join(keys) or 'none'}): "
                            f"set options x_key / y_key in the registry")
    by_samples = options.get("x_layout", "samples_by_features") == "features_by_samples"
    X = _mat_numeric(m[xk], src, xk)
    if by_samples:
        X = X.T                      # the AMKL authors store X as features x samples
    y = _mat_numeric(m[yk], src, yk).ravel()
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise DataError(f"{src}: X is {'x'.join(map(str, X.shape))} but y has {y.shape[0]} values: check "
                        f"x_layout (samples_by_features | features_by_samples) in the registry")
    bad = ~np.isfinite(y)
    if bad.any():
        i = int(np.argmax(bad))
        raise DataError(f"{src}: target '{yk}' has the non-finite value {y[i]:g} in row {i + 1} (1-based, sample "
                        f"{i + 1} of {y.shape[0]}): fix or remove that sample")
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise DataError(f"{src}: '{xk}' has the non-finite value {X[i, j]:g} in row {i + 1}, feature {j + 1} "
                        f"(1-based, sample {i + 1} of {X.shape[0]}): fix or remove that sample")
    return np.ascontiguousarray(X), y


def _mat_numeric(a, src: str, key: str) -> np.ndarray:
    """A .mat variable as a float64 array, or DataError: a char or cell array (e.g. 'y' saved as text) is refused,
    naming the first row (1-based, the first axis of the stored array) whose value is not a number."""
    arr = np.asarray(a)
    if arr.dtype.kind in "fiub":
        return arr.astype(np.float64)
    kind = "char" if arr.dtype.kind in "US" else "cell" if arr.dtype.kind == "O" else str(arr.dtype)
    row = 1
    for idx in np.ndindex(arr.shape):
        v = np.asarray(arr[idx]).squeeze()
        try:
            float(v.item())
        except (TypeError, ValueError):
            row = idx[0] + 1 if idx else 1
            raise DataError(f"{src}: '{key}' has the non-numeric value {str(v.tolist())[:30]!r} in row {row} "
                            f"(1-based; a {kind} array): save '{key}' as a numeric array") from None
    raise DataError(f"{src}: '{key}' is a {kind} array, not a numeric one (row {row}): save '{key}' as numbers")


def read_matrix(data: bytes, src: str, **_):
    """Whitespace-separated numeric matrix without labels (one mfeat view)."""
    return _numeric(_read_table(data, src, None), src), None


def _read_libsvm(data: bytes, src: str, *, n_features=None, dataset=None, **_):
    return read_libsvm(data, src, n_features=n_features, dataset=dataset)


#: format name -> reader of ONE file
READERS = {"libsvm": _read_libsvm, "delimited": read_delimited, "mat": read_mat, "mfeat": read_matrix}
