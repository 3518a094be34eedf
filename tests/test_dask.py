"""Runs on Dask (olk/experiment/dask_backend.py): bit-identical to the local backend, on a LocalCluster started
by olk (--backend dask) and on an existing scheduler (--scheduler), each dataset shipped to the workers once,
and one-line errors for a missing dask or an unreachable scheduler.  Everything listens on 127.0.0.1 only."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from _cli import run_cli, use_bundled_data

from olk.cli import main

distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[1]
CFG = ("name: d\nrepeats: 2\nkernel: {type: gaussian, gamma: 0.4}\ndatasets: [a9a-small, codrna-small]\n"
       "algorithms:\n  - perceptron\n  - {name: pa1, tune: {C: [0.5, 1]}}\n"
       "  - {name: rbp, params: {budget: {match: pa1, stat: n_sv}}}\n  - {name: spa, params: {beta: 5}}\n")


@pytest.fixture(autouse=True)
def _data(monkeypatch, tmp_path):
    use_bundled_data(monkeypatch)
    (tmp_path / "c.yaml").write_text(CFG)


_run = run_cli


def _records(out: Path) -> dict:
    """run_id -> record, without the timings and the provenance (the only fields that may differ)."""
    from olk.fileio import RUN_PROVENANCE
    recs = {}
    for line in (out / "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        for k in ("time_s", "train_time_s", *RUN_PROVENANCE):
            r.pop(k, None)
        r["curve"] = {k: v for k, v in (r.get("curve") or {}).items() if "time" not in k}
        recs[r["run_id"]] = r
    return recs


@pytest.fixture(scope="module")
def local_records(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("local")
    (tmp / "c.yaml").write_text(CFG)
    with pytest.MonkeyPatch.context() as m:
        m.setenv("OLK_DATA", str(REPO / "datasets"))
        with pytest.raises(SystemExit) as e:
            main(["run", str(tmp / "c.yaml"), "--out", str(tmp / "o"), "--no-progress", "-q"])
            raise SystemExit(0)
    assert e.value.code == 0
    return _records(tmp / "o")


def test_local_cluster_is_bit_identical_to_the_local_backend(tmp_path, capsys, local_records):
    code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                         "--backend", "dask", "-j", "2"], capsys)
    assert code == 0, err
    assert "Dask LocalCluster on 127.0.0.1: 2 worker(s)" in err
    got = _records(tmp_path / "o")
    assert len(got) == len(local_records) == 2 * (2 + 2 + 2 + 2 + 2)      # tune 2x2, 4 entries x 2 perms x 2 sets
    assert got == local_records
    meta = json.loads((tmp_path / "o" / "experiment.json").read_text())
    assert meta["backend"] == "dask" and meta["status"] == "finished"


def test_existing_scheduler_gets_each_dataset_once_and_resumes(tmp_path, capsys, local_records, monkeypatch):
    scattered = []
    real = distributed.Client.scatter

    def spy(self, data, *a, **kw):
        scattered.append((len(data), kw.get("broadcast")))
        return real(self, data, *a, **kw)
    monkeypatch.setattr(distributed.Client, "scatter", spy)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                             "--scheduler", address, "--algorithms", "pa1"], capsys)
        assert code == 0, err
        assert scattered == [(2, True), (2, True)]          # X and y of each dataset, broadcast once per run
        code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                             "--scheduler", address, "--resume"], capsys)      # the rest, into the same log
        assert code == 0, err
    assert _records(tmp_path / "o") == local_records


def test_unreachable_scheduler_is_one_line(tmp_path, capsys):
    code, out, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                           "--scheduler", "tcp://127.0.0.1:9"], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("olk: error: --scheduler tcp://127.0.0.1:9: cannot connect to a Dask scheduler")


def test_missing_dask_names_the_extra(tmp_path, capsys, monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in ("distributed", "dask")
                        else real(name, *a))
    code, out, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                           "--backend", "dask"], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1, err
    assert "--backend dask needs dask.distributed, which is not installed: pip install 'olk[distributed]'" in lines[0]


# ------------------------------------------------------------------ any cluster size, faults, no dashboard (issue 30)
def test_dask_with_one_worker_is_bit_identical(tmp_path, capsys, local_records):
    """``--backend dask -j 1`` (a one-thread cluster) ran joblib's sequential path on the scattered futures and
    crashed with "'Future' object has no attribute 'shape'"."""
    code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                         "--backend", "dask", "-j", "1"], capsys)
    assert code == 0, err
    assert "1 worker(s)" in err and "Traceback" not in err
    assert _records(tmp_path / "o") == local_records


def test_a_scheduler_with_one_worker_thread_and_a_lost_worker(tmp_path, capsys, local_records):
    """A cluster of two single-thread workers loses one after the first invocation; ``--resume`` on the same
    cluster, now one worker with one thread, finishes the rest bit-identically."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", scheduler_port=0,
                                  dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as cluster:
        address = cluster.scheduler_address
        code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                             "--scheduler", address, "--algorithms", "pa1"], capsys)
        assert code == 0, err
        with distributed.Client(address) as c:                     # lose a worker
            workers = sorted(c.scheduler_info()["workers"])
            c.retire_workers(workers[:1], close_workers=True)
            deadline = __import__("time").time() + 30
            while len(c.scheduler_info()["workers"]) != 1 and __import__("time").time() < deadline:
                __import__("time").sleep(0.2)
            assert len(c.scheduler_info()["workers"]) == 1
        code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                             "--scheduler", address, "--resume"], capsys)
        assert code == 0, err
        assert "1 worker(s)" in err
    assert _records(tmp_path / "o") == local_records


def test_a_scheduler_without_workers_is_one_line(tmp_path, capsys, monkeypatch):
    from olk.experiment import dask_backend
    monkeypatch.setattr(dask_backend, "WORKER_TIMEOUT", 2.0)
    with distributed.LocalCluster(n_workers=0, host="127.0.0.1", scheduler_port=0,
                                  dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as cluster:
        code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                             "--scheduler", cluster.scheduler_address], capsys)
    lines = [ln for ln in err.splitlines() if ln.startswith("olk: error:")]
    assert code == 2 and len(lines) == 1, err
    assert "has no worker after 2 s" in lines[0] and "--resume" in lines[0]


def test_no_dashboard_and_no_warning_when_8787_is_busy(tmp_path, capsys):
    import socket
    import warnings
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 8787))
        s.listen()
    except OSError:
        pass                        # busy already: the same situation
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")              # a "Port 8787 is already in use" warning fails the test
            code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                                 "--backend", "dask", "-j", "1", "--algorithms", "perceptron"], capsys)
    finally:
        s.close()
    assert code == 0, err
    assert "already in use" not in err and "Hosting the HTTP server" not in err
    assert [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("olk:")] == []


def test_a_worker_killed_mid_run_is_replaced_and_the_results_are_identical(tmp_path, local_records):
    """Issue 34: SIGKILL of a Dask worker while it runs one of olk's tasks (a 2-worker LocalCluster, olk run in
    another process): Dask reruns the task, the run finishes, and every record equals the local backend's."""
    import os
    import signal
    import subprocess
    import sys
    import time
    olk = Path(sys.executable).with_name("olk")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", scheduler_port=0,
                                  dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)                    # worker address -> its process
        proc = subprocess.Popen([str(olk), "run", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o"),
                                 "--no-progress", "-q", "--scheduler", cluster.scheduler_address],
                                env={**os.environ, "OLK_DATA": str(REPO / "datasets")},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        killed, deadline = None, time.monotonic() + 120
        while killed is None and proc.poll() is None and time.monotonic() < deadline:
            busy = [w for w, keys in client.processing().items() if any("olk-run-" in str(k) for k in keys)]
            if busy and busy[0] in pids:
                os.kill(pids[busy[0]], signal.SIGKILL)   # the worker dies holding an olk run
                killed = busy[0]
            time.sleep(0.005)
        assert killed is not None, "the run ended before a worker could be killed mid-task"
        _, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert _records(tmp_path / "o") == local_records


def test_a_cancelled_task_is_submitted_again(tmp_path, capsys, local_records, monkeypatch):
    """A run whose task the scheduler cancels (as when the worker running it dies: "already forgotten") is submitted
    again, and the run finishes bit-identically to the local backend (it ended the whole run before)."""
    real = distributed.Client.submit
    cancelled: list = []

    def submit(self, *args, **kw):
        fut = real(self, *args, **kw)
        if str(kw.get("key", "")).startswith("olk-run-") and not cancelled:
            cancelled.append(fut.key)
            self.cancel([fut])                  # the first run's task: cancelled under olk's feet
        return fut

    monkeypatch.setattr(distributed.Client, "submit", submit)
    code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                         "--backend", "dask", "-j", "2"], capsys)
    assert cancelled and code == 0, err
    assert _records(tmp_path / "o") == local_records
