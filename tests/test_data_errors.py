"""Every bad input gives a one-line DataError naming the file (and line / key) and the fix."""
from __future__ import annotations

import lzma
import shutil
from pathlib import Path

import pytest

from olk.data import load_dataset
from olk.data.registry import get_registry
from olk.errors import DataError, OlkError

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "datasets"
BAD = REPO / "tests" / "data"


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OLK_DATA", str(DATASETS))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)


def _error(*args, **kwargs) -> str:
    with pytest.raises(DataError) as exc:
        load_dataset(*args, **kwargs)
    msg = str(exc.value)
    assert "\n" not in msg and isinstance(exc.value, OlkError)
    return msg


def _registry(tmp_path, monkeypatch, entry: str, name: str = "toy") -> None:
    """Register dataset `name` (YAML body `entry`) from an extra registry file, data under tests/data."""
    reg = tmp_path / "extra_registry.yaml"
    body = "\n".join("    " + ln for ln in entry.strip().splitlines())
    reg.write_text(f"datasets:\n  {name}:\n{body}\n")
    monkeypatch.setenv("OLK_REGISTRY", str(reg))
    monkeypatch.setenv("OLK_DATA", str(BAD))


TOY = """
description: toy
task: binary
format: libsvm
storage: sparse
n_features: 5
labels: [-1, 1]
files:
  all: {{path: {path}, rows: {rows}}}
"""


def test_malformed_line_names_file_and_line():
    msg = _error(str(BAD / "malformed.libsvm"))
    assert msg == (f"{BAD / 'malformed.libsvm'}:3: malformed LIBSVM line: expected '<label> <index>:<value> ...', "
                   f"got '+1 1:0.5 3-1'")


def test_malformed_line_in_registry_dataset(tmp_path, monkeypatch):
    _registry(tmp_path, monkeypatch, TOY.format(path="malformed.libsvm", rows=4))
    msg = _error("toy")
    assert "malformed.libsvm:3: malformed LIBSVM line" in msg


def test_index_beyond_declared_n_features(tmp_path, monkeypatch):
    _registry(tmp_path, monkeypatch, TOY.format(path="index_beyond.libsvm", rows=3))
    msg = _error("toy")
    assert "index_beyond.libsvm:2: feature index 7 is beyond the declared n_features=5 of dataset 'toy'" in msg
    assert "re-fetch" in msg


def test_empty_file_user_and_registry(tmp_path, monkeypatch):
    assert "empty.libsvm: empty file" in _error(str(BAD / "empty.libsvm"))
    _registry(tmp_path, monkeypatch, TOY.format(path="empty.libsvm", rows=3))
    msg = _error("toy")
    assert "empty.libsvm: empty file" in msg and "olk datasets fetch toy" in msg


def test_three_labels_for_binary_registry_dataset(tmp_path, monkeypatch):
    _registry(tmp_path, monkeypatch, TOY.format(path="three_classes.libsvm", rows=4))
    msg = _error("toy")
    assert "three_classes.libsvm: labels {1, 2, 3} found" in msg and "declares {-1, 1}" in msg


def test_three_labels_user_file_forced_binary():
    msg = _error(str(BAD / "three_classes.libsvm"), preprocess={"task": "binary"})
    assert "labels {1, 2, 3} found (3 classes)" in msg and "positive_label" in msg


def test_user_labels_not_plus_minus_one(tmp_path):
    p = tmp_path / "zero_one.libsvm"
    p.write_text("0 1:1\n1 2:1\n")
    msg = _error(str(p))
    assert "labels {0, 1} found" in msg and "-1/+1" in msg and "positive_label" in msg
    assert load_dataset(str(p), preprocess={"positive_label": 1}).y.tolist() == [-1.0, 1.0]


def test_wrong_row_count(tmp_path, monkeypatch):
    _registry(tmp_path, monkeypatch, TOY.format(path="index_beyond.libsvm", rows=5).replace("n_features: 5",
                                                                                            "n_features: 7"))
    msg = _error("toy")
    assert "index_beyond.libsvm: 3 rows, but the registry expects 5 for toy/all" in msg


def test_index_zero_and_unsorted(tmp_path):
    p = tmp_path / "zero.libsvm"
    p.write_text("+1 1:1\n-1 0:1 2:1\n")
    assert f"{p}:2: feature index 0 is invalid: LIBSVM indices start at 1" in _error(str(p))
    q = tmp_path / "unsorted.libsvm"
    q.write_text("+1 3:1 2:1\n")
    assert f"{q}:1: feature indices must be strictly increasing (2 after 3)" in _error(str(q))


def test_unknown_dataset_did_you_mean():
    msg = _error("a9b")
    assert "unknown dataset 'a9b' (did you mean 'a9a'?)" in msg and "olk datasets list" in msg


def test_missing_file_lists_search_path_and_fix(tmp_path, monkeypatch):
    empty = tmp_path / "nothing_here"
    empty.mkdir()
    monkeypatch.chdir(tmp_path)
    _registry(tmp_path, monkeypatch, TOY.format(path="absent.libsvm", rows=3).replace(
        "rows: 3}", "rows: 3, url: 'https://example.org/absent.libsvm'}"))
    monkeypatch.setenv("OLK_DATA", str(empty))
    msg = _error("toy", data_dir=str(tmp_path / "also"))
    assert "file 'absent.libsvm'" in msg and str(empty) in msg and str(tmp_path / "also") in msg
    assert "olk datasets fetch toy" in msg and "OLK_DATA" in msg


def test_no_such_user_file():
    assert "no such file" in _error("does/not/exist.libsvm")


def test_bad_split_and_bad_preprocess_keys():
    assert "has no split 'tset' (did you mean 'test'?)" in _error("a9a", split="tset")
    assert "unknown preprocess key 'scael' (did you mean 'scale'?)" in _error("a9a-small", preprocess={"scael": 1})
    assert "scale 'minmax' is not one of" in _error("a9a-small", preprocess={"scale": "minmax"})
    assert "positive_label {5} not among the labels found {-1, 1}" in _error("a9a-small",
                                                                             preprocess={"positive_label": 5})
    assert "'task' applies only to your own files" in _error("a9a-small", preprocess={"task": "regression"})


def test_sha256_mismatch_and_verify_false(tmp_path, monkeypatch):
    data = lzma.decompress((DATASETS / "samples" / "german-small.libsvm.xz").read_bytes())
    (tmp_path / "samples").mkdir()
    bad = tmp_path / "samples" / "german-small.libsvm"
    bad.write_bytes(data.replace(b"\n", b"\n ", 1))          # still valid LIBSVM, different bytes
    monkeypatch.setenv("OLK_DATA", str(tmp_path))
    msg = _error("german-small")
    expected = get_registry()["german-small"].parts["all"].files[0].sha256
    assert f"{bad}: sha256 mismatch for german-small/all: expected {expected[:12]}..., got " in msg
    assert "verify=False" in msg and "olk datasets fetch german-small --force" in msg
    assert load_dataset("german-small", verify=False).X.shape == (300, 24)
    assert "sha256 mismatch" in _error("german-small")                 # cached hash, still checked


def test_modified_file_is_rehashed(tmp_path, monkeypatch):
    (tmp_path / "samples").mkdir()
    src = DATASETS / "samples" / "german-small.libsvm.xz"
    dst = tmp_path / "samples" / "german-small.libsvm.xz"
    shutil.copy(src, dst)
    monkeypatch.setenv("OLK_DATA", str(tmp_path))
    load_dataset("german-small")
    dst.write_bytes(lzma.compress(lzma.decompress(src.read_bytes()) + b"+1 1:1\n"))
    assert "sha256 mismatch" in _error("german-small")


def test_corrupt_archive(tmp_path):
    p = tmp_path / "broken.libsvm.xz"
    p.write_bytes(b"\xfd7zXZ\x00garbage")
    assert "broken.libsvm.xz: corrupt .xz archive" in _error(str(p))


def test_bad_registry_file(tmp_path, monkeypatch):
    reg = tmp_path / "r.yaml"
    reg.write_text("datasets:\n  x:\n    description: d\n    task: binary\n    format: libsvm\n    storage: sparse\n"
                   "    n_features: 3\n    files: {all: {path: p}}\n    preprocesss: {}\n")
    monkeypatch.setenv("OLK_REGISTRY", str(reg))
    msg = _error("a9a-small")
    assert f"{reg}: dataset 'x': unknown key 'preprocesss' (did you mean 'preprocess'?)" == msg
    reg.write_text("datasets:\n  x:\n    description: d\n    task: binray\n    format: libsvm\n    storage: sparse\n"
                   "    n_features: 3\n    files: {all: {path: p}}\n")
    assert "task 'binray' is not one of binary, multiclass, regression (did you mean 'binary'?)" in _error("x")
    reg.write_text("datasets:\n  x:\n    description: d\n    task: binary\n    format: delimited\n"
                   "    storage: dense\n    n_features: 3\n    options: {target_col: 3}\n    files: {all: {path: p}}\n")
    assert "unknown option 'target_col' for format delimited (did you mean 'target_column'?)" in _error("x")
    reg.write_text("datasets: [\n")
    assert f"{reg}:2: invalid YAML" in _error("x")


def test_delimited_and_mat_errors(tmp_path, monkeypatch):
    (tmp_path / "t.csv").write_text("1,2,3\n4,x,6\n")
    (tmp_path / "m.mat").write_bytes(b"not a mat file at all" * 10)
    reg = tmp_path / "r.yaml"
    reg.write_text(
        "datasets:\n"
        "  csvd:\n    description: d\n    task: regression\n    format: delimited\n    storage: dense\n"
        "    n_features: 2\n    options: {sep: ',', target_column: 2, feature_columns: [0, 2]}\n"
        "    files: {all: {path: t.csv, rows: 2}}\n"
        "  matd:\n    description: d\n    task: regression\n    format: mat\n    storage: dense\n"
        "    n_features: 2\n    files: {all: {path: m.mat, rows: 2}}\n")
    monkeypatch.setenv("OLK_REGISTRY", str(reg))
    monkeypatch.setenv("OLK_DATA", str(tmp_path))
    assert f"{tmp_path / 't.csv'}:2: non-numeric value 'x' in column 2" in _error("csvd")
    assert f"{tmp_path / 'm.mat'}: cannot read as a MATLAB .mat file" in _error("matd")
