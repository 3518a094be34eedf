"""Where data files are looked for: the data search path."""
from __future__ import annotations

import os
from pathlib import Path

from olk.data.compression import SUFFIXES
from olk.errors import DataError
from olk.paths import project_dir


def search_path(data_dir: str | os.PathLike | list | tuple | None = None) -> list[Path]:
    """Directories searched for data files, in order (deduplicated, not necessarily existing):

    1. ``$OLK_DATA`` (``os.pathsep``-separated),
    2. `data_dir` (the ``data_dir`` argument / config key; a path or a list of paths),
    3. ``<project>/datasets`` and ``<project>/../shared/datasets`` (project = :func:`olk.paths.project_dir`),
    4. ``./datasets`` and ``../shared/datasets`` relative to the current directory.
    """
    dirs: list[Path] = [Path(p) for p in os.environ.get("OLK_DATA", "").split(os.pathsep) if p.strip()]
    if data_dir is not None:
        dirs += [Path(p) for p in ([data_dir] if isinstance(data_dir, (str, os.PathLike)) else data_dir)]
    proj = project_dir()
    dirs += [proj / "datasets", proj.parent / "shared" / "datasets",
             Path("datasets"), Path("..") / "shared" / "datasets"]
    out, seen = [], set()
    for d in dirs:
        d = d.expanduser()
        key = os.path.normcase(os.path.abspath(d))
        if key not in seen:
            seen.add(key)
            out.append(Path(os.path.abspath(d)))
    return out


def find_file(relpath: str, data_dir=None) -> Path | None:
    """First ``<dir>/<relpath>`` (as is, or with .xz/.bz2/.gz) along :func:`search_path`, or None."""
    for d in search_path(data_dir):
        for suffix in SUFFIXES:
            p = d / f"{relpath}{suffix}"
            if p.is_file():
                return p
    return None


def locate(relpath: str, data_dir, dataset: str) -> Path:
    """Like :func:`find_file` but a missing file is a DataError listing every directory searched and the fix."""
    p = find_file(relpath, data_dir)
    if p is None:
        dirs = ", ".join(str(d) for d in search_path(data_dir))
        raise DataError(f"dataset '{dataset}': file '{relpath}' (or .xz/.bz2/.gz) not found in any of: {dirs}; "
                        f"fix: `olk datasets fetch {dataset}`, or set OLK_DATA (or data_dir) to the directory "
                        f"that holds it")
    return p


def first_writable_dir(data_dir=None) -> Path:
    """Where ``olk datasets fetch`` stores files by default: the first existing writable search dir, else
    ``<project>/datasets`` (created) if possible."""
    for d in search_path(data_dir):
        if d.is_dir() and os.access(d, os.W_OK):
            return d
    d = project_dir() / "datasets"
    if not d.exists() and d.parent.is_dir() and os.access(d.parent, os.W_OK):
        return d
    raise DataError("no writable directory in the data search path: pass --dest DIR or set OLK_DATA to a "
                    "writable directory")
