"""olk.data.load_dataset on the in-repo samples and on users' own files (offline, fast)."""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from olk.data import Dataset, find_file, get_registry, load_dataset, search_path
from olk.data import cache as data_cache
from olk.data.checksum import known_sha256

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "datasets"
SAMPLES = {"a9a-small": (2000, 123, True), "codrna-small": (2000, 8, False), "w7a-small": (2000, 300, True),
           "german-small": (300, 24, False)}


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OLK_DATA", str(DATASETS))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)


def _plain_sample(name: str) -> bytes:
    return lzma.decompress((DATASETS / "samples" / f"{name}.libsvm.xz").read_bytes())


def _check_invariants(d: Dataset):
    d.validate()
    if sp.issparse(d.X):
        assert d.X.indices.dtype == np.int32 and d.X.indptr.dtype == np.int32 and d.X.has_sorted_indices
        assert not np.any(d.X.data == 0)
    else:
        assert d.X.flags.c_contiguous and d.X.dtype == np.float64


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_load_with_registry_shapes(name):
    rows, nf, sparse = SAMPLES[name]
    d = load_dataset(name)
    spec = get_registry()[name]
    assert d.X.shape == (rows, nf) == (spec.rows(), spec.n_features)
    assert d.n_features == nf and d.task == "binary" and d.splits == {}
    assert sp.issparse(d.X) == sparse
    assert set(np.unique(d.y)) == {-1.0, 1.0}
    _check_invariants(d)
    assert d.meta["files"][0]["verified"] and d.meta["files"][0]["sha256"] == spec.parts["all"].files[0].sha256


def test_samples_are_small_xz_files():
    for name in SAMPLES:
        p = DATASETS / "samples" / f"{name}.libsvm.xz"
        assert p.stat().st_size < 100_000
    assert (DATASETS / "registry.yaml").is_symlink()
    assert os.readlink(DATASETS / "registry.yaml") == "../olk/data/registry.yaml"


def test_default_scaling_codrna_small_minmax11():
    d = load_dataset("codrna-small")
    assert d.X.min() == -1.0 and d.X.max() == 1.0          # exact ends, like svm-scale
    raw = load_dataset("codrna-small", preprocess={"scale": "none"})
    assert raw.X[:, 0].min() < -100                         # the unscaled cod-rna feature 1
    assert d.meta["preprocess"]["scale"] == "minmax11"


@pytest.mark.parametrize("scale", ["minmax01", "minmax11", "zscore", "minmax01_global"])
def test_scalings_dense(scale):
    d = load_dataset("german-small", preprocess={"scale": scale})
    X = d.X
    if scale == "minmax01":
        assert X.min() == 0.0 and X.max() == 1.0
    elif scale == "minmax11":
        assert X.min() == -1.0 and X.max() == 1.0
    elif scale == "zscore":
        assert np.allclose(X.mean(0), 0, atol=1e-12)
        nonconst = X.std(0) > 0
        assert np.allclose(X.std(0)[nonconst], 1.0)
    else:
        assert X.min() == 0.0 and X.max() == 1.0 and (X.max(0) < 1).sum() > 0


def test_sparse_minmax01_keeps_sparsity_and_forcing_storage():
    d = load_dataset("a9a-small", preprocess={"scale": "minmax01"})
    base = load_dataset("a9a-small")
    assert sp.issparse(d.X) and d.X.nnz == base.X.nnz
    dense = load_dataset("a9a-small", sparse=False)
    assert isinstance(dense.X, np.ndarray) and np.array_equal(dense.X, base.X.toarray())
    _check_invariants(dense)
    csr = load_dataset("german-small", sparse=True)
    assert sp.issparse(csr.X)
    _check_invariants(csr)


def test_positive_negative_label_and_subsample():
    d = load_dataset("german-small", preprocess={"subsample": 100, "subsample_seed": 3})
    d2 = load_dataset("german-small", preprocess={"subsample": 100, "subsample_seed": 3})
    d3 = load_dataset("german-small", preprocess={"subsample": 100, "subsample_seed": 4})
    assert d.X.shape == (100, 24) and np.array_equal(d.X, d2.X) and not np.array_equal(d.X, d3.X)
    full = load_dataset("german-small")
    flipped = load_dataset("german-small", preprocess={"positive_label": -1})
    assert np.array_equal(flipped.y, -full.y)
    assert "label_map" in flipped.meta


def test_train_test_parts_split_ranges_and_scale_fitted_on_train(tmp_path, monkeypatch):
    lines = _plain_sample("german-small").splitlines(keepends=True)
    (tmp_path / "g.train").write_bytes(b"".join(lines[:200]))
    (tmp_path / "g.test").write_bytes(b"".join(lines[200:]))
    reg = tmp_path / "reg.yaml"
    reg.write_text(
        "datasets:\n  gsplit:\n    description: two parts\n    task: binary\n    format: libsvm\n"
        "    storage: dense\n    n_features: 24\n    labels: [-1, 1]\n    files:\n"
        "      train: {path: g.train, rows: 200}\n      test: {path: g.test, rows: 100}\n"
        "    preprocess: {scale: minmax01}\n")
    monkeypatch.setenv("OLK_REGISTRY", str(reg))
    d = load_dataset("gsplit", data_dir=str(tmp_path))
    assert d.splits == {"train": (0, 200), "test": (200, 300)}
    tr = d.X[:200]
    assert tr.min() == 0.0 and tr.max() == 1.0
    test_only = load_dataset("gsplit", split="test", data_dir=str(tmp_path))
    assert test_only.splits == {} and np.allclose(test_only.X, d.X[200:])   # same (train) statistics
    assert np.array_equal(d.part("test").X, d.X[200:])
    allfit = load_dataset("gsplit", split="test", data_dir=str(tmp_path), preprocess={"scale_fit": "all"})
    assert allfit.X.min() == 0.0 and allfit.X.max() == 1.0


@pytest.mark.parametrize("suffix,compress", [("", None), (".gz", gzip.compress), (".bz2", bz2.compress),
                                             (".xz", lzma.compress)])
def test_user_file_any_compression(tmp_path, suffix, compress):
    data = _plain_sample("a9a-small")
    p = tmp_path / f"mine.libsvm{suffix}"
    p.write_bytes(compress(data) if compress else data)
    d = load_dataset(str(p))
    assert d.task == "binary" and d.X.shape[0] == 2000 and d.meta["source"] == "file"
    ref = load_dataset("a9a-small")
    assert np.array_equal(d.y, ref.y)
    assert (d.X[:, :ref.n_features] != ref.X[:, :d.n_features]).nnz == 0
    _check_invariants(d)


def test_user_file_positive_label_and_multiclass(tmp_path):
    p = tmp_path / "multi.libsvm"
    p.write_text("1 1:1\n2 2:1\n3 3:1\n2 1:0.5\n")
    d = load_dataset(str(p))
    assert d.task == "multiclass" and d.y.tolist() == [0, 1, 2, 1] and d.meta["classes"] == [1, 2, 3]
    b = load_dataset(str(p), preprocess={"positive_label": 2})
    assert b.task == "binary" and b.y.tolist() == [-1, 1, -1, 1]
    pair = load_dataset(str(p), preprocess={"positive_label": 2, "negative_label": 3})
    assert pair.y.tolist() == [1, -1, 1] and pair.X.shape[0] == 3
    r = tmp_path / "reg.libsvm"
    r.write_text("0.5 1:1\n1.25 2:1\n-3.5 1:2\n")
    assert load_dataset(str(r)).task == "regression"
    assert load_dataset(str(r), preprocess={"target_scale": "minmax01"}).y.tolist() == pytest.approx([4 / 4.75, 1, 0])


def test_array_cache_hit_and_corrupt_entry_rebuilt(tmp_path):
    first = load_dataset("w7a-small")
    assert first.meta["cache"] == {"hits": 0, "misses": 1, "dataset": False}
    second = load_dataset("w7a-small")
    assert second.meta["cache"] == {"hits": 1, "misses": 0, "dataset": True}      # the loaded dataset, mapped
    assert (first.X != second.X).nnz == 0 and np.array_equal(first.y, second.y)
    entries = [e for e in data_cache.data_cache_dir().iterdir() if (e / "entry.json").is_file()]
    assert len(entries) == 2                        # the parsed file and the loaded dataset
    for e in entries:
        for f in e.glob("*.npy"):
            f.write_bytes(b"not an npy")
    third = load_dataset("w7a-small")
    assert third.meta["cache"] == {"hits": 0, "misses": 1, "dataset": False}   # both entries refused, re-parsed
    assert (first.X != third.X).nnz == 0
    assert load_dataset("w7a-small").meta["cache"] == {"hits": 1, "misses": 0, "dataset": True}    # rebuilt


def test_cache_never_required(tmp_path, monkeypatch):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("x")
    monkeypatch.setenv("OLK_CACHE", str(blocker))
    d = load_dataset("german-small")
    assert d.X.shape == (300, 24)


def test_checksum_cache_records_verified_file():
    load_dataset("german-small")
    p = find_file("samples/german-small.libsvm")
    assert p is not None and p.name == "german-small.libsvm.xz"
    assert known_sha256(p) == get_registry()["german-small"].parts["all"].files[0].sha256


def test_search_path_order_and_find_file(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "sub").mkdir(parents=True)
    (b / "sub").mkdir(parents=True)
    (b / "sub" / "f.txt.bz2").write_bytes(b"x")
    monkeypatch.setenv("OLK_DATA", os.pathsep.join([str(a), str(a)]))
    path = search_path(str(b))
    assert path[0] == a and path[1] == b and path.count(a) == 1
    assert find_file("sub/f.txt", data_dir=[str(b)]) == b / "sub" / "f.txt.bz2"
    (a / "sub" / "f.txt").write_bytes(b"y")
    assert find_file("sub/f.txt", data_dir=[str(b)]) == a / "sub" / "f.txt"
    assert find_file("sub/none.txt", data_dir=[str(b)]) is None


def test_repr_and_meta():
    d = load_dataset("a9a-small")
    assert "a9a-small" in repr(d) and "csr" in repr(d)
    assert d.meta["source"] == "registry" and d.meta["preprocess"]["scale"] == "none"
