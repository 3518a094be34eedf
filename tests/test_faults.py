"""Faults and hostile inputs around a run (issues 25 and 30): each test fails on the code before them.

* a YAML alias bomb in any key of a config (and in a dataset registry, --set and --kernel) is refused in one
  line in well under a second, run in a subprocess under a memory cap and a time limit;
* a config that is not a regular file (/dev/zero, a FIFO) is one line, not "not found" and not a hang;
* ``--out`` under a regular file or in an unwritable directory: one line, exit 2, nothing made;
* two ``olk run`` on one ``--out``: the second is refused in one line while the first holds ``OUT/.lock``, and
  its ``--force`` deletes nothing;
* a ``runs.jsonl`` ending in a torn line: resume cuts the fragment and gives the clean run's runs.csv;
* a file-size limit (``ulimit -f``) and a full disk during a run or ``olk table``: one line naming the file and
  the errno, exit 2; a table is rewritten atomically (the old one stays whole);
* SIGTERM: one line, exit 143, finished runs kept, no worker process left behind;
* every user-input error class is a ValueError.
"""
from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from olk.cli import main

REPO = Path(__file__).resolve().parents[1]
OLK = Path(sys.executable).with_name("olk")
needs_script = pytest.mark.skipif(not OLK.exists(), reason="needs the installed olk script")
QUICK = "name: q\nrepeats: 1\nkernel: {type: gaussian, gamma: 0.4}\ndatasets: [a9a-small]\nalgorithms: [perceptron]\n"
SLOW = "name: slow\nrepeats: 8\nkernel: {type: gaussian, gamma: 0.4}\ndatasets: [a9a]\nalgorithms: [perceptron, pa1]\n"


def _bomb(levels: int = 10, width: int = 10) -> str:
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def _capped(*args, cwd, timeout=60, mem=1 << 30, fsize=None, **kw):
    """The olk script with an address-space cap (and a file-size limit), SIGXFSZ left to olk."""
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run([str(OLK), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limits, **kw)


def _one_error_line(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln.startswith("olk: error:")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@needs_script
@pytest.mark.parametrize("key", ["description", "table_layout", "name", "datasets", "zzz_unknown"])
def test_an_alias_bomb_in_any_key_is_refused_fast_in_one_line(tmp_path, key):
    cfg = tmp_path / "bomb.yaml"
    body = _bomb().replace("l0:", "x0:", 0)
    cfg.write_text(body + f"{key}: [*l9, *l9, *l9, *l9, *l9, *l9, *l9, *l9, *l9, *l9]\n"
                   + QUICK.replace("name: q\n", ""))
    t0 = time.perf_counter()
    r = _capped("run", str(cfg), "--out", str(tmp_path / "out"), cwd=tmp_path, mem=1 << 30, timeout=60)
    assert time.perf_counter() - t0 < 30
    assert r.returncode == 2
    line = _one_error_line(r.stderr)
    assert "bomb.yaml:" in line and "alias" in line
    assert not (tmp_path / "out").exists()


@needs_script
def test_alias_bombs_in_the_registry_and_options_are_refused(tmp_path):
    reg = tmp_path / "reg.yaml"
    reg.write_text(_bomb() + "datasets: {x: *l9}\n")
    env = {**os.environ, "OLK_REGISTRY": str(reg)}
    r = _capped("datasets", "list", cwd=tmp_path, env=env)
    assert r.returncode == 2 and "alias" in _one_error_line(r.stderr)
    k = "{" + ", ".join(f"a{i}: &a{i} [" + (", ".join([f"*a{i-1}"] * 10) if i else "1") + "]" for i in range(9)) + "}"
    r = _capped("train", str(REPO / "datasets" / "samples" / "a9a-small.libsvm.xz"), "-a", "perceptron",
                "--kernel", k, "-o", str(tmp_path / "m.olk"), cwd=tmp_path)
    assert r.returncode == 2 and "alias" in _one_error_line(r.stderr)


def test_normal_yaml_with_aliases_still_loads():
    from olk._lazy import yaml_load
    assert yaml_load("a: &x {g: 1}\nb: *x\n") == {"a": {"g": 1}, "b": {"g": 1}}


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_config_that_is_not_a_regular_file_is_one_line(tmp_path, capsys, special):
    path = special
    if special == "fifo":
        path = str(tmp_path / "cfg.fifo")
        os.mkfifo(path)
    with pytest.raises(SystemExit) as e:
        main(["run", path])
    assert e.value.code == 2
    assert "not a regular file" in capsys.readouterr().err


def test_out_under_a_regular_file_is_one_line_and_makes_nothing(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(QUICK)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["run", str(cfg), "--out", str(blocker / "sub" / "out"), "-q"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "which is a file, not a directory" in err and "Traceback" not in err
    assert blocker.read_text() == "x"


def test_out_in_an_unwritable_directory_is_one_line_and_makes_nothing(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(QUICK.replace("[perceptron]", "[spa]"))
    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m, *a, **k: False if Path(p) == locked else real(p, m, *a, **k))
    with pytest.raises(SystemExit) as e:
        main(["sweep", str(cfg), "--out", str(locked / "new" / "out"), "-q", "--set", "beta=5,10"])
    assert e.value.code == 2
    assert "is not writable (permission denied)" in capsys.readouterr().err
    assert list(locked.iterdir()) == []


@needs_script
def test_a_second_run_on_the_same_out_is_refused_while_the_first_holds_the_lock(tmp_path):
    cfg = tmp_path / "slow.yaml"
    cfg.write_text(SLOW)
    out = tmp_path / "out"
    first = subprocess.Popen([str(OLK), "run", str(cfg), "--out", str(out), "-q", "-j", "1"], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not (out / "runs.jsonl").exists() and time.time() < deadline:
            time.sleep(0.2)
        assert (out / "runs.jsonl").exists()
        before = (out / "runs.jsonl").read_bytes()
        r = subprocess.run([str(OLK), "run", str(cfg), "--out", str(out), "-q", "--force"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2
        line = _one_error_line(r.stderr)
        assert "is in use by another olk run" in line and f"pid {first.pid}" in line
        assert (out / "runs.jsonl").read_bytes().startswith(before)       # --force deleted nothing
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)


def test_a_torn_last_line_is_cut_before_resuming(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(QUICK.replace("repeats: 1", "repeats: 3"))
    clean, torn = tmp_path / "clean", tmp_path / "torn"
    assert main_ok(["run", str(cfg), "--out", str(clean), "-q"])
    assert main_ok(["run", str(cfg), "--out", str(torn), "-q"])
    lines = (torn / "runs.jsonl").read_bytes().splitlines(keepends=True)
    (torn / "runs.jsonl").write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # a cut write
    assert main_ok(["run", str(cfg), "--out", str(torn), "-q", "--resume"])
    assert "ended in a torn line" in capsys.readouterr().err
    log = (torn / "runs.jsonl").read_text().splitlines()
    assert len(log) == 3 and all(ln.startswith("{") and ln.endswith("}") for ln in log)
    import pandas as pd
    a, b = pd.read_csv(clean / "runs.csv"), pd.read_csv(torn / "runs.csv")
    cols = [c for c in a.columns if c not in ("time_s",)]
    pd.testing.assert_frame_equal(a[cols].sort_values("run_id").reset_index(drop=True),
                                  b[cols].sort_values("run_id").reset_index(drop=True))


def main_ok(argv) -> bool:
    try:
        main(argv)
    except SystemExit as e:
        return e.code in (0, None)
    return True


@needs_script
def test_a_file_size_limit_during_a_run_is_one_line_naming_the_file(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(QUICK.replace("repeats: 1", "repeats: 3"))
    r = _capped("run", str(cfg), "--out", str(tmp_path / "out"), "-q", cwd=tmp_path, fsize=2000, mem=4 << 30,
                timeout=120)
    assert r.returncode == 2, r.stderr
    line = _one_error_line(r.stderr)
    assert "EFBIG" in line and str(tmp_path / "out") in line and "ulimit -f" in line


def test_a_full_disk_during_olk_table_leaves_the_old_table_whole(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(QUICK)
    out = tmp_path / "out"
    assert main_ok(["run", str(cfg), "--out", str(out), "-q"])
    old = (out / "table.md").read_text()
    import builtins
    real_open = builtins.open

    def full_disk(file, mode="r", *a, **k):
        f = real_open(file, mode, *a, **k)
        if "w" in mode and (str(file).endswith(".tmp") or isinstance(file, int)):     # the temporary file (its fd)
            f.write = lambda *_: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device"))
        return f
    monkeypatch.setattr(builtins, "open", full_disk)
    with pytest.raises(SystemExit) as e:
        main(["table", str(out)])
    monkeypatch.undo()
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "table.md: cannot write (No space left on device, ENOSPC)" in err and "Traceback" not in err
    assert (out / "table.md").read_text() == old
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


@needs_script
def test_sigterm_keeps_finished_runs_exits_143_and_leaves_no_workers(tmp_path):
    cfg = tmp_path / "slow.yaml"
    cfg.write_text(SLOW)
    out = tmp_path / "out"
    p = subprocess.Popen([str(OLK), "run", str(cfg), "--out", str(out), "-q", "-j", "2"], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 90
    while time.time() < deadline and not ((out / "runs.jsonl").exists() and (out / "runs.jsonl").stat().st_size):
        time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=90)
    assert p.returncode == 143
    line = _one_error_line(err)
    assert "terminated (SIGTERM)" in line and "--resume" in line
    assert (out / "runs.csv").exists()
    time.sleep(3)
    alive = subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True, text=True).stdout.split()
    assert alive == [], f"worker processes left behind: {alive}"


def test_every_user_input_error_class_is_a_value_error():
    from olk.algorithms.common.inputs import InputError, ParamError
    from olk.errors import ConfigError, DataError
    from olk.persist import ModelFileError
    for cls in (ConfigError, DataError, ModelFileError, InputError, ParamError):
        assert issubclass(cls, ValueError), cls
    from olk.algorithms import make
    with pytest.raises(ValueError):
        make("spa", beta=-3)
    from olk.data import load_dataset
    with pytest.raises(ValueError):
        load_dataset("no-such-dataset-anywhere")
