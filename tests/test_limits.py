"""Bounded by construction (issue 34): every input has a size limit (olk/limits.py) checked before memory is spent
on it, counted in the unit memory is spent in.  One test per row of the issue's table; the rows about resources
run the real ``olk`` in a subprocess under ``prlimit --as`` with a timeout and assert exit status 2, exactly one
line on stderr, and the memory bound.  The large inputs are made in milliseconds (tests/hostile.py: runs of one
byte compressed once and repeated), so each test takes a few seconds.
"""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _cli import one_error_line
from hostile import OLK, gzip_run, npy_header, run_limited, zip_with_runs

from olk.algorithms import make
from olk.persist import ModelFileError, load, save

REPO = Path(__file__).resolve().parents[1]
DEMO = (REPO / "configs" / "demo.yaml").read_text()
MB = 1 << 20
#: the address space a refused input may use at most (olk's own imports included), and the resident memory
AS_LIMIT = 1 << 30
RSS_LIMIT = 100 * MB


_one_line = one_error_line                 # tests/_cli.py


def _config(tmp_path: Path, key: str, value: str, name: str = "c.yaml") -> Path:
    lines = [ln for ln in DEMO.splitlines() if not ln.startswith(f"{key}:")]
    p = tmp_path / name
    p.write_text("\n".join(lines) + f"\n{key}: {value}\n")
    return p


def _run(tmp_path, argv, **kw):
    return run_limited([*OLK, *map(str, argv)], tmp_path, memory=kw.pop("memory", AS_LIMIT),
                       timeout=kw.pop("timeout", 60), **kw)


# ------------------------------------------------------------------------------------- YAML: bytes, not values
@pytest.mark.parametrize("key", ["table_layout", "unavailable", "description"])
def test_a_config_aliasing_a_long_string_900000_times_is_refused_by_its_size(tmp_path, key):
    """The issue's 3.7 MB config: one 100,000-char string anchored and aliased 900,000 times.  It passed the old
    bound (900,001 values < 1,000,000) and ran 60 s to a 4 GB cap in json.dumps; now the file is larger than
    config_bytes and is refused before it is parsed."""
    text = "x" * 100_000
    aliases = ", ".join(["*s"] * 900_000)
    value = f"[&s {text}, {aliases}]" if key == "description" else f"{{a: &s {text}, b: [{aliases}]}}"
    cfg = _config(tmp_path, key, value)
    assert cfg.stat().st_size > 3_600_000
    code, err, rss = _run(tmp_path, ["run", cfg, "--out", tmp_path / "o"], timeout=30)
    _one_line(code, err, str(cfg), "larger than olk's limit of 1.0 MB", "--limit config_bytes=N")
    assert rss < RSS_LIMIT, rss


@pytest.mark.parametrize("key", ["table_layout", "unavailable", "description"])
def test_aliases_are_counted_in_the_bytes_they_stand_for(tmp_path, key):
    """The same bomb within the file size limit (a 600 KB file: a 100,000-char string aliased 120,000 times,
    12 GB expanded) is refused by yaml_expanded_bytes, naming the key, before any value is built."""
    text = "x" * 100_000
    aliases = ", ".join(["*s"] * 120_000)
    value = f"[&s {text}, {aliases}]" if key == "description" else f"{{a: &s {text}, b: [{aliases}]}}"
    cfg = _config(tmp_path, key, value)
    assert cfg.stat().st_size < 1 << 20         # within config_bytes
    code, err, rss = _run(tmp_path, ["run", cfg, "--out", tmp_path / "o"], timeout=30)
    line = _one_line(code, err, f"{cfg}:", f": {key}", "its anchors and aliases (an alias bomb?) expand to more than "
                     "olk's limit of 16 MB", "--limit yaml_expanded_bytes=N")
    assert rss < RSS_LIMIT, (rss, line)


def test_the_expansion_bound_is_in_bytes_not_values():
    """Few values, many bytes: refused; many values, few bytes: the count that mattered is the bytes."""
    import yaml

    from olk._lazy import yaml_load
    big = "s: &s " + "y" * 10_000 + "\nt: [" + ", ".join(["*s"] * 2_000) + "]\n"      # 2,001 values, 20 MB
    with pytest.raises(yaml.YAMLError, match="t: its anchors and aliases"):
        yaml_load(big)
    many = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]\nb: [" + ", ".join(["*a"] * 2_000) + "]\n"   # 22,000 values
    assert len(yaml_load(many)["b"]) == 2_000


@pytest.mark.parametrize("key,value,named", [
    ("seed", "9" * 5000, "seed: an integer of 5,000 digits"),
    ("seed", "0x" + "f" * 5000, "seed: an integer of 5,000 digits"),
    ("seed", "1" + ":59" * 2500, "seed: an integer of 5,001 digits"),
    ("description", "9" * 5000, "description: an integer of 5,000 digits"),
    ("tune", "{metric: accuracy, x: [1, " + "9" * 5000 + "]}", "tune.x[1]: an integer of 5,000 digits"),
])
def test_a_5000_digit_integer_names_its_key(tmp_path, key, value, named):
    """Python refuses to convert more than 4,300 digits (a ValueError traceback, exit 1): olk counts the digits
    first."""
    cfg = _config(tmp_path, key, value)
    code, err, _ = _run(tmp_path, ["run", cfg, "--out", tmp_path / "o"])
    _one_line(code, err, named, "more than olk's limit of 100 digits", "--limit yaml_int_digits=N")


def test_a_5000_digit_integer_in_a_tune_list_of_an_algorithm(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(DEMO.replace("tune: {eta: [10, 1, 0.1, 0.01]}", "tune: {eta: [10, " + "9" * 5000 + "]}", 1))
    code, err, _ = _run(tmp_path, ["run", cfg, "--out", tmp_path / "o"])
    _one_line(code, err, f"{cfg}:16: algorithms[1].tune.eta[1]: an integer of 5,000 digits")


def test_duplicate_keys_are_refused_with_both_lines(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(DEMO + "seed: 7\n")
    first = next(i for i, line in enumerate(DEMO.splitlines(), 1) if line.startswith("seed:"))
    last = len(DEMO.splitlines()) + 1
    code, err, _ = _run(tmp_path, ["run", cfg, "--out", tmp_path / "o"])
    _one_line(code, err, f"{cfg}:{last}: key 'seed' is given twice in one mapping (lines {first} and {last})")
    from olk._lazy import yaml_load
    with pytest.raises(Exception, match=r"key 'a.b' is given twice in one mapping \(lines 1 and 1\)"):
        yaml_load("a: {b: 1, b: 2}")
    assert yaml_load("base: &b {x: 1}\nc: {<<: *b, x: 2}")["c"] == {"x": 2}     # a merge key may be overridden


def test_the_limits_are_raised_by_option_and_environment(tmp_path):
    cfg = _config(tmp_path, "seed", "1" + "0" * 150 + "\nzzz: 1")
    code, err, _ = _run(tmp_path, ["run", cfg, "--out", tmp_path / "o"])
    _one_line(code, err, "seed: an integer of 151 digits")
    for argv, env in ((["--limit", "yaml_int_digits=200"], None), ([], {"OLK_LIMIT_YAML_INT_DIGITS": "200"})):
        code, err, _ = _run(tmp_path, [*argv, "run", cfg, "--out", tmp_path / "o"], env=env)
        _one_line(code, err, "unknown key 'zzz'")       # past the raised limit: the next check
    code, err, _ = _run(tmp_path, ["--limit", "line_byte=3", "algorithms"])
    _one_line(code, err, "--limit line_byte=3: expected NAME=VALUE", "did you mean 'line_bytes'?")


# -------------------------------------------------------------------------------------------------- model files
def _model(tmp_path: Path) -> tuple[Path, dict, dict]:
    rng = np.random.default_rng(0)
    X = rng.random((40, 4))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    path = tmp_path / "good.olk"
    save(make("perceptron", kernel={"type": "gaussian", "gamma": 1.0}, random_state=0).fit(X, y), path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    return path, json.loads(arrays.pop("__meta__").tobytes()), arrays


def _entries(meta: bytes, arrays: dict, **extra) -> dict:
    """zip_with_runs entries of a model file: its JSON document, its arrays, and `extra` (name: (head, n, ...))."""
    out = {"__meta__.npy": (npy_header((len(meta),), "|u1") + meta, 0)}
    for k, a in arrays.items():
        buf = io.BytesIO()
        np.lib.format.write_array(buf, a)
        out[k + ".npy"] = (buf.getvalue(), 0)
    out.update({k + ".npy": v for k, v in extra.items()})
    return out


def _predict(tmp_path, model, **kw):
    data = tmp_path / "d.txt"
    data.write_text("+1 1:0.5\n-1 2:0.3\n")
    return _run(tmp_path, ["predict", model, data], **kw)


def test_a_model_whose_json_is_nested_100000_deep_is_one_line(tmp_path):
    _, meta, arrays = _model(tmp_path)
    text = json.dumps(meta)[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}"
    bad = zip_with_runs(tmp_path / "deep.olk", _entries(text.encode(), arrays))
    code, err, _ = _predict(tmp_path, bad)
    _one_line(code, err, "JSON document is nested 100,001 levels deep, deeper than olk's limit of 100 levels")


def test_an_entry_declaring_a_terabyte_shape_is_refused_before_allocation(tmp_path):
    _, meta, arrays = _model(tmp_path)
    coef = next(k for k in arrays if k.endswith("coef"))
    arrays.pop(coef)
    bad = zip_with_runs(tmp_path / "shape.olk", _entries(json.dumps(meta).encode(), arrays,
                                                         **{coef: (npy_header((10**6, 10**6)), 64)}))
    code, err, rss = _predict(tmp_path, bad)
    _one_line(code, err, f"entry {coef!r} declares a 1000000x1000000 float64 array of 8,000,000,000,000 bytes, but "
                         f"the entry holds 64")
    assert rss < RSS_LIMIT


def test_an_unreferenced_3_gib_entry_is_refused_before_it_is_read(tmp_path):
    """The issue's 3.1 MB model with a 3 GiB entry of zeros nobody refers to (accepted before, 3-4.6 GB RSS)."""
    _, meta, arrays = _model(tmp_path)
    n = 3 << 30
    bad = zip_with_runs(tmp_path / "junk.olk", _entries(json.dumps(meta).encode(), arrays,
                                                        junk=(npy_header((n // 8,)), n)))
    assert bad.stat().st_size < 4 * MB
    code, err, rss = _predict(tmp_path, bad)
    _one_line(code, err, "entry 'junk' is not part of the model: nothing in it refers to that entry")
    assert rss < RSS_LIMIT
    # the uncompressed total of the zip directory is capped before any entry is read; the file size too
    code, err, rss = _predict(tmp_path, bad, env={"OLK_LIMIT_MODEL_EXPANDED_BYTES": "1G"})
    _one_line(code, err, "its entries declare 3,221,", "bytes uncompressed, more than olk's limit of 1.0 GB",
              "OLK_LIMIT_MODEL_EXPANDED_BYTES")
    assert rss < RSS_LIMIT
    code, err, _ = _predict(tmp_path, bad, env={"OLK_LIMIT_MODEL_BYTES": "1M"})
    _one_line(code, err, "the model file (3,", "bytes) is larger than olk's limit of 1.0 MB")


def test_a_json_document_padded_with_3_gib_of_whitespace_is_refused_by_its_size(tmp_path):
    _, meta, arrays = _model(tmp_path)
    text = json.dumps(meta).encode()
    n = 3 << 30
    entries = _entries(b"", arrays)
    entries["__meta__.npy"] = (npy_header((len(text) + n,), "|u1") + text, n, b" ")
    bad = zip_with_runs(tmp_path / "padded.olk", entries)
    code, err, rss = _predict(tmp_path, bad)
    _one_line(code, err, "its '__meta__' JSON document (3,221,", "bytes) is larger than olk's limit of 64 MB")
    assert rss < RSS_LIMIT


def _edited(tmp_path, edit) -> Path:
    _, meta, arrays = _model(tmp_path)
    edit(meta, arrays)
    buf = io.BytesIO()
    np.savez(buf, __meta__=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    out = tmp_path / "edited.olk"
    out.write_bytes(buf.getvalue())
    return out


@pytest.mark.parametrize("code", [2 ** 40, 2 ** 32 + 1, -1, 4])
def test_an_out_of_range_kernel_code_is_refused_instead_of_wrapping(tmp_path, code):
    """2**40 cast to a C int is 0, the linear kernel: the model predicted silently with another kernel."""
    def edit(meta, arrays):
        key = next(k for k in arrays if k.endswith("kind"))
        arrays[key] = np.array([code], dtype=np.int64)
    with pytest.raises(ModelFileError, match=r"the SV pool's kernel codes are not in 0\.\.3"):
        load(_edited(tmp_path, edit))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_coefficients_are_refused_in_one_line(tmp_path, value):
    def edit(meta, arrays):
        key = next(k for k in arrays if k.endswith("coef"))
        arrays[key] = arrays[key].copy()
        arrays[key][0, 0] = value
    code, err, _ = _predict(tmp_path, _edited(tmp_path, edit))
    _one_line(code, err, "the SV pool's 'coef' holds NaN or infinite values")


# -------------------------------------------------------------------------------------------------- data lines
def test_a_1_5_gb_line_in_a_gzip_file_is_refused_in_bounded_memory(tmp_path):
    """The issue's 6.5 MB .gz of zeros: one 1.5 GB line (a MemoryError traceback at ~3 GB before, in the error
    path that joined the whole text).  Train reads it through the dataset loader, predict directly."""
    data = gzip_run(tmp_path / "zeros.gz", 1536 * MB)
    model, _, _ = _model(tmp_path)
    for argv in (["predict", model, data], ["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk"]):
        code, err, rss = _run(tmp_path, argv, env={"OLK_CACHE": str(tmp_path / "cache")})
        _one_line(code, err, f"{data}:1: the line is longer than olk's limit of 16 MB", "--limit line_bytes=N")
        assert rss < RSS_LIMIT, rss


def test_a_long_line_after_good_ones_is_named_by_its_number(tmp_path):
    data = gzip_run(tmp_path / "z.gz", 40 * MB, prefix=b"+1 1:0.5\n-1 2:1\n1 ")
    model, _, _ = _model(tmp_path)
    code, err, _ = _run(tmp_path, ["predict", model, data])
    _one_line(code, err, f"{data}:3: the line is longer than")
    small = tmp_path / "small.txt"
    small.write_bytes(b"+1 1:0.5\n-1 2:1 " + b"3:1 " * 100 + b"\n")
    code, err, _ = _run(tmp_path, ["--limit", "line_bytes=100", "predict", model, small])
    _one_line(code, err, f"{small}:2: the line is longer than olk's limit of 100 B")


def test_standard_input_without_a_newline_is_refused_in_bounded_memory(tmp_path):
    """An endless stream of '1' with no newline: olk predict MODEL - stops after line_bytes of it."""
    model, _, _ = _model(tmp_path)
    feeder = subprocess.Popen([sys.executable, "-c", "import os\nb = b'1' * (1 << 20)\ntry:\n    while True: "
                               "os.write(1, b)\nexcept OSError: pass"], stdout=subprocess.PIPE)
    try:
        code, err, rss = _run(tmp_path, ["predict", model, "-"], stdin=feeder.stdout)
    finally:
        feeder.stdout.close()
        feeder.kill()
        feeder.wait()
    _one_line(code, err, "<stdin>:1: the line is longer than olk's limit of 16 MB")
    assert rss < RSS_LIMIT, rss


def test_standard_input_in_blocks_gives_the_same_predictions(tmp_path):
    """Blocks are bounded in bytes as well as lines: many short lines and a few long ones predict as a file."""
    model, _, _ = _model(tmp_path)
    rng = np.random.default_rng(1)
    lines = [f"{1 if rng.random() > 0.5 else -1} 1:{rng.random():.3f} 3:{rng.random():.3f}" for _ in range(3000)]
    lines[10] += " " + " ".join(f"{j}:0.001" for j in range(4, 20_000))
    text = ("\n".join(lines)).encode()
    f = tmp_path / "d.txt"
    f.write_bytes(text)
    from olk.data.libsvm import iter_libsvm_blocks, read_libsvm
    X, y = read_libsvm(text, "d.txt")
    blocks = list(iter_libsvm_blocks(io.BytesIO(text), "d.txt", lines=1000, read_size=4096, block_bytes=50_000))
    assert len(blocks) > 3
    assert np.array_equal(np.concatenate([b[1] for b in blocks]), y)
    assert sum(b[0].shape[0] for b in blocks) == X.shape[0]
    by_file = subprocess.run([*OLK, "predict", str(model), str(f)], capture_output=True, timeout=60)
    by_stdin = subprocess.run([*OLK, "predict", str(model), "-"], input=text, capture_output=True, timeout=60)
    assert by_file.returncode == by_stdin.returncode == 0 and by_file.stdout == by_stdin.stdout


# ------------------------------------------------------------------------------------------ processes and state
def _children(pid: int) -> list[int]:
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(p))
    return out


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_sigkill_of_a_parallel_run_ends_its_workers_within_seconds(tmp_path):
    """Before: 2 loky workers + 2 resource trackers orphaned, idling for minutes."""
    env = {**os.environ, "OLK_DATA": str(REPO / "datasets"), "OLK_CACHE": str(tmp_path / "cache")}
    proc = subprocess.Popen([*OLK, "run", str(REPO / "configs" / "demo.yaml"), "-j", "2", "--repeats", "40",
                             "--out", str(tmp_path / "o"), "-q", "--no-progress"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(kids) < 4:       # 2 workers + loky's and multiprocessing's trackers
        kids = _children(proc.pid)
        time.sleep(0.1)
    assert len(kids) >= 3, kids
    time.sleep(0.5)
    kids = _children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(k) for k in kids):
        time.sleep(0.1)
    alive = [k for k in kids if _running(k)]
    for k in alive:
        os.kill(k, signal.SIGKILL)
    assert not alive, f"still running 10 s after olk's SIGKILL: {alive}"


def test_olk_table_on_a_live_run_names_its_pid(tmp_path):
    from olk.fileio import DirLock
    out = tmp_path / "o"
    out.mkdir()
    (out / "experiment.json").write_text(json.dumps({"name": "x", "status": "running"}))
    with DirLock(out):
        for command in ("table", "plot", "compare"):
            code, err, _ = _run(tmp_path, [command, out])
            _one_line(code, err, f"{out}: run in progress (pid {os.getpid()})")
    code, err, _ = _run(tmp_path, ["table", out])
    _one_line(code, err, "not an olk results directory")        # the run is gone: what the directory lacks


def test_a_write_error_of_predict_gives_advice_that_fits_predict(tmp_path):
    model, _, _ = _model(tmp_path)
    data = tmp_path / "d.txt"
    data.write_text("+1 1:0.5\n-1 2:0.3\n")
    code, err, _ = _run(tmp_path, ["predict", model, data, "-o", "/dev/full"])
    line = _one_line(code, err, "/dev/full: cannot write (No space left on device, ENOSPC)",
                     "then rerun olk predict (it starts over), or give another -o")
    assert "--resume" not in line


def test_a_model_with_more_entries_than_the_limit_is_refused_from_its_end_record(tmp_path):
    model, _, arrays = _model(tmp_path)
    code, err, _ = _predict(tmp_path, model, env={"OLK_LIMIT_MODEL_ENTRIES": "3"})
    _one_line(code, err, f"{model}: the model file has {len(arrays) + 1} entries, more than olk's limit of 3 entries")


def test_the_guide_lists_every_limit_with_its_default_and_variable():
    """docs/guide/limits.md is the user's table of olk/limits.py: every limit, its default and its variable."""
    from olk.limits import LIMITS
    guide = (REPO / "docs" / "guide" / "limits.md").read_text()
    for lim in LIMITS.values():
        row = next((ln for ln in guide.splitlines() if ln.startswith(f"| `{lim.name}` |")), None)
        assert row is not None, lim.name
        assert f"| {lim.show(lim.default)} |" in row and f"`{lim.env}`" in row, row
