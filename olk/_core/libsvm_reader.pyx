# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""LIBSVM / SVMlight text -> CSR arrays at C speed: the parser behind :func:`olk.data.libsvm.read_libsvm`.

It accepts exactly what olk's reference reader accepts (scikit-learn's ``load_svmlight_file`` with
``zero_based=False``, then every label and value finite) and gives the same numbers bit for bit:

* lines end at ``\\n``; a line is cut at its first ``#`` unless a NUL byte comes first (scikit-learn looks for
  the ``#`` with C's ``strchr``); tokens are separated by ASCII whitespace (space, ``\\t``, ``\\r``, ``\\v``,
  ``\\f``), so CRLF files, trailing whitespace, blank and comment-only lines are fine;
* the first token is the label, parsed as Python's ``float()`` parses it; a second token starting with ``qid``
  must hold a ``:`` and is skipped (its value is never read);
* every other token is ``index:value``: the index as Python's ``int()`` (sign, leading zeros and ``_`` between
  digits allowed), 1 to 2**31 - 1, strictly increasing along the line and at most ``n_features`` when given;
  the value as ``float()``;
* a label or value that is nan, inf or beyond the float range is an error (olk refuses non-finite input).

Numbers are converted as ``float()`` converts them: a decimal with at most 15 significant digits and a power of
ten within 1e-22..1e22 is one exact product or quotient of two exact doubles (Clinger's fast path: the correctly
rounded result, the one ``float()`` gives); any other number goes through ``PyOS_string_to_double``, the
function ``float()`` itself calls.  Everything else (a missing label, a token without ``:``, a bad number, a
repeated or decreasing index, ...) stops the parser at that line; the caller then names the problem
(:func:`olk.data.libsvm.diagnose`).  The parser only decides *whether* a line is valid and what it holds.

A :class:`Parser` accumulates rows over any number of :meth:`Parser.feed` calls (a file read in chunks, with
bounded memory: the arrays grow geometrically, and at most the current chunk of text is held) until
:meth:`Parser.take` hands the arrays over.
"""
import numpy as np
cimport numpy as cnp
from cpython.object cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memchr, memcpy

cdef extern from "Python.h":
    double PyOS_string_to_double(const char* s, char** endptr, PyObject* overflow_exception) except? -1.0

cnp.import_array()

cdef double[23] _POW10
cdef int _k
_POW10[0] = 1.0
for _k in range(1, 23):
    _POW10[_k] = _POW10[_k - 1] * 10.0          # exact: every power of ten up to 1e22 is a double

cdef enum:
    _INT_MAX = 2147483647
    _LOCAL = 128                                 # tokens up to this length are converted on the stack


cdef inline bint _space(unsigned char c) noexcept nogil:
    """Python's bytes.split() whitespace (Py_ISSPACE): space, \\t, \\n, \\v, \\f, \\r."""
    return c == 32 or (9 <= c <= 13)


cdef inline bint _digit(unsigned char c) noexcept nogil:
    return 48 <= c <= 57


cdef bint _underscores_ok(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """CPython's rule for '_' in float() and int() text: only between two digits."""
    cdef Py_ssize_t i
    cdef unsigned char prev = 0, c
    for i in range(n):
        c = s[i]
        if c == 95:
            if not _digit(prev):
                return False
        elif prev == 95 and not _digit(c):
            return False
        prev = c
    return prev != 95


cdef int _slow_float(const unsigned char* s, Py_ssize_t n, double* out) except -1:
    """float() of a validated decimal token (no '_'): CPython's own conversion (_Py_dg_strtod)."""
    cdef char local[_LOCAL + 1]
    cdef char* buf = &local[0]
    cdef char* end = NULL
    cdef double v
    if n > _LOCAL:
        buf = <char*>malloc(n + 1)
        if buf == NULL:
            raise MemoryError()
    try:
        memcpy(buf, s, n)
        buf[n] = 0
        v = PyOS_string_to_double(buf, &end, NULL)      # overflow -> +-inf, no exception
        if end != buf + n:
            return 1
        out[0] = v
        return 0
    finally:
        if buf != &local[0]:
            free(buf)


cdef int _parse_float(const unsigned char* s, Py_ssize_t n, double* out) except -1:
    """0 and *out = float(token) if the token is a finite number as float() reads it, else 1 (not a number, or
    nan / inf / out of range)."""
    cdef char local[_LOCAL + 1]
    cdef char* clean
    cdef Py_ssize_t i = 0, j, start, nsig = 0, frac = 0, ndig = 0
    cdef bint neg = False, any_us = False, eneg = False
    cdef uint64_t m = 0
    cdef long long e = 0, e10
    cdef unsigned char c
    cdef double v
    if n == 0:
        return 1
    for j in range(n):
        if s[j] == 95:
            any_us = True
            break
    if any_us:                       # '_' between digits: float() removes them, so do we
        if not _underscores_ok(s, n):
            return 1
        clean = &local[0] if n <= _LOCAL else <char*>malloc(n + 1)
        if clean == NULL:
            raise MemoryError()
        try:
            j = 0
            for i in range(n):
                if s[i] != 95:
                    clean[j] = s[i]
                    j += 1
            return _parse_float(<const unsigned char*>clean, j, out)
        finally:
            if clean != &local[0]:
                free(clean)
    c = s[0]
    if c == 43 or c == 45:           # + -
        neg = c == 45
        i = 1
    start = i
    while i < n and _digit(s[i]):
        if nsig or s[i] != 48:
            if nsig < 19:
                m = m * 10 + (s[i] - 48)
            nsig += 1
        ndig += 1
        i += 1
    if i < n and s[i] == 46:         # .
        i += 1
        while i < n and _digit(s[i]):
            if nsig or s[i] != 48:
                if nsig < 19:
                    m = m * 10 + (s[i] - 48)
                    frac += 1
                nsig += 1
            else:
                frac += 1
            ndig += 1
            i += 1
    if ndig == 0:
        return 1                     # no digit: nan, inf, or not a number -- all refused
    if i < n and (s[i] == 101 or s[i] == 69):      # e E
        i += 1
        if i < n and (s[i] == 43 or s[i] == 45):
            eneg = s[i] == 45
            i += 1
        if i == n or not _digit(s[i]):
            return 1
        while i < n and _digit(s[i]):
            if e < 100000:
                e = e * 10 + (s[i] - 48)
            i += 1
        if eneg:
            e = -e
    if i != n:
        return 1
    e10 = e - frac
    if nsig <= 15 and -22 <= e10 <= 22:            # Clinger's fast path: one correctly rounded operation
        v = <double>m
        if e10 >= 0:
            v = v * _POW10[e10]
        else:
            v = v / _POW10[-e10]
        out[0] = -v if neg else v
        return 0
    if _slow_float(s, n, out):
        return 1
    v = out[0]
    return 0 if (v == v and v - v == 0.0) else 1   # finite


cdef inline long long _parse_index(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """int(token) if it is 1..2**31-1, else -1 (not an integer, zero, negative, or too large for a C int)."""
    cdef Py_ssize_t i = 0
    cdef long long v = 0
    cdef bint neg = False, digits = False
    cdef unsigned char c
    if n and (s[0] == 43 or s[0] == 45):
        neg = s[0] == 45
        i = 1
    if i < n and s[i] == 95:
        return -1
    while i < n:
        c = s[i]
        if _digit(c):
            if v <= _INT_MAX:
                v = v * 10 + (c - 48)
            digits = True
        elif c == 95:
            if i + 1 >= n or not _digit(s[i + 1]) or not _digit(s[i - 1]):
                return -1
        else:
            return -1
        i += 1
    if not digits or neg or v == 0 or v > _INT_MAX:
        return -1
    return v


cdef class Parser:
    """Accumulates the rows of LIBSVM text fed to it in pieces of whole lines.

    ``n_features`` (0: none) bounds the indices, ``max_line`` (0: none) the bytes of a line (its newline not
    counted).  After a :meth:`feed` that met an invalid line, ``error_line`` is that line's number (counted from
    ``first_line``; ``too_long`` says it is longer than ``max_line``) and the parser takes no more text."""

    cdef readonly Py_ssize_t lines          # lines consumed so far (blank and comment lines included)
    cdef readonly Py_ssize_t error_line     # 0: no error
    cdef readonly long long max_index       # the largest 1-based index seen
    cdef readonly Py_ssize_t rows, nnz
    cdef readonly bint too_long             # the invalid line is longer than max_line bytes
    cdef Py_ssize_t first_line, max_line
    cdef long long n_features
    cdef object _data, _indices, _indptr, _y
    cdef double* data
    cdef int32_t* indices
    cdef int64_t* indptr
    cdef double* y

    def __init__(self, n_features=None, first_line=1, max_line=0):
        self.n_features = 0 if n_features is None else int(n_features)
        self.first_line = first_line
        self.max_line = max_line
        self._reset()

    cdef _reset(self):
        self.rows = self.nnz = 0
        self.max_index = 0
        self._data = np.empty(0, dtype=np.float64)
        self._indices = np.empty(0, dtype=np.int32)
        self._indptr = np.zeros(1, dtype=np.int64)
        self._y = np.empty(0, dtype=np.float64)
        self._pointers()

    cdef _pointers(self):
        self.data = <double*>cnp.PyArray_DATA(self._data)
        self.indices = <int32_t*>cnp.PyArray_DATA(self._indices)
        self.indptr = <int64_t*>cnp.PyArray_DATA(self._indptr)
        self.y = <double*>cnp.PyArray_DATA(self._y)

    cdef _reserve(self, Py_ssize_t more_rows, Py_ssize_t more_nnz):
        """Room for this many more rows and stored values (grown by at least half: amortised O(1))."""
        cdef Py_ssize_t need
        need = self.rows + more_rows
        if need > self._y.shape[0]:
            need = max(need, self._y.shape[0] + self._y.shape[0] // 2)
            self._y.resize(need, refcheck=False)
            self._indptr.resize(need + 1, refcheck=False)
        need = self.nnz + more_nnz
        if need > self._data.shape[0]:
            need = max(need, self._data.shape[0] + self._data.shape[0] // 2)
            self._data.resize(need, refcheck=False)
            self._indices.resize(need, refcheck=False)
        self._pointers()

    def feed(self, const unsigned char[::1] buf not None, Py_ssize_t start=0, Py_ssize_t end=-1,
             Py_ssize_t max_lines=-1):
        """Parse the lines of ``buf[start:end]`` (the last one may lack its newline: pass whole lines only),
        at most ``max_lines`` of them (-1: all).  Returns the offset where parsing stopped: ``end``, the start
        of the first line not parsed, or the start of the invalid line (then ``error_line`` is set)."""
        cdef const unsigned char* b
        cdef const unsigned char* p
        cdef const unsigned char* nl
        cdef Py_ssize_t pos, stop, cut, lend, t0, t1, k, colons = 0, newlines = 0, done = 0
        cdef Py_ssize_t ntok, nnz, rows, ndig, frac
        cdef long long idx, prev, nf
        cdef uint64_t m
        cdef bint neg
        cdef double v
        cdef unsigned char c
        cdef double* data
        cdef double* y
        cdef int32_t* indices
        if self.error_line:
            raise RuntimeError("the parser met an invalid line; it takes no more text")
        if end < 0 or end > buf.shape[0]:
            end = buf.shape[0]
        if start >= end:
            return end
        b = &buf[0]
        for k in range(start, end):                 # an upper bound of the rows and values to come
            c = b[k]
            colons += c == 58
            newlines += c == 10
        self._reserve(newlines + 1, colons)
        pos = start
        data, indices, y = self.data, self.indices, self.y
        nnz, rows, nf = self.nnz, self.rows, self.n_features
        while pos < end:
            if max_lines >= 0 and done >= max_lines:
                break
            nl = <const unsigned char*>memchr(b + pos, 10, end - pos)
            lend = end if nl == NULL else nl - b
            if self.max_line and lend - pos > self.max_line:
                self.too_long = True
                return self._fail(pos, rows)
            cut = lend                               # the comment: from '#', unless a NUL byte comes first
            nl = <const unsigned char*>memchr(b + pos, 35, lend - pos)
            if nl != NULL and memchr(b + pos, 0, nl - (b + pos)) == NULL:
                cut = nl - b
            ntok = 0
            prev = 0
            k = pos
            while True:
                while k < cut and _space(b[k]):
                    k += 1
                if k >= cut:
                    break
                t0 = k
                if ntok and not (ntok == 1 and b[k] == 113):
                    # the common token: digits ':' [+-] digits [. digits] (at most 15 digits), parsed inline
                    idx = 0
                    while k < cut and _digit(b[k]) and k - t0 < 10:
                        idx = idx * 10 + (b[k] - 48)
                        k += 1
                    if k > t0 and k < cut and b[k] == 58 and prev < idx <= _INT_MAX and (nf == 0 or idx <= nf):
                        k += 1
                        neg = b[k] == 45 if k < cut else False
                        if k < cut and (b[k] == 43 or b[k] == 45):
                            k += 1
                        m = 0
                        ndig = 0
                        frac = 0
                        while k < cut and _digit(b[k]):
                            m = m * 10 + (b[k] - 48)
                            ndig += 1
                            k += 1
                        if k < cut and b[k] == 46:
                            k += 1
                            while k < cut and _digit(b[k]):
                                m = m * 10 + (b[k] - 48)
                                ndig += 1
                                frac += 1
                                k += 1
                        if 0 < ndig <= 15 and (k == cut or _space(b[k])):
                            v = <double>m if frac == 0 else <double>m / _POW10[frac]
                            data[nnz] = -v if neg else v
                            indices[nnz] = <int32_t>(idx - 1)
                            nnz += 1
                            prev = idx
                            ntok += 1
                            continue
                    k = t0                           # anything else: the general path below
                while k < cut and not _space(b[k]):
                    k += 1
                t1 = k
                p = b + t0
                if ntok == 0:                        # the label
                    if _parse_float(p, t1 - t0, &v):
                        return self._fail(pos, rows)
                    y[rows] = v
                elif ntok == 1 and t1 - t0 >= 3 and p[0] == 113 and p[1] == 105 and p[2] == 100:
                    if memchr(p, 58, t1 - t0) == NULL:      # 'qid...' must hold a ':'; its value is not read
                        return self._fail(pos, rows)
                else:
                    nl = <const unsigned char*>memchr(p, 58, t1 - t0)
                    if nl == NULL:
                        return self._fail(pos, rows)
                    idx = _parse_index(p, nl - p)
                    if idx <= prev or (nf and idx > nf):
                        return self._fail(pos, rows)    # also idx == -1: not a valid index
                    if _parse_float(nl + 1, t1 - (nl + 1 - b), &v):
                        return self._fail(pos, rows)
                    data[nnz] = v
                    indices[nnz] = <int32_t>(idx - 1)
                    nnz += 1
                    prev = idx
                ntok += 1
            if ntok:
                if prev > self.max_index:
                    self.max_index = prev
                rows += 1
                self.indptr[rows] = nnz
            self.lines += 1
            done += 1
            pos = lend + 1
        self.nnz, self.rows = nnz, rows
        return min(pos, end)

    cdef Py_ssize_t _fail(self, Py_ssize_t pos, Py_ssize_t rows):
        self.rows = rows
        self.nnz = self.indptr[rows]                    # drop the invalid line's values
        self.error_line = self.first_line + self.lines
        return pos

    def take(self):
        """(data, indices, indptr, y, n_columns) of the rows parsed since the last take, then start afresh.
        ``indices`` are 0-based int32, ``indptr`` int32 (int64 past 2**31 - 1 values); n_columns is
        ``n_features`` when given, else the largest index (at least 1, as scikit-learn)."""
        if self.error_line:
            raise RuntimeError("the parser met an invalid line")
        data, indices, indptr, y = self._data, self._indices, self._indptr, self._y
        data.resize(self.nnz, refcheck=False)
        indices.resize(self.nnz, refcheck=False)
        indptr.resize(self.rows + 1, refcheck=False)
        y.resize(self.rows, refcheck=False)
        if self.nnz <= _INT_MAX:
            indptr = indptr.astype(np.int32)
        ncols = self.n_features if self.n_features else max(self.max_index, 1)
        self._reset()
        return data, indices, indptr, y, ncols


def line_ends(const unsigned char[::1] buf not None, Py_ssize_t start, Py_ssize_t n):
    """(offset just past the n-th newline at or after ``start``, or -1; newlines found): where a block of n
    lines ends."""
    cdef const unsigned char* b
    cdef const unsigned char* nl
    cdef Py_ssize_t pos = start, end = buf.shape[0], found = 0
    if start >= end:
        return -1, 0
    b = &buf[0]
    while found < n:
        nl = <const unsigned char*>memchr(b + pos, 10, end - pos)
        if nl == NULL:
            return -1, found
        found += 1
        pos = nl - b + 1
        if pos >= end:
            break
    return (pos if found == n else -1), found
