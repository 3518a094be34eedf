"""Issue 25's held-out inputs that have no row elsewhere: each failed on 11d6cc4 and passes now.

The issue's other rows are tested where their subsystem is: alias bombs, a config that is not a regular file,
``--out`` unwritable or under a file and every error class a ValueError (tests/test_faults.py); the model
loader's allow-list and wrong-typed state (tests/test_model_file_safety.py); data wider than the training data
(tests/test_wider_data.py); labels other than ±1, one-class files and an endless standard input
(tests/test_train_predict_cli.py).  Here:

* the dataset cache has a cap (``$OLK_CACHE_MAX``) with least-recently-used eviction, ``olk cache info`` and
  ``olk cache clear``;
* compressed data whose name does not say so is read by its magic bytes (gzip, xz, bzip2);
* ``make demo`` writes outside ``results/``, so ``olk report`` never puts a demo into REPRODUCTION.md;
* the README's and the docs' examples write their models and predictions under the gitignored ``scratch/``.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import re
import shutil
import time
from pathlib import Path

import pytest
from _cli import REPO, run_cli, use_bundled_data

from olk.data import cache, load_dataset

SAMPLE = REPO / "datasets" / "samples" / "a9a-small.libsvm.xz"


# ------------------------------------------------------------------------------------------- the cache cap
def _entries_bytes():
    return sum(e["bytes"] for e in cache.entries())


def test_the_cache_stays_under_its_cap_evicting_the_least_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OLK_CACHE_MAX", raising=False)
    raw = lzma.decompress(SAMPLE.read_bytes()).splitlines(keepends=True)
    files = []
    for i in range(4):                                  # four different files of about 90 KB parsed each
        p = tmp_path / f"part{i}.libsvm"
        p.write_bytes(b"".join(raw[i * 400:(i + 1) * 400]))
        files.append(p)
    load_dataset(str(files[0]))
    one = _entries_bytes()                              # the file's parsed arrays + the loaded dataset
    assert one > 0
    monkeypatch.setenv("OLK_CACHE_MAX", str(int(1.6 * one)))   # room for three of the equal-sized entries
    time.sleep(0.02)
    load_dataset(str(files[1]))                         # evicts file 0's parsed arrays (the least recent)
    time.sleep(0.02)
    load_dataset(str(files[0]))                         # a hit: file 0's dataset entry is now more recent ...
    time.sleep(0.02)
    load_dataset(str(files[2]))                         # ... than file 1's, which goes, entry by entry
    assert _entries_bytes() <= 1.6 * one
    held = sorted(e["what"].replace(str(tmp_path) + "/", "") for e in cache.entries())
    assert held == ["dataset part0.libsvm", "dataset part2.libsvm", "parsed file part2.libsvm"]
    monkeypatch.setenv("OLK_CACHE_MAX", "0")            # 0: cache nothing more
    load_dataset(str(files[3]))
    assert not any("part3" in e["what"] for e in cache.entries())


def test_a_bad_cache_cap_is_one_line(tmp_path, monkeypatch, capsys):
    use_bundled_data(monkeypatch)
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OLK_CACHE_MAX", "lots")
    code, _, err = run_cli(["train", "a9a-small", "-a", "perceptron", "-o", tmp_path / "m.olk"], capsys)
    assert code == 2 and err.strip() == ("olk: error: $OLK_CACHE_MAX: 'lots' is not a size; give e.g. 12G, 500M, "
                                         "1.5T, 80% or 0 (cache nothing)")


def test_olk_cache_info_and_clear(tmp_path, monkeypatch, capsys):
    use_bundled_data(monkeypatch)
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OLK_CACHE_MAX", "1G")
    code, out, _ = run_cli(["cache", "info"], capsys)
    assert code == 0 and "0 entries, 0 B of a 1.0 GB cap" in out
    load_dataset("a9a-small")
    code, out, _ = run_cli(["cache", "info"], capsys)
    assert code == 0 and "2 entries" in out and "dataset a9a-small" in out and "parsed file" in out
    code, out, _ = run_cli(["cache", "clear"], capsys)
    assert code == 0 and out.startswith("olk: removed 2 cache entries")
    assert cache.entries() == [] and not (tmp_path / "cache" / "data" / "sha256.json").exists()


# ------------------------------------------------------------------------------ compression by magic bytes
@pytest.mark.parametrize("opener", [gzip.open, lzma.open, bz2.open], ids=["gzip", "xz", "bzip2"])
def test_compressed_data_without_its_extension_is_read_by_its_magic_bytes(tmp_path, monkeypatch, capsys, opener):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    p = tmp_path / "data.txt"                           # a compressed file whose name says nothing
    with opener(p, "wb") as f:
        f.write(lzma.decompress(SAMPLE.read_bytes()))
    d = load_dataset(str(p))
    assert d.n_samples == 2000 and d.X.shape == load_dataset(str(SAMPLE)).X.shape
    code, _, err = run_cli(["train", p, "-a", "perceptron", "-o", tmp_path / "m.olk"], capsys)
    assert code == 0 and "2,000 rows" in err
    plain = tmp_path / "plain.gz"                       # and a plain file named .gz is read as plain text
    plain.write_bytes(lzma.decompress(SAMPLE.read_bytes()))
    assert load_dataset(str(plain)).n_samples == 2000


# ------------------------------------------------------------------------------ demo and README outputs
def test_make_demo_writes_outside_results_and_the_report_never_sees_it(tmp_path):
    make = (REPO / "Makefile").read_text()
    demo = re.search(r"^demo:.*\n\t(.+)$", make, re.M).group(1)
    out = re.search(r"--out (\S+)", demo).group(1)
    assert not Path(out).parts[0] == "results" and out.startswith("scratch/"), demo
    from olk.report.discovery import find_results
    root = tmp_path / "results"                       # a demo directory inside results/ would be found ...
    shutil.copytree(REPO / "tests" / "report_fixtures" / next(
        p.name for p in (REPO / "tests" / "report_fixtures").iterdir()
        if (p / "experiment.json").is_file()), root / "x")
    assert [e.path.name for e in find_results(root, set())] == ["x"]
    assert "scratch/" in (REPO / ".gitignore").read_text().split()     # ... scratch/ is never committed


def test_readme_and_docs_examples_write_only_under_scratch():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    written = (re.findall(r"(?:-o|--out)\s+(\S+\.(?:olk|txt))", text)
               + re.findall(r'olk\.save\([^,]+,\s*"([^"]+)"', text))
    assert written, "the README and docs show models being saved"
    assert all(w.startswith("scratch/") for w in written), written
