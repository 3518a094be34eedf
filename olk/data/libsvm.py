"""Read LIBSVM / SVMlight text with scikit-learn, turning its errors into one-line messages with a line number.

Parsing is :func:`sklearn.datasets.load_svmlight_file` (1-based indices, explicit ``n_features``); only when it
fails is the text scanned line by line to say *where* and *what* is wrong.
"""
from __future__ import annotations

import io
import re

import numpy as np

from olk.errors import DataError, excerpt

_EXPECTED = "expected '<label> <index>:<value> ...'"
_MAX_INDEX = 2**31 - 2          # CSR column indices are int32
_INDEX = re.compile(rb"[-+]?[0-9]+")


def read_libsvm(data: bytes, src: str, *, n_features: int | None = None, dataset: str | None = None,
                first_line: int = 1):
    """Parse LIBSVM bytes -> (CSR float64 X, float64 y).  `src` names the file in messages, whose line numbers
    start at `first_line` (a chunk of a longer stream)."""
    from sklearn.datasets import load_svmlight_file   # lazy: importing scikit-learn takes ~1 s

    try:
        X, y = load_svmlight_file(io.BytesIO(data), n_features=n_features, dtype=np.float64, zero_based=False)
    except (ValueError, TypeError, OverflowError) as e:
        raise diagnose(data, src, n_features=n_features, dataset=dataset, first_line=first_line) or DataError(
            f"{src}: cannot parse as LIBSVM text ({excerpt(' '.join(str(e).split()), 80)[1:-1]}): each line must "
            f"be '<label> <index>:<value> ...' with 1-based increasing indices") from None
    if not (np.isfinite(y).all() and np.isfinite(X.data).all()):      # scikit-learn reads nan / inf / 1e999
        raise diagnose(data, src, n_features=n_features, dataset=dataset, first_line=first_line) or DataError(
            f"{src}: a label or value is not a finite number (nan, inf or beyond the float range): fix or remove "
            f"that line")
    return X, y


def diagnose(data: bytes, src: str, *, n_features: int | None = None, dataset: str | None = None,
             first_line: int = 1) -> DataError | None:
    """The DataError for the first offending line of `data` (numbered from `first_line`), or None if every line
    looks valid."""
    for lineno, raw in enumerate(data.split(b"\n"), start=first_line):
        line = raw.split(b"#", 1)[0].strip()
        if not line:
            continue
        shown = excerpt(raw.strip())
        tokens = line.split()
        if not _is_float(tokens[0]):
            return _malformed(src, lineno, shown)
        if not _is_finite(tokens[0]):
            return DataError(f"{src}:{lineno}: label {excerpt(tokens[0])} is not a finite number: "
                             f"fix or remove that line, got {shown}")
        last = 0
        for pos, tok in enumerate(tokens[1:]):
            key, sep, value = tok.partition(b":")
            if not sep or not value or b":" in value:
                return _malformed(src, lineno, shown)
            if key == b"qid":
                if not value.isdigit() or pos > 0:      # scikit-learn wants qid right after the label
                    return _malformed(src, lineno, shown)
                continue
            if not _INDEX.fullmatch(key) or not _is_float(value):
                return _malformed(src, lineno, shown)
            idx = int(key)
            if idx > _MAX_INDEX:
                return DataError(f"{src}:{lineno}: feature index {excerpt(key)[1:-1]} is too large (at most "
                                 f"{_MAX_INDEX}): corrupt line? got {shown}")
            if not _is_finite(value):
                return DataError(f"{src}:{lineno}: feature {idx} has the value {excerpt(value)}, not a finite "
                                 f"number: fix or remove that line, got {shown}")
            if idx < 1:
                return DataError(f"{src}:{lineno}: feature index {idx} is invalid: LIBSVM indices start at 1 "
                                 f"(convert a 0-based file by adding 1 to every index), got {shown}")
            if idx <= last:
                return DataError(f"{src}:{lineno}: feature indices must be strictly increasing "
                                 f"({idx} after {last}): sort each line's index:value pairs, got {shown}")
            if n_features is not None and idx > n_features:
                owner = f"dataset '{dataset}'" if dataset else "the dataset"
                return DataError(f"{src}:{lineno}: feature index {idx} is beyond the declared n_features="
                                 f"{n_features} of {owner}: wrong or corrupt file; re-fetch it, or correct "
                                 f"n_features in the registry")
            last = idx
    return None


def _malformed(src: str, lineno: int, shown: str) -> DataError:
    return DataError(f"{src}:{lineno}: malformed LIBSVM line: {_EXPECTED}, got {shown}")


def _is_finite(tok: bytes) -> bool:
    return bool(np.isfinite(float(tok)))


def _is_float(tok: bytes) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True
