"""`olk datasets fetch` against a local HTTP server on 127.0.0.1 (never the internet)."""
from __future__ import annotations

import bz2
import functools
import http.server
import lzma
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from olk.data import load_dataset
from olk.data.cli import datasets
from olk.data.fetch import fetch_dataset
from olk.errors import DataError

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "datasets"
ZEROS = "0" * 64
SAMPLE = lzma.decompress((DATASETS / "samples" / "german-small.libsvm.xz").read_bytes())


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    """Serve tmp_path/www on 127.0.0.1:<random free port>; yields (base_url, www_dir)."""
    www = tmp_path / "www"
    www.mkdir()
    (www / "german-small.libsvm").write_bytes(SAMPLE)
    (www / "german-small.libsvm.bz2").write_bytes(bz2.compress(SAMPLE))
    (www / "german-small.libsvm.xz").write_bytes(lzma.compress(SAMPLE))
    (www / "tampered.libsvm").write_bytes(SAMPLE + b"+1 1:1\n")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(www)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", www
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)
    monkeypatch.delenv("OLK_DATA", raising=False)


@pytest.mark.parametrize("fname,stored", [("german-small.libsvm", "german-small.libsvm"),
                                          ("german-small.libsvm.bz2", "german-small.libsvm"),
                                          ("german-small.libsvm.xz", "german-small.libsvm.xz")])
def test_fetch_verifies_and_stores_atomically(server, tmp_path, monkeypatch, fname, stored):
    base, _ = server
    dest = tmp_path / "dest"
    got = fetch_dataset("german-small", dest=dest, url=f"{base}/{fname}")
    assert len(got) == 1 and got[0].status == "downloaded" and got[0].verified
    assert got[0].path == dest / "samples" / stored
    assert sorted(p.name for p in (dest / "samples").iterdir()) == [stored]      # no temp files left behind
    monkeypatch.setenv("OLK_DATA", str(dest))
    d = load_dataset("german-small")
    assert d.meta["files"][0]["path"] == str(dest / "samples" / stored)
    assert d.X.shape == (300, 24)
    again = fetch_dataset("german-small", dest=dest, url=f"{base}/{fname}")
    assert again[0].status == "present"


def test_fetch_checksum_mismatch_saves_nothing(server, tmp_path):
    base, _ = server
    dest = tmp_path / "dest"
    with pytest.raises(DataError) as exc:
        fetch_dataset("german-small", dest=dest, url=f"{base}/tampered.libsvm")
    assert "registry expects 8900ea0266ed..." in str(exc.value) and "nothing was saved" in str(exc.value)
    assert not any(p.is_file() for p in dest.rglob("*"))


def test_fetch_http_404_and_unreachable(server, tmp_path):
    base, _ = server
    with pytest.raises(DataError) as exc:
        fetch_dataset("german-small", dest=tmp_path / "d", url=f"{base}/nope.libsvm")
    assert str(exc.value).startswith(f"{base}/nope.libsvm: HTTP 404")
    with socket.socket() as s:                       # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DataError) as exc:
        fetch_dataset("german-small", dest=tmp_path / "d", url=f"http://127.0.0.1:{port}/x")
    assert "cannot download german-small/all" in str(exc.value)
    with pytest.raises(DataError) as exc:
        fetch_dataset("german-small", dest=tmp_path / "d", url="nonsense-url")
    assert "is not an http(s) URL" in str(exc.value)


def test_fetch_refuses_ambiguous_url_and_missing_url(tmp_path):
    with pytest.raises(DataError) as exc:
        fetch_dataset("a9a", dest=tmp_path, url="http://127.0.0.1:9/x")
    assert "--url replaces one file's URL, but 'a9a' has 2 files: add --split" in str(exc.value)
    with pytest.raises(DataError) as exc:
        fetch_dataset("kdd08", dest=tmp_path)
    assert "has no public download URL" in str(exc.value)


def test_fetch_non_verbatim_records_sidecar(server, tmp_path, monkeypatch):
    base, _ = server
    reg = tmp_path / "reg.yaml"
    reg.write_text(
        "datasets:\n  conv:\n    description: converted copy\n    task: binary\n    format: libsvm\n"
        "    storage: dense\n    n_features: 24\n    labels: [-1, 1]\n"
        f"    files: {{all: {{path: conv.libsvm, rows: 301, sha256: '{ZEROS}', verbatim: false,\n"
        f"                   url: '{base}/tampered.libsvm'}}}}\n")
    monkeypatch.setenv("OLK_REGISTRY", str(reg))
    dest = tmp_path / "dest"
    got = fetch_dataset("conv", dest=dest)
    assert got[0].status == "downloaded" and not got[0].verified
    side = dest / "conv.libsvm.sha256"
    assert side.read_text().split()[0] == got[0].sha256
    monkeypatch.setenv("OLK_DATA", str(dest))
    d = load_dataset("conv")                         # accepted through the sidecar hash
    assert d.X.shape == (301, 24)


def test_cli_fetch_and_errors(server, tmp_path, monkeypatch):
    base, _ = server
    dest = tmp_path / "cli_dest"
    runner = CliRunner()
    res = runner.invoke(datasets, ["fetch", "german-small", "--dest", str(dest), "--url",
                                   f"{base}/german-small.libsvm.bz2"])
    assert res.exit_code == 0, res.output
    assert "downloaded" in res.output and "sha256 OK" in res.output
    monkeypatch.setenv("OLK_DATA", str(dest))
    assert np.array_equal(load_dataset("german-small").y, load_dataset("german-small", verify=False).y)
    res = runner.invoke(datasets, ["fetch", "german-small", "--dest", str(dest)])
    assert res.exit_code == 0 and "already present" in res.output
    res = runner.invoke(datasets, ["fetch", "german-small", "--dest", str(tmp_path / "x"), "--url",
                                   f"{base}/missing"])
    assert res.exit_code != 0 and "HTTP 404" in res.output and "Traceback" not in res.output
    res = runner.invoke(datasets, ["fetch", "german-smal"])
    assert res.exit_code != 0 and "did you mean 'german-small'?" in res.output


def test_fetch_skips_files_already_on_search_path(monkeypatch):
    monkeypatch.setenv("OLK_DATA", str(DATASETS))
    got = fetch_dataset("a9a-small")                 # no URL on record, but nothing to download
    assert got[0].status == "present" and got[0].path == DATASETS / "samples" / "a9a-small.libsvm.xz"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/x", "FILE:///etc/hostname", "data:,x"])
def test_fetch_takes_only_http_urls(tmp_path, url):
    """--url file://... read local files (issue 30): only http(s) is fetched; nothing is written."""
    with pytest.raises(DataError, match="is not an http\\(s\\) URL"):
        fetch_dataset("german-small", dest=tmp_path / "d", url=url)
    assert not (tmp_path / "d").exists() or not any((tmp_path / "d").rglob("*"))


@pytest.mark.parametrize("path", ["../../escaped.libsvm", "/tmp/olk-absolute-escape.libsvm", "a/../../b.libsvm"])
def test_a_registry_path_cannot_write_outside_the_destination(tmp_path, monkeypatch, path, server):
    """An $OLK_REGISTRY entry with path '../../x' or an absolute path made `olk datasets fetch --dest D` write
    outside D (issue 30): refused in one line before anything is downloaded."""
    base, _ = server
    reg = tmp_path / "reg.yaml"
    reg.write_text("datasets:\n  evil:\n    description: x\n    labels: [-1, 1]\n    storage: sparse\n"
                   "    task: binary\n    format: libsvm\n    n_features: 5\n"
                   f"    files:\n      all: {{path: '{path}', rows: 3, url: '{base}/german-small.libsvm'}}\n")
    monkeypatch.setenv("OLK_REGISTRY", str(reg))
    from olk.data import registry as reg_mod
    reg_mod.get_registry.cache_clear() if hasattr(reg_mod.get_registry, "cache_clear") else None
    dest = tmp_path / "deep" / "d"
    with pytest.raises(DataError, match="leads outside the destination"):
        fetch_dataset("evil", dest=dest)
    assert not (tmp_path / "escaped.libsvm").exists() and not Path("/tmp/olk-absolute-escape.libsvm").exists()
    assert not (tmp_path / "b.libsvm").exists() and not (tmp_path / "deep" / "b.libsvm").exists()
