"""Large hostile inputs made in milliseconds, for the tests of olk's input limits (tests/test_limits.py): the
big part of each is a run of identical bytes, compressed once and repeated, so a file that expands to gigabytes
is written in well under a second and takes a few megabytes of disk.

* :func:`gzip_run` -- a gzip file (several members, as ``cat a.gz b.gz`` makes: every reader takes them as one
  stream) of `prefix` followed by `n` copies of one byte;
* :func:`zip_with_runs` -- a zip (a NumPy ``.npz``) whose entries are given bytes followed by a run of one byte,
  deflated once per distinct run (a full flush makes every copy of a block compress to the same bytes);
* :func:`run_limited` -- a command in a subprocess under ``prlimit --as`` with a timeout, returning its exit
  status, its stderr lines and its peak memory (the children's ``ru_maxrss``).
"""
from __future__ import annotations

import gzip
import io
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

BLOCK = 1 << 24         # 16 MiB of the repeated byte, compressed once


def gzip_run(path: Path, n: int, byte: bytes = b"0", prefix: bytes = b"") -> Path:
    """`prefix` + `n` copies of `byte`, as a multi-member gzip file."""
    block = gzip.compress(byte * BLOCK, 9, mtime=0)
    with open(path, "wb") as f:
        f.write(gzip.compress(prefix + byte * (n % BLOCK), 9, mtime=0))
        for _ in range(n // BLOCK):
            f.write(block)
    return path


def _deflated_run(head: bytes, n: int, byte: bytes = b"\0") -> tuple[bytes, int]:
    """A raw deflate stream of `head` + `n` copies of `byte`, and its CRC-32."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts = [co.compress(head), co.flush(zlib.Z_FULL_FLUSH)]
    crc = zlib.crc32(head)
    if n >= BLOCK:
        zeros = byte * BLOCK
        block = co.compress(zeros) + co.flush(zlib.Z_FULL_FLUSH)
        parts += [block] * (n // BLOCK)
        for _ in range(n // BLOCK):
            crc = zlib.crc32(zeros, crc)
    tail = byte * (n % BLOCK)
    parts += [co.compress(tail), co.flush()]
    return b"".join(parts), zlib.crc32(tail, crc)


def zip_with_runs(path: Path, entries: dict[str, tuple]) -> Path:
    """A zip whose entry NAME holds ``head`` + ``n`` copies of ``byte`` (default: zero bytes), for each NAME:
    (head, n[, byte]) (deflated; sizes below 4 GiB each, so no zip64)."""
    local, central = bytearray(), bytearray()
    for name, (head, n, *byte) in entries.items():
        data, crc = _deflated_run(head, n, *byte)
        size = len(head) + n
        fname = name.encode()
        offset = len(local)
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(data), size, len(fname), 0)
        local += fname + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(data), size,
                               len(fname), 0, 0, 0, 0, 0, offset)
        central += fname
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(local), 0)
    path.write_bytes(bytes(local + central + end))
    return path


def npy_header(shape: tuple, dtype: str = "<f8") -> bytes:
    """The bytes of a version 1.0 ``.npy`` header declaring `shape` and `dtype` (what follows is up to you)."""
    import numpy as np
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


#: runs the command of argv[2:] and writes its peak resident memory (KiB, ru_maxrss) to the file argv[1]: this
#: process's only child, so RUSAGE_CHILDREN measures the command alone
_MEASURE = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[2:]); "
            "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
            "sys.exit(rc)")


def run_limited(argv: list[str], tmp: Path, *, memory: int, timeout: float, stdin=None,
                env=None) -> tuple[int, list[str], int]:
    """Run `argv` under ``prlimit --as=memory`` (when prlimit exists) with `timeout` seconds (a timeout fails the
    calling test): (exit status, stderr lines, peak resident memory in bytes)."""
    if shutil.which("prlimit"):
        argv = ["prlimit", f"--as={memory}", *argv]
    out = tmp / f"maxrss.{os.getpid()}.txt"
    r = subprocess.run([sys.executable, "-c", _MEASURE, str(out), *argv], capture_output=True, timeout=timeout,
                       stdin=stdin, env={**os.environ, **(env or {})})
    return r.returncode, r.stderr.decode("utf-8", "replace").splitlines(), int(out.read_text()) * 1024


OLK = [str(Path(sys.executable).with_name("olk"))] if Path(sys.executable).with_name("olk").exists() \
    else [sys.executable, "-m", "olk.cli"]
