"""Download a registry dataset's files (urllib only) into a data directory, verified, atomically."""
from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from olk.data.checksum import remember_sha256, sidecar
from olk.data.compression import SUFFIXES
from olk.data.registry import DatasetSpec, FileSpec, get_registry
from olk.data.search import find_file, first_writable_dir
from olk.errors import DataError, did_you_mean

_CHUNK = 1 << 20
_TIMEOUT = 60


@dataclass
class Fetched:
    split: str
    view: str | None
    path: Path
    status: str            # 'downloaded' | 'present'
    sha256: str | None
    verified: bool


def fetch_dataset(name: str, *, dest: str | os.PathLike | None = None, url: str | None = None,
                  split: str | None = None, force: bool = False, data_dir=None, progress=None) -> list[Fetched]:
    """Download every file of `name` (or of one `split`) to ``<dest>/<registry path>``.

    `dest` defaults to the first writable directory of the search path.  `url` replaces the registry's URL
    (only when exactly one file is fetched).  Files already present (in `dest`, or anywhere on the search path
    when no `dest` is given) are skipped unless `force`.
    `progress(msg)` is called with one line per file.
    """
    spec: DatasetSpec = get_registry().get_spec(name)
    targets = [(s, f) for s, f in spec.files() if split is None or s == split]
    if split is not None and not targets:
        raise DataError(f"dataset '{name}' has no split '{split}'{did_you_mean(split, spec.parts)}: "
                        f"splits are {', '.join(spec.parts)}")
    if url is not None and len(targets) != 1:
        raise DataError(f"--url replaces one file's URL, but '{name}' has {len(targets)} files: add --split "
                        f"(one of {', '.join(spec.parts)})")
    root = Path(dest).expanduser() if dest is not None else first_writable_dir(data_dir)
    out = []
    for s, f in targets:
        source = url or f.url
        final_base = _inside(root, f.path, f"dataset '{name}' file '{f.path}'")
        if source:
            _check_scheme(source, f"dataset '{name}'" if url is None else "--url")
        if dest is None:        # anywhere on the search path counts (e.g. the shared offline copy)
            present = [p for p in [find_file(f.path, data_dir)] if p is not None]
        else:
            present = [Path(f"{final_base}{sfx}") for sfx in SUFFIXES if Path(f"{final_base}{sfx}").is_file()]
        if present and not force:
            out.append(Fetched(s, f.view, present[0], "present", None, False))
            if progress:
                progress(f"{name}/{s}{'/' + f.view if f.view else ''}: already present at {present[0]} "
                         f"(--force downloads again)")
            continue
        if not source:
            raise DataError(f"dataset '{name}' file '{f.path}' has no public download URL "
                            f"({spec.notes or spec.homepage}): put it in {root} by hand, or pass --url")
        path, sha, verified = download(source, final_base, f, what=f"{name}/{s}")
        out.append(Fetched(s, f.view, path, "downloaded", sha, verified))
        if progress:
            check = "sha256 OK" if verified else ("sha256 recorded in " + sidecar(path).name if sha else "")
            progress(f"{name}/{s}{'/' + f.view if f.view else ''}: downloaded {source} -> {path} ({check})")
    return out


def _inside(root: Path, rel: str, what: str) -> Path:
    """``root / rel``, refused in one line when `rel` is absolute or climbs out of `root` (``../../x``): a download
    only ever writes inside its destination directory."""
    p = Path(rel)
    base = root.resolve()
    target = (base / p).resolve()
    if p.is_absolute() or (target != base and base not in target.parents):
        raise DataError(f"{what}: its path leads outside the destination {root} (an absolute path or '..'); a "
                        f"registry path must be relative, inside the data directory: fix the registry entry")
    return root / p


def _check_scheme(url: str, what: str) -> None:
    """Only http(s) URLs are fetched: file://, ftp:// and the rest are refused in one line (a fetch never reads a
    local file or speaks another protocol; copy a local file into the data directory by hand)."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in ("http", "https"):
        raise DataError(f"{what}: {url[:80]!r} is not an http(s) URL; olk fetches only http:// and https:// "
                        f"(copy a local file into the data directory by hand)")


def download(url: str, final_base: Path, fspec: FileSpec | None, what: str = "") -> tuple[Path, str, bool]:
    """Fetch `url` to `final_base` (+ .gz/.xz kept compressed; .bz2 decompressed); return (path, sha256, verified).

    The sha256 is of the uncompressed bytes.  Verbatim registry files must match the registry's hash; the hash of
    a non-verbatim file (converted offline copy) is recorded in ``<file>.sha256`` for later loads.
    """
    low = url.lower().split("?", 1)[0]
    keep = next((s for s in (".gz", ".xz") if low.endswith(s)), "")
    final = Path(f"{final_base}{keep}")
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            _copy_url(url, out, what)
        if low.endswith(".bz2"):
            fd2, tmp2 = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.", suffix=".part")
            try:
                with bz2.open(tmp, "rb") as src, os.fdopen(fd2, "wb") as dst:
                    shutil.copyfileobj(src, dst, _CHUNK)
            except (OSError, EOFError, ValueError) as e:
                os.unlink(tmp2)
                raise DataError(f"{url}: the download is not a valid .bz2 archive ({e}): check the URL") from None
            os.replace(tmp2, tmp)
        sha = _sha256_uncompressed(tmp, keep, url)
        verified = False
        if fspec is not None and fspec.sha256 and fspec.verbatim:
            if sha != fspec.sha256:
                raise DataError(f"{url}: downloaded file has sha256 {sha[:12]}..., the registry expects "
                                f"{fspec.sha256[:12]}... for {what}: the upstream file changed or the URL is wrong "
                                f"(nothing was saved)")
            verified = True
        os.replace(tmp, final)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    if fspec is not None and not verified:
        sidecar(final).write_text(f"{sha}  {final.name}\n")
    remember_sha256(final, sha)
    return final, sha, verified


def _copy_url(url: str, out, what: str) -> None:
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "olk-datasets/1 (python urllib)"})
        with urllib.request.urlopen(req, timeout=_TIMEOUT) as resp:
            shutil.copyfileobj(resp, out, _CHUNK)
    except urllib.error.HTTPError as e:
        raise DataError(f"{url}: HTTP {e.code} {e.reason} while fetching {what}: check the URL (or pass --url), "
                        f"or download it by hand") from None
    except urllib.error.URLError as e:
        raise DataError(f"{url}: cannot download {what} ({e.reason}): check the network / URL, or download it "
                        f"by hand and set OLK_DATA") from None
    except ValueError as e:
        raise DataError(f"{url}: not a valid URL ({e}): pass a full http(s):// URL") from None
    except (OSError, TimeoutError) as e:
        raise DataError(f"{url}: download of {what} failed ({e}): try again or download it by hand") from None


def _sha256_uncompressed(path: str, keep: str, url: str) -> str:
    opener: Any = {".gz": gzip.open, ".xz": lzma.open}.get(keep, open)
    h = hashlib.sha256()
    try:
        with opener(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise DataError(f"{url}: the download is not a valid {keep} archive ({e}): check the URL") from None
    return h.hexdigest()
