"""Execution: one :class:`~olk.experiment.spec.RunSpec` -> one record, and many of them in parallel.

``execute_run`` is the only place a learner meets data during an experiment.  It builds the learner
from the spec (the parameters were validated when the spec was planned), runs the protocol of the
learner's task (:mod:`olk.tasks`) and returns the spec's record with the task's metrics.
It depends on nothing but the spec and the arrays, so a run gives the same record in any process,
whatever ``n_jobs`` or backend: that is what makes results bit-identical across ``n_jobs``.
"""
from __future__ import annotations

import os
import sys
import threading
import time

from ..algorithms import registry as algo_registry
from ..tasks import HeldOutCurve, task_of
from . import seeds
from .spec import RunSpec


def execute_run(spec: RunSpec, X, y, Xt=None, yt=None) -> dict:
    """Run one spec on (X, y) (already scaled); return its record. Top-level so joblib can pickle it.

    Online mode: one pass over permutation ``perm`` of (X, y) with the task's online protocol.
    Batch mode: (X, y) is the training set and (Xt, yt) the test set; a cross-validation run
    (``spec.fold`` set) trains on the other folds of the training set and tests on fold ``fold``.
    With k-fold evaluation (``spec.eval_folds`` = k), (X, y) holds all the rows and permutation r trains on
    the folds other than r mod k and tests on fold r mod k.

    The spec is read in one direction: its record, its rows (:mod:`~olk.experiment.seeds`), its learner (built
    from the parameters the planner checked: :func:`olk.algorithms.registry.build`), then the protocol of the
    learner's task (:mod:`olk.tasks`), which runs and scores it.
    """
    rec = spec.to_record()
    if spec.mode == "batch":
        X, y, Xt, yt = seeds.run_split(spec, X, y, Xt, yt)
    order = seeds.permutation(X.shape[0], spec.seed, spec.dataset, spec.perm, spec.shuffle)
    model = algo_registry.build(spec.params, kernel=spec.kernel, random_state=spec.algo_seed, where=spec.label)
    task = task_of(type(model))
    if spec.mode != "batch":
        rec.update(task.online_pass(model, X, y, order, spec.checkpoints))
        return rec
    output = spec.params.get("output")
    curve = HeldOutCurve(task, Xt, yt, output, spec.test_curve) if spec.test_curve else None
    rec.update(task.train(model, X, y, order, spec.checkpoints, epochs=spec.epochs, held_out=curve))
    rec.update(task.test(model, Xt, yt, output))
    return rec


def execute_all(specs: list[RunSpec], data: dict, run, *, n_jobs: int, backend: str, desc: str,
                progress: bool | None, session=None):
    """Yield the record of every spec (in completion order), running ``run(spec, *data[spec.dataset])``
    in this process (n_jobs=1) or with joblib.  The caller appends each record to the run log as it
    arrives, so an interruption loses nothing already computed.

    ``backend='dask'`` runs on the :class:`~olk.experiment.dask_backend.DaskSession` ``session`` (one is
    started for this call if none is given): each dataset is scattered to the workers once and the runs get
    its futures, not the arrays."""
    from tqdm.auto import tqdm
    disable = (not sys.stderr.isatty()) if progress is None else (not progress)
    bar = tqdm(total=len(specs), desc=desc, unit="run", disable=disable, leave=False)
    try:
        if n_jobs == 1 and backend != "dask":
            for s in specs:
                yield run(s, *data[s.dataset])
                bar.update()
        elif backend == "dask":
            if session is None:
                from .dask_backend import DaskSession
                with DaskSession(n_workers=n_jobs if n_jobs > 0 else 2, log=lambda m: None) as own:
                    yield from execute_all(specs, data, run, n_jobs=n_jobs, backend=backend, desc=desc,
                                           progress=False, session=own)
                return
            for rec in session.run_all(specs, run, data):
                yield rec
                bar.update()
        else:
            from joblib import Parallel, delayed, parallel_config
            # worker processes watch this one from their start: a SIGKILL of olk ends them (watch_parent)
            watch = {"initializer": watch_parent, "initargs": (os.getpid(),)} if backend != "threading" else {}
            with parallel_config(backend, **watch):     # (joblib's multiprocessing pool returns a list only)
                par = Parallel(n_jobs=n_jobs, return_as="list" if backend == "multiprocessing"
                               else "generator_unordered")
            outputs = par(delayed(run)(s, *data[s.dataset]) for s in specs)
            try:
                for rec in outputs:
                    yield rec
                    bar.update()
            finally:
                _close_quietly(outputs)
    finally:
        bar.close()


def _close_quietly(outputs) -> None:
    """Close joblib's output generator (the caller stopped early: an error such as a full disk, or Ctrl-C) without
    its UserWarning that the tasks still running were cancelled: cancelling them is what olk wants, and the
    caller's one line says what happened (the warning added two lines before it)."""
    import warnings
    close = getattr(outputs, "close", None)
    if close is None:               # a list (the multiprocessing backend)
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning,
                                message=r".*(have been successfully executed\s+but not used|still being processed "
                                        r"by the workers have been cancelled)")
        close()


#: seconds between two looks of a worker process at its parent (:func:`watch_parent`)
PARENT_POLL = 0.5


def watch_parent(olk_pid: int) -> None:
    """The initializer of joblib's worker processes: a daemon thread that ends the worker when its parent is gone
    (``os.getppid()`` changes: the process was re-parented), and an immediate end if olk died while the worker
    was starting.  A SIGKILL of ``olk run -j N`` cannot shut joblib's workers down; without this they (and the
    resource trackers they keep open) would idle on until their own timeout.  Polling works on every platform
    and whichever process started the worker (olk itself, or a fork server that ends with olk)."""
    parent = os.getppid()
    if parent != olk_pid and not _alive(olk_pid):
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)
    threading.Thread(target=watch, name="olk-parent-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:             # e.g. EPERM: it exists
        return True
    return True
