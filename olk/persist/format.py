"""The model file: one NumPy ``.npz`` archive (a zip of ``.npy`` files) holding the model's arrays and one JSON
document (the ``__meta__`` entry) describing the rest; written and read here, values encoded by :mod:`.values`.

Format ``olk-model``, versions 1 and 2
--------------------------------------
A learner's file is version 1; an estimator's file is version 2: version 1 (the estimator's learner) plus the key
``estimator`` (below), so an olk that reads version 1 only refuses it with its one-line version message instead
of returning the bare learner.  Entries of the archive:

``__meta__``
    a 1-d ``uint8`` array: the UTF-8 bytes of one JSON object with the keys

    * ``format``: ``"olk-model"``; ``format_version``: ``1`` (an int; see *Versions* below);
    * ``olk_version``: the olk that wrote the file; ``saved_with``: the Python / NumPy / SciPy versions
      (information only);
    * ``algorithm``: the learner's registry name (``olk algorithms`` lists them);
    * ``params``: its constructor arguments (``get_params()``): ``kernel`` as olk's canonical kernel dict
      (``Kernel.to_dict()``, e.g. ``{"kind": "gaussian", "gamma": 0.4}``) or a list of them for a kernel set,
      ``random_state`` and every hyper-parameter;
    * ``state``: the learner's state, i.e. its ``__getstate__()`` dict (everything it learned: support vectors,
      coefficients, counters, the RNG position, ``classes_``), written as a *value* (:mod:`.values`).  Bound
      training data is never part of it: a learner's ``src`` is stored as ``null``;
    * ``estimator`` (version 2 only): ``{"class": "SPAClassifier", "state": {...}}``, the estimator class of
      :mod:`olk.estimators` and its attributes (its parameters as given, ``n_features_in_``, ``classes_``, ...)
      as a JSON object of values; ``learner_`` is a ``ref`` to the learner (value 0).  Its values continue the
      numbering of ``state``.  String arrays held as Python objects (``feature_names_in_``) are stored as NumPy
      string arrays and named in the list ``"__object_arrays__"``.

the arrays
    one entry per numpy array of the state, named after the attribute that holds it (``classes_``,
    ``pool.coef``; ``~2``, ``~3`` ... appended when a name repeats), one ``.npy`` each: dtype, shape and memory
    order as they were (arrays of Python objects are refused).  The JSON refers to an array by this name.

Versions.  ``load`` reads format versions 1 and 2.  A file of a newer format version is refused with one line naming
both olk versions; a file written by another olk version loads when its learner still fits this olk (the
algorithm is registered, its parameters are valid, e.g. none was renamed, and the state has every attribute a new
learner of this olk has and no other, but for a few fitted attributes named as scikit-learn's, ``beta_``; a
hyper-parameter added to the learner since takes its default, which olk always chooses to keep the old
behaviour), and otherwise fails with one line naming both versions.  A file that is not such an
archive (not a zip of ``.npy`` files, no ``__meta__``, bad JSON) is refused with one line naming the file.
"""
from __future__ import annotations

import json
import math
import os
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .._version import __version__
from ..errors import OlkError

FORMAT = "olk-model"
#: the version of a learner's file; a scikit-learn estimator's file is version 2 (:data:`ESTIMATOR_VERSION`)
FORMAT_VERSION = 1
#: version 1 plus the ``estimator`` key: a fitted estimator of :mod:`olk.estimators` around the learner
ESTIMATOR_VERSION = 2
#: format versions this olk reads
READS = (1, 2)
TAG = "__olk__"
META = "__meta__"


class ModelFileError(OlkError, ValueError):
    """A model file that cannot be read (not an olk model, corrupted, or from an incompatible olk)."""


def write_archive(path, meta: dict, arrays: dict) -> None:
    """Write `meta` (a JSON object) and `arrays` (entry name -> array) to `path` as one compressed ``.npz``,
    under a temporary name renamed when complete, so an existing file is replaced only by a complete one."""
    from ..fileio import atomic_write
    text = json.dumps(meta, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    arrays = {META: np.frombuffer(text.encode("utf-8"), dtype=np.uint8), **arrays}
    path = Path(os.fspath(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)      # e.g. scratch/model.olk in a fresh checkout
    except OSError as e:
        from ..fileio import write_error
        raise write_error(path.parent, e, "create the directory") from None
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays))


def read_archive(path: str) -> tuple[dict, dict]:
    """(metadata, {key: array}) of a model file; a one-line ModelFileError if it is not one.  Bounded by
    :mod:`olk.limits` before memory is spent: the file's size (``model_bytes``), its number of entries (from the
    zip's end record), their total uncompressed size as the zip directory declares it (``model_expanded_bytes``;
    reading never goes past a declared size), the JSON document's size (``model_meta_bytes``) and nesting
    (``model_json_depth``), and each array's ``.npy`` header against its entry's declared size (a header
    declaring a shape of 10^12 values in a 100-byte entry is refused before anything is allocated).  An entry the
    document does not refer to is refused too (what the arrays hold is checked by :mod:`.checks`)."""
    bad = f"{path}: not an olk model file"
    errors = (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, RuntimeError)
    try:
        with _open_regular(path) as f:
            _check_container(f, path)
            with zipfile.ZipFile(f) as z:
                return _read_entries(z, path)
    except ModelFileError:
        raise
    except errors as e:
        reason = " ".join(str(e).split())[:120]
        raise ModelFileError(f"{bad} or it is corrupted ({reason})") from None


def _open_regular(path: str):
    """`path` opened for reading if it is a regular file; a directory, a FIFO (whose reader would wait forever
    for a writer), a device or a socket is one line, before anything is read."""
    import stat
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as e:
        if isinstance(e, FileNotFoundError) or isinstance(e, ValueError):
            raise ModelFileError(f"{path}: no such model file") from None
        raise ModelFileError(f"{path}: cannot read the model file ({getattr(e, 'strerror', None) or e})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise ModelFileError(f"{path}: is a directory, not an olk model file")
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device or a socket"
        raise ModelFileError(f"{path}: is {kind}, not a regular file; give the path of an olk model file")
    os.set_blocking(fd, True)
    return open(fd, "rb")


_EOCD, _EOCD64_LOCATOR, _EOCD64, _CENTRAL = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06", b"PK\x01\x02"


def _check_container(f, path: str) -> None:
    """Before the zip directory is parsed: the file's size, that it is a zip (a single ``.npy`` array or any
    other file is named as such), the size of its directory (``model_directory_bytes``) and the number of
    entries, both as its end record declares it and as the directory holds them (``model_entries``).  The end
    record and the directory are found where :mod:`zipfile` looks for them, so what is checked here is what it
    would parse (it reads the whole directory into memory and makes an object per record, whatever the end record
    says: 6 million records took 122 s and 3.8 GB)."""
    from ..limits import LIMITS
    size = os.fstat(f.fileno()).st_size
    lim = LIMITS["model_bytes"]
    if size > lim.value():
        raise ModelFileError(f"{path}: the model file ({size:,} bytes) is " + lim.exceeded("larger than"))
    bad = f"{path}: not an olk model file"
    head = f.read(6)
    if head == b"\x93NUMPY":
        raise ModelFileError(f"{bad} (a single .npy array, not an .npz archive)")
    tail_len = min(size, 65536 + 22)             # the end record and the longest zip comment
    f.seek(size - tail_len)
    tail = f.read(tail_len)
    if len(tail) >= 22 and tail[-22:-18] == _EOCD and tail[-2:] == b"\0\0":     # zipfile's order: no comment first
        at = len(tail) - 22
    else:
        at = tail.rfind(_EOCD)
    if not head.startswith(b"PK") or at < 0 or len(tail) < at + 22:
        raise ModelFileError(f"{bad} (not a NumPy .npz archive)")
    entries = int.from_bytes(tail[at + 10:at + 12], "little")
    dir_size = int.from_bytes(tail[at + 12:at + 16], "little")
    start = size - tail_len + at - dir_size           # the directory ends where the end record starts
    if at >= 20 and tail[at - 20:at - 16] == _EOCD64_LOCATOR and size - tail_len + at >= 76:
        f.seek(size - tail_len + at - 76)             # zip64: its end record, just before the locator
        rec = f.read(56)
        if rec[:4] == _EOCD64:
            entries = int.from_bytes(rec[32:40], "little")
            dir_size = int.from_bytes(rec[40:48], "little")
            start = size - tail_len + at - 76 - dir_size
    lim = LIMITS["model_entries"]
    if entries > lim.value():
        raise ModelFileError(f"{path}: the model file has {entries:,} entries, " + lim.exceeded("more than"))
    dir_lim = LIMITS["model_directory_bytes"]
    if dir_size > dir_lim.value():
        raise ModelFileError(f"{path}: its zip directory ({dir_size:,} bytes) is " + dir_lim.exceeded("larger than")
                             + "; olk writes about 100 bytes per entry")
    if 0 <= start:
        f.seek(start)
        listing = f.read(dir_size)
        count = pos = 0
        while pos + 46 <= len(listing) and listing[pos:pos + 4] == _CENTRAL:
            count += 1
            if count > lim.value():
                raise ModelFileError(f"{path}: its zip directory lists more entries than its end record says "
                                     f"({entries:,}) and " + lim.exceeded("more than"))
            pos += 46 + sum(int.from_bytes(listing[pos + k:pos + k + 2], "little") for k in (28, 30, 32))
    f.seek(0)


def _read_entries(z: zipfile.ZipFile, path: str) -> tuple[dict, dict]:
    from ..limits import LIMITS
    infos: dict[str, zipfile.ZipInfo] = {}
    for info in z.infolist():
        key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
        if key in infos or not info.filename.endswith(".npy"):
            why = "twice" if key in infos else "and is not a NumPy array"
            raise ModelFileError(f"{path}: corrupted olk model file (entry {key[:80]!r} is there {why})")
        infos[key] = info
    total, lim = sum(i.file_size for i in infos.values()), LIMITS["model_expanded_bytes"]
    if total > lim.value():
        raise ModelFileError(f"{path}: its entries declare {total:,} bytes uncompressed, "
                             + lim.exceeded("more than"))
    if META not in infos:
        raise ModelFileError(f"{path}: not an olk model file (a .npz archive without the '{META}' entry)")
    meta = _read_meta(z, infos.pop(META), path)
    referenced = _array_keys(meta)
    extra = sorted(set(infos) - referenced)
    if extra:
        raise ModelFileError(f"{path}: corrupted olk model file (entry {extra[0][:80]!r} is not part of the model: "
                             f"nothing in it refers to that entry)")
    return meta, {k: _read_array(z, info, k, path) for k, info in infos.items()}


def _read_meta(z: zipfile.ZipFile, info: zipfile.ZipInfo, path: str) -> dict:
    """The JSON document of the ``__meta__`` entry: size and nesting checked before it is parsed, then its
    format and version."""
    from ..limits import LIMITS
    lim = LIMITS["model_meta_bytes"]
    if info.file_size > lim.value():
        raise ModelFileError(f"{path}: its '{META}' JSON document ({info.file_size:,} bytes) is "
                             + lim.exceeded("larger than"))
    raw = _read_array(z, info, META, path)
    bad = f"{path}: not an olk model file"
    try:
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError(f"'{META}' is a {raw.dtype} array of shape {raw.shape}, not UTF-8 bytes")
        text = raw.tobytes()
        depth, lim = json_depth(text), LIMITS["model_json_depth"]
        if depth > lim.value():
            raise ModelFileError(f"{path}: its '{META}' JSON document is nested {depth:,} levels deep, "
                                 + lim.exceeded("deeper than"))
        meta = json.loads(text.decode("utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("its metadata is not a JSON object")
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        if isinstance(e, ModelFileError):
            raise
        raise ModelFileError(f"{path}: corrupted olk model file (bad '{META}' JSON: "
                             f"{' '.join(str(e).split())[:100]})") from None
    if meta.get("format") != FORMAT:
        raise ModelFileError(f"{bad} (its format is {meta.get('format')!r}, expected {FORMAT!r})")
    version = meta.get("format_version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"{path}: corrupted olk model file (format_version {version!r} is not a version number)")
    if version not in READS:
        raise ModelFileError(f"{path}: written by olk {meta.get('olk_version', '?')} in model format version "
                             f"{version}; this is olk {__version__}, which reads format version "
                             f"{', '.join(map(str, READS))}: upgrade olk to load it")
    return meta


_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def _read_array(z: zipfile.ZipFile, info: zipfile.ZipInfo, key: str, path: str) -> np.ndarray:
    """One ``.npy`` entry, its header checked first: no Python objects (no pickle), and a shape and dtype whose
    size is the entry's declared size (so nothing larger than the zip directory said is ever allocated; the zip
    directory's sizes are capped by ``model_expanded_bytes``)."""
    with z.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version not in _HEADERS:
            raise ValueError(f"entry {key!r}: unknown .npy format version {version}")
        shape, _, dtype = _HEADERS[version](f)
        header = f.tell()
    if dtype.hasobject:
        raise ModelFileError(f"{path}: not an olk model file or it is corrupted (entry {key[:80]!r} holds pickled "
                             f"Python objects, which olk never loads)")
    nbytes = math.prod(shape) * dtype.itemsize
    if header + nbytes != info.file_size:
        shown = "x".join(map(str, shape)) if len(shape) < 6 else f"{len(shape)}-d"
        raise ModelFileError(f"{path}: corrupted olk model file (entry {key[:80]!r} declares a {shown} {dtype} "
                             f"array of {nbytes:,} bytes, but the entry holds {info.file_size - header:,})")
    with z.open(info) as f:
        a = np.lib.format.read_array(f, allow_pickle=False)
    return a


def _array_keys(meta) -> set:
    """The archive entries the document refers to (``array`` values and numpy scalars stored as entries)."""
    keys, stack = set(), [meta]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if v.get(TAG) in ("array", "scalar") and isinstance(v.get("key"), str):
                keys.add(v["key"])
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return keys


#: a JSON string, or an unterminated one running to the end of the text: every match attempt from a quote
#: succeeds at the first unescaped quote or at the end, so removing them is one pass (linear in the text: an
#: unterminated string of 100,000 escaped quotes once made every quote a new start scanning to the end)
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)


def json_depth(text: bytes, chunk: int = 1 << 20) -> int:
    """How deeply the JSON `text` nests arrays and objects, without parsing it (strings removed, then the
    running count of brackets, a chunk at a time: memory a few times `chunk`).  Linear in the length of `text`
    whatever it holds (tests/test_hostile_inputs.py).

    >>> json_depth(b'{"a": [1, {"b": "[[["}], "c": []}'), json_depth(b'3'), json_depth(b'["[' + b'\\"' * 5)
    (3, 0, 1)
    """
    bare = _STRINGS.sub(b"", text)
    deepest = level = 0
    for at in range(0, len(bare), chunk):
        b = np.frombuffer(bare, np.uint8, count=min(chunk, len(bare) - at), offset=at)
        step = (b == 91).astype(np.int32) + (b == 123) - (b == 93) - (b == 125)      # [ { ] }
        run = np.cumsum(step, dtype=np.int64) + level
        if run.size:
            deepest, level = max(deepest, int(run.max())), int(run[-1])
    return deepest
