"""The JSON values of a model file: a learner's state (any mix of Python, NumPy and olk objects) <-> one JSON
document plus the NumPy arrays stored beside it (:mod:`.format` holds the archive).

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
"""
from __future__ import annotations

import collections
import enum
import math
import re
from typing import Any

import numpy as np

from ..errors import OlkError
from .allowlist import BIT_GENERATORS, FOREIGN, allowed_classes, class_name, foreign
from .checks import check_pool_state
from .format import META, TAG, ModelFileError


class Encoder:
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
        from .._core.svpool import RowSource
        from ..algorithms.common.learner import KernelEstimator
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
        from ..kernels import Kernel, KernelSet
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
        from .._core.svpool import RowSource, SVPool
        if t is SVPool:
            self._number(v)
            fn, (state,) = v.__reduce__()
            return {TAG: "svpool", "state": self.encode(state, where)}
        if t is RowSource:
            raise self._refuse(v, where, " (bound data: a model keeps copies of its support vectors, never the data)")
        cls = None if isinstance(v, enum.Enum) else class_name(t)     # an enum member must stay unique
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
        from ..kernels import make_kernel
        spec = k.to_dict()
        out = {TAG: "kernel", "spec": spec}
        if make_kernel(dict(spec)) != k:    # built by hand with fields the canonical form leaves out
            from dataclasses import asdict
            out["fields"] = {f: (list(x) if isinstance(x, tuple) else x) for f, x in asdict(k).items()}
        return out


def _attr(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def set_state(obj, state: dict) -> None:
    setstate = getattr(type(obj), "__setstate__", None)
    if setstate is not None:
        obj.__setstate__(state)
    else:
        obj.__dict__.update(state)


class Decoder:
    """The inverse of :class:`Encoder`: JSON value + arrays -> Python objects, numbering shared-able values in
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
        from ..kernels import Kernel, make_kernel
        if "fields" in e:
            f = dict(e["fields"])
            if f.get("cols") is not None:
                f["cols"] = tuple(f["cols"])
            return Kernel(**f)
        return make_kernel(dict(e["spec"]), "kernel")

    def _d_kernels(self, e):
        from ..kernels import KernelSet
        return KernelSet(tuple(self._d_kernel(k) for k in e["kernels"]))

    def _d_generator(self, e):
        i = self._slot()
        state = self.decode(e["state"])
        name = state.get("bit_generator") if isinstance(state, dict) else None
        if name not in BIT_GENERATORS:
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
        from .._core.svpool import _rebuild_pool
        i = self._slot()
        state = self.decode(e["state"])
        check_pool_state(state, self._bad)     # the core reads these arrays without bounds checks
        self.memo[i] = pool = _rebuild_pool(state)
        return pool

    def _d_object(self, e):
        cls = self._class(e["class"])
        obj = cls.__new__(cls)
        self._slot(obj)
        state = self.decode(e["state"])
        if not isinstance(state, dict):
            raise self._bad(f"the state of a {e['class']} is not a dict")
        set_state(obj, state)
        return obj

    def _class(self, name) -> type:
        """The class a file names, from the allow-list only (exact names; no attribute of any module is looked up
        from the file's text)."""
        if isinstance(name, str) and name in FOREIGN:
            try:
                return foreign(name)
            except (ImportError, AttributeError):
                raise self._bad(f"it holds a {name}, which needs a library this Python lacks") from None
        cls = allowed_classes().get(name) if isinstance(name, str) else None
        if cls is None:
            raise self._bad(f"class {str(name)[:80]!r} is not one a model file may hold (olk builds only its "
                            f"registered learners, its own value types and {', '.join(sorted(FOREIGN)[:2])}, ...)")
        return cls


