"""Learners from outside olk: where a registered learner class came from, and how its module is imported.

A learner written outside olk's tree registers itself exactly as a built-in one does (``@register`` from
:mod:`olk.algorithms`, when its module is imported: one registry); what differs is only how its module gets
imported.  Three ways, all ending in :func:`import_plugin`:

* **an installed package** declares its module in the entry-point group ``olk.learners`` (``[project.entry-points.
  "olk.learners"] mylearner = "mylearner"`` in its pyproject.toml; ``module:Class`` names one class, registered if
  its module did not register it).  :func:`entry_points` lists them; the registry loads them when it lists every
  learner or meets a name it does not know (:func:`olk.algorithms.registry.load_all`).
* **a local module** named by a config (``plugins: [mylearner]``: resolved relative to the config's folder first)
  or on the command line (``olk --plugin mylearner ...``: relative to the working directory first): ``mylearner``
  is ``mylearner.py`` or the package folder ``mylearner/`` there, else an importable module; a path to a ``.py``
  file or a package folder works too; ``mylearner:MarginRandomBudget`` names one class.
* **imported by the user's own code** (a script that imports its module and calls :func:`olk.cli.main`): such a
  class is registered, its origin is "module".

Every registered class has an :class:`Origin` (:func:`origin_of`), which ``olk algorithms`` prints and which tells
a worker process how to import the module again (:func:`ensure`): a joblib worker or a Dask worker on another
machine unpickles a run's learner class by its registry name and origin
(:meth:`olk.algorithms.registry.Checked.__reduce__`), imports the module if it has to, and when it cannot, the run
fails with one line naming the module and how to ship it.

This module imports nothing of the registry (the registry imports it).
"""
from __future__ import annotations

import contextlib
import importlib
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, excerpt

#: the entry-point group of installed learner packages
GROUP = "olk.learners"
#: where the documentation tells how to get a plugin onto a cluster's workers
SHIP_DOC = "docs/guide/memory-and-clusters.md (plugins on a cluster)"


@dataclass(frozen=True)
class Origin:
    """Where a learner class came from: ``kind`` is ``built-in``, ``entry point`` (an installed package),
    ``plugin`` (a local module named by a config or ``--plugin``) or ``module`` (imported by the user's code);
    ``module`` the module imported; ``source`` the file (plugin) or the package and version (entry point);
    ``path`` the folder a worker puts on ``sys.path`` to import a plugin module (None: importable as installed)."""

    kind: str
    module: str
    source: str = ""
    path: str | None = None

    def text(self) -> str:
        """One phrase for ``olk algorithms`` and error messages."""
        if self.kind == "built-in":
            return "built-in"
        return f"{self.kind} {self.module}" + (f" ({self.source})" if self.source else "")

    def to_json(self) -> dict:
        return {"kind": self.kind, "module": self.module, "source": self.source, "path": self.path}


BUILTIN = Origin("built-in", "olk")
#: module name -> the Origin it was imported with (plugins and entry points this process loaded)
_ORIGINS: dict[str, Origin] = {}
#: entry points that failed to load: (entry point text, one-line reason), named in "unknown algorithm" errors
BROKEN: list[tuple[str, str]] = []


def is_builtin(cls) -> bool:
    mod = getattr(cls, "__module__", "") or ""
    return mod == "olk" or mod.startswith("olk.")


def origin_of(cls) -> Origin:
    """The :class:`Origin` of a learner class (``built-in`` for olk's own)."""
    if is_builtin(cls):
        return BUILTIN
    mod = cls.__module__
    parts = mod.split(".")
    for i in range(len(parts), 0, -1):          # the module itself, else the package it belongs to
        hit = _ORIGINS.get(".".join(parts[:i]))
        if hit is not None:
            return hit
    return Origin("module", mod)


def _one_line(e: BaseException) -> str:
    """An exception as 'Type: message (file line N)', on one line, for a plugin that failed to import."""
    where = ""
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if "importlib" not in code.co_filename and not code.co_filename.endswith("plugins.py"):
            where = f" ({Path(code.co_filename).name} line {tb.tb_lineno})"
        tb = tb.tb_next
    if isinstance(e, SyntaxError) and e.filename:
        where = f" ({Path(e.filename).name} line {e.lineno})"
    return f"{type(e).__name__}: {' '.join(str(e).split())[:200]}{where}"


def _split(spec: str) -> tuple[str, str | None]:
    """'mylearner:Class' -> ('mylearner', 'Class'); a Windows drive letter is not a class."""
    head, sep, tail = spec.rpartition(":")
    if sep and tail.isidentifier() and head and not (len(head) == 1 and head.isalpha()):
        return head, tail
    return spec, None


def _locate(target: str, base: Path | None) -> tuple[str, Path | None]:
    """(module name, folder to import it from or None) for a plugin target: a ``.py`` file, a package folder,
    a module name found as a file or folder in ``base``, or an installed module (None)."""
    p = Path(target)
    if target.endswith(".py") or os.sep in target or "/" in target:
        full = p if p.is_absolute() or base is None else base / p
        if full.is_file() and full.suffix == ".py":
            return full.stem, full.parent.resolve()
        if full.is_dir() and (full / "__init__.py").is_file():
            return full.name, full.parent.resolve()
        raise ConfigError(f"plugin {target}: no such .py file or package folder "
                          f"({full}); give a module name, a .py file or a folder with __init__.py")
    if not all(part.isidentifier() for part in target.split(".")):
        raise ConfigError(f"plugin {excerpt(target)}: not a module name, a .py file or a package folder; "
                          f"write e.g. plugins: [mylearner] for mylearner.py beside the config")
    if base is not None:
        top = target.split(".")[0]
        if (base / f"{top}.py").is_file() or (base / top / "__init__.py").is_file():
            return target, base.resolve()
    return target, None


@contextlib.contextmanager
def _on_path(folder: Path | None):
    """``folder`` first on ``sys.path`` while the plugin imports (left there: its pickled classes and later imports
    of its own modules need it)."""
    if folder is not None and str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    yield


def import_plugin(spec: str, base: Path | None = None, where: str = "--plugin") -> tuple[Origin, object | None]:
    """Import the plugin `spec` ('mylearner', 'mylearner:Class', 'path/to/file.py', 'pkgdir'); return its
    :class:`Origin` and the object ``:Class`` names (None without one).  Every failure is one line naming
    `where`, the plugin and the fix (a ConfigError)."""
    spec = str(spec).strip()
    if not spec:
        raise ConfigError(f"{where}: an empty plugin name; give a module name such as mylearner")
    target, attr = _split(spec)
    module, folder = _locate(target, base)
    if folder is not None:
        cached = sys.modules.get(module)
        cached_file = getattr(cached, "__file__", None) if cached is not None else None
        if cached_file and not Path(cached_file).resolve().is_relative_to(folder):
            raise ConfigError(f"{where}: plugin {spec}: a module named '{module}' is already imported from "
                              f"{cached_file}; rename the plugin's module")
    source = ""
    try:
        with _on_path(folder):
            mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.split(".")[0] == e.name.split(".")[0]:
            top = module.split(".")[0]
            near = f"no {top}.py or {top}/ in {base}, " if base is not None else ""
            raise ConfigError(f"{where}: plugin '{module}' not found ({near}no installed module of that name); put "
                              f"{top}.py there or give its path, or pip install its package") from None
        raise ConfigError(f"{where}: plugin '{module}' failed to import: {_one_line(e)}") from None
    except ConfigError as e:          # a clash or bad declaration found by @register while it imported
        raise ConfigError(f"{where}: plugin '{module}': {e}") from None
    except Exception as e:            # noqa: BLE001 - the user's module: any error is reported in one line
        raise ConfigError(f"{where}: plugin '{module}' failed to import: {_one_line(e)}") from None
    source = str(getattr(mod, "__file__", "") or "")
    origin = Origin("plugin", module, source, str(folder) if folder is not None else None)
    _ORIGINS.setdefault(module, origin)
    obj = None
    if attr is not None:
        obj = getattr(mod, attr, None)
        if obj is None:
            names = [n for n, v in vars(mod).items() if isinstance(v, type) and v.__module__ == mod.__name__]
            raise ConfigError(f"{where}: plugin {spec}: module '{module}' has no '{attr}'"
                              f"{'; its classes: ' + ', '.join(names) if names else ''}")
    return _ORIGINS[module], obj


def entry_points() -> list:
    """The installed entry points of group :data:`GROUP`, sorted by name."""
    from importlib.metadata import entry_points as eps
    if sys.version_info >= (3, 10):
        found = list(eps(group=GROUP))
    else:                             # pragma: no cover - Python 3.9's importlib.metadata: a dict by group
        found = list(eps().get(GROUP, ()))
    return sorted(found, key=lambda ep: (ep.name, ep.value))


def _dist_text(ep) -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.metadata['Name']} {dist.version}" if dist is not None else "an installed package"


def load_entry_point(ep) -> object | None:
    """Import one entry point's module; returns the object ``module:Class`` names (None for a module).  A failure
    is recorded in :data:`BROKEN` and raised as one ConfigError line naming the entry point and its package."""
    module = ep.value.split(":")[0].strip()
    origin = Origin("entry point", module, _dist_text(ep))
    _ORIGINS.setdefault(module, origin)
    try:
        return ep.load() if ":" in ep.value else importlib.import_module(module)
    except ConfigError as e:
        msg = f"entry point '{ep.name} = {ep.value}' of {origin.source}: {e}"
    except Exception as e:            # noqa: BLE001 - an installed package's module: any error is one line
        msg = f"entry point '{ep.name} = {ep.value}' of {origin.source} failed to import: {_one_line(e)}"
    BROKEN.append((f"{ep.name} = {ep.value}", msg))
    raise ConfigError(f"{msg}; reinstall or uninstall that package")


def ensure(name: str, origin: Origin | None) -> str | None:
    """In a worker process: import the module of learner `name` (from `origin`) if nothing registered it yet.
    Returns None when it worked, else the one-line reason the run will fail with (a worker must not raise while
    a task is being unpickled: the reason travels with the task and :func:`olk.algorithms.registry.build` raises it
    where the run starts)."""
    if origin is None or origin.kind == "built-in":
        return None
    try:
        importlib.invalidate_caches()       # a module shipped to this worker since it started (Dask's upload_file)
        with _on_path(Path(origin.path) if origin.path and Path(origin.path).is_dir() else None):
            importlib.import_module(origin.module)
        return None
    except Exception as e:            # noqa: BLE001 - reported as the run's one-line error
        host = socket.gethostname()
        how = ("install its package on every worker (pip install)" if origin.kind == "entry point" else
               "install it on every worker (pip install) or let olk ship it (--backend dask uploads a plugin file "
               "to the workers it starts the run with)")
        return (f"learner '{name}': the worker on {host} cannot import its {origin.kind} module '{origin.module}' "
                f"({_one_line(e)}); {how}: see {SHIP_DOC}")
