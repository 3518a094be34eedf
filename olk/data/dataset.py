"""The :class:`Dataset` container returned by :func:`olk.data.load_dataset`, and the array invariants it guarantees."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from olk._lazy import issparse

TASKS = ("binary", "multiclass", "regression")


@dataclass(repr=False)
class Dataset:
    """A loaded dataset: features, labels and where they came from.

    Invariants (established by :func:`canonical_X` and checked by :meth:`validate`):

    * ``X`` is float64; a ``scipy.sparse.csr_matrix`` with sorted indices, int32 ``indices``/``indptr`` and no
      explicit zeros, or a C-contiguous ``numpy.ndarray``.
    * ``y`` is a 1-D float64 array: ``{-1., +1.}`` for ``task='binary'``, ``0..K-1`` for ``'multiclass'``, real for
      ``'regression'``.
    * ``splits`` maps each part the rows were built from to its row range ``(start, stop)`` (``{}`` for one file).
    """

    name: str
    X: Any  # a numpy array or a scipy.sparse.csr_matrix
    y: np.ndarray
    task: str
    n_features: int
    splits: dict[str, tuple[int, int]] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def is_sparse(self) -> bool:
        return issparse(self.X)

    def part(self, split: str) -> "Dataset":
        """The rows of one part (e.g. ``'train'``) as a new Dataset sharing ``meta``."""
        if split not in self.splits:
            from olk.errors import DataError, did_you_mean

            raise DataError(f"dataset '{self.name}' has no part '{split}'{did_you_mean(split, self.splits)}: "
                            f"parts are {sorted(self.splits) or 'none (single file)'}")
        a, b = self.splits[split]
        return Dataset(self.name, canonical_X(self.X[a:b]), self.y[a:b].copy(), self.task, self.n_features, {},
                       dict(self.meta))

    def validate(self) -> "Dataset":
        """Assert the invariants above (raises AssertionError: a bug in olk, not user input)."""
        X, y = self.X, self.y
        assert self.task in TASKS, self.task
        assert X.dtype == np.float64 and y.dtype == np.float64 and y.ndim == 1
        assert X.shape == (y.shape[0], self.n_features), (X.shape, y.shape, self.n_features)
        if issparse(X):
            import scipy.sparse as sp
            assert isinstance(X, sp.csr_matrix) and X.has_sorted_indices
            assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
            step = 1 << 24                  # in slices: no temporary the size of a large mapped dataset
            assert not any(np.any(X.data[a:a + step] == 0) for a in range(0, X.data.shape[0], step))
        else:
            assert isinstance(X, np.ndarray) and X.flags.c_contiguous
        if self.task == "binary":
            assert np.isin(y, (-1.0, 1.0)).all()
        elif self.task == "multiclass":
            assert np.all(y == np.round(y)) and (y.size == 0 or y.min() >= 0)
        for a, b in self.splits.values():
            assert 0 <= a <= b <= y.shape[0]
        return self

    def __repr__(self) -> str:
        kind = f"csr nnz={self.X.nnz}" if self.is_sparse else "dense"
        return (f"Dataset(name={self.name!r}, X={self.n_samples}x{self.n_features} {kind}, task={self.task!r}, "
                f"splits={self.splits})")


class CSRArrays(NamedTuple):
    """The arrays of a CSR matrix, held without scipy (importing scipy.sparse costs about 0.1 s of start-up): what
    the LIBSVM reader and the parsed-file cache hand the loader, which makes a scipy matrix only for sparse
    storage.  ``data`` float64, ``indices`` / ``indptr`` int32, each row's indices strictly increasing."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]

    @property
    def nnz(self) -> int:
        return int(self.data.shape[0])

    def without_zeros(self) -> "CSRArrays":
        """Explicit zeros (0.0 and -0.0) removed, as scipy's ``eliminate_zeros``."""
        keep = self.data != 0
        if keep.all():
            return self
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        indptr = np.zeros(self.shape[0] + 1, dtype=self.indptr.dtype)
        np.cumsum(np.bincount(rows[keep], minlength=self.shape[0]), out=indptr[1:])
        return CSRArrays(self.data[keep], self.indices[keep], indptr, self.shape)

    def tocsr(self):
        """A ``scipy.sparse.csr_matrix`` sharing these arrays."""
        import scipy.sparse as sp
        X = sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape, copy=False)
        X.has_sorted_indices = True
        return X

    def toarray(self) -> np.ndarray:
        """The dense C-contiguous float64 matrix: ``canonical_X(self.tocsr(), sparse=False)`` without scipy (an
        explicit -0.0 becomes 0.0, as there)."""
        a = self.without_zeros()
        out = np.zeros(self.shape, dtype=np.float64)
        out[np.repeat(np.arange(self.shape[0]), np.diff(a.indptr)), a.indices] = a.data
        return out


def canonical_X(X, *, sparse: bool | None = None):
    """Return X as float64 CSR (sorted, int32 indices, no explicit zeros) or C-contiguous dense.

    ``sparse=None`` keeps X's current kind (:class:`CSRArrays` counts as sparse: a scipy matrix is made of it);
    True/False converts.
    """
    if isinstance(X, CSRArrays):
        if sparse is False:
            return X.toarray()
        X = X.without_zeros().tocsr()
    if sparse is None:
        sparse = issparse(X)
    if sparse:
        import scipy.sparse as sp
        X = sp.csr_matrix(X, dtype=np.float64, copy=False)
        X.sum_duplicates()          # also sorts indices (a no-op, checked in O(nnz), on a canonical matrix)
        if not X.data.all():        # rewrites every stored value: only when there is a zero to remove
            X.eliminate_zeros()
        if not X.has_sorted_indices:
            X.sort_indices()
        if X.indices.dtype != np.int32 or X.indptr.dtype != np.int32:
            if X.nnz >= np.iinfo(np.int32).max:
                raise OverflowError("too many nonzeros for int32 CSR indices")
            X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)
            X.has_sorted_indices = True
        return X
    if issparse(X):
        X = X.toarray()
    return np.ascontiguousarray(X, dtype=np.float64)
