"""Read LIBSVM / SVMlight text at C speed, with one-line errors that name the file and the line.

Parsing is olk's own C parser (:mod:`olk._core.libsvm_reader`): it accepts exactly what the reference reader
accepts -- scikit-learn's :func:`~sklearn.datasets.load_svmlight_file` (1-based indices, float64), then every
label and value finite -- and returns the same numbers bit for bit (the same ``data``, ``y``, shape and index
values; the index arrays are int32, the dtype every load uses).  ``tests/test_libsvm_reader.py`` compares the two
on every LIBSVM file of the shared datasets and on random and mutated bytes.

When the parser stops at an invalid line, :func:`diagnose` scans the text to say *where* and *what* is wrong; if
it finds nothing to name, the reference reader (:func:`read_libsvm_reference`, importing scikit-learn) decides
and words the message, so every error is the one the reference reader gives.

* :func:`read_libsvm`: bytes -> (CSR X, y);
* :func:`read_libsvm_file`: a file (plain or compressed) read in chunks: memory holds the arrays and one chunk of
  text, never the whole text; ``tee`` sees every uncompressed byte (olk hashes the file while parsing it);
* :func:`iter_libsvm_blocks`: (X, y) per block of lines of a stream (``olk predict MODEL -``): bounded memory.

A line longer than the ``line_bytes`` limit (:mod:`olk.limits`, 16 MB unless raised) is refused in one line
naming the file and the line as soon as that many bytes of it have been read: memory holds at most one such line,
however long the line (or an endless stream without a newline) is.
"""
from __future__ import annotations

import io
import re

import numpy as np

from olk.errors import DataError, excerpt

_EXPECTED = "expected '<label> <index>:<value> ...'"
_MAX_INDEX = 2**31 - 1          # the largest 1-based index the parser takes (0-based CSR column indices are int32)
_INDEX = re.compile(rb"[-+]?[0-9]+")
CHUNK_BYTES = 1 << 20           # uncompressed bytes read and parsed at a time by read_libsvm_file


def read_libsvm(data, src: str, *, n_features: int | None = None, dataset: str | None = None,
                first_line: int = 1):
    """Parse LIBSVM bytes -> (CSR float64 X, float64 y).  `src` names the file in messages, whose line numbers
    start at `first_line` (a chunk of a longer stream)."""
    from olk._core.libsvm_reader import Parser

    parser = Parser(n_features, first_line, _max_line())
    parser.feed(data)
    if parser.error_line:
        if parser.too_long:
            raise _too_long(src, parser.error_line)
        return _explain(bytes(data), src, n_features=n_features, dataset=dataset, first_line=first_line)
    return _csr(parser.take(), src=src)


def read_libsvm_file(path, src: str | None = None, *, n_features: int | None = None, dataset: str | None = None,
                     tee=None, before_error=None, chunk_bytes: int = CHUNK_BYTES, arrays: bool = False):
    """Parse a LIBSVM file (plain, .xz, .bz2 or .gz: by its magic bytes) -> (CSR float64 X, float64 y), reading
    `chunk_bytes` of uncompressed text at a time.  ``tee(piece)`` is called with every piece of the uncompressed
    content, in order; past an invalid line too when ``before_error`` is given (the whole file is read, so a hash
    of it is complete), else reading stops there.  On an invalid line ``before_error()`` is called first (e.g. to
    report a checksum mismatch instead), then the file is read again, in chunks, to name the line
    (:func:`diagnose`).  With ``arrays``, X is a
    :class:`~olk.data.dataset.CSRArrays` (no scipy import)."""
    from olk._core.libsvm_reader import Parser
    from olk.data.compression import iter_decompressed

    src = str(path) if src is None else src
    max_line = _max_line()
    parser = Parser(n_features, 1, max_line)
    failed = False
    long_line = 0                   # the number of a line found longer than max_line before its end was read
    pending: list[bytes] = []       # the text after the last newline read so far
    open_bytes = 0                  # its length
    for piece in iter_decompressed(path, chunk_bytes):
        if failed and before_error is None:
            break                   # nothing wants the rest (a hash of the whole file is for before_error)
        if tee is not None:
            tee(piece)
        if failed:
            continue
        nl = piece.rfind(b"\n")
        if nl < 0:
            pending.append(piece)
            open_bytes += len(piece)
            if open_bytes > max_line:         # memory holds at most max_line bytes of a line
                failed, long_line, pending = True, parser.lines + 1, []
            continue
        buf = b"".join((*pending, piece)) if pending else piece
        cut = len(buf) - (len(piece) - nl - 1)
        parser.feed(buf, 0, cut)
        failed = bool(parser.error_line)
        pending = [piece[nl + 1:]] if nl + 1 < len(piece) else []
        open_bytes = len(piece) - nl - 1
    if pending and not failed:
        parser.feed(b"".join(pending))
        failed = bool(parser.error_line)
    if failed:
        if before_error is not None:
            before_error()
        if long_line or parser.too_long:
            raise _too_long(src, long_line or parser.error_line)
        first = 1
        for block in _line_blocks(iter_decompressed(path, chunk_bytes), max_line):
            if block is None:               # a line longer than max_line: the next one
                raise _too_long(src, first)
            err = diagnose(block, src, n_features=n_features, dataset=dataset, first_line=first)
            if err is not None:
                raise err
            first += block.count(b"\n")
        from olk.data.compression import read_bytes
        X, y = _explain(read_bytes(path), src, n_features=n_features, dataset=dataset, diagnosed=True)
        return _csr(_parts(X, y), arrays, src)
    return _csr(parser.take(), arrays, src)


def iter_libsvm_blocks(stream, src: str, *, lines: int = 20_000, read_size: int = 1 << 16,
                       block_bytes: int = CHUNK_BYTES):
    """(X, y) for each block of at most `lines` lines and about `block_bytes` bytes of the binary `stream` (blocks
    without data rows are skipped), as :func:`read_libsvm` of that block with line numbers counted over the whole
    stream.  Memory: one block of text and its arrays, and at most ``line_bytes`` (:mod:`olk.limits`) of a line
    whose end has not come yet: a longer one, or an endless stream without a newline, is refused in one line.
    Each block's X is as wide as its largest index."""
    from olk._core.libsvm_reader import line_ends

    max_line = _max_line()
    read = getattr(stream, "read1", None) or stream.read
    pieces: list[bytes] = []
    size = count = tail = 0         # bytes held, newlines among them, bytes after the last one
    first = 1
    while True:
        piece = read(read_size)
        if piece:
            pieces.append(piece)
            size += len(piece)
            n = piece.count(b"\n")
            count += n
            tail = tail + len(piece) if n == 0 else len(piece) - piece.rfind(b"\n") - 1
            if tail > max_line:
                raise _too_long(src, first + count)
            if count < lines and size < block_bytes:
                continue
        if not pieces:
            return
        buf = b"".join(pieces)
        pos, whole = 0, len(buf) - tail         # [0, whole): complete lines
        while pos < whole:
            end, found = line_ends(buf, pos, lines)
            if end < 0:                         # fewer than `lines` lines left: a block of them if the buffer is
                if piece and size < block_bytes:    # full (or the stream ended), else wait for more
                    break
                end = whole
            X, y = read_libsvm(memoryview(buf)[pos:end], src, first_line=first)
            if X.shape[0]:
                yield X, y
            first += found
            pos = end
        if not piece:                           # the end of the stream: its last line may lack a newline
            if pos < len(buf):
                X, y = read_libsvm(memoryview(buf)[pos:], src, first_line=first)
                if X.shape[0]:
                    yield X, y
            return
        rest = buf[pos:]
        pieces, size, count = ([rest] if rest else []), len(rest), rest.count(b"\n")


def read_libsvm_reference(data: bytes, src: str, *, n_features: int | None = None, dataset: str | None = None,
                          first_line: int = 1):
    """The reference reader: :func:`sklearn.datasets.load_svmlight_file`, its errors turned into the one-line
    messages of :func:`diagnose`.  :func:`read_libsvm` gives the same arrays (index arrays int64 here) and the
    same errors, much faster; this one decides only where :func:`diagnose` finds nothing to name."""
    from sklearn.datasets import load_svmlight_file  # lazy: importing scikit-learn takes ~1 s

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


def _explain(data: bytes, src: str, *, n_features, dataset, first_line: int = 1, diagnosed: bool = False):
    """Raise the DataError for text the parser stopped on: :func:`diagnose`'s, else the reference reader's (which
    also returns the arrays, should it accept the text: the reference decides)."""
    if not diagnosed:
        err = diagnose(data, src, n_features=n_features, dataset=dataset, first_line=first_line)
        if err is not None:
            raise err
    return read_libsvm_reference(data, src, n_features=n_features, dataset=dataset, first_line=first_line)


def _line_blocks(pieces, max_line: int):
    """The pieces of a text regrouped at line ends: every block but the last ends with a newline.  None in place
    of a block whose last line is longer than `max_line` (after the blocks before it; then nothing more)."""
    pending: list[bytes] = []
    held = 0
    for piece in pieces:
        nl = piece.rfind(b"\n")
        if nl < 0:
            pending.append(piece)
            held += len(piece)
            if held > max_line:
                yield None
                return
            continue
        yield b"".join((*pending, piece[:nl + 1]))
        pending = [piece[nl + 1:]]
        held = len(pending[0])
    rest = b"".join(pending)
    if rest:
        yield rest


def _max_line() -> int:
    from olk.limits import LIMITS
    return LIMITS["line_bytes"].value()


def check_width(n_features: int, src: str) -> None:
    """Rows `n_features` wide are refused in one line naming `src` when one dense float64 row of them (8 bytes a
    feature: every learner holds at least one, as scratch for sparse rows) is larger than the ``dense_row_bytes``
    limit -- a 30-byte file with feature index 600,000,000 needs 4.5 GB for it."""
    from olk.limits import LIMITS
    from olk.units import fmt
    lim = LIMITS["dense_row_bytes"]
    if 8 * n_features > lim.value():
        raise DataError(f"{src}: its largest feature index is {n_features:,}: one dense row of that width, which "
                        f"every learner holds, is {fmt(8 * n_features)}, " + lim.exceeded("more than")
                        + "; is that index a typo?")


def _too_long(src: str, line: int) -> DataError:
    from olk.limits import LIMITS
    return DataError(f"{src}:{line}: the line is " + LIMITS["line_bytes"].exceeded("longer than")
                     + "; is this a LIBSVM text file?")


def _csr(parts, arrays: bool = False, src: str = "<data>"):
    """The parser's arrays as (X, y): X a CSR matrix (indices sorted: each line's are strictly increasing), or with
    ``arrays`` a :class:`~olk.data.dataset.CSRArrays`.  Data wider than the ``dense_row_bytes`` limit (one dense
    float64 row of their width, which every learner holds) are refused in one line naming `src`, before any
    array of that width is made."""
    from olk.data.dataset import CSRArrays

    data, indices, indptr, y, ncols = parts
    check_width(ncols, src)
    X = CSRArrays(data, indices, indptr, (y.shape[0], ncols))
    return (X if arrays else X.tocsr()), y


def _parts(X, y):
    """A scipy CSR matrix (the reference reader's) as the parser's arrays."""
    return (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32), y, X.shape[1])


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
            digits = key.lstrip(b"+-").lstrip(b"0")
            if len(digits) > len(str(_MAX_INDEX)) or int(key) > _MAX_INDEX:   # int() of 5,000 digits: ValueError
                return DataError(f"{src}:{lineno}: feature index {excerpt(key)[1:-1]} is too large (at most "
                                 f"{_MAX_INDEX}): corrupt line? got {shown}")
            idx = int(key)
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
