"""`olk datasets list | verify | info` (click group olk.data.cli.datasets)."""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest
from click.testing import CliRunner

from olk.data.cli import datasets

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "datasets"


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OLK_DATA", str(DATASETS))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)


def _run(*args):
    return CliRunner().invoke(datasets, list(args))


def test_list_one_line_per_dataset():
    res = _run("list")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].split()[:4] == ["name", "task", "rows", "x"]
    by_name = {ln.split()[0]: ln for ln in lines[1:]}
    assert "2000 x 123" in by_name["a9a-small"] and "present" in by_name["a9a-small"]
    assert str(DATASETS / "samples") in by_name["a9a-small"]
    assert "48842 x 123" in by_name["a9a"]
    assert "missing" in by_name["kdd08"] and " no " in by_name["kdd08"]
    assert {"a9a", "w7a", "codrna", "covtype", "mfeat", "naval", "rcv1", "susy", "twitter_l"} <= set(by_name)


def test_verify_samples_ok():
    res = _run("verify", "a9a-small", "german-small")
    assert res.exit_code == 0, res.output
    assert res.output.count("OK ") == 2 and "2 file(s) checked, all OK" in res.output


def test_verify_mismatch_exit_1(tmp_path, monkeypatch):
    (tmp_path / "samples").mkdir()
    data = lzma.decompress((DATASETS / "samples" / "german-small.libsvm.xz").read_bytes())
    (tmp_path / "samples" / "german-small.libsvm").write_bytes(data + b"+1 1:1\n")
    monkeypatch.setenv("OLK_DATA", str(tmp_path))
    res = _run("verify", "german-small", "a9a-small")
    assert res.exit_code == 1
    assert "MISMATCH  german-small/all" in res.output and "expected 8900ea0266ed..." in res.output
    assert "OK        a9a-small/all" in res.output
    assert "1 of 2 file(s) failed sha256 verification" in res.output and "Traceback" not in res.output


def test_verify_missing_named_file_is_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = _run("verify", "kdd08")
    assert res.exit_code == 0 and "MISSING   kdd08/all" in res.output


def test_info_and_unknown_name():
    res = _run("info", "codrna")
    assert res.exit_code == 0, res.output
    assert "minmax11" in res.output and "cod-rna.t" in res.output and "degenerate" in res.output
    res = _run("info", "covtyp")
    assert res.exit_code != 0 and "unknown dataset 'covtyp' (did you mean 'covtype'?)" in res.output
    assert len([ln for ln in res.output.splitlines() if ln.strip()]) == 1


def test_data_dir_option(tmp_path):
    res = _run("--data-dir", str(tmp_path), "info", "a9a-small")
    assert res.exit_code == 0 and str(tmp_path) in res.output
