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
learner of this olk has; a hyper-parameter added to the learner since takes its default, which olk always chooses
to keep the old behaviour), and otherwise fails with one line naming both versions.  A file that is not such an
archive (not a zip of ``.npy`` files, no ``__meta__``, bad JSON) is refused with one line naming the file.
"""
from __future__ import annotations

import json
import os
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
    """(metadata, {key: array}) of a model file; a one-line ModelFileError if it is not one."""
    if os.path.isdir(path):
        raise ModelFileError(f"{path}: is a directory, not an olk model file")
    if not os.path.exists(path):
        raise ModelFileError(f"{path}: no such model file")
    bad = f"{path}: not an olk model file"
    errors = (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, RuntimeError)
    try:
        z = np.load(path, allow_pickle=False)
    except errors as e:     # numpy tries pickle last, for a file that is neither .npz nor .npy: refused
        reason = "not a NumPy .npz archive" if "pickle" in str(e) else " ".join(str(e).split())[:120]
        raise ModelFileError(f"{bad} ({reason})") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise ModelFileError(f"{bad} (a single .npy array, not an .npz archive)")
    try:
        with z:
            if META not in z.files:
                raise ModelFileError(f"{bad} (a .npz archive without the '{META}' entry)")
            arrays = {k: z[k] for k in z.files}
    except ModelFileError:
        raise
    except errors as e:
        reason = " ".join(str(e).split())[:120]
        if "pickle" in reason:
            reason = "an entry holds pickled Python objects, which olk never loads"
        raise ModelFileError(f"{bad} or it is corrupted ({reason})") from None
    not_npy = sorted(k for k, a in arrays.items() if not isinstance(a, np.ndarray))
    if not_npy:             # numpy hands back the raw bytes of an entry that is not a .npy array
        raise ModelFileError(f"{path}: corrupted olk model file (entry {not_npy[0]!r} is not a NumPy array)")
    raw = arrays.pop(META)
    try:
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError(f"'{META}' is a {raw.dtype} array of shape {raw.shape}, not UTF-8 bytes")
        meta = json.loads(raw.tobytes().decode("utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("its metadata is not a JSON object")
    except (ValueError, UnicodeDecodeError) as e:
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
    return meta, arrays

