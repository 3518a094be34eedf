"""The registry: schema, consistency with the papers, MANIFEST.tsv (when ../shared is present) and the samples."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from olk.data import get_registry
from olk.data.preprocess import validate_preprocess
from olk.data.registry import REGISTRY_FILE

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "datasets"

# rows x features the papers report, for the default split (split=None)
PAPER_SHAPES = {
    "a9a": (48842, 123), "w7a": (49749, 300), "codrna": (59535, 8), "covtype": (581012, 54),
    "kdd08": (102294, 117), "ijcnn1": (141691, 22), "ijcnn1_train": (49990, 22), "german": (1000, 24),
    "svmguide3": (1243, 21),
    "madelon": (2000, 500), "magic04": (19020, 10), "mushrooms": (8124, 112), "rcv1": (697641, 47236),
    "codrna_test": (271617, 8), "susy": (5000000, 18), "mfeat": (2000, 649), "twitter": (13813, 77),
    "twitter_l": (98704, 77), "tom": (9725, 96), "air": (7322, 13), "energy": (18604, 25), "naval": (11934, 16),
}
UNAVAILABLE = {"kdd08", "susy", "rcv1", "codrna_test", "twitter_l"}


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)


def test_every_paper_dataset_registered_with_paper_shape():
    reg = get_registry()
    for name, (rows, nf) in PAPER_SHAPES.items():
        spec = reg[name]
        assert (spec.rows(), spec.n_features) == (rows, nf), name
        assert spec.offline == (name not in UNAVAILABLE), name
        assert spec.homepage and spec.notes and spec.papers, name
        for split, f in spec.files():
            if spec.offline and spec.parts[split].files[0].offline:
                assert f.sha256, (name, split)
            assert f.url or name in {"kdd08", "twitter_l"}, (name, split)


def test_task_storage_and_label_defaults():
    reg = get_registry()
    assert {n for n, s in reg.items() if s.task == "regression"} == {"twitter", "twitter_l", "tom", "air",
                                                                      "energy", "naval"}
    assert reg["mfeat"].task == "multiclass"
    for n in ("a9a", "w7a", "rcv1", "mushrooms"):
        assert reg[n].storage == "sparse"
    for n in ("codrna", "covtype", "german", "magic04", "ijcnn1", "madelon"):
        assert reg[n].storage == "dense"
    assert reg["codrna"].preprocess["scale"] == "minmax11"
    assert reg["covtype"].preprocess == {"positive_label": 2, "scale": "minmax01"}
    assert reg["mushrooms"].preprocess["positive_label"] == 1
    assert reg["a9a"].preprocess["scale"] == "none" and reg["w7a"].preprocess["scale"] == "none"
    assert reg["a9a"].default_split == ("train", "test")
    for spec in reg.values():
        validate_preprocess(spec.preprocess, spec.name)


def test_mfeat_views_cover_all_columns():
    spec = get_registry()["mfeat"]
    views = spec.parts["all"].files
    assert [v.view for v in views] == ["fou", "fac", "kar", "pix", "zer", "mor"]
    assert sum(v.columns for v in views) == spec.n_features == 649


def test_registry_symlink_and_package_data():
    link = REPO / "datasets" / "registry.yaml"
    assert link.is_symlink() and link.resolve() == REGISTRY_FILE.resolve()
    assert REGISTRY_FILE.parent.name == "data" and REGISTRY_FILE.parent.parent.name == "olk"


def test_samples_registered():
    reg = get_registry()
    for name, rows in {"a9a-small": 2000, "codrna-small": 2000, "w7a-small": 2000, "german-small": 300}.items():
        f = reg[name].parts["all"].files[0]
        assert reg[name].rows() == rows and f.sha256 and f.path == f"samples/{name}.libsvm"
        assert (REPO / "datasets" / f"{f.path}.xz").is_file()


@pytest.mark.skipif(not (SHARED / "MANIFEST.tsv").is_file(), reason="../shared/datasets not present")
def test_registry_matches_manifest():
    with open(SHARED / "MANIFEST.tsv", newline="") as fh:
        manifest = {r["file"]: r for r in csv.DictReader(fh, delimiter="\t")}
    checked = 0
    for spec in get_registry().values():
        for split, f in spec.files():
            row = manifest.get(f"{f.path}.xz")
            if row is None:
                continue
            checked += 1
            assert f.sha256 == row["sha256_uncompressed"], (spec.name, split)
            if f.view is None:
                assert spec.parts[split].rows == int(row["rows"]), (spec.name, split)
    assert checked >= 25


def test_parsed_copy_of_the_registry_skips_yaml_and_changes_nothing(tmp_path, monkeypatch):
    """The second process reads a JSON copy of the parsed YAML (no PyYAML import: ~20 ms of start-up) and builds
    the same specs; a damaged copy is ignored, and a document JSON cannot hold exactly is never copied."""
    import json
    import os
    import subprocess
    import sys

    from olk.data import registry as reg_mod
    probe = ("import sys, json; from olk.data import get_registry; r = get_registry(); "
             "print(json.dumps(['yaml' in sys.modules, repr(sorted(r._specs.items()))]))")

    def run():
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                             env={**os.environ, "OLK_CACHE": str(tmp_path / "cache")}).stdout
        return json.loads(out)
    first, second = run(), run()
    assert first[0] is True and second[0] is False and first[1] == second[1]
    copies = list((tmp_path / "cache" / "data").glob("registry-*.json"))
    assert len(copies) == 1
    copies[0].write_text('{"text_chars": 1, "doc": {"datasets": {}}}')       # a stale or foreign copy: ignored
    assert run() == first
    copies[0].write_text("{not json")
    assert run() == first
    import datetime
    for doc in ({"datasets": {1: "x"}}, {"datasets": {"a": float("nan")}}, {"when": datetime.date.today()}):
        reg_mod._keep_parsed_copy("text", doc)
        assert reg_mod._parsed_copy("text") is None
    from olk.data import cache
    cache.clear()
    assert not list((tmp_path / "cache" / "data").glob("registry-*.json"))


def test_a_path_is_opened_without_the_registry_and_no_name_is_a_path(tmp_path, monkeypatch):
    """A name holding '/' is a file path: load_dataset opens it without reading the registry (a broken
    OLK_REGISTRY does not stop it; a missing file still gets the registry's did-you-mean), and a registry entry
    whose name holds '/' is refused in one line, so no registry name can be shadowed by that shortcut."""
    import numpy as np

    from olk.data import load_dataset
    from olk.errors import DataError
    f = tmp_path / "own.libsvm"
    f.write_text("1 1:0.5\n-1 2:1\n1 1:1 2:2\n")
    bad = tmp_path / "reg.yaml"
    bad.write_text("datasets: [not, a, mapping\n")
    monkeypatch.setenv("OLK_REGISTRY", str(bad))
    d = load_dataset(str(f))
    assert np.array_equal(d.y, [1.0, -1.0, 1.0])
    with pytest.raises(DataError, match="reg.yaml"):        # a name: the registry is read (and is broken)
        load_dataset("own_libsvm")
    bad.write_text("datasets:\n  sub/own:\n    task: binary\n")
    with pytest.raises(DataError, match=r"reg.yaml: dataset 'sub/own': a dataset name cannot contain '/'"):
        get_registry()
    monkeypatch.delenv("OLK_REGISTRY")
    with pytest.raises(DataError, match=r"no such file.*did you mean 'a9a'"):
        load_dataset(str(tmp_path / "a9b"))


def test_unique_is_numpys_unique():
    """olk._lazy.unique (the labels' and the checkpoints' distinct values, without numpy.ma's import) gives
    np.unique's values and dtype."""
    import numpy as np

    from olk._lazy import unique
    rng = np.random.default_rng(3)
    for y in (np.zeros(0), np.array([2.0]), np.array([-0.0, 0.0, 1.0, -1.0]), rng.integers(-3, 4, 500) * 1.0,
              rng.standard_normal(300), np.repeat(rng.standard_normal(7), 9), rng.integers(0, 9, 50)):
        got = unique(y)
        assert np.array_equal(got, np.unique(y)) and got.dtype == y.dtype
