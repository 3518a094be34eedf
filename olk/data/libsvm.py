"""Read LIBSVM / SVMlight text with scikit-learn, turning its errors into one-line messages with a line number.

Parsing is :func:`sklearn.datasets.load_svmlight_file` (1-based indices, explicit ``n_features``); only when it
fails is the text scanned line by line to say *where* and *what* is wrong.
"""
from __future__ import annotations

import io

import numpy as np

from olk.errors import DataError

_EXPECTED = "expected '<label> <index>:<value> ...'"


def read_libsvm(data: bytes, src: str, *, n_features: int | None = None, dataset: str | None = None):
    """Parse LIBSVM bytes -> (CSR float64 X, float64 y).  `src` names the file in messages."""
    from sklearn.datasets import load_svmlight_file   # lazy: importing scikit-learn takes ~1 s

    try:
        X, y = load_svmlight_file(io.BytesIO(data), n_features=n_features, dtype=np.float64, zero_based=False)
    except (ValueError, TypeError, OverflowError) as e:
        raise diagnose(data, src, n_features=n_features, dataset=dataset) or DataError(
            f"{src}: cannot parse as LIBSVM text ({e}): each line must be "
            f"'<label> <index>:<value> ...' with 1-based increasing indices") from None
    return X, y


def diagnose(data: bytes, src: str, *, n_features: int | None = None, dataset: str | None = None) -> DataError | None:
    """The DataError for the first offending line of `data`, or None if every line looks valid."""
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.split(b"#", 1)[0].strip()
        if not line:
            continue
        shown = raw.decode("utf-8", "replace").strip()[:60]
        tokens = line.split()
        if not _is_float(tokens[0]):
            return _malformed(src, lineno, shown)
        last = 0
        for tok in tokens[1:]:
            key, sep, value = tok.partition(b":")
            if not sep or not value or b":" in value:
                return _malformed(src, lineno, shown)
            if key == b"qid":
                if not value.isdigit():
                    return _malformed(src, lineno, shown)
                continue
            if not key.lstrip(b"-").isdigit() or not _is_float(value):
                return _malformed(src, lineno, shown)
            idx = int(key)
            if idx < 1:
                return DataError(f"{src}:{lineno}: feature index {idx} is invalid: LIBSVM indices start at 1 "
                                 f"(convert a 0-based file by adding 1 to every index), got '{shown}'")
            if idx <= last:
                return DataError(f"{src}:{lineno}: feature indices must be strictly increasing "
                                 f"({idx} after {last}): sort each line's index:value pairs, got '{shown}'")
            if n_features is not None and idx > n_features:
                owner = f"dataset '{dataset}'" if dataset else "the dataset"
                return DataError(f"{src}:{lineno}: feature index {idx} is beyond the declared n_features="
                                 f"{n_features} of {owner}: wrong or corrupt file; re-fetch it, or correct "
                                 f"n_features in the registry")
            last = idx
    return None


def _malformed(src: str, lineno: int, shown: str) -> DataError:
    return DataError(f"{src}:{lineno}: malformed LIBSVM line: {_EXPECTED}, got '{shown}'")


def _is_float(tok: bytes) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True
