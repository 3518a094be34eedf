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
