"""Transparent decompression of .xz / .bz2 / .gz data files (Python's lzma / bz2 / gzip; no external tools)."""
from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

from olk.errors import DataError

#: Accepted on-disk variants of a registry path, in lookup order.
SUFFIXES = ("", ".xz", ".bz2", ".gz")
_OPENERS = {".xz": lzma.open, ".bz2": bz2.open, ".gz": gzip.open}


def compression_of(path: str | Path) -> str:
    """'.xz', '.bz2', '.gz' or '' (by file name)."""
    suffix = Path(path).suffix.lower()
    return suffix if suffix in _OPENERS else ""


def open_decompressed(path: str | Path):
    """A binary file object yielding the uncompressed bytes of `path`."""
    opener = _OPENERS.get(compression_of(path), open)
    return opener(path, "rb")


def read_bytes(path: str | Path) -> bytes:
    """The whole uncompressed content of `path` (DataError if it is unreadable or a broken archive)."""
    try:
        with open_decompressed(path) as f:
            return f.read()
    except OSError as e:
        reason = e.strerror or str(e)
        raise DataError(f"{path}: cannot read ({reason}): the file is unreadable or a truncated/corrupt "
                        f"{compression_of(path) or 'file'}; re-fetch it with `olk datasets fetch`") from None
    except (lzma.LZMAError, EOFError, ValueError) as e:
        raise DataError(f"{path}: corrupt {compression_of(path)} archive ({e}): re-fetch it with "
                        f"`olk datasets fetch`") from None
