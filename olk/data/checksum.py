"""sha256 of the uncompressed bytes of data files, with a cache of files already hashed.

The cache (``<cache>/data/sha256.json``) maps an absolute path to ``(size, mtime_ns, sha256)``; a file whose
size and mtime are unchanged is not read again, so verification costs nothing after the first load.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from olk.data.cache import data_cache_dir
from olk.data.compression import open_decompressed
from olk.errors import DataError

_CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    """sha256 of the uncompressed content of `path` (streamed)."""
    h = hashlib.sha256()
    try:
        with open_decompressed(path) as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
    except (OSError, EOFError, ValueError) as e:
        raise DataError(f"{path}: cannot read to compute its sha256 ({e}): the file is unreadable or a "
                        f"corrupt archive; re-fetch it with `olk datasets fetch`") from None
    return h.hexdigest()


def _db_path() -> Path:
    return data_cache_dir() / "sha256.json"


def _read_db() -> dict:
    try:
        db = json.loads(_db_path().read_text())
        return db if isinstance(db, dict) else {}
    except (OSError, ValueError):
        return {}


def _stamp(path: Path):
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def known_sha256(path: str | Path) -> str | None:
    """The cached hash of `path` if the file is unchanged since it was hashed, else None."""
    p = Path(path).resolve()
    entry = _read_db().get(str(p))
    try:
        if entry and entry[:2] == _stamp(p):
            return entry[2]
    except (OSError, TypeError, IndexError):
        pass
    return None


def remember_sha256(path: str | Path, sha: str) -> None:
    """Record the hash of `path` (best effort: an unwritable cache is ignored)."""
    p = Path(path).resolve()
    try:
        db = _read_db()
        db[str(p)] = [*_stamp(p), sha]
        d = _db_path().parent
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".json.tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(db, f)
        os.replace(tmp, _db_path())
    except OSError:
        pass


def file_sha256(path: str | Path, *, use_cache: bool = True) -> str:
    """sha256 of the uncompressed content, from the cache when the file is unchanged."""
    sha = known_sha256(path) if use_cache else None
    if sha is None:
        sha = sha256_file(path)
        remember_sha256(path, sha)
    return sha


def sidecar(path: str | Path) -> Path:
    """``<file>.sha256``: written by ``olk datasets fetch`` for files the registry cannot check byte-for-byte."""
    return Path(f"{path}.sha256")


def expected_sha256(fspec, path: str | Path) -> set[str]:
    """Hashes accepted for `path`: the registry's, plus (for non-verbatim files) the fetch-time sidecar's."""
    out = {fspec.sha256} if fspec.sha256 else set()
    if not fspec.verbatim:
        try:
            out.add(sidecar(path).read_text().split()[0])
        except (OSError, IndexError):
            pass
    return out


def check_sha256(path, actual: str, fspec, what: str, fetch_name: str) -> None:
    """DataError if `actual` is not an accepted hash of the registry file `fspec` (no-op if none is on record)."""
    expected = expected_sha256(fspec, path)
    if expected and actual not in expected:
        exp = fspec.sha256 or next(iter(expected))
        raise DataError(f"{path}: sha256 mismatch for {what}: expected {exp[:12]}..., got {actual[:12]}... "
                        f"(corrupt or a different version): re-fetch with `olk datasets fetch {fetch_name} "
                        f"--force`, or load with verify=False at your own risk")
