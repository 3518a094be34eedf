"""Engine features for SPA Tables 2/3 and Figures 1/2: batch mode (train/test, cross-validation,
several outputs of one training run), kernel parameters matched to another algorithm, match_tune
(OSKL's G chosen to match SPA's #SV), YAML sweeps and skipping of invalid grid points."""
import json

import numpy as np
import pandas as pd
import pytest

from olk.algorithms import registry
from olk.data import load_dataset
from olk.errors import ConfigError
from olk.experiment import Runner, load_config, seeds
from olk.experiment.regress import compare_to_baseline, summarize

BATCH = """
name: b
mode: batch
seed: 3
repeats: 2
kernel: {type: gaussian, gamma: 0.4}
cv: {folds: 3, max_rows: 450}
datasets:
  - {name: a9a-small, holdout: 0.3}
algorithms:
  - name: spa
    params: {alpha: 1, beta: 5, output: avg}
    tune: {eta: [1, 0.1], kernel.gamma: [0.1, 0.4]}
    outputs: {spa_last: last, spa_avg: avg}
  - name: oskl
    kernel: {type: gaussian, gamma: {match: spa, stat: kernel.gamma}}
    params: {eta: 0.1}
    match_tune: {G: [1, 2, 4, 8, 16, 32], target: {match: spa, stat: n_sv}}
    outputs: {oskl_last: last, oskl_avg: avg}
  - name: bogd
    kernel: {type: gaussian, gamma: {match: spa, stat: kernel.gamma}}
    params: {budget: {match: spa, stat: n_sv}}
    tune: {eta: [100, 1], lam: [0.1, 0.001]}
"""


def _cfg(tmp_path, text, name="c.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return load_config(p)


@pytest.fixture(scope="module")
def batch_out(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("batch")
    return Runner(_cfg(tmp, BATCH), tmp / "out", progress=False, log=lambda m: None).run()


def _records(out):
    return [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]


def test_holdout_split_is_stratified_disjoint_and_reproducible():
    y = np.array([1.0] * 70 + [-1.0] * 30)
    tr, te = seeds.holdout_split(y, 0.3, 5, "d")
    assert len(te) == 30 and len(tr) == 70 and not set(tr) & set(te)
    assert sorted(np.concatenate([tr, te])) == list(range(100))
    assert (y[te] > 0).sum() == 21                       # stratified: 70% positives kept
    tr2, te2 = seeds.holdout_split(y, 0.3, 5, "d")
    assert np.array_equal(te, te2)
    assert not np.array_equal(te, seeds.holdout_split(y, 0.3, 6, "d")[1])


def test_cv_folds_partition_a_stratified_subsample():
    y = np.where(np.arange(1000) % 4 == 0, 1.0, -1.0)
    folds = seeds.cv_folds(y, 3, 300, 1, "d")
    val = np.concatenate([v for _, v in folds])
    assert len(val) == 300 and len(set(val)) == 300       # folds partition the 300-row subsample
    for tr, va in folds:
        assert not set(tr) & set(va) and len(tr) + len(va) == 300
        assert abs((y[va] > 0).mean() - 0.25) < 0.02
    again = seeds.cv_folds(y, 3, 300, 1, "d")
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))


def test_batch_outputs_come_from_one_training_run_and_match_a_direct_computation(batch_out):
    runs = pd.read_csv(batch_out / "runs.csv")
    main = runs[runs.phase == "main"]
    last, avg = main[main.label == "spa_last"], main[main.label == "spa_avg"]
    assert len(last) == len(avg) == 2
    # same training run: identical time and #SV, different test accuracies possible
    assert list(last.train_time_s) == list(avg.train_time_s)
    assert list(last.n_sv) == list(avg.n_sv)
    assert set(main.label) == {"spa_last", "spa_avg", "oskl_last", "oskl_avg", "bogd"}
    # recompute permutation 1 of SPA by hand: the config alone determines the data split, order and seed
    rec = next(r for r in _records(batch_out) if r["phase"] == "main" and r["label"] == "spa" and r["perm"] == 1)
    ds = load_dataset("a9a-small")
    tr, te = seeds.holdout_split(ds.y, 0.3, 3, "a9a-small")
    X, y, Xt, yt = ds.X[tr], ds.y[tr], ds.X[te], ds.y[te]
    model = registry.make("spa", kernel=rec["kernel"], random_state=rec["algo_seed"], **rec["params"])
    model.bind(X)
    for i in seeds.permutation(len(y), 3, "a9a-small", 1):
        model.step(i, y[i])
    for out in ("last", "avg"):
        acc = 100 * np.mean(np.where(model.decision_function(Xt, output=out) >= 0, 1, -1) == yt)
        assert rec["test_accuracy_by_output"][out] == pytest.approx(acc, abs=1e-12)
    assert rec["n_test"] == len(te) and rec["n_examples"] == len(tr)


def test_cv_tuning_chooses_best_mean_validation_accuracy(batch_out):
    recs = [r for r in _records(batch_out) if r["phase"] == "tune" and r["label"] == "spa"]
    assert {r["fold"] for r in recs} == {0, 1, 2}
    scores = {}
    for r in recs:
        key = (r["params"]["eta"], r["kernel"]["gamma"])
        scores.setdefault(key, []).append(r["test_accuracy"])
    best = max(scores, key=lambda k: np.mean(scores[k]))
    meta = json.loads((batch_out / "experiment.json").read_text())
    assert meta["tuning"]["a9a-small"]["spa"]["chosen"] == {"eta": best[0], "kernel.gamma": best[1]}
    main = [r for r in _records(batch_out) if r["phase"] == "main" and r["label"] == "spa"]
    assert {(r["params"]["eta"], r["kernel"]["gamma"]) for r in main} == {best}
    # OSKL and BOGD use the kernel SPA chose (kernel: {gamma: {match: spa, stat: kernel.gamma}})
    for lab in ("oskl", "bogd"):
        assert {r["kernel"]["gamma"] for r in _records(batch_out) if r["label"] == lab} == {best[1]}


def test_match_tune_picks_the_grid_value_closest_to_the_target(batch_out):
    recs = _records(batch_out)
    goal = np.mean([r["n_sv"] for r in recs if r["phase"] == "main" and r["label"] == "spa"])
    cands = {r["params"]["G"]: r["n_sv"] for r in recs if r["phase"] == "match" and r["label"] == "oskl"}
    assert len(cands) == 6
    best = min(cands, key=lambda g: abs(cands[g] - goal))
    assert {r["params"]["G"] for r in recs if r["phase"] == "main" and r["label"] == "oskl"} == {best}
    meta = json.loads((batch_out / "experiment.json").read_text())
    assert meta["tuning"]["a9a-small"]["oskl"]["match"]["chosen"] == {"G": best}
    assert meta["tuning"]["a9a-small"]["oskl"]["match"]["goal"] == pytest.approx(goal)
    # BOGD's budget is SPA's mean #SV; its grid skipped nothing valid
    assert {r["params"]["budget"] for r in recs if r["label"] == "bogd"} == {int(round(goal))}


def test_batch_results_do_not_depend_on_n_jobs(tmp_path, batch_out):
    again = Runner(_cfg(tmp_path, BATCH), tmp_path / "j2", n_jobs=2, progress=False, log=lambda m: None).run()
    cols = ["run_id", "label", "perm", "fold", "test_accuracy", "n_sv", "mistakes"]
    a = pd.read_csv(batch_out / "runs.csv")[cols]
    b = pd.read_csv(again / "runs.csv")[cols]
    pd.testing.assert_frame_equal(a, b)


def test_regress_summary_covers_batch_outputs_and_catches_a_change(batch_out):
    cur = summarize(batch_out)
    run = next(v for k, v in cur["runs"].items() if "|spa|" in k)
    assert set(run["test_accuracy"]) == {"last", "avg"}
    base = json.loads(json.dumps(cur))
    assert compare_to_baseline(cur, base, "b").ok
    for v in base["runs"].values():
        if v["algorithm"] == "spa":
            v["test_accuracy"]["avg"] += 5.0
    rep = compare_to_baseline(cur, base, "b")
    assert not rep.ok and any("test_accuracy changed" in f and "exact" in f for f in rep.failures)


SWEEP = """
name: s
seed: 1
repeats: 2
scale: 0.5
kernel: {type: gaussian, gamma: 0.4}
datasets: [a9a-small]
algorithms:
  - name: spa
    params: {eta: 0.1}
    sweep: {alpha: [1, 3], beta: [2, 5]}
  - name: rbp
    sweep: {budget: [20, 40]}
"""


def test_yaml_sweep_runs_every_valid_point_and_skips_invalid_ones(tmp_path):
    logs = []
    out = Runner(_cfg(tmp_path, SWEEP), tmp_path / "o", progress=False, log=logs.append).run()
    runs = pd.read_csv(out / "runs.csv")
    spa = runs[runs.label == "spa"]
    pts = set(zip(spa.param_alpha, spa.param_beta))
    assert pts == {(1.0, 2.0), (1.0, 5.0), (3.0, 5.0)}          # alpha=3, beta=2 violates beta >= alpha
    assert any("alpha=3,beta=2" in m for m in logs)
    assert len(spa) == 3 * 2 and set(runs[runs.label == "rbp"].param_budget) == {20, 40}
    from olk.report.results import load_results
    res = load_results(out)
    assert set(res.main[res.main.label == "spa"].setting) == {"alpha=1, beta=2", "alpha=1, beta=5", "alpha=3, beta=5"}
    assert set(res.main[res.main.label == "rbp"].setting) == {"budget=20", "budget=40"}


def test_sweep_with_no_valid_point_is_a_one_line_error(tmp_path):
    bad = SWEEP.replace("beta: [2, 5]", "beta: [0.5]")
    with pytest.raises(ConfigError, match="beta >= alpha"):
        Runner(_cfg(tmp_path, bad), tmp_path / "o", progress=False, log=lambda m: None).run()


@pytest.mark.parametrize("edit, msg", [
    (("outputs: {spa_last: last, spa_avg: avg}", "outputs: {spa_last: final}"), "must be one of"),
    (("  - name: bogd\n", "  - name: bogd\n    outputs: {b1: last}\n"), "only learners with an 'output'"),
    (("tune: {eta: [1, 0.1], kernel.gamma", "tune: {eta: [1, 0.1], kernel.gama"), "did you mean 'kernel.gamma'"),
    (("{name: a9a-small, holdout: 0.3}", "{name: a9a-small, holdout: 1.5}"), "holdout"),
    (("cv: {folds: 3, max_rows: 450}", "cv: {fold: 3}"), "did you mean 'folds'"),
    (("target: {match: spa, stat: n_sv}", "target: {match: spaa, stat: n_sv}"), "did you mean 'spa'"),
])
def test_batch_config_errors_are_one_line(tmp_path, edit, msg):
    text = BATCH.replace(*edit)
    assert text != BATCH
    with pytest.raises(ConfigError, match=msg) as e:
        _cfg(tmp_path, text)
    assert "\n" not in str(e.value)


def test_batch_mode_without_a_test_part_says_how_to_fix_it(tmp_path):
    text = BATCH.replace("{name: a9a-small, holdout: 0.3}", "a9a-small")
    with pytest.raises(ConfigError, match="holdout: 0.3"):
        Runner(_cfg(tmp_path, text), tmp_path / "o", progress=False, log=lambda m: None).run()
