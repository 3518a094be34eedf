"""Helpers that keep heavy imports out of olk's start-up (``olk --help``, ``olk algorithms``, a dense one-pass run).

Nothing can be a scipy sparse matrix before :mod:`scipy.sparse` has been imported, so :func:`issparse` answers
without importing scipy (about 0.1-0.2 s).
"""
from __future__ import annotations

import sys


def issparse(x) -> bool:
    """``scipy.sparse.issparse(x)``, without importing scipy when nothing could be sparse yet."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and hasattr(sp, "issparse") and sp.issparse(x)


def yaml_load(text: str):
    """``yaml.safe_load(text)``, through libyaml's parser when PyYAML has it (about 10x faster: the dataset
    registry takes 8 ms instead of 95).  Both build the same objects (same constructor and resolver).  On an
    error the text is parsed again by the pure-Python loader, so the exception (and the line it names in a
    one-line message) is the one ``yaml.safe_load`` raises."""
    import yaml
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is not None:
        try:
            return yaml.load(text, Loader=loader)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError):
            pass
    return yaml.safe_load(text)


def scipy_version() -> str:
    """scipy's version without importing scipy when it is not loaded yet (its ``version.py`` says it; importing
    scipy costs ~20 ms, importlib.metadata more)."""
    mod = sys.modules.get("scipy")
    if mod is not None and getattr(mod, "__version__", None):
        return str(mod.__version__)
    import importlib.util
    import re
    from pathlib import Path
    try:
        spec = importlib.util.find_spec("scipy")
        text = (Path(spec.origin).parent / "version.py").read_text()
        m = re.search(r"""^version\s*=\s*['"]([^'"]+)['"]""", text, re.MULTILINE)
        if m:
            return m.group(1)
    except (AttributeError, OSError, TypeError, ImportError):
        pass
    import scipy
    return str(scipy.__version__)
