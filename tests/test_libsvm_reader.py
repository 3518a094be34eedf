"""olk's C LIBSVM parser against the reference reader (scikit-learn's load_svmlight_file + olk's checks).

The same arrays bit for bit (data, y, shape, index values) on every LIBSVM file of ../shared/datasets and on the
format's corner cases; the same one-line errors; the same result whether a file is read whole, in chunks of any
size, or as blocks of lines.  Random and mutated bytes are in tests/test_fuzz_inputs.py.
"""
from __future__ import annotations

import io
import lzma
from pathlib import Path

import numpy as np
import pytest

from olk._core.libsvm_reader import Parser, line_ends
from olk.data.compression import read_bytes
from olk.data.libsvm import iter_libsvm_blocks, read_libsvm, read_libsvm_file, read_libsvm_reference
from olk.errors import DataError

REPO = Path(__file__).resolve().parents[1]
#: the reader is compared with the reference reader, which has no width limit (conftest.no_width_limit)
pytestmark = pytest.mark.usefixtures("no_width_limit")
SHARED = REPO.parent / "shared" / "datasets"
SAMPLES = REPO / "datasets" / "samples"


def _libsvm_files():
    """Every LIBSVM file of ../shared/datasets (by MANIFEST.tsv: the files whose lines are 'label i:v ...')."""
    if not (SHARED / "MANIFEST.tsv").is_file():
        return []
    out = []
    for line in (SHARED / "MANIFEST.tsv").read_text().splitlines()[1:]:
        name = line.split("\t")[0]
        p = SHARED / name
        if p.is_file() and "/" not in name and not name.startswith("magic04.data"):
            out.append(p)
    return out


def assert_same(got, want):
    """Bit for bit: the values (as bytes: -0.0 and every NaN payload count), the index values, shape, labels."""
    (X, y), (Xr, yr) = got, want
    assert X.shape == Xr.shape
    assert X.dtype == Xr.dtype == np.float64 and y.dtype == yr.dtype == np.float64
    assert X.data.tobytes() == Xr.data.tobytes()
    assert np.array_equal(X.indices, Xr.indices) and np.array_equal(X.indptr, Xr.indptr)
    assert X.indices.dtype == X.indptr.dtype == np.int32
    assert X.has_sorted_indices
    assert y.tobytes() == yr.tobytes()


def outcome(fn, *args, **kw):
    """The arrays, or the error message."""
    try:
        return fn(*args, **kw)
    except DataError as e:
        return str(e)


def assert_same_outcome(data: bytes, n_features=None):
    want = outcome(read_libsvm_reference, data, "f.libsvm", n_features=n_features, dataset="d")
    got = outcome(read_libsvm, data, "f.libsvm", n_features=n_features, dataset="d")
    p = Parser(n_features)
    p.feed(data)
    assert bool(p.error_line) == isinstance(want, str), (data, want)   # the parser's own verdict, no fallback
    if isinstance(want, str):
        assert got == want
    else:
        assert_same(got, want)
    return got


@pytest.mark.skipif(not _libsvm_files(), reason="../shared/datasets not present")
@pytest.mark.parametrize("path", _libsvm_files(), ids=lambda p: p.name)
def test_every_shared_libsvm_file_bit_for_bit(path):
    data = read_bytes(path)
    want = read_libsvm_reference(data, str(path))
    assert_same(read_libsvm(data, str(path)), want)
    assert_same(read_libsvm_file(path, chunk_bytes=100_003), want)       # chunk ends inside lines


CASES = {
    "comments": b"# header\n+1 1:0.5 3:-1.25e-3 7:2 # trailing\n#only\n-1 2:1#no space\n",
    "qid": b"1 qid:3 2:1\n2 qid:abc 1:1\n3 qidx:y:z 4:1\n",
    "qid_without_colon": b"1 qid 2:1\n",
    "qid_not_first": b"1 1:1 qid:3\n",
    "blank_lines": b"\n\n1 1:1\n   \n\t\n-1 2:2\n\n",
    "crlf": b"+1 1:1 2:0.5\r\n-1 3:1\r\n\r\n",
    "plus_labels": b"+1 1:1\n-1 1:1\n+0 2:1\n-0 2:1\n",
    "exponents": b"1 1:1e5 2:1E-5 3:-2.5e+10 4:.5e1 5:1.e2 6:1e-400 7:1e308 8:4.9e-324 9:2.2250738585072014e-308\n",
    "long_numbers": b"1 1:3.14159265358979323846264338327950288 2:0.1000000000000000055511151231257827 "
                    b"3:123456789012345678901234567890 4:9007199254740993 5:0.30000000000000004\n",
    "long_token": b"1 1:" + b"1" * 300 + b"." + b"0" * 300 + b"1\n",
    "zeros": b"1 1:0 2:-0 3:0.0 4:-0.0e5 5:1\n-1\n",
    "duplicate_index": b"1 1:1 1:2\n",
    "unsorted_index": b"1 3:1 2:2\n",
    "zero_index": b"1 0:1\n",
    "negative_index": b"1 -1:1\n",
    "plus_index": b"1 +2:1 003:4\n",
    "empty_rows": b"1\n-1\n2 # nothing\n",
    "trailing_whitespace": b"1 1:1   \t\n-1 2:2 \x0b\x0c\n",
    "huge_index": b"1 2147483647:1\n",
    "too_huge_index": b"1 2147483648:1\n",
    "very_huge_index": b"1 99999999999999999999:1\n",
    "underscores": b"1_0 1_0:2_5.5_0 2_0:1e1_0\n",
    "bad_underscores": b"1 1:1__0\n",
    "bad_underscore_index": b"1 _1:1\n",
    "nan": b"1 1:nan\n",
    "inf_label": b"-Infinity 1:1\n",
    "overflow": b"1 1:1e999\n",
    "hex": b"1 1:0x10\n",
    "no_colon": b"1 1\n",
    "empty_value": b"1 1:\n",
    "empty_index": b"1 :1\n",
    "two_colons": b"1 1:2:3\n",
    "no_label": b"1:1 2:2\n",
    "nul_before_hash": b"1 qid:\x00 1:2 #c\n",
    "nul_in_qid": b"1 qid:\x00 1:2\n",
    "nul_after_hash": b"1 1:2 #\x00\n",
    "nul_in_value": b"1 1:2\x00\n",
    "non_ascii": b"1 1:\xd9\xa1\n",
    "no_final_newline": b"1 1:1\n-1 2:1",
    "empty": b"",
    "only_comments": b"# a\n# b\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("n_features", [None, 7])
def test_corner_cases_same_as_the_reference(name, n_features):
    assert_same_outcome(CASES[name], n_features)


def test_index_beyond_n_features_and_shape():
    X, y = assert_same_outcome(b"1 3:1\n", 5)
    assert X.shape == (1, 5)
    assert isinstance(assert_same_outcome(b"1 6:1\n", 5), str)
    X, y = assert_same_outcome(b"1\n")              # no index at all: one column, as scikit-learn
    assert X.shape == (1, 1)


def test_errors_name_the_file_and_line():
    msg = outcome(read_libsvm, b"1 1:1\n\n-1 2:x\n", "a.libsvm")
    assert msg.startswith("a.libsvm:3: malformed LIBSVM line")
    msg = outcome(read_libsvm, b"1 1:1\n-1 2:inf\n", "a.libsvm", first_line=41)
    assert msg.startswith("a.libsvm:42: feature 2 has the value 'inf', not a finite number")


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_chunked_file_reading_is_the_same(tmp_path, chunk):
    data = b"".join(CASES[n] for n in ("comments", "qid", "blank_lines", "crlf", "exponents", "zeros",
                                       "underscores", "empty_rows", "long_token"))
    data = data.replace(b"\n-1\n2 # nothing", b"\n")
    p = tmp_path / "f.libsvm.xz"
    p.write_bytes(lzma.compress(data))
    seen = []
    assert_same(read_libsvm_file(p, chunk_bytes=chunk, tee=seen.append), read_libsvm_reference(data, "f"))
    assert b"".join(seen) == data


def test_chunked_file_errors_are_the_whole_files(tmp_path):
    lines = [b"1 1:1 2:2\n"] * 500 + [b"-1 2:1 1:1\n"] + [b"1 1:1\n"] * 10
    p = tmp_path / "bad.libsvm"
    p.write_bytes(b"".join(lines))
    called, seen = [], []
    with pytest.raises(DataError) as e:
        read_libsvm_file(p, chunk_bytes=100, tee=seen.append, before_error=lambda: called.append(len(seen)))
    assert str(e.value) == outcome(read_libsvm_reference, p.read_bytes(), str(p))
    assert str(e.value).startswith(f"{p}:501: feature indices must be strictly increasing")
    assert called == [len(seen)] and b"".join(seen) == p.read_bytes()     # the whole file was hashed first


def test_blocks_of_lines(tmp_path):
    data = lzma.decompress((SAMPLES / "a9a-small.libsvm.xz").read_bytes())
    X, y = read_libsvm(data, "a")
    blocks = list(iter_libsvm_blocks(io.BytesIO(b"\n# c\n" + data), "a", lines=333, read_size=1000))
    assert sum(b[0].shape[0] for b in blocks) == X.shape[0]
    assert np.concatenate([b[1] for b in blocks]).tobytes() == y.tobytes()
    row = 0
    for Xb, _ in blocks:
        assert (Xb != X[row:row + Xb.shape[0], :Xb.shape[1]]).nnz == 0
        assert X[row:row + Xb.shape[0], Xb.shape[1]:].nnz == 0
        row += Xb.shape[0]
    bad = b"1 1:1\n" * 7 + b"1 2:1 2:1\n"
    with pytest.raises(DataError, match=r"^<stdin>:8: feature indices must be strictly increasing"):
        list(iter_libsvm_blocks(io.BytesIO(bad), "<stdin>", lines=3, read_size=5))
    assert list(iter_libsvm_blocks(io.BytesIO(b"\n# only\n"), "x")) == []


def test_line_ends():
    assert line_ends(b"a\nb\nc\n", 0, 2) == (4, 2)
    assert line_ends(b"a\nb\nc", 0, 3) == (-1, 2)
    assert line_ends(b"a\nb\n", 2, 1) == (4, 1)
    assert line_ends(b"", 0, 1) == (-1, 0)


def test_parser_accumulates_and_refuses_after_an_error():
    p = Parser()
    assert p.feed(b"1 1:1\n2 2:2\n", 0, -1, 1) == 6        # one line at most: stops after it
    assert p.feed(b"1 1:1\n2 2:2\n", 6) == 12
    data, indices, indptr, y, ncols = p.take()
    assert y.tolist() == [1.0, 2.0] and indices.tolist() == [0, 1] and indptr.tolist() == [0, 1, 2] and ncols == 2
    assert p.feed(b"1 1:x\n") == 0 and p.error_line == 3
    with pytest.raises(RuntimeError):
        p.feed(b"1 1:1\n")


def test_bench_reader_line_reports_what_it_measured():
    """olk bench's reader line (no speed is asserted: speed claims live in the benchmark's output only)."""
    from olk.bench.reader import measure_reader
    r = measure_reader(SAMPLES / "a9a-small.libsvm.xz", repeats=1)
    data = lzma.decompress((SAMPLES / "a9a-small.libsvm.xz").read_bytes())
    X, _ = read_libsvm(data, "a")
    assert (r["rows"], r["nnz"], r["mb"], r["repeats"]) == (2000, X.nnz, len(data) / 1e6, 1)
    for name in ("decompress", "parse", "read", "first_load", "warm_load"):
        assert r[f"{name}_s"] > 0 and r[f"{name}_cpu_s"] >= 0
    assert r["parse_mb_s"] == r["mb"] / r["parse_s"] and r["read_rows_s"] == 2000 / r["read_s"]
    assert r["cpp_parse_s"] is None and r["cpp_over_olk_parse"] is None     # a9a-small is not the C++ case


def test_csr_arrays_without_scipy_match_scipy():
    """The loader's scipy-free path (CSRArrays: zeros removed, densified) gives canonical_X's bits exactly."""
    import scipy.sparse as sp

    from olk.data.dataset import CSRArrays, canonical_X
    data = (b"1 1:0 2:-0 3:1.5\n-1\n2 2:-0.0 5:-2\n3 1:1e-300 3:0 4:7\n"
            + b"".join(b"1 %d:%s\n" % (i % 9 + 1, b"-0" if i % 3 else b"0.25") for i in range(50)))
    X, y = read_libsvm(data, "z")
    arrays = CSRArrays(X.data, X.indices, X.indptr, X.shape)
    want = canonical_X(sp.csr_matrix(X, copy=True), sparse=True)
    got = arrays.without_zeros()
    assert got.data.tobytes() == want.data.tobytes() and got.indices.tobytes() == want.indices.tobytes()
    assert got.indptr.tobytes() == want.indptr.tobytes() and got.indptr.dtype == np.int32
    dense = canonical_X(sp.csr_matrix(X, copy=True), sparse=False)
    assert arrays.toarray().tobytes() == dense.tobytes() == canonical_X(arrays, sparse=False).tobytes()
    assert (canonical_X(arrays) != want).nnz == 0 and canonical_X(arrays).data.tobytes() == want.data.tobytes()
