"""An experiment's runs on a Dask cluster: ``olk run CONFIG --backend dask [--scheduler tcp://HOST:PORT]``.

Runs are independent and fully determined by their spec and their dataset's arrays (:mod:`.execute`), so they
can run anywhere: results are bit-identical to the local backends (tests/test_dask.py).  Through joblib's Dask
backend, with:

* ``--scheduler tcp://HOST:PORT``: an existing ``dask.distributed`` scheduler and its workers (every worker
  needs the same olk installed; the data are not read there: they are sent from this machine);
* ``--backend dask`` alone: a ``distributed.LocalCluster`` started for the run on 127.0.0.1 (``n_jobs``
  worker processes, one thread each, no dashboard -- its HTTP health endpoint on a free loopback port, so a busy
  8787 prints nothing --, no Dask memory limit: olk's memory guard applies) and closed afterwards.

Each dataset's arrays are shipped to the workers **once** per ``olk run`` (``client.scatter(...,
broadcast=True)``); every task refers to them by their futures instead of pickling them again.  Each run is one
Dask task (``client.submit``; any cluster size works, one worker thread included); records come back as runs
finish (``distributed.as_completed``) and the runner appends each to the resumable ``runs.jsonl``, as with the
local backends.  A lost worker's tasks are rerun by Dask on the others; a cluster without workers (after
``WORKER_TIMEOUT`` s) or a run that cannot finish is one line, and ``--resume`` continues.
"""
from __future__ import annotations

import importlib.util
import logging
from typing import Any

from ..errors import ConfigError, OlkError

INSTALL = "pip install 'olk[distributed]'"
CONNECT_TIMEOUT = "10s"
#: seconds to wait for the first worker of a cluster before giving up in one line
WORKER_TIMEOUT = 30.0


def require() -> None:
    """A one-line ConfigError when dask.distributed is not installed."""
    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        raise ConfigError(f"--backend dask needs dask.distributed, which is not installed: {INSTALL} "
                          f"(or pip install 'dask[distributed]')")


#: how many times a run whose task the scheduler cancelled (its worker died) is submitted again
RESUBMIT = 3


class DaskSession:
    """A Dask client for one ``olk run`` (connected to ``scheduler``, or to a LocalCluster of ``n_workers``
    started here), and the futures of the datasets scattered to its workers."""

    def __init__(self, scheduler: str | None = None, n_workers: int = 2, log=print, plugins=()):
        self.scheduler, self.n_workers, self.log = scheduler, max(1, int(n_workers)), log
        #: the origins (olk.algorithms.plugins.Origin) of the run's learners from local plugin modules: shipped
        self.plugins = [o for o in plugins if o.kind == "plugin" and o.source]
        self.client: Any = None         # a distributed.Client once entered
        self.cluster: Any = None        # the LocalCluster started here, if any
        self.futures: dict[str, tuple] = {}

    def __enter__(self) -> "DaskSession":
        require()
        from distributed import Client, LocalCluster
        if self.scheduler:
            try:
                self.client = Client(self.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as e:
                raise OlkError(f"--scheduler {self.scheduler}: cannot connect to a Dask scheduler there "
                               f"({' '.join(str(e).split())[:160]}); start one with 'dask scheduler' and workers "
                               f"with 'dask worker {self.scheduler}', or drop --scheduler to run a local "
                               f"cluster") from None
            n = len(self.client.scheduler_info().get("workers", {}))
            self.log(f"olk: Dask scheduler {self.scheduler}: {n} worker(s)")
        else:
            # no dashboard: its HTTP endpoint (health checks only: bokeh is not used) listens on a free port of
            # the loopback interface, so a busy 8787 gives no warning and nothing listens outside this machine
            self.cluster = LocalCluster(n_workers=self.n_workers, threads_per_worker=1, processes=True,
                                        host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                        scheduler_kwargs={"dashboard": False}, memory_limit=0,
                                        silence_logs=logging.ERROR)
            self.client = Client(self.cluster, set_as_default=False)
            self.log(f"olk: Dask LocalCluster on 127.0.0.1: {self.n_workers} worker(s), 1 thread each")
        self.ship_plugins()
        return self

    def ship_plugins(self) -> None:
        """Upload the run's local plugin modules to every worker (``Client.upload_file``: a .py module as it is, a
        package folder as a zip), so that a worker on another machine imports them as this process did.  An
        installed package (entry point) is not shipped: it must be installed on the workers."""
        import tempfile
        import zipfile
        from pathlib import Path
        for org in self.plugins:
            src = Path(org.source)
            try:
                if src.name != "__init__.py":
                    self.client.upload_file(str(src))       # imported on every worker (it registers there)
                    continue
                with tempfile.TemporaryDirectory(prefix="olk-plugin-") as tmp:
                    archive = Path(tmp) / f"{org.module}.zip"
                    with zipfile.ZipFile(archive, "w") as z:
                        for f in sorted(src.parent.rglob("*.py")):
                            z.write(f, Path(org.module) / f.relative_to(src.parent))
                    self.client.upload_file(str(archive))
            except Exception as e:      # noqa: BLE001 - the workers will say they cannot import it, in one line
                self.log(f"olk: warning: could not ship plugin '{org.module}' to the Dask workers "
                         f"({type(e).__name__}: {' '.join(str(e).split())[:120]}); install it on every worker")

    def wait_for_workers(self, timeout: float | None = None) -> int:
        """The number of workers, waiting up to `timeout` (default :data:`WORKER_TIMEOUT`) seconds for the first
        one: none is one line."""
        timeout = WORKER_TIMEOUT if timeout is None else timeout
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, OSError) as e:
            where = f"the scheduler {self.scheduler}" if self.scheduler else "the local cluster"
            raise OlkError(f"--backend dask: {where} has no worker after {timeout:g} s ({type(e).__name__}); start "
                           f"workers with 'dask worker {self.scheduler or 'SCHEDULER'}' and rerun with --resume") \
                from None
        return len(self.client.scheduler_info().get("workers", {}))

    def run_all(self, specs, run, data: dict):
        """Yield ``run(spec, *arrays)`` of every spec as the tasks finish, one Dask task per run (any cluster size:
        one worker thread runs them one after another).  The arrays are the scattered futures.  A worker lost
        mid-run: Dask reruns its tasks on the others; a task that cannot finish (every worker gone, or killed
        each time it ran it) ends the run with one line saying that finished runs are kept."""
        from distributed import as_completed
        self.wait_for_workers()
        futures = self.scatter({s.dataset: data[s.dataset] for s in specs})
        tasks = [self.client.submit(run, s, *futures[s.dataset], pure=False, key=f"olk-run-{s.run_id}-{i}")
                 for i, s in enumerate(specs)]
        spec_of = {t.key: s for t, s in zip(tasks, specs)}
        tries: dict[str, int] = {}
        try:
            done = as_completed(tasks, loop=self.client.loop)
            for fut in done:
                try:
                    yield fut.result()
                except Exception as e:      # noqa: BLE001 - a distributed failure: one line, the rest is kept
                    name = type(e).__name__
                    spec = spec_of[fut.key]
                    # a task the scheduler cancelled when the worker running it died ("already forgotten"):
                    # submitted again, up to RESUBMIT times (a task that kills its worker ends as KilledWorker)
                    if name in ("CancelledError", "FutureCancelledError") and tries.get(spec.run_id, 0) < RESUBMIT:
                        tries[spec.run_id] = tries.get(spec.run_id, 0) + 1
                        again = self.client.submit(run, spec, *futures[spec.dataset], pure=False,
                                                   key=f"{fut.key}-again{tries[spec.run_id]}")
                        spec_of[again.key] = spec
                        tasks.append(again)
                        done.add(again)
                        continue
                    if name in ("KilledWorker", "CancelledError", "FutureCancelledError", "CommClosedError",
                                "TimeoutError", "OSError") or "distributed" in type(e).__module__:
                        raise OlkError(f"--backend dask: a run could not finish on the cluster ({name}: "
                                       f"{' '.join(str(e).split())[:120]}); the runs that finished are kept: rerun "
                                       f"with --resume") from None
                    raise
        finally:
            for t in tasks:
                t.release()

    def scatter(self, data: dict) -> dict[str, tuple]:
        """Ship every dataset's arrays to all workers (once: a dataset already scattered is not sent again);
        returns name -> the futures to pass to the runs instead of the arrays."""
        for name, arrays in data.items():
            if name not in self.futures:
                sent = self.client.scatter([a for a in arrays if a is not None], broadcast=True, hash=False)
                it = iter(sent)
                self.futures[name] = tuple(None if a is None else next(it) for a in arrays)
        return self.futures

    def __exit__(self, *exc) -> None:
        for closer in (self.client, self.cluster):
            if closer is not None:
                try:
                    closer.close()
                except Exception:       # noqa: BLE001 - closing is best effort (e.g. after Ctrl-C)
                    pass
        self.client = self.cluster = None
        self.futures = {}
