"""--resume refuses results written with other settings (olk.experiment.fingerprint), unless --force.

Legitimate resumes keep working: an interrupted run with the same settings, --datasets/--algorithms
subsets (and entries added later), more or fewer repeats.  Old experiment.json files without a
fingerprint resume with a one-line warning.
"""
import json

import pandas as pd
import pytest

from olk.cli import main
from olk.errors import OlkError
from olk.experiment import Runner, load_config
from olk.experiment import runner as runner_mod
from olk.experiment.plan import restrict

CFG = """
name: rs
seed: 7
repeats: 2
scale: 0.5
checkpoints: 5
kernel: {type: gaussian, gamma: 0.4}
datasets:
  - a9a-small
  - german-small
algorithms:
  - perceptron
  - {name: pa1, params: {C: 1}}
  - {name: ogd, tune: {eta: [0.5, 0.1]}}
"""


@pytest.fixture
def cfg_path(tmp_path):
    p = tmp_path / "rs.yaml"
    p.write_text(CFG)
    return p


@pytest.fixture
def cfg(cfg_path):
    return load_config(cfg_path)


def _run(cfg, out, logs=None, **kw):
    return Runner(cfg, out, progress=False, log=(logs.append if logs is not None else (lambda m: None)), **kw).run()


def _count_runs(monkeypatch):
    calls = {"n": 0}
    real = runner_mod.execute_run

    def counting(spec, *a):
        calls["n"] += 1
        return real(spec, *a)

    monkeypatch.setattr(runner_mod, "execute_run", counting)
    return calls


def _set_pa1_c(c):
    c.algorithm("pa1").params["C"] = 2.0


def _set_override(c):
    c.datasets[0].params = {"pa1": {"C": 0.5}}


def _set_preprocess(c):
    c.datasets[1].preprocess = {"scale": "minmax11"}


CHANGES = [
    ("scale", lambda c: setattr(c, "scale", 0.25), "scale=0.5, this run has scale=0.25"),
    ("seed", lambda c: setattr(c, "seed", 8), "seed=7, this run has seed=8"),
    ("shuffle", lambda c: setattr(c, "shuffle", False), "shuffle=true, this run has shuffle=false"),
    ("checkpoints", lambda c: setattr(c, "checkpoints", 6), "checkpoints=5, this run has checkpoints=6"),
    ("kernel", lambda c: setattr(c, "kernel", {"type": "gaussian", "gamma": 0.5}),
     "kernel.gamma=0.4, this run has kernel.gamma=0.5"),
    ("param", _set_pa1_c, "algorithms[pa1].params.C=1.0, this run has algorithms[pa1].params.C=2.0"),
    ("grid", lambda c: c.algorithm("ogd").tune.update(eta=[0.5, 0.2]),
     "algorithms[ogd].tune.eta=[0.5, 0.1], this run has algorithms[ogd].tune.eta=[0.5, 0.2]"),
    ("dataset-params", _set_override,
     "datasets[a9a-small].params.pa1.C=(unset), this run has datasets[a9a-small].params.pa1.C=0.5"),
    ("dataset-preprocess", _set_preprocess,
     "datasets[german-small].preprocess.scale=(unset), this run has datasets[german-small].preprocess.scale=minmax11"),
]


@pytest.mark.parametrize("what,change,message", CHANGES, ids=[c[0] for c in CHANGES])
def test_resume_with_a_different_setting_is_refused_naming_it(tmp_path, cfg_path, what, change, message):
    out = tmp_path / "o"
    _run(load_config(cfg_path), out)
    log_before = (out / "runs.jsonl").read_text()
    meta_before = (out / "experiment.json").read_text()
    other = load_config(cfg_path)
    change(other)
    with pytest.raises(OlkError) as e:
        _run(other, out, resume=True)
    msg = str(e.value)
    assert message in msg and "\n" not in msg
    assert msg.startswith(f"{out} was written with ") and "pass --force to start over" in msg
    # nothing was run or rewritten
    assert (out / "runs.jsonl").read_text() == log_before
    assert (out / "experiment.json").read_text() == meta_before


def test_refusal_hints_the_option_that_restores_scale_and_seed(tmp_path, cfg):
    out = tmp_path / "o"
    _run(cfg, out)
    cfg.scale, cfg.seed = 0.25, 9
    with pytest.raises(OlkError) as e:
        _run(cfg, out, resume=True)
    assert str(e.value).endswith("or rerun with --scale 0.5 and seed: 7 in the config")


def test_results_of_another_olk_version_are_refused(tmp_path, cfg):
    out = tmp_path / "o"
    _run(cfg, out)
    meta = json.loads((out / "experiment.json").read_text())
    meta.setdefault("settings", {})["olk_version"] = "0.0.1"
    (out / "experiment.json").write_text(json.dumps(meta))
    with pytest.raises(OlkError, match=r"olk_version=0\.0\.1, this run has olk_version="):
        _run(cfg, out, resume=True)


def test_force_starts_over_with_the_new_settings(tmp_path, cfg_path):
    out = tmp_path / "o"
    _run(load_config(cfg_path), out)
    other = load_config(cfg_path)
    other.scale = 0.25
    _run(other, out, resume=True, force=True)
    recs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert {r["scale"] for r in recs} == {0.25}
    meta = json.loads((out / "experiment.json").read_text())
    assert meta["settings"]["scale"] == 0.25
    # the directory now belongs to the new settings: the old ones are the ones refused
    with pytest.raises(OlkError, match="scale=0.25, this run has scale=0.5"):
        _run(load_config(cfg_path), out, resume=True)


def _cli(args) -> int:
    try:
        main(args + ["-q", "--no-progress"])
    except SystemExit as e:
        return e.code or 0
    return 0


def test_cli_refusal_is_one_line_with_exit_status_2(tmp_path, cfg_path, capsys):
    out = tmp_path / "o"
    assert _cli(["run", str(cfg_path), "--out", str(out), "--scale", "0.5"]) == 0
    capsys.readouterr()
    assert _cli(["run", str(cfg_path), "--out", str(out), "--scale", "0.25", "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert f"{out} was written with scale=0.5, this run has scale=0.25" in err
    assert "--force" in err and "--scale 0.5" in err
    assert _cli(["run", str(cfg_path), "--out", str(out), "--scale", "0.25", "--resume", "--force"]) == 0


def test_same_settings_resume_after_interruption(tmp_path, cfg, monkeypatch):
    out = tmp_path / "o"
    real = runner_mod.execute_run
    calls = {"n": 0, "stop": 6}

    def flaky(spec, *a):
        calls["n"] += 1
        if calls["n"] == calls["stop"]:
            raise KeyboardInterrupt
        return real(spec, *a)

    monkeypatch.setattr(runner_mod, "execute_run", flaky)
    with pytest.raises(OlkError, match="--resume"):
        _run(cfg, out)
    assert len((out / "runs.jsonl").read_text().splitlines()) == 5
    assert json.loads((out / "experiment.json").read_text())["settings"]["scale"] == 0.5   # stored at the start
    calls.update(n=0, stop=None)
    logs = []
    _run(cfg, out, logs, resume=True)
    assert logs == []                                   # no warning, no refusal
    n_runs = 2 * (3 * 2 + 2)                            # 2 datasets x (3 entries x 2 perms + 2 tuning runs)
    assert calls["n"] == n_runs - 5
    assert len(pd.read_csv(out / "runs.csv")) == n_runs


def test_subsets_and_added_entries_resume_and_stay_checked(tmp_path, cfg):
    out = tmp_path / "o"
    _run(restrict(cfg, ["a9a-small"], ["perceptron"]), out)
    _run(restrict(cfg, None, ["pa1"]), out, resume=True)                    # other algorithm, both datasets
    _run(restrict(cfg, ["german-small"], None), out, resume=True)            # everything on one dataset
    main_runs = pd.read_csv(out / "runs.csv").query("phase == 'main'")
    assert set(zip(main_runs.dataset, main_runs.label)) == {("a9a-small", "perceptron"), ("a9a-small", "pa1"),
                                                            ("german-small", "perceptron"), ("german-small", "pa1"),
                                                            ("german-small", "ogd")}
    fp = json.loads((out / "experiment.json").read_text())["settings"]
    assert set(fp["algorithms"]) == {"perceptron", "pa1", "ogd"} and set(fp["datasets"]) == {"a9a-small",
                                                                                            "german-small"}
    # the fingerprint kept the first invocation's entries: changing pa1 and resuming only pa1 is refused
    changed = restrict(cfg, None, ["pa1"])
    changed.algorithm("pa1").params["C"] = 2.0
    with pytest.raises(OlkError, match=r"algorithms\[pa1\]\.params\.C=1\.0, this run has"):
        _run(changed, out, resume=True)


@pytest.mark.parametrize("repeats", [3, 1])
def test_more_or_fewer_repeats_resume(tmp_path, cfg, monkeypatch, repeats):
    out = tmp_path / "o"
    _run(cfg, out)
    calls = _count_runs(monkeypatch)
    cfg.repeats = repeats
    logs = []
    _run(cfg, out, logs, resume=True)
    assert logs == []
    main_runs = pd.read_csv(out / "runs.csv").query("phase == 'main'")
    assert set(main_runs.perm) == set(range(max(repeats, 2)))    # fewer repeats drop no row of the directory
    assert calls["n"] == 2 * 3 * max(repeats - 2, 0)     # only the new permutations ran
    assert json.loads((out / "experiment.json").read_text())["repeats"] == repeats
    # still checked after the extension
    cfg.seed = 8
    with pytest.raises(OlkError, match="seed=7, this run has seed=8"):
        _run(cfg, out, resume=True)


def test_old_results_without_a_fingerprint_resume_with_one_warning(tmp_path, cfg):
    out = tmp_path / "o"
    _run(cfg, out)
    meta = json.loads((out / "experiment.json").read_text())
    meta.pop("settings", None)
    (out / "experiment.json").write_text(json.dumps(meta))
    logs = []
    cfg.repeats = 3
    _run(cfg, out, logs, resume=True)
    assert len(logs) == 1 and "\n" not in logs[0]
    assert logs[0].startswith("olk: warning:") and "no settings record" in logs[0]
    # the resumed run stored a fingerprint: the next resume is checked
    cfg.scale = 0.25
    with pytest.raises(OlkError, match="scale=0.5, this run has scale=0.25"):
        _run(cfg, out, resume=True)


def test_rerun_computes_one_changed_entry_again_and_keeps_the_others(tmp_path, cfg_path, monkeypatch):
    """--resume --rerun LABEL: that entry (and the entries that match on it) under the config's new settings, the
    other entries' runs kept (not computed again) and still checked; the old runs leave the tables, not the log."""
    out = tmp_path / "o"
    _run(load_config(cfg_path), out)
    before = {json.loads(line)["run_id"] for line in (out / "runs.jsonl").read_text().splitlines()}
    changed = load_config(cfg_path)
    _set_pa1_c(changed)
    with pytest.raises(OlkError, match=r"--rerun pa1 to compute only that entry again"):
        _run(changed, out, resume=True)
    calls = _count_runs(monkeypatch)
    _run(changed, out, resume=True, rerun=["pa1"])
    assert calls["n"] == 4                                          # pa1 x 2 datasets x 2 permutations, nothing else
    main_runs = pd.read_csv(out / "runs.csv").query("phase == 'main'")
    assert set(main_runs.query("label == 'pa1'").run_id) - before == set(main_runs.query("label == 'pa1'").run_id)
    assert len(main_runs) == 12 and set(main_runs.query("label != 'pa1'").run_id) <= before
    recs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert {r["params"]["C"] for r in recs if r["label"] == "pa1"} == {1.0, 2.0}     # the old runs stay in the log
    assert json.loads((out / "experiment.json").read_text())["settings"]["algorithms"]["pa1"]["params"]["C"] == 2.0
    other = load_config(cfg_path)
    _set_pa1_c(other)
    other.algorithm("perceptron").params["output"] = "avg"
    with pytest.raises(OlkError, match=r"algorithms\[perceptron\]"):            # the others are still checked
        _run(other, out, resume=True, rerun=["pa1"])
    with pytest.raises(OlkError, match=r"--rerun pa2: no algorithm entry of rs has that label .*did you mean 'pa1'"):
        _run(changed, out, resume=True, rerun=["pa2"])
    with pytest.raises(OlkError, match="--rerun computes entries of a results directory again: it needs --resume"):
        _run(changed, tmp_path / "p", rerun=["pa1"])


def test_rerun_with_unchanged_settings_computes_the_entry_again_once_per_commit(tmp_path, cfg, monkeypatch):
    """--rerun with the same settings (the same run ids): the entry's runs are computed again with this tree's code
    (a record of another commit, or of a dirty tree, is replaced by the latest one), the others are kept; a second
    --rerun at the same clean commit computes nothing (an interrupted --rerun resumes)."""
    out = tmp_path / "o"
    monkeypatch.setattr(runner_mod, "git_state", lambda: ("aaaaaaaaaaaa", False))
    _run(cfg, out)
    lines = (out / "runs.jsonl").read_text().splitlines()
    n_rows = len(pd.read_csv(out / "runs.csv"))
    monkeypatch.setattr(runner_mod, "git_state", lambda: ("bbbbbbbbbbbb", False))
    calls = _count_runs(monkeypatch)
    _run(cfg, out, resume=True, rerun=["pa1"])
    assert calls["n"] == 4                                          # pa1 x 2 datasets x 2 permutations
    recs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert len(recs) == len(lines) + 4 and {r["commit"] for r in recs[len(lines):]} == {"bbbbbbbbbbbb"}
    rows = pd.read_csv(out / "runs.csv")
    assert len(rows) == n_rows and rows.run_id.is_unique              # one row per run: the latest record
    _run(cfg, out, resume=True, rerun=["pa1"])
    assert calls["n"] == 4                                          # nothing computed twice at this commit
    monkeypatch.setattr(runner_mod, "git_state", lambda: ("bbbbbbbbbbbb", True))
    _run(cfg, out, resume=True, rerun=["pa1"])
    assert calls["n"] == 8                                          # a dirty tree's code is not this commit's


def test_resume_keeps_runs_recorded_before_their_learner_declared_a_parameter(tmp_path, cfg, monkeypatch):
    """A learner that declares a parameter later gives every run a new id (the id hashes all parameters); --resume
    keeps a run recorded before, when the new parameter sits at its old value (olk.experiment.identity), instead
    of computing it again; at another value the run is computed.  The tables show the earlier record."""
    out = tmp_path / "o"
    _run(cfg, out)
    recs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    rows_before = pd.read_csv(out / "runs.csv").query("label == 'pa1'")
    for r in recs:                      # as if pa1's C had been declared after these runs: not in their params
        if r["label"] == "pa1":
            del r["params"]["C"]
            r["run_id"] = "0" + r["run_id"][1:] if r["run_id"][0] != "0" else "1" + r["run_id"][1:]
    (out / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    calls = _count_runs(monkeypatch)
    _run(cfg, out, resume=True)
    assert calls["n"] == 0                                          # C = 1 is pa1's old behaviour: the same runs
    rows = pd.read_csv(out / "runs.csv").query("label == 'pa1'")
    assert len(rows) == len(rows_before) and set(rows.run_id) == {r["run_id"] for r in recs if r["label"] == "pa1"}
    assert list(rows.accuracy) == list(rows_before.accuracy)
    _set_pa1_c(cfg)                                                 # C = 2: not the recorded runs
    _run(cfg, out, resume=True, rerun=["pa1"])
    assert calls["n"] == 4
