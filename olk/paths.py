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
