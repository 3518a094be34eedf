"""Full datasets from ../shared/datasets, checked against the registry (skipped when ../shared is absent).

covtype (75 MB of CSV, ~4 s to parse the first time) runs only with OLK_TEST_FULL=1.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from olk.data import get_registry, load_dataset

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
pytestmark = pytest.mark.skipif(not (SHARED / "MANIFEST.tsv").is_file(), reason="../shared/datasets not present")

QUICK = ["a9a", "w7a", "codrna", "ijcnn1", "german", "svmguide3", "madelon", "magic04", "mushrooms", "mfeat",
         "twitter", "tom", "air", "energy", "naval"]
FULL = ["covtype"] if os.environ.get("OLK_TEST_FULL") else []


@pytest.fixture(autouse=True)
def _isolated(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path_factory.getbasetemp() / "shared_cache"))
    monkeypatch.setenv("OLK_DATA", str(SHARED))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)


@pytest.mark.parametrize("name", QUICK + FULL)
def test_full_dataset_matches_registry(name):
    spec = get_registry()[name]
    d = load_dataset(name)
    assert d.X.shape == (spec.rows(), spec.n_features)
    assert sp.issparse(d.X) == (spec.storage == "sparse")
    assert d.task == spec.task
    if len(spec.default_split) > 1:
        bounds = [d.splits[s] for s in spec.default_split]
        assert bounds[0][0] == 0 and bounds[-1][1] == d.n_samples
    if d.task == "binary":
        assert set(np.unique(d.y)) == {-1.0, 1.0}
    d.validate()


def test_a9a_parts_and_positive_counts():
    d = load_dataset("a9a")
    assert d.splits == {"train": (0, 32561), "test": (32561, 48842)}
    assert int((d.y == 1).sum()) == 7841 + 3846
    test = load_dataset("a9a", split="test")
    assert test.X.shape == (16281, 123) and (test.X != d.X[32561:]).nnz == 0


def test_known_label_mappings():
    assert int((load_dataset("mushrooms").y == 1).sum()) == 3916          # label 1 (poisonous) -> +1
    assert int((load_dataset("magic04").y == 1).sum()) == 12332           # g -> +1
    assert int((load_dataset("german").y == 1).sum()) == 300
    m = load_dataset("mfeat")
    assert np.bincount(m.y.astype(int)).tolist() == [200] * 10
    assert m.meta["views"]["fou"] == (0, 76) and m.meta["views"]["mor"] == (643, 649)


def test_naval_target_raw_and_features_scaled():
    d = load_dataset("naval")
    assert 0.974 <= d.y.min() and d.y.max() <= 1.0
    assert d.X.min() == 0.0 and d.X.max() == 1.0


@pytest.mark.skipif(not FULL, reason="set OLK_TEST_FULL=1 to parse covtype")
def test_covtype_positives():
    d = load_dataset("covtype")
    assert int((d.y == 1).sum()) == 283301 and d.X.min() == 0.0 and d.X.max() == 1.0
