"""``olk train`` / ``olk predict`` with labels other than ±1 and with an endless standard input (issue 25).

* a file labelled 0/1 or 2/4 trains; the model keeps its labels and ``olk predict`` prints them;
  ``--positive-label L`` picks the positive class, and with more than two labels learns L against the rest;
* a file with one label trains with a one-line warning that the model predicts that label;
* ``olk predict MODEL -`` streams standard input: predictions come out while the input is still open (the
  old command read all of it first: 22.8 GB for an endless stream), in bounded memory.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import olk
from olk.cli import main

OLK = Path(sys.executable).with_name("olk")
needs_script = pytest.mark.skipif(not OLK.exists(), reason="needs the installed olk script")


def _run(argv, capsys):
    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def _file(tmp_path, labels, name="d.libsvm"):
    rng = np.random.default_rng(0)
    lines = []
    for lab in labels:
        x = rng.random(3) + (0.8 if lab == labels[0] else 0.0)
        lines.append(f"{lab} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x)))
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize("labels,positive,expect_classes", [
    ([0, 1] * 20, None, [0, 1]),
    ([2, 4] * 20, None, [2, 4]),
    ([2, 4] * 20, "2", [4, 2]),
])
def test_two_labels_are_learned_as_they_are_and_predicted_back(tmp_path, capsys, labels, positive, expect_classes):
    data = _file(tmp_path, labels)
    argv = ["train", data, "-a", "perceptron", "--kernel", "gaussian", "-o", tmp_path / "m.olk", "-q"]
    if positive is not None:
        argv += ["--positive-label", positive]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    assert olk.load(tmp_path / "m.olk").classes_.tolist() == expect_classes
    code, out, err = _run(["predict", tmp_path / "m.olk", data], capsys)
    assert code == 0, err
    assert set(out.split()) <= {str(c) for c in expect_classes} and "accuracy = " in err


def test_more_than_two_labels_need_a_positive_label(tmp_path, capsys):
    data = _file(tmp_path, [1, 2, 3] * 10)
    code, _, err = _run(["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk"], capsys)
    assert code == 2 and "has 3 labels (1, 2, 3)" in err and "--positive-label" in err
    code, _, err = _run(["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk", "-q",
                         "--positive-label", "3"], capsys)
    assert code == 0, err
    assert olk.load(tmp_path / "m.olk").classes_.tolist() == [-1, 3]
    code, _, err = _run(["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk", "--positive-label", "9"], capsys)
    assert code == 2 and "is not one of its labels" in err


def test_one_label_trains_with_a_one_line_warning(tmp_path, capsys):
    data = _file(tmp_path, [7] * 10)
    code, _, err = _run(["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk"], capsys)
    assert code == 0
    warnings = [ln for ln in err.splitlines() if ln.startswith("olk: warning:")]
    assert len(warnings) == 1 and "one label only (7)" in warnings[0]
    code, out, _ = _run(["predict", tmp_path / "m.olk", data], capsys)
    assert set(out.split()) == {"7"}


@needs_script
def test_predict_streams_standard_input_while_it_is_still_open(tmp_path, capsys):
    data = _file(tmp_path, [1, -1] * 20)
    code, _, err = _run(["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk", "-q"], capsys)
    assert code == 0, err
    from olk.application import STDIN_CHUNK_ROWS

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    p = subprocess.Popen([str(OLK), "predict", str(tmp_path / "m.olk"), "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=cap, env=env)
    line = b"1 1:0.5 2:0.25 3:0.75\n"
    got, first = [], threading.Event()

    def drain():                                   # read every prediction as it comes (a full pipe would block olk)
        for out_line in p.stdout:
            got.append(out_line)
            if len(got) == STDIN_CHUNK_ROWS:
                first.set()
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        p.stdin.write(line * (STDIN_CHUNK_ROWS + 10))      # one chunk and a bit; stdin stays open
        p.stdin.flush()
        assert first.wait(timeout=60), "no prediction came out before standard input closed"
        assert all(g.strip() in (b"1", b"-1") for g in got[:STDIN_CHUNK_ROWS])
        for _ in range(20):                                  # then a long stream: memory stays bounded
            p.stdin.write(line * 50_000)
        p.stdin.write(b"1 1:bad\n")                          # a malformed line, counted over the whole stream
        p.stdin.close()
    except BrokenPipeError:
        pass
    except BaseException:
        p.kill()                                             # never leave olk running behind a failed test
        raise
    p.wait(timeout=120)
    reader.join(timeout=30)
    err = p.stderr.read()
    assert p.returncode == 2, err
    bad = STDIN_CHUNK_ROWS + 10 + 20 * 50_000 + 1
    assert f"<stdin>:{bad}: malformed LIBSVM line" in err.decode()
