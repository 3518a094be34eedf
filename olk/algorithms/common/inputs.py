"""Input checks every learner's data surface shares: rows and widths of X (dense, scipy sparse or a core
``RowSource``), finite values, labels, and the one-line errors they raise (:class:`InputError` is a
:class:`~olk.errors.DataError` and a ``ValueError``, as scikit-learn expects; :class:`ParamError` a
:class:`~olk.errors.ConfigError` and a ``ValueError``).

>>> import numpy as np
>>> n_rows(np.zeros((3, 2))), n_features(np.zeros((3, 2)))
(3, 2)
>>> check_finite_X(np.array([[1.0, np.inf]]))
Traceback (most recent call last):
...
olk.algorithms.common.inputs.InputError: X: row 0 (0-based), column 1 is inf: NaN and infinite values cannot ...
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.svpool import RowSource
from ..._lazy import issparse
from ...errors import ConfigError, DataError


class InputError(DataError, ValueError):
    """Bad input to a learner's estimator surface (X or y of ``fit``/``partial_fit``/``predict``...): a one-line
    :class:`~olk.errors.DataError` that is also a ``ValueError``, as scikit-learn expects of an estimator."""


class InputTypeError(InputError, TypeError):
    """X holds values that are not numbers (e.g. a dict in an object array): an :class:`InputError` that is also a
    ``TypeError``, as ``np.asarray(X, dtype=float)`` raises it."""


class ParamError(ConfigError, ValueError):
    """A bad value given to ``set_params``: the one-line :class:`~olk.errors.ConfigError` the constructor raises,
    also a ``ValueError`` (scikit-learn's convention for parameter validation)."""


def n_rows(X) -> int:
    """Rows of a data matrix (dense, scipy sparse or RowSource); a 1-d array is one row."""
    if isinstance(X, RowSource):
        return X.n_rows
    if hasattr(X, "shape"):
        return X.shape[0] if len(X.shape) > 1 else 1
    return np.atleast_2d(np.asarray(X)).shape[0]


def as_data(X):
    """X as olk's learners read it: a RowSource, scipy sparse matrix or numpy array as is; anything else (a list
    of rows, a pandas DataFrame, ...) through ``np.asarray``."""
    if isinstance(X, (RowSource, np.ndarray)) or issparse(X):
        return X
    return np.asarray(X)


def n_features(X) -> int:
    """Columns of a data matrix (dense, scipy sparse or RowSource); a 1-d array is one row."""
    if isinstance(X, RowSource):
        return X.n_features
    shape = X.shape if hasattr(X, "shape") else np.shape(X)
    return int(shape[1]) if len(shape) > 1 else int(shape[0]) if len(shape) == 1 else 1


def check_train_shape(X, empty_ok: bool = False) -> None:
    """Training data needs at least one feature, and (unless `empty_ok`: a ``partial_fit`` with no rows is a
    no-op) at least one row: a one-line InputError otherwise."""
    if isinstance(X, RowSource):
        return
    shape = X.shape if hasattr(X, "shape") else np.shape(X)
    if len(shape) == 2 and shape[1] == 0:
        raise InputError(f"X has 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required.")
    if not empty_ok and n_rows(X) == 0:
        raise InputError(f"cannot train on an empty training set (0 rows, shape={tuple(shape)})")


def check_finite_X(X) -> None:
    """A one-line DataError naming the first row (0-based) of X that holds a NaN or an infinite value."""
    if isinstance(X, RowSource):
        bad = np.flatnonzero(~np.isfinite(np.asarray(X.sqnorms)))
        if bad.size:
            raise InputError(f"X: row {bad[0]} (0-based) has a NaN or infinite value (its squared norm is not "
                            f"finite); remove or impute that row")
        return
    if issparse(X):
        check_sparse_structure(X)
        if X.format != "csr":
            X = X.tocsr()
        data = np.asarray(X.data)
        if data.dtype.kind == "c":
            raise InputError("X: Complex data not supported; pass real numbers")
        if data.dtype.kind in "fc" and data.size and not np.isfinite(data.sum()):  # NaN/inf make the sum non-finite
            bad = np.flatnonzero(~np.isfinite(data))
            if bad.size:
                k = int(bad[0])
                row = int(np.searchsorted(X.indptr, k, side="right")) - 1
                _bad_x(row, int(X.indices[k]), data[k])
        return
    A = np.asarray(X)
    if A.dtype.kind in "iub":
        return
    if A.dtype.kind == "c":
        raise InputError("X: Complex data not supported; pass real numbers")
    if A.dtype.kind != "f":
        try:
            A = np.asarray(X, dtype=np.float64)
        except TypeError as e:
            raise InputTypeError(f"X: expected numbers ({e})") from None
        except ValueError as e:
            raise InputError(f"X: expected numbers ({e})") from None
    if A.size and not np.isfinite(A.sum()):
        bad = np.flatnonzero(~np.isfinite(A))
        if bad.size:
            r, c = divmod(int(bad[0]), A.shape[-1]) if A.ndim > 1 else (0, int(bad[0]))
            _bad_x(r, c, A.flat[bad[0]])


def check_sparse_structure(X) -> None:
    """A scipy sparse X whose arrays fit its shape -- every index inside it, a CSR/CSC row pointer that starts at
    0, never decreases and ends at the number of stored values -- else one :class:`InputError` (a ``ValueError``).
    Checked before anything reads the arrays: the compiled core and scipy's own conversions index with them
    unchecked (a CSR column index past the width was accepted by ``fit`` and corrupted memory in ``predict``)."""
    why = None
    if X.format in ("csr", "csc"):                 # numpy on the arrays: scipy's check_format(full_check=True) says
        why = _compressed_problem(X)                # the same, at ten times the cost on a River row
    elif X.format == "bsr":
        try:
            X.check_format(full_check=True)
        except (ValueError, TypeError, IndexError) as e:
            why = " ".join(str(e).split())
    elif X.format == "coo":
        for name, coords, n in (("row", X.row, X.shape[0]), ("column", X.col, X.shape[1])):
            if coords.size and (int(coords.min()) < 0 or int(coords.max()) >= n):
                why = f"a {name} index outside 0..{n - 1}"
                break
    if why is not None:
        raise InputError(f"X: a {X.format.upper()} matrix of shape {X.shape} whose index arrays do not fit it "
                         f"({why[:120]}); build it with scipy (e.g. scipy.sparse.csr_matrix((data, indices, indptr), "
                         f"shape=...)) from valid indices")


def _compressed_problem(X) -> str | None:
    """What is wrong with a CSR/CSC matrix's index arrays (scipy's own wording), or None."""
    major, minor = X.shape if X.format == "csr" else X.shape[::-1]
    indptr, indices = np.asarray(X.indptr), np.asarray(X.indices)
    if indptr.ndim != 1 or indices.ndim != 1 or indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
        return "index arrays must be one-dimensional integer arrays"
    if indptr.shape[0] != major + 1:
        return f"index pointer size {indptr.shape[0]} should be {major + 1}"
    if int(indptr[0]) != 0:
        return "index pointer should start with 0"
    if indices.shape[0] != np.asarray(X.data).shape[0]:
        return "indices and data should have the same size"
    if int(indptr[-1]) > indices.shape[0]:
        return "last value of index pointer should be less than the size of index and data arrays"
    if major and np.any(indptr[1:] < indptr[:-1]):
        return "index pointer values must form a non-decreasing sequence"
    used = indices[:int(indptr[-1])]
    if used.size:
        if int(used.max()) >= minor:
            return f"indices must be < {minor}"
        if int(used.min()) < 0:
            return "indices must be >= 0"
    return None


def _bad_x(row: int, col: int, value) -> None:
    raise InputError(f"X: row {row} (0-based), column {col} is {value}: NaN and infinite values cannot be learned "
                    f"from or scored; remove or impute that row")


def check_finite_y(y: np.ndarray) -> None:
    """A one-line DataError naming the first row (0-based) of y whose label is NaN, infinite or None."""
    if y.dtype.kind in "fc":
        if y.size and not np.isfinite(y.sum()):
            bad = np.flatnonzero(~np.isfinite(y))
            if bad.size:
                raise InputError(f"y: row {bad[0]} (0-based) has label {y[bad[0]]}; labels must be finite")
    elif y.dtype.kind == "O":
        for r, v in enumerate(y.tolist()):
            if v is None or (isinstance(v, float) and not math.isfinite(v)):
                raise InputError(f"y: row {r} (0-based) has label {v}; labels must be finite")


def same_label(y: np.ndarray, c) -> np.ndarray:
    """y == c elementwise, for labels of any type (numbers, strings, mixed)."""
    yk, ck = y.dtype.kind, np.asarray(c).dtype.kind
    if (yk in "iufb" and ck in "iufb") or (yk in "US" and yk == ck):
        return np.asarray(y == c, dtype=bool)
    return np.asarray(np.asarray(y, dtype=object) == c, dtype=bool)


def label_text(v) -> str:
    v = v.item() if isinstance(v, np.generic) else v
    return f"{v:g}" if isinstance(v, float) else repr(v)


def labels_text(vals) -> str:
    vals = list(vals)
    return ", ".join(label_text(v) for v in vals[:5]) + (", ..." if len(vals) > 5 else "")
