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
from . import plugins

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
    """Class decorator: add a learner class (with ``name``, ``display``, ``params``) to the registry.

    The one way in for every learner, olk's own and a plugin's (:mod:`olk.algorithms.plugins`).  A learner from
    outside olk may not take a built-in's name or alias, nor another plugin's: one line says whose it is."""
    if not plugins.is_builtin(cls):
        return _register_external(cls)
    if cls.name in REGISTRY._classes:          # (not `in REGISTRY`: that would import learner modules)
        raise RuntimeError(f"algorithm {cls.name!r} registered twice")
    REGISTRY[cls.name] = cls
    for a in getattr(cls, "aliases", ()):
        ALIASES[a] = cls.name
    return cls


def _register_external(cls):
    """:func:`register` for a class defined outside olk: its declarations' shape and its names checked first."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    name = getattr(cls, "name", None)
    if not (isinstance(name, str) and name.isidentifier() and name == name.lower()):
        raise ConfigError(f"{where}: a learner needs a class attribute name = '...' in lower case (a Python "
                          f"identifier such as 'my_budget_perceptron'; got {name!r})")
    aliases = getattr(cls, "aliases", ())
    if not (isinstance(aliases, tuple) and all(isinstance(a, str) for a in aliases)):
        raise ConfigError(f"{where}: aliases must be a tuple of names (got {aliases!r})")
    if not (isinstance(getattr(cls, "params", None), tuple) and all(isinstance(p, Param) for p in cls.params)):
        raise ConfigError(f"{where}: params must be a tuple of olk.algorithms.Param (got {cls.params!r})")
    builtin = _builtin_names()
    for key in (name, *aliases):
        if key in builtin:
            own = builtin[key]
            raise ConfigError(f"{where}: the name '{key}' is olk's built-in learner {own}; give your learner "
                              f"another name (its class attribute name = '...')")
        other = REGISTRY._classes.get(ALIASES.get(key, key))
        if other is not None and other is not cls and not _same_class(other, cls):
            raise ConfigError(f"{where}: the name '{key}' is already taken by {other.__module__}."
                              f"{other.__qualname__} ({plugins.origin_of(other).text()}); rename one of them")
    REGISTRY._classes[name] = cls
    for a in aliases:
        ALIASES[a] = name
    return cls


def _same_class(a, b) -> bool:
    """The same class imported twice (a module re-imported under the same name): not a clash."""
    return (a.__module__, a.__qualname__) == (b.__module__, b.__qualname__)


def _builtin_names() -> dict[str, str]:
    """Every built-in learner's name and alias -> 'Display (module)', from the index when it is current, else
    from importing olk's learner modules."""
    index = _read_index()
    if not index:
        _load_builtins()
        index = {n: [n, c.__module__] for n, c in REGISTRY._classes.items() if plugins.is_builtin(c)}
        index.update({a: [n, REGISTRY._classes[n].__module__] for a, n in ALIASES.items()
                      if plugins.is_builtin(REGISTRY._classes[n])})
    return {k: f"'{v[0]}' ({v[1]})" for k, v in index.items()}


def origin(name: str) -> plugins.Origin:
    """Where the learner registered as `name` comes from (built-in, an entry point, a plugin module)."""
    return plugins.origin_of(get(name))


def load_plugin(spec: str, base=None, where: str = "--plugin") -> list[str]:
    """Import a plugin module (:func:`olk.algorithms.plugins.import_plugin`: a config's ``plugins:`` entry, relative
    to `base`, or ``--plugin``); a ``module:Class`` whose class is not registered yet is registered.  Returns the
    registry names the plugin's module holds; a module that registers no learner is one line."""
    before = set(REGISTRY._classes)
    org, obj = plugins.import_plugin(spec, base, where)
    if obj is not None:
        if not (isinstance(obj, type) and callable(getattr(obj, "step", None)) or getattr(obj, "batch", False)):
            raise ConfigError(f"{where}: plugin {spec}: {obj!r} is not a learner class (subclass "
                              f"olk.algorithms.OnlineKernelLearner)")
        if not REGISTRY.holds(obj):
            _wrap(where, spec, register, obj)
        return [str(getattr(obj, "name", ""))]
    names = [n for n, c in REGISTRY._classes.items()
             if n not in before or plugins.origin_of(c).module == org.module]
    if not names:
        raise ConfigError(f"{where}: plugin {spec} registered no learner; decorate its class with "
                          f"@olk.algorithms.register (see the guide 'Write your own learner')")
    return sorted(names)


def _wrap(where, spec, fn, *args):
    try:
        return fn(*args)
    except ConfigError as e:
        raise ConfigError(f"{where}: plugin {spec}: {e}") from None


def resolve_name(name: str, where: str = "algorithm") -> str:
    key = str(name).lower().replace("-", "_")
    if key not in REGISTRY._classes and key not in ALIASES:
        _import_for(key)
    key = ALIASES.get(key, key)
    if key not in REGISTRY:
        broken = f" ({'; '.join(msg for _, msg in plugins.BROKEN)})" if plugins.BROKEN else ""
        raise ConfigError(f"{where}: unknown algorithm '{name}'{did_you_mean(key, list(REGISTRY) + list(ALIASES))}"
                          f"; run 'olk algorithms' to list them, and load a learner of your own with --plugin "
                          f"MODULE or the config's plugins: [MODULE]{broken}")
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

    def __reduce__(self):
        """Pickles (joblib, Dask) as the class and the plain values; a learner from outside olk as its registry
        name and :class:`~olk.algorithms.plugins.Origin`, so that a worker imports its module first
        (:func:`_checked_in_worker`)."""
        if plugins.is_builtin(self.cls) or isinstance(self.cls, _Unimportable):
            return (Checked, (self.cls, dict(self)))
        return (_checked_in_worker, (self.cls.name, plugins.origin_of(self.cls), dict(self)))


class _Unimportable:
    """Stands for a learner class a worker could not import: building it raises the one-line reason (so the run,
    not the unpickling of its task, fails, and the error reaches the user as any run's error does)."""

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason

    def __call__(self, *args, **kwargs):
        raise ConfigError(self.reason)

    def __reduce__(self):
        return (_Unimportable, (self.name, self.reason))


def _checked_in_worker(name: str, org: plugins.Origin, values: dict) -> Checked:
    """Unpickling a plugin learner's parameters in a worker: import its module unless it is registered."""
    cls = REGISTRY._classes.get(name)
    if cls is None:
        reason = plugins.ensure(name, org)
        cls = REGISTRY._classes.get(name)
        if cls is None:
            cls = _Unimportable(name, reason or f"learner '{name}': its module '{org.module}' registered no learner "
                                                f"of that name in this worker")
    return Checked(cls, values)


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
    """The index of olk's own learners (written atomically; nothing if the directory is not writable)."""
    global _index
    own = {n: c for n, c in REGISTRY._classes.items() if plugins.is_builtin(c)}
    learners = {n: [n, c.__module__] for n, c in own.items()}
    learners.update({a: [n, own[n].__module__] for a, n in ALIASES.items() if n in own})
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


_builtins_loaded = False


def _load_builtins() -> None:
    """Import every module of olk's own learners (each registers itself)."""
    global _builtins_loaded
    if not _builtins_loaded:
        import_modules(__package__, [str(_ROOT)])
        _builtins_loaded = True


def load_all() -> None:
    """Import every learner module, olk's own and the installed packages' (entry-point group ``olk.learners``),
    order the registry by name and refresh the index.  An entry point that fails to import is one warning line
    (:class:`PluginWarning`) and is left out; an unknown name then says why."""
    if REGISTRY.complete:
        return
    _load_builtins()
    REGISTRY.complete = True            # (before the entry points: a plugin's register() may look names up)
    for ep in plugins.entry_points():
        try:
            obj = plugins.load_entry_point(ep)
            if isinstance(obj, type) and not REGISTRY.holds(obj):
                register(obj)
        except ConfigError as e:
            import warnings
            warnings.warn(str(e), PluginWarning, stacklevel=2)
    REGISTRY._classes = dict(sorted(REGISTRY._classes.items()))
    _write_index()


class PluginWarning(UserWarning):
    """An installed learner package (entry point) that could not be loaded: the CLI prints it as one line."""


def available() -> list[str]:
    """The sorted names of the registered learners (every learner module imported first)."""
    return sorted(REGISTRY)
