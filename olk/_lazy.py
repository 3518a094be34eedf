"""Helpers that keep heavy imports out of olk's start-up (``olk --help``, ``olk algorithms``, a dense one-pass run),
and olk's one YAML loader (:func:`yaml_load`, bounded by :mod:`olk.limits`).

Nothing can be a scipy sparse matrix before :mod:`scipy.sparse` has been imported, so :func:`issparse` answers
without importing scipy (about 0.1-0.2 s).  :func:`one_blas_thread` keeps numpy's import from starting a BLAS
thread pool olk does not use (about 40 ms of CPU on a 2-core machine, a third of numpy's import).
"""
from __future__ import annotations

import os
import sys
from typing import Any

#: the variables that size the BLAS thread pool numpy starts at import (OpenBLAS, as in numpy's wheels; MKL)
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: the ones :func:`one_blas_thread` set in this process (not the user): a bench drops them for an older olk
SET_BY_OLK: set[str] = set()


def one_blas_thread() -> None:
    """One BLAS thread for this process and its children, unless the user set the variable: called by the ``olk``
    command (and ``olk bench``'s runner, which stands for it) before numpy is imported.  olk's loops run on one core
    in its own C (fixed summation order); the few BLAS/LAPACK calls it makes (NOGD's eigendecomposition, the OMKL
    bounds) already run under one thread, and parallel runs are separate processes (``-j``), so a BLAS pool would
    only be started -- at every import of numpy, one thread per core -- and then idle or spin.  Once numpy is
    imported the pool exists: then nothing is changed.  ``OPENBLAS_NUM_THREADS=N olk ...`` gives N threads."""
    if "numpy" in sys.modules:
        return
    for name in BLAS_THREAD_VARIABLES:
        if name not in os.environ:
            os.environ[name] = "1"
            SET_BY_OLK.add(name)


def no_exit_collection() -> None:
    """``gc.freeze()`` on the way out of the ``olk`` command (and of ``olk bench``'s runner, which stands for it),
    once its work is done and its output flushed: the interpreter's shutdown then skips the cyclic-garbage
    collection over every object the run imported (numpy's, olk's; about 30 ms of a short run's 0.5 s, measured in
    docs/speed.md).  Nothing is lost: objects are still freed by reference counting as the modules are torn down,
    ``atexit`` and ``weakref.finalize`` hooks (temporary directories, joblib's workers) still run, and only
    unreachable cycles (which the process's end reclaims anyway) are left uncollected.  Not for a library
    user's process, which goes on."""
    import gc
    gc.freeze()


def unique(a):
    """The sorted distinct values of the 1-D array `a` (no NaN: the readers refuse a non-finite label), as
    ``np.unique(a)`` gives them, without its first-call cost: numpy 2's ``unique`` asks ``np.ma.is_masked`` and so
    imports ``numpy.ma``, about 12 ms of a short run's start-up (a dataset's labels, the learning curve's
    checkpoints)."""
    import numpy as np
    s = np.sort(a)
    keep = np.empty(s.shape[0], dtype=bool)
    keep[:1] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def one_blas_thread_here():
    """A context manager for a BLAS/LAPACK call olk wants on one thread: nothing when :func:`one_blas_thread` made
    the pool one thread before numpy was imported (the ``olk`` command, the bench's runner) and every pool variable
    says 1, else threadpoolctl's
    ``threadpool_limits(1)`` (a library or notebook user: about 60 ms, for it inspects every loaded library)."""
    if SET_BY_OLK and all(os.environ.get(name) == "1" for name in BLAS_THREAD_VARIABLES):
        import contextlib
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits
    return threadpool_limits(1)


def issparse(x) -> bool:
    """``scipy.sparse.issparse(x)``, without importing scipy when nothing could be sparse yet."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and hasattr(sp, "issparse") and sp.issparse(x)


def yaml_load(text: str):
    """``yaml.safe_load(text)``, bounded by :mod:`olk.limits`: the document is composed first and refused (a
    ``yaml.YAMLError`` with ``olk_bound = True`` naming the line, which every caller reports in one line) before any
    value is built, if the text is longer than ``config_bytes``, if its anchors and aliases expand to more than
    ``yaml_expanded_bytes`` (each alias counted as the bytes of what it stands for, so an alias bomb costs
    milliseconds, not gigabytes), if they loop, if an integer has more than ``yaml_int_digits`` digits (Python
    refuses to convert 4,300) or if a mapping repeats a key (the last one would silently win).  Through libyaml's
    parser when PyYAML has it (about 10x faster: the dataset registry takes 8 ms instead of 95); both build the
    same objects.  On an error the text is parsed again by the pure-Python loader, so the exception (and the line
    it names) is the one ``yaml.safe_load`` raises."""
    import yaml

    from .limits import LIMITS
    size = LIMITS["config_bytes"]
    if len(text) > size.value() or len(text.encode("utf-8")) > size.value():
        raise _too_big(yaml, f"the text ({len(text.encode('utf-8')):,} bytes) is "
                             + size.exceeded("larger than", "for a YAML text"), None)
    loader_cls = getattr(yaml, "CSafeLoader", None)
    if loader_cls is not None:
        try:
            return _bounded_load(yaml, loader_cls, text)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError) as e:
            if getattr(e, "olk_bound", False):
                raise
    return _bounded_load(yaml, yaml.SafeLoader, text)


def yaml_read(path) -> bytes:
    """The bytes of the YAML file `path`, read only up to the ``config_bytes`` limit: a larger file (or an endless
    one, such as a FIFO) is a one-line :class:`~olk.errors.ConfigError` naming it, before more is read.  An
    ``OSError`` is the caller's to report."""
    import os

    from .errors import ConfigError
    from .limits import LIMITS
    size = LIMITS["config_bytes"]
    with open(path, "rb") as f:
        data = f.read(size.value() + 1)
        if len(data) > size.value():
            try:
                n = os.fstat(f.fileno()).st_size
            except OSError:
                n = 0
            raise ConfigError(f"{path}: the file{f' ({n:,} bytes)' if n > len(data) else ''} is "
                              + size.exceeded("larger than", "for a YAML file"))
    return data


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
        _check_nodes(yaml, node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


_INT_TAG = "tag:yaml.org,2002:int"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _check_nodes(yaml, root) -> None:
    """Walk the composed document once (each node once: an alias is the node it names) and refuse, naming the key
    and line: more than ``yaml_expanded_bytes`` when every alias is copied out (a node's size is memoised and its
    children counted once each, so a bomb is measured in time proportional to its text), an alias inside what it
    names, an integer of more than ``yaml_int_digits`` digits, a key given twice in one mapping."""
    from .limits import LIMITS
    expanded, digits = LIMITS["yaml_expanded_bytes"], LIMITS["yaml_int_digits"]
    max_bytes, max_digits = expanded.value(), digits.value()
    size: dict[int, int] = {}
    kids: dict[int, dict] = {}          # node -> {id(child): [child, uses]}, while its children are measured
    trail: dict[int, tuple] = {id(root): (None, None)}    # node -> (its parent's id, its key or index): for messages

    def where(node) -> str:
        parts, key = [], id(node)
        while trail.get(key, (None, None))[0] is not None:
            key, label = trail[key]
            parts.append(f"[{label}]" if isinstance(label, int) else f".{label}")
        return "".join(reversed(parts)).lstrip(".") or "the document"

    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            total = 2 + sum(size[i] * uses for i, (_, uses) in kids.pop(key).items())
            if total > max_bytes:
                raise _too_big(yaml, f"{where(node)}: its anchors and aliases (an alias bomb?) expand "
                                     + expanded.exceeded("to more than"), node.start_mark)
            size[key] = total
            continue
        if key in size:
            continue
        if isinstance(node, yaml.ScalarNode):
            size[key] = 1 + len(node.value.encode("utf-8", "surrogatepass"))
            if node.tag == _INT_TAG and _int_digits(node.value) > max_digits:
                raise _too_big(yaml, f"{where(node)}: an integer of {_int_digits(node.value):,} digits is "
                                     + digits.exceeded("more than"), node.start_mark)
            continue
        if key in kids:
            raise _too_big(yaml, f"{where(node)}: an alias refers to a value that contains it (a loop)",
                           node.start_mark)
        if isinstance(node, yaml.MappingNode):
            _check_unique_keys(yaml, node, where)
        children: dict[int, list] = {}
        for label, child in _labelled(yaml, node):
            c = children.get(id(child))
            if c is None:
                children[id(child)] = [child, 1]
                trail.setdefault(id(child), (key, label))
            else:
                c[1] += 1
        kids[key] = children
        stack.append((node, True))
        stack.extend((c, False) for c, _ in children.values() if id(c) not in size)


def _labelled(yaml, node):
    """(key or index, child node) of a sequence or mapping node (a mapping's key and value both under the key)."""
    if isinstance(node, yaml.SequenceNode):
        yield from enumerate(node.value)
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            label = k.value[:40] if isinstance(k, yaml.ScalarNode) else "?"
            yield label, k
            yield label, v


def _int_digits(text: str) -> int:
    """The digits of a YAML 1.1 integer as written (sign, ``0x``/``0o``/``0b`` prefix, ``_`` and ``:`` not
    counted)."""
    body = text.lstrip("+-").replace("_", "").replace(":", "")
    if body[:2].lower() in ("0x", "0o", "0b"):
        body = body[2:]
    return len(body)


def _check_unique_keys(yaml, node, where) -> None:
    seen: dict[tuple, int] = {}
    for k, _ in node.value:
        if not isinstance(k, yaml.ScalarNode) or k.tag == _MERGE_TAG:
            continue
        line = k.start_mark.line + 1
        if (k.tag, k.value) in seen:
            here = where(node)
            name = k.value if here == "the document" else f"{here}.{k.value}"
            raise _too_big(yaml, f"key {name[:80]!r} is given twice in one mapping (lines {seen[k.tag, k.value]} "
                                 f"and {line}); keep one (YAML would keep only the last)", k.start_mark)
        seen[k.tag, k.value] = line


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
