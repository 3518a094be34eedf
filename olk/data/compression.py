"""Transparent decompression of xz / bz2 / gzip data files (Python's lzma / bz2 / gzip; no external tools).

The compression is read from the file's first bytes (its magic number), not from its name: a gzip file saved
as ``data.txt`` is read as gzip, and a plain file named ``.gz`` as plain text.  The name decides only when the
file cannot be opened (the error then names the compression its suffix promises)."""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
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


class CountedFile:
    """The uncompressed bytes of `path` as a binary file object (``read(n)``: up to n bytes, fewer only at the
    end), with ``raw_position()``: how many bytes of the file on disk have been read so far (of a compressed file:
    its compressed bytes), against ``size``, the file's size on disk: what a progress bar of a read shows
    (:mod:`olk.data.stream`).  A gzip file is inflated by zlib itself (:class:`_Gunzip`), xz and bzip2 by Python's
    lzma and bz2; the errors are :func:`read_bytes`'s."""

    def __init__(self, path: str | Path):
        self.path = path
        try:
            self.raw = open(path, "rb")
        except OSError as e:
            raise _read_error(path, e) from None
        try:
            self.size = os.fstat(self.raw.fileno()).st_size
            kind = compression_of(path)
            self.stream: Any = (self.raw if kind == "" else _Gunzip(self.raw) if kind == ".gz"
                                else _OPENERS[kind](self.raw, "rb"))
        except BaseException:
            self.raw.close()
            raise

    def read(self, n: int = -1) -> bytes:
        try:
            return self.stream.read(n)
        except (OSError, lzma.LZMAError, EOFError, ValueError, zlib.error) as e:
            raise _read_error(self.path, e) from None

    def raw_position(self) -> int:
        return self.raw.tell()

    def close(self) -> None:
        try:
            if self.stream is not self.raw:
                self.stream.close()
        finally:
            self.raw.close()


class _Gunzip:
    """The members of a gzip file inflated by zlib (``wbits=31``: zlib reads each member's header and checks its
    CRC-32 and length), in pieces of up to the size asked for (never more: ``max_length``), with the zero padding
    between and after members skipped as Python's gzip module skips it.  The same bytes as ``gzip.open``, without
    its Python-level work per 16 KB (a quarter of the time of a read)."""

    RAW = 1 << 18                   # compressed bytes read at a time

    def __init__(self, raw):
        self.raw = raw
        self.inflate: Any = None    # the member being inflated (None: between members)
        self.tail = b""             # compressed bytes read but not yet inflated

    def read(self, n: int = -1) -> bytes:
        n = n if n >= 0 else 1 << 62
        parts: list[bytes] = []
        size = 0
        while size < n:
            data, self.tail = (self.tail, b"") if self.tail else (self.raw.read(self.RAW), b"")
            if self.inflate is None:
                if not data:
                    break                               # the end of the file, after a whole member
                data = data.lstrip(b"\0")              # padding between members
                if not data:
                    continue
                self.inflate = zlib.decompressobj(31)
            piece = self.inflate.decompress(data, n - size)
            if piece:
                parts.append(piece)
                size += len(piece)
            if self.inflate.eof:                        # the input after the member (unconsumed_tail may
                self.tail = self.inflate.unused_data    # repeat it)
                self.inflate = None
                continue
            self.tail = self.inflate.unconsumed_tail
            if not data and not piece:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
        return b"".join(parts)

    def close(self) -> None:
        pass


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
