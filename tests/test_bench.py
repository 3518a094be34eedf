"""`olk bench` (issue 13): the reference loops compute what olk computes, and the core suite runs end to end.

No timing is asserted here (speed claims live in `make bench`); these tests pin that the single-core-limit
loops are the same computation as olk's Perceptron (otherwise the bench's "fraction of the limit" would compare
different work) and that the command, its CSV and its one-line errors work."""
import csv
import subprocess
import sys

import numpy as np
import pytest

from olk._core.refloop import VARIANTS, perceptron_pass
from olk.algorithms import make
from olk.data import load_dataset
from olk.experiment import seeds
from olk.tasks import online_pass


@pytest.mark.parametrize("name", ["a9a-small", "codrna-small"])        # sparse binary, dense real-valued
def test_reference_loops_reproduce_olks_perceptron(name):
    d = load_dataset(name)
    order = seeds.permutation(d.X.shape[0], 2018, name, 0)
    res = online_pass(make("perceptron", kernel={"type": "gaussian", "gamma": 0.4}), d.X, d.y, order)
    for v in VARIANTS:
        r = perceptron_pass(d.X, d.y, order, 0.4, v)
        assert (r["n_sv"], r["mistakes"], r["kernel_evals"]) == (res["n_sv"], res["mistakes"], res["kernel_evals"]), v


def test_reference_loop_refuses_a_bad_variant_and_order():
    d = load_dataset("a9a-small")
    with pytest.raises(ValueError, match="scalar, vector, best"):
        perceptron_pass(d.X, d.y, np.arange(5), 0.4, "turbo")
    with pytest.raises(IndexError):
        perceptron_pass(d.X, d.y, np.array([0, d.X.shape[0]]), 0.4)


def test_bench_core_runs_and_writes_its_csv(tmp_path):
    try:
        load_dataset("codrna", split="train")
    except Exception as e:                  # the full data lives in ../shared (CI has it)
        pytest.skip(str(e))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "olk.cli", "bench", "core", "--cases", "perceptron_codrna",
                        "--scale", "0.05", "--repeats", "1", "--out", str(out), "--data-dir", str(tmp_path / "data")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "| perceptron_codrna |" in r.stdout
    rows = list(csv.DictReader(open(out / "core.csv")))
    assert len(rows) == 1 and rows[0]["case"] == "perceptron_codrna"
    assert float(rows[0]["fraction_of_ref_loop"]) > 0 and float(rows[0]["fraction_of_ref_loop_cpu"]) > 0
    # the hardware bound beside olk's own reference loop: bytes and flops per evaluation (dense 8 columns)
    assert float(rows[0]["bytes_per_eval"]) == 8 * 8 + 16 and float(rows[0]["flops_per_eval"]) == 2 * 8 + 26
    assert 0 < float(rows[0]["fraction_of_hw_mem"]) and 0 < float(rows[0]["fraction_of_hw_flops"])
    assert float(rows[0]["mem_gb_s"]) > 0 and float(rows[0]["peak_gflops"]) > 0
    assert int(rows[0]["kernel_evals"]) > 0 and rows[0]["paper_s"] == ""    # no paper time at scale < 1
    # the bench's file: cod-rna scaled to [-1, 1] per feature, written once and kept
    f = tmp_path / "data" / "codrna.pm1.shuffled.libsvm"
    X = load_dataset(str(f), sparse=False).X
    assert X.shape == (59535, 8) and X.min() == -1.0 and X.max() == 1.0
    assert (tmp_path / "data" / "codrna.pm1.shuffled.scale0.05.libsvm").exists()
    assert (out / "core.md").read_text().count("| perceptron_codrna |") == 1


FAKE_KOL = """#!{python}
import sys
args = sys.argv[1:]
rows = sum(1 for _ in open(args[args.index("-i") + 1]))
print("Algorithm: " + args[args.index("-opt") + 1])
print("#Training Instances:%d" % rows)
print("Learn acuracy: 75.000000%")
print("#SV:%d" % (rows // 2))
print("Learning time: 0.010000 s")
"""


def test_bench_core_vs_cpp_pairs_and_the_reader_hook(tmp_path, monkeypatch):
    """--vs-cpp runs olk and the library's executable in alternating pairs, cold and warm, on the same file
    (a stand-in executable that prints the library's lines); every process is a row of vs_cpp_runs.csv, with the
    load average of its pair and its own peak memory.  With --baseline too, another olk joins every pair."""
    try:
        load_dataset("codrna", split="train")
    except Exception as e:
        pytest.skip(str(e))
    kol = tmp_path / "bin" / "KOL"
    kol.parent.mkdir()
    kol.write_text(FAKE_KOL.format(python=sys.executable))
    kol.chmod(0o755)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "olk.cli", "bench", "core", "--cases", "bogd_codrna", "--scale", "0.02",
                        "--pairs", "2", "--no-limit", "--vs-cpp", str(tmp_path), "--out", str(out),
                        "--data-dir", str(tmp_path / "data")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "| bogd_codrna |" in r.stdout and "vs the C++ library" in r.stdout
    runs = list(csv.DictReader(open(out / "vs_cpp_runs.csv")))
    assert len(runs) == 8                                  # 2 pairs x (olk, C++) x (cold, warm)
    assert {(x["mode"], x["side"]) for x in runs} == {(m, s) for m in ("cold", "warm") for s in ("olk", "cpp")}
    firsts = [x["side"] for x in runs if x["position"] == "1" and x["mode"] == "cold"]
    assert sorted(firsts) == ["cpp", "olk"]                # the order alternates
    assert all(float(x["whole_s"]) > 0 and float(x["cpu_s"]) >= 0 and float(x["load1"]) >= 0 for x in runs)
    from olk.bench.core import _HAVE_TIME
    if _HAVE_TIME:                                         # each process's own peak: the stand-in is a bare python
        assert all(float(x["peak_mb"]) < float(y["peak_mb"]) for x in runs if x["side"] == "cpp"
                   for y in runs if y["side"] == "olk")
    r = subprocess.run([sys.executable, "-m", "olk.cli", "bench", "core", "--cases", "fogd_codrna", "--scale", "0.02",
                        "--pairs", "1", "--no-limit", "--vs-cpp", str(tmp_path), "--baseline", ".", "--max-load", "-1",
                        "--out", str(out), "--data-dir", str(tmp_path / "data")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "before -> after" in r.stdout and "(loaded)" in r.stdout and "FOGD: the library's FOGD" in r.stdout
    runs = list(csv.DictReader(open(out / "vs_cpp_runs.csv")))
    assert sorted(x["side"] for x in runs) == ["cpp", "cpp", "old", "old", "olk", "olk"]
    assert all(x["quiet"] == "False" for x in runs)       # --max-load -1: every pair marked

    # the reader line: olk.bench.reader.measure_reader when that module exists, the C++ parse beside it
    import types

    from olk.bench import core
    fake = types.ModuleType("olk.bench.reader")
    fake.measure_reader = lambda path, repeats: {"cold": {"MB/s": 1.5, "rows/s": 10.0}, "warm": {"MB/s": 3.0}}
    monkeypatch.setitem(sys.modules, "olk.bench.reader", fake)
    f = tmp_path / "data" / "codrna.pm1.shuffled.scale0.02.libsvm"
    lines = core.reader_lines({"codrna": f}, 1, None)
    assert lines == [f"reader {f.name}: cold: MB/s 1.5, rows/s 10.0; warm: MB/s 3.0"]
    monkeypatch.setitem(sys.modules, "olk.bench.reader", None)          # not importable: no line
    assert core.reader_lines({"codrna": f}, 1, None) == []


@pytest.mark.parametrize("args, msg", [
    (["bench", "nope"], "unknown suite 'nope'"),
    (["bench", "core", "--cases", "percep"], "unknown case 'percep' (did you mean 'perceptron_a9a'?)"),
    (["bench", "core", "--repeats", "0"], "--repeats must be >= 1"),
    (["bench", "core", "--pairs", "0"], "--pairs must be >= 1"),
    (["bench", "core", "--vs-cpp", "/nonexistent/KOL"], "--vs-cpp /nonexistent/KOL: no executable KOL there"),
    (["bench", "core", "--baseline", "/nonexistent"], "--baseline /nonexistent: not an olk checkout"),
    (["bench", "multi", "--baseline", "/nonexistent"], "--baseline /nonexistent: not an olk checkout"),
    (["bench", "klr", "--baseline", "/nonexistent"], "--baseline /nonexistent: not an olk checkout"),
    (["bench", "multi", "--baseline", ".", "--rounds", "0"], "--rounds must be >= 1"),
    (["bench", "multi", "--bogus"], "olk bench multi: unrecognized arguments: --bogus"),
    (["bench", "canon", "--scale", "2"], "--scale must be in (0, 1]"),
    (["bench", "river", "--models", "perceptron,nope"], "--models 'nope' is not an olk.river learner"),
    (["bench", "river", "--rounds", "0"], "--rounds and --repeats must be >= 1"),
    (["bench", "ecosystem", "--rounds", "0"], "--rounds must be >= 1"),
])
def test_bench_bad_options_are_one_line(args, msg):
    r = subprocess.run([sys.executable, "-m", "olk.cli", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("olk: error: ") and msg in lines[0], r.stderr


def test_bench_canon_runs_every_learner_at_spas_budget():
    """`olk bench canon` (issue 28): FOGD, NOGD and the three BSGDs run at SPA's #SV on a9a; no time asserted."""
    r = subprocess.run([sys.executable, "-m", "olk.cli", "bench", "canon", "--scale", "0.02", "--repeats", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    head, *rows = r.stdout.strip().splitlines()
    budget = int(head.split("B = SPA's #SV = ")[1].split(",")[0])
    table = {line.split()[0]: line.split() for line in rows[1:]}
    assert list(table) == ["SPA", "FOGD", "NOGD", "BSGD-remove", "BSGD-project", "BSGD-merge"]
    assert int(table["FOGD"][5].replace(",", "")) == 4 * budget                  # D = 4B
    for label in ("SPA", "NOGD", "BSGD-remove", "BSGD-project", "BSGD-merge"):
        assert int(table[label][5].replace(",", "")) == budget                     # the same #SV
    assert all(50 < float(table[label][4]) <= 100 for label in table)            # accuracies, not garbage


def test_bench_river_runs_paired_against_pa():
    """`olk bench river` (issue 35): olk's Perceptron next to River's PAClassifier on Phishing; no time asserted."""
    pytest.importorskip("river")
    r = subprocess.run([sys.executable, "-m", "olk.cli", "bench", "river", "--rounds", "1", "--repeats", "1",
                        "--models", "perceptron"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = {line.split()[1]: line.split() for line in r.stdout.splitlines() if line.startswith(("river ", "olk "))}
    assert set(rows) == {"PAClassifier", "KernelPerceptronClassifier"} and rows["PAClassifier"][-1] == "1.00"
    assert 0.5 < float(rows["KernelPerceptronClassifier"][3]) <= 1.0           # the accuracy column: it learned


def test_bench_ecosystem_quick_writes_one_table_per_dataset(tmp_path, capsys):
    """`olk bench ecosystem --quick` (issue 35): olk's models next to River's and scikit-learn's on every bundled
    dataset, one table each, every number finite; no time asserted."""
    pytest.importorskip("river")
    import math

    from olk.bench import ecosystem as eco
    eco.main(["--quick", "--out", str(tmp_path)])
    rows = list(csv.DictReader(open(tmp_path / "ecosystem.csv")))
    sets = {("river", n): t for n, t in eco.RIVER_SETS} | {("sklearn", n): t for n, t in eco.SKLEARN_SETS}
    assert {(r["side"], r["dataset"]) for r in rows} == set(sets)
    for (side, name), task in sets.items():
        got = [r for r in rows if (r["side"], r["dataset"]) == (side, name)]
        olk_ids = (eco.OLK_RIVER if side == "river" else eco.OLK_SKLEARN)[task]
        assert [r["registry_id"] for r in got if r["registry_id"]] == list(olk_ids)
        assert len(got) > len(olk_ids)                                         # the library's own baselines too
        assert all(int(r["examples"]) == eco.QUICK_EXAMPLES and r["rounds"] == "1" for r in got)
        keys = ["mae" if task == "regression" else "accuracy",
                *(["examples_per_s"] if side == "river" else ["fit_ms", "predict_ms"]),
                *(["rocauc"] if task == "binary" else []),
                *(["logloss"] if (side, task) == ("river", "binary") else [])]
        assert all(math.isfinite(float(r[k])) for r in got for k in keys), (side, name)
        if task != "regression":
            assert all(0.0 <= float(r["accuracy"]) <= 1.0 for r in got)
    md = (tmp_path / "ecosystem.md").read_text(encoding="utf-8").splitlines()
    assert md[0].startswith("olk bench ecosystem: 1 round(s)") and "load average (1/5/15 min) before" in md[0]
    assert "river 0." in md[0] and "scikit-learn " in md[0]
    assert sum(ln.startswith("### ") for ln in md) == len(sets)
    assert sum(ln.startswith("| olk ") for ln in md) == sum(r["registry_id"] != "" for r in rows)
    assert capsys.readouterr().out.count("### ") == len(sets)

