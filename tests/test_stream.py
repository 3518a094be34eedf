"""Streaming ``olk train`` / ``olk predict`` (issue 45): a LIBSVM file (or standard input) is learned as it is
parsed, in memory bounded by a chunk of text and the model, and gives the model of the in-memory path bit for bit
(dense and sparse, gzip and plain, standard input, binary / multi-class / regression learners, any chunk size);
``olk predict`` streams a file with the in-memory predictions; the peak memory of a streamed train does not grow
with the rows (a fresh process per size); on a terminal each read shows a bar of bytes, rows and rows/s."""
from __future__ import annotations

import gzip
import io
import json
import lzma
import os
import resource  # noqa: F401  (the launcher below uses it in its own process)
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from _cli import run_cli

from olk.bench.stream import write_data

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "datasets" / "samples" / "a9a-small.libsvm.xz"
RBF = '{"type": "gaussian", "gamma": 0.05}'
CHUNK = "3000"              # bytes: dozens of chunks per file


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small files, made once: dense (the bench's generator: 1,500 rows x 12 features, a few explicit zeros) and
    sparse (a9a-small), each plain and gzip; dense with labels 2/4, three classes, real targets."""
    d = tmp_path_factory.mktemp("stream")
    out = {"dense": write_data(d / "dense.libsvm", 1500, features=12, seed=3)}
    out["dense.gz"] = d / "dense.libsvm.gz"
    out["dense.gz"].write_bytes(gzip.compress(out["dense"].read_bytes()))
    out["sparse"] = d / "sparse.libsvm"
    out["sparse"].write_bytes(lzma.decompress(SAMPLE.read_bytes()))
    out["sparse.gz"] = d / "sparse.libsvm.gz"
    out["sparse.gz"].write_bytes(gzip.compress(out["sparse"].read_bytes()))
    lines = out["dense"].read_text().splitlines()
    rng = np.random.default_rng(0)
    relabel = {"labels24": lambda i, lab: "4" if lab == "+1" else "2",
               "classes": lambda i, lab: str(1 + i % 3) if lab == "+1" else "3",
               "targets": lambda i, lab: f"{rng.standard_normal():.6f}"}
    for name, f in relabel.items():
        out[name] = d / f"{name}.libsvm"
        out[name].write_text("".join(f(i, ln.split(" ", 1)[0]) + " " + ln.split(" ", 1)[1] + "\n"
                                     for i, ln in enumerate(lines)))
    return out


def same_model(a: Path, b: Path) -> None:
    """Two model files hold the same arrays and the same JSON document, bit for bit."""
    with np.load(a) as A, np.load(b) as B:
        assert sorted(A.files) == sorted(B.files)
        for k in A.files:
            assert A[k].dtype == B[k].dtype and A[k].shape == B[k].shape and A[k].tobytes() == B[k].tobytes(), k


def _train(capsys, data, tmp_path, name, *extra):
    code, out, err = run_cli(["train", data, "-k", RBF, "-o", tmp_path / name, *extra], capsys)
    assert code == 0 and out == "", err
    return err


CASES = [("dense", "rbp", ["--set", "budget=30"]), ("dense.gz", "forgetron", ["--set", "budget=30"]),
         ("sparse", "perceptron", []), ("sparse.gz", "rbp", ["--set", "budget=40"]),
         ("labels24", "pa1", []), ("labels24", "perceptron", ["--positive-label", "2"]),
         ("classes", "mc_pa1", []), ("classes", "perceptron", ["--positive-label", "1"]),
         ("targets", "kogd_reg", ["--set", "step_size=sqrt_T"]), ("targets", "kogd_reg", []),
         ("targets", "raker", ["--set", "step_size=sqrt_T", "--set", "eta_cap=0.01"]),
         ("dense", "oks", ["-k", f"[{RBF}, {{\"type\": \"linear\"}}]"])]


@pytest.mark.parametrize("key, alg, extra", CASES, ids=[f"{k}-{a}" for k, a, _ in CASES])
def test_a_streamed_train_is_the_in_memory_model_bit_for_bit(files, tmp_path, capsys, key, alg, extra):
    err = _train(capsys, files[key], tmp_path, "s.olk", "-a", alg, "--chunk", CHUNK, *extra)
    assert " s, streamed" in err
    assert " s, streamed" not in _train(capsys, files[key], tmp_path, "m.olk", "-a", alg, "--in-memory", *extra)
    same_model(tmp_path / "s.olk", tmp_path / "m.olk")


def test_standard_input_and_any_chunk_size_give_the_same_model(files, tmp_path, capsys, monkeypatch):
    for key in ("dense.gz", "sparse"):
        _train(capsys, files[key], tmp_path, "m.olk", "-a", "rbp", "--set", "budget=25", "--in-memory")
        for chunk in ("50", "777", "4M"):             # 50: shorter than a line
            _train(capsys, files[key], tmp_path, "s.olk", "-a", "rbp", "--set", "budget=25", "--chunk", chunk)
            same_model(tmp_path / "s.olk", tmp_path / "m.olk")
        raw = gzip.decompress(files[key].read_bytes()) if key.endswith(".gz") else files[key].read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
        _train(capsys, "-", tmp_path, "i.olk", "-a", "rbp", "--set", "budget=25", "--chunk", "5000")
        same_model(tmp_path / "i.olk", tmp_path / "m.olk")
    leftovers = [p for p in Path(os.environ.get("TMPDIR", "/tmp")).glob("olk-train-stdin-*")]
    assert leftovers == []                          # the copy of standard input is removed


@pytest.mark.parametrize("key", ["dense.gz", "sparse"])
def test_predict_streams_a_file_with_the_in_memory_predictions(files, tmp_path, capsys, key):
    import olk
    from olk.data import load_dataset
    _train(capsys, files[key], tmp_path, "m.olk", "-a", "perceptron")
    code, out, err = run_cli(["predict", tmp_path / "m.olk", files[key], "--chunk", "2000"], capsys)
    assert code == 0, err
    d = load_dataset(files[key], preprocess={"task": "regression"})
    expect = olk.load(tmp_path / "m.olk").predict(d.X)
    assert [float(v) for v in out.split()] == expect.tolist()
    assert f"({int(np.sum(expect == d.y))}/{d.y.size})" in err
    code, out2, err = run_cli(["predict", tmp_path / "m.olk", files[key], "-q"], capsys)
    assert code == 0 and out2 == out and err == ""


def test_bad_input_is_one_line_with_the_line_counted_over_the_file(files, tmp_path, capsys, monkeypatch):
    lines = files["dense"].read_text().splitlines()
    bad = tmp_path / "bad.libsvm.gz"
    bad.write_bytes(gzip.compress(("\n".join(lines[:1200] + ["1 3:0.5 2:0.1"] + lines[1200:]) + "\n").encode()))
    code, _, err = run_cli(["train", bad, "-a", "rbp", "-o", tmp_path / "x.olk", "--chunk", CHUNK], capsys)
    assert code == 2 and err.strip().count("\n") == 0
    assert f"{bad}:1201: feature indices must be strictly increasing (2 after 3)" in err
    assert not (tmp_path / "x.olk").exists()
    empty = tmp_path / "empty.libsvm"
    empty.write_text("# nothing\n\n")
    code, _, err = run_cli(["train", empty, "-a", "rbp", "-o", tmp_path / "x.olk"], capsys)
    assert code == 2 and "empty file (no data lines)" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 1:1\n")))
    for extra, why in ((["--shuffle", "1"], "--shuffle needs a file"), (["-a", "pegasos"], "batch learner")):
        argv = ["train", "-", "-o", tmp_path / "x.olk", *(extra if "-a" in extra else ["-a", "rbp", *extra])]
        code, _, err = run_cli(argv, capsys)
        assert code == 2 and why in err and err.count("\n") == 1, err
    code, _, err = run_cli(["train", files["dense"], "-a", "rbp", "-o", tmp_path / "x.olk", "--chunk", "0"], capsys)
    assert code == 2 and "--chunk" in err


def test_each_read_shows_a_bar_of_bytes_rows_and_rows_per_second_on_a_terminal_only(files, tmp_path, monkeypatch):
    from olk.application import train

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    from olk.data.stream import ReadBar
    monkeypatch.setattr(ReadBar, "MININTERVAL", 0.0)    # every update drawn (0.5 s between redraws otherwise)
    for key, alg, reads in (("dense.gz", "rbp", 1), ("classes", "mc_pa1", 2)):
        for quiet, stderr in ((False, Terminal()), (True, Terminal()), (False, io.StringIO())):
            monkeypatch.setattr(sys, "stderr", stderr)
            got = train(str(files[key]), alg, out=str(tmp_path / "b.olk"), quiet=quiet, chunk=4000, log=lambda m: None)
            assert got["reads"] == reads
            text = stderr.getvalue()
            if quiet or not isinstance(stderr, Terminal):
                assert text == ""
            else:
                assert f"olk train {alg}:" in text and (f"olk train {alg}: first read" in text) == (reads == 2)
                assert "rows/s" in text and "1,500 rows" in text and "B/s" in text and "100%" in text


@pytest.mark.parametrize("lines, why", [
    (["1 1:0.5 2:1"] * 300 + ["2 1:0.25 3:1", "1 2:1"] * 300, "the larger label comes late: one read, then two"),
    (["4 1:0.5 2:1 3:1 4:1"] * 300 + ["2 1:0.25", "4 3:1"] * 300, "one label other than +-1 first: two reads"),
    (["1 1:0.5 2:1 3:1 4:1"] * 100 + ["-1 1:0.25", "1 40:1"] * 600, "dense first, sparse overall: one read, then two"),
])
def test_a_first_chunk_that_misleads_costs_a_second_read_not_the_model(tmp_path, capsys, lines, why):
    p = tmp_path / "d.libsvm"
    p.write_text("\n".join(lines) + "\n")
    _train(capsys, p, tmp_path, "m.olk", "-a", "perceptron", "--in-memory")
    err = _train(capsys, p, tmp_path, "s.olk", "-a", "perceptron", "--chunk", "2000")
    assert "streamed (+ " in err, why                    # it ended with two reads
    same_model(tmp_path / "s.olk", tmp_path / "m.olk")


# ------------------------------------------------------------------------------------------------ peak memory
# ru_maxrss of a process started by a large one (pytest) starts from its parent's size (Linux keeps the high-water
# mark across fork + exec), so a small launcher starts the measured train and reports its own ru_maxrss
LAUNCH = textwrap.dedent("""
    import json, resource, subprocess, sys
    r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stderr)
    print(json.dumps({"maxrss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
""")


def _lines_file(path: Path, rows: int) -> Path:
    """`rows` rows of 10 dense features: 10,000 distinct lines repeated (quick to write; a budgeted learner sees a
    stream like any other)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((10_000, 10))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(10_000) > 0, "+1", "-1")
    block = "".join(f"{lab} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x)) + "\n" for lab, x in zip(y, X))
    with open(path, "w") as f:
        for _ in range(rows // 10_000):
            f.write(block)
    return path


def test_the_peak_memory_of_a_streamed_train_does_not_grow_with_the_rows(tmp_path):
    peaks = {}
    for rows in (200_000, 1_000_000):
        data = _lines_file(tmp_path / f"r{rows}.libsvm", rows)
        cmd = [sys.executable, "-c", "from olk.cli import main; main()", "train", str(data), "-a", "rbp", "--set",
               "budget=50", "-k", RBF, "-q", "-o", str(tmp_path / "m.olk"), "--chunk", "1M"]
        r = subprocess.run([sys.executable, "-c", LAUNCH, *cmd], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        peaks[rows] = json.loads(r.stdout.strip().splitlines()[-1])["maxrss"]
        data.unlink()
    small, large = peaks[200_000], peaks[1_000_000]
    print(f"peak RSS: 200k rows {small / 2**20:.1f} MB, 1M rows {large / 2**20:.1f} MB")
    assert large <= 1.10 * small, peaks
    assert large < 300 * 2**20


# ------------------------------------------------------------------------------------- the cache's conversion
def _same_dataset(a, b):
    """Two Datasets identical to the last bit: arrays (kind, dtype, shape, bytes), labels, parts, meta."""
    assert (a.name, a.task, a.n_features, a.splits) == (b.name, b.task, b.n_features, b.splits)
    assert type(a.X) is type(b.X) and a.X.shape == b.X.shape
    for k in (("data", "indices", "indptr") if a.is_sparse else ()):
        x, y = getattr(a.X, k), getattr(b.X, k)
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), k
    if not a.is_sparse:
        assert a.X.dtype == b.X.dtype and a.X.tobytes() == b.X.tobytes()
    assert a.y.dtype == b.y.dtype and a.y.tobytes() == b.y.tobytes()
    strip = lambda m: {k: v for k, v in m.items() if k != "cache"}     # noqa: E731
    assert strip(a.meta) == strip(b.meta)


CONVERT = [("dense", {}), ("dense.gz", {"sparse": True}), ("dense", {"preprocess": {"scale": "minmax11"}}),
           ("dense", {"preprocess": {"scale": "minmax01_global"}, "sparse": True}),
           ("dense", {"preprocess": {"subsample": 700, "subsample_seed": 3}, "sparse": False}),
           ("sparse", {}), ("sparse.gz", {"preprocess": {"scale": "minmax01"}}),
           ("sparse", {"preprocess": {"scale": "minmax11"}}), ("sparse", {"sparse": False}),
           ("sparse", {"preprocess": {"subsample": 500}, "sparse": True}),
           ("labels24", {"preprocess": {"positive_label": 4}}), ("classes", {}),
           ("classes", {"preprocess": {"positive_label": 1, "negative_label": 2, "scale": "minmax11"}}),
           ("classes", {"preprocess": {"positive_label": [1, 3]}}), ("targets", {}),
           ("targets", {"preprocess": {"target_scale": "minmax01", "scale": "minmax01"}})]


@pytest.mark.parametrize("key, kw", CONVERT, ids=[f"{k}-{json.dumps(w, sort_keys=True)}" for k, w in CONVERT])
def test_a_large_file_is_converted_to_the_cache_in_blocks_with_the_arrays_of_a_whole_parse(files, key, kw, tmp_path,
                                                                                           monkeypatch):
    from olk.data import cache, load_dataset
    from olk.data import loader as loader_mod
    monkeypatch.setattr(loader_mod, "STREAM_MIN", 0)             # every file counts as large
    import olk.data.stream as stream_mod
    monkeypatch.setattr(stream_mod, "BLOCK_BYTES", 4096)         # dozens of blocks
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "blocks"))
    blocks = load_dataset(files[key], **kw)
    assert blocks.meta["cache"] == {"hits": 0, "misses": 1, "dataset": False, "converted": "blocks"}
    assert [e["what"] for e in cache.entries()] == [f"dataset {files[key].name}"]     # no parsed-file entry
    warm = load_dataset(files[key], **kw)
    assert warm.meta["cache"]["dataset"] is True
    monkeypatch.setattr(loader_mod, "STREAM_MIN", 2**62)
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "whole"))
    whole = load_dataset(files[key], **kw)
    assert "converted" not in whole.meta["cache"]                 # parsed whole
    _same_dataset(blocks, whole)
    _same_dataset(warm, whole)


def test_what_cannot_be_converted_exactly_in_blocks_is_parsed_whole(files, tmp_path, monkeypatch):
    from olk.data import load_dataset
    from olk.data import loader as loader_mod
    monkeypatch.setattr(loader_mod, "STREAM_MIN", 0)
    for kw in ({"preprocess": {"scale": "zscore"}}, {"preprocess": {"subsample": 10, "scale": "minmax11"}},
               {"preprocess": {"subsample": 10}}):
        assert "converted" not in load_dataset(files["dense"], **kw).meta["cache"]
    monkeypatch.setenv("OLK_CACHE_MAX", "1K")                       # the entry would not fit the cache
    assert "converted" not in load_dataset(files["sparse"]).meta["cache"]


def test_blocks_give_the_whole_files_rows_and_errors_on_every_corner_case(tmp_path):
    """The reader's corner cases (tests/test_libsvm_reader.py), after 40 good lines, read in blocks of 7 and 64
    bytes: the rows of a whole read (stacked), or its very error message (the line counted over the file)."""
    from test_libsvm_reader import CASES

    from olk.data.libsvm import read_libsvm_file
    from olk.data.stream import Source, iter_blocks
    from olk.errors import DataError
    good = b"".join(b"%d 1:%d.5 3:-1\n" % (1 - 2 * (i % 2), i) for i in range(40))
    for name, text in CASES.items():
        p = tmp_path / f"{name}.libsvm"
        p.write_bytes(good + text)
        try:
            X, y = read_libsvm_file(p, arrays=True)
            want = (X.data.tobytes(), X.indices.tolist(), X.indptr.tolist(), y.tobytes(), X.shape[1])
        except DataError as e:
            want = str(e)
        for size in (7, 64):
            try:
                with Source(p) as s:
                    parts = list(iter_blocks(s, block_bytes=size))
                data = np.concatenate([b.data for b, _ in parts]) if parts else np.zeros(0)
                counts = np.concatenate([np.diff(b.indptr) for b, _ in parts]) if parts else np.zeros(0, int)
                got = (data.tobytes(), np.concatenate([b.indices for b, _ in parts]).tolist() if parts else [],
                       [0, *np.cumsum(counts).tolist()], np.concatenate([y for _, y in parts]).tobytes() if parts
                       else b"", max([b.shape[1] for b, _ in parts], default=1))
            except DataError as e:
                got = str(e)
            assert got == want, (name, size)


def test_a_line_longer_than_the_limit_is_refused_once_that_many_bytes_are_held(tmp_path, monkeypatch):
    from olk.data.libsvm import read_libsvm_file
    from olk.data.stream import Source, iter_blocks
    from olk.errors import DataError
    monkeypatch.setenv("OLK_LIMIT_LINE_BYTES", "300")
    for text in (b"1 1:1\n" * 30 + b"1 " + b"1" * 1000 + b"\n1 1:1\n", b"1 1:1\n" + b"9" * 5000):
        p = tmp_path / "long.libsvm"
        p.write_bytes(text)
        with pytest.raises(DataError) as whole:
            read_libsvm_file(p, chunk_bytes=64)
        for size in (64, 4096):
            with pytest.raises(DataError) as blocks, Source(p) as s:
                list(iter_blocks(s, block_bytes=size))
            assert str(blocks.value) == str(whole.value) and "the line is longer than" in str(blocks.value)


def test_one_read_widens_the_model_to_later_wider_rows_exactly(tmp_path, capsys):
    """Dense rows that grow wider after the first chunk: learned in one read (the pool widens: SVPool.widen), the
    model of the whole file loaded at its full width, bit for bit."""
    p = tmp_path / "w.libsvm"
    p.write_text("".join(["1 1:0.5 2:1 3:-1\n", "-1 1:-0.5 2:0.25 3:1\n"] * 100 +
                         ["-1 1:1 2:1 3:1 4:-0.5 5:0.5\n", "1 1:0.2 2:0.1 3:1 4:0.5 5:-1\n"] * 300))
    for alg in ("perceptron", "forgetron", "nogd"):
        _train(capsys, p, tmp_path, "m.olk", "-a", alg, "--in-memory")
        assert "streamed in one read" in _train(capsys, p, tmp_path, "s.olk", "-a", alg, "--chunk", "1000")
        same_model(tmp_path / "s.olk", tmp_path / "m.olk")


def test_the_benchmarks_generator_is_seeded_and_written_as_documented(tmp_path):
    a = write_data(tmp_path / "a.libsvm", 3, features=4, seed=45)
    b = write_data(tmp_path / "b.libsvm.gz", 3, features=4, seed=45)
    assert a.read_bytes() == gzip.decompress(b.read_bytes())
    first = a.read_text().splitlines()[0].split()
    assert first[0] in ("+1", "-1") and [t.split(":")[0] for t in first[1:]] == ["1", "2", "3", "4"]
    assert all(len(t.split(":")[1].split(".")[1]) == 4 for t in first[1:])
