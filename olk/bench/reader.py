"""The LIBSVM reader's speed (issue 29): MB/s and rows/s of a first (cold) read and of a cached (warm) load.

    python -m olk.bench.reader ../shared/datasets/a9a.train.xz [--repeats 5]

:func:`measure_reader` is what ``olk bench`` calls for its reader line.  Each repeat runs in fresh processes
(``python -m olk.bench.reader --one PATH``), so nothing is warm but the operating system's page cache (which a
benchmark on a shared machine cannot drop):

* ``decompress``: the uncompressed bytes of the file (Python's lzma / bz2 / gzip: not the parser's work);
* ``parse``: olk's C parser on those bytes in memory (:func:`olk.data.libsvm.read_libsvm`);
* ``read``: the whole first read of the file as the loader does it (:func:`olk.data.libsvm.read_libsvm_file`:
  decompression in 1 MB chunks, parsing, sha256 of every byte);
* ``first load`` / ``warm load``: ``load_dataset(PATH)`` with an empty olk cache (read, checks, cache writes
  where the file is worth caching: ``$OLK_CACHE_MIN``), then again in another process (the cache's mapped
  arrays, or a new read for a file too small to cache).

numpy, scipy.sparse and olk's modules are imported before anything is timed (their import is start-up, measured
by ``olk bench core``'s whole-process column and tests/test_startup.py, not reading).

MB are of the uncompressed text (10^6 bytes).  The C++ figure is reference data, not rerun: issue 29's author
measured the SPA authors' C++ library parsing a9a or cod-rna in about 15 ms; ``cpp_over_olk_parse`` compares it
with olk's parse of the same file (a value above 1: olk parses faster).  Timings are medians over the repeats;
wall-clock on a shared machine is an upper bound, so CPU seconds are returned too.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the SPA authors' C++ library parsing one file, seconds (issue 29; reference data, not rerun here)
CPP_PARSE_S = {"a9a": 0.015, "cod-rna": 0.015}


def measure_reader(path, repeats: int = 5, *, python: str = sys.executable) -> dict:
    """Median reader speeds on `path` (a LIBSVM file, plain or compressed) over `repeats` fresh-process runs.

    Returns {file, mb (uncompressed), rows, nnz, repeats; for each of decompress, parse, read, first_load,
    warm_load: <name>_s (wall seconds), <name>_cpu_s; decompress_mb_s, parse_mb_s, parse_rows_s, read_mb_s,
    read_rows_s (uncompressed MB and rows per wall second); cpp_parse_s and cpp_over_olk_parse for a9a / cod-rna
    files (else None)}."""
    path = Path(path)
    runs = []
    for _ in range(max(1, int(repeats))):
        cache = tempfile.mkdtemp(prefix="olk-bench-reader-")
        try:
            env = {**os.environ, "OLK_CACHE": cache}
            env.pop("OLK_CACHE_MIN", None)
            first = _child(python, path, "first", env)
            warm = _child(python, path, "warm", env)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        runs.append({**first, "warm_load_s": warm["load_s"], "warm_load_cpu_s": warm["load_cpu_s"]})
    out: dict = {"file": str(path), "repeats": len(runs)}
    for k in ("mb", "rows", "nnz"):
        out[k] = runs[0][k]
    for name in ("decompress", "parse", "read", "first_load", "warm_load"):
        src = "load" if name == "first_load" else name
        out[f"{name}_s"] = statistics.median(r[f"{src}_s"] for r in runs)
        out[f"{name}_cpu_s"] = statistics.median(r[f"{src}_cpu_s"] for r in runs)
    for name in ("decompress", "parse", "read"):
        out[f"{name}_mb_s"] = out["mb"] / out[f"{name}_s"] if out[f"{name}_s"] else None
    for name in ("parse", "read"):
        out[f"{name}_rows_s"] = out["rows"] / out[f"{name}_s"] if out[f"{name}_s"] else None
    cpp = CPP_PARSE_S.get(path.name.split(".")[0])
    out["cpp_parse_s"] = cpp
    out["cpp_over_olk_parse"] = cpp / out["parse_s"] if cpp and out["parse_s"] else None
    return out


def _child(python: str, path: Path, what: str, env: dict) -> dict:
    r = subprocess.run([python, "-m", "olk.bench.reader", "--one", str(path), "--what", what], env=env,
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"olk.bench.reader --one {path}: {r.stderr.strip().splitlines()[-1:] or r.returncode}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _one(path: str, what: str) -> dict:
    """One fresh process: the first read, then decompression and parsing apart, then load_dataset (cold cache);
    or (``warm``) load_dataset alone, after a ``first`` run filled the cache."""
    import hashlib

    import scipy.sparse  # noqa: F401  -- imported before timing: its ~0.1 s is start-up, not reading

    from olk._core import libsvm_reader  # noqa: F401
    from olk.data import load_dataset
    from olk.data.compression import iter_decompressed
    from olk.data.libsvm import read_libsvm, read_libsvm_file

    if what == "warm":
        _, w, c = _timed(lambda: load_dataset(path, preprocess={"task": "regression"}))
        return {"load_s": w, "load_cpu_s": c}
    (X, _), w_read, c_read = _timed(lambda: read_libsvm_file(path, tee=hashlib.sha256().update, arrays=True))
    data, w_dec, c_dec = _timed(lambda: b"".join(iter_decompressed(path)))
    _, w_parse, c_parse = _timed(lambda: read_libsvm(data, path))
    _, w_load, c_load = _timed(lambda: load_dataset(path, preprocess={"task": "regression"}))
    return {"mb": len(data) / 1e6, "rows": int(X.shape[0]), "nnz": int(X.nnz),
            "read_s": w_read, "read_cpu_s": c_read, "decompress_s": w_dec, "decompress_cpu_s": c_dec,
            "parse_s": w_parse, "parse_cpu_s": c_parse, "load_s": w_load, "load_cpu_s": c_load}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m olk.bench.reader", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="LIBSVM files (plain, .xz, .bz2, .gz)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--what", default="first", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:
        print(json.dumps(_one(a.one, a.what)))
        return
    for p in a.paths:
        r = measure_reader(p, a.repeats)
        cpp = (f"; C++ parse {r['cpp_parse_s'] * 1e3:.0f} ms (issue 29, not rerun) = "
               f"{r['cpp_over_olk_parse']:.1f}x olk's parse time" if r["cpp_parse_s"] else "")
        print(f"{Path(p).name}: {r['mb']:.2f} MB, {r['rows']:,} rows | parse {r['parse_s'] * 1e3:.1f} ms "
              f"({r['parse_mb_s']:.0f} MB/s, {r['parse_rows_s'] / 1e6:.2f} M rows/s) | decompress "
              f"{r['decompress_s'] * 1e3:.1f} ms | first read (decompress + parse + sha256) {r['read_s'] * 1e3:.1f} ms "
              f"({r['read_mb_s']:.0f} MB/s) | load_dataset first {r['first_load_s'] * 1e3:.1f} ms, cached "
              f"{r['warm_load_s'] * 1e3:.1f} ms{cpp}")
        print(f"  CPU: parse {r['parse_cpu_s'] * 1e3:.1f} ms ({r['mb'] / r['parse_cpu_s']:.0f} MB/s), decompress "
              f"{r['decompress_cpu_s'] * 1e3:.1f} ms, first read {r['read_cpu_s'] * 1e3:.1f} ms, load_dataset first "
              f"{r['first_load_cpu_s'] * 1e3:.1f} ms, cached {r['warm_load_cpu_s'] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
