"""Experiment engine: determinism across n_jobs, resume, tuning, matched parameters, sweeps."""
import json

import numpy as np
import pandas as pd
import pytest

from olk.algorithms import registry
from olk.algorithms.common.learner import OnlineKernelLearner
from olk.algorithms.registry import Param
from olk.experiment import Runner, load_config, parse_config, seeds
from olk.experiment import runner as runner_mod
from olk.tasks import checkpoints

CFG = """
name: t
seed: 7
repeats: 3
kernel: {type: gaussian, gamma: 0.4}
datasets:
  - {name: a9a-small, params: {spa: {beta: 5}}}
  - codrna-small
algorithms:
  - perceptron
  - name: pa1
    tune: {C: [0.25, 1]}
  - name: spa
    params: {alpha: 1, beta: 10}
    tune: {eta: [1, 0.1]}
"""


def _cfg(tmp_path, text=CFG, name="c.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return load_config(p)


def _runs(out):
    df = pd.read_csv(out / "runs.csv")
    return df.drop(columns=["time_s"])


def test_results_identical_for_one_and_two_jobs(tmp_path):
    cfg = _cfg(tmp_path)
    a = Runner(cfg, tmp_path / "j1", n_jobs=1, progress=False).run()
    b = Runner(cfg, tmp_path / "j2", n_jobs=2, progress=False).run()
    ra, rb = _runs(a), _runs(b)
    assert len(ra) == 2 * (3 * 3) + 2 * (2 + 2)        # main + tuning runs
    pd.testing.assert_frame_equal(ra, rb)
    ca, cb = pd.read_csv(a / "curves.csv"), pd.read_csv(b / "curves.csv")
    pd.testing.assert_frame_equal(ca, cb)


def test_tuning_picks_best_and_main_runs_use_it(tmp_path):
    out = Runner(_cfg(tmp_path), tmp_path / "o", progress=False).run()
    df = pd.read_csv(out / "runs.csv")
    meta = json.loads((out / "experiment.json").read_text())
    for ds in ("a9a-small", "codrna-small"):
        tune = df[(df.phase == "tune") & (df.dataset == ds) & (df.label == "pa1")]
        best = tune.loc[tune.accuracy.idxmax(), "param_C"]
        main = df[(df.phase == "main") & (df.dataset == ds) & (df.label == "pa1")]
        assert set(main.param_C) == {best}
        assert meta["tuning"][ds]["pa1"]["chosen"] == {"C": best}
        assert set(tune.perm) == {seeds.TUNE_PERM}
    # per-dataset override: beta=5 on a9a-small, config's 10 elsewhere
    spa = df[(df.phase == "main") & (df.label == "spa")]
    assert set(spa[spa.dataset == "a9a-small"].param_beta) == {5.0}
    assert set(spa[spa.dataset == "codrna-small"].param_beta) == {10.0}


def test_resume_after_interruption_recomputes_nothing_finished(tmp_path, monkeypatch):
    cfg = _cfg(tmp_path)
    full = Runner(cfg, tmp_path / "full", progress=False).run()
    calls = {"n": 0}
    real = runner_mod.execute_run

    def flaky(spec, X, y):
        calls["n"] += 1
        if calls["n"] == 9:
            raise KeyboardInterrupt
        return real(spec, X, y)

    monkeypatch.setattr(runner_mod, "execute_run", flaky)
    from olk.errors import OlkError
    with pytest.raises(OlkError, match="--resume"):
        Runner(cfg, tmp_path / "part", progress=False).run()
    saved = (tmp_path / "part" / "runs.jsonl").read_text().splitlines()
    assert len(saved) == 8
    # a torn last line (killed mid-write) is ignored and that run recomputed
    with open(tmp_path / "part" / "runs.jsonl", "a") as fh:
        fh.write('{"run_id": "abc", "trunc')
    calls["n"] = -10 ** 6
    with pytest.raises(OlkError, match="already holds runs"):
        Runner(cfg, tmp_path / "part", progress=False).run()
    before = calls["n"]
    out = Runner(cfg, tmp_path / "part", resume=True, progress=False).run()
    assert calls["n"] - before == 26 - 8                # only the unfinished runs ran
    pd.testing.assert_frame_equal(_runs(out), _runs(full))


@registry.register
class _BudgetProbe(OnlineKernelLearner):
    """Test-only learner: a Perceptron that stops adding SVs at `budget`."""
    name = "_budget_probe"
    display = "Probe"
    params = (Param("budget", 10, "cap", type=int, check=lambda v: v >= 1, requirement=">= 1"),)

    def step(self, i, y):
        self.t += 1
        f = self.pool.decision1(self.src, i)
        if y * f <= 0 and self.pool.n_sv < self.budget:
            self.pool.add(self.src, i, y, self.t)
        return f


def test_matched_budget_uses_mean_sv_of_the_referenced_algorithm(tmp_path):
    text = CFG + """
  - name: _budget_probe
    params: {budget: {match: spa, stat: n_sv}}
"""
    out = Runner(_cfg(tmp_path, text), tmp_path / "o", progress=False).run()
    df = pd.read_csv(out / "runs.csv")
    for ds in ("a9a-small", "codrna-small"):
        spa = df[(df.phase == "main") & (df.dataset == ds) & (df.label == "spa")]
        probe = df[(df.phase == "main") & (df.dataset == ds) & (df.label == "_budget_probe")]
        assert set(probe.param_budget) == {int(round(spa.n_sv.mean()))}
        assert probe.n_sv.max() <= int(round(spa.n_sv.mean()))


def test_scale_and_permutations_are_reproducible_from_the_config():
    a = seeds.permutation(100, 3, "x", 2)
    assert np.array_equal(a, seeds.permutation(100, 3, "x", 2))
    assert not np.array_equal(a, seeds.permutation(100, 3, "x", 1))
    assert not np.array_equal(a, seeds.permutation(100, 3, "y", 2))
    assert np.array_equal(seeds.permutation(5, 3, "x", 0, shuffle=False), np.arange(5))
    s = seeds.subsample(1000, 0.1, 3, "x")
    assert len(s) == 100 and np.all(np.diff(s) > 0)
    assert np.array_equal(s, seeds.subsample(1000, 0.1, 3, "x"))
    cps = checkpoints(48842)
    assert cps[0] == 1 and cps[-1] == 48842 and 40 <= len(cps) <= 50


def test_stages_order_dependencies_and_reject_cycles():
    raw = {"datasets": ["a9a-small"], "algorithms": [
        {"name": "_budget_probe", "label": "p", "params": {"budget": {"match": "spa"}}}, {"name": "spa"}]}
    cfg = parse_config(raw, "x.yaml")
    assert [[a.label for a in s] for s in cfg.stages()] == [["spa"], ["p"]]


def test_resume_with_a_subset_keeps_earlier_results_and_drops_stale_ones(tmp_path):
    from olk.experiment.plan import restrict
    cfg = _cfg(tmp_path)
    out = tmp_path / "o"
    Runner(restrict(cfg, None, ["perceptron"]), out, progress=False).run()
    # add PA-I on one dataset only: perceptron's runs (both datasets) stay in runs.csv and the tables
    Runner(restrict(cfg, ["a9a-small"], ["pa1"]), out, resume=True,
           progress=False).run()
    df = pd.read_csv(out / "runs.csv")
    main = df[df.phase == "main"]
    assert set(zip(main.dataset, main.label)) == {("a9a-small", "perceptron"), ("codrna-small", "perceptron"),
                                                  ("a9a-small", "pa1")}
    meta = json.loads((out / "experiment.json").read_text())
    assert meta["algorithms"] == ["perceptron", "pa1"] and meta["datasets"] == ["a9a-small", "codrna-small"]
    assert "pa1" in meta["tuning"]["a9a-small"]
    # resuming a covered pair with a changed setting is refused (tests/test_resume_safety.py); fewer repeats
    # add nothing and drop no row: the directory keeps every permutation it holds (docs/guide/resuming.md)
    changed = restrict(cfg, None, ["perceptron"])
    changed.kernel = {"type": "gaussian", "gamma": 0.5}
    from olk.errors import OlkError
    with pytest.raises(OlkError, match="kernel.gamma=0.4, this run has kernel.gamma=0.5"):
        Runner(changed, out, resume=True, progress=False).run()
    fewer = restrict(cfg, None, ["perceptron"])
    fewer.repeats = 2
    Runner(fewer, out, resume=True, progress=False).run()
    df = pd.read_csv(out / "runs.csv")
    perc = df[(df.phase == "main") & (df.label == "perceptron")]
    assert len(perc) == 2 * 3 and {json.loads(k)["gamma"] for k in perc.kernel} == {0.4}
    assert len(df[(df.phase == "main") & (df.label == "pa1")]) == 3


SEEDS_OF = """
name: crn
seed: 3
repeats: 2
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms:
  - {name: oskl, params: {G: 4}}
  - {name: oskl, label: oskl_crn, params: {G: 4}, seeds_of: oskl}
  - {name: oskl, label: oskl_own, params: {G: 4}}
"""


def test_seeds_of_gives_an_entry_the_random_draws_of_another(tmp_path):
    # common random numbers: the same parameters and the seeds of 'oskl' give 'oskl' 's runs exactly; its own
    # label's seeds give other runs; an entry without seeds_of keeps the run ids it had before the key existed
    out = Runner(_cfg(tmp_path, SEEDS_OF), tmp_path / "o", progress=False).run()
    df = pd.read_csv(out / "runs.csv").set_index(["label", "perm"])
    recs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    seed = {(r["label"], r["perm"]): r["algo_seed"] for r in recs}
    for p in (0, 1):
        assert seed["oskl_crn", p] == seed["oskl", p] != seed["oskl_own", p]
        assert df.loc[("oskl_crn", p), "mistakes"] == df.loc[("oskl", p), "mistakes"]
        assert df.loc[("oskl_crn", p), "n_sv"] == df.loc[("oskl", p), "n_sv"]
    assert (df.xs("oskl_own", level="label")["n_sv"].to_numpy()
            != df.xs("oskl", level="label")["n_sv"].to_numpy()).any()
    assert all("seeds_of" not in r for r in recs if r["label"] != "oskl_crn")
    with pytest.raises(Exception, match=r"seeds_of: no algorithm labelled 'oskl_cr' \(did you mean"):
        _cfg(tmp_path, SEEDS_OF.replace("seeds_of: oskl}", "seeds_of: oskl_cr}"), "bad.yaml")


def test_a_runs_parameters_are_checked_once_when_its_spec_is_planned(tmp_path, monkeypatch):
    """The planner checks (types, ranges, defaults, cross-parameter rules) and the spec holds the result, a
    ``registry.Checked``; executing the spec builds the learner from it without checking again."""
    from olk.experiment.execute import execute_run
    from olk.experiment.plan import Planner

    cfg = _cfg(tmp_path, CFG.replace("repeats: 3", "repeats: 1"))
    spec = next(s for s in Planner(cfg, lambda d, lab: []).main(cfg.datasets[:1], cfg.algorithms, {})
                if s.algorithm == "spa")
    assert isinstance(spec.params, registry.Checked) and spec.params.cls is registry.REGISTRY["spa"]
    assert spec.params["beta"] == 5.0 and isinstance(spec.params["beta"], float)   # the dataset's override, typed

    def no_second_check(*a, **k):
        raise AssertionError("a run's parameters were checked again")
    monkeypatch.setattr("olk.algorithms.common.learner.check_params_of", no_second_check)
    X = np.random.default_rng(0).normal(size=(30, 4))
    rec = execute_run(spec, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    assert rec["params"]["beta"] == 5.0 and rec["n_examples"] == 30
