"""The dataset cache (olk/data/cache.py, two levels in olk/data/loader.py): bit-identical results with and without
it, a damaged entry detected and rebuilt (never trusted), atomic writes, and no re-hashing of unchanged files.

The shared full datasets (a9a: two parts stacked; codrna: scaling fitted on the train part) are used when
../shared/datasets is present; a toy registry with train/test parts covers the same paths everywhere."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from olk.data import cache, load_dataset
from olk.data import checksum as checksum_mod
from olk.data import loader as loader_mod

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"

TOY_REG = """datasets:
  toy2:
    description: toy with two parts
    task: binary
    format: libsvm
    storage: dense
    n_features: 4
    labels: [1, 2]
    default_split: [train, test]
    files:
      train: {path: toy.train, rows: 6}
      test: {path: toy.test, rows: 3}
    preprocess: {scale: minmax11, positive_label: 2}
"""
TRAIN = "1 1:0.5 3:-2\n2 2:1.5\n1 1:3 2:0 4:7\n2 3:1e-3\n1 4:-1.25\n2 1:2 2:2 3:2 4:2\n"
TEST = "2 1:9\n1 2:-4 3:0.125\n2 4:3\n"


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    d = tmp_path / "data"
    d.mkdir()
    (d / "toy.train").write_text(TRAIN)
    (d / "toy.test").write_text(TEST)
    (tmp_path / "reg.yaml").write_text(TOY_REG)
    (tmp_path / "own.svm").write_text(TRAIN + TEST)
    monkeypatch.setenv("OLK_REGISTRY", str(tmp_path / "reg.yaml"))
    data_dirs = [str(d), str(REPO / "datasets")] + ([str(SHARED)] if SHARED.is_dir() else [])
    monkeypatch.setenv("OLK_DATA", os.pathsep.join(data_dirs))
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _no_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, so nothing can be cached under it")
    monkeypatch.setenv("OLK_CACHE", str(blocker))


def _same(a, b):
    """Two Datasets are identical to the last bit: arrays (kind, dtype, shape, bytes), labels, parts, meta."""
    assert (a.name, a.task, a.n_features, a.splits) == (b.name, b.task, b.n_features, b.splits)
    assert type(a.X) is type(b.X) and a.X.shape == b.X.shape
    if a.is_sparse:
        for k in ("data", "indices", "indptr"):
            x, y = getattr(a.X, k), getattr(b.X, k)
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), k
    else:
        assert a.X.dtype == b.X.dtype and a.X.flags.c_contiguous and b.X.flags.c_contiguous
        assert a.X.tobytes() == b.X.tobytes()
    assert a.y.dtype == b.y.dtype and a.y.tobytes() == b.y.tobytes()
    strip = lambda m: {k: v for k, v in m.items() if k != "cache"}     # noqa: E731
    assert strip(a.meta) == strip(b.meta)


CASES = [("toy2", {}), ("toy2", {"split": "test"}), ("toy2", {"preprocess": {"scale": "zscore"}}),
         ("toy2", {"sparse": True}), ("a9a-small", {}), ("codrna-small", {}), ("w7a-small", {"sparse": False}),
         ("german-small", {"preprocess": {"scale": "minmax01"}}), ("own.svm", {"preprocess": {"positive_label": 1}}),
         ("own.svm", {"preprocess": {"positive_label": 2, "scale": "minmax11"}})]
SHARED_CASES = [("a9a", {}), ("codrna", {}), ("codrna", {"split": "train", "preprocess": {"scale": "zscore"}})]


@pytest.mark.parametrize("name,kw", CASES + [pytest.param(n, k, marks=pytest.mark.skipif(
    not (SHARED / "MANIFEST.tsv").is_file(), reason="../shared/datasets not present")) for n, k in SHARED_CASES])
def test_bit_identical_with_and_without_the_cache(name, kw, _env, monkeypatch):
    name = str(_env / name) if name.endswith(".svm") else name
    cold = load_dataset(name, **kw)                         # parsed, then both levels stored
    assert cold.meta["cache"]["dataset"] is False
    warm = load_dataset(name, **kw)                         # the loaded dataset, mapped
    assert warm.meta["cache"]["dataset"] is True and warm.meta["cache"]["misses"] == 0
    for e in cache.data_cache_dir().iterdir():              # only the parsed-file level left
        if e.is_dir() and (e / "entry.json").is_file() and \
                "name" in (json.loads((e / "entry.json").read_text())["extra"] or {}):
            cache.discard(e.name)
    files_only = load_dataset(name, **kw)
    assert files_only.meta["cache"]["dataset"] is False and files_only.meta["cache"]["misses"] == 0
    _no_cache(_env, monkeypatch)
    none = load_dataset(name, **kw)                         # no cache at all: parsed from the text
    assert none.meta["cache"] == {"hits": 0, "misses": none.meta["cache"]["misses"], "dataset": False}
    for d in (warm, files_only, cold):
        _same(none, d)


def test_runs_bit_identical_with_and_without_the_cache(_env, monkeypatch):
    from olk.experiment import Runner, parse_config
    from olk.fileio import RUN_PROVENANCE
    text = ("name: c\nrepeats: 2\nkernel: {type: gaussian, gamma: 0.4}\ndatasets: [a9a-small, codrna-small, toy2]\n"
            "algorithms: [perceptron, {name: spa, params: {beta: 5}}]\n")

    def records(out):
        Runner(parse_config(__import__("yaml").safe_load(text)), _env / out, n_jobs=1, progress=False,
               log=lambda m: None).run()
        recs = [json.loads(line) for line in (_env / out / "runs.jsonl").read_text().splitlines()]
        return sorted(({k: v for k, v in r.items() if k not in ("time_s", "train_time_s", "curve", *RUN_PROVENANCE)}
                       | {"curve": {k: v for k, v in (r.get("curve") or {}).items() if "time" not in k}}
                       for r in recs), key=lambda r: r["run_id"])

    cold, warm = records("cold"), records("warm")
    _no_cache(_env, monkeypatch)
    assert records("none") == cold == warm


def _entries():
    return sorted(e for e in cache.data_cache_dir().iterdir() if (e / "entry.json").is_file())


def _damage_x(e: Path):
    f = e / ("data.npy" if (e / "data.npy").is_file() else "X.npy")
    b = bytearray(f.read_bytes())
    b[-3] ^= 0x10                                           # one flipped bit in the last value
    f.write_bytes(bytes(b))


DAMAGE = {
    "flipped-bit": _damage_x,
    "truncated": lambda e: (e / "y.npy").write_bytes((e / "y.npy").read_bytes()[:-8]),
    "not-npy": lambda e: (e / "y.npy").write_bytes(b"garbage"),
    "missing-array": lambda e: (e / "y.npy").unlink(),
    "bad-entry-json": lambda e: (e / "entry.json").write_text("{"),
    "other-dtype": lambda e: np.save(e / "y.npy", np.load(e / "y.npy").view(np.int64)),
    "old-version": lambda e: (e / "entry.json").write_text(
        json.dumps({**json.loads((e / "entry.json").read_text()), "version": 1})),
    "bad-indptr": lambda e: (np.save(e / "indptr.npy", np.load(e / "indptr.npy")[::-1].copy())
                             if (e / "indptr.npy").is_file() else _damage_x(e)),
}


@pytest.mark.parametrize("how", sorted(DAMAGE))
@pytest.mark.parametrize("name", ["a9a-small", "toy2"])
def test_damaged_entries_are_detected_and_rebuilt(name, how, _env, monkeypatch):
    good = load_dataset(name)
    entries = _entries()
    assert len(entries) == (3 if name == "toy2" else 2)       # one per parsed file + the loaded dataset
    for e in entries:
        DAMAGE[how](e)
    again = load_dataset(name)
    assert again.meta["cache"]["dataset"] is False and again.meta["cache"]["hits"] == 0   # nothing trusted
    _same(good, again)
    assert len(_entries()) == len(entries)                  # rebuilt
    assert load_dataset(name).meta["cache"]["dataset"] is True


def test_a_damaged_entry_is_never_returned(_env):
    X = np.arange(12.0).reshape(4, 3)
    cache.save("k" * 40, X, np.ones(4))
    got = cache.load("k" * 40)
    assert got is not None and got[0].tobytes() == X.tobytes() and got[0].flags.writeable
    got[0][0, 0] = 99.0                                     # copy-on-write: the file is not changed
    assert cache.load("k" * 40)[0][0, 0] == 0.0
    _damage_x(cache.entry_dir("k" * 40))
    assert cache.load("k" * 40) is None and not cache.entry_dir("k" * 40).exists()


def test_writes_are_atomic(_env, monkeypatch):
    real = np.save
    calls = {"n": 0}

    def dies_on_second(path, *a, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        return real(path, *a, **kw)

    monkeypatch.setattr(np, "save", dies_on_second)
    cache.save("a" * 40, np.zeros((2, 2)), np.ones(2))          # fails half-way: no entry, no leftovers
    assert not cache.entry_dir("a" * 40).exists()
    assert [p.name for p in cache.data_cache_dir().iterdir()] == []
    monkeypatch.setattr(np, "save", real)
    (cache.data_cache_dir() / ".tmp-leftover").mkdir()          # a writer that was killed: never read
    assert cache.load("a" * 40) is None
    cache.save("a" * 40, np.zeros((2, 2)), np.ones(2))
    cache.save("a" * 40, np.zeros((2, 2)), np.ones(2))          # a second writer of the same entry: no error
    assert cache.load("a" * 40) is not None


def test_unchanged_files_are_not_read_or_hashed_again(_env, monkeypatch):
    first = load_dataset("toy2")
    path = Path(first.meta["files"][0]["path"])
    assert checksum_mod.known_sha256(path) == first.meta["files"][0]["sha256"]

    def forbidden(*a, **kw):
        raise AssertionError("an unchanged file was read again")
    with monkeypatch.context() as m:
        for mod, attr in ((loader_mod, "read_bytes"), (loader_mod, "sha256_bytes"), (loader_mod, "read_libsvm_file"),
                          (checksum_mod, "sha256_file")):
            m.setattr(mod, attr, forbidden)
        again = load_dataset("toy2", preprocess={"scale": "none"})    # another dataset entry: from the parsed files
        assert again.meta["cache"] == {"hits": 2, "misses": 0, "dataset": False}
        assert load_dataset("toy2").meta["cache"]["dataset"] is True
    # a changed file (size/mtime) is hashed again: its new content is parsed, not an old entry
    path.write_text(TRAIN.replace("0.5", "0.25"))
    os.utime(path, ns=(1, 1))
    changed = load_dataset("toy2")
    assert changed.meta["cache"]["dataset"] is False
    assert changed.meta["files"][0]["sha256"] != first.meta["files"][0]["sha256"]
    assert not np.array_equal(changed.X, first.X)


def test_registry_checksum_still_checked_on_a_cached_load(_env):
    reg = _env / "reg.yaml"
    load_dataset("toy2")
    assert load_dataset("toy2").meta["cache"]["dataset"] is True
    sha = checksum_mod.sha256_file(_env / "data" / "toy.train")
    reg.write_text(TOY_REG.replace("{path: toy.train, rows: 6}",
                                   "{path: toy.train, rows: 6, sha256: " + "a" * 64 + "}"))
    with pytest.raises(Exception, match="sha256 mismatch"):
        load_dataset("toy2")
    reg.write_text(TOY_REG.replace("{path: toy.train, rows: 6}", "{path: toy.train, rows: 6, sha256: " + sha + "}"))
    assert load_dataset("toy2").meta["files"][0]["verified"] is True


def _first(x):
    return float(x[0, 0])


def test_changes_made_in_memory_reach_joblib_workers(_env):
    """A cached array is mapped copy-on-write but is no np.memmap: joblib sends its values, not the file."""
    from joblib import Parallel, delayed
    cache.save("b" * 40, np.zeros((64, 64)), None)
    X = cache.load("b" * 40)[0]
    X *= 2.0
    X += 7.0                                                # e.g. scaling in place
    got = Parallel(n_jobs=2, backend="loky", max_nbytes=1)(delayed(_first)(X) for _ in range(2))
    assert got == [7.0, 7.0]
    assert cache.load("b" * 40)[0][0, 0] == 0.0             # the entry itself is unchanged


def test_small_libsvm_files_are_not_cached(_env, monkeypatch, capsys):
    """Below $OLK_CACHE_MIN bytes on disk (default 64 KiB) reading a LIBSVM file costs less than caching it: no
    entry is written (the same arrays either way), a larger file is cached, and `olk cache info` says so."""
    monkeypatch.delenv("OLK_CACHE_MIN")
    assert cache.min_bytes() == cache.DEFAULT_MIN == 64 * 1024
    small = load_dataset(str(_env / "own.svm"), preprocess={"positive_label": 2})
    assert load_dataset("toy2").meta["cache"]["dataset"] is False
    again = load_dataset("toy2")
    assert again.meta["cache"] == {"hits": 0, "misses": 2, "dataset": False} and cache.entries() == []
    assert checksum_mod.known_sha256(_env / "own.svm") == small.meta["files"][0]["sha256"]   # still recorded
    big = _env / "big.svm"
    big.write_text((TRAIN + TEST) * (64 * 1024 // len(TRAIN + TEST) + 1))
    first = load_dataset(str(big), preprocess={"positive_label": 2})
    assert [e["what"] for e in cache.entries()] == [f"parsed file {big}", "dataset big.svm"]
    second = load_dataset(str(big), preprocess={"positive_label": 2})
    assert second.meta["cache"]["dataset"] is True and np.array_equal(second.X, first.X)
    monkeypatch.setenv("OLK_CACHE_MIN", "0")
    assert load_dataset("toy2").meta["cache"]["dataset"] is False and load_dataset("toy2").meta["cache"]["dataset"]
    from click.testing import CliRunner

    from olk.data.cli import cache_group
    out = CliRunner().invoke(cache_group, ["info"]).output
    assert "every file is cached ($OLK_CACHE_MIN=0)" in out
    monkeypatch.setenv("OLK_CACHE_MIN", "1M")
    out = CliRunner().invoke(cache_group, ["info"]).output
    assert "LIBSVM files under 1.0 MB are not cached ($OLK_CACHE_MIN" in out
    monkeypatch.setenv("OLK_CACHE_MIN", "lots")
    with pytest.raises(Exception, match=r"^\$OLK_CACHE_MIN: 'lots' is not a size"):
        cache.min_bytes()
    bad = CliRunner().invoke(cache_group, ["info"])
    assert bad.exit_code != 0 and "$OLK_CACHE_MIN: 'lots' is not a size" in bad.output
    assert "cache:" not in bad.output                      # refused before any output
