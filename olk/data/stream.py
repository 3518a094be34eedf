"""LIBSVM text read in blocks of rows, in memory bounded by one block: what ``olk train`` and ``olk predict``
stream, and what the cache's conversion of a large file (:mod:`olk.data.loader`) writes block by block.

* :class:`Source`: a file (plain, .gz, .bz2 or .xz, by its magic bytes) or standard input (``-``), and how many
  bytes of it have been read (of a compressed file: its compressed bytes, against its size on disk);
* :func:`iter_blocks`: (X, y) per block of about ``block_bytes`` of text, X a :class:`~olk.data.dataset.CSRArrays`
  as the parser gives it (explicit zeros kept; as wide as ``width`` when given, else as the block's largest
  index); line numbers in errors are counted over the whole text;
* :func:`scan`: one read of the whole text that keeps none of its rows, only what a second, streaming read must
  know before its first row (:class:`Summary`: the rows, the stored non-zeros, the largest index, the distinct
  labels);
* :class:`ReadBar`: the progress bar of a read (tqdm, on stderr, only on a terminal): bytes of the file read of
  its size, the rows parsed and their rate, the time left.

Memory: one block of text (:data:`BLOCK_BYTES` unless given), its arrays, and at most ``line_bytes``
(:mod:`olk.limits`) of a line whose end has not come yet (a longer one is refused in one line); every large block is
given back to the system when it is freed (:func:`fix_malloc_threshold`), so the peak does not creep with the
file's length.  The errors are the
reader's own (:func:`olk.data.libsvm.read_libsvm`): one line naming the file and the line.

>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "d.libsvm")
>>> with open(p, "w") as f: _ = f.write("1 1:0.5 3:2\\n-1 2:0 # a comment\\n2 1:-1\\n")
>>> with Source(p) as s: print(scan(s))
Summary(rows=3, nnz=3, max_index=3, labels=[-1.0, 1.0, 2.0])
>>> with Source(p) as s: [(X.shape, y.tolist()) for X, y in iter_blocks(s, block_bytes=16)]
[((1, 3), [1.0]), ((1, 2), [-1.0]), ((1, 1), [2.0])]
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from olk.data.compression import CountedFile
from olk.data.dataset import CSRArrays

#: uncompressed bytes of text read and parsed at a time unless a caller gives another size (``olk train --chunk``)
BLOCK_BYTES = 4 << 20
#: distinct labels a :func:`scan` keeps; past it, ``Summary.labels`` is None (real-valued targets)
MAX_LABELS = 100_000


_MALLOC_FIXED = False


def fix_malloc_threshold() -> None:
    """Give every block of 1 MB or more back to the system as soon as it is freed (glibc's ``mallopt`` of
    ``M_MMAP_THRESHOLD``; once per process; nothing where there is no glibc).  By default glibc raises that
    threshold to the size of the largest block freed (up to 32 MB), after which blocks of a read's size come from the
    heap, whose freed memory is kept and fragments: the peak of a long read then creeps with the file's length
    (measured: 77 MB at 1M rows, 96 MB at 2M; with the threshold fixed, 80 MB at 200k rows and at 2M)."""
    global _MALLOC_FIXED
    if _MALLOC_FIXED:
        return
    _MALLOC_FIXED = True
    try:
        import ctypes
        import ctypes.util
        name = ctypes.util.find_library("c")
        if name and sys.platform.startswith("linux"):
            ctypes.CDLL(name).mallopt(-3, 1 << 20)      # M_MMAP_THRESHOLD (malloc.h): 1 MB, no more adjusting
    except (OSError, AttributeError):
        pass


class Source:
    """A LIBSVM text: a file (``path``), or standard input (``"-"``).  ``name`` is what messages call it,
    ``size`` its size on disk (None for standard input), :meth:`position` the bytes of it read so far.

    With ``prefetch`` (the default) a reader thread reads and decompresses the next pieces while the caller
    parses and learns the current one, as the C++ library's reader thread does: reading a file and inflating it
    release the GIL, so on two cores they cost little of the pass.  The thread holds at most one piece ready and
    reads the next (:meth:`read`'s size); it stops when the source is closed.  The bytes, and so every result, are
    the same."""

    AHEAD = 1                       # pieces the reader thread may hold ready (and one more being read)

    def __init__(self, path, name: str | None = None, *, prefetch: bool = True):
        fix_malloc_threshold()
        self.path = path
        if path == "-":
            self.name = name or "<stdin>"
            self._file = None
            self._stream = sys.stdin.buffer
            self.size: int | None = None
        else:
            self.name = name or str(path)
            self._file = CountedFile(path)
            self._stream = self._file
            self.size = self._file.size
        self._read = 0              # uncompressed bytes handed out
        self._pos = 0               # bytes of the source read for the pieces handed out
        self._prefetch = prefetch
        self._queue: queue.Queue | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._ended = False

    def _raw(self) -> int:
        return self._file.raw_position() if self._file is not None else self._read

    def read(self, n: int) -> bytes:
        """The next piece of text: up to `n` bytes (with ``prefetch``, the size of the first call's pieces), b""
        at the end."""
        if not self._prefetch:
            piece = self._stream.read(n)
            self._read += len(piece)
            self._pos = self._raw()
            return piece
        if self._ended:
            return b""
        if self._queue is None:
            self._start(n)
        assert self._queue is not None
        piece, pos, err = self._queue.get()
        if err is not None:
            self._ended = True
            raise err
        self._read += len(piece)
        self._pos = pos if self._file is not None else self._read
        self._ended = not piece
        return piece

    def _start(self, n: int) -> None:
        q: queue.Queue = queue.Queue(maxsize=self.AHEAD)
        self._queue = q

        def put(item) -> None:
            while not self._stop.is_set():
                try:
                    q.put(item, timeout=0.1)
                    return
                except queue.Full:
                    continue

        def run() -> None:
            try:
                while not self._stop.is_set():
                    piece = self._stream.read(n)
                    put((piece, self._file.raw_position() if self._file is not None else 0, None))
                    if not piece:
                        return
            except BaseException as e:      # noqa: BLE001 - raised again in the reading thread
                put((b"", 0, e))

        self._thread = threading.Thread(target=run, name="olk-reader", daemon=True)
        self._thread.start()

    def position(self) -> int:
        return self._pos

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)    # a file read ends at once; a blocked standard input is left (daemon)
            self._thread = None
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class Summary:
    """What :func:`scan` found: ``rows`` (data lines), ``nnz`` (stored values that are not zero), ``max_index``
    (the largest 1-based feature index: the width of the parsed matrix, at least 1), ``labels`` (the distinct
    labels, sorted; None if there are more than :data:`MAX_LABELS`)."""

    rows: int = 0
    nnz: int = 0
    max_index: int = 0
    labels: np.ndarray | None = field(default_factory=lambda: np.empty(0))

    @property
    def columns(self) -> int:
        return max(self.max_index, 1)

    def __repr__(self) -> str:
        labels = None if self.labels is None else self.labels.tolist()
        return f"Summary(rows={self.rows}, nnz={self.nnz}, max_index={self.max_index}, labels={labels})"


def iter_blocks(source: Source, *, block_bytes: int | None = None, n_features: int | None = None,
                dataset: str | None = None, width: int | None = None, tee=None, progress=None):
    """(X, y) for each block of about `block_bytes` (default :data:`BLOCK_BYTES`) of text of `source` that holds
    data rows.  X is a :class:`~olk.data.dataset.CSRArrays` of the parsed values (explicit zeros kept), ``width``
    columns wide (None: as wide as the block's largest index); y the labels.  ``n_features`` bounds the indices
    (a registry dataset's width: a larger index is an error naming it).  ``tee(piece)`` sees every byte of text
    in order; ``progress(position, rows)`` is called after every block with the bytes of the source read so far
    and the rows parsed so far."""
    from olk._core.libsvm_reader import Parser
    from olk.data.libsvm import _max_line, _too_long, check_width, read_libsvm

    block_bytes = block_bytes or BLOCK_BYTES
    max_line = _max_line()
    src = source.name
    state = {"parser": Parser(n_features, 1, max_line), "first": 1}   # `first`: the number of the parser's line 1
    pending: list = []              # the parsed rows of this block: (data, indices, indptr, y, columns) parts
    rows = 0

    def line_no() -> int:           # the number of the next line to parse
        return state["first"] + state["parser"].lines

    def feed(*segments) -> None:
        """Parse consecutive (buf, start, end) segments of text (whole lines) as one block."""
        parser = state["parser"]
        before = line_no()
        for buf, a, b in segments:
            parser.feed(buf, a, b)
            if parser.error_line:
                break
        if not parser.error_line:
            if parser.rows:
                pending.append(parser.take())
            return
        # the parser stopped at an invalid line: the reader's one-line error for this text, numbered from its first
        # line; should the reference reader accept the text (it decides), its rows stand and a new parser goes on
        text = b"".join(bytes(memoryview(buf)[a:b]) for buf, a, b in segments)
        X, y = read_libsvm(text, src, n_features=n_features, dataset=dataset, first_line=before)
        pending.append((np.asarray(X.data, dtype=np.float64), np.asarray(X.indices, dtype=np.int32),
                        np.asarray(X.indptr), np.asarray(y, dtype=np.float64), int(X.shape[1])))
        nxt = before + text.count(b"\n") + (0 if text.endswith(b"\n") else 1)
        state["parser"], state["first"] = Parser(n_features, nxt, max_line), nxt

    def blocks():
        nonlocal rows
        parts = pending[:]
        pending.clear()
        for data, indices, indptr, y, ncols in parts:
            check_width(ncols, src)             # the whole read's width limit, before a row of that width is made
            if width is not None and ncols > width:
                from olk.errors import DataError
                raise DataError(f"{src}: a feature index up to {ncols} where the first read found at most {width}: "
                                f"the file changed while it was read; run the command again")
            rows += y.shape[0]
            yield CSRArrays(data, indices, indptr, (int(y.shape[0]), int(ncols if width is None else width))), y

    carry = b""
    while True:
        piece = source.read(block_bytes)
        if tee is not None and piece:
            tee(piece)
        if not piece:
            if carry:
                feed((carry, 0, len(carry)))    # the last line, without its newline
            yield from blocks()
            if progress is not None:
                progress(source.position(), rows)
            return
        nl = piece.rfind(b"\n")
        if nl < 0:
            carry += piece
            if len(carry) > max_line:           # memory holds at most max_line bytes of a line
                raise _too_long(src, line_no())
            continue
        if carry:                               # the line begun in the last piece, up to its newline, first
            start = piece.find(b"\n") + 1
            head = carry + piece[:start]
            feed((head, 0, len(head)), (piece, start, nl + 1))
        else:
            feed((piece, 0, nl + 1))
        carry = piece[nl + 1:]
        if len(carry) > max_line:
            raise _too_long(src, line_no())
        yield from blocks()
        if progress is not None:
            progress(source.position(), rows)


def scan(source: Source, *, labels: bool = True, max_labels: int = MAX_LABELS, n_features: int | None = None,
         dataset: str | None = None, block_bytes: int | None = None, tee=None, progress=None) -> Summary:
    """Read all of `source` once, keeping only its :class:`Summary` (``labels=False``: no labels kept; ``labels``
    None past `max_labels` distinct ones).  Every line is checked, so an invalid one is reported before a second
    read begins.  The arguments are :func:`iter_blocks`'s."""
    s = Summary()
    found: np.ndarray | None = np.empty(0) if labels else None
    for X, y in iter_blocks(source, block_bytes=block_bytes, n_features=n_features, dataset=dataset, tee=tee,
                            progress=progress):
        s.rows += int(y.shape[0])
        s.nnz += int(np.count_nonzero(X.data))
        if X.indices.shape[0]:
            s.max_index = max(s.max_index, int(X.indices.max()) + 1)
        if found is not None:
            found = np.union1d(found, y)
            if found.shape[0] > max_labels:
                found = None
    s.labels = found
    if n_features is not None:
        s.max_index = max(s.max_index, int(n_features))
    return s


class ReadBar:
    """The progress bar of one read of a :class:`Source` (a ``progress`` callback of :func:`iter_blocks`): bytes
    read of the file's size on disk (compressed bytes for a compressed file), the rows parsed so far and their
    rate, elapsed and left.  Shown only when `show` and stderr is a terminal (tqdm is imported only then), on
    stderr, cleared at the end."""

    MININTERVAL = 0.5               # seconds between two redraws at most

    def __init__(self, desc: str, total: int | None, show: bool):
        self.bar = None
        self.pos = 0
        self.t0 = time.perf_counter()
        if show and sys.stderr.isatty():
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, desc=desc, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                            leave=False, mininterval=self.MININTERVAL)

    def __call__(self, position: int, rows: int) -> None:
        if self.bar is None:
            return
        elapsed = time.perf_counter() - self.t0
        rate = f", {rows / elapsed:,.0f} rows/s" if elapsed > 0 else ""
        self.bar.set_postfix_str(f"{rows:,} rows{rate}", refresh=False)
        self.bar.update(position - self.pos)
        self.pos = position

    def close(self) -> None:
        if self.bar is not None:
            self.bar.refresh()          # the last rows (the reader thread may have read the last bytes before)
            self.bar.close()
            self.bar = None

    def __enter__(self) -> "ReadBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
