"""Where olk finds things that live outside the package: the repository root and the results directory."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def repo_root() -> Path | None:
    """The source checkout olk runs from (the directory holding pyproject.toml next to olk/), else None.

    None when olk is installed as a wheel outside a checkout; callers then fall back to the
    current directory or to data shipped inside the package.
    """
    cand = PACKAGE_DIR.parent
    if (cand / "pyproject.toml").is_file() and (cand / "olk").is_dir():
        return cand
    return None


def project_dir() -> Path:
    """The directory relative paths in configs are resolved against: $OLK_HOME, the checkout, or cwd."""
    env = os.environ.get("OLK_HOME")
    if env:
        return Path(env)
    return repo_root() or Path.cwd()


def cli_path(**kw):
    """A ``click.Path`` type (the same keywords) that refuses an empty path in one line: ``--out ''`` names no
    directory, and taken as "not given" it would write somewhere the user did not ask for (``results/<name>``, the
    current directory).  click is imported when the command line is built, not by ``import olk``."""
    import click

    class NonEmptyPath(click.Path):
        def convert(self, value, param, ctx):
            if isinstance(value, str) and not value.strip():
                self.fail("an empty path names no file or directory; give one, or leave the option out", param,
                          ctx)
            return super().convert(value, param, ctx)

    return NonEmptyPath(**kw)


def path_name_problem(name: str) -> str | None:
    """Why `name` (an experiment's name, which becomes the directory ``results/<name>``) cannot be one directory
    name, or None: empty, ``.`` or ``..``, a ``/`` or ``\\``, a NUL or another control character, or longer than a
    file name may be (255 bytes)."""
    if not name.strip():
        return "it is empty"
    if name in (".", ".."):
        return f"{name!r} is not a name of its own"
    if "/" in name or "\\" in name:
        return "it holds a path separator ('/' or '\\')"
    if not name.isprintable():
        return "it holds a NUL or another control character"
    if len(os.fsencode(name)) > 255:
        return f"it is {len(os.fsencode(name)):,} bytes long, more than a file name may be (255)"
    return None
