"""Helpers that keep heavy imports out of olk's start-up (``olk --help``, ``olk algorithms``, a dense one-pass run).

Nothing can be a scipy sparse matrix before :mod:`scipy.sparse` has been imported, so :func:`issparse` answers
without importing scipy (about 0.1-0.2 s).
"""
from __future__ import annotations

import sys
from typing import Any


def issparse(x) -> bool:
    """``scipy.sparse.issparse(x)``, without importing scipy when nothing could be sparse yet."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and hasattr(sp, "issparse") and sp.issparse(x)


#: the most values a YAML document may expand to (aliases counted each time they are used): olk's configs and
#: dataset registries hold a few thousand; an "alias bomb" (10 levels of 10 aliases) expands to 10^10
YAML_MAX_VALUES = 1_000_000
#: the longest YAML text olk parses (characters)
YAML_MAX_CHARS = 16 * 1024 * 1024


def yaml_load(text: str):
    """``yaml.safe_load(text)``, bounded: the document is composed first and refused (a ``yaml.YAMLError`` naming
    the line, which every caller already reports in one line) if it is longer than :data:`YAML_MAX_CHARS` or its
    aliases expand to more than :data:`YAML_MAX_VALUES` values or loop, before any object is built -- so a YAML
    alias bomb costs milliseconds, not gigabytes.  Through libyaml's parser when PyYAML has it (about 10x faster:
    the dataset registry takes 8 ms instead of 95); both build the same objects.  On an error the text is parsed
    again by the pure-Python loader, so the exception (and the line it names) is the one ``yaml.safe_load``
    raises."""
    import yaml
    if len(text) > YAML_MAX_CHARS:
        raise _too_big(yaml, f"the text is longer than {YAML_MAX_CHARS:,} characters", None)
    loader_cls = getattr(yaml, "CSafeLoader", None)
    if loader_cls is not None:
        try:
            return _bounded_load(yaml, loader_cls, text)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError) as e:
            if getattr(e, "olk_bound", False):
                raise
    return _bounded_load(yaml, yaml.SafeLoader, text)


def _too_big(yaml, why: str, mark):
    e = yaml.YAMLError(why)
    e.problem, e.problem_mark, e.olk_bound = why, mark, True
    return e


def _bounded_load(yaml, loader_cls, text: str):
    loader = loader_cls(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(yaml, node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_expansion(yaml, root) -> None:
    """How many values `root` expands to when every alias is copied out (memoised per node, so a bomb is counted
    in time proportional to its text); a loop of aliases, or more than YAML_MAX_VALUES, is refused."""
    size: dict[int, int] = {}
    active: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            active.discard(key)
            kids = _children(yaml, node)
            total = 1 + sum(size[id(k)] for k in kids)
            if total > YAML_MAX_VALUES:
                raise _too_big(yaml, f"its aliases expand to more than {YAML_MAX_VALUES:,} values (an alias bomb?); "
                                     f"write the values out or use fewer nested aliases", node.start_mark)
            size[key] = total
            continue
        if key in size:
            continue
        if key in active:
            raise _too_big(yaml, "an alias refers to a value that contains it (a loop)", node.start_mark)
        active.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(yaml, node) if id(k) not in size)


def _children(yaml, node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [x for pair in node.value for x in pair]
    return []


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
        spec: Any = importlib.util.find_spec("scipy")
        text = (Path(spec.origin).parent / "version.py").read_text()
        m = re.search(r"""^version\s*=\s*['"]([^'"]+)['"]""", text, re.MULTILINE)
        if m:
            return m.group(1)
    except (AttributeError, OSError, TypeError, ImportError):
        pass
    import scipy
    return str(scipy.__version__)
