"""The memory guard (olk/experiment/memory.py): an experiment whose estimated peak memory exceeds the limit is
refused before its runs start, with one line; the estimate is an upper bound within a small factor of the peak
a real run reaches (ru_maxrss of a subprocess)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _cli import run_cli, use_bundled_data

from olk import units
from olk.errors import ConfigError
from olk.experiment import memory

REPO = Path(__file__).resolve().parents[1]
CFG = ("name: m\nrepeats: 2\nkernel: {type: gaussian, gamma: 0.4}\ndatasets: [a9a-small, codrna-small]\n"
       "algorithms:\n  - perceptron\n  - {name: pa1, tune: {C: [0.5, 1]}}\n"
       "  - {name: projectron, params: {budget: {match: pa1, stat: n_sv}, eta: 0}}\n")


@pytest.fixture(autouse=True)
def _data(monkeypatch, tmp_path):
    use_bundled_data(monkeypatch)
    (tmp_path / "c.yaml").write_text(CFG)


_run = run_cli


def test_a_config_over_a_tiny_limit_is_refused_with_one_line(tmp_path, capsys):
    code, out, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                           "--memory-limit", "20M"], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and out == "" and len(lines) == 1, err
    line = lines[0]
    assert line.startswith("olk: error: memory guard: the 4 tuning runs of m would need about ")
    assert "the largest, " in line and " on a9a-small" in line and "up to 2,000 SVs" in line
    assert "over the limit of 20 MB (--memory-limit 20M)" in line and "--memory-limit SIZE" in line
    assert not (tmp_path / "o" / "runs.jsonl").exists() or (tmp_path / "o" / "runs.jsonl").read_text() == ""


def test_the_limit_from_the_config_and_switched_off(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text(CFG + "memory_limit: 1M\n")
    code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q"], capsys)
    assert code == 2 and "over the limit of 1.0 MB (memory_limit: 1048576)" in err
    code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q", "--force",
                         "--memory-limit", "0"], capsys)
    assert code == 0, err                       # 0 = no limit; the option overrides the config
    recs = [json.loads(x) for x in (tmp_path / "o" / "runs.jsonl").read_text().splitlines()]
    assert {r["label"] for r in recs} == {"perceptron", "pa1", "projectron"}


def test_matched_budgets_are_checked_once_known(tmp_path, capsys):
    """Projectron's K^-1 grows with B^2: with B matched to PA-I's #SV it is checked before its own stage, and the
    runs of the earlier stages are kept (rerun with --resume and a higher limit to continue)."""
    code, _, err = _run(["run", tmp_path / "c.yaml", "--out", tmp_path / "o", "--no-progress", "-q",
                         "--memory-limit", "110M"], capsys)
    assert code == 2 and "memory guard: the 4 runs of m" in err and "the largest, projectron on" in err, err
    recs = [json.loads(x) for x in (tmp_path / "o" / "runs.jsonl").read_text().splitlines()]
    assert {r["label"] for r in recs} == {"perceptron", "pa1"}


def test_parse_size():
    assert units.parse_size("12G", "x") == 12 * 2**30
    assert units.parse_size("500M", "x") == 500 * 2**20
    assert units.parse_size("1.5T", "x") == int(1.5 * 2**40)
    assert units.parse_size("64KiB", "x") == 64 * 1024
    assert units.parse_size(123456, "x") == 123456
    assert units.parse_size("none", "x") == units.parse_size("0", "x") == 0
    assert units.parse_size("50%", "x") == units.physical_memory() // 2
    for bad in ("12Q", "-1G", "150%", True, "G"):
        with pytest.raises(ConfigError, match="^x: "):
            units.parse_size(bad, "x")


def test_default_limit_is_a_fraction_of_the_machine():
    limit, source = memory.resolve_limit(None, None)
    total = units.physical_memory()
    assert total > 0 and limit == int(0.8 * total) and "0.8 of the machine's" in source


# the script's own memory.check records every estimate the runner makes
RECORD = """
from olk.experiment import memory
from olk.experiment import runner as runner_mod
seen = []
real = memory.check
def check(specs, data, **kw):
    seen.append(real(specs, data, **kw))
    return seen[-1]
runner_mod.memory.check = check
"""
MEASURE = RECORD + textwrap.dedent("""
    import json, sys
    import numpy as np
    from olk.experiment import memory, parse_config, Runner
    from olk.experiment import runner as runner_mod
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 2000)) / 40.0        # 48 MB dense; random labels: about half become SVs
    y = np.where(rng.random(3000) < 0.5, -1.0, 1.0)
    runner_mod.prepare_data = lambda cfg, unavailable, **kw: {"a9a-small": (X, y)}
    cfg = parse_config({"name": "m", "repeats": 1, "datasets": ["a9a-small"], "algorithms": ["perceptron"],
                        "kernel": {"type": "gaussian", "gamma": 0.001}})
    Runner(cfg, sys.argv[1], n_jobs=1, progress=False, log=lambda m: None).run()
    est = max(e["total"] for e in seen if e)
    n_sv = json.loads(open(sys.argv[1] + "/runs.jsonl").readline())["n_sv"]
    print(json.dumps({"estimate": est, "n_sv": n_sv}))
""")

# ru_maxrss of a process started by a large one (pytest, hundreds of MB after the whole suite) starts from its
# parent's size (Linux keeps the high-water mark across fork + exec), so a small launcher starts the measured
# run and reports the run's own ru_maxrss (RUSAGE_CHILDREN)
LAUNCH = textwrap.dedent("""
    import json, resource, subprocess, sys
    r = subprocess.run([sys.executable, "-c", *sys.argv[1:]], capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stderr)
    got = json.loads(r.stdout.strip().splitlines()[-1])
    got["maxrss"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(json.dumps(got))
""")


def test_estimate_is_an_upper_bound_within_a_small_factor_of_the_measured_peak(tmp_path):
    env = {**os.environ, "OLK_DATA": str(REPO / "datasets")}
    r = subprocess.run([sys.executable, "-c", LAUNCH, MEASURE, str(tmp_path / "o")], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    ratio = got["maxrss"] / got["estimate"]
    print(f"measured {got['maxrss'] / 2**20:.0f} MB, estimated {got['estimate'] / 2**20:.0f} MB, "
          f"ratio {ratio:.2f}, {got['n_sv']} SVs")
    assert 1000 < got["n_sv"] < 3000
    assert 0.4 < ratio <= 1.0, got


COLD = RECORD + textwrap.dedent("""
    import json, sys
    from olk.experiment import memory, parse_config, Runner
    from olk.experiment import runner as runner_mod
    cfg = parse_config({"name": "m", "repeats": 1, "datasets": [sys.argv[2]], "kernel": {"type": "gaussian",
                        "gamma": 0.05}, "algorithms": [{"name": "rbp", "params": {"budget": 100}}]})
    r = Runner(cfg, sys.argv[1], n_jobs=1, progress=False, log=lambda m: None)
    r.run()
    print(json.dumps({"estimate": max(e["total"] for e in seen if e), "loads": r.loads}))
""")


def test_on_a_cold_cache_the_estimate_covers_the_conversion_and_the_run(tmp_path):
    """`olk run` on a new large file of your own (a cold cache): the text is converted to the cache in blocks, then
    the run reads the memory-mapped rows; the estimate bounds the peak of the whole process from above, within 2x
    (ru_maxrss of a fresh process)."""
    from olk.bench.stream import write_data
    from olk.data.loader import STREAM_MIN
    data = write_data(tmp_path / "big.libsvm", 250_000, features=20)     # ~55 MB of text, 40 MB of arrays
    assert data.stat().st_size >= STREAM_MIN
    env = {**os.environ, "OLK_CACHE": str(tmp_path / "cold-cache")}
    r = subprocess.run([sys.executable, "-c", LAUNCH, COLD, str(tmp_path / "o"), str(data)], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"cold cache: measured {got['maxrss'] / 2**20:.0f} MB, estimated {got['estimate'] / 2**20:.0f} MB")
    assert got["loads"] == {str(data): "blocks"}
    assert got["estimate"] / 2 <= got["maxrss"] <= got["estimate"], got
