"""The only classes a model file may name: olk's registered learners, its declared value types
(``registry.value_type``), the same classes under their module paths before olk 0.2 (:mod:`.legacy_paths`) and a
short list of foreign classes (:data:`FOREIGN`).  Exact names: no attribute of any module is looked up from a
file's text."""
from __future__ import annotations

import importlib

from .legacy_paths import MOVED_MODULES

#: classes from outside olk a saved model may hold: public name -> (module, attribute)
FOREIGN = {
    "sklearn.svm:SVC": ("sklearn.svm", "SVC"),
    **{f"scipy.sparse:{n}": ("scipy.sparse", n)
       for n in ("csr_matrix", "csc_matrix", "coo_matrix", "csr_array", "csc_array", "coo_array")},
}
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


def qualified(t: type) -> str:
    return f"{t.__module__}:{t.__qualname__}"


def allowed_classes() -> dict[str, type]:
    """The only classes a model file may name, by their 'module:QualName': the registered learners (a learner may
    hold another, e.g. Mutron's perceptrons), olk's value types (``registry.value_type``: a Forgetron's bookkeeping,
    a SimpleMKL solution) and the foreign classes of :data:`FOREIGN` (resolved only when named, from fixed
    module and attribute names).  Loading builds nothing else: no name is looked up in a module."""
    from ..algorithms.registry import REGISTRY, VALUE_TYPES
    out = {qualified(c): c for c in REGISTRY.values()}
    out.update({qualified(c): c for c in VALUE_TYPES})
    old = {f"olk.algorithms.{n}": f"olk.algorithms.{o}" for o, n in MOVED_MODULES.items()}
    for name, c in list(out.items()):
        module, qual = name.split(":", 1)
        if module in old:                      # the same class under its name before the move
            out.setdefault(f"{old[module]}:{qual}", c)
    return out


def foreign(name: str) -> type:
    mod, attr = FOREIGN[name]
    return getattr(importlib.import_module(mod), attr)


def class_name(t: type) -> str | None:
    """'module:QualName' of a class a model file may hold (:func:`allowed_classes`, or the foreign list), else
    None (saving refuses it: a file olk could not read back is never written)."""
    from ..algorithms.registry import REGISTRY, VALUE_TYPES
    name = qualified(t)
    if REGISTRY.holds(t) or t in VALUE_TYPES:  # allowed_classes() without importing every learner (saving a model)
        return name
    for public, (mod, attr) in FOREIGN.items():
        if t.__module__.split(".")[0] == mod.split(".")[0] and t.__name__ == attr:
            try:
                if foreign(public) is t:
                    return public
            except (ImportError, AttributeError):
                continue
    return None

