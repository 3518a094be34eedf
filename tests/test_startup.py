"""No start-up tax: the CLI imports lazily.  ``olk --help`` and ``olk algorithms`` load neither pandas,
matplotlib, scikit-learn, joblib nor scipy; a one-pass ``olk train`` loads neither pandas, matplotlib,
scikit-learn nor joblib, on a cached dataset or reading a new LIBSVM file (olk's own parser), and not even scipy
when the data are dense (the parser's arrays become a dense matrix without scipy.sparse); ``olk --help`` lists the
lazily imported commands with their own help; none of them loads msgspec (the config schema: only commands that
read a config pay for it)."""
from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from olk import cli as cli_mod

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "matplotlib", "sklearn", "joblib", "scipy", "dask", "distributed", "tqdm", "msgspec")

PROBE = """
import json, sys
from olk.cli import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules if m.split(".")[0] in %r)}), file=sys.stderr)
""" % (HEAVY,)


def _modules(*argv, cwd=None):
    env = {**os.environ, "OLK_DATA": str(REPO / "datasets")}
    r = subprocess.run([sys.executable, "-c", PROBE, *map(str, argv)], capture_output=True, text=True, env=env,
                       timeout=120, cwd=cwd)
    got = json.loads(r.stderr.strip().splitlines()[-1])
    assert got["code"] in (0, None), r.stderr
    return {m.split(".")[0] for m in got["modules"]}


@pytest.mark.parametrize("argv", [["--help"], ["algorithms"], ["algorithms", "spa"], ["train", "--help"],
                                  ["run", "--help"], ["datasets", "list"]])
def test_help_and_listing_import_nothing_heavy(argv):
    assert _modules(*argv) == set()


@pytest.mark.parametrize("algorithm", ["perceptron", "nogd", "bogd", "forgetron"])
def test_one_pass_train_on_a_cached_dataset_imports_no_report_or_parallel_stack(tmp_path, algorithm):
    """NOGD too: its Nystrom map's kernel matrix (KernelSet.gram) asks scipy nothing about dense data (it used
    to import scipy.sparse there: 0.2 s of a 0.7 s run)."""
    argv = ["train", "codrna-small", "-a", algorithm, "--kernel", '{"type": "gaussian", "gamma": 0.4}',
            "--shuffle", "0", "-o", tmp_path / "m.olk"]
    assert _modules(*argv) == set()                       # reads the file (dense: no scipy) and fills the cache
    assert _modules(*argv) == set()                       # from the cache
    assert _modules("predict", tmp_path / "m.olk", "codrna-small", "-o", tmp_path / "p.txt") == set()


@pytest.mark.parametrize("sample, heavy", [("codrna-small", set()), ("a9a-small", {"scipy"})])
def test_train_on_a_new_libsvm_file_imports_only_what_it_needs(tmp_path, sample, heavy, monkeypatch):
    """A user's own file, never seen (empty cache): olk's parser, no scikit-learn; scipy only for sparse data."""
    import lzma
    p = tmp_path / f"{sample}.libsvm"
    p.write_bytes(lzma.decompress((REPO / "datasets" / "samples" / f"{sample}.libsvm.xz").read_bytes()))
    monkeypatch.setenv("OLK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OLK_CACHE_MIN")                  # the default: a file this small is not even cached
    assert _modules("train", p, "-a", "perceptron", "-o", tmp_path / "m.olk") == heavy
    assert _modules("train", p, "-a", "perceptron", "-o", tmp_path / "m.olk") == heavy
    assert _modules("predict", tmp_path / "m.olk", p, "-o", tmp_path / "p.txt") <= {"scipy"}


def test_help_lists_the_lazy_commands_with_their_own_summaries():
    for name, (module, attr, summary) in cli_mod._LAZY_COMMANDS.items():
        cmd = getattr(importlib.import_module(module), attr)
        assert isinstance(cmd, click.Command)
        for limit in (30, 45, 80, 200):
            assert click.Command(name, help=summary).get_short_help_str(limit) == cmd.get_short_help_str(limit), name
    from click.testing import CliRunner
    out = CliRunner().invoke(cli_mod.cli, ["--help"]).output
    for name in ("algorithms", "compare", "datasets", "plot", "predict", "regress", "report", "run", "sweep",
                 "table", "train"):
        assert f"  {name} " in out


BLAS_PROBE = """
import os, sys
if sys.argv[1] == "numpy-first":
    import numpy  # noqa: F401
import olk.cli  # noqa: F401
import numpy as np
from threadpoolctl import threadpool_info
pools = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
print(os.environ.get("OPENBLAS_NUM_THREADS"), pools)
"""


@pytest.mark.parametrize("order, given, want", [("cli-first", None, "1"), ("cli-first", "2", "2"),
                                                ("numpy-first", None, None)])
def test_the_command_starts_no_blas_thread_pool(order, given, want):
    """The ``olk`` command sets one BLAS thread before numpy's import (olk._lazy.one_blas_thread: numpy starts no
    pool of one thread per core), keeps a number the user gave, and changes nothing once numpy is imported."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    r = subprocess.run([sys.executable, "-c", BLAS_PROBE, order], capture_output=True, text=True, env=env,
                       timeout=120)
    var, pools = r.stdout.split(" ", 1)
    assert var == str(want), r.stderr
    if want is not None:
        assert ast.literal_eval(pools) in ([], [int(want)])     # numpy's OpenBLAS (none if numpy has no BLAS)
