"""Transparent decompression of xz / bz2 / gzip data files (Python's lzma / bz2 / gzip; no external tools).

The compression is read from the file's first bytes (its magic number), not from its name: a gzip file saved
as ``data.txt`` is read as gzip, and a plain file named ``.gz`` as plain text.  The name decides only when the
file cannot be opened (the error then names the compression its suffix promises)."""
from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path
from typing import Any

from olk.errors import DataError

#: Accepted on-disk variants of a registry path, in lookup order.
SUFFIXES = ("", ".xz", ".bz2", ".gz")
_OPENERS: dict[str, Any] = {".xz": lzma.open, ".bz2": bz2.open, ".gz": gzip.open}


#: the first bytes of each format (xz: the stream header magic; bzip2: "BZh" + a block size digit; gzip: 1f 8b)
_MAGIC = ((b"\xfd7zXZ\x00", ".xz"), (b"BZh", ".bz2"), (b"\x1f\x8b", ".gz"))


def compression_of(path: str | Path) -> str:
    """'.xz', '.bz2', '.gz' or '': by the file's magic bytes, by its suffix when it cannot be read.

    >>> import gzip, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "data.txt")
    >>> with gzip.open(p, "wb") as f: _ = f.write(b"1 1:0.5\\n")
    >>> compression_of(p)
    '.gz'
    """
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except OSError:
        suffix = Path(path).suffix.lower()
        return suffix if suffix in _OPENERS else ""
    for magic, kind in _MAGIC:
        if head.startswith(magic) and (kind != ".bz2" or head[3:4].isdigit()):
            return kind
    return ""


def open_decompressed(path: str | Path):
    """A binary file object yielding the uncompressed bytes of `path`."""
    opener = _OPENERS.get(compression_of(path), open)
    return opener(path, "rb")


def read_bytes(path: str | Path) -> bytes:
    """The whole uncompressed content of `path` (DataError if it is unreadable or a broken archive)."""
    try:
        with open_decompressed(path) as f:
            return f.read()
    except (OSError, lzma.LZMAError, EOFError, ValueError) as e:
        raise _read_error(path, e) from None


def iter_decompressed(path: str | Path, size: int = 1 << 20):
    """The uncompressed content of `path` in pieces of at most `size` bytes (the errors of :func:`read_bytes`)."""
    try:
        with open_decompressed(path) as f:
            while piece := f.read(size):
                yield piece
    except (OSError, lzma.LZMAError, EOFError, ValueError) as e:
        raise _read_error(path, e) from None


def _read_error(path, e: Exception) -> DataError:
    if isinstance(e, OSError) and not isinstance(e, lzma.LZMAError):
        reason = e.strerror or str(e)
        return DataError(f"{path}: cannot read ({reason}): the file is unreadable or a truncated/corrupt "
                         f"{compression_of(path) or 'file'}; re-fetch it with `olk datasets fetch`")
    return DataError(f"{path}: corrupt {compression_of(path)} archive ({e}): re-fetch it with `olk datasets fetch`")
