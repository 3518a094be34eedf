"""Saving and loading olk models without pickle: ``olk.save(model, path)`` / ``olk.load(path)`` (this module's
``save`` / ``load``), for a learner or a fitted scikit-learn estimator of :mod:`olk.estimators`.  Models do not
know about files: nothing below this module imports it.

A saved model is ONE file: a NumPy ``.npz`` archive (a zip of ``.npy`` files, written by
``numpy.savez_compressed``) holding every array of the model plus one JSON document that describes the rest.
Reading it never unpickles anything (``numpy.load(path, allow_pickle=False)``) and never runs code named by the
file: the only classes it builds are olk's own and a short allow-list (below).  The file name is yours to
choose; ``.olk`` is the convention of the command line (``olk train ... -o model.olk``).

>>> import numpy as np, json, tempfile, os
>>> from olk.algorithms import make
>>> from olk.persist import load, save
>>> rng = np.random.default_rng(0); X = rng.random((50, 4)); y = np.where(X[:, 0] > 0.5, 1, -1)
>>> model = make("spa", kernel={"type": "gaussian", "gamma": 2.0}, beta=5, random_state=0).fit(X, y)
>>> path = os.path.join(tempfile.mkdtemp(), "spa.olk")
>>> save(model, path)
>>> again = load(path)
>>> bool((again.decision_function(X) == model.decision_function(X)).all()), again.n_sv == model.n_sv
(True, True)
>>> meta = json.loads(np.load(path)["__meta__"].tobytes())    # the metadata, with numpy alone
>>> meta["format"], meta["format_version"], meta["algorithm"], meta["params"]["kernel"]
('olk-model', 1, 'spa', {'kind': 'gaussian', 'gamma': 2.0})
>>> from olk.estimators import SPAClassifier                  # a scikit-learn estimator: format version 2
>>> est = SPAClassifier(kernel={"type": "gaussian", "gamma": 2.0}, beta=5, random_state=0).fit(X, y)
>>> save(est, path)
>>> again = load(path)
>>> type(again).__name__, again.get_params() == est.get_params(), bool((again.predict(X) == est.predict(X)).all())
('SPAClassifier', True, True)

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
      coefficients, counters, the RNG position, ``classes_``), written as a *value* (below).  Bound training data
      is never part of it: a learner's ``src`` is stored as ``null``;
    * ``estimator`` (version 2 only): ``{"class": "SPAClassifier", "state": {...}}``, the estimator class of
      :mod:`olk.estimators` and its attributes (its parameters as given, ``n_features_in_``, ``classes_``, ...)
      as a JSON object of values; ``learner_`` is a ``ref`` to the learner (value 0).  Its values continue the
      numbering of ``state``.  String arrays held as Python objects (``feature_names_in_``) are stored as NumPy
      string arrays and named in the list ``"__object_arrays__"``.

the arrays
    one entry per numpy array of the state, named after the attribute that holds it (``classes_``,
    ``pool.coef``; ``~2``, ``~3`` ... appended when a name repeats), one ``.npy`` each: dtype, shape and memory
    order as they were (arrays of Python objects are refused).  The JSON refers to an array by this name.

Values.  ``null``, ``true``/``false``, integers (of any size: a PCG64 state is 128 bits), strings and lists are
themselves; finite floats are JSON numbers (written as Python's shortest repr, which reads back to the same 64
bits); a dict with string keys is a JSON object.  Everything else is a JSON object with the key ``"__olk__"``
naming what it is:

==============  ==========================================================================================
``float``       ``{"value": "nan" | "inf" | "-inf"}``: a non-finite Python float
``scalar``      ``{"dtype": "float64", "value": 0.5}``: a numpy scalar, its dtype kept (other kinds than
                bool/int/float: ``{"dtype": ..., "key": NAME}``, a 0-d array entry)
``array``       ``{"key": "pool.coef"}``: the archive entry holding the array (``"readonly": true`` if it was)
``tuple``       ``{"items": [...]}``; ``set`` / ``frozenset`` likewise; ``deque``: ``{"items": [...], "maxlen": n}``
``dict``        ``{"items": [[key, value], ...]}``: a dict with keys that are not all strings
``kernel``      ``{"spec": {...}}``: an ``olk.kernels.Kernel`` as its canonical dict; ``kernels``:
                ``{"kernels": [kernel, ...]}``, a ``KernelSet``
``generator``   ``{"state": {...}}``: a ``numpy.random.Generator`` as its ``bit_generator.state`` (the bit
                generator's name and exact position: continued learning draws the same numbers);
                ``random_state``: ``{"state": {...}}``, a legacy ``numpy.random.RandomState``
``svpool``      ``{"state": {...}}``: olk's support-vector pool (``olk._core.svpool.SVPool``) as the dict of
                arrays of ``SVPool.__reduce__``, rebuilt by ``olk._core.svpool._rebuild_pool``
``object``      ``{"class": "module:Name", "state": {...}}``: an instance of a class of olk (e.g. a nested
                learner, ``olk.algorithms.budget.core:ForgetronState``) or of the allow-list ``sklearn.svm:SVC``,
                ``scipy.sparse:csr_matrix`` / ``csc_matrix`` / ``coo_matrix`` / ``csr_array`` /
                ``csc_array`` / ``coo_array``, rebuilt the way pickle would (``cls.__new__`` and
                ``__setstate__``, or ``__dict__.update``)
``ref``         ``{"id": n}``: the same object as the n-th *shared-able* value (0-based, in document order)
==============  ==========================================================================================

The shared-able values of ``state`` are numbered in the order they appear in the document: the learner itself is
0, the ``state`` object 1, then every list, JSON object, ``dict``, ``set``, ``deque``, ``array``, ``generator``,
``random_state``, ``svpool`` and ``object`` value (a tagged value before its contents; the canonical dicts inside
``kernel`` are not values).  With ``ref``, two attributes that held the same object hold the same object again
after loading, as with pickle.  Anything else in a learner's state (a function, an
unknown class, an object array) is refused when saving with a one-line :class:`~olk.errors.OlkError` naming the
learner and the attribute: olk never falls back to pickle.

Versions.  ``load`` reads format versions 1 and 2.  A file of a newer format version is refused with one line naming
both olk versions; a file written by another olk version loads when its learner still fits this olk (the
algorithm is registered, its parameters are valid, e.g. none was renamed, and the state has every attribute a new
learner of this olk has; a hyper-parameter added to the learner since takes its default, which olk always chooses
to keep the old behaviour), and otherwise fails with one line naming both versions.  A file that is not such an
archive (not a zip of ``.npy`` files, no ``__meta__``, bad JSON) is refused with one line naming the file.
"""
from __future__ import annotations

import collections
import enum
import importlib
import json
import math
import os
import platform
import re
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ._version import __version__
from .errors import OlkError

FORMAT = "olk-model"
#: the version of a learner's file; a scikit-learn estimator's file is version 2 (:data:`ESTIMATOR_VERSION`)
FORMAT_VERSION = 1
#: version 1 plus the ``estimator`` key: a fitted estimator of :mod:`olk.estimators` around the learner
ESTIMATOR_VERSION = 2
#: format versions this olk reads
READS = (1, 2)
TAG = "__olk__"
META = "__meta__"

#: classes from outside olk a saved model may hold: public name -> (module, attribute)
FOREIGN = {
    "sklearn.svm:SVC": ("sklearn.svm", "SVC"),
    **{f"scipy.sparse:{n}": ("scipy.sparse", n)
       for n in ("csr_matrix", "csc_matrix", "coo_matrix", "csr_array", "csc_array", "coo_array")},
}
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


class ModelFileError(OlkError, ValueError):
    """A model file that cannot be read (not an olk model, corrupted, or from an incompatible olk)."""


# ============================================================================================== saving
def save(model, path) -> None:
    """Write `model` (a registered olk learner, trained or not, or a fitted scikit-learn estimator of
    :mod:`olk.estimators`) to `path` as one ``.npz`` file (the format is described in this module's docstring).
    The file is written under a temporary name and renamed, so an existing file is replaced only by a complete
    one.  An attribute the format cannot hold is a one-line :class:`~olk.errors.OlkError` naming it; nothing is
    written then."""
    from .algorithms.common.learner import KernelEstimator
    from .algorithms.registry import REGISTRY

    estimator = _estimator_of(model)
    if estimator is not None:
        model = estimator.learner_
    if not isinstance(model, KernelEstimator):
        raise OlkError(f"save: expected an olk learner (e.g. olk.algorithms.make('spa')), got {type(model).__name__}")
    name = model.name            # a KernelEstimator: every learner declares its registry name
    if REGISTRY.get(name) is not type(model):
        raise OlkError(f"save: {type(model).__qualname__} is not a registered olk learner (registry name "
                       f"{name!r} is {'another class' if name in REGISTRY else 'unknown'}); only registered learners "
                       f"can be saved")
    enc = _Encoder(name)
    state = enc.learner_state(model)
    params = model.get_params()
    kernel = params.pop("kernel")
    params_json = {"kernel": _kernel_json(kernel), **_Encoder(name, enc.arrays).encode_params(params)}
    from ._lazy import scipy_version
    meta = {
        "format": FORMAT, "format_version": FORMAT_VERSION if estimator is None else ESTIMATOR_VERSION,
        "olk_version": __version__,
        "saved_with": {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy_version()},
        "algorithm": name,
        "params": params_json,
        "state": state,
    }
    if estimator is not None:           # after `state`: its values continue the numbering (the learner is a ref)
        meta["estimator"] = {"class": type(estimator).__name__,
                             "state": enc.encode(_estimator_state(estimator), "estimator")}
    text = json.dumps(meta, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    arrays = {META: np.frombuffer(text.encode("utf-8"), dtype=np.uint8), **enc.arrays}
    path = Path(os.fspath(path))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)      # e.g. scratch/model.olk in a fresh checkout
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise OlkError(f"{path}: cannot write the model ({e.strerror or e})") from None


def _estimator_of(model):
    """`model` if it is a scikit-learn estimator of :mod:`olk.estimators` (checked: generated, fitted), else None."""
    est = sys.modules.get("olk.estimators")
    if est is None:             # nothing is one of its estimators before it is imported (it loads scikit-learn)
        return None
    OlkEstimator, by_class_name = est.OlkEstimator, est.by_class_name
    if not isinstance(model, OlkEstimator):
        return None
    cls = type(model)
    if by_class_name.get(cls.__name__) is not cls:
        raise OlkError(f"save: {cls.__qualname__} is not one of olk's estimator classes (olk.estimators); only "
                       f"those can be saved")
    if "learner_" not in model.__dict__:
        raise OlkError(f"save: this {cls.__name__} is not fitted; call fit or partial_fit before saving it")
    return model


def _estimator_state(est) -> dict:
    """The estimator's attributes (its parameters, ``learner_``, ``n_features_in_``, ``classes_``, ...).  An
    array of strings held as Python objects (``feature_names_in_``) is stored as a NumPy string array and listed
    under ``"__object_arrays__"``, so loading turns it back into objects."""
    state, objects = {}, []
    for k, v in est.__dict__.items():
        if isinstance(v, np.ndarray) and v.dtype.hasobject and all(isinstance(x, str) for x in v.flat):
            v = v.astype(str)
            objects.append(k)
        state[k] = v
    if objects:
        state["__object_arrays__"] = objects
    return state


def _kernel_json(kernel):
    from .kernels import KernelSet
    if isinstance(kernel, KernelSet):
        return [k.to_dict() for k in kernel]
    return kernel.to_dict()


class _Encoder:
    """A learner's state -> a JSON value + npz arrays (see the module docstring for the value types)."""

    def __init__(self, learner: str, arrays: dict | None = None):
        self.learner = learner
        self.arrays = {} if arrays is None else arrays
        self.memo: dict[int, int] = {}      # id(obj) -> its number (document order)
        self.keep: list = []                # keeps numbered objects alive, so ids are not reused

    # ---------------------------------------------------------------- entry points
    def learner_state(self, model) -> dict:
        self._number(model)                                 # the learner is shared-able value 0
        return self.encode(self._object_state(model, ""), "")

    def encode_params(self, params: dict) -> dict:
        return {k: self.encode(v, f"params {k}") for k, v in params.items()}

    # -------------------------------------------------------------------- helpers
    def _refuse(self, obj, where: str, why: str = "") -> OlkError:
        t = type(obj)
        what = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
        holder = f"attribute '{where}'" if where else "the learner"
        return OlkError(f"cannot save {self.learner}: {holder} holds a {what}{why}, which olk's model format cannot "
                        f"store (olk never falls back to pickle)")

    def _number(self, obj) -> None:
        self.memo[id(obj)] = len(self.memo)
        self.keep.append(obj)

    def _array(self, a: np.ndarray, where: str) -> str:
        """Store `a` under a key readable as its attribute path (``pool.coef``, ``classes_``), made unique."""
        base = ".".join(w for w in re.split(r"[^A-Za-z0-9_]+", where) if w)[:80] or "array"
        key, n = base, 1
        while key in self.arrays or key == META:
            n += 1
            key = f"{base}~{n}"
        self.arrays[key] = a
        return key

    def _object_state(self, obj, where: str) -> dict:
        from ._core.svpool import RowSource
        from .algorithms.common.learner import KernelEstimator
        state = obj.__getstate__()
        if not isinstance(state, dict):
            raise self._refuse(obj, where, " (its state is not a dict of attributes)")
        if isinstance(obj, KernelEstimator) and isinstance(state.get("src"), RowSource):
            state = {**state, "src": None}          # bound training data is not part of the model
        return state

    # ---------------------------------------------------------------------- values
    def encode(self, v, where: str):
        t = type(v)
        if v is None or t is bool or t is str or t is int:
            return v
        if t is float:
            return v if math.isfinite(v) else {TAG: "float", "value": repr(v)}
        if isinstance(v, np.generic):
            return self._scalar(v, where)
        if t in (tuple, frozenset):
            return {TAG: t.__name__, "items": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        from .kernels import Kernel, KernelSet
        if t is Kernel:
            return self._kernel(v)
        if t is KernelSet:
            return {TAG: "kernels", "kernels": [self._kernel(k) for k in v]}
        if id(v) in self.memo:
            return {TAG: "ref", "id": self.memo[id(v)]}
        if t is list:
            self._number(v)
            return [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if t is dict:
            self._number(v)
            if all(type(k) is str for k in v) and TAG not in v:
                return {k: self.encode(x, _attr(where, k)) for k, x in v.items()}
            return {TAG: "dict", "items": [[self.encode(k, f"{where}<key>"), self.encode(x, f"{where}[{k!r}]")]
                                           for k, x in v.items()]}
        if t is set:
            self._number(v)
            return {TAG: "set", "items": [self.encode(x, f"{where}<item>") for x in v]}
        if t is collections.deque:
            self._number(v)
            return {TAG: "deque", "items": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)],
                    "maxlen": v.maxlen}
        if t is np.ndarray:
            if v.dtype.hasobject:
                raise self._refuse(v, where, " of Python objects")
            self._number(v)
            out: dict[str, Any] = {TAG: "array", "key": self._array(v, where)}
            if not v.flags.writeable:
                out["readonly"] = True
            return out
        if t is np.random.Generator:
            self._number(v)
            return {TAG: "generator", "state": self.encode(v.bit_generator.state, _attr(where, "bit_generator"))}
        if t is np.random.RandomState:
            self._number(v)
            return {TAG: "random_state", "state": self.encode(v.get_state(legacy=False), _attr(where, "state"))}
        from ._core.svpool import RowSource, SVPool
        if t is SVPool:
            self._number(v)
            fn, (state,) = v.__reduce__()
            return {TAG: "svpool", "state": self.encode(state, where)}
        if t is RowSource:
            raise self._refuse(v, where, " (bound data: a model keeps copies of its support vectors, never the data)")
        cls = None if isinstance(v, enum.Enum) else _class_name(t)     # an enum member must stay unique
        if cls is None:
            raise self._refuse(v, where)
        self._number(v)
        return {TAG: "object", "class": cls, "state": self.encode(self._object_state(v, where), where)}

    def _scalar(self, v: np.generic, where: str):
        if v.dtype.kind in "biuf" and v.dtype.itemsize <= 8:
            x = v.item()
            if isinstance(x, float) and not math.isfinite(x):
                x = repr(x)
            return {TAG: "scalar", "dtype": v.dtype.str, "value": x}
        if v.dtype.hasobject:
            raise self._refuse(v, where)
        return {TAG: "scalar", "dtype": v.dtype.str, "key": self._array(np.asarray(v), where)}

    @staticmethod
    def _kernel(k) -> dict:
        from .kernels import make_kernel
        spec = k.to_dict()
        out = {TAG: "kernel", "spec": spec}
        if make_kernel(dict(spec)) != k:    # built by hand with fields the canonical form leaves out
            from dataclasses import asdict
            out["fields"] = {f: (list(x) if isinstance(x, tuple) else x) for f, x in asdict(k).items()}
        return out


def _attr(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _qualified(t: type) -> str:
    return f"{t.__module__}:{t.__qualname__}"


#: where the learner modules were before olk 0.2's family subpackages (old module -> new module, both under
#: ``olk.algorithms``): a model file written before names its classes by the old module; these names are mapped
#: to the same classes (an exact table, no lookup: the allow-list stays exact)
MOVED_MODULES = {
    "alsvm": "selection.alsvm",
    "amkl": "random_features.amkl",
    "amkl_aks": "random_features.amkl_aks",
    "bogd": "budget.bogd",
    "bomkc_dd": "multikernel.bomkc_dd",
    "bomkc_sd": "multikernel.bomkc_sd",
    "bomkc_spa_dd": "multikernel.bomkc_spa_dd",
    "bpas": "budget.bpas",
    "budget": "budget.core",
    "forgetron": "budget.forgetron",
    "kernel_svm": "selection.kernel_svm",
    "klr_aux": "klr.klr_aux",
    "klr_dcd": "klr.klr_dcd",
    "klr_margin": "klr.klr_margin",
    "klr_nc": "klr.klr_nc",
    "klr_pcd": "klr.klr_pcd",
    "kogd_reg": "regression.kogd_reg",
    "libsvm": "batch.libsvm",
    "musvm": "selection.musvm",
    "mutron": "selection.mutron",
    "ogd": "single.ogd",
    "oks": "selection.oks",
    "oks_convex": "selection.oks_convex",
    "oks_svm": "selection.oks_svm",
    "om1": "selection.om1",
    "om2": "selection.om2",
    "omkc_dd": "multikernel.omkc_dd",
    "omkc_ddpa": "multikernel.omkc_ddpa",
    "omkc_sd": "multikernel.omkc_sd",
    "omkc_sdpa": "multikernel.omkc_sdpa",
    "omkc_u": "multikernel.omkc_u",
    "omkl_aks": "random_features.omkl_aks",
    "omkl_mua": "omkl.omkl_mua",
    "omkl_o": "omkl.omkl_o",
    "omkl_o_sua": "omkl.omkl_o_sua",
    "omkl_p1": "omkl.omkl_p1",
    "omkl_p2": "omkl.omkl_p2",
    "omkl_sua": "omkl.omkl_sua",
    "omkr": "regression.omkr",
    "oskl": "single.oskl",
    "pa1": "single.pa1",
    "pegasos": "batch.pegasos",
    "perceptron": "single.perceptron",
    "projectron": "budget.projectron",
    "projectronpp": "budget.projectronpp",
    "raker": "random_features.raker",
    "random_features": "random_features.core",
    "rbp": "budget.rbp",
    "selection": "selection.core",
    "simplemkl": "selection.simplemkl",
    "som_svm": "selection.som_svm",
    "spa": "single.spa"
}


def allowed_classes() -> dict[str, type]:
    """The only classes a model file may name, by their 'module:QualName': the registered learners (a learner may
    hold another, e.g. Mutron's perceptrons), olk's value types (``registry.value_type``: a Forgetron's bookkeeping,
    a SimpleMKL solution) and the foreign classes of :data:`FOREIGN` (resolved only when named, from fixed
    module and attribute names).  Loading builds nothing else: no name is looked up in a module."""
    from .algorithms.registry import REGISTRY, VALUE_TYPES
    out = {_qualified(c): c for c in REGISTRY.values()}
    out.update({_qualified(c): c for c in VALUE_TYPES})
    old = {f"olk.algorithms.{n}": f"olk.algorithms.{o}" for o, n in MOVED_MODULES.items()}
    for name, c in list(out.items()):
        module, qual = name.split(":", 1)
        if module in old:                      # the same class under its name before the move
            out.setdefault(f"{old[module]}:{qual}", c)
    return out


def _foreign(name: str) -> type:
    mod, attr = FOREIGN[name]
    return getattr(importlib.import_module(mod), attr)


def _class_name(t: type) -> str | None:
    """'module:QualName' of a class a model file may hold (:func:`allowed_classes`, or the foreign list), else
    None (saving refuses it: a file olk could not read back is never written)."""
    name = _qualified(t)
    if allowed_classes().get(name) is t:
        return name
    for public, (mod, attr) in FOREIGN.items():
        if t.__module__.split(".")[0] == mod.split(".")[0] and t.__name__ == attr:
            try:
                if _foreign(public) is t:
                    return public
            except (ImportError, AttributeError):
                continue
    return None


# ============================================================================================== loading
def load(path) -> Any:
    """Read a model written by :func:`save` (no pickle).  Returns the learner, ready to ``predict`` /
    ``decision_function`` and, for an online learner, to continue with ``partial_fit`` exactly where it stopped
    (its RNG included).  A file that is not an olk model, or one from an incompatible olk, is a one-line
    :class:`~olk.errors.OlkError` naming the file (and both olk versions when they differ)."""
    path = os.fspath(path)
    meta, arrays = _read(path)
    where = _where(path, meta)
    from .algorithms.registry import REGISTRY
    name = meta.get("algorithm")
    if not isinstance(name, str) or name not in REGISTRY:
        raise ModelFileError(f"{where}: it is a model of algorithm {name!r}, which this olk does not have "
                             f"(run 'olk algorithms' to list them)")
    cls = REGISTRY[name]
    model, dec = _build(cls, meta, arrays, where)
    _check_compatible(model, cls, meta, where)
    if "estimator" in meta:
        return _build_estimator(meta, dec, model, where)
    return model


def _read(path: str) -> tuple[dict, dict]:
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


def _where(path: str, meta: dict) -> str:
    """The file, with both olk versions when they differ (the start of every later error)."""
    written = meta.get("olk_version")
    if written == __version__:
        return f"{path} (olk {__version__} model)"
    return f"{path} (written by olk {written}, format version {meta['format_version']}; this is olk {__version__})"


def _build(cls, meta: dict, arrays: dict, where: str):
    state = meta.get("state")
    if not isinstance(state, dict):
        raise ModelFileError(f"{where}: corrupted olk model file (no learner state)")
    model = cls.__new__(cls)
    dec = _Decoder(arrays, where)
    dec.memo.append(model)                              # shared-able value 0: the learner itself
    try:
        state = dec.decode(state)
        _set_state(model, state)
    except ModelFileError:
        raise
    except Exception as e:          # the file is untrusted input: whatever building from it raises is corruption
        raise ModelFileError(f"{where}: corrupted or incompatible olk model file "
                             f"({type(e).__name__}: {' '.join(str(e).split())[:120]})") from None
    return model, dec


def _build_estimator(meta: dict, dec: "_Decoder", learner, where: str):
    """The scikit-learn estimator of a version-2 file around its (already loaded) learner."""
    from .estimators import by_class_name
    spec = meta["estimator"]
    name = spec.get("class") if isinstance(spec, dict) else None
    cls: Any = by_class_name.get(name) if isinstance(name, str) else None
    if cls is None or cls._learner_name != meta["algorithm"]:
        raise ModelFileError(f"{where}: it is a {name!r} estimator of algorithm {meta['algorithm']!r}, which this olk "
                             f"does not have (olk.estimators lists them)")
    try:
        state = dec.decode(spec.get("state"))
        if not isinstance(state, dict):
            raise TypeError("the estimator's state is not a dict")
        for k in state.pop("__object_arrays__", []):
            state[k] = np.asarray(state[k]).astype(object)
    except ModelFileError:
        raise
    except Exception as e:
        raise ModelFileError(f"{where}: corrupted or incompatible olk model file "
                             f"({type(e).__name__}: {' '.join(str(e).split())[:120]})") from None
    if state.get("learner_") is not learner:
        raise ModelFileError(f"{where}: corrupted olk model file (the estimator does not hold the file's learner)")
    missing = sorted(set(cls().get_params()) - set(state))
    if missing:
        raise ModelFileError(f"{where}: its {name} lacks the parameter(s) {', '.join(missing[:5])}, which this olk's "
                             f"{name} has; refit it with this olk (or load it with the olk that wrote it)")
    est = cls.__new__(cls)
    est.__dict__.update(state)
    return est


def _check_pool_state(st, bad) -> None:
    """The saved state of an SV pool is consistent before the compiled core (which has no bounds checks) sees it:
    types, shapes, and every sparse feature index inside the pool's width.  `bad(why)` makes the one-line error."""
    def arr(key, kind, ndim):
        a = st.get(key)
        if not isinstance(a, np.ndarray) or a.dtype.kind not in kind or a.ndim != ndim:
            raise bad(f"the SV pool's {key!r} is not a {ndim}-d array of the expected type")
        return a
    if not isinstance(st, dict):
        raise bad("the SV pool's state is not a dict")
    nf, sparse = st.get("n_features"), st.get("sparse")
    if type(nf) is not int or not 0 <= nf < 2 ** 31 or type(sparse) is not bool:
        raise bad("the SV pool's width or layout is not valid")
    m = arr("kind", "iu", 1).shape[0]
    for key in ("gamma", "coef0", "degree"):
        if arr(key, "f", 1).shape[0] != m:
            raise bad(f"the SV pool's {key!r} does not have one value per kernel")
    ck = arr("col_kernel", "iu", 1)
    coef = arr("coef", "f", 2)
    n = coef.shape[0]
    if coef.shape[1] != ck.shape[0]:
        raise bad("the SV pool's coefficients do not have one column per classifier")
    if arr("mnorm", "f", 2).shape[0] != n or arr("tag", "iu", 1).shape[0] != n:
        raise bad("the SV pool's arrays do not have one row per support vector")
    for key in ("views", "normalize"):
        v = st.get(key)
        if v is not None and (not isinstance(v, list) or len(v) != m):
            raise bad(f"the SV pool's {key!r} does not have one entry per kernel")
    for v in st.get("views") or ():
        if v is not None and not (isinstance(v, (list, tuple)) and len(v) == 2
                                  and all(type(c) is int for c in v) and 0 <= v[0] < v[1] <= max(nf, 1)):
            raise bad("the SV pool's kernel views are not column ranges inside its width")
    if sparse:
        lens, idx, val = arr("sp_len", "iu", 1), arr("sp_idx", "iu", 1), arr("sp_val", "f", 1)
        if lens.shape[0] != n or (lens < 0).any() or int(lens.sum()) != idx.shape[0] or idx.shape != val.shape:
            raise bad("the SV pool's sparse rows do not add up")
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= nf):
            raise bad(f"a support vector has a feature index outside the pool's width {nf}")
    elif arr("dense", "f", 2).shape != (n, nf):
        raise bad("the SV pool's dense rows do not have its shape")


#: what a value of a fresh learner's attribute says a loaded value of it must be (see :func:`_check_types`)
_NUMBER = (int, float, np.integer, np.floating)


def _check_types(model, fresh, where: str) -> None:
    """Each attribute a freshly built learner (same parameters) sets in its constructor holds a value of the same
    kind in the loaded model -- a number stays a number (an integer within 64 bits), a string a string, an array an
    array of the same dimension and kind, any other value the same type -- so a hand-edited or corrupted state is
    refused here in one line instead of failing with a TypeError or OverflowError when the model is used.
    Attributes that start as None (the SV pool before the first example, ``classes_``) are checked by their own
    decoder (:func:`_check_pool_state`) or not at all."""
    from ._core.svpool import SVPool
    from .tasks import TASKS
    # a binary classifier keeps its two labels; a multi-class one (its declared task) any K >= 1 of them
    multiclass = TASKS[type(model).task].labels == "classes"
    late = {"pool": lambda v: isinstance(v, SVPool),
            "classes_": lambda v: isinstance(v, np.ndarray) and v.ndim == 1 and (
                v.shape[0] >= 1 if multiclass else v.shape[0] == 2),
            "n_features_in_": lambda v: type(v) is int and 0 <= v < 2 ** 31}
    for key, valid in late.items():     # set by learning: None in a fresh learner
        v = model.__dict__.get(key)
        if v is not None and not valid(v):
            raise ModelFileError(f"{where}: corrupted olk model file (attribute {key!r} holds a "
                                 f"{type(v).__name__} that is not a valid {key})")
    if model.__dict__.get("src") is not None:
        raise ModelFileError(f"{where}: corrupted olk model file (a model never holds bound data 'src')")
    for key, ref in fresh.__getstate__().items():
        if ref is None or key not in model.__dict__:
            continue
        v = model.__dict__[key]
        if isinstance(ref, bool) or isinstance(ref, np.bool_):
            ok = isinstance(v, (bool, np.bool_))
        elif isinstance(ref, (int, np.integer)):          # a count stays an integer
            ok = isinstance(v, (int, np.integer)) and not isinstance(v, bool) and -2 ** 63 <= int(v) < 2 ** 63
        elif isinstance(ref, _NUMBER):
            ok = isinstance(v, _NUMBER) and not isinstance(v, bool) and (
                not isinstance(v, (int, np.integer)) or -2 ** 63 <= int(v) < 2 ** 63)
        elif isinstance(ref, np.ndarray):
            ok = isinstance(v, np.ndarray) and v.ndim == ref.ndim and v.dtype.kind == ref.dtype.kind
        else:
            ok = type(v) is type(ref)
        if not ok:
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not -2 ** 63 <= int(v) < 2 ** 63:
                shown = f"an integer of {len(str(abs(int(v))))} digits"
            elif not isinstance(v, (int, float, str)) or len(repr(v)) > 40:
                shown = f"a {type(v).__name__}"
            else:
                shown = repr(v)
            kept = "a 64-bit integer" if isinstance(ref, (int, np.integer)) else f"a {type(ref).__name__}"
            raise ModelFileError(f"{where}: corrupted olk model file (attribute {key!r} holds {shown}, but a "
                                 f"{type(model).__name__} keeps {kept} there)")


def _set_state(obj, state: dict) -> None:
    setstate = getattr(type(obj), "__setstate__", None)
    if setstate is not None:
        obj.__setstate__(state)
    else:
        obj.__dict__.update(state)


def _check_compatible(model, cls, meta: dict, where: str) -> None:
    """The learner fits this olk: its parameters pass this olk's checks (a renamed or newly invalid one is the
    registry's one-line error) and its state has every attribute a new learner of this olk has."""
    from .algorithms.registry import check_params_of
    params = meta.get("params")
    if not isinstance(params, dict):
        raise ModelFileError(f"{where}: corrupted olk model file (no params)")
    hyper = {k: v for k, v in params.items() if k not in ("kernel", "random_state")}
    try:
        hyper = check_params_of(cls, _Decoder({}, where).decode(hyper), meta["algorithm"])
        fresh = cls(kernel=model.kernels, random_state=None, **hyper)     # never touches the model's RNG
    except OlkError as e:
        raise ModelFileError(f"{where}: its parameters do not fit this olk: {e}") from None
    except Exception as e:
        raise ModelFileError(f"{where}: corrupted or incompatible olk model file ({type(e).__name__}: "
                             f"{' '.join(str(e).split())[:120]})") from None
    # a hyper-parameter added to the learner after the file was written takes its registry default: olk adds a
    # parameter only with a default that keeps the old behaviour (e.g. OMKC's combine='vote'), so the model is
    # the one that was saved
    added = [p.name for p in cls.params if p.name not in params]
    for name in added:
        setattr(model, name, hyper[name])
        if isinstance(model.__dict__.get("hyperparams"), dict):
            model.hyperparams = {**model.hyperparams, name: hyper[name]}
    _check_types(model, fresh, where)
    missing = sorted(set(fresh.__getstate__()) - set(model.__dict__))
    if missing:
        raise ModelFileError(f"{where}: its {meta['algorithm']} state lacks {', '.join(missing[:5])}"
                             f"{' ...' if len(missing) > 5 else ''}, which this olk's {meta['algorithm']} has; "
                             f"retrain the model with this olk (or load it with the olk that wrote it)")


class _Decoder:
    """The inverse of :class:`_Encoder`: JSON value + arrays -> Python objects, numbering shared-able values in
    the same (document) order."""

    def __init__(self, arrays: dict, where: str):
        self.arrays = arrays
        self.where = where
        self.memo: list = []

    def _bad(self, why: str) -> ModelFileError:
        return ModelFileError(f"{self.where}: corrupted or incompatible olk model file ({why})")

    def _slot(self, obj=None) -> int:
        self.memo.append(obj)
        return len(self.memo) - 1

    def _array(self, key):
        if key not in self.arrays:
            raise self._bad(f"array entry {key!r} is missing")
        return self.arrays[key]

    def decode(self, e):
        if e is None or isinstance(e, (bool, int, float, str)):
            return e
        if isinstance(e, list):
            out: list = []
            self._slot(out)
            out.extend(self.decode(x) for x in e)
            return out
        if not isinstance(e, dict):
            raise self._bad(f"unexpected JSON value {e!r}")
        tag = e.get(TAG)
        if tag is None:
            out = {}
            self._slot(out)
            for k, x in e.items():
                out[k] = self.decode(x)
            return out
        method = getattr(self, f"_d_{tag}", None)
        if method is None:
            raise self._bad(f"unknown value type {tag!r}")
        return method(e)

    # one method per tag, reading children in the order the encoder wrote them
    def _d_float(self, e):
        return float(e["value"])

    def _d_scalar(self, e):
        dtype = np.dtype(e["dtype"])
        if "key" in e:
            return self._array(e["key"])[()]
        v = e["value"]
        return dtype.type(float(v) if isinstance(v, str) else v)

    def _d_array(self, e):
        a = self._array(e["key"])
        if e.get("readonly"):
            a.flags.writeable = False
        self._slot(a)
        return a

    def _d_tuple(self, e):
        return tuple(self.decode(x) for x in e["items"])

    def _d_frozenset(self, e):
        return frozenset(self.decode(x) for x in e["items"])

    def _d_set(self, e):
        i = self._slot()
        out = set(self.decode(x) for x in e["items"])
        self.memo[i] = out
        return out

    def _d_deque(self, e):
        out = collections.deque(maxlen=e.get("maxlen"))
        self._slot(out)
        out.extend(self.decode(x) for x in e["items"])
        return out

    def _d_dict(self, e):
        out = {}
        self._slot(out)
        for k, x in e["items"]:
            out[self.decode(k)] = self.decode(x)
        return out

    def _d_ref(self, e):
        i = e["id"]
        if type(i) is not int or not 0 <= i < len(self.memo) or self.memo[i] is None:
            raise self._bad(f"reference {i!r} to no object")
        return self.memo[i]

    def _d_kernel(self, e):
        from .kernels import Kernel, make_kernel
        if "fields" in e:
            f = dict(e["fields"])
            if f.get("cols") is not None:
                f["cols"] = tuple(f["cols"])
            return Kernel(**f)
        return make_kernel(dict(e["spec"]), "kernel")

    def _d_kernels(self, e):
        from .kernels import KernelSet
        return KernelSet(tuple(self._d_kernel(k) for k in e["kernels"]))

    def _d_generator(self, e):
        i = self._slot()
        state = self.decode(e["state"])
        name = state.get("bit_generator") if isinstance(state, dict) else None
        if name not in _BIT_GENERATORS:
            raise self._bad(f"unknown bit generator {name!r}")
        bitgen = getattr(np.random, name)()
        bitgen.state = state
        self.memo[i] = g = np.random.Generator(bitgen)
        return g

    def _d_random_state(self, e):
        i = self._slot()
        rs = np.random.RandomState()
        rs.set_state(self.decode(e["state"]))
        self.memo[i] = rs
        return rs

    def _d_svpool(self, e):
        from ._core.svpool import _rebuild_pool
        i = self._slot()
        state = self.decode(e["state"])
        _check_pool_state(state, self._bad)     # the core reads these arrays without bounds checks
        self.memo[i] = pool = _rebuild_pool(state)
        return pool

    def _d_object(self, e):
        cls = self._class(e["class"])
        obj = cls.__new__(cls)
        self._slot(obj)
        state = self.decode(e["state"])
        if not isinstance(state, dict):
            raise self._bad(f"the state of a {e['class']} is not a dict")
        _set_state(obj, state)
        return obj

    def _class(self, name) -> type:
        """The class a file names, from the allow-list only (exact names; no attribute of any module is looked up
        from the file's text)."""
        if isinstance(name, str) and name in FOREIGN:
            try:
                return _foreign(name)
            except (ImportError, AttributeError):
                raise self._bad(f"it holds a {name}, which needs a library this Python lacks") from None
        cls = allowed_classes().get(name) if isinstance(name, str) else None
        if cls is None:
            raise self._bad(f"class {str(name)[:80]!r} is not one a model file may hold (olk builds only its "
                            f"registered learners, its own value types and {', '.join(sorted(FOREIGN)[:2])}, ...)")
        return cls


__all__ = ["save", "load", "FORMAT", "FORMAT_VERSION", "ModelFileError"]
