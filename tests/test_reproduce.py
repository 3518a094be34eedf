"""`make reproduce-all` (`olk reproduce`): the expected time is stated first, from recorded run times; every config
runs even when an earlier one fails; the failures are listed at the end and the command exits non-zero."""
import json
from pathlib import Path

import pytest
from _cli import run_cli, use_bundled_data

from olk.experiment import reproduce as rep

CONFIG = """
name: {name}
seed: 1
repeats: 4
kernel: {{type: gaussian, gamma: 0.4}}
datasets: [a9a-small, codrna-small]
algorithms:
  - name: perceptron
  - {{name: pa1, tune: {{C: [0.5, 1, 2]}}}}
"""


def _record(name, ds, label, algo, perm, t, phase="main"):
    return {"experiment": name, "phase": phase, "dataset": ds, "label": label, "algorithm": algo, "perm": perm,
            "scale": 1.0, "time_s": t, "run_id": f"{ds}{label}{perm}{phase}"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project directory with two configs: 'part' has 2 of 4 permutations recorded for a9a-small, nothing for
    codrna-small; another results directory timed perceptron on codrna-small."""
    use_bundled_data(monkeypatch)
    monkeypatch.setenv("OLK_HOME", str(tmp_path))
    (tmp_path / "configs").mkdir()
    for name in ("part", "fresh"):
        (tmp_path / "configs" / f"{name}.yaml").write_text(CONFIG.format(name=name))
    (tmp_path / "configs" / "demo.yaml").write_text(CONFIG.format(name="demo"))
    (tmp_path / "configs" / "broken.yaml").write_text("name: [unclosed\n")
    part = tmp_path / "results" / "part"
    part.mkdir(parents=True)
    recs = [_record("part", "a9a-small", "perceptron", "perceptron", p, 10.0) for p in (0, 1)]
    recs += [_record("part", "a9a-small", "pa1", "pa1", p, 20.0) for p in (0, 1)]
    recs += [_record("part", "a9a-small", "pa1", "pa1", -1, 5.0, phase="tune")]
    (part / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    other = tmp_path / "results" / "other"
    other.mkdir()
    (other / "runs.jsonl").write_text(json.dumps(_record("other", "codrna-small", "x", "perceptron", 0, 3.0)) + "\n")
    return tmp_path


def test_the_paper_configs_are_every_config_but_the_demo(project):
    assert [p.name for p in rep.config_files()] == ["broken.yaml", "fresh.yaml", "part.yaml"]


def test_the_estimate_counts_the_runs_resume_leaves_at_their_recorded_times(project):
    times = rep.RecordedTimes.scan(project / "results")
    e = rep.estimate(project / "configs" / "part.yaml", times)
    # a9a-small: 2 missing permutations of perceptron (10 s) and pa1 (20 s); its tuning (5 s) is kept.
    # codrna-small: perceptron 4 runs x 3 s (timed in another directory); pa1 never timed there: unknown
    assert e.remaining_s == pytest.approx(2 * 10 + 2 * 20 + 4 * 3)
    assert e.scratch_s == pytest.approx(4 * 10 + 4 * 20 + 5 + 4 * 3)
    assert e.unknown == ["codrna-small/pa1"] and not e.done
    # no directory of its own: every (dataset, learner) at its time elsewhere, a tuned one with its grid's runs
    fresh = rep.estimate(project / "configs" / "fresh.yaml", times)
    assert fresh.remaining_s == fresh.scratch_s == pytest.approx(4 * 10 + (4 + 3) * 20 + 4 * 3)
    assert rep.estimate(project / "configs" / "broken.yaml", times).error


def test_the_plan_states_the_total_and_says_what_it_does_not_count(project):
    times = rep.RecordedTimes.scan(project / "results")
    lines = rep.estimate_lines([rep.estimate(project / "configs" / n, times) for n in ("part.yaml", "broken.yaml")],
                               jobs=2)
    assert lines[0].split() == ["configs/part.yaml", "~36", "s", "(from", "scratch", "~1", "min);", "not", "counted,",
                                "never", "run", "at", "this", "scale:", "codrna-small/pa1"]
    assert lines[1].startswith("  configs/broken.yaml") and "will fail" in lines[1]
    assert lines[-1].startswith("expected time of this run: at least 36 s on 2 job(s)")


def test_a_failing_config_does_not_stop_the_loop_and_the_failures_are_listed(project):
    ran, out = [], []
    configs = rep.config_files()
    failures = rep.reproduce_all(configs, 2, log=out.append, report=False,
                                 run=lambda c, j: ran.append((c.name, j)) or (2 if c.name == "broken.yaml" else 0))
    assert ran == [("broken.yaml", 2), ("fresh.yaml", 2), ("part.yaml", 2)]       # every config, in order
    assert [(c.name, code) for c, code in failures] == [("broken.yaml", 2)]
    text = "\n".join(out)
    assert text.index("expected time of this run") < text.index("== config 1/3")   # stated before the first run
    assert out[-2:] == ["1 failed (rerun one with `olk run CONFIG --resume` to see its error):",
                        "  configs/broken.yaml (exit status 2)"]


def test_the_command_exits_non_zero_after_running_every_config(project, capsys, monkeypatch):
    monkeypatch.setattr(rep, "run_config", lambda c, j: 0 if c.name != "broken.yaml" else 2)
    monkeypatch.setattr(rep, "olk_command", lambda *a: ["true"])         # the report step
    code, _, err = run_cli(["reproduce", "-j", "1"], capsys)
    assert code == 1 and "2 of 3 configs done" in err and "configs/broken.yaml (exit status 2)" in err
    code, out, _ = run_cli(["reproduce", "--estimate", Path("configs") / "fresh.yaml"], capsys)
    assert code == 0 and "expected time of this run" in out


def test_a_config_runs_in_its_own_process(project):
    """The real runner: a config that does not load exits with olk's bad-input status, and the loop goes on."""
    assert rep.run_config(project / "configs" / "broken.yaml", 1) == 2
