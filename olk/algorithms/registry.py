"""The algorithm registry: every learner registered by name with its parameters, defaults and checks.

``make("spa", beta=20)`` validates names and values and returns a ready learner; unknown names and
parameters get a did-you-mean, out-of-range values a one-line :class:`~olk.errors.ConfigError`.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ..errors import ConfigError, did_you_mean

#: Param.legacy when not given: the default
_SAME = object()


@dataclass(frozen=True)
class Param:
    """One hyper-parameter: name, type, default, a validity check and a one-line doc."""

    name: str
    default: Any
    doc: str = ""
    type: Any = float               # a type (float, int, str, bool) or a converter such as NumberOr
    check: Optional[Callable[[Any], bool]] = None
    requirement: str = ""          # human text of `check`, e.g. "> 0"
    choices: tuple = ()
    symbol: str = ""               # the paper's letter, e.g. "B" for a budget: how a matched value is named in a row
    #: the value that gives the learner's behaviour from before this parameter existed (results and regression
    #: baselines written then count as having it); a new parameter whose default keeps that behaviour needs none
    legacy: Any = _SAME

    @property
    def before(self) -> Any:
        """The value that keeps the behaviour from before the parameter existed (``legacy``, else ``default``)."""
        return self.default if self.legacy is _SAME else self.legacy

    def numpydoc(self) -> str:
        """The parameter's entry in a numpydoc "Parameters" section (the estimator and River class docstrings)."""
        kind = " | ".join(map(repr, self.choices)) if self.choices else getattr(self.type, "__name__", str(self.type))
        extra = f" ({self.requirement})" if self.requirement and not self.choices else ""
        return f"{self.name} : {kind}, default={self.default!r}\n    {self.doc}{extra}."

    def coerce(self, value, where: str):
        if self.choices:
            if value not in self.choices:
                raise ConfigError(f"{where}: must be one of {', '.join(map(str, self.choices))} (got {value!r})"
                                  f"{did_you_mean(value, self.choices)}")
            return value
        try:
            if self.type is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                v = int(value)
            elif self.type is bool:
                if not isinstance(value, bool):
                    raise ValueError
                v = value
            else:
                v = self.type(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: expected {self.type.__name__}, got {value!r}") from None
        if self.type is float and not math.isfinite(v):
            raise ConfigError(f"{where}: expected a finite number, got {value!r}")
        if self.check is not None and not self.check(v):
            raise ConfigError(f"{where}: must be {self.requirement} (got {v!r})")
        return v


@dataclass(frozen=True)
class NumberOr:
    """A :class:`Param` type: a number (an integer with ``integer=True``) or one keyword -- a rule such as
    ``'R/sqrt(T)'`` or ``'auto'`` that the learner resolves itself, or ``'none'`` (returned as None).  The keyword
    is matched ignoring case and spaces and returned as written here; its ``__name__`` is what the registry's
    one-line error says the value should be ("expected a number or 'auto'").

    >>> auto = NumberOr("auto"); auto(" AUTO "), auto(3), auto.__name__
    ('auto', 3.0, "a number or 'auto'")
    >>> NumberOr("none")("null") is None, NumberOr("p", integer=True)(4)
    (True, 4)
    """

    keyword: str
    integer: bool = False

    @property
    def __name__(self) -> str:
        return f"{'an integer' if self.integer else 'a number'} or '{self.keyword}'"

    def __call__(self, v):
        if v is None and self.keyword == "none":
            return None
        if isinstance(v, str):
            word = "".join(v.split()).casefold()
            if word == "".join(self.keyword.split()).casefold() or (self.keyword == "none" and word in ("null", "")):
                return None if self.keyword == "none" else self.keyword
        if isinstance(v, bool):
            raise ValueError(v)
        if self.integer:
            if isinstance(v, float) and not v.is_integer():
                raise ValueError(v)
            return int(v)
        v = float(v)
        if not math.isfinite(v):
            raise ValueError(v)
        return v


@dataclass(frozen=True)
class Reproducibility:
    """How exactly a learner's results reproduce on another machine (``olk regress`` holds it to this).

    ``exact``: its decisions depend only on olk's own compiled loops (fixed summation order, the core's
    portable exp, integer powers) and its seeded RNG, so mistakes, #SV and accuracies must match the
    baseline bit for bit on any host.  Otherwise its arithmetic goes through code olk does not control
    (BLAS/LAPACK, libm's CPU-dispatched exp, a third-party solver) and the stated tolerances apply:
    ``mistakes`` (absolute, per run), ``accuracy`` (points, on the mean over permutations, online and
    test accuracy alike), ``n_sv`` (relative, on the mean #SV).  ``reason`` says which path and the
    measured spread behind the numbers.  On one machine every learner is bit-identical across
    ``n_jobs`` and resume whatever it declares here.
    """

    exact: bool = True
    mistakes: int = 0
    accuracy: float = 0.0
    n_sv: float = 0.0
    mse: float = 1e-6           # regression: relative, on the mean online MSE (and labelling efficiency)
    reason: str = "olk's own compiled loops and seeded RNG only"

    def label(self) -> str:
        if self.exact:
            return "exact"
        return (f"±{self.mistakes} mistakes/run, ±{self.accuracy:g} points, ±{self.n_sv:.0%} #SV, "
                f"±{self.mse:g} MSE (rel.)")


EXACT = Reproducibility()

#: the check of a parameter that must be positive: ``Param("C", 1.0, "...", **POSITIVE)``
POSITIVE: dict[str, Any] = dict(check=lambda v: v > 0, requirement="> 0")


class Registry(MutableMapping):
    """name -> learner class (:class:`olk.algorithms.protocol.Learner`), filled as learner modules are imported:
    each registers itself (``@register``).  Looking one name up imports only that learner's module (and what it
    imports), found in the index of name -> module that :func:`load_all` keeps beside the bytecode; iterating,
    ``len`` and a name the index does not know import every learner module first (:func:`load_all`), so the
    registry always answers as if everything had been imported.  Iteration is in name order."""

    def __init__(self):
        self._classes: dict[str, Any] = {}
        self.complete = False               # every learner module imported

    def __getitem__(self, name):
        try:
            return self._classes[name]
        except KeyError:
            if self.complete:
                raise
        _import_for(name)
        return self._classes[name]

    def __setitem__(self, name, cls):
        self._classes[name] = cls

    def __delitem__(self, name):
        del self._classes[name]

    def __iter__(self):
        load_all()
        return iter(self._classes)

    def __len__(self):
        load_all()
        return len(self._classes)

    def holds(self, cls) -> bool:
        """Whether `cls` is a registered learner class, without importing anything (a class that exists was
        registered when its module was imported)."""
        name = getattr(cls, "name", None)
        return isinstance(name, str) and self._classes.get(name) is cls


REGISTRY = Registry()
ALIASES: dict[str, str] = {}
#: olk's own value classes a learner may hold in its state besides other learners (a Forgetron's bookkeeping, a
#: SimpleMKL solution): with the registered learners, the only olk classes a model file may name (olk.persist)
VALUE_TYPES: list[type] = []


def value_type(cls):
    """Class decorator: `cls` is a plain value a learner's state may hold, so a saved model may contain it
    (:mod:`olk.persist` builds it with ``__new__`` + its attributes; it must hold data only)."""
    if cls not in VALUE_TYPES:
        VALUE_TYPES.append(cls)
    return cls


def register(cls):
    """Class decorator: add a learner class (with ``name``, ``display``, ``params``) to the registry."""
    if cls.name in REGISTRY._classes:          # (not `in REGISTRY`: that would import learner modules)
        raise RuntimeError(f"algorithm {cls.name!r} registered twice")
    REGISTRY[cls.name] = cls
    for a in getattr(cls, "aliases", ()):
        ALIASES[a] = cls.name
    return cls


def resolve_name(name: str, where: str = "algorithm") -> str:
    key = str(name).lower().replace("-", "_")
    if key not in REGISTRY._classes and key not in ALIASES:
        _import_for(key)
    key = ALIASES.get(key, key)
    if key not in REGISTRY:
        raise ConfigError(f"{where}: unknown algorithm '{name}'{did_you_mean(key, list(REGISTRY) + list(ALIASES))}"
                          f"; run 'olk algorithms' to list them")
    return key


def get(name: str, where: str = "algorithm"):
    return REGISTRY[resolve_name(name, where)]


def unknown_param_error(cls, key: str, value, where: str) -> ConfigError:
    """The one-line error for a parameter `key` that learner class `cls` does not have.  An old name listed
    in ``cls.renamed`` ({old: (new, when)}) says what to write instead; any other name gets a did-you-mean."""
    specs = {p.name: p for p in cls.params}
    if key in getattr(cls, "renamed", {}):
        new, when, *convert = cls.renamed[key]          # (new, when[, old value -> new value])
        choices = f" ({'|'.join(map(str, specs[new].choices))})" if specs[new].choices else ""
        if convert:
            try:
                value = convert[0](value)
            except (TypeError, ValueError):
                pass
        return ConfigError(f"{where}.{key}: renamed to '{new}'{choices} {when}; write {new}: {value}")
    return ConfigError(f"{where}: unknown parameter '{key}' for {cls.name}{did_you_mean(key, specs)}"
                       f"; its parameters are: {', '.join(specs) or 'none'}")


class Checked(dict):
    """A learner's full parameters as :func:`check_params_of` returns them: every value typed and checked, the
    defaults filled, the cross-parameter check passed, for learner class ``cls``.  What a run spec holds
    (:class:`olk.experiment.spec.RunSpec`): a learner built from it with :func:`build` is not checked again."""

    def __init__(self, cls, values: dict):
        super().__init__(values)
        self.cls = cls

    def __reduce__(self):           # pickles (joblib, Dask) as the class and the plain values
        return (Checked, (self.cls, dict(self)))


def check_params_of(cls, params: dict, where: str = "") -> Checked:
    """The one parameter check: `params` against learner class `cls`'s Params (names, types, ranges) and its
    cross-parameter ``check_params``; returns the full parameter dict with defaults filled (:class:`Checked`).
    Every way of building a learner from the user's values goes through it (the learner's constructor calls it);
    the engine checks a run's parameters once, when the planner makes its spec, and builds the learner from them
    with :func:`build`."""
    specs = {p.name: p for p in cls.params}
    out = {}
    for key, val in (params or {}).items():
        if key not in specs:
            raise unknown_param_error(cls, key, val, where or cls.name)
        out[key] = specs[key].coerce(val, f"{where + '.' if where else ''}{key}")
    full = {p.name: out.get(p.name, p.default) for p in cls.params}
    cls.check_params(full, where or cls.name)
    return Checked(cls, full)


def validate_params(name: str, params: dict, where: str = "") -> Checked:
    """:func:`check_params_of` for the learner registered as `name`."""
    return check_params_of(get(name, where or "algorithm"), params, where)


def make(name: str, kernel=None, random_state=None, *, where: str = "", **params: Any):
    """Instantiate a registered learner; parameter errors name `where` (e.g. the config entry)."""
    cls = get(name, where or "algorithm")
    return cls(kernel=kernel, random_state=random_state, where=where, **params)


def build(params: Checked, kernel=None, random_state=None, where: str = ""):
    """The learner of parameters checked by :func:`check_params_of` (a run spec's), built without checking them
    again; the kernel as built by :func:`olk.kernels.build_kernel`."""
    return params.cls(kernel=kernel, random_state=random_state, where=where, checked=params)


def import_modules(package: str, path) -> None:
    """Import every module of `package` (its ``__path__``) and, recursively, of its subpackages: how every learner
    registers itself (``@register``, when its module is imported), so a new learner is one new module and a new
    family one new subpackage, with no import line to edit."""
    import importlib
    import pkgutil
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if not info.name.startswith("_"):
            mod = importlib.import_module(f"{package}.{info.name}")
            if info.ispkg:
                import_modules(mod.__name__, mod.__path__)


# ------------------------------------------------------------------------------ importing learners on demand
#: olk/algorithms, and the index of its learners: {"sources": [[file, size, mtime_ns], ...] of every .py below it,
#: "learners": {name or alias: [name, module]}}, kept where Python keeps the package's bytecode (a code cache,
#: not a data cache: ``$OLK_CACHE`` does not hold it); valid only while every source file is as it was
_ROOT = Path(__file__).resolve().parent
_INDEX = _ROOT / "__pycache__" / "learner-index.json"
_index: dict | None = None


def _sources() -> list[list]:
    out = []
    for dirpath, dirnames, filenames in os.walk(_ROOT):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                st = os.stat(os.path.join(dirpath, f))
                out.append([os.path.relpath(os.path.join(dirpath, f), _ROOT), st.st_size, st.st_mtime_ns])
    return out


def _read_index() -> dict:
    """{name or alias: [name, module]} from the index file, or {} when it is missing, damaged or stale."""
    global _index
    if _index is None:
        try:
            doc = json.loads(_INDEX.read_text(encoding="utf-8"))
            _index = doc["learners"] if doc.get("sources") == _sources() and isinstance(doc["learners"], dict) else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            _index = {}
    return _index


def _write_index() -> None:
    """The index of the complete registry (written atomically; nothing if the directory is not writable)."""
    global _index
    learners = {n: [n, c.__module__] for n, c in REGISTRY._classes.items()}
    learners.update({a: [n, REGISTRY._classes[n].__module__] for a, n in ALIASES.items()})
    if _read_index() == learners:
        return
    _index = learners
    tmp = _INDEX.with_name(f"{_INDEX.name}.{os.getpid()}.tmp")
    try:
        _INDEX.parent.mkdir(exist_ok=True)
        tmp.write_text(json.dumps({"sources": _sources(), "learners": learners}), encoding="utf-8")
        os.replace(tmp, _INDEX)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _import_for(key: str) -> None:
    """Register the learner `key` names (a name or an alias): import its module from the index; if the index does
    not know it (a new learner, a stale or missing index), import every learner module."""
    import importlib
    if REGISTRY.complete:
        return
    entry = _read_index().get(key)
    if entry is not None:
        importlib.import_module(entry[1])
        if entry[0] in REGISTRY._classes:
            return
    load_all()


def load_all() -> None:
    """Import every learner module (each registers itself), order the registry by name and refresh the index."""
    if REGISTRY.complete:
        return
    import_modules(__package__, [str(_ROOT)])
    REGISTRY._classes = dict(sorted(REGISTRY._classes.items()))
    REGISTRY.complete = True
    _write_index()


def available() -> list[str]:
    """The sorted names of the registered learners (every learner module imported first)."""
    return sorted(REGISTRY)
