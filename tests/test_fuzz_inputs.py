"""Property-based fuzzing of the readers of user files: the LIBSVM reader, the YAML config parser and (issue 46)
the readers of a results directory -- ``--resume``'s (the run log, experiment.json and its settings record) and the
report's (``olk table``, ``olk compare``, ``olk report``).  The model loader's campaigns are in
tests/test_model_file_safety.py.

The contract (issue 16): on ANY input they return a parsed result or raise :class:`olk.errors.OlkError` whose
message is one printable line; never another exception type (which the CLI would show as a traceback).  The
LIBSVM reader (olk's C parser) must also agree with the reference reader (scikit-learn's load_svmlight_file +
olk's checks) on every input: the same arrays bit for bit, or the same error message; and the C parser's own
verdict (before any fallback) must be the reference's.

Inputs: random bytes, and valid files mutated by flipping, inserting and deleting bytes (plus a few
LIBSVM/YAML-significant tokens).  ``derandomize=True`` makes every run draw the same examples, so CI is
deterministic; the example counts are in ``EXAMPLES`` (the whole file runs in well under 30 s).
"""
from __future__ import annotations

import copy
import json
import lzma
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from olk._core.libsvm_reader import Parser  # noqa: E402
from olk.data.libsvm import read_libsvm, read_libsvm_file, read_libsvm_reference  # noqa: E402
from olk.errors import OlkError  # noqa: E402
from olk.experiment.config import load_config  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
#: the reader is compared with the reference reader, which has no width limit (conftest.no_width_limit)
pytestmark = pytest.mark.usefixtures("no_width_limit")

#: examples per property (fixed: with derandomize=True the same inputs are drawn on every run);
#: for a longer local hunt, OLK_FUZZ_SCALE=20 multiplies them and OLK_FUZZ_RANDOM=1 draws new inputs each run
EXAMPLES = {"libsvm_random": 250, "libsvm_mutated": 300, "libsvm_load_dataset": 60, "libsvm_chunked": 100,
            "config_random": 200, "config_mutated": 250, "config_structured": 300, "yaml_aliases": 60,
            "yaml_alias_loader": 100, "results_mutated": 25, "results_structured": 25}
SCALE = float(os.environ.get("OLK_FUZZ_SCALE", "1"))
DERANDOMIZE = not os.environ.get("OLK_FUZZ_RANDOM")


def _fuzz(name):
    return settings(max_examples=int(EXAMPLES[name] * SCALE), deadline=None, derandomize=DERANDOMIZE, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _valid_libsvm_samples() -> list[bytes]:
    data = REPO / "tests" / "data"
    samples = [(data / n).read_bytes() for n in ("malformed.libsvm", "three_classes.libsvm", "index_beyond.libsvm")]
    german = lzma.decompress((REPO / "datasets" / "samples" / "german-small.libsvm.xz").read_bytes())
    samples.append(b"\n".join(german.split(b"\n")[:6]) + b"\n")
    samples.append(b"# a comment\n+1 1:0.5 3:-1.25e-3 7:2 # trailing\n-1 qid:3 2:1\n\n+1 10:1e2\r\n-1 1:-0\n")
    samples.append(b"1_0 1:1_0.5 2:3.14159265358979323846 3:1e-400 4:.5e+1 2147483647:1\n+1\n-1 qidx:y 5:-0.0\n")
    return samples


LIBSVM = _valid_libsvm_samples()
DEMO_YAML = (REPO / "configs" / "demo.yaml").read_bytes()

# tokens whose insertion exercises the reader's and the YAML parser's special cases
LIBSVM_TOKENS = [b":", b" ", b"\n", b"#", b"-", b"0", b"nan", b"inf", b"1e999", b"qid:", b"99999999999", b"\x00",
                 b"\xff", b"\t", b"\r", b"+", b".", b"e", b"_", b"qid", b"2147483648", b"1234567890123456789",
                 b"\x0b"]
YAML_TOKENS = [b":", b" ", b"\n", b"  ", b"- ", b"{", b"}", b"[", b"]", b",", b"'", b'"', b"&a ", b"*a", b"!!",
               b"!!python/object ", b"null", b"~", b"-1", b"0", b"1e999", b".nan", b"true", b"?", b"|", b">", b"#",
               b"\t", b"\x00", b"\xff", b"\xc3", b"%YAML 1.1\n", b"---\n", b"<<: ", b"[[[[", b"match: ", b"name: "]


def _mutation(tokens):
    """A strategy of edit lists: (kind, position fraction, payload)."""
    return st.lists(st.tuples(st.sampled_from(["flip", "insert", "delete", "token", "dup"]),
                              st.floats(min_value=0, max_value=1, allow_nan=False),
                              st.integers(min_value=0, max_value=255),
                              st.sampled_from(tokens)), min_size=1, max_size=6)


def _mutate(data: bytes, edits) -> bytes:
    b = bytearray(data)
    for kind, where, byte, token in edits:
        i = min(int(where * len(b)), max(len(b) - 1, 0))
        if kind == "flip" and b:
            b[i] ^= (byte or 1)
        elif kind == "insert":
            b[i:i] = bytes([byte])
        elif kind == "delete" and b:
            del b[i:i + 1 + byte % 8]
        elif kind == "token":
            b[i:i] = token
        elif kind == "dup" and b:
            b[i:i] = b[i:i + 1 + byte % 16]
    return bytes(b)


def _check_error(e: OlkError):
    msg = str(e)
    assert msg and "\n" not in msg and msg.isprintable(), repr(msg)
    assert len(msg) < 2000, len(msg)


def _outcome(reader, data: bytes, n_features):
    try:
        return reader(data, "fuzz.libsvm", n_features=n_features, dataset="fuzz" if n_features else None)
    except OlkError as e:
        _check_error(e)
        return str(e)


def _same(got, want) -> bool:
    if isinstance(got, str) or isinstance(want, str):
        return got == want
    (X, y), (Xr, yr) = got, want
    return (X.shape == Xr.shape and X.data.tobytes() == Xr.data.tobytes() and y.tobytes() == yr.tobytes()
            and np.array_equal(X.indices, Xr.indices) and np.array_equal(X.indptr, Xr.indptr))


def _read(data: bytes, n_features=None):
    """read_libsvm's result (None for an error), checked against the reference reader and the bare C parser."""
    got = _outcome(read_libsvm, data, n_features)
    want = _outcome(read_libsvm_reference, data, n_features)
    assert _same(got, want), (data, got, want)
    p = Parser(n_features)
    p.feed(data)
    assert bool(p.error_line) == isinstance(want, str), (data, want)
    if isinstance(got, str):
        return None
    X, y = got
    assert X.shape[0] == y.shape[0]
    if n_features is not None:
        assert X.shape[1] == n_features
    return X, y


# --------------------------------------------------------------------------------------------- LIBSVM reader
@_fuzz("libsvm_random")
@given(data=st.binary(max_size=400), n_features=st.sampled_from([None, 5, 124]))
# inputs that once escaped as another exception type or were silently accepted (regressions):
@example(data=b"1 --5:2\n", n_features=None)                  # ValueError from int(b'--5') in diagnose
@example(data=b"1 1:nan\n-1 2:inf\n", n_features=None)       # NaN / inf values were accepted
@example(data=b"nan 1:1\n", n_features=None)                  # NaN label was accepted
@example(data=b"1 1:1e999\n", n_features=None)                # overflow to inf was accepted
@example(data=b"1 99999999999999999999:1\n", n_features=None)  # OverflowError, index beyond int32
@example(data=b"1 1:1 qid:3\n", n_features=None)              # qid after a feature
@example(data=b"\x89PNG\r\n\x1a\n\x00\x1b[31m", n_features=5)  # binary: excerpt must be escaped
def test_libsvm_reader_on_random_bytes(data, n_features):
    _read(data, n_features)


@_fuzz("libsvm_mutated")
@given(base=st.sampled_from(LIBSVM), edits=_mutation(LIBSVM_TOKENS), n_features=st.sampled_from([None, 24]))
def test_libsvm_reader_on_mutated_files(base, edits, n_features):
    _read(_mutate(base, edits), n_features)


@_fuzz("libsvm_chunked")
@given(base=st.sampled_from(LIBSVM), edits=_mutation(LIBSVM_TOKENS), chunk=st.integers(min_value=1, max_value=64))
def test_libsvm_file_read_in_chunks_is_read_whole(base, edits, chunk):
    data = _mutate(base, edits)
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "f.libsvm"
        p.write_bytes(data)
        got = _outcome(lambda d, src, **kw: read_libsvm_file(p, src, chunk_bytes=chunk, **kw), data, None)
    assert _same(got, _outcome(read_libsvm, data, None)), (data, chunk)


@_fuzz("libsvm_load_dataset")
@given(base=st.sampled_from(LIBSVM), edits=_mutation(LIBSVM_TOKENS))
def test_load_dataset_on_mutated_user_files(base, edits):
    """The whole path a user's own file takes (read, labels, task, checks), not only the reader."""
    from olk.data import load_dataset

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "mine.libsvm"
        p.write_bytes(_mutate(base, edits))
        old = os.environ.get("OLK_CACHE")
        os.environ["OLK_CACHE"] = str(Path(tmp) / "cache")
        try:
            d = load_dataset(str(p))
        except OlkError as e:
            _check_error(e)
        else:
            d.validate()
        finally:
            if old is None:
                os.environ.pop("OLK_CACHE", None)
            else:
                os.environ["OLK_CACHE"] = old


# --------------------------------------------------------------------------------------------- config parser
def _load(data: bytes):
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "fuzz.yaml"
        p.write_bytes(data)
        try:
            return load_config(p)
        except OlkError as e:
            _check_error(e)
            return None


@_fuzz("config_random")
@given(data=st.one_of(st.binary(max_size=300), st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_config_parser_on_random_bytes(data):
    _load(data)


@_fuzz("config_mutated")
@given(edits=_mutation(YAML_TOKENS))
def test_config_parser_on_mutated_demo(edits):
    _load(_mutate(DEMO_YAML, edits))


# values a config may hold after a typo: every YAML scalar type, lists, mappings, match references
YAML_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
              st.sampled_from(["", "spa", "a9a-small", "gaussian", "beta", "name", "match", "n_sv", "last", "avg",
                               "kernel.gamma", "accuracy", "perceptron", "pa1", "x" * 3]),
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.one_of(st.sampled_from(["name", "params", "match", "stat", "type",
                                                                       "gamma", "alpha", "beta", "eta", "C", "spa",
                                                                       "tune", "folds", "kernel", "label"]),
                                                      st.integers(0, 3), st.none(), st.booleans()),
                                            inner, max_size=3)),
    max_leaves=6)


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


DEMO = __import__("yaml").safe_load(DEMO_YAML)
DEMO_PATHS = list(_paths(DEMO))


@_fuzz("config_structured")
@given(edits=st.lists(st.tuples(st.sampled_from(DEMO_PATHS), YAML_VALUES, st.booleans()), min_size=1, max_size=3))
# regressions: each once raised TypeError / AttributeError / ValueError, or was accepted and crashed the run
@example(edits=[(("datasets", 1, "name"), [], False)])
@example(edits=[(("datasets", 1, "params"), ".", False)])
@example(edits=[(("datasets", 1), {"name": "a9a-small", "preprocess": [1]}, False)])
@example(edits=[(("datasets", 1), {"name": "x" * 5000}, False)])
@example(edits=[(("n_jobs",), 0, False)])
@example(edits=[(("shuffle",), "maybe", False)])
@example(edits=[(("data_dir",), 5, False)])
@example(edits=[(("checkpoints",), 10**11, False)])
@example(edits=[(("scale",), float("nan"), False)])
@example(edits=[(("algorithms", 3, "params", "alpha"), float("inf"), False)])
def test_config_parser_on_demo_with_values_replaced(edits):
    """Structure-aware: replace (or add beside) any node of configs/demo.yaml with an arbitrary YAML value."""
    from olk.experiment.config import parse_config

    raw = copy.deepcopy(DEMO)
    for path, value, add in edits:
        if not path:
            raw = value
            continue
        node = raw
        try:
            for k in path[:-1]:
                node = node[k]
            if add and isinstance(node, dict):
                node[value if isinstance(value, (str, int, bool, type(None))) else "extra"] = value
            else:
                node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue        # an earlier edit removed this path
    try:
        parse_config(raw, "fuzz.yaml")
    except OlkError as e:
        _check_error(e)


def test_unmutated_inputs_parse():
    """The seeds of the mutations are valid, so the fuzzers start from accepted input."""
    assert load_config(REPO / "configs" / "demo.yaml").name == "demo"
    for data in LIBSVM[1:]:
        assert _read(data) is not None


# ----------------------------------------------------------------------------- YAML with anchors and aliases
def _aliased_yaml(levels, width, key, tail):
    """A config whose `key` holds `levels` nested aliases of `width` uses each (an alias bomb when both are
    large), followed by `tail` (a valid config body)."""
    lines = ["x0: &x0 [lol]"]
    for i in range(1, levels):
        lines.append(f"x{i}: &x{i} [{', '.join([f'*x{i - 1}'] * width)}]")
    lines.append(f"{key}: *x{levels - 1}")
    return "\n".join(lines) + "\n" + tail


@_fuzz("yaml_aliases")
@given(levels=st.integers(1, 14), width=st.integers(1, 12),
       key=st.sampled_from(["description", "table_layout", "name", "datasets", "algorithms", "kernel", "zzz"]))
def test_config_parser_on_yaml_with_anchors_and_aliases(levels, width, key):
    """Any nesting of anchors and aliases under any key: a config error in one line or a parsed config, never a
    hang or a memory blow-up (the expansion is bounded at load time: width ** levels reaches 12 ** 14)."""
    import time
    tail = DEMO_YAML.decode() if isinstance(DEMO_YAML, bytes) else DEMO_YAML
    tail = "\n".join(ln for ln in tail.splitlines() if not ln.startswith(f"{key}:"))
    t0 = time.perf_counter()
    _load(_aliased_yaml(levels, width, key, tail).encode())
    assert time.perf_counter() - t0 < 5.0


@_fuzz("yaml_alias_loader")
@given(st.recursive(st.sampled_from(["a", "1", "[]", "{}"]),
                    lambda inner: st.lists(inner, min_size=1, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
                    max_leaves=12),
       st.integers(0, 30))
def test_yaml_load_bounds_every_document_of_aliases(body, repeats):
    """olk's one YAML loader: an anchored value used `repeats` times at several depths either loads (equal to
    PyYAML's own result) or is refused as a YAMLError naming the expansion bound."""
    import yaml

    from olk._lazy import yaml_load
    from olk.limits import LIMITS
    text = f"a: &a {body}\nb: &b [{', '.join(['*a'] * repeats) or '1'}]\nc: [{', '.join(['*b'] * repeats) or '1'}]\n"
    try:
        got = yaml_load(text)
    except yaml.YAMLError as e:
        assert LIMITS["yaml_expanded_bytes"].exceeded("to more than") in str(e)
    else:
        assert got == yaml.safe_load(text)


# ------------------------------------------------------------------------------------- results directories
#: a quick experiment with a published table (olk compare reads it): 200 rows, two learners, a tuning grid
RESULTS_CONFIG = """name: fz
paper: spa_tist2018
table: "2"
seed: 7
repeats: 2
scale: 0.1
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms: [perceptron, {name: pa1, tune: {C: [0.5, 1]}}]
compare: {reading: literal, datasets: {a9a-small: a9a}}
"""
RESULTS_FILES = ["runs.jsonl", "experiment.json", "runs.csv", "curves.csv"]
RESULTS_TOKENS = [b'"', b"\\", b",", b"\n", b"{", b"}", b"[", b"]", b":", b"\xff", b"\x00", b"nan", b"NaN", b"1e999",
                  b"-1", b"null", b"[" * 3000, b'"run_id": [1]', b'"phase": "x"', b'"settings": []', b"\r\n"]
_RESULTS: dict = {}


def _results_dir() -> tuple[Path, object]:
    """(a finished results directory of RESULTS_CONFIG with its tables, its config), made once per session."""
    if not _RESULTS:
        from olk.experiment import Runner
        from olk.report.tables import write_tables
        tmp = Path(tempfile.mkdtemp(prefix="olk-fuzz-results-"))
        (tmp / "fz.yaml").write_text(RESULTS_CONFIG)
        cfg = load_config(tmp / "fz.yaml")
        Runner(cfg, tmp / "out", progress=False, log=lambda m: None).run()
        write_tables(tmp / "out")
        _RESULTS.update(dir=tmp / "out", cfg=cfg)
    return _RESULTS["dir"], _RESULTS["cfg"]


def _read_results_dir(d: Path, cfg) -> None:
    """Every reader of a results directory, as --resume and the report commands call them: each gives its result
    or one printable OlkError line (checked), within seconds and without the process's peak memory growing by more
    than 256 MB over all the examples (tracemalloc would slow pandas down tenfold)."""
    import resource
    import time

    from olk.experiment import Runner, fingerprint
    from olk.report.results import load_results
    from olk.report.tables import render_table
    from olk.report.tolerance import parse_compare

    def resume():
        r = Runner(cfg, d, resume=True, progress=False, log=lambda m: None)
        r.store.repair()
        r.store.load()
        meta = r._previous_meta()
        if r.store.records():
            fingerprint.check_resume(d, meta.get(fingerprint.KEY), fingerprint.fingerprint(cfg), log=lambda m: None)
        r.store.write_tables(list(r.store.records()))

    def report():
        res = load_results(d)
        render_table(res, "md")
        parse_compare(res.meta.get("compare"), f"{d}/experiment.json: compare")     # what olk compare reads of it

    t0 = time.perf_counter()
    for read in (resume, report):
        try:
            read()
        except OlkError as e:
            _check_error(e)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    _RESULTS.setdefault("peak", peak)
    assert time.perf_counter() - t0 < 10 and peak - _RESULTS["peak"] < 256 << 20, (time.perf_counter() - t0, peak)


def _json_value():
    return st.recursive(st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=6),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                    max_size=3), max_leaves=5)


def _replace_value(value, path_picks, new):
    """`value` (parsed JSON) with the value reached by following `path_picks` (indices into the keys / items met)
    replaced by `new`."""
    if not path_picks or not isinstance(value, (dict, list)) or not value:
        return new
    keys = list(value) if isinstance(value, dict) else list(range(len(value)))
    k = keys[path_picks[0] % len(keys)]
    out = dict(value) if isinstance(value, dict) else list(value)
    out[k] = _replace_value(value[k], path_picks[1:], new)
    return out


@pytest.mark.usefixtures("no_width_limit")
@_fuzz("results_mutated")
@given(name=st.sampled_from(RESULTS_FILES), edits=_mutation(RESULTS_TOKENS))
def test_results_directory_readers_on_mutated_files(name, edits):
    """Issue 46 (F4): one file of a finished results directory with bytes flipped, inserted, deleted and JSON/CSV
    tokens added -- non-UTF-8 lines, deep nesting, torn records -- then every reader of the directory."""
    base, cfg = _results_dir()
    d = Path(tempfile.mkdtemp(prefix="olk-fuzz-dir-")) / "out"
    try:
        shutil.copytree(base, d)
        (d / name).write_bytes(_mutate((base / name).read_bytes(), edits))
        _read_results_dir(d, cfg)
    finally:
        shutil.rmtree(d.parent, ignore_errors=True)


@_fuzz("results_structured")
@given(name=st.sampled_from(["runs.jsonl", "experiment.json"]), line=st.integers(0, 50),
       picks=st.lists(st.integers(0, 60), min_size=1, max_size=4), value=_json_value())
def test_results_directory_readers_on_json_values_replaced(name, line, picks, value):
    """Issue 46 (F4): a value of experiment.json (its settings record, tuning, layout, ...) or of one run record
    replaced by a random JSON value -- a run_id that is a list, a settings record of the wrong shape, an
    experiment.json that is a list -- then every reader of the directory."""
    base, cfg = _results_dir()
    d = Path(tempfile.mkdtemp(prefix="olk-fuzz-dir-")) / "out"
    try:
        shutil.copytree(base, d)
        if name == "experiment.json":
            doc = _replace_value(json.loads((base / name).read_text()), picks, value)
            (d / name).write_text(json.dumps(doc))
        else:
            lines = (base / name).read_text().splitlines()
            i = line % len(lines)
            lines[i] = json.dumps(_replace_value(json.loads(lines[i]), picks, value))
            (d / name).write_text("\n".join(lines) + "\n")
        _read_results_dir(d, cfg)
    finally:
        shutil.rmtree(d.parent, ignore_errors=True)
