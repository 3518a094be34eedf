"""Issue 48: every run record names the commit that computed it, records without one are refused, ``olk verify``
reruns a results directory at this commit and compares bit for bit, and tools/backfill_run_commits.py attributes
committed records from git history."""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _cli import REPO, one_error_line, run_cli, use_bundled_data

from olk.experiment.runner import git_state, machine_info
from olk.experiment.verify import differing_fields, sample_ids

#: a quick experiment with every kind of run a plan has: a tuned entry (pa1), an entry that matches another's
#: statistic (rbp's budget: SPA's mean #SV), a plain one; --set on the command line (spa.eta)
CONFIG = """name: vt
seed: 7
repeats: 2
scale: 0.5
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms:
  - name: perceptron
  - name: pa1
    tune: {C: [0.5, 1]}
  - name: spa
    params: {alpha: 1, beta: 5}
  - name: rbp
    params: {budget: {match: spa, stat: n_sv}}
"""
N_RUNS = 10             # perceptron 2, pa1 2 + 2 tuning, spa 2, rbp 2


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """(config, a results directory olk run wrote with --set), made once."""
    tmp = tmp_path_factory.mktemp("verify")
    cfg = tmp / "vt.yaml"
    cfg.write_text(CONFIG)
    argv = ["run", str(cfg), "--out", str(tmp / "out"), "-q", "-j", "1", "--set", "spa.eta=0.5"]
    mp = pytest.MonkeyPatch()
    use_bundled_data(mp)
    mp.setattr(sys, "argv", ["olk", *argv])         # the command line experiment.json records (olk verify reads it)
    try:
        from olk.cli import main
        main(argv)
    finally:
        mp.undo()
    return cfg, tmp / "out"


@pytest.fixture
def results(finished, tmp_path, monkeypatch):
    """A copy of the finished directory to change or verify."""
    use_bundled_data(monkeypatch)
    dst = tmp_path / "out"
    shutil.copytree(finished[1], dst)
    return dst


def _records(d: Path) -> list[dict]:
    return [json.loads(line) for line in (d / "runs.jsonl").read_text().splitlines()]


def _write(d: Path, recs: list[dict]) -> None:
    (d / "runs.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in recs))


def _verified(d: Path) -> dict:
    return json.loads((d / "verified.json").read_text())["verifications"][-1]


# ------------------------------------------------------------------------------------------ every record: its commit
def test_every_record_of_a_run_names_the_commit_of_the_tree_that_ran_it(finished):
    recs = _records(finished[1])
    commit, dirty = git_state()
    assert len(recs) == N_RUNS and {r["phase"] for r in recs} == {"tune", "main"}
    assert all(r["commit"] == commit and r["dirty"] is dirty and "commit_from" not in r for r in recs)
    assert commit is None or (len(commit) == 12 and int(commit, 16) >= 0)
    # ... and the machine that computed it, so a resumed table's times name each run's own machine
    assert {r["machine"] for r in recs} == {machine_info()}


def test_a_record_whose_machine_is_not_a_description_is_refused():
    from olk.fileio import provenance_problem
    assert provenance_problem({"commit": "848f847cfcae", "dirty": False, "machine": "Xeon, 2 cores"}) is None
    assert provenance_problem({"commit": "848f847cfcae", "dirty": False, "machine": None}) is None
    assert provenance_problem({"commit": "848f847cfcae", "dirty": False, "machine": 3}) == \
        "its 'machine' is 3, not a description of a machine"
    assert "not a description" in provenance_problem({"commit": "848f847cfcae", "dirty": False, "machine": ""})


def test_a_record_without_its_commit_is_refused_in_one_line(results, finished, capsys):
    recs = _records(results)
    del recs[1]["commit"]
    _write(results, recs)
    rid = recs[1]["run_id"]
    for argv in (["table", results], ["verify", results], ["run", finished[0], "--out", results, "--resume", "-q"]):
        code, _, err = run_cli(argv, capsys)
        one_error_line(code, err.splitlines(), f"{results / 'runs.jsonl'}: line 2: run {rid} does not record the "
                       "commit that computed it", "tools/backfill_run_commits.py", "--force")


def test_a_record_read_back_is_checked_for_every_metric_runs_csv_may_show():
    from olk.experiment.store import TASK_COLUMNS
    from olk.fileio import RECORD_FIELDS, record_problem
    assert set(TASK_COLUMNS) <= set(RECORD_FIELDS)
    rec = {"run_id": "a", "phase": "main", "dataset": "d", "label": "l"}
    assert record_problem({**rec, "commit": "0123456789ab", "dirty": False}) is None
    assert record_problem({**rec, "commit": None, "dirty": None}) is None         # outside a git checkout
    assert "'commit'" in record_problem({**rec, "commit": "HEAD", "dirty": False})
    assert "'dirty'" in record_problem({**rec, "commit": "0123456789ab", "dirty": "no"})
    assert "'commit_from'" in record_problem({**rec, "commit": "0123456789ab", "dirty": True, "commit_from": "x"})


def test_the_provenance_keys_are_no_part_of_what_is_compared():
    rec = {"run_id": "a", "accuracy": 90.0, "time_s": 1.0, "curve": {"t": [1], "mistake_rate": [0.0]},
           "summary": {"select_time_s": 2.0, "k": 1}, "test_curve": {"t": [1], "train_time_s": [0.1]},
           "commit": "0123456789ab", "dirty": False}
    other = {**rec, "time_s": 9.0, "summary": {"select_time_s": 5.0, "k": 1}, "test_curve": {"t": [1],
             "train_time_s": [7.0]}, "commit": "ba9876543210", "dirty": True, "commit_from": "history"}
    ignored: set = set()
    assert differing_fields(rec, other, ignored) == []
    assert ignored == {"time_s", "commit", "dirty", "commit_from", "summary.select_time_s",
                       "test_curve.train_time_s"}
    assert differing_fields(rec, {**rec, "accuracy": 90.00000000000001}) == ["accuracy"]     # one ulp
    assert differing_fields(rec, {**rec, "curve": {"t": [1], "mistake_rate": [-0.0]}}) == ["curve"]
    assert differing_fields({**rec, "mse": float("nan")}, {**rec, "mse": float("nan")}) == []
    assert differing_fields(rec, {k: v for k, v in rec.items() if k != "accuracy"}) == ["accuracy"]
    ignored = set()
    assert differing_fields(rec, {**rec, "task": "binary"}, ignored) == []     # written into records later
    assert "task (not in the record)" in ignored


# ------------------------------------------------------------------------------------------------------- olk verify
def test_olk_verify_of_an_untouched_directory_finds_every_run_identical(results, capsys, monkeypatch):
    before = {p.name: p.read_bytes() for p in results.iterdir()}
    monkeypatch.setattr(sys, "argv", ["olk", "verify", str(results)])
    code, out, err = run_cli(["verify", results], capsys)
    assert code == 0, err
    commit, dirty = git_state()
    assert out.splitlines()[-1].startswith(f"verified bit-identical at {commit}{' (dirty)' if dirty else ''} on ")
    assert out.splitlines()[-1].endswith(f": {N_RUNS} of {N_RUNS} runs")
    assert ("a verification at a dirty tree does not count as verified at a clean commit" in err) is bool(dirty)
    entry = _verified(results)
    assert list(entry) == ["commit", "dirty", "date", "olk_version", "command", "sample", "sample_seed",
                           "runs_total", "runs_checked", "identical", "differing", "ignored_fields", "wall_s"]
    assert (entry["commit"], entry["dirty"], entry["sample"], entry["runs_total"], entry["runs_checked"],
            entry["identical"], entry["differing"]) == (commit, dirty, None, N_RUNS, N_RUNS, N_RUNS, [])
    assert entry["ignored_fields"] == ["time_s", "commit", "dirty", "commit_from", "machine"]
    assert entry["command"] == f"olk verify {results}"
    after = {p.name: p.read_bytes() for p in results.iterdir()}
    assert set(after) - set(before) == {"verified.json"} and all(after[k] == v for k, v in before.items())
    run_cli(["verify", results, "--sample", "2"], capsys)          # a second entry is appended
    assert len(json.loads((results / "verified.json").read_text())["verifications"]) == 2


def test_olk_verify_names_a_changed_accuracy_and_a_changed_curve_value(results, capsys):
    recs = _records(results)
    main = [r for r in recs if r["phase"] == "main"]
    main[0]["accuracy"] += 1e-12
    main[3]["curve"]["mistake_rate"][4] *= 1 + 2 ** -52           # one value of the learning curve, by an ulp
    _write(results, recs)
    code, out, err = run_cli(["verify", results], capsys)
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0] == (f"differs: {main[0]['run_id']} {main[0]['label']} on a9a-small, permutation "
                        f"{main[0]['perm']}: accuracy")
    assert lines[1].startswith(f"differs: {main[3]['run_id']} ") and lines[1].endswith(": curve")
    assert lines[2].startswith(f"2 of the {N_RUNS} runs differ at ")
    entry = _verified(results)
    assert entry["identical"] == N_RUNS - 2
    assert [(d["run_id"], d["fields"]) for d in entry["differing"]] == [(main[0]["run_id"], ["accuracy"]),
                                                                       (main[3]["run_id"], ["curve"])]


def test_a_renamed_config_or_display_name_is_no_difference(results, capsys):
    """The config's name and the display names name a run (--resume does not compare them): a directory computed
    under another config name verifies, and says so in ignored_fields; a result field still differs."""
    recs = _records(results)
    for r in recs:
        r["experiment"], r["display"] = "old_name", r["display"] + " (old)"
    _write(results, recs)
    code, out, err = run_cli(["verify", results], capsys)
    assert code == 0, out + err
    assert {"experiment (a name, not a result)", "display (a name, not a result)"} <= \
        set(_verified(results)["ignored_fields"])


def test_a_parameter_declared_since_at_its_old_value_is_the_same_run(results, capsys, monkeypatch):
    """A learner that gained a parameter after the directory was written plans its runs under new ids (the id
    hashes every parameter): at the value that keeps the old behaviour (Param.before) they are the same runs,
    compared as such; at another value they are not planned."""
    import dataclasses

    from olk.algorithms import registry
    cls = registry.REGISTRY["perceptron"]
    added = registry.Param("zz_added", 1.0, "a parameter declared after the runs (test)")
    monkeypatch.setattr(cls, "params", (*cls.params, added))
    code, out, err = run_cli(["verify", results], capsys)
    assert code == 0, out + err
    entry = _verified(results)
    assert entry["identical"] == N_RUNS and "run_id (a parameter added since)" in entry["ignored_fields"]
    monkeypatch.setattr(cls, "params", (*cls.params[:-1], dataclasses.replace(added, legacy=2.0)))
    code, out, err = run_cli(["verify", results], capsys)           # 1.0 is no longer the old behaviour
    assert code == 1
    assert [d["fields"] for d in _verified(results)["differing"]] == [["(not planned)"]] * 2     # perceptron's 2


def test_runs_not_checked_under_a_new_id_are_looked_up_not_computed(results, capsys, monkeypatch):
    """Every learner gained a parameter: a sample's tuning runs and matched runs, planned under new ids, are the
    directory's records (looked up), not computed again as runs the directory lacks."""
    from olk.algorithms import registry
    for name in ("perceptron", "pa1", "spa", "rbp"):
        cls = registry.REGISTRY[name]
        monkeypatch.setattr(cls, "params", (*cls.params, registry.Param("zz_added", 1.0, "declared later (test)")))
    for seed in range(3):
        code, out, err = run_cli(["verify", results, "--sample", "2", "--seed", str(seed)], capsys)
        assert code == 0, out + err
        assert "the plan needed are not in" not in out, out


def test_the_sample_is_deterministic_and_the_runs_sampled_are_the_runs_checked(results, capsys):
    ids = [f"{i:016x}" for i in range(40)]
    assert sample_ids(ids, 5, 0) == sample_ids(list(ids), 5, 0) != sample_ids(ids, 5, 1)
    assert set(sample_ids(ids, 5, 0)) < set(sample_ids(ids, 9, 0)) and sample_ids(ids, 99, 0) == ids
    recs = _records(results)
    for r in recs:
        if r["phase"] == "main":
            r["n_sv"] += 1                   # every main run differs: the differing runs are the main runs checked
    _write(results, recs)
    rows = [r["run_id"] for r in recs]
    sampled = sample_ids(rows, 4, 3)
    code, out, _ = run_cli(["verify", results, "--sample", "4", "--seed", "3"], capsys)
    entry = _verified(results)
    assert (entry["sample"], entry["sample_seed"], entry["runs_checked"]) == (4, 3, 4)
    main = {r["run_id"] for r in recs if r["phase"] == "main"}
    assert [d["run_id"] for d in entry["differing"]] == [r for r in sampled if r in main]
    assert code == (1 if entry["differing"] else 0)


def test_a_sampled_main_run_is_planned_from_the_recorded_tuning_runs(results, capsys):
    """Change pa1's tuning records so that the other C wins: a sample of pa1's main runs alone takes the recorded
    choice, which no longer plans them; checking every run reruns the tuning too and finds the change there."""
    recs = _records(results)
    tune = [r for r in recs if r["phase"] == "tune"]
    loser = min(tune, key=lambda r: r["accuracy"])
    loser["accuracy"] = 100.0
    _write(results, recs)
    pa1 = next(r["run_id"] for r in recs if r["phase"] == "main" and r["label"] == "pa1")
    seed = next(s for s in range(1000) if sample_ids([r["run_id"] for r in recs], 1, s) == [pa1])
    code, out, _ = run_cli(["verify", results, "--sample", "1", "--seed", seed], capsys)
    assert code == 1 and out.splitlines()[0].endswith(": (not planned)"), out
    code, out, _ = run_cli(["verify", results], capsys)
    assert code == 1 and [d["run_id"] for d in _verified(results)["differing"]] == [loser["run_id"]], out


def test_the_recorded_command_gives_its_set_values_and_sweeps():
    from olk.cli import recorded_options
    opts = recorded_options("olk --plugin m run c.yaml -d a,b --set spa.eta=0.5 --set beta=5 -j 2", Path("d"))
    assert (opts.sets, opts.sweep) == ({"spa.eta": [0.5], "beta": [5]}, False)
    opts = recorded_options("olk sweep c.yaml --beta 5,10 --set spa.alpha=1,2 -q", Path("d"))
    assert (opts.sets, opts.sweep) == ({"spa.alpha": [1, 2], "beta": [5, 10]}, True)
    assert recorded_options(None, Path("d")).sets == {}


# ---------------------------------------------------------------------------------- the backfill from git history
def _tool():
    spec = importlib.util.spec_from_file_location("backfill_run_commits", REPO / "tools" / "backfill_run_commits.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod                 # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                   cwd=repo, check=True, capture_output=True)


def _rec(rid: str, t: float, dataset: str = "d1") -> dict:
    return {"run_id": rid, "phase": "main", "dataset": dataset, "label": "l", "experiment": "x", "scale": 1.0,
            "perm": 0, "time_s": t, "accuracy": 50.0}


def _commit(repo: Path, recs: list[dict] | None, meta: dict | None, message: str, where: str = "results/x") -> str:
    """Commit runs.jsonl (`recs`) and experiment.json (`meta`) as given (None: unchanged), or with neither a change
    of the code (code.txt); return the 12 hex digits of the commit."""
    d = repo / where
    d.mkdir(parents=True, exist_ok=True)
    if recs is not None:
        (d / "runs.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in recs))
    if meta is not None:
        (d / "experiment.json").write_text(json.dumps(meta))
    if recs is None and meta is None:
        (repo / "code.txt").write_text(message)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout[:12]


def _meta(commit: str, command: str, wall: int | None, started: str = "10:00:00") -> dict:
    """experiment.json of an invocation started on 2026-01-01 at `started`, finished `wall` s later (None: running)."""
    start = f"2026-01-01T{started}"
    end = None if wall is None else f"2026-01-01T{int(started[:2]) + wall // 3600:02d}:{wall % 3600 // 60:02d}:" \
                                    f"{wall % 60:02d}"
    return {"name": "x", "scale": 1.0, "git_commit": commit, "command": command, "n_jobs": 1, "started": start,
            "finished": end}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_backfill_attributes_each_run_to_the_invocation_that_brought_it(tmp_path, capsys):
    tool, repo = _tool(), tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    a, b, c, d, e, f, g, h, i, j = (_rec(r, 1.0) for r in "abcdefghij")
    A = _commit(repo, None, None, "code A")
    _commit(repo, [a, b], _meta(A, "olk run c.yaml --force", 60), "first invocation")
    B = _commit(repo, None, None, "code B")
    _commit(repo, [a, b, c], _meta(B + "-dirty", "olk run c.yaml --resume", 60, "11:00:00"), "a resume, dirty tree")
    _commit(repo, [a, b, c, d], None, "a run committed without its experiment.json")
    C = _commit(repo, None, None, "code C")
    a2 = {**a, "time_s": 2.0}                                     # a computed again (--force): a new record
    _commit(repo, [a2, b, c, d], _meta(C, "olk run c.yaml --force", 60, "12:00:00"), "computed again")
    e2 = _rec("e", 1.0, dataset="d2")
    _commit(repo, [a2, b, c, d, e2], _meta(C, "olk run c.yaml -d d1 --resume", 60, "13:00:00"), "outside -d")
    f2 = {**f, "time_s": 500.0}
    _commit(repo, [a2, b, c, d, e2, f2], _meta(C, "olk run c.yaml --resume", 2, "14:00:00"), "2 s for 500 s")
    runs = [a2, b, c, d, e2, f2]
    # HEAD moves during a run: its experiment.json names the start's commit, then the finish's
    _commit(repo, runs + [g], _meta(C, "olk run c.yaml --resume", None, "15:00:00"), "running, at C")
    D = _commit(repo, None, None, "code D, committed during the run")
    _commit(repo, runs + [g, h], _meta(D, "olk run c.yaml --resume", 60, "15:00:00"), "finished, at D")
    # a commit renamed by a history rewrite, and a later commit mapping it to its new name
    _commit(repo, runs + [g, h, i], _meta("0123456789ab", "olk run c.yaml --resume", 60, "16:00:00"), "gone")
    _commit(repo, None, _meta(B, "olk run c.yaml --resume", 60, "16:00:00"), "0123456789ab mapped to B")
    _commit(repo, runs + [g, h, i, j], _meta("ba9876543210", "olk run c.yaml --resume", 60, "17:00:00"), "unknown")
    _git(repo, "mv", "results/x", "results/y")                    # a directory renamed keeps its history
    _git(repo, "commit", "-q", "-m", "rename")
    found, counts = tool.attribute(repo, "results/y")
    assert {rid: v for rid, v in found.items()} == {
        "a": (C, False, "history", None), "b": (A, False, "history", None), "c": (B, True, "history", None),
        "d": (B, True, "history-ambiguous", "not-updated"),       # experiment.json not updated with it
        "e": (C, False, "history-ambiguous", "subset"),           # its dataset was not in that invocation's -d
        "f": (C, False, "history-ambiguous", "too-long"),         # more learner time than the invocation took
        "g": (C, False, "history", None), "h": (C, False, "history", None),      # the tree the run started from
        "i": (B, False, "history", None),                         # the gone commit's new name
        "j": ("ba9876543210", False, "history-ambiguous", "unknown-commit")}
    assert (counts.history, counts.ambiguous, counts.unattributed) == (6, 4, 0)
    before = (repo / "results/y/runs.jsonl").read_text()
    assert tool.main(["--dry-run", str(repo / "results/y")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "results/y: 6 history, 4 history-ambiguous (not-updated 1, " \
                                                      "subset 1, too-long 1, unknown-commit 1)"
    assert (repo / "results/y/runs.jsonl").read_text() == before
    tool.rewrite(repo, "results/y", found)
    recs = [json.loads(x) for x in (repo / "results/y/runs.jsonl").read_text().splitlines()]
    assert [(r["commit"], r["dirty"], r["commit_from"]) for r in recs] == [v[:3] for v in found.values()]
    assert tool.check(repo, "results/y") == []                    # every record minus the keys as committed
    assert tool.attribute(repo, "results/y")[1].kept == 10        # attributed records are left alone ...
    assert tool.attribute(repo, "results/y", again=True)[0] == found      # ... unless attributed again
    (repo / "results/y/runs.jsonl").write_text(before + json.dumps(_rec("k", 1.0)) + "\n")
    assert tool.attribute(repo, "results/y")[1].unattributed == 1     # not in the committed history
