"""Issue 46: the hostile inputs that still got through -- one test per row of the issue's table (F1-F15).

Each command runs the real ``olk`` in a subprocess (tests/hostile.py: ``prlimit --as`` and a timeout) and must end
in exactly one line ``olk: error: ...`` with exit status 2; the resource rows also assert the bound (resident
memory, or time growing linearly with the input).  F3's tests check that the file a symbolic link points to,
outside ``--out``, keeps every byte, for every file olk writes there.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _cli import one_error_line
from hostile import OLK, run_limited

REPO = Path(__file__).resolve().parents[1]
MB = 1 << 20
AS_LIMIT = 1 << 30
RSS_LIMIT = 100 * MB
#: a quick experiment with a published table (so olk compare writes its files): 200 rows, two learners
TINY = """name: tiny
paper: spa_tist2018
table: "2"
seed: 7
repeats: 1
scale: 0.1
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms: [perceptron, {name: pa1, params: {C: 1}}]
compare: {reading: literal, datasets: {a9a-small: a9a}}
"""


def _env(tmp: Path) -> dict:
    return {"OLK_DATA": str(REPO / "datasets"), "OLK_CACHE": str(tmp / "cache")}


def _olk(tmp: Path, *argv, timeout: float = 60, **kw) -> tuple[int, list[str], int]:
    env = {**_env(tmp), **kw.pop("env", {})}
    return run_limited([*OLK, *map(str, argv)], tmp, memory=kw.pop("memory", AS_LIMIT), timeout=timeout, env=env,
                       **kw)


def _cli(capsys, *argv) -> tuple[int, list[str]]:
    """``olk ARGV`` in this process (the rows that are not about resources: no interpreter to start), as
    (exit status, stderr lines)."""
    from olk.cli import main
    capsys.readouterr()
    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    return code, capsys.readouterr().err.splitlines()


_one_line = one_error_line                 # tests/_cli.py


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, Path]:
    """(config, a finished results directory with its tables, comparison and figures), made once."""
    tmp = tmp_path_factory.mktemp("tiny")
    cfg = tmp / "tiny.yaml"
    cfg.write_text(TINY)
    out = tmp / "out"
    for argv in (["run", cfg, "--out", out, "-q"], ["compare", out], ["plot", out, "--kind", "curves"]):
        r = subprocess.run([*OLK, *map(str, argv)], capture_output=True, timeout=120, env={**os.environ, **_env(tmp)})
        assert r.returncode == 0, r.stderr
    return cfg, out


def _copy(finished, tmp: Path) -> tuple[Path, Path]:
    cfg, out = finished
    dst = tmp / "out"
    shutil.copytree(out, dst, symlinks=True)
    return cfg, dst


# ------------------------------------------------------------------- F3: nothing written through a link
#: every file olk writes under --out, and the command that writes it
WRITTEN = [("run", ".lock"), ("run", "runs.jsonl"), ("run", "experiment.json"), ("run", "runs.csv"),
           ("run", "curves.csv"), ("run", "test_curves.csv"), ("run", "table.md"), ("run", "table.csv"),
           ("run", "table.tex"), ("table", "table.md"), ("compare", "compare.md"), ("compare", "compare.csv"),
           ("compare", "compare_ranking.csv"), ("plot", "figures/learning_curves.png"),
           ("plot", "figures/learning_curves.pdf"), ("verify", "verified.json")]


def _command(command: str, cfg: Path, out: Path) -> list:
    return {"run": ["run", cfg, "--out", out, "--resume", "-q"], "table": ["table", out],
            "compare": ["compare", out], "plot": ["plot", out, "--kind", "curves"], "verify": ["verify", out]}[command]


@pytest.mark.parametrize("command,name", WRITTEN)
def test_f3_a_results_file_that_is_a_symlink_is_refused_and_its_target_keeps_every_byte(finished, tmp_path, capsys,
                                                                                        command, name):
    """Before: through runs.jsonl the target's unterminated last line was cut off as a torn line and the records
    appended to it; through .lock the target was truncated and overwritten with a PID."""
    cfg, out = _copy(finished, tmp_path)
    victim = tmp_path / "elsewhere" / "precious.txt"
    victim.parent.mkdir()
    original = (out / "runs.jsonl").read_bytes() + b'{"unterminated": "last line'
    victim.write_bytes(original)
    link = out / name
    if link.exists():
        link.unlink()
    link.symlink_to(victim)
    code, err = _cli(capsys, *_command(command, cfg, out))
    _one_line(code, err, f"{link}: is a symbolic link; olk never writes through one")
    assert victim.read_bytes() == original
    assert sorted(p.name for p in victim.parent.iterdir()) == ["precious.txt"]


def test_f3_a_linked_figures_directory_and_in_place_files_with_other_names_are_refused(finished, tmp_path, capsys):
    cfg, out = _copy(finished, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(out / "figures")
    (out / "figures").symlink_to(elsewhere)
    code, err = _cli(capsys, "plot", out, "--kind", "curves")
    _one_line(code, err, f"{out / 'figures'}: is a symbolic link; olk never writes into a linked directory")
    assert list(elsewhere.iterdir()) == []
    for name in ("runs.jsonl", ".lock"):       # written in place: a hard link would change the other name's file
        victim = elsewhere / name
        victim.write_bytes((out / name).read_bytes() + b"torn")
        before = victim.read_bytes()
        (out / name).unlink()
        os.link(victim, out / name)
        code, err = _cli(capsys, *_command("run", cfg, out))
        _one_line(code, err, f"{out / name}: has 2 names (a hard link to a file elsewhere)")
        assert victim.read_bytes() == before
        (out / name).unlink()
        shutil.copy(victim, out / name)


@pytest.mark.parametrize("name", ["runs.jsonl", "experiment.json", ".lock"])
def test_f3_a_fifo_in_place_of_a_results_file_is_refused_without_blocking(finished, tmp_path, name):
    cfg, out = _copy(finished, tmp_path)
    (out / name).unlink()
    os.mkfifo(out / name)
    code, err, _ = _olk(tmp_path, *_command("run", cfg, out), timeout=30)
    _one_line(code, err, f"{out / name}: is a FIFO (named pipe), not a regular file olk wrote")


def test_f3_the_files_olk_writes_are_regular_files_with_the_usual_permissions(finished, tmp_path, capsys):
    """The atomic writer creates its temporary file new (O_EXCL) and leaves the permissions a plain write gives."""
    cfg, out = _copy(finished, tmp_path)
    code, err = _cli(capsys, *_command("run", cfg, out))
    assert code == 0, err
    umask = os.umask(0)
    os.umask(umask)
    for name in ("runs.csv", "experiment.json", "table.md"):
        assert (out / name).stat().st_mode & 0o777 == 0o666 & ~umask
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


# ------------------------------------------------------------------- F10: an empty path is no path
@pytest.mark.parametrize("argv,option", [
    (["run", "CFG", "--out", ""], "'--out' / '-o'"),
    (["sweep", "CFG", "--out", "", "--set", "pa1.C=1,2"], "'--out' / '-o'"),
    (["train", "DATA", "-a", "perceptron", "-o", ""], "'--output' / '-o'"),
    (["table", ""], "'RESULTS_DIR'"),
    (["table", "OUT", "--out", ""], "'--out'"),
    (["plot", "OUT", "--out-dir", ""], "'--out-dir'"),
    (["report", "--results", ""], "'--results'"),
    (["predict", "", "DATA"], "'MODEL'"),
])
def test_f10_an_empty_path_is_refused_instead_of_meaning_the_default(finished, tmp_path, monkeypatch, capsys, argv,
                                                                     option):
    """Before: --out '' was taken as no --out, and the results went into the checkout's results/<name>."""
    cfg, out = finished
    data = tmp_path / "d.txt"
    data.write_text("+1 1:0.5\n-1 2:0.3\n")
    argv = [{"CFG": cfg, "OUT": out, "DATA": data}.get(a, a) for a in argv]
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("OLK_HOME", str(home))
    code, err = _cli(capsys, *argv)
    _one_line(code, err, f"Invalid value for {option}: an empty path names no file or directory")
    assert list(home.iterdir()) == [] and {p.name for p in tmp_path.iterdir()} == {"d.txt", "home"}


def test_f10_the_runner_refuses_an_empty_out_too():
    from olk.errors import ConfigError
    from olk.experiment import Runner, load_config
    cfg = load_config(REPO / "configs" / "demo.yaml")
    with pytest.raises(ConfigError, match="--out '': an empty path names no directory"):
        Runner(cfg, "")


# ------------------------------------------------------------------- F8: a name that cannot be a directory
@pytest.mark.parametrize("name,why", [
    ('"a\\0b"', "it holds a NUL or another control character"),
    ('"a\\nb"', "it holds a NUL or another control character"),
    ('"../../x"', "it holds a path separator"),
    ('".."', "'..' is not a name of its own"),
    ('"' + "x" * 300 + '"', "it is 300 bytes long, more than a file name may be (255)"),
])
def test_f8_a_name_that_cannot_be_a_directory_is_one_line(tmp_path, monkeypatch, capsys, name, why):
    """Before: name "a\\0b" with the default --out was a 'ValueError: embedded null byte' traceback."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(TINY.replace("name: tiny", f"name: {name}"))
    monkeypatch.setenv("OLK_HOME", str(tmp_path))
    code, err = _cli(capsys, "run", cfg)
    _one_line(code, err, f"{cfg}: name: ", f"names the results directory, but {why}")
    assert not (tmp_path / "results").exists()


# ------------------------------------------------------------------- F4: results directories olk did not write
def _edit_json(path: Path, edit) -> None:
    value = json.loads(path.read_text())
    path.write_text(json.dumps(edit(value)))


def _settings_datasets_list(meta):
    meta["settings"]["datasets"] = ["a9a-small"]
    return meta


@pytest.mark.parametrize("what,damage,expected", [
    ("deep", lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
     "experiment.json: its JSON is nested too deeply to be one olk wrote"),
    ("list", lambda p: p.write_text("[1, 2]"), "experiment.json must hold a JSON object {...}, not a list"),
    ("settings", lambda p: _edit_json(p, _settings_datasets_list),
     "experiment.json: its settings record is not one olk writes (its 'datasets' is a JSON list, not an object)"),
    ("not utf-8", lambda p: p.write_bytes(b'{"name": "\xff\xfe"}'), "experiment.json: not UTF-8 text (byte 10)"),
])
def test_f4_a_broken_experiment_json_is_one_line_for_resume_and_table(finished, tmp_path, capsys, what, damage,
                                                                      expected):
    """Before: RecursionError, AttributeError ('list' object has no attribute 'get') or TypeError tracebacks."""
    cfg, out = _copy(finished, tmp_path)
    damage(out / "experiment.json")
    code, err = _cli(capsys, "run", cfg, "--out", out, "--resume", "-q")
    _one_line(code, err, expected, "pass --force to start over")
    if what != "settings":          # olk table reads the settings record only for 'shuffle'
        code, err = _cli(capsys, "table", out)
        _one_line(code, err, expected)


@pytest.mark.parametrize("line,why", [
    (b'{"run_id": "x\xff", "phase": "main"}', "line 3: not UTF-8 text"),
    (b'{"run_id": [1, 2], "phase": "main", "dataset": "d", "label": "l"}', "line 3: its 'run_id' is [1, 2]"),
    (b'[1, 2, 3]', "line 3: a JSON list, not a run record"),
    (b'{"run_id": "r", "phase": "main", "dataset": "d", "label": "l", "curve": {"t": [1, 2], "x": 3}}',
     "line 3: its 'curve' is not lists of one value per point"),
])
def test_f4_a_foreign_line_in_the_run_log_is_skipped_with_one_warning(finished, tmp_path, capsys, line, why):
    """Before: a UnicodeDecodeError or TypeError (unhashable type: 'list') traceback."""
    cfg, out = _copy(finished, tmp_path)
    with open(out / "runs.jsonl", "ab") as f:
        f.write(line + b"\n")
    code, err = _cli(capsys, "run", cfg, "--out", out, "--resume", "-q")
    assert code == 0, err
    assert err[0] == (f"olk: warning: {out / 'runs.jsonl'}: 1 line is not a run record olk wrote ({why}): skipped "
                      f"(a run held there is computed again)"), err
    assert err[1:] == [f"olk: results in {out}"], err


def test_f4_olk_report_lists_a_broken_directory_instead_of_failing(finished, tmp_path):
    _, out = _copy(finished, tmp_path)
    (out / "experiment.json").write_text("[" * 100_000 + "]" * 100_000)
    r = subprocess.run([*OLK, "report", "--results", str(tmp_path), "--no-html", "--out", str(tmp_path / "R.md")],
                       capture_output=True, text=True, timeout=120, env={**os.environ, **_env(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert "experiment.json unreadable" in (tmp_path / "R.md").read_text()


# ------------------------------------------------------------------- model files: F1, F2, F11, F15
def _model(tmp: Path, name: str = "good.olk") -> Path:
    import numpy as np

    from olk.algorithms import make
    from olk.persist import save
    rng = np.random.default_rng(0)
    X = rng.random((40, 4))
    path = tmp / name
    save(make("perceptron", kernel={"type": "gaussian", "gamma": 1.0}, random_state=0)
         .fit(X, np.where(X[:, 0] > 0.5, 1.0, -1.0)), path)
    return path


def _with_meta(path: Path, out: Path, text: bytes | None = None, edit=None) -> Path:
    """The model file at `path` with its JSON document replaced by `text`, or edited by ``edit(meta)``."""
    import io

    import numpy as np
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = arrays.pop("__meta__")
    if text is None:
        doc = json.loads(meta.tobytes())
        edit(doc)
        text = json.dumps(doc).encode()
    buf = io.BytesIO()
    np.savez_compressed(buf, __meta__=np.frombuffer(text, np.uint8), **arrays)
    out.write_bytes(buf.getvalue())
    return out


def _data(tmp: Path) -> Path:
    data = tmp / "d.txt"
    data.write_text("+1 1:0.5\n-1 2:0.3\n")
    return data


#: JSON documents of about n bytes that once took time quadratic in n (the first) or might: each must be checked
#: (and refused) in time linear in its size
_CRAFTED = {
    "unterminated string of escaped quotes": lambda n: b'{"format": "' + b'\\"' * (n // 2),
    "escaped backslashes": lambda n: b'{"format": "' + b"\\\\" * (n // 2) + b'"}',
    "empty strings": lambda n: b"[" + b'"",' * (n // 3) + b'""]',
    "quotes and brackets": lambda n: b'["' + b'[\\"{' * (n // 4),
    "nesting within the limit, side by side": lambda n: b"[" + b",".join([b"[" * 50 + b"]" * 50] * (n // 101)) + b"]",
}
_MEASURE_LOADS = """
import sys, time
from olk.persist import ModelFileError, load
out = []
for path in sys.argv[1:]:
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        try:
            load(path)
        except ModelFileError:
            pass
        best = min(best, time.perf_counter() - t)
    out.append(best)
print(" ".join(map(repr, out)))
"""


def test_f1_every_check_of_a_model_file_is_linear_in_its_size(tmp_path):
    """Before: json_depth's string pattern restarted at every quote of an unterminated string (0.56 s at 5,000
    escaped quotes, 14.45 s at 20,000; 100,000 hung olk predict).  Each crafted document is loaded at two sizes, 4x
    apart (in a subprocess with a timeout: the quadratic check took minutes); the larger must take less than 10x the
    smaller (linear: about 4x; quadratic: 16x) -- a ratio with a wide margin, not an absolute time."""
    good = _model(tmp_path)
    paths = []
    for i, make_text in enumerate(_CRAFTED.values()):
        for n in (150_000, 600_000):
            paths.append(_with_meta(good, tmp_path / f"c{i}_{n}.olk", make_text(n)))
    n_keys = {150_000: 10_000, 600_000: 40_000}         # F15's made-up state keys: refused before decoding
    for n, k in n_keys.items():
        paths.append(_with_meta(good, tmp_path / f"keys_{n}.olk", edit=lambda m, k=k: m["state"].update(
            {f"key{i}": [i] for i in range(k)})))
    r = subprocess.run([sys.executable, "-c", _MEASURE_LOADS, *map(str, paths)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    times = [float(t) for t in r.stdout.split()]
    names = [*_CRAFTED, "10,000 and 40,000 unknown state keys"]
    for name, small, large in zip(names, times[0::2], times[1::2]):
        assert large < 10 * small + 0.05, (name, small, large)
    model = tmp_path / "quotes.olk"
    _with_meta(good, model, _CRAFTED["unterminated string of escaped quotes"](200_000))
    assert model.stat().st_size < 16_000            # the file: 8 KB compressed
    code, err, _ = _olk(tmp_path, "predict", model, _data(tmp_path), timeout=30)
    _one_line(code, err, f"{model}: corrupted olk model file (bad '__meta__' JSON: Unterminated string")


def _zip_with_directory_records(model: Path, out: Path, n: int) -> Path:
    """The model file with `n` made-up records put in front of its zip directory: the end record still says the
    few entries it has, but the directory zipfile reads (its size from the end record, updated) holds n more."""
    import struct
    data = model.read_bytes()
    assert data[-22:-18] == b"PK\x05\x06"
    end = bytearray(data[-22:])
    size, offset = struct.unpack("<II", end[12:20])
    record = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0x21, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0) + b"j"
    end[12:16] = struct.pack("<I", size + n * len(record))
    out.write_bytes(data[:offset] + record * n + data[offset:offset + size] + bytes(end))
    return out


def test_f2_a_zip_directory_of_millions_of_records_is_refused_before_zipfile_parses_it(tmp_path):
    """Before: 122 s and 3.78 GB for 6 million records (zipfile reads every one, whatever the end record says);
    the 1 GB file-size limit admitted about 17 million.  Now the directory's size is bounded from the end record
    (model_directory_bytes, 4 MB) and its records are counted (model_entries) before zipfile sees them."""
    model = _model(tmp_path)
    huge = _zip_with_directory_records(model, tmp_path / "huge.olk", 1_500_000)       # 70 MB of records
    code, err, rss = _olk(tmp_path, "predict", huge, _data(tmp_path), timeout=60)
    _one_line(code, err, f"{huge}: its zip directory (70,", "bytes) is larger than olk's limit of 4.0 MB",
              "--limit model_directory_bytes=N")
    assert rss < RSS_LIMIT, rss
    many = _zip_with_directory_records(model, tmp_path / "many.olk", 60_000)           # 2.8 MB: within the size
    code, err, rss = _olk(tmp_path, "predict", many, _data(tmp_path), timeout=60)
    import zipfile
    with zipfile.ZipFile(model) as z:
        n = len(z.infolist())
    _one_line(code, err, f"{many}: its zip directory lists more entries than its end record says ({n}) and more "
                         f"than olk's limit of 10,000 entries")
    assert rss < RSS_LIMIT, rss
    code, err, _ = _olk(tmp_path, "--limit", "model_directory_bytes=0", "predict", huge, _data(tmp_path), timeout=60)
    _one_line(code, err, "its zip directory lists more entries")          # the count still holds


def test_f11_a_model_path_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    """Before: olk predict blocked forever opening the FIFO (a FIFO as data or config was already refused)."""
    fifo = tmp_path / "model.olk"
    os.mkfifo(fifo)
    code, err, _ = _olk(tmp_path, "predict", fifo, _data(tmp_path), timeout=30)
    _one_line(code, err, f"{fifo}: is a FIFO (named pipe), not a regular file; give the path of an olk model file")
    code, err, _ = _olk(tmp_path, "predict", "/dev/zero", _data(tmp_path), timeout=30)
    _one_line(code, err, "/dev/zero: is a device or a socket, not a regular file")


def _seed(value):
    return {"__olk__": "float", "value": value} if isinstance(value, str) else value


@pytest.mark.parametrize("what,edit,expected", [
    ("gamma nan", lambda m: m["params"]["kernel"].update(gamma={"__olk__": "float", "value": "nan"}),
     "its parameters do not fit this olk: params.kernel.gamma: must be a finite number (got nan)"),
    ("gamma inf", lambda m: m["params"]["kernel"].update(gamma={"__olk__": "float", "value": "inf"}),
     "params.kernel.gamma: must be a finite number (got inf)"),
    ("gamma -1", lambda m: m["params"]["kernel"].update(gamma=-1.0), "params.kernel.gamma: must be > 0 (got -1)"),
    ("random_state nan", lambda m: m["params"].update(random_state=_seed("nan")),
     "corrupted olk model file (params.random_state is 'nan', not a seed: None or a non-negative integer)"),
    ("state random_state nan", lambda m: m["state"].update(random_state=_seed("nan")),
     "corrupted olk model file (its state's random_state is 'nan', not a seed"),
    ("random_state -1", lambda m: m["params"].update(random_state=-1), "params.random_state is '-1', not a seed"),
    ("another kernel", lambda m: m["params"]["kernel"].update(gamma=2.0),
     "corrupted olk model file (its state's kernel is not the kernel of its parameters)"),
    ("10^6 unknown keys", "1e6 keys",
     "corrupted olk model file (its perceptron state holds 1,000,000 attributes a perceptron of this olk does not "
     "have: 'k0', 'k1', 'k2', ...)"),
    ("17 fitted-looking keys", lambda m: m["state"].update({f"extra{i}_": 0 for i in range(17)}),
     "holds 18 attributes a perceptron of this olk does not have: 'n_features_in_', 'extra0_'"),
])
def test_f15_saved_parameters_are_checked_as_a_constructor_checks_them(tmp_path, capsys, what, edit, expected):
    """Before: a model whose params.kernel.gamma was NaN, inf or -1, whose random_state was NaN, or whose state held
    10^6 made-up keys (300 MB) loaded and predicted, exit 0."""
    good = _model(tmp_path)
    if edit == "1e6 keys":          # the document as text: a million keys put into the state object
        import numpy as np
        with np.load(good) as z:
            text = z["__meta__"].tobytes()
        at = text.index(b'"state": {') + len(b'"state": {') if b'"state": {' in text else \
            text.index(b'"state":{') + len(b'"state":{')
        keys = ",".join(f'"k{i}":{i}' for i in range(1_000_000)).encode() + b","
        bad = _with_meta(good, tmp_path / "bad.olk", text[:at] + keys + text[at:])
    else:
        bad = _with_meta(good, tmp_path / "bad.olk", edit=edit)
    code, err = _cli(capsys, "predict", bad, _data(tmp_path))
    _one_line(code, err, f"{bad} (olk ", expected)


# ------------------------------------------------------------------- data files: F5, F6
@pytest.mark.parametrize("index", [600_000_000, 2_147_483_647])
def test_f5_a_30_byte_file_with_a_huge_feature_index_is_refused_before_its_width_is_allocated(tmp_path, index):
    """Before: a MemoryError traceback under a 4 GB address-space cap (the SV pool's dense scratch row of 600
    million features; olk predict's dense copy of the rows), although the reader said the largest index is
    2,147,483,646 and took 2,147,483,647."""
    data = tmp_path / "wide.txt"
    data.write_text(f"+1 1:0.5 {index}:1\n-1 2:0.3\n")
    assert data.stat().st_size < 40
    model = _model(tmp_path)
    shown = f"{index:,}"
    for argv in (["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk"], ["predict", model, data]):
        code, err, rss = _olk(tmp_path, *argv, timeout=60)
        _one_line(code, err, f"{data}: its largest feature index is {shown}: one dense row of that width, which "
                             f"every learner holds, is", "more than olk's limit of 256 MB",
                  "--limit dense_row_bytes=N")
        assert rss < RSS_LIMIT, rss
    too_big = tmp_path / "too_big.txt"
    too_big.write_text("+1 1:0.5 2147483648:1\n")
    code, err, _ = _olk(tmp_path, "predict", model, too_big)
    _one_line(code, err, f"{too_big}:1: feature index 2147483648 is too large (at most 2147483647)")


def test_f5_the_width_limit_is_raised_like_the_others_and_a_normal_width_passes(tmp_path):
    data = tmp_path / "wide.txt"
    data.write_text("+1 1:0.5 40000:1\n-1 2:0.3\n")
    code, err, _ = _olk(tmp_path, "--limit", "dense_row_bytes=100K", "train", data, "-a", "perceptron", "-o",
                        tmp_path / "m.olk")
    _one_line(code, err, "its largest feature index is 40,000", "more than olk's limit of 100 KB")
    code, err, _ = _olk(tmp_path, "train", data, "-a", "perceptron", "-o", tmp_path / "m.olk")
    assert code == 0, err


def test_f6_a_feature_index_of_5001_digits_is_one_line(tmp_path):
    """Before: 'ValueError: Exceeds the limit (4300 digits)' from the diagnosis of the line (libsvm.py:268)."""
    data = tmp_path / "digits.txt"
    data.write_text("+1 1:0.5 " + "1" * 5001 + ":1\n")
    for argv in (["train", data, "-a", "perceptron", "-o", tmp_path / "m.olk"], ["predict", _model(tmp_path), data]):
        code, err, _ = _olk(tmp_path, *argv)
        _one_line(code, err, f"{data}:1: feature index 1111111111", "is too large (at most 2147483647)")


# ------------------------------------------------------------------- F9: counts bounded before any plan
@pytest.mark.parametrize("edit,expected", [
    (lambda t: t.replace("repeats: 1", "repeats: 1000000000000000000000000000000"),
     "the experiment plans 2e+30 runs (repeats 1e+30, 1 dataset(s), 2 entries"),
    (lambda t: t.replace("{name: pa1, params: {C: 1}}", "{name: spa, sweep: {alpha: [%s], beta: [%s]}, tune: "
                         "{eta: [%s]}}" % ((", ".join(str(i + 1) for i in range(400)),) * 3)),
     "the experiment plans 64,160,001 runs (repeats 1"),
])
def test_f9_a_config_planning_too_many_runs_is_refused_before_any_plan_is_built(tmp_path, edit, expected):
    """Before: repeats of 31 digits (under the 100-digit limit) gave no output, 520 MB at 58 s, killed at 60 s."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(edit(TINY))
    code, err, rss = _olk(tmp_path, "run", cfg, "--out", tmp_path / "o", timeout=60)
    _one_line(code, err, f"{cfg}: {expected}", "more than olk's limit of 100,000 runs",
              "--limit planned_runs=N")
    assert rss < RSS_LIMIT, rss
    assert not (tmp_path / "o").exists()
    code, err, _ = _olk(tmp_path, "run", REPO / "configs" / "demo.yaml", "--repeats", "50000", "--out",
                        tmp_path / "o")
    _one_line(code, err, "the experiment plans 400,024 runs (repeats 50,000")


def test_f9_every_shipped_config_plans_far_fewer_runs_than_the_limit():
    from olk.experiment import load_config
    from olk.experiment.plan import planned_runs
    from olk.limits import LIMITS
    counts = {p.name: planned_runs(load_config(p)) for p in sorted((REPO / "configs").rglob("*.yaml"))}
    assert 0 < max(counts.values()) < LIMITS["planned_runs"].default / 10, counts


# ------------------------------------------------------------------- F13: a point given twice
@pytest.mark.parametrize("argv,expected", [
    (["sweep", "CFG", "--set", "pa1.C=1,1,1"], "--set pa1.C: the value 1.0 is given 3 times (values 1 and 2)"),
    (["sweep", "CFG", "--set", "pa1.C=1,2,1.0"], "--set pa1.C: the value 1.0 is given 2 times (values 1 and 3)"),
    (["sweep", "CFG", "--pa1.C", "2,2"], "--pa1.C: the value 2.0 is given 2 times"),
    (["sweep", "CFG", "--set", "pa1.C=1", "--set", "pa1.C=2"], "--set pa1.C: given twice; give its values once"),
    (["run", "TUNED"], "algorithms[1].tune.C: the value 0.5 is given 2 times (values 1 and 3)"),
])
def test_f13_a_sweep_or_grid_value_given_twice_is_one_line_and_nothing_runs(finished, tmp_path, capsys, argv,
                                                                            expected):
    """Before: olk sweep --set pa1.C=1,1,1 computed the same run 3 times and logged it 3 times in runs.jsonl."""
    cfg, _ = finished
    tuned = tmp_path / "tuned.yaml"
    tuned.write_text(TINY.replace("{name: pa1, params: {C: 1}}", "{name: pa1, tune: {C: [0.5, 1, 0.5]}}"))
    argv = [{"CFG": cfg, "TUNED": tuned}.get(a, a) for a in argv]
    code, err = _cli(capsys, *argv, "--out", tmp_path / "o")
    _one_line(code, err, expected, *(["give each value once (each point is one run)"] if "twice" not in expected
                                     else []))
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------- F14: a malformed sparse matrix
_MALFORMED_SPARSE = """
import warnings
import numpy as np, scipy.sparse as sp
import olk.estimators as est
warnings.filterwarnings("ignore")
rng = np.random.default_rng(0)
X = sp.csr_matrix(rng.random((30, 4)))

def bad(kind):
    if kind == "coo column past the width":
        C = X.tocoo()
        C.col = C.col.copy()
        C.col[2] = 9
        return C
    B = X.copy()
    B.indices, B.indptr = B.indices.copy(), B.indptr.copy()
    if kind == "column index past the width":
        B.indices[3] = 50
    elif kind == "negative column index":
        B.indices[5] = -3
    else:
        B.indptr[4] = B.indptr[6]
    return B

names = [n for n in dir(est) if getattr(getattr(est, n), "_learner_name", None)]
for n in names:
    cls = getattr(est, n)
    y = rng.random(30) if n.endswith("Regressor") else np.where(np.arange(30) % 2, 1, -1)
    if n.startswith("Multiclass"):
        y = np.arange(30) % 3
    try:
        good = cls().fit(X, y)
    except TypeError:           # a learner that takes dense data only: scikit-learn's own refusal
        good = cls().fit(X.toarray(), y)
    for kind in ("column index past the width", "negative column index", "decreasing row pointer",
                 "coo column past the width"):
        for op in ("fit", "predict"):
            try:
                cls().fit(bad(kind), y) if op == "fit" else good.predict(bad(kind))
                print("ACCEPTED", n, op, kind)
            except TypeError as e:
                if "dense data is required" not in str(e):
                    print("TypeError", n, op, kind, e)
            except ValueError as e:
                if "\\n" in str(e) or "whose index arrays do not fit it" not in str(e):
                    print("ValueError", n, op, kind, e)
print(len(names), "estimators")
"""


def test_f14_a_sparse_matrix_whose_indices_do_not_fit_its_shape_is_one_value_error_for_every_estimator(tmp_path):
    """Before: fit accepted a CSR matrix with a column index >= n_features, and predict corrupted memory inside
    scipy ('corrupted double-linked list', the process aborted).  Every estimator (in a subprocess: a crash fails
    the test) refuses four malformed matrices with one ValueError, in fit and in predict."""
    r = subprocess.run([sys.executable, "-c", _MALFORMED_SPARSE], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert lines[-1].endswith(" estimators") and int(lines[-1].split()[0]) > 50, lines
    assert lines[:-1] == [], lines[:10]
    import scipy.sparse as sp

    from olk.algorithms.common.inputs import InputError, check_finite_X
    B = sp.csr_matrix(([1.0], [7], [0, 1]), shape=(1, 8))
    B.indices[0] = 8
    with pytest.raises(InputError, match=r"^X: a CSR matrix of shape \(1, 8\) whose index arrays do not fit it "
                                         r"\(indices must be < 8\)"):
        check_finite_X(B)


# ------------------------------------------------------------------- F12: a write error with -j 2
@pytest.mark.skipif(not shutil.which("prlimit"), reason="needs prlimit")
def test_f12_a_write_error_of_a_parallel_run_is_exactly_one_line(tmp_path):
    """Before: ENOSPC with -j 2 printed joblib's UserWarning (the tasks still running were cancelled) and its
    source line before the 'olk: error' line.  A file-size limit makes the same failure anywhere: the run log's
    append fails while the workers still run."""
    # no cache file to hit the limit first; OLK_HOME outside the checkout, so the git status olk run records is not
    # run there (under the file-size limit it would leave a torn .git index.lock behind)
    env = {**os.environ, **_env(tmp_path), "OLK_CACHE_MIN": "1T", "OLK_HOME": str(tmp_path)}
    r = subprocess.run(["prlimit", "--fsize=6000", *OLK, "run", str(REPO / "configs" / "demo.yaml"), "-j", "2",
                        "--out", str(tmp_path / "o"), "-q"], capture_output=True, text=True, timeout=180, env=env)
    _one_line(r.returncode, r.stderr.splitlines(), f"{tmp_path / 'o' / 'runs.jsonl'}: cannot append to the run log "
              "(File too large, EFBIG)", "then rerun with --resume")


# ------------------------------------------------------------------- F7: out of memory anyway
def test_f7_running_out_of_memory_is_one_line_not_a_memory_error_traceback(tmp_path):
    """olk train --in-memory holds its data whole (a streamed train does not: tests/test_stream.py): a file too
    large for the memory the process may use was a MemoryError traceback; now it is one line naming the command and
    what could not be allocated.  (12 million short lines, 78 MB, under a 500 MB address-space cap; olk itself needs
    under 250 MB.)"""
    data = tmp_path / "short.txt"
    data.write_bytes(b"1 1:1\n-1 2:1\n" * 6_000_000)
    code, err, _ = _olk(tmp_path, "train", data, "-a", "perceptron", "--in-memory", "-o", tmp_path / "m.olk",
                        memory=500 * MB, env={"OLK_CACHE_MIN": "1T"}, timeout=120)
    _one_line(code, err, "olk: error: out of memory in 'olk train' (Unable to allocate",
              "the input needs more memory than this process may use; free memory, raise the process's limit")
    assert not (tmp_path / "m.olk").exists()
