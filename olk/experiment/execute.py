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


def _learner(spec: RunSpec):
    return algo_registry.make(spec.algorithm, kernel=spec.kernel, random_state=spec.algo_seed, where=spec.label,
                              **spec.params)


def execute_run(spec: RunSpec, X, y, Xt=None, yt=None) -> dict:
    """Run one spec on (X, y) (already scaled); return its record. Top-level so joblib can pickle it.

    Online mode: one pass over permutation ``perm`` of (X, y) with the task's online protocol.
    Batch mode: (X, y) is the training set and (Xt, yt) the test set; a cross-validation run
    (``spec.fold`` set) trains on the other folds of the training set and tests on fold ``fold``.
    With k-fold evaluation (``spec.eval_folds`` = k), (X, y) holds all the rows and permutation r trains on
    the folds other than r mod k and tests on fold r mod k.
    """
    if spec.mode == "batch":
        return _execute_batch(spec, X, y, Xt, yt)
    model = _learner(spec)
    order = seeds.permutation(X.shape[0], spec.seed, spec.dataset, spec.perm, spec.shuffle)
    rec = spec.to_record()
    rec.update(task_of(type(model)).online_pass(model, X, y, order, spec.checkpoints))
    return rec


def _execute_batch(spec: RunSpec, X, y, Xt, yt) -> dict:
    """Train on the training set (online learners: one pass over permutation ``perm``), test every output."""
    if spec.eval_folds and spec.fold is None:
        tr, te = seeds.eval_folds(y, spec.eval_folds, spec.seed, spec.dataset)[spec.perm % spec.eval_folds]
        X, y, Xt, yt = X[tr], y[tr], X[te], y[te]
    if spec.fold is not None:
        tr, va = seeds.cv_folds(y, spec.cv["folds"], spec.cv["max_rows"], spec.seed, spec.dataset)[spec.fold]
        X, y, Xt, yt = X[tr], y[tr], X[va], y[va]
    cls = algo_registry.REGISTRY[spec.algorithm]
    task = task_of(cls)
    model = _learner(spec)
    order = seeds.permutation(X.shape[0], spec.seed, spec.dataset, spec.perm, spec.shuffle)
    rec = spec.to_record()
    curve = HeldOutCurve(task, Xt, yt, spec.params.get("output"), spec.test_curve) if spec.test_curve else None
    if cls.batch:
        t0 = time.perf_counter()
        if curve is not None and cls.reports_progress:
            curve.start(t0)                   # point k = the model after its k-th outer iteration
            model.fit(X, y, order, probe=lambda: curve.probe(model, len(curve.rows) + 1))
        else:
            model.fit(X, y, order)
        elapsed = time.perf_counter() - t0 - (curve.paused if curve is not None else 0.0)
        rec.update({"n_examples": int(X.shape[0]), "n_sv": model.n_sv, "n_sv_last": model.n_sv,
                    "n_updates": model.n_updates, "time_s": elapsed, "kernel_evals": model.kernel_evals})
        summary = model.run_summary()
        if summary:
            rec["summary"] = summary
    else:
        rec.update(task.online_pass(model, X, y, order, spec.checkpoints, held_out=curve))
        for _ in range(1, spec.epochs or 1):        # more passes (the OKS paper's two epochs): the online
            more = task.online_pass(model, X, y, order, spec.checkpoints)   # metrics stay the first pass's
            rec.update({"time_s": rec["time_s"] + more["time_s"],
                        **{k: more[k] for k in ("n_sv", "n_sv_last", "n_updates", "kernel_evals", "summary")
                           if k in more}})
    if curve is not None:
        rec["test_curve"] = curve.to_record()
    rec["train_time_s"] = rec["time_s"]
    outputs = tuple(cls.outputs)
    by_out = {o: task.test_score(model, Xt, yt, output=o) for o in outputs}
    rec[task.test_metric] = by_out[spec.params["output"]] if outputs else task.test_score(model, Xt, yt)
    if outputs:
        rec[f"{task.test_metric}_by_output"] = by_out
    rec["n_test"] = int(len(yt))
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
            for rec in par(delayed(run)(s, *data[s.dataset]) for s in specs):
                yield rec
                bar.update()
    finally:
        bar.close()


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
