"""The memory guard: before a group of runs starts, estimate its peak memory and refuse what would not fit.

Unbounded learners (Perceptron, OGD, PA-I, ...) store up to one support vector per example: on covtype or SUSY
that is hundreds of thousands of SVs per run, times the runs in flight.  Instead of swapping, the runner
estimates every run of a group (the tuning, matching or main runs of a stage, once their parameters are known)
and refuses with one line (exit status 2) when the estimate exceeds the limit.

**The estimate** (bytes; all of it is an upper bound, not a prediction):

* one run's own state: ``2 x S x (row + 24 m + 16 [+ 16 sparse])`` for the SV store, where S is the most SVs
  the run can hold (:meth:`KernelEstimator.memory_max_sv`: the budget B + 1, else every training example,
  times the epochs), ``row`` the bytes of one stored row (dense: 8 d; sparse: 12 x the mean non-zeros per row),
  m the number of kernels (8 bytes per coefficient column, up to 2 per kernel, and per squared norm), the 16
  or 32 bytes of per-SV bookkeeping, and the factor 2 for the store's capacity, which doubles as it grows;
  plus 8 n (+ 8 n sparse) for the data's row norms, a copy of the training rows when a run trains on a fold,
  and what the learner declares besides (:meth:`KernelEstimator.memory_extra`: Projectron's K^-1, the batch
  learners' kernel matrices and caches, the kernel-selection methods' Gram matrices);
* a worker process (``n_jobs`` > 1, or Dask) adds its own copy of the run's dataset and a process base of
  :data:`BASE` (the interpreter with numpy, scipy and olk loaded: about 65-90 MB measured);
* the peak of the group: the main process (:data:`BASE` + every loaded dataset + what loading one held beyond its
  arrays, the largest of :func:`load_bytes`) + k x the largest run, with k = the runs in flight (``n_jobs``, at
  most the group's runs; 1 in this process).  A dataset taken from the cache held nothing more; a large file of
  your own converted to the cache in blocks held :data:`CONVERT_BLOCKS` (a few blocks of text and their arrays,
  whatever the file's size); a file parsed whole held :data:`WHOLE_FACTOR` x its arrays besides them (the parsed
  arrays, their cache copy, the dataset's own).  Its data then sit in the cache, memory-mapped: resident when
  read, counted in the dataset's bytes above.

**The limit**: ``--memory-limit SIZE`` (``olk run`` / ``olk sweep``), else the config's ``memory_limit``, else
:data:`DEFAULT_FRACTION` of the machine's memory (``/proc/meminfo``'s MemTotal through ``os.sysconf``, or a
smaller cgroup limit).  SIZE: bytes, or a number with K, M, G or T (powers of 1024), or a percentage of the
machine's memory (``50%``); ``0`` or ``none`` switches the guard off.  With a remote Dask scheduler the
runs use the cluster's memory, not this machine's, and the guard is not applied.
"""
from __future__ import annotations

import math
import os

from ..errors import OlkError
from ..units import fmt, parse_size, physical_memory  # noqa: F401  (parse_size, physical_memory: this module's API)

BASE = 100 * 2**20              # one olk process before any data: interpreter, numpy, scipy, olk (65-90 MB measured)
DEFAULT_FRACTION = 0.8          # default limit: this fraction of the machine's memory
STORE_GROWTH = 2                # the SV store doubles its capacity when full
#: what converting a large file to the cache in blocks holds (olk.data.stream's pieces of 4 MB of text, the
#: reader thread's, and one block's arrays and their mapped, selected, scaled copies; measured 20-40 MB)
CONVERT_BLOCKS = 64 * 2**20
#: what parsing a file whole holds beyond the dataset's arrays, in multiples of them (the parser's arrays grown by
#: half, the cache's copy, the dense conversion: olk train --in-memory on 1M x 50 dense rows peaked at 1.7 GB
#: for 0.4 GB of arrays)
WHOLE_FACTOR = 3


class MemoryLimitError(OlkError):
    """A group of runs would exceed the memory limit (exit status 2, one line)."""


def resolve_limit(option, config_value) -> tuple[int, str]:
    """(limit in bytes, 0 = none; where it came from) from --memory-limit, the config, or the default."""
    if option is not None:
        return parse_size(option, "--memory-limit"), f"--memory-limit {option}"
    if config_value is not None:
        return int(config_value), f"memory_limit: {config_value}"
    total = physical_memory()
    if not total:
        return 0, "no limit (the machine's memory is unknown)"
    return int(DEFAULT_FRACTION * total), f"{DEFAULT_FRACTION:g} of the machine's {fmt(total)}"


# ------------------------------------------------------------------------------------------- the estimate
def _nbytes(a) -> int:
    if a is None:
        return 0
    if hasattr(a, "indptr"):
        return int(a.data.nbytes + a.indices.nbytes + a.indptr.nbytes)
    return int(getattr(a, "nbytes", 0))


def data_bytes(arrays) -> int:
    """Bytes of a dataset's arrays as the runner holds them ((X, y) or (X, y, X_test, y_test))."""
    return sum(_nbytes(a) for a in arrays)


def _train_rows(spec, n: int) -> int:
    if spec.mode != "batch":
        return n
    if spec.fold is not None and spec.cv:
        rows = min(n, spec.cv.get("max_rows") or n)
        k = int(spec.cv.get("folds") or 3)
        return int(math.ceil(rows * (k - 1) / k))
    if spec.eval_folds:
        k = int(spec.eval_folds)
        return int(math.ceil(n * (k - 1) / k))
    return n


def run_estimate(spec, arrays) -> dict:
    """The parts of one run's peak memory (bytes; see the module docstring): ``state`` (its own), ``data`` (its
    dataset), ``max_sv``, ``per_sv``, ``extra``."""
    from ..algorithms import registry
    from ..kernels import kernel_count
    cls = registry.REGISTRY[spec.algorithm]
    X = arrays[0]
    n, d = int(X.shape[0]), int(X.shape[1])
    sparse = hasattr(X, "indptr")
    row = 12.0 * X.data.shape[0] / max(n, 1) if sparse else 8.0 * d
    m = max(1, kernel_count(spec.kernel))
    n_train = _train_rows(spec, n)
    epochs = int(spec.epochs or 1)
    max_sv = int(cls.memory_max_sv(spec.params, n_train * epochs))
    per_sv = row + 24 * m + 16 + (16 if sparse else 0)
    store = STORE_GROWTH * max_sv * per_sv
    norms = 8 * n + (8 * (n + 1) if sparse else 0)
    fold_copy = (n_train * (row + 8)) if (spec.fold is not None or spec.eval_folds) else 0
    extra = int(cls.memory_extra(spec.params, n_train, d, m))
    state = int(store + norms + fold_copy + extra + 16 * n)      # + the permutation and the learning curve
    return {"state": state, "data": data_bytes(arrays), "max_sv": max_sv, "per_sv": per_sv, "extra": extra}


def _in_flight(n_jobs: int, n_runs: int) -> int:
    jobs = n_jobs if n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, min(jobs, n_runs))


def load_bytes(how: str | None, arrays) -> int:
    """What loading a dataset held beyond its `arrays` (see the module docstring): `how` is the loader's
    ``meta['cache']['converted']``: 'blocks', 'whole', or None (taken from the cache)."""
    if how == "blocks":
        return CONVERT_BLOCKS
    if how == "whole":
        return WHOLE_FACTOR * data_bytes(arrays)
    return 0


def group_estimate(specs, data: dict, *, n_jobs: int, backend: str, loads: dict | None = None) -> dict | None:
    """The peak of running ``specs`` (see the module docstring): ``total``, ``k`` runs in flight, the ``worst``
    spec and its ``run`` estimate (``worker``: with a process of its own), ``load`` (what the costliest load held
    beyond its arrays; `loads`: {dataset: how it was loaded}); None for no specs."""
    if not specs:
        return None
    in_process = n_jobs == 1 and backend != "dask"
    threads = backend == "threading"
    own_process = not (in_process or threads)
    load = max((load_bytes(how, data[name]) for name, how in (loads or {}).items() if name in data), default=0)
    main = BASE + sum(data_bytes(v) for v in data.values()) + load
    worst, worst_est, worst_bytes = None, None, -1
    for s in specs:
        est = run_estimate(s, data[s.dataset])
        b = est["state"] + ((BASE + est["data"]) if own_process else 0)
        if b > worst_bytes:
            worst, worst_est, worst_bytes = s, est, b
    k = 1 if in_process else _in_flight(n_jobs, len(specs))
    return {"total": main + k * worst_bytes, "k": k, "worst": worst, "run": worst_est, "worker": worst_bytes,
            "main": main, "load": load}


def check(specs, data: dict, *, n_jobs: int, backend: str, limit: int, source: str, what: str,
          loads: dict | None = None) -> dict | None:
    """Raise :class:`MemoryLimitError` (one line) when the estimate of running ``specs`` exceeds ``limit`` bytes
    (0: no limit); return the estimate."""
    est = group_estimate(specs, data, n_jobs=n_jobs, backend=backend, loads=loads)
    if est is None or not limit or est["total"] <= limit:
        return est
    s, run = est["worst"], est["run"]
    sv = (f"up to {run['max_sv']:,} SVs of {fmt(run['per_sv'])} each" if run["max_sv"] else "no SV store")
    extra = f", {fmt(run['extra'])} of kernel matrices/caches" if run["extra"] else ""
    flight = f"{est['k']} runs in flight" if est["k"] > 1 else "1 run at a time"
    if est["load"]:
        flight += f", {fmt(est['load'])} held while loading the data"
    raise MemoryLimitError(
        f"memory guard: {what} would need about {fmt(est['total'])} ({flight}; the largest, {s.label} on "
        f"{s.dataset}{' ' + s.setting if s.setting else ''}, about {fmt(est['worker'])}: {sv}{extra}, data "
        f"{fmt(run['data'])}), over the limit of {fmt(limit)} ({source}); allow more with --memory-limit SIZE "
        f"(or memory_limit: in the config; 0 = no limit), or use fewer --n-jobs or a --scale below 1")
