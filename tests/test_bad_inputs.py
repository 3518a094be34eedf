"""The bad-input contract, in one table: every bad input olk promises to handle, run through the CLI.

Each row is one ``olk ...`` invocation (in-process through :func:`olk.cli.main`, which is what the ``olk``
script runs), the exit status it must end with, and a substring its one line must contain.  The contract
(docs/guide/exit-codes.md): exactly one printable line ``olk: error: ...`` naming the file/line/key and the fix,
no traceback, no raw bytes; status 2 for bad input, 130 for an interruption (Ctrl-C), 1 only for a bug.

Placeholders in a row: ``{tmp}`` (a fresh directory, also the working directory), ``{data}`` (tests/data),
``{repo}``.  A row's ``files`` are written under ``{tmp}`` first; ``env`` is set for the row.
The last tests run the real ``olk`` script in a subprocess (binary config, binary data, a real SIGINT).
"""
from __future__ import annotations

import lzma
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from olk.cli import main

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
DATASETS = REPO / "datasets"
FIX = REPO / "tests" / "report_fixtures"
OLK = Path(sys.executable).with_name("olk")

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa"
RANDOM = bytes((i * 73 + 41) % 256 for i in range(300))          # arbitrary binary junk, reproducible


def one(ds: str, extra: str = "") -> str:
    """A config running perceptron on one dataset (name or path)."""
    return f"algorithms: [perceptron]\ndatasets: ['{ds}']\nrepeats: 1\n{extra}"


GOOD = "name: g\nrepeats: 1\nkernel: {type: gaussian, gamma: 0.4}\ndatasets: [a9a-small]\n" \
       "algorithms:\n  - perceptron\n  - {name: spa, params: {alpha: 1, beta: 5}}\n"
BATCH = "mode: batch\nrepeats: 1\ncv: {folds: 3}\ndatasets: [{name: a9a-small, holdout: 0.3}]\nalgorithms: [pa1]\n"

TOY = """datasets:
  toy:
    description: toy
    task: binary
    format: libsvm
    storage: sparse
    n_features: {nf}
    labels: [-1, 1]
    files:
      all: {{path: {path}, rows: {rows}{url}}}
"""


def toy(path, rows, nf=5, url=""):
    """Files + env for a registry dataset 'toy' read from tests/data (OLK_REGISTRY)."""
    reg = TOY.format(path=path, rows=rows, nf=nf, url=f", url: '{url}'" if url else "")
    return {"files": {"reg.yaml": reg, "c.yaml": one("toy")},
            "env": {"OLK_REGISTRY": "{tmp}/reg.yaml", "OLK_DATA": str(DATA)}}


@dataclass
class Case:
    id: str
    argv: list
    expect: str                         # substring of the one line
    code: int = 2
    files: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)
    interrupt: tuple | None = None      # (module, attribute, after_n_calls): raise KeyboardInterrupt there


def run_cfg(text, *extra, expect, code=2, **kw) -> Case:
    """`olk run {tmp}/c.yaml --out {tmp}/out ...` with c.yaml = text."""
    files = {"c.yaml": text, **kw.pop("files", {})}
    return Case(kw.pop("id"), ["run", "{tmp}/c.yaml", "--out", "{tmp}/out", "--no-progress", *extra], expect, code,
                files, **kw)


def with_toy(id, path, rows, expect, nf=5, url=""):
    t = toy(path, rows, nf, url)
    return Case(id, ["run", "{tmp}/c.yaml", "--out", "{tmp}/out"], expect, files=t["files"], env=t["env"])


REG = """datasets:
  {name}:
    description: d
    task: regression
    format: {fmt}
    storage: dense
    n_features: 2
    options: {options}
    files: {{all: {{path: {path}, rows: {rows}}}}}
"""


def _mat_bytes(y) -> bytes:
    """A .mat file with X (2 features x len(y) samples, the AMKL authors' layout) and the target y."""
    import io

    import numpy as np
    import scipy.io
    b = io.BytesIO()
    scipy.io.savemat(b, {"X": np.arange(2.0 * len(y)).reshape(2, -1) / 10, "y": y})
    return b.getvalue()


def bad_target(id, fmt, content, expect, rows=3):
    """`olk run` of raker on a registry regression dataset whose only file is ``content`` (delimited text:
    whitespace, two features then the target; or a .mat file)."""
    path = "t.txt" if fmt == "delimited" else "t.mat"
    options = ("{sep: whitespace, target_column: 2, feature_columns: [0, 2]}" if fmt == "delimited" else
               "{x_key: X, y_key: y, x_layout: features_by_samples}")
    reg = REG.format(name="badt", fmt=fmt, options=options, path=path, rows=rows)
    cfg = "algorithms: [{name: raker, params: {eta_cap: 0.01}}]\ndatasets: [badt]\nrepeats: 1\nshuffle: false\n"
    return run_cfg(cfg, id=id, env={"OLK_REGISTRY": "{tmp}/reg.yaml", "OLK_DATA": "{tmp}"},
                   files={path: content, "reg.yaml": reg}, expect=expect)


CASES = [
    # ------------------------------------------------------------------ data files (LIBSVM and the registry)
    run_cfg(one("{data}/malformed.libsvm"), id="libsvm-malformed-line",
            expect="malformed.libsvm:3: malformed LIBSVM line: expected '<label> <index>:<value> ...', "
                   "got '+1 1:0.5 3-1'"),
    run_cfg(one("{tmp}/d.svm"), id="libsvm-bad-value", files={"d.svm": "1 1:0.5 2:x\n"}, expect="malformed"),
    run_cfg(one("{tmp}/d.svm"), id="labels-not-plus-minus-one", files={"d.svm": "0 1:1\n1 2:1\n"},
            expect="labels {0, 1} found, but a binary dataset needs -1/+1 labels"),
    run_cfg(one("{tmp}/d.svm"), id="three-labels-own-file", files={"d.svm": "1 1:1\n2 1:0\n3 2:1\n"},
            expect="is a multiclass task; the online classifiers need binary labels {-1,+1} (set preprocess: "
                   "{positive_label"),
    with_toy("three-labels-registry", "three_classes.libsvm", 4, "labels {1, 2, 3} found, but the registry declares"),
    run_cfg(one("{data}/empty.libsvm"), id="empty-own-file", expect="empty.libsvm: empty file"),
    with_toy("empty-registry-file", "empty.libsvm", 3, "olk datasets fetch toy"),
    with_toy("index-beyond-n-features", "index_beyond.libsvm", 3,
             "index_beyond.libsvm:2: feature index 7 is beyond the declared n_features=5 of dataset 'toy'"),
    with_toy("wrong-row-count", "index_beyond.libsvm", 5, "3 rows, but the registry expects 5 for toy/all", nf=7),
    with_toy("missing-registry-file", "absent.libsvm", 3, "file 'absent.libsvm' (or .xz/.bz2/.gz) of dataset 'toy' "
             "split 'all' not found in: ", url="https://example.org/absent.libsvm"),
    run_cfg(one("{tmp}/d.svm"), id="index-zero", files={"d.svm": "+1 1:1\n-1 0:1 2:1\n"},
            expect="d.svm:2: feature index 0 is invalid: LIBSVM indices start at 1"),
    run_cfg(one("{tmp}/d.svm"), id="indices-unsorted", files={"d.svm": "+1 3:1 2:1\n-1 1:1\n"},
            expect="d.svm:1: feature indices must be strictly increasing (2 after 3)"),
    run_cfg(one("{tmp}/d.svm"), id="index-too-large", files={"d.svm": "+1 99999999999999999999:1\n-1 1:1\n"},
            expect="feature index 99999999999999999999 is too large"),
    run_cfg(one("{tmp}/d.svm"), id="nan-value", files={"d.svm": "+1 1:nan\n-1 1:1\n"},
            expect="d.svm:1: feature 1 has the value 'nan', not a finite number"),
    run_cfg(one("{tmp}/d.svm"), id="inf-label", files={"d.svm": "+1 1:1\ninf 1:1\n"},
            expect="d.svm:2: label 'inf' is not a finite number"),
    run_cfg(one("{tmp}/d.svm"), id="binary-dataset", files={"d.svm": RANDOM}, expect="d.svm:1: malformed LIBSVM line"),
    run_cfg(one("{tmp}/d.svm"), id="non-utf8-dataset", files={"d.svm": b"+1 1:0.5\n-1 2:\xff\xfe\x1b[31m\n"},
            expect=r"d.svm:2: malformed LIBSVM line: expected '<label> <index>:<value> ...', "
                   r"got '-1 2:\xff\xfe\x1b[31m'"),
    run_cfg(one("{tmp}/d.svm.xz"), id="corrupt-xz", files={"d.svm.xz": b"\xfd7zXZ\x00garbage"},
            expect="d.svm.xz: corrupt .xz archive"),
    run_cfg(one("a9b"), id="unknown-dataset",
            expect="c.yaml: datasets[0].name: unknown dataset 'a9b' (did you mean 'a9a'?)"),
    run_cfg(one("does/not/exist.libsvm"), id="no-such-own-file",
            expect="c.yaml: datasets[0].name: 'does/not/exist.libsvm': no such file"),
    run_cfg(one("x" * 5000), id="dataset-name-too-long", expect="c.yaml: datasets[0].name: unknown dataset 'xxx"),
    run_cfg(one("german-small"), id="sha256-mismatch", env={"OLK_DATA": "{tmp}/d"},
            files={"d/samples/german-small.libsvm": "MODIFIED_GERMAN"},
            expect="sha256 mismatch for german-small/all"),
    run_cfg(one("a9a-small"), id="bad-registry-yaml", files={"reg.yaml": "datasets: [\n"},
            env={"OLK_REGISTRY": "{tmp}/reg.yaml"}, expect="reg.yaml:2: invalid YAML"),
    run_cfg(one("a9a-small"), id="registry-unknown-key",
            files={"reg.yaml": "datasets:\n  x:\n    description: d\n    task: binary\n    format: libsvm\n"
                               "    storage: sparse\n    n_features: 3\n    files: {all: {path: p}}\n"
                               "    preprocesss: {}\n"},
            env={"OLK_REGISTRY": "{tmp}/reg.yaml"},
            expect="dataset 'x': unknown key 'preprocesss' (did you mean 'preprocess'?)"),
    run_cfg("algorithms: [perceptron]\ndatasets: [{name: a9a-small, preprocess: {scael: minmax01}}]\n",
            id="preprocess-key-typo",
            expect="c.yaml: datasets[0].preprocess: unknown preprocess key 'scael' (did you mean 'scale'?)"),
    run_cfg("algorithms: [perceptron]\ndatasets: [{name: a9a-small, preprocess: {positive_label: 5}}]\n",
            id="positive-label-absent", expect="positive_label {5} not among the labels found {-1, 1}"),
    run_cfg(one("csvd"), id="delimited-non-numeric", env={"OLK_REGISTRY": "{tmp}/reg.yaml", "OLK_DATA": "{tmp}"},
            files={"t.csv": "1,2,3\n4,x,6\n",
                   "reg.yaml": "datasets:\n  csvd:\n    description: d\n    task: binary\n    format: delimited\n"
                               "    storage: dense\n    n_features: 2\n"
                               "    options: {sep: ',', target_column: 2, feature_columns: [0, 2]}\n"
                               "    files: {all: {path: t.csv, rows: 2}}\n"},
            expect="t.csv:2: non-numeric value 'x' in column 2"),

    # ------------------------------------------------------------------ bad regression targets (file and row)
    bad_target("target-nan-delimited", "delimited", "0.1 0.2 0.5\n0.3 0.4 nan\n0.5 0.6 0.7\n",
               "t.txt:2: missing value (NaN) in column 3 (the target): fix or remove that line"),
    bad_target("target-inf-delimited", "delimited", "0.1 0.2 0.5\n0.3 0.4 0.6\n0.5 0.6 inf\n",
               "t.txt:3: infinite value 'inf' in column 3 (the target): fix or remove that line"),
    bad_target("target-text-delimited", "delimited", "0.1 0.2 0.5\n0.3 0.4 high\n0.5 0.6 0.7\n",
               "t.txt:2: non-numeric value 'high' in column 3 (the target): fix or remove that line"),
    bad_target("target-nan-mat", "mat", _mat_bytes([[0.5], [float("nan")], [0.7]]),
               "t.mat: target 'y' has the non-finite value nan in row 2 (1-based, sample 2 of 3)"),
    bad_target("target-inf-mat", "mat", _mat_bytes([[0.5], [0.6], [float("-inf")]]),
               "t.mat: target 'y' has the non-finite value -inf in row 3 (1-based, sample 3 of 3)"),
    bad_target("target-text-mat", "mat", _mat_bytes(["0.5", "abc", "0.7"]),
               "t.mat: 'y' has the non-numeric value 'abc' in row 2 (1-based; a char array)"),

    # ------------------------------------------------------------------ the YAML config
    run_cfg("algorithms: [perceptorn]\ndatasets: [a9a-small]", id="unknown-algorithm",
            expect="c.yaml: algorithms[0].name: unknown algorithm 'perceptorn' (did you mean 'perceptron'?)"),
    run_cfg("algorithms: [{name: spa, params: {bta: 2}}]\ndatasets: [a9a-small]", id="unknown-parameter",
            expect="unknown parameter 'bta' for spa (did you mean 'beta'?)"),
    run_cfg("algoritms: [pa1]\ndatasets: [a9a-small]", id="unknown-top-key",
            expect="c.yaml: unknown key 'algoritms' (did you mean 'algorithms'?)"),
    run_cfg("algorithms: [{name: spa, params: {alpha: 2, beta: 1}}]\ndatasets: [a9a-small]", id="beta-below-alpha",
            expect="SPA needs beta >= alpha"),
    run_cfg("algorithms: [{name: pa1, params: {C: 0}}]\ndatasets: [a9a-small]", id="C-not-positive",
            expect="c.yaml: algorithms[0].params.C: must be > 0 (got 0.0)"),
    run_cfg("algorithms: [{name: pa1, tune: {C: [1, -2]}}]\ndatasets: [a9a-small]", id="C-in-tune-not-positive",
            expect="algorithms[0].tune.C: must be > 0"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-smal]", id="dataset-typo",
            expect="c.yaml: datasets[0].name: unknown dataset 'a9a-smal' (did you mean 'a9a-small'?)"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nkernel: {type: gausian}", id="kernel-typo",
            expect="c.yaml: kernel.type: unknown kernel 'gausian' (did you mean 'gaussian'?)"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nrepeats: 0", id="repeats-zero",
            expect="c.yaml: repeats: must be >= 1"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nmode: onlin", id="mode-typo", expect="did you mean 'online'"),
    run_cfg("algorithms: [pa1\ndatasets: [a9a-small]", id="bad-yaml", expect="c.yaml:2: invalid YAML"),
    run_cfg(PNG, id="binary-config", expect="c.yaml: not a UTF-8 text YAML file (byte 0x89 at offset 0)"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nname: \x01\n", id="control-char-in-config",
            expect=r"c.yaml:3: invalid YAML (unacceptable character '\x01' at offset"),
    run_cfg("", id="empty-config", expect="c.yaml: empty config"),
    run_cfg("- pa1\n- a9a-small\n", id="config-not-a-mapping", expect="expected a YAML mapping at the top level"),
    Case("config-not-found", ["run", "{tmp}/missing.yaml"], "missing.yaml: config file not found"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small, a9a-small]", id="dataset-twice", expect="listed twice"),
    run_cfg("algorithms: [pa1, pa1]\ndatasets: [a9a-small]", id="label-twice", expect="'pa1' used twice"),
    run_cfg("algorithms: [spa, {name: rbp, params: {budget: {match: spaa}}}]\ndatasets: [a9a-small]",
            id="match-unknown-label", expect="no algorithm labelled 'spaa' (did you mean 'spa'?)"),
    run_cfg("algorithms: [pa1]\ndatasets: [{name: [a9a-small]}]", id="dataset-name-not-a-string",
            expect="c.yaml: datasets[0].name: expected a dataset name or path, got ['a9a-small']"),
    run_cfg("algorithms: [pa1]\ndatasets: [{name: a9a-small, params: pa1}]", id="dataset-params-not-a-mapping",
            expect="c.yaml: datasets[0].params: expected a mapping"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nn_jobs: 0", id="n-jobs-zero-in-config",
            expect="c.yaml: n_jobs: must be >= 1"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nshuffle: maybe", id="shuffle-not-a-bool",
            expect="c.yaml: shuffle: expected true or false, got 'maybe'"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nscale: .nan", id="scale-nan",
            expect="c.yaml: scale: expected a finite number"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nkernel: {type: gaussian, gamma: .inf}", id="gamma-inf",
            expect="c.yaml: kernel.gamma: must be a finite number"),
    run_cfg("algorithms: [{name: spa, params: {eta: .nan}}]\ndatasets: [a9a-small]", id="param-nan",
            expect="c.yaml: algorithms[0].params.eta: expected a finite number"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\nname: ../../elsewhere", id="name-with-slash",
            expect="c.yaml: name: '../../elsewhere' names the results directory"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\ncheckpoints: 100000000000", id="checkpoints-huge",
            expect="c.yaml: checkpoints: must be <= 100000"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\ndata_dir: 5", id="data-dir-not-a-path",
            expect="c.yaml: data_dir: expected a directory path"),
    run_cfg(BATCH.replace("holdout: 0.3", "holdout: 1.5"), id="holdout-out-of-range",
            expect="datasets[0].holdout: the test fraction must be in (0, 1)"),
    run_cfg(BATCH.replace("folds: 3", "fold: 3"), id="cv-key-typo", expect="did you mean 'folds'"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\ntable_layout: {metrics: [acuracy]}", id="table-layout-typo",
            expect="c.yaml: table_layout.metrics has unknown metric 'acuracy' (did you mean 'accuracy'?)"),
    run_cfg("algorithms: [pa1]\ndatasets: [a9a-small]\ncompare: {acuracy: 1}", id="compare-tolerance-typo",
            expect="c.yaml: compare: unknown metric 'acuracy' (did you mean 'accuracy'?)"),

    # ------------------------------------------------------------------ command-line options
    run_cfg(GOOD, "--set", "spa.beta=-3", id="set-bad-value-label", expect="--set spa.beta: must be > 0 (got -3.0)"),
    run_cfg(GOOD, "--set", "beta=-3", id="set-bad-value", expect="--set beta: must be > 0 (got -3.0)"),
    run_cfg(GOOD, "--set", "beta=abc", id="set-not-a-number", expect="--set beta: expected float, got 'abc'"),
    run_cfg(GOOD, "--set", "bta=3", id="set-unknown-param", expect="did you mean 'beta'"),
    run_cfg(GOOD, "--set", "spq.beta=3", id="set-unknown-label",
            expect="--set spq.beta: no algorithm labelled 'spq' (did you mean 'spa'?)"),
    run_cfg(GOOD, "--set", "beta", id="set-without-equals", expect="--set beta: expected PARAM=V1,V2,..."),
    run_cfg(GOOD, "--set", "beta=[", id="set-bad-yaml-value", expect="--set beta=[: '[' is not a value"),
    run_cfg(GOOD, "--set", "beta=5,10", id="run-set-several-values", expect="use 'olk sweep' for several"),
    run_cfg(GOOD, "--repeats", "0", id="repeats-option-zero", expect="--repeats: must be >= 1 (got 0)"),
    run_cfg(GOOD, "--scale", "2", id="scale-option-2", expect="--scale: must be in (0, 1] (got 2.0)"),
    run_cfg(GOOD, "--scale", "0", id="scale-option-0", expect="--scale: must be in (0, 1]"),
    run_cfg(GOOD, "--datasets", "a9a-smal", id="datasets-option-typo", expect="did you mean 'a9a-small'"),
    run_cfg(GOOD, "--algorithms", "spq", id="algorithms-option-typo", expect="did you mean 'spa'"),
    run_cfg(GOOD, "--n-jobs", "0", id="n-jobs-option-zero", expect="Invalid value for '--n-jobs'"),
    run_cfg(GOOD, "--bogus", id="unknown-option", expect="No such option '--bogus'"),
    run_cfg(GOOD, "--memory-limit", "1M", id="memory-limit-exceeded",
            expect="memory guard: the 2 runs of g would need about "),
    run_cfg(GOOD, "--backend", "loky", "--scheduler", "tcp://127.0.0.1:9", id="scheduler-with-another-backend",
            expect="--scheduler tcp://127.0.0.1:9: a Dask scheduler needs --backend dask, not --backend loky"),
    run_cfg(GOOD, "--memory-limit", "12Q", id="memory-limit-not-a-size",
            expect="--memory-limit: '12Q' is not a size; give e.g. 12G, 500M, 1.5T, 80% or 0 (no limit)"),
    run_cfg(GOOD + "memory_limit: lots\n", id="memory-limit-config-not-a-size",
            expect="c.yaml: memory_limit: 'lots' is not a size"),
    Case("sweep-nothing", ["sweep", "{tmp}/c.yaml"], "nothing to sweep", files={"c.yaml": GOOD}),
    Case("sweep-bad-value-label", ["sweep", "{tmp}/c.yaml", "--set", "spa.beta=-3,5"],
         "--set spa.beta: must be > 0 (got -3.0)", files={"c.yaml": GOOD}),
    Case("sweep-bad-value-shorthand", ["sweep", "{tmp}/c.yaml", "--beta", "5,-3"], "--beta: must be > 0 (got -3.0)",
         files={"c.yaml": GOOD}),
    Case("sweep-unknown-label", ["sweep", "{tmp}/c.yaml", "--set", "spq.beta=1,2"],
         "--set spq.beta: no algorithm labelled 'spq'", files={"c.yaml": GOOD}),
    Case("sweep-unknown-param", ["sweep", "{tmp}/c.yaml", "--set", "spa.bta=5,10"],
         "--set spa.bta: algorithm 'spa' has no parameter 'bta' (did you mean 'beta'?)", files={"c.yaml": GOOD}),
    Case("no-such-command", ["nosuchcmd"], "No such command 'nosuchcmd'"),
    Case("missing-argument", ["run"], "Missing argument 'CONFIG'"),
    Case("results-dir-holds-runs", ["run", "{tmp}/c.yaml", "--out", "{tmp}/r"], "--resume",
         files={"c.yaml": GOOD, "r/runs.jsonl": '{"run_id": "x"}\n'}),
    Case("table-missing-dir", ["table", "{tmp}/nope"], "results directory '{tmp}/nope' does not exist"),
    Case("table-bad-format", ["table", "{tmp}/nope", "--format", "html"], "Invalid value for '--format'"),
    Case("compare-unknown-metric", ["compare", "{tmp}/toy", "--tol", "acc=1", "--published",
                                    str(FIX / "toy_paper_table1.csv")], "unknown metric 'acc'",
         files={"toy": FIX / "toy_table"}),
    Case("plot-param-not-varied", ["plot", "{tmp}/toy", "--kind", "sensitivity", "--x", "alpha"],
         "parameter 'alpha' is not in the params", files={"toy": FIX / "toy_table"}),
    Case("train-shuffle-negative", ["train", "a9a-small", "-a", "perceptron", "--shuffle", "-1", "-o", "{tmp}/m.olk"],
         "Invalid value for '--shuffle': -1 is not in the range x>=0"),
    Case("train-multiclass-positive-label", ["train", "{tmp}/d.svm", "-a", "mc_pa1", "--positive-label", "2",
                                             "-o", "{tmp}/m.olk"],
         "--positive-label: mc_pa1 (MC-PA-I) is a multi-class learner", files={"d.svm": "1 1:1\n2 1:0\n3 2:1\n"}),
    Case("train-multiclass-continuous-labels", ["train", "{tmp}/d.svm", "-a", "mc_pa1", "-o", "{tmp}/m.olk"],
         "continuous target", files={"d.svm": "0.5 1:1\n1.7 1:0\n2.2 2:1\n"}),
    run_cfg("algorithms: [mc_pa1]\ndatasets: ['{tmp}/d.svm']\nrepeats: 1\n", id="multiclass-learner-regression-data",
            files={"d.svm": "0.5 1:1\n1.7 1:0\n2.2 2:1\n"},
            expect="is a regression task; a multiclass learner needs class labels (a multiclass or binary dataset)"),
    Case("datasets-info-unknown", ["datasets", "info", "covtyp"], "unknown dataset 'covtyp' (did you mean 'covtype'?)"),
    Case("datasets-fetch-unknown", ["datasets", "fetch", "german-smal"], "did you mean 'german-small'?"),

    # ------------------------------------------------------------------ interruption (Ctrl-C): status 130
    run_cfg(GOOD.replace("repeats: 1", "repeats: 3"), id="interrupt-mid-run", code=130,
            interrupt=("olk.experiment.runner", "execute_run", 2),
            expect="interrupted: 2 finished runs are saved in {tmp}/out; rerun with --resume to continue"),
    run_cfg(GOOD, id="interrupt-loading-config", code=130, interrupt=("olk.experiment", "load_config", 0),
            expect="interrupted: runs that finished before it are kept in the results directory"),
    Case("interrupt-table", ["table", "{tmp}/toy"], "interrupted: nothing was saved half-written; rerun 'olk table",
         code=130, files={"toy": FIX / "toy_table"}, interrupt=("olk.report.cli", "load_results", 0)),
]


def _fill(s: str, tmp: Path) -> str:
    return s.replace("{tmp}", str(tmp)).replace("{data}", str(DATA)).replace("{repo}", str(REPO))


def _setup(case: Case, tmp: Path, monkeypatch):
    monkeypatch.setenv("OLK_DATA", str(DATASETS))
    monkeypatch.delenv("OLK_REGISTRY", raising=False)
    monkeypatch.chdir(tmp)
    for name, content in case.files.items():
        p = tmp / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copytree(content, p)
        elif content == "MODIFIED_GERMAN":            # still valid LIBSVM, other bytes than the registry's
            data = lzma.decompress((DATASETS / "samples" / "german-small.libsvm.xz").read_bytes())
            p.write_bytes(data.replace(b"\n", b"\n ", 1))
        elif isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(_fill(content, tmp))
    for k, v in case.env.items():
        monkeypatch.setenv(k, _fill(v, tmp))
    if case.interrupt:
        module, attr, after = case.interrupt
        mod = __import__(module, fromlist=[attr])
        real, calls = getattr(mod, attr), {"n": 0}

        def flaky(*a, **kw):
            calls["n"] += 1
            if calls["n"] > after:
                raise KeyboardInterrupt
            return real(*a, **kw)
        monkeypatch.setattr(mod, attr, flaky)


def _one_line(text: str) -> str:
    assert "Traceback" not in text, text
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert len(lines) == 1, text
    line = lines[0]
    assert line.startswith("olk: error: "), line
    assert line.isprintable(), repr(line)                   # never raw bytes or control characters
    return line


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_bad_input_gives_one_line_and_exit_code(case, tmp_path, monkeypatch, capsys):
    _setup(case, tmp_path, monkeypatch)
    argv = [_fill(a, tmp_path) for a in case.argv]
    with pytest.raises(SystemExit) as e:
        main(argv)
    cap = capsys.readouterr()
    assert e.value.code == case.code, (cap.out, cap.err)
    if case.interrupt and case.argv[0] == "run":
        out = cap.err                   # a run logs progress to stderr before it is stopped; stdout stays empty
        assert cap.out == "" and "Traceback" not in out
        line = [ln for ln in out.splitlines() if ln.startswith("olk: error: ")]
        assert len(line) == 1 and out.strip().splitlines()[-1] == line[0], out
        line = line[0]
    else:
        line = _one_line(cap.out + cap.err)
    assert _fill(case.expect, tmp_path) in line, line
    assert not (tmp_path / "out" / "runs.csv").exists() or case.code == 130


def test_every_row_has_a_distinct_id():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------------- the real `olk` script
def _olk(*args, cwd, **kw):
    env = {**os.environ, "OLK_DATA": str(DATASETS)}
    env.pop("OLK_REGISTRY", None)
    return subprocess.run([str(OLK), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, **kw)


needs_script = pytest.mark.skipif(not OLK.is_file(), reason="the olk console script is not installed")


@needs_script
def test_script_binary_config_and_binary_data(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_bytes(PNG)
    r = _olk("run", cfg, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert "not a UTF-8 text YAML file (byte 0x89 at offset 0)" in _one_line(r.stderr)
    (tmp_path / "d.svm").write_bytes(RANDOM)
    cfg.write_text(one(str(tmp_path / "d.svm")))
    r = _olk("run", cfg, "--out", tmp_path / "o", cwd=tmp_path)
    assert r.returncode == 2 and "d.svm:1: malformed LIBSVM line" in _one_line(r.stderr)


@needs_script
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_script_sigint_mid_run_exits_130_and_says_how_to_resume(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(GOOD.replace("repeats: 1", "repeats: 4000"))   # far longer than the wait for its first run
    out = tmp_path / "o"
    env = {**os.environ, "OLK_DATA": str(DATASETS)}
    # the child starts with SIGINT at its default disposition, as from a terminal: a test suite launched in the
    # background (`make test &`) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler
    p = subprocess.Popen([str(OLK), "run", str(cfg), "--out", str(out), "--no-progress", "-q"], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    log = out / "runs.jsonl"
    deadline = time.time() + 90
    while time.time() < deadline and p.poll() is None and not (log.is_file() and log.stat().st_size > 0):
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stderr
    lines = [ln for ln in stderr.splitlines() if ln.startswith("olk: error: ")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert "finished runs are saved in" in lines[0] and "--resume" in lines[0]
